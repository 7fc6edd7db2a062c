"""The scorecard's seeds and cells on a tiny experiment of its own (--root): a claim that compares
cells on a generated trace runs on every seed, each a fresh draw of the trace; one on a fixed
file runs once; only the cells some claim reads run; the JSON gives every seed's value."""

from __future__ import annotations

import json

import pytest
from smrlab.reproduce import scorecard

EXPERIMENT = """name = "tiny"
traces = ["hwsr-table3:prn0@5000", "bundled:wdev"]
[[systems]]
label = "cmr"
system = "cmr"
[[systems]]
label = "smr"
system = "dmsmr"
[[systems]]
label = "unread"
system = "cmr"
params = { disk = "desktop7200" }
"""

CLAIMS = """paper = "pore"
[[claim]]
id = "smr-slower"
where = "w"
quote = "q"
claim = "c"
kind = "ratio"
experiment = "tiny"
metric = "write_io_s"
of = "smr"
over = "cmr"
expect = "above 1"
traces = ["prn0"]
[[claim]]
id = "smr-slower-fixed"
where = "w"
quote = "q"
claim = "c"
kind = "ratio"
experiment = "tiny"
metric = "write_io_s"
of = "smr"
over = "cmr"
expect = "above 1"
traces = ["wdev"]
"""


@pytest.fixture(scope="module")
def card(tmp_path_factory):
    root = tmp_path_factory.mktemp("root")
    (root / "experiments" / "claims").mkdir(parents=True)
    (root / "experiments" / "tiny.toml").write_text(EXPERIMENT)
    (root / "experiments" / "claims" / "pore.toml").write_text(CLAIMS)
    settings = scorecard.Settings(papers=["pore"], quick=True, jobs=1, out=root / "results", root=root, seeds=3)
    return scorecard.make(settings), root


def test_a_comparison_on_a_generated_trace_runs_on_every_seed(card):
    made, root = card
    generated, fixed = made.rows
    assert generated.seeds == [0, 1, 2] and len(set(generated.values)) == 3, "three draws of the recipe"
    assert fixed.seeds == [0] and len(fixed.values) == 1, "a fixed file has no seed to vary"
    provenance = [json.loads(p.read_text()) for p in (root / "results").glob("*/*.json")]
    checksums = {doc["traces"]["prn0"]["checksum"] for doc in provenance if "prn0" in doc["traces"]}
    assert len(checksums) == 3
    document = made.as_dict()
    row = next(r for r in document["rows"] if r["id"] == "smr-slower")
    assert row["values"] == generated.values and row["low"] == min(row["values"]) and row["high"] == max(row["values"])
    assert row["points"][0]["seeds"] == [0, 1, 2] and row["first_seed"] in ("holds", "tie", "fails")


def test_only_the_cells_a_claim_reads_run(card):
    made, root = card
    labels = set()
    for doc in (json.loads(p.read_text()) for p in (root / "results").glob("*/*.json")):
        labels |= {cell["label"] for cell in doc["cells"]}
    assert labels == {"cmr", "smr"}
    # 2 cells on each trace for seed 0, and 2 on prn0 for each further seed.
    assert made.cells_ran == 2 * 2 + 2 * 2
