"""An experiment's figure, drawn with matplotlib to go into a paper as it is: small and serif,
the Okabe-Ito colours (told apart by readers with any common colour blindness, and by their
markers and hatches in grey print), no title inside the figure (the caption or the report's
heading says what it is), no frame or grid beyond a faint one along y, axes labelled with
their units, plain tick labels (``0.5``, ``2``, ``20``, never ``2x10^0``), a legend as large as
the axes' labels, the paper's values drawn as hollow black markers beside ours, its ranges as
capped bars, a number no point of ours carries as a labelled line or band across the axis
(``smrlab.plots_paper``, which also words the caption saying where they come from), and saved
as PDF and SVG (vector) and PNG.

The ``[figure]`` table of an experiment file chooses:

- ``kind = "bars"``: grouped bars, one group per ``x`` value (default: trace), one bar per
  label, of ``y`` (e.g. I/O time, hit rate, R_wa), each optionally divided by the ``normalise``
  label's value in its group (the papers' "normalised to CMR-only"). Bars start at zero on a
  linear axis, at the axis's foot with ``logy`` (as the papers draw them). Where the paper
  gives a mean of its traces, a group "mean" of ours stands beside the traces' to carry it;
- ``kind = "lines"``: ``y`` over a swept parameter ``x`` (zone size, period, cache or bucket
  size; a miss-ratio curve is ``y = "miss_ratio"`` of a hit rate over cache sizes), each value
  at its place (``1%``, ``2%``, ``5%`` apart as their numbers are; sizes in bytes; a log axis
  where they span a decade or more), one line per label (and other swept parameter, and trace,
  when several). An ``x`` of names (schemes, policies: categories, not a scale) is drawn as
  grouped bars instead, one group per trace, one bar per name: a line between categories
  would mean nothing, and averaging the traces would hide them;
- ``kind = "series"``: a gauge ``y`` sampled over the run (the engine's ``gauge_samples``)
  against trace time, one line per cell (e.g. uCache Fig. 1, the live fraction of the log).

A value of several rows (seeds) is their mean. Times in nanoseconds (``*_ns``) are drawn in
milliseconds. ``ylabel`` names the axis (its unit in brackets); by default it is the measure's
name with the unit its suffix says. A bar or point of a saturated run (its queue grew for the
whole replay: ``smrlab.result.saturated``) carries the mark ``SATURATED_MARK`` and the caption
says what it means. The caption (``caption``: what is plotted with its units, the traces, the
saturation and caveat footnotes, where the paper's numbers come from) is the report's text under
the figure and is drawn beneath the figure ``save`` writes, so a PNG or SVG read alone says what
it shows. Not here: the numbers (the rows), the comparison table (``smrlab.paper``)
or the report page.
"""

from __future__ import annotations

import io
import statistics
import textwrap
from collections.abc import Callable
from pathlib import Path

from smrlab import _core, outputs, paper, plots_paper
from smrlab.caveats import SATURATED_MARK, SATURATED_NOTE
from smrlab.errors import UsageError
from smrlab.experiment.schema import FIGURE_KINDS
from smrlab.options import quoted
from smrlab.results import any_saturated, check_scalars
from smrlab.results import notes as results_notes

