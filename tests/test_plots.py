"""Figures fit for a paper: no title inside, units on the axes, plain log ticks, values on a log
axis drawn as points (a bar's height means nothing there), the paper's values (its claims)
drawn beside ours, colour-blind-safe colours, vector output; and the comparison table judges a
ratio that points the other way from the paper's as failing and says which statistic ours is."""

from __future__ import annotations

import base64
import html
import math
import re

import matplotlib.colors
import pandas as pd
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from smrlab import paper, plots
from smrlab.experiment.spec import Experiment, SystemRun


def experiment(figure, claims_text: str = "", folder=None):
    """An experiment named "fig" with the figure ``figure``; with ``claims_text``, its paper's
    claims file (claims/pore.toml beside it in ``folder``) holds those claims."""
    source = None
    if claims_text:
        (folder / "claims").mkdir(exist_ok=True)
        (folder / "claims" / "pore.toml").write_text('paper = "pore"\n' + claims_text)
        source = folder / "fig.toml"
    systems = [SystemRun(label, "cache") for label in ("lru", "lru-band", "pore-bl")]
    return Experiment(
        name="fig",
        traces={},
        systems=systems,
        figure=figure,
        title="a title that must not be drawn",
        reproduces={"paper": "pore"},
        source=source,
    )


def claim(**keys) -> str:
    """A [[claim]] table of the experiment "fig", each key's value written as TOML (text, a
    number, a list of text or a table of text)."""

    def toml(value) -> str:
        if isinstance(value, dict):
            return "{ " + ", ".join(f'{k} = "{v}"' for k, v in value.items()) + " }"
        if isinstance(value, list):
            return "[" + ", ".join(f'"{v}"' for v in value) + "]"
        return repr(value) if isinstance(value, (int, float)) else f'"{value}"'

    given = {"where": "§1", "quote": "q", "claim": "c", "experiment": "fig", **keys}
    return "[[claim]]\n" + "".join(f"{k} = {toml(v)}\n" for k, v in given.items())


FRAME = pd.DataFrame(
    {
        "label": ["lru", "pore-bl"] * 4,
        "trace": ["wdev"] * 8,
        "cache": ["1%", "1%", "2%", "2%", "3%", "3%", "5%", "5%"],
        "write_io_s": [9882.0, 4688.0, 6424.0, 2422.0, 3046.0, 1647.0, 1910.0, 877.0],
        "response_mean_ns": [2.5e6, 1.5e6] * 4,
    }
)


def texts(fig) -> list[str]:
    axes = fig.axes[0]
    return [t.get_text() for t in axes.get_yticklabels() + axes.get_xticklabels()] + [
        axes.get_ylabel(),
        axes.get_title(),
    ]


def test_a_log_axis_draws_bars_from_its_foot_with_plain_ticks_and_no_title():
    made = experiment({"kind": "bars", "x": "cache", "y": "write_io_s", "logy": True})
    fig = plots.figure(made, FRAME)
    axes = fig.axes[0]
    assert axes.get_yscale() == "log" and len(axes.patches) == 8, "bars, as the papers draw them"
    labels = [t.get_text() for t in axes.get_yticklabels() if t.get_text()]
    assert labels and all(label.replace(".", "").replace(",", "").isdigit() for label in labels), labels
    low, high = axes.get_ylim()
    assert (low, high) == (500, 10000), "from the 1-2-5 step below the least value to the one above the most"
    on_a_step = plots.figure(made, FRAME.assign(write_io_s=FRAME["write_io_s"].replace(877.0, 500.0)))
    assert on_a_step.axes[0].get_ylim()[0] == 200, "strictly below: a bar of the least value keeps its height"
    assert axes.get_title() == "" and axes.get_ylabel() == "write I/O time (s)"


