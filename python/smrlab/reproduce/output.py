"""The scorecard as files: a JSON document, a Parquet table (one row per claim), and the
Markdown page committed as docs/reproduction.md: first the claims per paper by verdict
(in-sample apart), then each claim with its points under it, ending with its verdicts as data so
a test can hold the page to a fresh quick run; and the scorecard's section of the HTML report.
Not here: making the scorecard (``scorecard``), printing it on a terminal (``terminal``).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from smrlab import outputs
from smrlab.citations import short
from smrlab.errors import UsageError
from smrlab.html_tables import html_table
from smrlab.reproduce.evaluation import Row
from smrlab.reproduce.scorecard import SYNTHETIC, Scorecard
from smrlab.reproduce.verdict import VERDICTS

HTML_COLUMNS = ["paper", "claim", "where", "over", "paper's", "ours", "miss", "verdict", "in-sample", "why"]
SENSITIVITY_COLUMNS = ["paper", "open choice", "claim", "verdicts by value", "changes"]
SUFFIXES = (".md", ".json", ".parquet")
# Mark the verdicts' data at the end of the Markdown page: on every seed, and on the first alone.
VERDICTS_MARK = "<!-- scorecard verdicts:"
FIRST_SEED_MARK = "<!-- scorecard verdicts on the first seed:"
# Marks the model's fingerprints the page was made with (``scorecard.model_record``).
MODEL_MARK = "<!-- scorecard model:"


def claim_key(paper: str, claim: str) -> str:
    return f"{paper}/{claim}"


def point_key(paper: str, claim: str, point: str) -> str:
    return f"{paper}/{claim}/{point}"


def verdict_keys(document: dict, first_seed: bool = False) -> dict[str, str]:
    """Every claim's verdict and every point's, by ``paper/claim`` and ``paper/claim/point``; with
    ``first_seed``, the verdicts on the first seed alone (what a run of one seed says)."""
    key = "first_seed" if first_seed else "verdict"
    found = {}
    for row in document["rows"]:
        found[claim_key(row["paper"], row["id"])] = row[key]
        for point in row.get("points", []):
            found[point_key(row["paper"], row["id"], point["point"])] = point[key]
    return found


def _miss(row) -> str:
    miss = row.miss if isinstance(row, Row) else row.get("miss")
    return "" if miss is None or miss < 1.005 else f"{miss:.3g}x"


def _apart(counts: dict[str, int]) -> str:
    total = sum(counts.values())
    if not total:
        return "0"
    return f"{total} (" + ", ".join(f"{v} {n}" for v, n in counts.items() if n) + ")"


def traces_caption(card: Scorecard) -> str:
    """What the scorecard's traces were, in words."""
    if card.settings.traces_dir is None:
        return "smrlab's synthetic recipes of the papers' traces and its bundled samples (the papers used real traces)"
    return (
        f"the real traces found in {card.settings.traces_dir} where named, smrlab's recipes for the others "
        "(the 'traces' of each claim says which)"
    )


def _verdicts_text(verdicts: dict[str, str]) -> str:
    return "; ".join(f"{value}: {verdict}" for value, verdict in verdicts.items())


def check_outputs(paths: list[Path], results: Path, real: bool = False) -> None:
    """Refuses, before anything runs, an output the scorecard cannot be written as (a suffix
    other than .md, .json, .parquet) or whose writing would destroy a file that is not a
    scorecard (a results folder's table, cell or provenance file) or a scorecard on other traces
    (``real``: this one runs on --traces; the synthetic scorecard is never replaced by it, nor
    the other way round)."""
    for path in paths:
        if path.suffix.lower() not in SUFFIXES:
            raise UsageError(f"-o {path}: the scorecard is written as .md, .json or .parquet")
        if path.is_dir():
            raise UsageError(f"-o {path}: is a folder")
        if _in_results_folder(path):
            raise UsageError(f"-o {path}: is inside a results folder (its table, cells and provenance live there)")
        if path.exists() and path.suffix.lower() == ".json":
            document = _scorecard(path)
            if document is None:
                raise UsageError(f"-o {path}: exists and is not a scorecard; it is left as it is")
            if (document["traces"] != SYNTHETIC) != real:
                kind = f"real traces ({document['traces']})" if document["traces"] != SYNTHETIC else "synthetic traces"
                raise UsageError(
                    f"-o {path}: holds the scorecard on {kind}, which this run would replace: name another file"
                )


def _in_results_folder(path: Path) -> bool:
    """Whether ``path`` lies in a results folder of the experiment runner (one with ``cells/``)."""
    folder = path.resolve().parent
    return (folder / "cells").is_dir() or folder.name == "cells"


def _scorecard(path: Path) -> dict | None:
    """The scorecard document in ``path``, or None when it holds none."""
    try:
        document = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    keys = ("rows", "counts", "mode", "traces")
    return document if isinstance(document, dict) and all(k in document for k in keys) else None


