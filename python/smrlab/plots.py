"""An experiment's figure, drawn with matplotlib to go into a paper as it is: small and serif,
the Okabe-Ito colours (told apart by readers with any common colour blindness, and by their
markers and hatches in grey print), no title inside the figure (the caption or the report's
heading says what it is), no frame or grid beyond a faint one along y, axes labelled with
their units, plain tick labels (``0.5``, ``2``, ``20``, never ``2x10^0``), the paper's values
drawn as hollow black markers beside ours, and saved as PDF and SVG (vector) and PNG.

The ``[figure]`` table of an experiment file chooses:

- ``kind = "bars"``: grouped bars, one group per ``x`` value (default: trace), one bar per
  label, of ``y`` (e.g. I/O time, hit rate, R_wa), each optionally divided by the ``normalise``
  label's value in its group (the papers' "normalised to CMR-only"). Bars start at zero on a
  linear axis; with ``logy`` the values are drawn as points instead, since the height of a bar
  on a log axis depends on where the axis happens to start;
- ``kind = "lines"``: ``y`` over a swept parameter ``x`` (zone size, period, cache or bucket
  size; a miss-ratio curve is ``y = "miss_ratio"`` of a hit rate over cache sizes), one line
  per label (and trace, when several);
- ``kind = "series"``: a gauge ``y`` sampled over the run (the engine's ``gauge_samples``)
  against trace time, one line per cell (e.g. uCache Fig. 1, the live fraction of the log).

A value of several rows (seeds, or traces on a line) is their mean. Times in nanoseconds
(``*_ns``) are drawn in milliseconds. ``ylabel`` names the axis (its unit in brackets); by
default it is the measure's name with the unit its suffix says. A bar or point of a saturated
run (its queue grew for the whole replay: ``smrlab.result.saturated``) carries the mark
``SATURATED_MARK`` and the figure says what it means. Not here: the numbers (the rows), the
comparison table (``smrlab.paper``) or the report page.
"""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

from smrlab import outputs, paper
from smrlab.caveats import SATURATED_MARK, SATURATED_NOTE
from smrlab.errors import UsageError
from smrlab.experiment.schema import FIGURE_KINDS
from smrlab.options import quoted
from smrlab.results import check_scalars