def test_bars_start_at_zero_in_colour_blind_safe_colours():
    fig = plots.figure(experiment({"kind": "bars", "x": "cache", "y": "write_io_s"}), FRAME)
    axes = fig.axes[0]
    assert axes.patches and axes.get_ylim()[0] == 0
    used = {matplotlib.colors.to_hex(p.get_facecolor()).upper() for p in axes.patches}
    assert used <= {c.upper() for c in plots.COLOURS}


def test_the_papers_values_are_drawn_beside_ours_in_milliseconds(tmp_path):
    claims = claim(
        id="a",
        kind="value",
        metric="response_mean_ns",
        of={"label": "pore-bl", "cache": "2%"},
        paper_value=1.2e6,
        per="median",
    )
    fig = plots.figure(
        experiment(
            {"kind": "lines", "x": "cache", "y": "response_mean_ns", "ylabel": "mean response (ns)"}, claims, tmp_path
        ),
        FRAME,
    )
    axes = fig.axes[0]
    [marks] = [line for line in axes.get_lines() if line.get_label() == "paper"]
    assert list(marks.get_xdata()) == [2] and list(marks.get_ydata()) == [pytest.approx(1.2)]
    assert axes.get_ylabel() == "mean response (ms)"


@pytest.mark.parametrize("fmt, start", [("svg", b"<?xml"), ("pdf", b"%PDF")])
def test_vector_output(fmt, start):
    made = [
        plots.render(plots.figure(experiment({"kind": "bars", "x": "cache", "y": "write_io_s"}), FRAME), fmt)
        for _ in range(2)
    ]
    assert made[0].startswith(start) and made[0] == made[1], "the same bytes for the same figure"


def test_a_ratio_on_the_other_side_of_one_fails_and_the_statistic_is_named(tmp_path):
    # PORE Fig. 16 at 5 %: PORE-BL's write time over LRU-band's, 0.181 in the paper, 1.64 here.
    frame = pd.DataFrame(
        {
            "label": ["pore-bl", "lru-band"] * 2,
            "trace": ["wdev", "wdev", "usr", "usr"],
            "seed": [0] * 4,
            "cache": ["5%"] * 4,
            "write_io_s": [877.0, 534.0, 100.0, 1000.0],
        }
    )
    claims = claim(
        id="reversed",
        kind="ratio",
        metric="write_io_s",
        of={"label": "pore-bl", "cache": "5%"},
        over={"label": "lru-band", "cache": "5%"},
        paper_value=0.181,
        per="each",
        traces=["wdev"],
    )
    claims += claim(
        id="median", kind="ratio", metric="write_io_s", of="pore-bl", over="lru-band", paper_value=0.8, per="median"
    )
    reversed_row, median_row = paper.comparison_rows(experiment({}, claims, tmp_path), frame)
    assert reversed_row[0].startswith("reversed:") and reversed_row[4] == "1.642" and reversed_row[6] == "fails"
    assert median_row[4] == f"{(877 / 534 + 100 / 1000) / 2:.4g} (median of 2)" and median_row[6] == "holds"


