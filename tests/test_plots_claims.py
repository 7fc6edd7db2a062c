"""Every figure carries the paper's numbers its claims give: the claims files are walked, and
each claim that states a number, a range or a bound (``paper_value``, ``range``, ``above = 5``) on its experiment's
figured measure (or, on a gauge's figure over time, the gauge's mean or peak over the run) must
be drawn on one of its figures ([figure] and its ``also``), drawn from a table of every cell of
the experiment at full size (every trace the paper named, every swept value). A new claim is covered without a case of its own."""

from __future__ import annotations

import dataclasses
import re
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pandas as pd
import pytest
from conftest import REPO
from smrlab import paper, plots
from smrlab.experiment import spec
from smrlab.reproduce.claims import load

GAUGE_STATISTICS = ("mean", "max", "min")


def numbered(claim, figure: dict) -> bool:
    """The claim states a number, a range or a bound on the figure's measure (a bound of 1 says
    only which of two is larger: no number to draw)."""
    bound = claim.bound is not None and claim.bound[1] != 1
    if claim.kind not in ("value", "ratio") or (claim.paper_value is None and claim.range is None and not bound):
        return False
    y = figure.get("y")
    on_gauge = figure.get("kind") == "series" and claim.metric in {f"{y}_{s}" for s in GAUGE_STATISTICS}
    return claim.metric == y or on_gauge


def every_cell(path: Path) -> tuple:
    """The experiment of ``path`` (every trace, not read) and a table of its every cell, each
    figure's measure made up (positive, varied; a gauge a short series)."""
    document = spec.read_toml(path.read_text(), path)
    experiment = spec.parse_document(document, path, with_traces=False)
    names = spec.trace_recipes(path, document["traces"])
    experiment = dataclasses.replace(experiment, traces=dict.fromkeys(names))
    rows = []
    for cell in experiment.cells():
        row = {"label": cell.label, "trace": cell.trace_name, "seed": cell.seed, **cell.given}
        for _, figure in plots.figures_of(experiment):
            y = figure["y"]
            row[y] = 0.2 + (cell.index * 7 % 11) / 20
            if figure.get("kind") == "series":
                row.update({"series.trace_s": [0.0, 1.0, 2.0], f"series.{y}": [0.1, row[y], 0.2]})
        rows.append(row)
    return experiment, pd.DataFrame(rows)


def figures_with_numbers() -> dict[str, list]:
    """Each figured experiment with its claims that give a number, a range or a bound."""
    found: dict[str, list] = {}
    figures = {}
    for claims_path in sorted((REPO / "experiments" / "claims").glob("*.toml")):
        for claim in load(claims_path).claims:
            path = REPO / "experiments" / f"{claim.experiment}.toml"
            if claim.kind == "not-run" or not path.is_file():
                continue
            if path not in figures:
                # Its [figure] alone, as the file holds it (the whole file is read when drawn).
                figure = tomllib.loads(path.read_text()).get("figure", {})
                figures[path] = plots.figures_of(SimpleNamespace(name=path.stem, figure=figure))
            if any(numbered(claim, figure) for _, figure in figures[path]):
                found.setdefault(claim.experiment, []).append(claim)
    return found


FIGURES = figures_with_numbers()


def test_the_walk_finds_the_claims_the_issue_names():
    # uCache Table III's "N of M" ranges, Fig. 8's "about 200" (a maximum of the paper's traces
    # on a lines figure), PORE's range of estimates, HWSR's prn1 number.
    named = {"table3-hit-over-85", "abstract-misses-few", "fig8-buckets-per-gc-worst", "iiia-estimate-range"}
    named |= {"fig15-no-cache-hwsr-vs-disk", "fig12-swap-only-above-100ms"}  # "more than 5x", "above 100 ms"
    assert named | {"fig14-prn1-sblock-segments"} <= {c.id for claims in FIGURES.values() for c in claims}


@pytest.mark.parametrize("name", sorted(FIGURES))
def test_every_number_a_figures_claims_give_is_drawn_on_it(name):
    experiment, frame = every_cell(REPO / "experiments" / f"{name}.toml")
    wanted, drawn_ids, claims = {claim.id for claim in FIGURES[name]}, set(), paper.claims_of(experiment)
    # Only the figures a claim gives a number on (drawing the others would find nothing).
    for _, figure in [(n, f) for n, f in plots.figures_of(experiment) if any(numbered(c, f) for c in FIGURES[name])]:
        fig, caption = plots.figure_and_caption(experiment, frame, figure, claims)
        # The caption names every claim a mark was drawn for, in brackets after the claims file.
        drawn = re.search(r"claims in \S+ \(([^)]*)\)", caption)
        drawn_ids |= set(drawn.group(1).split(", ")) if drawn else set()
        axes = fig.axes[0]
        assert not drawn or axes.get_lines() + axes.collections + axes.texts, "the marks are on the axes"
    assert wanted <= drawn_ids, f"not drawn: {sorted(wanted - drawn_ids)}"
