"""Printing results as tables on the terminal (rich) and as JSON.

Every command prints through here so that tables look alike and ``--json`` and ``--csv`` mean
the same everywhere: a command that prints tables takes both (``add_json_argument``); ``--json``
prints one JSON document, ``{"tables": [{"title", "caption", "columns", "rows"}, ...]}``, and
``--csv`` plain CSV, the values unrounded: one table as it is, several as one table whose
first column, ``table``, names the table each row belongs to (its title). A table's notes (what
makes its numbers say less than they seem to: ``smrlab.caveats``) are drawn under it, kept in
its JSON as ``notes``, and go to stderr beside CSV; a cell with a mark (a saturated run's
response time) is drawn with it and the mark's footnote joins the notes, while JSON and CSV keep
the plain value. Not here: computing what goes into the tables.
"""

from __future__ import annotations

import csv
import json
import os
import sys
import textwrap
from collections.abc import Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from smrlab import caveats

# A terminal's tables fit its width; piped output (a file, CI logs) is as wide as each table
# needs (COLUMNS, where set, limits it), never squeezed into rich's 80-column default.
UNLIMITED = 100_000
_console = Console(
    stderr=False,
    highlight=False,
    soft_wrap=True,
    width=None if sys.stdout.isatty() or os.environ.get("COLUMNS") else UNLIMITED,
)


def fmt(value: Any, digits: int = 3) -> str:
    """A cell: floats with ``digits`` significant digits, ints with thousands separators."""
    if isinstance(value, caveats.Marked):
        return f"{fmt(value.value, digits)} {value.mark}"
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        if value == 0:
            return "0"
        if abs(value) >= 10**digits:
            return f"{value:,.0f}"
        return f"{value:.{digits}g}"
    return str(value)


# Tables gathered for one JSON document while a command runs with --json (None: draw them).
_json_tables: list[dict] | None = None


# Tables gathered for CSV while a command runs with --csv (None: draw them).
_csv_tables: list[dict] | None = None


def add_json_argument(parser) -> None:
    """``--json`` and ``--csv``: tables as one JSON document, or as CSV, instead of drawn."""
    parser.add_argument(
        "--json",
        dest="tables_json",
        action="store_true",
        help="print the tables as one JSON document (title, caption, columns, rows) instead of drawing them",
    )
    parser.add_argument(
        "--csv",
        dest="tables_csv",
        action="store_true",
        help="print the tables as CSV: one table as it is; several as one, whose first column "
        "'table' names each row's table",
    )


def gather_csv() -> None:
    """From now on, tables are gathered for CSV instead of drawn, until ``flush``."""
    global _csv_tables
    _csv_tables = []


def gather_json() -> None:
    """From now on, tables are gathered instead of drawn, until ``flush``."""
    global _json_tables
    _json_tables = []


def flush() -> None:
    """Prints the gathered tables: as one JSON document, or as CSV."""
    global _json_tables, _csv_tables
    if _json_tables is not None:
        print_json({"tables": _json_tables})
        _json_tables = None
    if _csv_tables is not None:
        gathered, _csv_tables = _csv_tables, None
        writer = csv.writer(sys.stdout, lineterminator="\n")
        if len(gathered) == 1:
            writer.writerow(gathered[0]["columns"])
            writer.writerows(_csv_row(row) for row in gathered[0]["rows"])
            return
        columns = list(dict.fromkeys(column for table in gathered for column in table["columns"]))
        writer.writerow(["table", *columns])
        for table in gathered:
            for row in table["rows"]:
                cells = dict(zip(table["columns"], _csv_row(row)))
                writer.writerow([table["title"], *(cells.get(column, "") for column in columns)])


def _csv_row(row) -> list:
    return ["" if cell is None else cell for cell in row]


def table_notes(rows: Sequence[Sequence[Any]], notes: Sequence[str] = ()) -> list[str]:
    """``notes``, led by the footnote of the saturated mark when a cell of ``rows`` carries it."""
    return ([caveats.SATURATED_NOTE] if caveats.SATURATED_MARK in caveats.marks(rows) else []) + list(notes)


def print_table(
    title: str,
    columns: Sequence[str],
    rows: Sequence[Sequence[Any]],
    caption: str | None = None,
    notes: Sequence[str] = (),
) -> None:
    """Prints rows under ``columns``; the first column is left-aligned, the others right-aligned;
    ``notes`` (and the footnote of a mark in a cell) under the caption."""
    notes = table_notes(rows, notes)
    plain = [[caveats.plain(cell) for cell in row] for row in rows]
    if _json_tables is not None:
        _json_tables.append(
            {"title": title, "caption": caption, "columns": list(columns), "rows": plain, "notes": notes}
        )
        return
    if _csv_tables is not None:
        _csv_tables.append({"title": title, "columns": list(columns), "rows": plain})
        for line in notes:
            note(f"{title}: {line}")
        return
    caption = "\n".join(filter(None, [caption, *notes])) or None
    table = Table(title=title, caption=caption, title_justify="left", caption_justify="left")
    for index, column in enumerate(columns):
        table.add_column(column, justify="left" if index == 0 else "right", no_wrap=index == 0)
    for row in rows:
        table.add_row(*(fmt(cell) for cell in row))
    _console.print(table)


def machine_readable() -> bool:
    """Whether tables are gathered for --json or --csv rather than drawn for a person."""
    return _json_tables is not None or _csv_tables is not None


def _text_width() -> int | None:
    """The width text is wrapped to: the terminal's (or COLUMNS), None for piped output."""
    return None if _console.width >= UNLIMITED else _console.width


def text_lines(text: str, indent: str = "") -> list[str]:
    """``text`` wrapped to the console's width, its later lines indented by ``indent``."""
    width = _text_width()
    if width is None:
        return [text]
    return textwrap.wrap(text, width, subsequent_indent=indent, break_on_hyphens=False) or [""]


def text_height(text: str, indent: str = "") -> int:
    """The lines ``print_text`` takes for ``text``."""
    return len(text_lines(text, indent))


def print_text(text: str, indent: str = "") -> None:
    """A paragraph for a person, wrapped to the console's width (nothing with --json or --csv)."""
    if machine_readable():
        return
    for line in text_lines(text, indent):
        _console.print(line, markup=False, highlight=False)


def print_json(data: Any) -> None:
    json.dump(data, sys.stdout, indent=2, sort_keys=True)
    sys.stdout.write("\n")


def note(message: str) -> None:
    """A line for the user on stderr (progress, where results were written)."""
    print(message, file=sys.stderr)