def tick_labels_apart(fig) -> bool:
    """Whether the x tick labels stay clear of each other once drawn: level ones side by side,
    slanted ones (parallel lines of text) farther apart across the slant than a line is high."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer, axes = canvas.get_renderer(), fig.axes[0]
    labels = [label for label in axes.get_xticklabels() if label.get_text()]
    if labels[0].get_rotation() == 0:
        boxes = [label.get_window_extent(renderer) for label in labels]
        return not any(a.overlaps(b) for i, a in enumerate(boxes) for b in boxes[i + 1 :])
    places = sorted(axes.transData.transform((tick, 0))[0] for tick in axes.get_xticks())
    _, height, _ = renderer.get_text_width_height_descent("Xg", labels[0].get_fontproperties(), ismath=False)
    return min(b - a for a, b in zip(places, places[1:])) * math.sin(math.radians(labels[0].get_rotation())) > height


def test_many_long_trace_names_and_the_caption_stay_clear_of_each_other():
    # HWSR Fig. 13's twelve Table 3 traces: level labels ran into each other at this width.
    traces = [
        "financial1",
        "financial2",
        "mds0",
        "mds1",
        "prn0",
        "prn1",
        "proj0",
        "proj1",
        "usr0",
        "usr1",
        "prxy0",
        "wdev0",
    ]
    frame = pd.DataFrame(
        {"label": ["lru"] * 12, "trace": traces, "write_io_s": range(1, 13), "saturated": [False] * 11 + [True]}
    )
    fig = plots.figure(experiment({"kind": "bars", "y": "write_io_s"}), frame)
    assert tick_labels_apart(fig)
    renderer = fig.canvas.get_renderer()
    note = next(t for t in fig.texts if plots.SATURATED_MARK in t.get_text()).get_window_extent(renderer)
    assert not any(note.overlaps(label.get_window_extent(renderer)) for label in fig.axes[0].get_xticklabels())
    few = plots.figure(experiment({"kind": "bars", "y": "write_io_s"}), frame[:3])
    assert tick_labels_apart(few) and few.axes[0].get_xticklabels()[0].get_rotation() == 0, "three names fit level"


def test_a_label_without_a_value_anywhere_gets_no_bars_and_no_legend_entry():
    frame = FRAME.assign(write_io_s=[float("nan") if label == "lru" else 1.0 for label in FRAME["label"]])
    fig = plots.figure(experiment({"kind": "bars", "x": "cache", "y": "write_io_s"}), frame)
    assert [t.get_text() for t in fig.axes[0].get_legend().get_texts()] == ["pore-bl"]
    assert len(fig.axes[0].patches) == 4


def fluid_experiment(claims_text: str = "", folder=None):
    """FluidSMR Fig. 12's shape: one label, schemes swept, lines over the scheme on a log axis."""
    made = experiment({"kind": "lines", "x": "scheme", "y": "mean_latency_ns", "logy": True}, claims_text, folder)
    made.systems = [SystemRun("fluid", "fluid")]
    made.params = {"scheme": ["swap-only", "fluid-smr", "pure-cmr"]}
    return made


FLUID = pd.DataFrame(
    {
        "label": ["fluid"] * 6,
        "trace": ["hm_0"] * 3 + ["prxy_0"] * 3,
        "scheme": ["swap-only", "fluid-smr", "pure-cmr"] * 2,
        "mean_latency_ns": [2e8, 3e6, 2e6, 9e7, 5e6, 5e6],
    }
)


def test_categories_are_grouped_bars_one_group_per_trace(tmp_path):
    # FluidSMR Fig. 12: lines joined the schemes, a category each, and averaged the traces.
    claims = claim(
        id="near",
        kind="ratio",
        metric="mean_latency_ns",
        of={"scheme": "fluid-smr"},
        over={"scheme": "pure-cmr"},
        paper_value=1.0,
        traces=["prxy_0"],
    )
    fig = plots.figure(fluid_experiment(claims, tmp_path), FLUID)
    axes = fig.axes[0]
    assert len(axes.patches) == 6 and [line.get_label() for line in axes.get_lines()] == ["paper"]
    assert [t.get_text() for t in axes.get_xticklabels()] == ["hm_0", "prxy_0"]
    assert {t.get_text() for t in axes.get_legend().get_texts()} == {"swap-only", "fluid-smr", "pure-cmr", "paper"}
    heights = {round(bar.get_x() + bar.get_width() / 2, 3): bar.get_height() for bar in axes.patches}
    assert sorted(heights.values()) == sorted(v / 1e6 for v in FLUID["mean_latency_ns"]), "no trace averaged away"
    [paper_mark] = [line for line in axes.get_lines() if line.get_label() == "paper"]
    # On prxy_0 (the second group), at fluid-smr's bar: pure-cmr's 5 ms times the paper's 1.0.
    assert list(paper_mark.get_ydata()) == [pytest.approx(5.0)] and list(paper_mark.get_xdata()) == [1.0]


