"""Printing results as tables on the terminal (rich) and as JSON.

Every command prints through here so that tables look alike and ``--json`` and ``--csv`` mean
the same everywhere: a command that prints tables takes both (``add_json_argument``); ``--json``
prints one JSON document, ``{"tables": [{"title", "caption", "columns", "rows"}, ...]}``, and
``--csv`` each table as CSV after a ``# title`` line, the values unrounded. Not here: computing
what goes into the tables.
"""

from __future__ import annotations

import csv
import json
import sys
from typing import Any, Sequence

from rich.console import Console
from rich.table import Table

# Piped output (a file, CI logs) gets wide tables instead of rich's 80-column default.
_console = Console(stderr=False, highlight=False, soft_wrap=True, width=None if sys.stdout.isatty() else 160)


def fmt(value: Any, digits: int = 3) -> str:
    """A cell: floats with ``digits`` significant digits, ints with thousands separators."""
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value == 0:
            return "0"
        if abs(value) >= 10 ** digits:
            return f"{value:,.0f}"
        return f"{value:.{digits}g}"
    return str(value)


# Tables gathered for one JSON document while a command runs with --json (None: draw them).
_json_tables: list[dict] | None = None


# Whether tables are printed as CSV (``--csv``) instead of drawn.
_csv = False


def add_json_argument(parser) -> None:
    """``--json`` and ``--csv``: tables as one JSON document, or as CSV, instead of drawn."""
    parser.add_argument("--json", dest="tables_json", action="store_true",
                        help="print the tables as one JSON document (title, caption, columns, rows) instead of drawing them")
    parser.add_argument("--csv", dest="tables_csv", action="store_true",
                        help="print each table as CSV (after a '# title' line) instead of drawing it")


def print_csv() -> None:
    """From now on, tables are printed as CSV."""
    global _csv
    _csv = True


def gather_json() -> None:
    """From now on, tables are gathered instead of drawn, until ``flush_json``."""
    global _json_tables
    _json_tables = []


def flush_json() -> None:
    """Prints the gathered tables as one JSON document."""
    global _json_tables
    if _json_tables is not None:
        print_json({"tables": _json_tables})
        _json_tables = None


def print_table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]], caption: str | None = None) -> None:
    """Prints rows under ``columns``; the first column is left-aligned, the others right-aligned."""
    if _json_tables is not None:
        _json_tables.append({"title": title, "caption": caption, "columns": list(columns), "rows": [list(r) for r in rows]})
        return
    if _csv:
        print(f"# {title}")
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(columns)
        writer.writerows(["" if cell is None else cell for cell in row] for row in rows)
        return
    table = Table(title=title, caption=caption, title_justify="left", caption_justify="left")
    for index, column in enumerate(columns):
        table.add_column(column, justify="left" if index == 0 else "right", no_wrap=index == 0)
    for row in rows:
        table.add_row(*(fmt(cell) for cell in row))
    _console.print(table)


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")


def note(message: str) -> None:
    """A line for the user on stderr (progress, where results were written)."""
    print(message, file=sys.stderr)