# Okabe & Ito (2008), "Color Universal Design": distinguishable under protanopia,
# deuteranopia and tritanopia; black first for the first series.
COLOURS = ["#000000", "#E69F00", "#56B4E9", "#009E73", "#0072B2", "#D55E00", "#CC79A7", "#F0E442"]
HATCHES = ["", "//", "..", "xx", "\\\\", "--", "++", "oo"]
MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
STYLE = {
    "font.family": "serif",
    "font.size": 8,
    "legend.fontsize": 8,
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
# The paper's values: hollow black diamonds, larger than ours, edged in white so that they show
# on a black bar (the first series' colour) as on white.
PAPER_MARKER = {
    "marker": "D",
    "markersize": 6,
    "markerfacecolor": "none",
    "markeredgecolor": "black",
    "markeredgewidth": 1.0,
    "linestyle": "none",
}
# The white edge's width (points) around each of the paper's marks.
PAPER_HALO = 2.6
# The statistics of several traces a paper's number may be (a claim's ``per``), as a figure's
# group of ours beside the traces' computes them.
STATISTICS = {
    "mean": statistics.fmean,
    "median": statistics.median,
    "geomean": lambda values: statistics.geometric_mean(values) if min(values) > 0 else float("nan"),
    "min": min,
    "max": max,
}
# Derived columns a figure may ask for by name: the complement of a hit rate.
MISS = {"miss_ratio": "hit_rate", "read_miss_ratio": "read_hit_rate", "write_miss_ratio": "write_hit_rate"}
FORMATS = ("pdf", "svg", "png")
# How wide a tick label's character is, in points (about half the 8 pt font size, a little
# more for serif digits), and the share of the figure's width the axes take: enough to tell
# whether the labels of evenly spaced ticks would run into each other without drawing first.
TICK_CHARACTER_PT = 4.4
AXES_WIDTH_SHARE = 0.85
# The caption drawn beneath a saved figure: its font size, and the characters a line of it
# holds across the figure's 5 inches (360 pt at about 3.6 pt a character of a 7 pt serif,
# with room for its wider words).
CAPTION_PT = 7
# A zero on a log axis: drawn at the axis's foot with this mark, which the caption explains.
ZERO_MARK = "0"
ZERO_NOTE = f"{ZERO_MARK} at the foot of the axis: a value of zero, which a log axis has no place for"
CAPTION_CHARACTERS = 92


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


def _x_positions(values: list[str]) -> dict[str, float] | None:
    """Where each x value stands on a true-spaced axis: a share (``2%``), a multiple (``0.5x``),
    a number or a size (``20MB``, ``256KiB``: bytes); None when one of them is none of these (a
    scheme's or a policy's name: a category)."""
    places = {}
    for value in values:
        text = value.strip()
        number = text[:-1] if text[-1:] in ("%", "x") else text
        try:
            places[value] = float(number)
        except ValueError:
            try:
                places[value] = float(_core.parse_size(text))
            except (_core.ParameterError, ValueError, OverflowError):
                return None
    return places


def _series_columns(frame, experiment, x: str) -> list[str]:
    """What tells a figure's series apart: its label, every other swept column and the trace
    (not x), each only where its value differs between rows; the label when nothing does."""
    columns = ["label", *(c for c in experiment.swept() if c not in (x, "label", "trace")), "trace"]
    return [c for c in columns if c != x and c in frame and frame[c].astype(str).nunique() > 1] or ["label"]


def _with_series(frame, columns: list[str]):
    """``frame`` with ``_series``, each row's series name: its values of ``columns``, a number
    after its column's name (``region 8``), a name (a label, a scheme, a trace) alone."""
    numbers = _numeric(frame, columns)
    parts = [frame[c].map(lambda v, c=c: _part(c, v, c in numbers)) for c in columns]
    return frame.assign(_series=[" ".join(names) for names in zip(*parts)])


def _numeric(frame, columns: list[str]) -> set[str]:
    """The columns of ``columns`` whose values are numbers (or text of numbers: ``8``, ``0.9``)."""
    from pandas.api.types import is_numeric_dtype

    def number(value) -> bool:
        try:
            float(value)
        except (TypeError, ValueError):
            return False
        return True

    return {c for c in columns if is_numeric_dtype(frame[c]) or frame[c].dropna().map(number).all()}


def _part(column: str, value, numeric: bool) -> str:
    """A column's value in a series' name: a number after its column's name, a name alone."""
    return f"{column} {value}" if numeric else str(value)


def _key_of(frame, columns: list[str]) -> Callable[[dict, list], str | None]:
    """The series a claim's selector (and its traces) names, as ``_with_series`` names them."""
    only = {c: str(frame[c].iloc[0]) for c in ("label", "trace") if c in frame and frame[c].nunique() == 1}
    numbers = _numeric(frame, columns)

    def key(selector: dict, traces: list) -> str | None:
        parts = []
        for column in columns:
            value = selector.get(column, traces[0] if column == "trace" and len(traces) == 1 else only.get(column))
            if value is None or isinstance(value, (tuple, list)):
                return None
            parts.append(_part(column, value, column in numbers))
        return " ".join(parts)

    return key


def _mark_paper(axes, experiment, frame, spec: dict, columns: list[str], place, ours, at_of, every_at, kind) -> list:
    """The paper's numbers (``smrlab.plots_paper``) as hollow markers, each at ``place(series,
    x value)`` (None where the figure has no such point), a range as a capped bar, a number no
    point carries as a labelled line or band across the axis; returns the marks drawn."""
    claims = spec["_claims"]
    y = spec.get("y", "total_io_s")
    key_of = _key_of(frame, columns) if columns else (lambda selector, traces: None)
    found = plots_paper.marks(claims, y, _scale(y), spec.get("normalise"), key_of, at_of, ours, every_at, kind)
    drawn = [mark for mark in found if mark.across or place(mark.key, mark.at) is not None]
    from matplotlib import patheffects

    halo = {"path_effects": [patheffects.withStroke(linewidth=PAPER_HALO, foreground="white")]}
    points = [m for m in drawn if m.high is None and not m.side and not m.across]
    if points:
        axes.plot(
            [place(m.key, m.at) for m in points], [m.value for m in points], label="paper", **PAPER_MARKER, **halo
        )
    for up, marker in ((1, "^"), (-1, "v")):
        bounds = [m for m in drawn if m.side == up and not m.across]
        if bounds:
            shown = {**PAPER_MARKER, "marker": marker, **halo}
            where = ([place(m.key, m.at) for m in bounds], [m.value for m in bounds])
            axes.plot(*where, label=f"paper's bound (ours {'above' if up > 0 else 'below'})", **shown)
    ranges = [m for m in drawn if m.high is not None and not m.across]
    if ranges:
        axes.errorbar(
            [place(m.key, m.at) for m in ranges],
            [m.value for m in ranges],
            yerr=[[0] * len(ranges), [m.high - m.value for m in ranges]],
            fmt="none",
            ecolor="black",
            elinewidth=1.0,
            capsize=3,
            label="paper's range",
        )
    for index, mark in enumerate(m for m in drawn if m.across):
        # Its label just above the line, or inside the band above its foot; at the axes' left
        # or middle, in axes coordinates along x.
        if mark.high is None:
            axes.axhline(mark.value, color="black", linewidth=0.8, linestyle=(0, (4, 2)))
        else:
            axes.axhspan(mark.value, mark.high, color="0.6", alpha=0.25, linewidth=0)
        axes.annotate(
            mark.text,
            (0.01 + 0.5 * (index % 2), mark.value),
            xycoords=("axes fraction", "data"),
            xytext=(0, 1.5),
            textcoords="offset points",
            fontsize=7,
            va="bottom",
            # Readable over the lines it crosses.
            bbox={"facecolor": "white", "alpha": 0.75, "edgecolor": "none", "pad": 0.5},
        )
    return drawn


def _bars(axes, frame, spec: dict, experiment) -> tuple[str, list]:
    x, y, base = spec.get("x", "trace"), spec.get("y", "total_io_s"), spec.get("normalise")
    _need(frame, x, "label")
    columns = spec.get("_series_columns") or ["label"]
    given = frame
    frame = _with_series(frame, columns)
    # Only the columns read below: each (group, series) selection then copies three, not the table.
    read = dict.fromkeys([x, "_series", *(["saturated"] if "saturated" in frame else [])])
    frame = frame[list(read)].assign(_y=_values(frame, y), _x=frame[x].map(str))
    groups = list(dict.fromkeys(frame["_x"]))
    claims = spec["_claims"]
    # The paper's statistic of several of its traces: a group of ours beside the traces'.
    pers = [c.per for c in claims if plots_paper.drawable(c, y) and len(c.traces) != 1 and c.per != "every"]
    statistic = pers[0] if x == "trace" and len(groups) > 1 and pers and pers[0] in STATISTICS else None
    # A series with no value in any group (a measure its system lacks, such as segments
    # rewritten on a plain disk) is left out: no empty room among the bars, no empty legend entry.
    labels = [s for s in dict.fromkeys(frame["_series"]) if frame.loc[frame["_series"] == s, "_y"].notna().any()]
    # Each (group, series)'s mean, and those of a saturated run, in one pass over the rows.
    means = frame.groupby(["_x", "_series"], sort=False)["_y"].mean().to_dict()
    hit = frame[frame["saturated"].fillna(False).astype(bool)] if "saturated" in frame else frame[:0]
    flagged = set(zip(hit["_x"], hit["_series"]))
    value, position = {}, {}
    for group in groups:
        reference = means.get((group, base), float("nan")) if base else 1.0
        for label in labels:
            known = (group, label) in means and reference
            value[(label, group)] = means[(group, label)] / reference if known else float("nan")
    # A group where nothing has a value (its normalising label did not run there) is left out.
    groups = [g for g in groups if any(value[(label, g)] == value[(label, g)] for label in labels)] or groups
    # And a label with a value in none of the groups left (HWSR's 'ssd-only' run only where the
    # disk was not): no bar, no tick beyond the last bar.
    labels = [label for label in labels if any(value[(label, g)] == value[(label, g)] for g in groups)] or labels
    width = 0.8 / max(1, len(labels))
    if statistic:
        for label in labels:
            known = [value[(label, g)] for g in groups if value[(label, g)] == value[(label, g)]]
            value[(label, statistic)] = STATISTICS[statistic](known) if known else float("nan")
        groups.append(statistic)
    for index, label in enumerate(labels):
        heights = [value[(label, group)] for group in groups]
        marked = [group != statistic and (group, label) in flagged for group in groups]
        positions = [g + (index - (len(labels) - 1) / 2) * width for g in range(len(groups))]
        position.update({(label, group): p for group, p in zip(groups, positions)})
        axes.bar(
            positions,
            heights,
            width,
            # One group: the labels name the x axis's ticks themselves, and need no legend.
            label=label if len(groups) > 1 else None,
            color=COLOURS[index % len(COLOURS)],
            hatch=HATCHES[index % len(HATCHES)],
            edgecolor="black" if index else "white",
            linewidth=0.5,
        )
        _mark_saturated(axes, [(place, height) for place, height, mark in zip(positions, heights, marked) if mark])

    def at_of(claim, selector: dict) -> str | None:
        if x != "trace":
            return None if selector.get(x) is None else str(selector.get(x))
        if len(claim.traces) == 1:
            return claim.traces[0]
        if len(claim.traces) != 1 and claim.per != "every":
            return statistic if claim.per == statistic else (groups[0] if len(groups) == 1 else None)
        return None

    def every_at(claim) -> list[str]:
        """A claim about every trace (of its own, or of the figure's) stands on each trace's
        group; one about every value of another x (a selector that names none), on each group."""
        if claim.per != "every":
            return []
        return [g for g in groups if g != statistic and (x != "trace" or not claim.traces or g in claim.traces)]

    drawn = _mark_paper(
        axes,
        experiment,
        given,
        spec,
        columns,
        lambda label, at: position.get((label, at)),
        lambda label, at: value.get((label, at)),
        at_of,
        every_at,
        "bars",
    )
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
    return axis_label(y, spec.get("ylabel"), base), drawn


def _lines(axes, frame, spec: dict, experiment) -> tuple[str, list]:
    """``y`` over a swept ``x`` placed at its values (a log axis where they span a decade or
    more), one line per series; an ``x`` of names (schemes, policies) is drawn as bars instead,
    one group per trace, one bar per name."""
    from matplotlib.ticker import NullLocator

    x, y = spec.get("x"), spec.get("y", "total_io_s")
    if x not in frame:
        raise UsageError(f"figure: lines need x, a swept column (got {quoted(str(x))})")
    _need(frame, "label", "trace")
    # A system the sweep does not apply to (E-region beside uCache's bucket sizes) has no x.
    unswept, frame = frame[frame[x].isna()], frame[frame[x].notna()]
    ticks = list(dict.fromkeys(frame[x].map(str)))
    places = _x_positions(ticks)
    if places is None:
        columns = [c for c in _series_columns(frame, experiment, "trace") if c != "trace"]
        columns = [*[c for c in columns if c != x], x] if frame["label"].nunique() > 1 else [x]
        return _bars(axes, frame, {**spec, "x": "trace", "_series_columns": columns}, experiment)
    columns = _series_columns(frame, experiment, x)
    frame = _with_series(frame, columns).assign(_y=_values(frame, y), _x=frame[x].map(str))
    references = {}
    for index, (label, rows) in enumerate(unswept.groupby("label", sort=False)):
        # Drawn across the axis at its value, grey, dotted (a reference, not one of the sweep's).
        mean = references[label] = _values(rows, y).mean()
        if mean == mean:
            axes.axhline(mean, color="0.45", linewidth=1.0, linestyle=[(0, (1, 1)), "-."][index % 2], label=label)
    labels, traces = list(dict.fromkeys(frame["label"])), list(dict.fromkeys(frame["trace"]))
    means = {}

    def ours(series: str, at: str | None) -> float | None:
        """Our value of a series at ``at``; where ``at`` is None (a claim's selector names no x),
        its value if it has one only (a system run at one x, or a reference across the axis)."""
        if series in references:
            return references[series]
        if at is None:
            alone = [mean for (name, _), mean in means.items() if name == series]
            return alone[0] if len(alone) == 1 else None
        return means.get((series, at))

    # Each line its colour; a label keeps its marker on every trace, a trace its line style.
    for index, (series, rows) in enumerate(frame.groupby("_series", sort=False)):
        line = rows.groupby("_x", sort=False)["_y"].mean()
        means.update({(series, at): mean for at, mean in line.items()})
        axes.plot(
            [places[at] for at in line.index],
            list(line),
            marker=MARKERS[labels.index(rows["label"].iloc[0]) % len(MARKERS)],
            markersize=3.5,
            color=COLOURS[index % len(COLOURS)],
            linewidth=1.0,
            label=series,
            linestyle=["-", "--", ":", "-."][traces.index(rows["trace"].iloc[0]) % 4],
        )
        _mark_saturated(
            axes, [(places[at], mean) for at, mean in line.items() if any_saturated(rows[rows["_x"] == at])]
        )
    drawn = _mark_paper(
        axes,
        experiment,
        frame,
        spec,
        columns,
        lambda _, at: places.get(at),
        ours,
        # A statistic of the paper's traces has no one line of ours to stand on where several
        # traces are drawn: across the axis.
        lambda claim, selector: (
            None
            if selector.get(x) is None
            or isinstance(selector.get(x), tuple)
            or (claim.per != "every" and len(traces) > 1)
            else str(selector.get(x))
        ),
        # A claim at several x values named (uCache Fig. 10's 128 KiB to 2 MiB) stands at each.
        lambda claim: [str(v) for v in claim.of[x]] if isinstance(claim.of.get(x), tuple) else None,
        "lines",
    )
    values = list(places.values())
    if min(values) > 0 and max(values) >= 10 * min(values):
        axes.set_xscale("log")
    axes.set_xticks([places[t] for t in ticks], ticks)
    axes.xaxis.set_minor_locator(NullLocator())  # no unlabelled log ticks between the values
    axes.set_xlabel(spec.get("xlabel", x))
    return axis_label(y, spec.get("ylabel")), drawn


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
    # A line is named by what tells its cell from the others, as a lines figure's series are
    # (label, swept parameters, trace): not every text column, which holds the runs' caveats.
    frame = _with_series(frame, _series_columns(frame, experiment, ""))
    for index, (_, row) in enumerate(frame.iterrows()):
        times, values = row.get("series.trace_s"), row[column]
        if times is None or values is None or not len(values):
            continue
        label = row["_series"]
        axes.plot(
            list(times),
            [v * _scale(y) for v in values],
            color=COLOURS[index % len(COLOURS)],
            linestyle=["-", "--", ":", "-."][index % 4],
            linewidth=0.9,
            label=label,
        )
    axes.set_xlabel(spec.get("xlabel", "trace time (s)"))
    # The paper's statistics of the gauge over a run (its mean, its peak): across the axis.
    drawn = _mark_paper(
        axes, experiment, frame, spec, [], lambda *_: None, lambda *_: None, lambda *_: None, lambda _: None, "series"
    )
    return axis_label(y, spec.get("ylabel")), drawn


KINDS = dict(zip(FIGURE_KINDS, (_bars, _lines, _series)))


def _plain_log_ticks(axes, values) -> None:
    """A log y axis labelled 1, 2, 5, 10, 20... as plain numbers (not 2x10^0), from the 1-2-5
    step below the smallest value (strictly: a bar of it standing on the foot would have no
    height) to the one above the largest, so both ends are labelled."""
    import math

    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    def step(value: float, up: bool) -> float:
        decade = 10.0 ** math.floor(math.log10(value))
        candidates = [decade * m for m in (1, 2, 5, 10)]
        return min(c for c in candidates if c >= value) if up else max(c for c in candidates if c <= value)

    values = [v for v in values if v > 0 and math.isfinite(v)]
    # The foot strictly below the least value: a bar of it standing on the foot would have no height.
    low, high = (step(min(values) * (1 - 1e-9), up=False), step(max(values), up=True)) if values else (1, 10)
    if values:
        axes.set_ylim(low, high)
    # Over more than three decades the 2s and 5s would crowd the axis: the decades alone.
    subs = (1.0,) if high / low > 1e3 else (1.0, 2.0, 5.0)
    axes.yaxis.set_major_locator(LogLocator(base=10, subs=subs))
    axes.yaxis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}" if value < 1e4 else f"{value:,.0f}"))
    axes.yaxis.set_minor_formatter(NullFormatter())