@pytest.mark.parametrize(
    "values, scale, places",
    [
        (["1%", "2%", "5%"], "linear", [1, 2, 5]),
        (["2MB", "5MB", "20MB", "50MB"], "log", [2e6, 5e6, 20e6, 50e6]),
        (["128KiB", "256KiB", "4MiB"], "log", [2**17, 2**18, 2**22]),
        (["0.1x", "1x", "10x"], "log", [0.1, 1, 10]),
    ],
)
def test_sizes_stand_at_their_values(values, scale, places):
    frame = pd.DataFrame({"label": "lru", "trace": "wdev", "cache": values, "write_io_s": range(1, len(values) + 1)})
    axes = plots.figure(experiment({"kind": "lines", "x": "cache", "y": "write_io_s"}), frame).axes[0]
    assert axes.get_xscale() == scale and list(axes.get_xticks()) == pytest.approx(places)
    assert [t.get_text() for t in axes.get_xticklabels()] == values


def test_the_papers_ratios_over_the_normalising_label_and_a_mean_group(tmp_path):
    # PORE Fig. 11: "the total I/O time reductions of PORE are ... 3.26 [CMR-only], 2.84 [LRU]",
    # means of its traces, in a figure normalised to CMR-only.
    claims = claim(
        id="cmr",
        kind="ratio",
        metric="total_io_s",
        of="cmr-only",
        over="pore-bl",
        paper_value=3.26,
        per="mean",
        traces=["wdev", "usr"],
    )
    claims += claim(
        id="lru",
        kind="ratio",
        metric="total_io_s",
        of="lru",
        over="pore-bl",
        paper_value=2.84,
        per="mean",
        traces=["wdev", "usr"],
    )
    made = experiment({"kind": "bars", "y": "total_io_s", "normalise": "cmr-only"}, claims, tmp_path)
    made.systems = [SystemRun(label, "cache") for label in ("cmr-only", "lru", "pore-bl")]
    frame = pd.DataFrame(
        {
            "label": ["cmr-only", "lru", "pore-bl"] * 2,
            "trace": ["wdev"] * 3 + ["usr"] * 3,
            "total_io_s": [10.0, 12.0, 4.0, 10.0, 8.0, 2.0],
        }
    )
    fig, caption = plots.figure_and_caption(made, frame)
    axes = fig.axes[0]
    assert [t.get_text() for t in axes.get_xticklabels()] == ["wdev", "usr", "mean"]
    [marks] = [line for line in axes.get_lines() if line.get_label() == "paper"]
    assert sorted(marks.get_ydata()) == pytest.approx([1 / 3.26, 2.84 / 3.26])
    assert all(x > 1.5 for x in marks.get_xdata()), "in the mean group"
    assert "experiments/claims/pore.toml (cmr, lru)" in caption and "mean of its traces wdev, usr" in caption
    assert "ratios over another system (lru) are drawn relative to cmr-only through the paper's own" in caption


def test_a_ratio_to_another_system_is_drawn_on_ours_and_said_so(tmp_path):
    # PORE Fig. 16: PORE-BL's write time is 0.245 of LRU's at 1 % (the figure draws seconds).
    claims = claim(
        id="f1",
        kind="ratio",
        metric="write_io_s",
        of={"label": "pore-bl", "cache": "1%"},
        over={"label": "lru", "cache": "1%"},
        paper_value=0.245,
    )
    fig, caption = plots.figure_and_caption(
        experiment({"kind": "lines", "x": "cache", "y": "write_io_s", "logy": True}, claims, tmp_path), FRAME
    )
    [marks] = [line for line in fig.axes[0].get_lines() if line.get_label() == "paper"]
    assert list(marks.get_xdata()) == [1] and list(marks.get_ydata()) == [pytest.approx(9882.0 * 0.245)]
    assert "(f1)" in caption and "ratios to another system are drawn on our value of that system" in caption


