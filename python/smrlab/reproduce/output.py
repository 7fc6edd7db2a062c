"""The scorecard as a reader gets it: tables on the terminal (and ``--json``/``--csv`` through
``smrlab.tables``), a JSON document, a Parquet table (one row per claim and trace), and the
Markdown page committed as docs/reproduction.md, which ends with its verdicts as data so a test
can hold the page to a fresh quick run. Not here: making the scorecard (``scorecard``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from smrlab import outputs
from smrlab.citations import short
from smrlab.reproduce.scorecard import Scorecard
from smrlab.reproduce.verdict import VERDICTS, Row
from smrlab.tables import fmt, print_table

COLUMNS = [
    "paper",
    "claim",
    "where",
    "trace",
    "paper's",
    "ours",
    "ours / paper",
    "verdict",
    "our traces",
    "why (where it does not hold)",
]
TERMINAL_COLUMNS = ["claim", "trace", "paper's", "ours", "ours / paper", "verdict"]
SENSITIVITY_COLUMNS = ["paper", "open choice", "claim", "verdicts by value", "changes"]
# Marks the verdicts' data at the end of the Markdown page.
VERDICTS_MARK = "<!-- scorecard verdicts:"
# Marks the model's fingerprints the page was made with (``scorecard.model_record``).
MODEL_MARK = "<!-- scorecard model:"


def row_key(row: Row) -> str:
    """``paper/claim``, or ``paper/claim/trace`` for a claim judged on each trace."""
    return f"{row.paper}/{row.id}" + (f"/{row.trace}" if row.per == "each" else "")


def print_scorecard(card: Scorecard) -> None:
    """Per paper, its claims' rows, then why each that does not hold parts from the paper;
    then the counts and the sensitivity table."""
    mode = "quick" if card.settings.quick else "full"
    for paper in card.settings.papers:
        rows = [r for r in card.rows if r.paper == paper]
        print_table(
            f"{short(paper)}: {len(rows)} rows ({mode})",
            TERMINAL_COLUMNS,
            [
                (r.id, r.trace, r.paper_value, r.ours_text, None if r.ratio is None else round(r.ratio, 3), r.verdict)
                for r in rows
            ],
            caption=_traces_caption(card),
        )
        reasons = {r.id: r.reason for r in rows if r.reason and r.verdict != "holds"}
        if reasons:
            print_table(f"{short(paper)}: why, where a claim does not hold", ["claim", "why"], list(reasons.items()))
    counts = card.counts()
    print_table(
        "Verdicts per paper",
        ["paper"] + list(VERDICTS) + ["rows"],
        [(p, *counts[p].values(), sum(counts[p].values())) for p in counts],
    )
    if card.sensitivity:
        print_table(
            "Sensitivity of the verdicts to the open choices",
            SENSITIVITY_COLUMNS,
            [
                (r.paper, r.param, r.claim, _verdicts_text(r.verdicts), "yes" if r.changes else "no")
                for r in card.sensitivity
            ],
        )


def _traces_caption(card: Scorecard) -> str:
    if card.settings.traces_dir is None:
        return (
            "on smrlab's synthetic recipes of the papers' traces and its bundled samples (the papers used real traces)"
        )
    return f"on the real traces found in {card.settings.traces_dir}; the 'traces' of each row's JSON says which"


def _verdicts_text(verdicts: dict[str, str]) -> str:
    return "; ".join(f"{value}: {verdict}" for value, verdict in verdicts.items())


def write(card: Scorecard, path: Path) -> Path:
    """The scorecard into ``path``: Markdown (.md), JSON (.json) or Parquet (.parquet)."""
    suffix = path.suffix.lower()
    if suffix == ".md":
        outputs.write_text(path, markdown(card))
    elif suffix == ".json":
        outputs.write_text(path, json.dumps(card.as_dict(), indent=1, sort_keys=True) + "\n")
    elif suffix == ".parquet":
        from smrlab.experiment.store import write_parquet

        write_parquet([{**r.as_dict(), "cells": ",".join(r.cells)} for r in card.rows], path)
    else:
        from smrlab.errors import UsageError

        raise UsageError(f"-o {path}: the scorecard is written as .md, .json or .parquet")
    return path


def _cell(text: str) -> str:
    """Text for a Markdown table cell: no pipes, no line breaks, links relative to docs/."""
    return re.sub(r"\bdocs/", "", text.replace("|", "\\|").replace("\n", " "))


def markdown(card: Scorecard) -> str:
    d = card.as_dict()
    stamp = d["smrlab"]
    lines = [
        "# Reproduction scorecard",
        "",
        f"Every claim of the papers smrlab implements, ours beside theirs. Written by `smrlab reproduce "
        f"--{d['mode']} -o docs/reproduction.md` (smrlab {stamp.get('version', '?')}, commit "
        f"{str(stamp.get('git_commit') or '?')[:10]}; {d['cells']['ran']} cells run and {d['cells']['reused']} found "
        f"stored from earlier runs in {d['wall_seconds'] / 60:.1f} minutes); do not edit it by hand: "
        "`tests/test_reproduce.py` holds its verdicts to a fresh quick run's where the quick run can judge them.",
        "",
        f"Traces: {_traces_caption(card)}.",
        "",
        "Verdicts: **holds** (ours within the claim's factor of the paper's number, or inside its range; the order "
        "or trend it states; a ratio on the stated side of 1), **direction only** (a ratio on the same side of 1 as "
        "the paper's, outside the factor), **fails**, **not comparable** (a cell it rests on is saturated: its queue "
        "grew for the whole replay, so its response times measure the trace's length), **not run**. The factor is "
        "2 unless a claim states another. Each paper may have one calibration claim, a number used to set a "
        "parameter; it is marked, and every other claim is validation.",
        "",
        "## Summary",
        "",
        "| paper | " + " | ".join(VERDICTS) + " | rows |",
        "|---|" + "---|" * (len(VERDICTS) + 1),
    ]
    for paper, counts in d["counts"].items():
        lines.append(f"| {paper} | " + " | ".join(str(counts[v]) for v in VERDICTS) + f" | {sum(counts.values())} |")
    for paper in card.settings.papers:
        lines += ["", f"## {short(paper)}", ""]
        calibration = card.calibration.get(paper)
        lines.append(
            f"Calibration claim: `{calibration}`." if calibration else "No claim of this paper calibrates a parameter."
        )
        lines += [
            "",
            "| claim | where | trace | paper's | ours | ours / paper | verdict | our traces | why |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for row in card.rows:
            if row.paper != paper:
                continue
            mark = " (calibration)" if row.id == calibration else ""
            ratio = "" if row.ratio is None else fmt(row.ratio, 3)
            lines.append(
                f"| `{row.id}`{mark}: {_cell(row.claim)} | {_cell(row.where)} | {_cell(row.trace)} | {_cell(row.paper_value)} "
                f"| {_cell(row.ours_text)} | {ratio} | **{row.verdict}** | {_cell(row.traces_kind)} | {_cell(row.reason)} |"
            )
    if card.sensitivity:
        lines += [
            "",
            "## Sensitivity to the open choices",
            "",
            "Each open choice (a value the paper does not state) re-run at each of its values; the verdict of every "
            "claim whose experiment it touches.",
            "",
            "| paper | open choice | claim | verdicts | changes |",
            "|---|---|---|---|---|",
        ]
        for r in card.sensitivity:
            lines.append(
                f"| {r.paper} | `{r.param}` | `{r.claim}` | {_cell(_verdicts_text(r.verdicts))} | {'**yes**' if r.changes else 'no'} |"
            )
    model = d["model"]
    commits = ", ".join(f"{commit[:10]} ({count})" for commit, count in model["cells_by_commit"].items())
    lines += [
        "",
        REAL_TRACES_SECTION,
        "",
        "## The code behind this page",
        "",
        f"Its cells were made by the code of commit {commits or 'none'} (cells made): a stored cell is reused only "
        "by code with the same model fingerprint, so every cell on this page comes from the model below "
        '(docs/architecture.md, "Results and their keys"). `tests/test_reproduce.py` fails when the model has '
        "changed since the page was made.",
        "",
        "| system | model fingerprint |",
        "|---|---|",
        *[f"| `{name}` | `{digest}` |" for name, digest in model["systems"].items()],
        f"| key-value cells | `{model['key_value']}` |",
        "",
        f"{VERDICTS_MARK} {json.dumps({row_key(r): r.verdict for r in card.rows}, sort_keys=True)} -->",
        f"{MODEL_MARK} {json.dumps({k: model[k] for k in ('systems', 'key_value')}, sort_keys=True)} -->",
        "",
    ]
    return "\n".join(lines)


def html_section(document: dict) -> str:
    """The scorecard (as ``Scorecard.as_dict`` wrote it) as a section of the HTML report: the
    counts, then each row with its verdict marked by class (``verdict-holds`` ...)."""
    import html

    from smrlab.html_tables import html_table

    rows = [
        (
            r["paper"],
            r["id"],
            r["where"],
            r["trace"],
            r["paper_value"],
            r["ours_text"],
            None if r["ratio"] is None else round(r["ratio"], 3),
            r["verdict"],
            r["traces_kind"],
            r["reason"],
        )
        for r in document["rows"]
    ]
    counts = "".join(
        f"<li>{html.escape(p)}: " + ", ".join(f"{n} {html.escape(v)}" for v, n in c.items() if n) + "</li>"
        for p, c in document["counts"].items()
    )
    parts = [
        f'<h2 id="scorecard">Reproduction scorecard ({html.escape(document["mode"])})</h2>',
        f"<p>Traces: {html.escape(document['traces'])}. Every claim of the papers, ours beside theirs (docs/reproduction.md "
        "says how each verdict is decided).</p>",
        f"<ul>{counts}</ul>",
        html_table(COLUMNS, rows),
    ]
    if document.get("sensitivity"):
        parts.append(
            "<h3>Sensitivity to the open choices</h3>"
            + html_table(
                SENSITIVITY_COLUMNS,
                [
                    (r["paper"], r["param"], r["claim"], _verdicts_text(r["verdicts"]), "yes" if r["changes"] else "no")
                    for r in document["sensitivity"]
                ],
            )
        )
    return "\n".join(parts)


def scorecards_under(path: Path) -> list[Path]:
    """The scorecards a path names: itself (a .json file), or those a folder holds
    (``scorecard*.json``, as ``smrlab reproduce`` names them)."""
    path = Path(path)
    if path.is_file():
        return [path] if path.suffix == ".json" else []
    return sorted(path.glob("scorecard*.json")) if path.is_dir() else []


def read_document(path: Path) -> dict:
    """A scorecard JSON document written by ``write``."""
    from smrlab.errors import UsageError

    try:
        document = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise UsageError(f"{path}: not a readable scorecard ({error})") from None
    if not isinstance(document, dict) or not isinstance(document.get("rows"), list) or "counts" not in document:
        raise UsageError(f"{path}: not a scorecard written by smrlab reproduce")
    return document


def committed_verdicts(text: str) -> dict[str, str]:
    """The verdicts a Markdown page written by ``markdown`` ends with."""
    return _marked(text, VERDICTS_MARK)


def committed_model(text: str) -> dict:
    """The model's fingerprints a Markdown page written by ``markdown`` was made with (empty
    for a page older than fingerprints)."""
    return _marked(text, MODEL_MARK)


def _marked(text: str, mark: str) -> dict:
    for line in text.splitlines():
        if line.startswith(mark):
            return json.loads(line[len(mark) :].removesuffix("-->").strip())
    return {}


REAL_TRACES_SECTION = """## On the papers' real traces