def figures_of(experiment) -> list[tuple[str, dict]]:
    """The experiment's figures, each its name and its keys: its [figure], named as the
    experiment, then each of its ``also`` laid over it, named by the experiment and its measure
    (``hwsr-fig13-14-response_mean_ns``)."""
    main = {key: value for key, value in experiment.figure.items() if key != "also"}
    found = {experiment.name: main} if main else {}
    for index, extra in enumerate(experiment.figure.get("also", [])):
        spec = {**main, **extra}
        name = f"{experiment.name}-{spec.get('y', 'total_io_s')}"
        found[name if name not in found else f"{name}-{index + 2}"] = spec
    return list(found.items())


def figure(experiment, frame, spec: dict | None = None, claims: list | None = None):
    """The experiment's figure (a ``matplotlib.figure.Figure``; ``spec``: one of ``figures_of``,
    by default its [figure]), from its rows without errors, with its caption (``caption``)
    beneath, the figure made taller by the caption's lines."""
    import matplotlib

    fig, text = figure_and_caption(experiment, frame, spec, claims)
    if text:
        lines = textwrap.fill(text, CAPTION_CHARACTERS)
        fig.set_figheight(fig.get_figheight() + (lines.count("\n") + 1) * CAPTION_PT * 1.25 / 72)
        with matplotlib.rc_context(STYLE):
            # A figure-wide label, so that the layout leaves it room below the tick labels.
            fig.supxlabel(lines, x=0.01, ha="left", fontsize=CAPTION_PT)
    return fig


