"""``smrlab report RESULTS... -o report.html``: the reproduction report of results tables
(``smrlab.report``), written whole or not at all.

Not here: the page itself (``smrlab.report``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from smrlab import outputs, report, results
from smrlab.reproduce.output import read_document, scorecards_under
from smrlab.errors import UsageError
from smrlab.tables import note


def run(args: argparse.Namespace) -> int:
    tables = [table for path in args.results for table in results.tables_under(path) if table.suffix != ".json"]
    scorecards = [read_document(found) for path in args.results for found in scorecards_under(path)]
    if not tables and not scorecards:
        raise UsageError(f"{', '.join(map(str, args.results))}: no results table (.parquet) or scorecard there")
    outputs.write_text(args.out, report.page(tables, scorecards=scorecards))
    note(f"report of {len(tables)} results tables written to {args.out}")
    print(Path(args.out).resolve())
    return 0


def register(commands) -> None:
    parser = commands.add("report", help="one self-contained HTML page of results tables: figures, tables, the papers' numbers",
                          description="Write one self-contained HTML page with, per results table (from smrlab run), the "
                                      "figure, the table, the paper's numbers beside ours with the ratio and the citation, "
                                      "the experiment file and its provenance.")
    parser.add_argument("results", nargs="+", type=Path, help="results tables (.parquet), scorecards (.json, from smrlab reproduce) or folders holding them")
    parser.add_argument("-o", "--out", type=Path, default=Path("report.html"), help="the page to write (default report.html)")
    parser.set_defaults(func=run)