def write(card: Scorecard, path: Path) -> Path:
    """The scorecard into ``path``: Markdown (.md), JSON (.json) or Parquet (.parquet)."""
    suffix = path.suffix.lower()
    if suffix == ".md":
        outputs.write_text(path, markdown(card))
    elif suffix == ".json":
        outputs.write_text(path, json.dumps(card.as_dict(), indent=1, sort_keys=True) + "\n")
    elif suffix == ".parquet":
        _write_parquet(card, path)
    else:
        raise UsageError(f"-o {path}: the scorecard is written as .md, .json or .parquet")
    return path


def _write_parquet(card: Scorecard, path: Path) -> None:
    """One row per claim; its points as JSON text, its values per seed as a list."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = []
    for row in card.rows:
        found = row.as_dict()
        found["points"] = json.dumps(found["points"])
        found["cells"] = ",".join(row.cells)
        found["values"] = [None if v is None else float(v) for v in row.values]
        rows.append(found)
    table = pa.Table.from_pylist(rows)
    with outputs.output_file(path) as temporary:
        pq.write_table(table, temporary)


def _cell(text: str) -> str:
    """Text for a Markdown table cell: no pipes, no line breaks, links relative to docs/."""
    return re.sub(r"\bdocs/", "", str(text).replace("|", "\\|").replace("\n", " "))


VERDICT_RULES = (
    "Each claim is judged as the paper words it, and gets one verdict: **holds** (on every seed ours passes the "
    "paper's rule: within the claim's factor of its number, by default 2, a band that never reaches across 1 when "
    'the paper\'s ratio lies on one side of it; inside its range; past its bound, "more than 5" being ours > 5 and '
    '"an order of magnitude" ours >= 10; the order or trend it states), **tie** (the difference it rests on is '
    "inside the noise: our seeds fall on both sides of the threshold, or on a fixed trace ours is within the "
    "claim's floor of it, 1 % unless it states another; never a hold), **direction only** (a ratio on the paper's "
    "side of 1 that misses its number or bound by less than 10 times; the miss is shown), **fails**, **not "
    "comparable** (a response time of a saturated run, whose queue grew for the whole replay, where the paper's "
    "reading cannot be told: when only the system the paper calls worse saturates the claim holds, when only the "
    "better one does it fails; counts that queueing cannot change are judged as usual) and **not run**. A claim's "
    "points are its traces and each value of an axis its cells leave free; it must hold on every point unless it "
    'says "N of M" (that share of ours, rounded to a whole point) or names a statistic (mean, median...) of '
    "the paper's trace set, which must then be run whole. A claim that compares cells on generated traces runs on "
    "{seeds} seeds (fresh draws of the recipe, the first the trace as published); its value is shown as the "
    "mean [lowest-highest] of its seeds.{draws} Whatever was chosen with a result in view is a calibration: the claims it "
    "touches (on the traces it was fitted on, or its own target) are in-sample and counted apart."
)


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
        f"Traces: {traces_caption(card)}.",
        "",
        *[f"**Warning**: {_cell(w)}\n" for w in card.warnings],
        "## Claims per paper",
        "",
        "Out-of-sample claims by verdict; the in-sample ones (judged where a calibration was fitted) are counted "
        "apart, in the last columns.",
        "",
        "| paper | claims | " + " | ".join(VERDICTS) + " | in-sample | numbers fitted |",
        "|---|" + "---|" * (len(VERDICTS) + 3),
    ]
    calibrations = d["calibrations"]
    for paper, counts in d["counts"].items():
        apart = d["in_sample"][paper]
        fitted = (
            sum(c["numbers"] for c in calibrations.values())
            if paper == "all"
            else calibrations.get(paper, {}).get("numbers", 0)
        )
        name = "**all**" if paper == "all" else paper
        lines.append(
            f"| {name} | {sum(counts.values())} | "
            + " | ".join(str(counts[v]) for v in VERDICTS)
            + f" | {_apart(apart)} | {fitted} |"
        )
    extra = [p for p, c in calibrations.items() if c["numbers"] > 1]
    if extra:
        lines += [
            "",
            "**More than one calibration number**: "
            + "; ".join(
                f"{short(p)} fitted {calibrations[p]['numbers']} numbers ("
                + ", ".join(", ".join(c["params"]) for c in calibrations[p]["calibrations"])
                + f") on {', '.join(calibrations[p]['fitted_on']) or 'its traces'}"
                for p in extra
            )
            + ". The rule allows one per paper; the extra ones are declared here, and every claim they touch is "
            "in-sample.",
        ]
    lines += ["", "## How a claim is judged", "", VERDICT_RULES.format(seeds=d["seeds"], draws=draws_text(d))]
    for paper in card.settings.papers:
        lines += ["", f"## {short(paper)}", "", _split(paper, calibrations.get(paper, {})), ""]
        lines += [
            "| claim | where | over | paper's | ours | miss | verdict | why |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for row in card.rows:
            if row.paper != paper:
                continue
            mark = " (in-sample)" if row.in_sample else ""
            lines.append(
                f"| `{row.id}`{mark}: {_cell(row.claim)} | {_cell(row.where)} | {_cell(row.per)} | "
                f"{_cell(row.paper_value)} | {_cell(row.ours_text)} | {_miss(row)} | **{row.verdict}** | "
                f"{_cell(row.reason)} |"
            )
            if len(row.points) > 1 or (row.points and row.points[0].at):
                for point in row.points:
                    sample = " (in-sample)" if point.in_sample else ""
                    lines.append(
                        f"| &nbsp;&nbsp;↳ {_cell(point.name())}{sample} | | | | {_cell(point.text)} | | {point.verdict} | |"
                    )
    if card.sensitivity:
        lines += [
            "",
            "## Sensitivity to the open choices",
            "",
            "Each open choice (a value the paper does not state) re-run at each of its values; the verdict of every "
            "claim whose experiment it touches, each judged on the first seed.",
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
        f"{VERDICTS_MARK} {json.dumps(verdict_keys(d), sort_keys=True)} -->",
        f"{FIRST_SEED_MARK} {json.dumps(verdict_keys(d, first_seed=True), sort_keys=True)} -->",
        f"{MODEL_MARK} {json.dumps({k: model[k] for k in ('systems', 'key_value')}, sort_keys=True)} -->",
        "",
    ]
    return "\n".join(lines)


def draws_text(document: dict) -> str:
    """What the rules paragraph says of the scale of the seeds, a declared choice of a --full run."""
    if "scaled_draws" not in document:
        return f" Here: {document['seed_scales']}."
    return (
        f" Here, a declared choice: {document['scaled_draws']}. Such a claim shows the full-size value, then "
        "the range of the scaled draws [lowest-highest over N draws at the quick scale], and holds only when the "
        "full-size value and every draw clear its rule (a draw on the other side makes a tie); a point whose "
        "trace or parameter value the quick scale does not run has the full-size seed alone, and says so."
    )


def _split(paper: str, calibration: dict) -> str:
    """A paper's split of its traces into fitted and held out, in words."""
    if not calibration.get("calibrations"):
        return "No parameter of this paper's models or recipes was chosen with a result in view: every claim is out of sample."
    parts = []
    for c in calibration["calibrations"]:
        where = f"fitted on {', '.join(c['fitted_on'])}" if c["fitted_on"] else "fitted on no single trace"
        target = f"; its target: `{'`, `'.join(c['claims'])}`" if c["claims"] else ""
        parts.append(
            f"{c['what']} ({c['numbers']} number{'s' if c['numbers'] > 1 else ''}, {where}{target}): {c['reason']}"
        )
    held = (
        f"Held out: every trace but {', '.join(calibration['fitted_on'])}."
        if calibration["fitted_on"]
        else "Held out: every trace."
    )
    return "Calibration: " + " ".join(_cell(p) for p in parts) + f" {held}"


