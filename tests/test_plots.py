"""Figures fit for a paper: no title inside, units on the axes, plain log ticks, values on a log
axis drawn as points (a bar's height means nothing there), the paper's values drawn beside
ours, colour-blind-safe colours, vector output; and the comparison table marks a ratio that
points the other way from the paper's and says which statistic ours is."""

from __future__ import annotations

import matplotlib.colors
import pandas as pd
import pytest

from smrlab import paper, plots
from smrlab.experiment.spec import Experiment, SystemRun


def experiment(figure, entries=()):
    return Experiment(name="fig", traces={}, systems=[SystemRun("lru", "cache"), SystemRun("pore-bl", "cache")],
                      figure=figure, paper=list(entries), title="a title that must not be drawn")


FRAME = pd.DataFrame({
    "label": ["lru", "pore-bl"] * 4,
    "trace": ["wdev"] * 8,
    "cache": ["1%", "1%", "2%", "2%", "3%", "3%", "5%", "5%"],
    "write_io_s": [9882.0, 4688.0, 6424.0, 2422.0, 3046.0, 1647.0, 1910.0, 877.0],
    "response_mean_ns": [2.5e6, 1.5e6] * 4,
})


def texts(fig) -> list[str]:
    axes = fig.axes[0]
    return [t.get_text() for t in axes.get_yticklabels() + axes.get_xticklabels()] + [axes.get_ylabel(), axes.get_title()]


def test_a_log_axis_draws_points_with_plain_ticks_and_no_title():
    fig = plots.figure(experiment({"kind": "bars", "x": "cache", "y": "write_io_s", "logy": True}), FRAME)
    axes = fig.axes[0]
    assert axes.get_yscale() == "log" and not axes.patches, "points, not bars, on a log axis"
    labels = [t.get_text() for t in axes.get_yticklabels() if t.get_text()]
    assert labels and all(label.replace(".", "").isdigit() for label in labels), labels
    low, high = axes.get_ylim()
    assert (low, high) == (500, 10000), "from the 1-2-5 step below the least value to the one above the most"
    assert axes.get_title() == "" and axes.get_ylabel() == "write I/O time (s)"


def test_bars_start_at_zero_in_colour_blind_safe_colours():
    fig = plots.figure(experiment({"kind": "bars", "x": "cache", "y": "write_io_s"}), FRAME)
    axes = fig.axes[0]
    assert axes.patches and axes.get_ylim()[0] == 0
    used = {matplotlib.colors.to_hex(p.get_facecolor()).upper() for p in axes.patches}
    assert used <= {c.upper() for c in plots.COLOURS}


def test_the_papers_values_are_drawn_beside_ours_in_milliseconds():
    entries = [{"label": "pore-bl", "metric": "response_mean_ns", "where": {"cache": "2%"}, "value": 1.2e6, "statistic": "median"}]
    fig = plots.figure(experiment({"kind": "lines", "x": "cache", "y": "response_mean_ns", "ylabel": "mean response (ns)"}, entries), FRAME)
    axes = fig.axes[0]
    [marks] = [line for line in axes.get_lines() if line.get_label().startswith("paper")]
    assert marks.get_label() == "paper (median of its traces)"
    assert list(marks.get_xdata()) == [1] and list(marks.get_ydata()) == [pytest.approx(1.2)]
    assert axes.get_ylabel() == "mean response (ms)"


@pytest.mark.parametrize("fmt, start", [("svg", b"<?xml"), ("pdf", b"%PDF")])
def test_vector_output(fmt, start):
    made = [plots.render(plots.figure(experiment({"kind": "bars", "x": "cache", "y": "write_io_s"}), FRAME), fmt) for _ in range(2)]
    assert made[0].startswith(start) and made[0] == made[1], "the same bytes for the same figure"


def test_a_ratio_on_the_other_side_of_one_is_marked_reversed_and_the_statistic_named():
    # PORE Fig. 16 at 5 %: PORE-BL's write time over LRU-band's, 0.181 in the paper, 1.64 here.
    frame = pd.DataFrame({"label": ["pore-bl", "lru-band"], "trace": ["wdev", "wdev"], "seed": [0, 0], "cache": ["5%", "5%"],
                          "write_io_s": [877.0, 534.0]})
    entry = {"label": "pore-bl", "over": "lru-band", "metric": "write_io_s", "where": {"cache": "5%"}, "value": 0.181}
    [row] = paper.comparison_rows(experiment({}, [entry]), frame)
    what, value, ours, how, ratio, direction, note = row
    assert ours == pytest.approx(877 / 534) and direction == paper.REVERSED and how == "one row (wdev)"
    assert paper.direction({**entry, "value": 0.437}, 0.706) == "same"
    assert paper.combine([0.96, 0.70], "median") == pytest.approx(0.83) and paper.combine([1.0, 4.0], "geomean") == 2.0
