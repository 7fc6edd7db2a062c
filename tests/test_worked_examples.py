"""docs/architecture.md's worked examples against the tree: a file the page quotes whole equals
the file, a line it quotes stands in its file, its experiment file runs as written, and the
system and the cache policy it shows run on a bundled trace. A newcomer who copies an example
copies what the code is today.

Not here: the rest of the page (tests/test_architecture_doc.py), or what the systems compute
(the golden results)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pandas as pd
from conftest import DATA

ROOT = Path(__file__).resolve().parents[1]
DOC = (ROOT / "docs" / "architecture.md").read_text()
# A marker comment, then a fenced block: what the block is held to.
EXAMPLE = re.compile(
    r"<!-- (whole file: (?P<whole>\S+)|line of: (?P<line_of>\S+)|(?P<experiment>experiment file)) -->\n```\w*\n(?P<body>.*?)```",
    re.S,
)


def examples(kind: str) -> list[tuple[str | None, str]]:
    found = [
        (m.group(kind) if kind != "experiment" else None, m.group("body"))
        for m in EXAMPLE.finditer(DOC)
        if m.group(kind)
    ]
    assert found, f"docs/architecture.md has no worked example of kind {kind!r}"
    return found


def test_each_file_quoted_whole_is_the_file():
    for path, body in examples("whole"):
        assert body == (ROOT / path).read_text(), f"docs/architecture.md quotes {path} as it no longer is"


def test_each_line_quoted_stands_in_its_file():
    for path, body in examples("line_of"):
        lines = (ROOT / path).read_text().splitlines()
        for line in body.splitlines():
            assert line in lines, f"docs/architecture.md quotes a line {path} does not hold: {line.strip()}"


def test_the_system_and_the_policy_shown_run(cli, tmp_path):
    for name, params in [("cmr", []), ("cache", ["--param", "policy=lru-band"])]:
        cli("sim", "--system", name, "--trace", DATA / "wdev.csv.gz", *params, "--out", f"{name}.json", check=True)
        result = json.loads((tmp_path / f"{name}.json").read_text())
        assert result["report"]["total_io_ns"] > 0 and result["derived"]["total_io_s"] > 0, name


def test_the_experiment_file_runs_as_written(cli, tmp_path):
    [(_, body)] = examples("experiment")
    (tmp_path / "worked-example.toml").write_text(body)
    cli("run", "worked-example.toml", "--jobs", "2", "--out", "results", check=True)
    [folder] = (tmp_path / "results").iterdir()
    cells = pd.read_parquet(next(folder.glob("*.parquet")))
    assert sorted(set(cells["label"])) == ["cmr-only", "lru", "lru-band", "smr-only"]
    assert len(cells) == 8 and (cells["total_io_s"] > 0).all()
    assert list(folder.glob("*.png")) or list(folder.glob("*.svg")), "the figure the file asks for is drawn"
