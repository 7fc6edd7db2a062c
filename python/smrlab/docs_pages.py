"""smrlab's docs pages (``smrlab/docs``, shipped in the package; the repository's ``docs/`` links
to them) as HTML pages beside a report that links to them: the scorecard page
(reproduction.md) and the sections claims' reasons name (``docs/pore.md#smr-write-cost``), so
that the report's relative links, their sections and the pages' links to each other work from
wherever the report was written, an installed copy of smrlab's included.

Not here: the report (``smrlab.report``), the links in its tables (``smrlab.html_tables``).
"""

from __future__ import annotations

import html
import re
from pathlib import Path

from smrlab import outputs

DOCS = Path(__file__).resolve().parent / "docs"
# A docs page named in a text, with its section: docs/NAME.md or docs/NAME.md#anchor.
DOC_REFERENCE = re.compile(r"\bdocs/([a-z0-9_-]+)\.md(#[a-z0-9_-]+)?")
STYLE = """
body { font-family: Georgia, serif; max-width: 50rem; margin: 2rem auto; padding: 0 1rem; color: #222; line-height: 1.45; }
table { border-collapse: collapse; font-size: 0.85rem; } th, td { border: 1px solid #ddd; padding: 0.15rem 0.45rem; }
pre, code { background: #f7f7f7; font-size: 0.85rem; } pre { padding: 0.6rem; overflow-x: auto; }
"""


def doc_links(escaped: str) -> str:
    """HTML-escaped text with each docs page it names (``DOC_REFERENCE``) a relative link to its
    HTML page (``docs/NAME.html#section``, as ``write_beside`` writes them)."""
    return DOC_REFERENCE.sub(lambda m: f'<a href="docs/{m.group(1)}.html{m.group(2) or ""}">{m.group(0)}</a>', escaped)


def slug(heading: str) -> str:
    """A heading's anchor as GitHub makes it (the one the docs and the claims' reasons name):
    lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


def _with_anchors(body: str) -> str:
    """Each heading of ``body`` (HTML) with its ``slug`` as its id; a repeated one numbered."""
    seen: dict[str, int] = {}

    def anchor(match: re.Match) -> str:
        level, inner = match.group(1), match.group(2)
        name = slug(html.unescape(re.sub(r"<[^>]+>", "", inner)))
        count = seen.get(name, 0)
        seen[name] = count + 1
        return f'<h{level} id="{name if count == 0 else f"{name}-{count}"}">{inner}</h{level}>'

    return re.sub(r"<h([1-6])>(.*?)</h\1>", anchor, body)


def page(markdown: str, title: str) -> str:
    """One docs page as a whole HTML page: its headings anchored, its links to other docs pages
    (``NAME.md#section``) to their HTML pages."""
    from markdown_it import MarkdownIt

    body = _with_anchors(MarkdownIt("commonmark").enable("table").render(markdown))
    body = re.sub(r'href="([a-z0-9_-]+)\.md(#[^"]*)?"', lambda m: f'href="{m.group(1)}.html{m.group(2) or ""}"', body)
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{STYLE}</style></head><body>\n{body}</body></html>\n"
    )


def write_beside(report_text: str, folder: Path) -> list[Path]:
    """Writes every docs page as HTML into ``folder/docs`` when ``report_text`` links to one
    (each written whole); returns them (none when it links to none)."""
    if not DOC_REFERENCE.search(report_text) and 'href="docs/' not in report_text:
        return []
    written = []
    for source in sorted(DOCS.glob("*.md")):
        path = Path(folder) / "docs" / f"{source.stem}.html"
        with outputs.output_file(path, make_folder=True) as temporary:
            temporary.write_text(page(source.read_text(), f"smrlab: {source.stem}"))
        written.append(path)
    return written