def figure_and_caption(experiment, frame, spec: dict | None = None, claims: list | None = None):
    """The experiment's figure (``spec``: one of ``figures_of``, by default its [figure])
    without its caption, and the caption (``caption``): the report shows the caption as the
    page's text under the figure, ``figure`` draws it beneath. ``claims``: the experiment's
    (``smrlab.paper.claims_of``), read once by a caller drawing several of its figures."""
    import matplotlib
    from matplotlib.figure import Figure

    if spec is None:
        spec = {key: value for key, value in experiment.figure.items() if key != "also"}
    kind = spec.get("kind", "bars")
    if kind not in KINDS:
        raise UsageError(f"figure: kind {quoted(str(kind))} is none of {', '.join(KINDS)}")
    # The paper's claims on the experiment, read once for the drawing and the caption.
    spec = {**spec, "_claims": paper.claims_of(experiment) if claims is None else claims}
    frame = frame[frame["error"].isna()] if "error" in frame else frame
    with matplotlib.rc_context(STYLE):
        fig = Figure(figsize=(5.0, 2.6), layout="constrained")
        axes = fig.add_subplot()
        ylabel, drawn = KINDS[kind](axes, frame, spec, experiment)
        axes.set_ylabel(ylabel)
        known = _values(frame, spec.get("y", "total_io_s")).dropna() if len(frame) else []
        zeros = 0
        if spec.get("logy") and len(known) and (known >= 0).all() and (known > 0).any():
            axes.set_yscale("log")
            # The data's own bars and lines (not the lines across the axes, in axes coordinates).
            _plain_log_ticks(
                axes,
                [y for line in axes.get_lines() if line.get_transform() == axes.transData for y in line.get_ydata()]
                + [bar.get_height() for bar in _bars_of(axes)],
            )
            zeros = _mark_zeros(axes)
        elif _bars_of(axes) or spec.get("logy"):
            axes.set_ylim(bottom=0)
        handles, labels = axes.get_legend_handles_labels()
        if labels:
            # The legend's text as large as the axes' labels (the style's font size).
            axes.legend(
                ncols=_legend_columns(fig, labels),
                loc="lower left",
                bbox_to_anchor=(0, 1.01),
                borderaxespad=0,
                columnspacing=1.2,
                handlelength=2.2,
            )
        axes.grid(axis="y", linewidth=0.3, color="0.88")
        axes.set_axisbelow(True)
    source = paper.claims_file(experiment)
    where = f"experiments/claims/{source.name}" if source else ""
    markers = plots_paper.caption(drawn, spec["_claims"], where)
    return fig, caption(axes, frame, kind, markers, zeros, spec.get("normalise"))