def test_legend_text_is_as_large_as_the_axis_labels():
    fig = plots.figure(experiment({"kind": "bars", "y": "write_io_s", "x": "cache"}), FRAME)
    axes = fig.axes[0]
    sizes = [t.get_fontsize() for t in axes.get_legend().get_texts()]
    assert sizes and min(sizes) >= max(t.get_fontsize() for t in axes.get_xticklabels() + [axes.yaxis.label])


def test_lines_are_told_apart_by_every_swept_column_not_averaged_over_one():
    # FluidSMR Fig. 13: latency over storage usage, a line per scheme (swept too), one label.
    made = fluid_experiment()
    made.figure = {"kind": "lines", "x": "usage", "y": "mean_latency_ns"}
    made.params = {"scheme": ["swap-only", "pure-cmr"], "usage": [0.6, 0.9]}
    frame = pd.DataFrame(
        {
            "label": "fluid",
            "trace": "ts_0",
            "scheme": ["swap-only", "swap-only", "pure-cmr", "pure-cmr"],
            "usage": [0.6, 0.9, 0.6, 0.9],
            "mean_latency_ns": [3e6, 9e6, 2e6, 2e6],
        }
    )
    lines = plots.figure(made, frame).axes[0].get_lines()
    assert {line.get_label(): list(line.get_ydata()) for line in lines} == {
        "swap-only": [3.0, 9.0],
        "pure-cmr": [2.0, 2.0],
    }


def test_a_geometric_mean_of_the_papers_traces_gets_a_group_of_ours_computed_alike(tmp_path):
    # HWSR Fig. 20: "two orders of magnitude" fewer segments rewritten, a geometric mean.
    claims = claim(
        id="two-orders",
        kind="ratio",
        metric="write_io_s",
        of="lru",
        over="pore-bl",
        paper_value=100,
        per="geomean",
        traces=["wdev", "usr"],
    )
    frame = pd.DataFrame(
        {"label": ["lru", "pore-bl"] * 2, "trace": ["wdev", "wdev", "usr", "usr"], "write_io_s": [1.0, 0.5, 4.0, 2.0]}
    )
    axes = plots.figure(experiment({"kind": "bars", "y": "write_io_s"}, claims, tmp_path), frame).axes[0]
    assert [t.get_text() for t in axes.get_xticklabels()] == ["wdev", "usr", "geomean"]
    assert sorted(bar.get_height() for bar in axes.patches)[-2:] == [pytest.approx(2.0), 4.0]
    [marks] = [line for line in axes.get_lines() if line.get_label() == "paper"]
    assert list(marks.get_ydata()) == [pytest.approx(100 * 1.0)], "the paper's ratio on our geometric mean of PORE-BL"


def test_a_ratio_to_a_system_run_at_one_x_only_is_drawn_on_its_value(tmp_path):
    # PORE Fig. 15 (b): PORE-BL's R_wa at a period of 10x reaches LRU's (run at the default only).
    claims = claim(
        id="reaches", kind="ratio", metric="r_wa", of={"label": "pore-bl", "period": "10x"}, over="lru", paper_value=1.0
    )
    frame = pd.DataFrame(
        {
            "label": ["lru", "pore-bl", "pore-bl", "pore-bl"],
            "trace": "wdev",
            "period": ["1x", "0.1x", "1x", "10x"],
            "r_wa": [12.0, 8.0, 7.0, 11.0],
        }
    )
    fig = plots.figure(experiment({"kind": "lines", "x": "period", "y": "r_wa"}, claims, tmp_path), frame)
    [marks] = [line for line in fig.axes[0].get_lines() if line.get_label() == "paper"]
    assert list(marks.get_xdata()) == [10.0] and list(marks.get_ydata()) == [12.0]


