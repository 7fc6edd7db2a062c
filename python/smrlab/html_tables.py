"""HTML tables of the report's pages: numbers right-aligned, words left, a claim's verdict
marked by its class, a page of smrlab's docs a text names (``docs/pore.md#smr-write-cost``,
as a claim's reason does) a link to its page beside the report (``smrlab.docs_pages``), shared by the reproduction report (``smrlab.report``) and the scorecard's
section of it (``smrlab.reproduce.output``) so that neither imports the other.

Not here: the page, its style (``smrlab.report``) or the numbers (``smrlab.tables.fmt``).
"""

from __future__ import annotations

import html

from smrlab.docs_pages import doc_links
from smrlab.reproduce.verdict import VERDICTS
from smrlab.tables import fmt


def _cell(value) -> str:
    """A cell: numbers right-aligned, words left, a claim's verdict marked by its class
    (``verdict-holds``, ``verdict-fails``...)."""
    if value in VERDICTS:
        return f'<td class="verdict-{value.replace(" ", "-")}">{html.escape(value)}</td>'
    if isinstance(value, str) and len(value) > 12:
        return f'<td class="text">{doc_links(html.escape(value))}</td>'
    return f"<td>{html.escape(fmt(value))}</td>"


def html_table(columns: list[str], rows: list[tuple]) -> str:
    """An HTML table of ``rows`` under ``columns``."""
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(_cell(cell) for cell in row) + "</tr>" for row in rows)
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"
