"""The scorecard on a terminal, short enough to read there: per paper one table of its claims by
verdict (in-sample apart), then the claims that fail, tie or cannot be compared, each with its
text, our value beside the paper's and why; the claims not run grouped by their reason, one
paragraph each; at the end the counts of every paper and the total time. At most
``PAPER_LINES`` lines a paper at the console's width: the rest is on the page and in the JSON.

With ``--json`` or ``--csv`` it prints instead one row per claim with everything the page has
of it (verdict, values per seed, their range, whether in-sample, the model fingerprint of each
cell behind it). Not here: the Markdown page, JSON and Parquet files (``output``).
"""

from __future__ import annotations

from smrlab import tables
from smrlab.citations import short
from smrlab.reproduce.evaluation import FULL_ONLY, Row
from smrlab.reproduce.output import traces_caption
from smrlab.reproduce.scorecard import Scorecard
from smrlab.reproduce.verdict import FAILS, NOT_COMPARABLE, NOT_RUN, TIE, VERDICTS

# The most lines one paper takes on a terminal, its summary table included.
PAPER_LINES = 80
# The verdicts listed claim by claim under a paper's table.
LISTED = (FAILS, TIE, NOT_COMPARABLE)
# A row's text indented under its claim.
INDENT = "    "
CLAIM_COLUMNS = [
    "paper",
    "claim",
    "verdict",
    "in-sample",
    "paper's",
    "ours",
    "seeds",
    "scales",
    "values",
    "low",
    "high",
    "traces",
    "cell models",
    "why",
]


def print_scorecard(card: Scorecard) -> None:
    """The scorecard for a person (or, with --json/--csv, one row per claim for a program)."""
    if tables.machine_readable():
        _print_claims(card)
        return
    mode = "quick" if card.settings.quick else "full"
    tables.print_text(f"Traces: {traces_caption(card)}.")
    for warning in card.warnings:
        tables.print_text(f"Warning: {warning}", indent=INDENT)
    for paper in card.settings.papers:
        rows = [r for r in card.rows if r.paper == paper]
        title = f"{short(paper)}: {len(rows)} claims ({mode}, {seeds_text(card)} on generated traces)"
        tables.print_table(title, ["", *VERDICTS, "claims"], summary_rows(rows))
        lines = real_lines(rows) if card.settings.traces_dir is not None else []
        for line in lines + paper_lines(rows, PAPER_LINES - summary_height(rows) - len(lines)):
            tables.print_text(line, indent=INDENT)
    counts = card.counts()
    tables.print_table(
        "Claims per paper (out of sample; in-sample counted apart on each paper's table)",
        ["paper", *VERDICTS, "claims"],
        [(p, *counts[p].values(), sum(counts[p].values())) for p in counts],
    )
    if card.sensitivity:
        tables.print_table(
            "Sensitivity of the verdicts to the open choices (first seed)",
            ["paper", "open choice", "claim", "verdicts by value", "changes"],
            [
                (r.paper, r.param, r.claim, "; ".join(f"{v}: {w}" for v, w in r.verdicts.items()), r.changes)
                for r in card.sensitivity
            ],
        )
    tables.print_text(
        f"{len(card.rows)} claims judged in {card.seconds / 60:.1f} minutes "
        f"({card.cells_ran} cells run, {card.cells_reused} found stored)."
    )


def print_claims_of_run(title: str, rows: list[Row]) -> None:
    """The claims judged on one command's run (``smrlab hwsr compare``...): a row per claim its
    cells could judge, with its verdict, the paper's value and ours, and a line naming those its
    run could not judge."""
    judged = [row for row in rows if row.verdict != NOT_RUN]
    if judged:
        tables.print_table(
            title,
            ["claim", "verdict", "paper", "ours", "where"],
            [(row.id, row.verdict, row.paper_value, row.ours_text, row.where) for row in judged],
            caption="the paper's claims on this command's experiment files that name no one trace, judged by the "
            "scorecard's rules on this run (its traces, one seed; smrlab reproduce judges every claim on the paper's traces)",
        )
    left = [row.id for row in rows if row.verdict == NOT_RUN]
    if left:
        tables.note(f"{title}: {len(left)} not judged on this run (a cell they read did not run): {', '.join(left)}")