def test_a_range_is_drawn_whole_and_a_statistic_of_traces_on_lines_across_the_axis(tmp_path):
    # PORE §III-A's range of estimates on each trace's bar; uCache Fig. 8's "roughly 200" (the
    # paper's worst trace) over our two traces' lines, where no one line of ours is its maximum.
    ranged = claim(id="r", kind="value", metric="write_io_s", of="lru").replace(
        "of =", "range = [2000.0, 8000.0]\nof ="
    )
    made = experiment({"kind": "bars", "y": "write_io_s"}, ranged, tmp_path)
    frame = FRAME.assign(trace=["wdev", "wdev", "usr", "usr"] * 2)
    fig, caption = plots.figure_and_caption(made, frame)
    [whiskers] = [c for c in fig.axes[0].containers if c.get_label() == "paper's range"]
    spans = [sorted(y for _, y in segment) for segment in whiskers.lines[2][0].get_segments()]
    assert spans == [[2000.0, 8000.0]] * 2, "on each trace's bar, both ends"
    assert "usr. Black capped bars (a range): the paper's numbers" in caption
    worst = claim(id="w", kind="value", metric="write_io_s", of={"label": "lru", "cache": "2%"}, per="max")
    made = experiment({"kind": "lines", "x": "cache", "y": "write_io_s"}, worst + "paper_value = 5000.0\n", tmp_path)
    fig, caption = plots.figure_and_caption(made, frame)
    assert [line.get_ydata()[0] for line in fig.axes[0].get_lines() if line.get_linestyle() == "--"][-1] == 5000.0
    assert [t.get_text() for t in fig.axes[0].texts] == ["paper (max of its traces, cache 2%): 5000"]
    assert "usr. Labelled dashed lines across the axis: the paper's numbers" in caption


def test_a_saved_figure_carries_the_caption_the_report_shows():
    from smrlab import report

    frame = FRAME.assign(trace=["wdev", "wdev", "usr", "usr"] * 2, saturated=[False] * 7 + [True])
    frame = frame.assign(caveats=["", "", "", "", "", "", "", "disk of few bands"])
    made = experiment({"kind": "lines", "x": "cache", "y": "response_mean_ns"})
    _, caption = plots.figure_and_caption(made, frame)
    assert caption.startswith("Response mean (ms) against cache. Traces: wdev, usr. ")
    assert plots.SATURATED_NOTE in caption and "pore-bl on usr: disk of few bands." in caption
    saved = plots.figure(made, frame)  # as plots.save writes it in each format
    svg = plots.render(saved, "svg").decode()
    drawn = " ".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg))
    assert " ".join(caption.split()) in " ".join(html.unescape(drawn).split()), "every word, in order"
    # The report shows the same words under its figure, and does not draw them a second time.
    shown = report._figure(made, frame)
    assert f"<figcaption>{html.escape(caption)}</figcaption>" in shown
    inline = base64.b64decode(re.search(r"base64,([^\"]+)", shown).group(1)).decode()
    assert "Traces: wdev" not in inline
    assert saved.get_figheight() > 2.6 and saved.get_figwidth() == 5, "the caption's lines make the figure taller"


@pytest.mark.parametrize("kind", ["bars", "lines"])
def test_a_log_axis_keeps_its_zeros_at_its_foot_marked_and_footnoted(kind, tmp_path):
    # HWSR Figs. 13-14: segments rewritten per request span decades, and a run that rewrote none
    # gives a zero; a plain disk has no such measure at all (left out, not a zero); the paper's
    # range from zero is the paper's, not a zero of ours.
    frame = FRAME.assign(write_io_s=[0.0, 4688.0, 6424.0, 24.0, 3046.0, 1647.0, 1910.0, float("nan")])
    ranged = claim(id="r", kind="value", metric="write_io_s", of={"label": "lru", "cache": "2%"})
    ranged = ranged.replace("of =", "range = [0.0, 50.0]\nof =")
    figure = {"kind": kind, "x": "cache", "y": "write_io_s", "logy": True}
    fig, caption = plots.figure_and_caption(experiment(figure, ranged, tmp_path), frame)
    axes = fig.axes[0]
    assert axes.get_yscale() == "log" and axes.get_ylim()[0] == 20
    zeros = [t for t in axes.texts if t.get_text() == plots.ZERO_MARK]
    assert len(zeros) == 1 and zeros[0].xy[1] == 20, "the one zero, at the foot; the missing value unmarked"
    assert plots.ZERO_NOTE in caption
    whole = plots.figure_and_caption(experiment({"kind": kind, "x": "cache", "y": "write_io_s", "logy": True}), FRAME)
    assert plots.ZERO_NOTE not in whole[1] and not [t for t in whole[0].axes[0].texts if t.get_text() == "0"]