`smrlab reproduce --traces DIR` runs each claim on the real trace files found in DIR instead of
smrlab's recipes, matched by name: a file whose name before its first dot is the trace's name,
ignoring case, `_` and `-`, or its name followed by volume 0 (PORE's `wdev` is `wdev_0.csv`).
Traces not found keep their recipes; each row says which traces were real.

- MSR Cambridge block traces (Narayanan et al., FAST 2008), published by SNIA IOTTA (trace set
  388, "MSR Cambridge Traces"). PORE names servers (`src`, `prn`, `ts`, `wdev`, `mds`, `stg`,
  `hm`, `web`, `usr`), not volumes, and does not say which it used; its Table I request counts
  fit a server's volumes together for some (mds: 2.92 M, about `mds_0` and `mds_1`), so merge
  them (`smrlab trace merge mds_0.csv mds_1.csv --out mds.smrbin`) or give volume 0 alone
  (`wdev_0.csv`), and say which in your results. For HWSR `mds_0`,
  `mds_1`, `prn_0`, `prn_1`, `proj_0`, `proj_1`, `usr_0`, `usr_1`, `prxy_0`, `wdev_0`; for
  FluidSMR `hm_0`, `prn_1`, `proj_0`, `proj_1`, `prxy_0`, `src1_1`, `src1_2`, `src2_2`, `stg_0`,
  `ts_0`, `usr_0`, `web_0`.
- UMass Trace Repository, OLTP Application I/O: `Financial1.spc` and `Financial2.spc` (HWSR).
- The CloudPhysics traces of uCache are not public: its claims run on the bundled samples.
- The SMRDB thesis ran YCSB, which smrlab runs itself."""