def caption(axes, frame, kind: str, markers: str, zeros: int = 0, base: str | None = None) -> str:
    """The figure's caption, as the report shows it under the figure and ``save`` draws it
    beneath: what is plotted against what (with the units its axes name), the traces and seeds
    it is drawn from, the saturation and zero footnotes and the caveats of its runs where they apply
    (``smrlab.caveats``, worded as the tables' notes), and where the paper's numbers come from."""
    ylabel, xlabel = axes.get_ylabel(), axes.get_xlabel()
    if kind == "series" or (kind == "lines" and not _bars_of(axes)):
        what = f"{ylabel} against {xlabel}"
    else:
        # One group (its x label "trace wdev") needs no word on grouping; several traces, a group each.
        what = f"{ylabel} of each system" + (f" by {xlabel}" if xlabel and not xlabel.startswith("trace ") else "")
        if not xlabel and "trace" in frame and frame["trace"].nunique() > 1:
            what += ", a group per trace"
    parts = [what[:1].upper() + what[1:] + "."]
    if "trace" in frame and len(frame):
        # Normalised to ``base``: the traces it ran on (a group without it is left out).
        drawn = frame[frame["label"] == base] if base and "label" in frame and (frame["label"] == base).any() else frame
        traces = list(dict.fromkeys(drawn["trace"].map(str)))
        parts.append(f"Trace{'s' if len(traces) > 1 else ''}: {', '.join(traces)}.")
    if "seed" in frame and frame["seed"].nunique() > 1:
        parts.append(f"Each value the mean of {frame['seed'].nunique()} seeds.")
    if kind != "series" and any_saturated(frame):
        parts.append(SATURATED_NOTE + ".")
    if zeros:
        parts.append(ZERO_NOTE + ".")
    parts += [f"{line}." for line in results_notes(frame, [], [])]  # led by a label: kept as spelt
    if markers:
        parts.append(markers)
    return " ".join(parts)