# Okabe & Ito (2008), "Color Universal Design": distinguishable under protanopia,
# deuteranopia and tritanopia; black first for the first series.
COLOURS = ["#000000", "#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442"]
HATCHES = ["", "//", "..", "xx", "\\\\", "--", "++", "oo"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
STYLE = {
    "font.family": "serif",
    "font.size": 8,
    "axes.linewidth": 0.6,
    "hatch.linewidth": 0.5,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "legend.frameon": False,
    "svg.fonttype": "none",
    "pdf.fonttype": 42,
    # The same figure gives the same SVG (its element ids are hashed with this, not a random salt).
    "svg.hashsalt": "smrlab",
}
# The paper's values: hollow black diamonds, larger than ours.
PAPER_MARKER = {
    "marker": "D",
    "markersize": 6,
    "markerfacecolor": "none",
    "markeredgecolor": "black",
    "markeredgewidth": 1.0,
    "linestyle": "none",
}
# Derived columns a figure may ask for by name: the complement of a hit rate.
MISS = {"miss_ratio": "hit_rate", "read_miss_ratio": "read_hit_rate", "write_miss_ratio": "write_hit_rate"}
FORMATS = ("pdf", "svg", "png")
# How wide a tick label's character is, in points (about half the 8 pt font size, a little
# more for serif digits), and the share of the figure's width the axes take: enough to tell
# whether the labels of evenly spaced ticks would run into each other without drawing first.
TICK_CHARACTER_PT = 4.4
AXES_WIDTH_SHARE = 0.85


def any_saturated(frame) -> bool:
    """``smrlab.results.any_saturated``, imported when drawn (results reads experiments, whose
    schema lists this module's figure kinds)."""
    from smrlab.results import any_saturated as saturated

    return saturated(frame)


def _scale(y: str) -> float:
    """What a column's values are multiplied by for the axis: nanoseconds are shown in ms."""
    return 1e-6 if y.endswith("_ns") else 1.0


def _need(frame, *columns: str) -> None:
    """Refuses columns the figure groups or plots by that the results lack, or that hold lists."""
    for column in columns:
        if column not in frame:
            raise UsageError(
                f"figure: no column {quoted(column)} in the results "
                f"(columns: {quoted(', '.join(map(str, frame.columns)), 200)})"
            )
    check_scalars(frame, columns, "figure")


def _values(frame, y: str):
    column = y if y in frame or y not in MISS else MISS[y]
    _need(frame, column)
    try:
        values = frame[column].astype(float)
    except (TypeError, ValueError):
        raise UsageError(f"figure: column {quoted(column)} does not hold numbers") from None
    return values * _scale(y) if column == y else 1 - values


def axis_label(y: str, given: str | None, base: str | None = None) -> str:
    """The y axis label: the file's ``ylabel`` (its "(ns)" read as the milliseconds drawn), or
    the measure's name with the unit its suffix says; "relative to BASE" when normalised."""
    if given:
        return given.replace("(ns)", "(ms)") if _scale(y) != 1 else given
    name, unit = y, ""
    for suffix, shown in (("_io_s", " I/O time"), ("_s", ""), ("_ns", "")):
        if y.endswith(suffix):
            name, unit = y[: -len(suffix)] + shown, "s" if suffix != "_ns" else "ms"
            break
    name = name.replace("_", " ")
    if base:
        return f"{name} relative to {base}'s"
    return f"{name} ({unit})" if unit else name


def _paper_points(claims: list, x: str, y: str, base: str | None) -> list[tuple[str, str, float]]:
    """(label, x value, value) of each of the paper's numbers that is a point of this figure: a
    claim of ``claims`` (the experiment's: ``smrlab.paper.claims_of``) on measure ``y`` with a
    number, a value or a ratio over the same label the figure divides by (or none), at one x."""
    points = []
    for claim in claims:
        over = claim.over.get("label") if claim.kind == "ratio" else None
        if claim.metric != y or claim.paper_value is None or over != base:
            continue
        at = (claim.traces[0] if len(claim.traces) == 1 else claim.of.get("trace")) if x == "trace" else claim.of.get(x)
        if isinstance(at, str) and isinstance(claim.of.get("label"), str):
            points.append((claim.of["label"], str(at), claim.paper_value * _scale(y)))
    return points


def _paper_legend(claims: list) -> str:
    """The paper's markers in the legend, with the statistic its values are (when not a mean)."""
    statistics = {claim.per for claim in claims} - {"mean", "every"}
    return f"paper ({', '.join(sorted(statistics))} of its traces)" if statistics else "paper"


def _mark_paper(axes, experiment, x: str, y: str, base: str | None, place: Callable[[str, str], float | None]) -> None:
    """The paper's values (``_paper_points``) as its markers, each at ``place(label, x value)``,
    the figure's x position of that label and value (None where the figure has none)."""
    claims = paper.claims_of(experiment)
    points = [
        (where, value)
        for label, at, value in _paper_points(claims, x, y, base)
        if (where := place(label, at)) is not None
    ]
    if points:
        axes.plot(*zip(*points), label=_paper_legend(claims), **PAPER_MARKER)


def _bars(axes, frame, spec: dict, experiment) -> str:
    x, y, base = spec.get("x", "trace"), spec.get("y", "total_io_s"), spec.get("normalise")
    _need(frame, x, "label")
    # Only the columns read below: each (group, label) selection then copies three, not the table.
    read = dict.fromkeys([x, "label", *(["saturated"] if "saturated" in frame else [])])
    frame = frame[list(read)].assign(_y=_values(frame, y))
    groups = [str(g) for g in dict.fromkeys(frame[x])]
    # A label with no value in any group (a measure its system lacks, such as segments
    # rewritten on a plain disk) is left out: no empty room among the bars, no empty legend entry.
    labels = [
        label for label in dict.fromkeys(frame["label"]) if frame.loc[frame["label"] == label, "_y"].notna().any()
    ]
    width = 0.8 / max(1, len(labels))
    position = {}
    for index, label in enumerate(labels):
        heights, marked = [], []
        for group in groups:
            cells = frame[(frame[x].astype(str) == group) & (frame["label"] == label)]
            rows = cells["_y"]
            marked.append(any_saturated(cells))
            value = rows.mean() if len(rows) else float("nan")
            if base:
                reference = frame[(frame[x].astype(str) == group) & (frame["label"] == base)]["_y"].mean()
                value = value / reference if reference else float("nan")
            heights.append(value)
        positions = [g + (index - (len(labels) - 1) / 2) * width for g in range(len(groups))]
        position.update({(label, group): p for group, p in zip(groups, positions)})
        colour = COLOURS[index % len(COLOURS)]
        # One group: the labels name the x axis's ticks themselves, and need no legend.
        legend = label if len(groups) > 1 else None
        if spec.get("logy"):
            axes.plot(
                positions,
                heights,
                linestyle="none",
                marker=MARKERS[index % len(MARKERS)],
                color=colour,
                markersize=4.5,
                label=legend,
            )
        else:
            axes.bar(
                positions,
                heights,
                width,
                label=legend,
                color=colour,
                hatch=HATCHES[index % len(HATCHES)],
                edgecolor="black" if index else "white",
                linewidth=0.5,
            )
        _mark_saturated(axes, [(place, height) for place, height, mark in zip(positions, heights, marked) if mark])
    if spec.get("logy"):
        for g in range(1, len(groups)):
            axes.axvline(g - 0.5, color="0.85", linewidth=0.5)
    _mark_paper(axes, experiment, x, y, base, lambda label, at: position.get((label, at)))
    if len(groups) == 1:
        _x_ticks(axes, [position[(label, groups[0])] for label in labels], labels)
        axes.set_xlabel(spec.get("xlabel", f"{x} {groups[0]}"))
    else:
        _x_ticks(axes, range(len(groups)), groups)
        if x not in ("trace", "label"):
            axes.set_xlabel(spec.get("xlabel", x))
    axes.tick_params(axis="x", length=0)
    if base:
        axes.axhline(1, color="0.5", linewidth=0.6, linestyle=":")
    return axis_label(y, spec.get("ylabel"), base)


def _lines(axes, frame, spec: dict, experiment) -> str:
    x, y = spec.get("x"), spec.get("y", "total_io_s")
    if x not in frame:
        raise UsageError(f"figure: lines need x, a swept column (got {quoted(str(x))})")
    _need(frame, "label", "trace")
    frame = frame.assign(_y=_values(frame, y))
    ticks = list(dict.fromkeys(frame[x].astype(str)))
    several_traces = frame["trace"].nunique() > 1
    keys = ["label", "trace"] if several_traces else ["label"]
    # Each line its colour; a label keeps its marker on every trace, a trace its line style.
    labels, traces = list(dict.fromkeys(frame["label"])), list(dict.fromkeys(frame["trace"]))
    for index, (key, rows) in enumerate(frame.groupby(keys, sort=False)):
        key = key if isinstance(key, tuple) else (key,)
        means = rows.groupby(rows[x].astype(str), sort=False)["_y"].mean()
        places = [ticks.index(t) for t in means.index]
        axes.plot(
            places,
            list(means),
            marker=MARKERS[labels.index(key[0]) % len(MARKERS)],
            markersize=3.5,
            color=COLOURS[index % len(COLOURS)],
            linewidth=1.0,
            label=" ".join(map(str, key)),
            linestyle=["-", "--", ":", "-."][traces.index(rows["trace"].iloc[0]) % 4],
        )
        _mark_saturated(
            axes,
            [
                (place, mean)
                for place, tick, mean in zip(places, means.index, means)
                if any_saturated(rows[rows[x].astype(str) == tick])
            ],
        )
    _mark_paper(axes, experiment, x, y, None, lambda _, at: ticks.index(at) if at in ticks else None)
    _x_ticks(axes, range(len(ticks)), ticks)
    axes.set_xlabel(spec.get("xlabel", x))
    return axis_label(y, spec.get("ylabel"))


def _x_ticks(axes, places, labels: list[str]) -> None:
    """Evenly spaced x ticks at ``places`` named ``labels``, slanted when level ones would run
    into each other (e.g. the twelve traces of HWSR's Table 3)."""
    room = axes.get_figure().get_figwidth() * 72 * AXES_WIDTH_SHARE / max(1, len(labels))
    widest = max((len(str(label)) for label in labels), default=0) * TICK_CHARACTER_PT
    if widest + TICK_CHARACTER_PT > room:
        axes.set_xticks(places, labels, rotation=30, ha="right", rotation_mode="anchor")
    else:
        axes.set_xticks(places, labels)


def _mark_saturated(axes, points: list[tuple[float, float]]) -> None:
    """``SATURATED_MARK`` above each (x, y) point of a saturated run."""
    for x, y in points:
        axes.annotate(SATURATED_MARK, (x, y), ha="center", va="bottom", fontsize=7)


def _series(axes, frame, spec: dict, experiment) -> str:
    y = spec.get("y")
    column = f"series.{y}"
    if column not in frame:
        raise UsageError(
            f"figure: no time series {quoted(str(y))} in the results (sample it with the engine's gauge_samples)"
        )
    # A line is named by what tells its cell from the others: the text columns (label, trace,
    # given parameters; not the cell's key) whose values differ between rows.
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    naming = [
        c
        for c in frame.columns
        if c != "cell"
        and not c.startswith("series.")
        and not is_numeric_dtype(frame[c])
        and not is_bool_dtype(frame[c])
        and frame[c].map(str).nunique() > 1
    ] or ["label"]
    for index, (_, row) in enumerate(frame.iterrows()):
        times, values = row.get("series.trace_s"), row[column]
        if times is None or values is None or not len(values):
            continue
        label = " ".join(str(row[key]) for key in naming)
        axes.plot(
            list(times),
            [v * _scale(y) for v in values],
            color=COLOURS[index % len(COLOURS)],
            linestyle=["-", "--", ":", "-."][index % 4],
            linewidth=0.9,
            label=label,
        )
    axes.set_xlabel(spec.get("xlabel", "trace time (s)"))
    return axis_label(y, spec.get("ylabel"))


KINDS = dict(zip(FIGURE_KINDS, (_bars, _lines, _series)))


def _plain_log_ticks(axes, values) -> None:
    """A log y axis labelled 1, 2, 5, 10, 20... as plain numbers (not 2x10^0), from the 1-2-5
    step below the smallest value to the one above the largest, so both ends are labelled."""
    import math

    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    def step(value: float, up: bool) -> float:
        decade = 10.0 ** math.floor(math.log10(value))
        candidates = [decade * m for m in (1, 2, 5, 10)]
        return min(c for c in candidates if c >= value) if up else max(c for c in candidates if c <= value)

    values = [v for v in values if v > 0 and math.isfinite(v)]
    if values:
        axes.set_ylim(step(min(values), up=False), step(max(values), up=True))
    axes.yaxis.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}"))
    axes.yaxis.set_minor_formatter(NullFormatter())