def html_section(document: dict) -> str:
    """The scorecard (as ``Scorecard.as_dict`` wrote it) as a section of the HTML report: the
    claims per paper by verdict, then each claim with its verdict marked by class
    (``verdict-holds`` ...)."""
    import html

    rows = [
        (
            r["paper"],
            r["id"],
            r["where"],
            r.get("per", ""),
            r["paper_value"],
            r["ours_text"],
            _miss(r),
            r["verdict"],
            "yes" if r.get("in_sample") else "",
            r["reason"],
        )
        for r in document["rows"]
    ]
    apart = document.get("in_sample", {})
    counts = "".join(
        f"<li>{html.escape(p)}: "
        + ", ".join(f"{n} {html.escape(v)}" for v, n in c.items() if n)
        + (f"; in-sample {html.escape(_apart(apart[p]))}" if sum(apart.get(p, {}).values()) else "")
        + "</li>"
        for p, c in document["counts"].items()
    )
    parts = [
        f'<h2 id="scorecard">Reproduction scorecard ({html.escape(document["mode"])})</h2>',
        f"<p>Traces: {html.escape(document['traces'])}. Claims per paper by verdict "
        '(<a href="docs/reproduction.html">docs/reproduction.md</a>, the scorecard page, says how each verdict is decided):</p>',
        f"<ul>{counts}</ul>",
        html_table(HTML_COLUMNS, rows),
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
    try:
        document = json.loads(Path(path).read_text())
    except (OSError, ValueError) as error:
        raise UsageError(f"{path}: not a readable scorecard ({error})") from None
    if not isinstance(document, dict) or not isinstance(document.get("rows"), list) or "counts" not in document:
        raise UsageError(f"{path}: not a scorecard written by smrlab reproduce")
    return document


def committed_verdicts(text: str, first_seed: bool = False) -> dict[str, str]:
    """The verdicts a Markdown page written by ``markdown`` ends with (on its first seed alone)."""
    return _marked(text, FIRST_SEED_MARK if first_seed else VERDICTS_MARK)


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
Traces not found keep their recipes; each row says which traces were real, and the terminal
counts them per paper. The scorecard goes to `RESULTS/scorecard-MODE-traces.json`, never over
the one on the recipes. A file with less than half the requests the paper gives its trace (an
excerpt, one volume of a merged server) is used with a warning, on the terminal and in the
scorecard. A real trace is one fixed trace: it has no seeds, and the claim's floor decides its
ties; a calibration fitted on a recipe does not touch it.

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