def _bars_of(axes) -> list:
    """The bars of the figure (not the bands across the axis)."""
    from matplotlib.container import BarContainer

    return [bar for container in axes.containers if isinstance(container, BarContainer) for bar in container]


def _mark_zeros(axes) -> int:
    """Each zero of a log axis at its foot, marked ``ZERO_MARK``: its bar (of no height) or its
    line's point (moved from zero, where a log axis has no place, to the foot); the count marked.

    A symmetric log axis (linear below a threshold) was the other way to show zeros: it keeps
    them on the scale, but squeezes every value under the threshold into a stretch a reader
    cannot read as decades, and HWSR Figs. 13-14's per-request rewrites span 10^-4 to 10; a
    log axis with its zeros at the foot, marked and footnoted, keeps every other value true."""
    foot = axes.get_ylim()[0]
    places = [(bar.get_x() + bar.get_width() / 2) for bar in _bars_of(axes) if bar.get_height() == 0]
    for line in axes.get_lines():
        # Our lines only: not the paper's marks (a range's caps may stand at a zero of its own).
        if line.get_transform() != axes.transData or line.get_label().startswith(("paper", "_")):
            continue
        ys = [float(y) for y in line.get_ydata()]
        if 0.0 in ys:
            places += [x for x, y in zip(line.get_xdata(), ys) if y == 0]
            line.set_ydata([foot if y == 0 else y for y in ys])
    for x in places:
        axes.annotate(ZERO_MARK, (x, foot), ha="center", va="bottom", fontsize=7)
    return len(places)


def _legend_columns(fig, labels: list[str]) -> int:
    """As many legend columns (at most four) as the widest entry fits across the figure: its
    handle, its text (``TICK_CHARACTER_PT`` a character at the style's size) and the spacing."""
    entry = 2.2 * 8 + 0.8 * 8 + max(len(label) for label in labels) * TICK_CHARACTER_PT + 1.2 * 8
    return max(1, min(4, len(labels), int(fig.get_figwidth() * 72 * 0.95 // entry)))


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
        axes.legend(frameon=False)
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
    """Each of the experiment's figures (``figures_of``) as ``folder/NAME.pdf``, ``.svg`` and
    ``.png``, each written whole, all three laid out as the first: the layout is worked out
    once, not once for each format."""
    paths, claims = [], paper.claims_of(experiment)
    for name, spec in figures_of(experiment):
        fig = figure(experiment, frame, spec, claims)
        for fmt in FORMATS:
            path = Path(folder) / f"{name}.{fmt}"
            with outputs.output_file(path, make_folder=True) as temporary:
                temporary.write_bytes(render(fig, fmt))
            fig.set_layout_engine("none")  # keeps the places the layout gave every part
            paths.append(path)
    return paths