def figure(experiment, frame):
    """The experiment's figure (a ``matplotlib.figure.Figure``), from its rows without errors."""
    import matplotlib
    from matplotlib.figure import Figure

    spec = experiment.figure
    kind = spec.get("kind", "bars")
    if kind not in KINDS:
        raise UsageError(f"figure: kind {quoted(str(kind))} is none of {', '.join(KINDS)}")
    frame = frame[frame["error"].isna()] if "error" in frame else frame
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(5.0, 2.6), layout="constrained")
        axes = fig.add_subplot()
        axes.set_ylabel(KINDS[kind](axes, frame, spec, experiment))
        if spec.get("logy") and len(frame) and (_values(frame, spec.get("y", "total_io_s")) > 0).all():
            axes.set_yscale("log")
            # The data's own lines (not the separators between groups, drawn in axes coordinates).
            _plain_log_ticks(
                axes,
                [y for line in axes.get_lines() if line.get_transform() == axes.transData for y in line.get_ydata()],
            )
        elif kind == "bars" or spec.get("logy"):
            axes.set_ylim(bottom=0)
        handles, labels = axes.get_legend_handles_labels()
        if labels:
            axes.legend(
                fontsize=6,
                ncols=min(4, len(labels)),
                loc="lower left",
                bbox_to_anchor=(0, 1.01),
                borderaxespad=0,
                columnspacing=1.2,
                handlelength=2.2,
            )
        axes.grid(axis="y", linewidth=0.3, color="0.88")
        axes.set_axisbelow(True)
        if kind != "series" and any_saturated(frame):
            # A figure-wide label, so that the layout leaves it room below the tick labels.
            fig.supxlabel(SATURATED_NOTE, x=0.01, ha="left", fontsize=6)
    return fig


