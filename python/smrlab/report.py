"""The reproduction report: one self-contained HTML page (figures inlined as SVG data, no
file or network fetched) with, per results table, the experiment's figure, its rows, the
paper's numbers beside ours with the ratio, how ours was combined, a mark where ours points
the other way, and the citation, the experiment file and the provenance; the references at
the end.

The page checks itself in the browser: a figure that fails to render is marked on the page and
counted in the body's ``data-figures`` attribute (rendered/total), and each figure's shown width
is kept in its ``data-shown-width``, which the headless-Chromium test reads. The only links are
to smrlab's docs pages, written beside the page (``smrlab.docs_pages``). Not here: the numbers (``smrlab.results``), the figures (``smrlab.plots``), the
comparison with a paper (``smrlab.paper``).
"""

from __future__ import annotations

import base64
import html
from pathlib import Path

from smrlab import citations, paper, plots, results
from smrlab.html_tables import html_table
from smrlab.reproduce.output import html_section
from smrlab.tables import table_notes

STYLE = """
body { font-family: Georgia, serif; max-width: 60rem; margin: 2rem auto; padding: 0 1rem; color: #222; }
h1 { font-size: 1.6rem; } h2 { font-size: 1.25rem; border-bottom: 1px solid #ccc; margin-top: 2.5rem; }
table { border-collapse: collapse; font-size: 0.8rem; margin: 0.6rem 0; }
th, td { border: 1px solid #ddd; padding: 0.15rem 0.45rem; text-align: right; } th { background: #f3f3f3; }
td:first-child, th:first-child { text-align: left; }
.verdict-holds { background: #dcefdc; } .verdict-direction-only { background: #f6ecc8; }
.verdict-fails { background: #f4d3d3; } .verdict-not-comparable, .verdict-not-run { background: #e6e6e6; }
pre { background: #f7f7f7; padding: 0.6rem; font-size: 0.75rem; overflow-x: auto; }
figure { margin: 0.8rem 0; } figure img { width: 100%; max-width: 46rem; } .broken { color: #b00; font-weight: bold; }
figcaption { font-size: 0.8rem; color: #444; max-width: 46rem; }
td.text { text-align: left; }
.cite { font-size: 0.85rem; color: #444; } .notes { font-size: 0.8rem; color: #633; }
"""

# Marks figures that did not render and counts those that did, once the page has loaded.
CHECK = """
window.addEventListener('load', () => {
  const figures = Array.from(document.querySelectorAll('figure img'));
  const rendered = figures.filter(img => img.complete && img.naturalWidth > 0);
  figures.filter(img => !rendered.includes(img)).forEach(img => {
    const note = document.createElement('p'); note.className = 'broken';
    note.textContent = 'This figure did not render.'; img.after(note);
  });
  document.body.dataset.figures = rendered.length + '/' + figures.length;
  // The width each figure is shown at, by which its text is scaled (checked legible in the test).
  figures.forEach(img => { img.dataset.shownWidth = Math.round(img.getBoundingClientRect().width); });
});
"""


def _figure(experiment, frame) -> str:
    """Each of the experiment's figures (``plots.figures_of``) as an inline SVG image (vector:
    sharp at any zoom and in print), with its caption (``plots.caption``) under it."""
    shown, claims = [], paper.claims_of(experiment)
    for _, spec in plots.figures_of(experiment):
        fig, caption = plots.figure_and_caption(experiment, frame, spec, claims)
        svg = base64.b64encode(plots.render(fig, "svg")).decode()
        alt = html.escape(f"{experiment.title or experiment.name}: {spec.get('ylabel') or spec.get('y', '')}")
        below = f"<figcaption>{html.escape(caption)}</figcaption>" if caption else ""
        shown.append(f'<figure><img alt="{alt}" src="data:image/svg+xml;base64,{svg}">{below}</figure>')
    return "".join(shown)


def section(table: Path) -> tuple[str, str | None]:
    """The HTML of one results table, and the key of the paper it reproduces (if any)."""
    frame = results.read(table)
    sidecar = results.provenance(table)
    text = sidecar["experiment"]["text"] or ""
    experiment = results.experiment_of(table)
    columns = results.shown_columns(frame, experiment)
    parts = [f"<h2>{html.escape(experiment.title or experiment.name)}</h2>"]
    key = experiment.reproduces.get("paper")
    if key:
        parts.append(
            f'<p class="cite">Reproduces {html.escape(experiment.reproduces.get("figure", ""))} of '
            f"{html.escape(citations.full(key))}</p>"
        )
    if experiment.description:
        parts.append(f"<p>{html.escape(experiment.description)}</p>")
    parts.append(_figure(experiment, frame))
    rows = results.table_rows(frame, columns)
    parts.append(html_table(columns, rows))
    notes = table_notes(rows, results.notes(frame, columns, experiment.metrics or results.DEFAULT_METRICS))
    if notes:
        parts.append('<ul class="notes">' + "".join(f"<li>{html.escape(line)}</li>" for line in notes) + "</ul>")
    beside = paper.comparison_rows(experiment, frame)
    if beside:
        parts.append(f"<h3>Beside the paper ({html.escape(paper.caption(experiment))})</h3>")
        parts.append(html_table(paper.COLUMNS, beside))
    stamp = sidecar["smrlab"]
    traces = [(name, t["checksum"]) for name, t in sidecar["traces"].items()]
    parts.append(
        "<details><summary>Experiment file and provenance</summary>"
        f"<pre>{html.escape(text)}</pre>"
        f"<p>smrlab {html.escape(stamp['version'])}, commit {html.escape(stamp['git_commit'])}, "
        f"host {html.escape(sidecar['host']['name'])}; {len(sidecar['cells'])} cells, {sidecar['failed']} failed; "
        f"table {html.escape(str(table))}</p>" + html_table(["trace", "checksum"], traces) + "</details>"
    )
    return "\n".join(parts), key


REPRODUCTION_TITLE = "smrlab reproduction report"


def page(tables: list[Path], title: str = REPRODUCTION_TITLE, scorecards: list[dict] = ()) -> str:
    """The whole report for ``tables`` (Parquet files written by ``smrlab run``), led by the
    reproduction scorecards given (documents written by ``smrlab reproduce``)."""
    sections, cited = [html_section(card) for card in scorecards], []
    for card in scorecards:
        cited += [p for p in card.get("papers", []) if p not in cited]
    for table in tables:
        body, key = section(table)
        sections.append(body)
        if key and key not in cited:
            cited.append(key)
    references = "".join(f"<li>{html.escape(citations.full(key))}</li>" for key in cited)
    return (
        f'<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
        f"<style>{STYLE}</style><script>{CHECK}</script></head><body>\n<h1>{html.escape(title)}</h1>\n"
        + "\n".join(sections)
        + (f"\n<h2>References</h2><ol>{references}</ol>" if references else "")
        + "\n</body></html>\n"
    )