def summary_rows(rows: list[Row]) -> list[tuple]:
    """A paper's claims by verdict: out of sample, and in-sample where any were."""
    found = []
    for label, in_sample in (("out of sample", False), ("in-sample", True)):
        counts = dict.fromkeys(VERDICTS, 0)
        for row in rows:
            if row.in_sample == in_sample:
                counts[row.verdict] += 1
        if not in_sample or sum(counts.values()):
            found.append((label, *counts.values(), sum(counts.values())))
    return found


def summary_height(rows: list[Row]) -> int:
    """The lines a paper's summary table takes at most: title, rules, header (each of them
    wrapped once on a narrow terminal) and its rows."""
    return 7 + len(summary_rows(rows))


def real_lines(rows: list[Row]) -> list[str]:
    """How many of a paper's claims ran on real traces (their rows are marked below)."""
    real = [r.id for r in rows if r.traces_kind.startswith("real")]
    named = f": {', '.join(real)}" if real else ""
    return [f"on real traces: {len(real)} of {len(rows)} claims, the others on smrlab's recipes{named}"]


def paper_lines(rows: list[Row], budget: int) -> list[str]:
    """Under a paper's table: each claim that fails, ties or cannot be compared (with its text and
    values, under them why), then the claims not run by reason; cut to ``budget`` lines at the
    console's width, saying how many were left for the page."""
    blocks = _listed([row for row in rows if row.verdict in LISTED]) + _not_run(rows)
    lines: list[str] = []
    for index, (block, _) in enumerate(blocks):
        height = sum(tables.text_height(line, INDENT) for line in block)
        if sum(tables.text_height(line, INDENT) for line in lines) + height + 1 > budget:
            left = sum(claims for _, claims in blocks[index:])
            lines.append(f"... and {left} more claims: the page (-o FILE.md) and --json list every claim")
            break
        lines += block
    return lines


def _listed(rows: list[Row]) -> list[tuple[list[str], int]]:
    """Each claim with its text and values, those with the same cause together above it (the
    lines of each cause, and how many claims they show)."""
    by_reason: dict[str, list[Row]] = {}
    for row in rows:
        by_reason.setdefault(row.reason, []).append(row)
    blocks = []
    for reason, group in by_reason.items():
        block = [_claim_line(row) for row in group]
        if reason:
            block.append(f"{INDENT}why: {reason}")
        blocks.append((block, len(group)))
    return blocks


def _claim_line(row: Row) -> str:
    values = f"paper {row.paper_value}, ours {row.ours_text}"
    if row.traces_kind.startswith("real"):
        values += f"; traces: {row.traces_kind}"
    return f"{row.verdict}: {row.id}{' (in-sample)' if row.in_sample else ''}: {row.claim} ({values})"


def _not_run(rows: list[Row]) -> list[tuple[list[str], int]]:
    """The claims not run, one paragraph per reason naming them (and how many they are)."""
    by_reason: dict[str, list[str]] = {}
    for row in rows:
        if row.verdict == NOT_RUN:
            reason = FULL_ONLY if row.ours_text == FULL_ONLY else row.reason or row.ours_text
            by_reason.setdefault(reason, []).append(row.id)
    return [
        ([f"not run ({len(ids)}): {reason}: {', '.join(ids)}"], len(ids))
        for reason, ids in sorted(by_reason.items(), key=lambda item: -len(item[1]))
    ]


def seeds_text(card: Scorecard) -> str:
    """The seeds of a claim on generated traces, with their scale where a --full run mixes them."""
    seeds = card.settings.seeds
    if card.settings.scaled_draws():
        return f"a full-size seed and {seeds} draws at the quick scale"
    return f"{seeds} seed{'s' if seeds > 1 else ''}"


def _print_claims(card: Scorecard) -> None:
    """One row per claim, and the counts, for --json and --csv."""
    document = card.as_dict()
    tables.print_table(
        "claims",
        CLAIM_COLUMNS,
        [
            (
                row["paper"],
                row["id"],
                row["verdict"],
                row["in_sample"],
                row["paper_value"],
                row["ours_text"],
                row["seeds"],
                row["scales"],
                row["values"],
                row["low"],
                row["high"],
                row["traces_kind"],
                row["cell_models"],
                row["reason"],
            )
            for row in document["rows"]
        ],
        caption=f"Traces: {traces_caption(card)}",
    )
    for name, counts in (("claims per paper", document["counts"]), ("in-sample claims", document["in_sample"])):
        tables.print_table(name, ["paper", *VERDICTS], [(p, *c.values()) for p, c in counts.items()])
