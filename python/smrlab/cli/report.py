"""``smrlab report RESULTS... -o report.html``: the reproduction report of results tables
(``smrlab.report``), written whole or not at all, and never onto a table it reads or its
provenance or a scorecard; the docs pages it links to beside it (``smrlab.docs_pages``).

Not here: the page itself (``smrlab.report``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from smrlab import docs_pages, outputs, report, results
from smrlab.errors import UsageError
from smrlab.reproduce.output import read_document, scorecards_under
from smrlab.tables import note


def default_title(tables: list[Path], scorecards: list[dict]) -> str:
    """The page's title unless given: a reproduction report when it holds a scorecard or tables
    of the papers' experiments, else the title of the one experiment it shows, or a plain one."""
    experiments = [results.experiment_of(table) for table in tables]
    if scorecards or any(exp.reproduces for exp in experiments):
        return report.REPRODUCTION_TITLE
    titles = list(dict.fromkeys(exp.title or exp.name for exp in experiments))
    return titles[0] if len(titles) == 1 else "smrlab results"


def run(args: argparse.Namespace) -> int:
    tables = [table for path in args.results for table in results.tables_under(path) if table.suffix != ".json"]
    found = [card for path in args.results for card in scorecards_under(path)]
    scorecards = [read_document(card) for card in found]
    if not tables and not scorecards:
        raise UsageError(f"{', '.join(map(str, args.results))}: no results table (.parquet) or scorecard there")
    # The page is made inside: an output that is a table, its provenance or a scorecard read is refused first.
    with outputs.output_file(
        args.out, inputs=[*tables, *map(results.sidecar_path, tables), *found], make_folder=True
    ) as temporary:
        text = report.page(tables, args.title or default_title(tables, scorecards), scorecards)
        temporary.write_text(text)
    docs_pages.write_beside(text, Path(args.out).parent)
    note(f"report of {len(tables)} results tables written to {args.out}")
    print(Path(args.out).resolve())
    return 0


def register(commands) -> None:
    parser = commands.add(
        "report",
        help="one self-contained HTML page of results tables: figures, tables, the papers' numbers",
        description="Write one self-contained HTML page with, per results table (from smrlab run), the "
        "figure, the table, the paper's numbers beside ours with the ratio and the citation, "
        "the experiment file and its provenance. Where it links to smrlab's docs (the scorecard page, "
        "the sections that explain a claim's verdict), they are written as HTML pages in docs/ beside it.",
    )
    parser.add_argument(
        "results",
        nargs="+",
        type=Path,
        help="results tables (.parquet), scorecards (.json, from smrlab reproduce) or folders holding them",
    )
    parser.add_argument(
        "-o", "--out", type=Path, default=Path("report.html"), help="the page to write (default report.html)"
    )
    parser.add_argument(
        "--title",
        help="the page's title (default: 'smrlab reproduction report' for the papers' experiments and "
        "scorecards, else the experiment's own title)",
    )
    parser.set_defaults(func=run)