def test_a_bound_is_a_triangle_pointing_to_the_side_ours_must_be_on(tmp_path):
    # HWSR Fig. 15: without caches HWSR's response is more than 5 times the disk's; a bound of 1
    # (which of two is larger) is no number to draw.
    claims = claim(id="five", kind="ratio", metric="write_io_s", of="lru", over="pore-bl").replace(
        "of =", "above = 5.0\nof ="
    )
    claims += claim(id="one", kind="ratio", metric="write_io_s", of="lru-band", over="pore-bl").replace(
        "of =", "below = 1.0\nof ="
    )
    made = experiment({"kind": "bars", "x": "cache", "y": "write_io_s"}, claims, tmp_path)
    fig, caption = plots.figure_and_caption(made, FRAME)
    [up] = [line for line in fig.axes[0].get_lines() if line.get_marker() == "^"]
    assert list(up.get_ydata()) == [5 * v for v in FRAME["write_io_s"][1::2]], "five times pore-bl's, at each cache"
    assert "(five)" in caption and "hollow triangles" in caption.lower()


def test_an_experiment_file_may_ask_for_further_figures_of_the_same_runs(tmp_path):
    # HWSR Figs. 13-14: one set of runs, Fig. 14's segments rewritten and Fig. 13's response times.
    from smrlab.errors import UsageError
    from smrlab.experiment.files import parse

    text = """
name = "two"
traces = ["bundled:wdev"]
[[systems]]
system = "cmr"
[figure]
kind = "lines"
x = "trace"
y = "write_io_s"
logy = true
also = [{ y = "response_mean_ns", ylabel = "mean response (ns)" }, { kind = "bars", y = "r_wa", logy = false }]
"""
    path = tmp_path / "two.toml"
    found = plots.figures_of(parse(text, path, with_traces=False))
    assert [name for name, _ in found] == ["two", "two-response_mean_ns", "two-r_wa"]
    assert found[1][1] == {
        "kind": "lines",
        "x": "trace",
        "y": "response_mean_ns",
        "logy": True,
        "ylabel": "mean response (ns)",
    }
    assert found[2][1]["kind"] == "bars" and found[2][1]["logy"] is False
    with pytest.raises(UsageError, match=r"figure.also\[1\]: unknown key 'colour'"):
        parse(text.replace("logy = false }", 'colour = "red" }'), path, with_traces=False)
    with pytest.raises(UsageError, match=r"figure.also\[0\]: kind 'pie'"):
        parse(text.replace('{ y = "response', '{ kind = "pie", y = "response'), path, with_traces=False)


def test_a_group_and_a_label_the_normalising_label_never_met_are_left_out_of_bars_ticks_and_caption():
    # HWSR Figs. 15-19: the disk ran on financial1 only, 'hwsr ssd-only' on financial2 only; its
    # tick stood beyond the last bar and the caption named both traces.
    frame = pd.DataFrame(
        {
            "label": ["lru", "pore-bl", "lru", "lru-band"],
            "trace": ["wdev", "wdev", "usr", "usr"],
            "write_io_s": [2.0, 1.0, 3.0, 4.0],
        }
    )
    fig, caption = plots.figure_and_caption(
        experiment({"kind": "bars", "y": "write_io_s", "normalise": "pore-bl"}), frame
    )
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["lru", "pore-bl"]
    assert "Trace: wdev." in caption