def warm_up() -> None:
    """Loads what drawing a figure needs (matplotlib, its backends, the fonts) by drawing a
    small one in the figures' style in each of ``FORMATS``; ``smrlab run`` does it in the background
    while cells run, so that the figure at the end is drawn at once."""
    import matplotlib
    from matplotlib.figure import Figure

    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(1.0, 1.0), layout="constrained")
        axes = fig.add_subplot()
        axes.bar([0, 1], [1, 10], color=COLOURS[0], hatch=HATCHES[1], label="x")
        axes.set_yscale("log")
        axes.set_title("x", fontsize=8)
        axes.legend(fontsize=6, frameon=False)
    for fmt in FORMATS:
        render(fig, fmt)


def render(fig, fmt: str) -> bytes:
    """The figure as ``fmt`` (pdf, svg or png), the same bytes for the same figure (no dates)."""
    import matplotlib

    buffer = io.BytesIO()
    metadata = {"png": {"Software": None}, "svg": {"Date": None}, "pdf": {"CreationDate": None, "ModDate": None}}[fmt]
    with matplotlib.rc_context(STYLE):
        fig.savefig(buffer, format=fmt, dpi=200, metadata=metadata)
    return buffer.getvalue()


def save(experiment, frame, folder: Path) -> list[Path]:
    """The figure as ``folder/NAME.pdf``, ``.svg`` and ``.png``, each written whole, all three
    laid out as the first: the layout is worked out once, not once for each format."""
    fig = figure(experiment, frame)
    paths = []
    for fmt in FORMATS:
        path = Path(folder) / f"{experiment.name}.{fmt}"
        with outputs.output_file(path, make_folder=True) as temporary:
            temporary.write_bytes(render(fig, fmt))
        fig.set_layout_engine("none")  # keeps the places the layout gave every part
        paths.append(path)
    return paths
