"""An experiment's figure, drawn with matplotlib in the papers' style (small, serif, grey
shades with hatches, so a figure reads in print), saved as PNG and SVG.

The ``[figure]`` table of an experiment file chooses:

- ``kind = "bars"``: grouped bars, one group per ``x`` value (default: trace), one bar per
  label, of ``y`` (e.g. I/O time, hit rate, R_wa), each optionally divided by the ``normalise``
  label's value in its group (the papers' "normalised to CMR-only");
- ``kind = "lines"``: ``y`` over a swept parameter ``x`` (zone size, period, cache or bucket
  size; a miss-ratio curve is ``y = "miss_ratio"`` of a hit rate over cache sizes), one line
  per label (and trace, when several);
- ``kind = "series"``: a gauge ``y`` sampled over the run (the engine's ``gauge_samples``)
  against trace time, one line per cell (e.g. uCache Fig. 1, the live fraction of the log).

``logy`` draws y on a log scale (when every value is above zero; linear otherwise). Not here: the numbers (the rows) or the report page.
"""

from __future__ import annotations

import io
from pathlib import Path

from smrlab import outputs
from smrlab.errors import UsageError
from smrlab.options import quoted
from smrlab.results import check_scalars

SHADES = ["0.15", "0.45", "0.7", "0.9", "0.3", "0.6", "0.8", "1.0"]
HATCHES = ["", "//", "..", "xx", "\\\\", "--", "++", "oo"]
MARKERS = ["o", "s", "^", "D", "v", "x", "+", "*"]
STYLE = {"font.family": "serif", "font.size": 8, "axes.linewidth": 0.6, "hatch.linewidth": 0.5}
# Derived columns a figure may ask for by name: the complement of a hit rate.
MISS = {"miss_ratio": "hit_rate", "read_miss_ratio": "read_hit_rate", "write_miss_ratio": "write_hit_rate"}


def _need(frame, *columns: str) -> None:
    """Refuses columns the figure groups or plots by that the results lack, or that hold lists."""
    for column in columns:
        if column not in frame:
            raise UsageError(f"figure: no column {quoted(column)} in the results "
                             f"(columns: {quoted(', '.join(map(str, frame.columns)), 200)})")
    check_scalars(frame, columns, "figure")


def _values(frame, y: str):
    column = y if y in frame or y not in MISS else MISS[y]
    _need(frame, column)
    try:
        values = frame[column].astype(float)
    except (TypeError, ValueError):
        raise UsageError(f"figure: column {quoted(column)} does not hold numbers") from None
    return values if column == y else 1 - values


def _bars(axes, frame, spec: dict) -> str:
    x, y, base = spec.get("x", "trace"), spec.get("y", "total_io_s"), spec.get("normalise")
    _need(frame, x, "label")
    frame = frame.assign(_y=_values(frame, y))
    groups = list(dict.fromkeys(frame[x]))
    labels = list(dict.fromkeys(frame["label"]))
    width = 0.8 / max(1, len(labels))
    for index, label in enumerate(labels):
        heights = []
        for group in groups:
            rows = frame[(frame[x] == group) & (frame["label"] == label)]["_y"]
            value = rows.mean() if len(rows) else float("nan")
            if base:
                reference = frame[(frame[x] == group) & (frame["label"] == base)]["_y"].mean()
                value = value / reference if reference else float("nan")
            heights.append(value)
        positions = [g + (index - (len(labels) - 1) / 2) * width for g in range(len(groups))]
        axes.bar(positions, heights, width, label=label, color=SHADES[index % len(SHADES)],
                 hatch=HATCHES[index % len(HATCHES)], edgecolor="black", linewidth=0.5)
    axes.set_xticks(range(len(groups)), [str(g) for g in groups])
    return f"{y} / {base}'s" if base else y


def _lines(axes, frame, spec: dict) -> str:
    x, y = spec.get("x"), spec.get("y", "total_io_s")
    if x not in frame:
        raise UsageError(f"figure: lines need x, a swept column (got {quoted(str(x))})")
    _need(frame, "label", "trace")
    frame = frame.assign(_y=_values(frame, y))
    ticks = list(dict.fromkeys(frame[x].astype(str)))
    several_traces = frame["trace"].nunique() > 1
    keys = ["label", "trace"] if several_traces else ["label"]
    for index, (key, rows) in enumerate(frame.groupby(keys, sort=False)):
        means = rows.groupby(rows[x].astype(str), sort=False)["_y"].mean()
        axes.plot([ticks.index(t) for t in means.index], list(means), marker=MARKERS[index % len(MARKERS)],
                  color="black", linewidth=0.8, markersize=3.5, markerfacecolor=SHADES[index % len(SHADES)],
                  label=" ".join(map(str, key if isinstance(key, tuple) else (key,))))
    axes.set_xticks(range(len(ticks)), ticks)
    axes.set_xlabel(spec.get("xlabel", x))
    return y


def _series(axes, frame, spec: dict) -> str:
    y = spec.get("y")
    column = f"series.{y}"
    if column not in frame:
        raise UsageError(f"figure: no time series {quoted(str(y))} in the results (sample it with the engine's gauge_samples)")
    # A line is named by what tells its cell from the others: the text columns (label, trace,
    # given parameters; not the cell's key) whose values differ between rows.
    from pandas.api.types import is_bool_dtype, is_numeric_dtype
    naming = [c for c in frame.columns if c != "cell" and not c.startswith("series.") and not is_numeric_dtype(frame[c])
              and not is_bool_dtype(frame[c]) and frame[c].map(str).nunique() > 1] or ["label"]
    for index, (_, row) in enumerate(frame.iterrows()):
        times, values = row.get("series.trace_s"), row[column]
        if times is None or values is None or not len(values):
            continue
        label = " ".join(str(row[key]) for key in naming)
        axes.plot(list(times), list(values), color=SHADES[index % len(SHADES)] if index else "black",
                  linestyle=["-", "--", ":", "-."][index % 4], linewidth=0.9, label=label)
    axes.set_xlabel(spec.get("xlabel", "trace time (s)"))
    return y


KINDS = {"bars": _bars, "lines": _lines, "series": _series}


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
        ylabel = KINDS[kind](axes, frame, spec)
        axes.set_ylabel(spec.get("ylabel", ylabel))
        if spec.get("logy") and len(frame) and (_values(frame, spec.get("y", "total_io_s")) > 0).all():
            axes.set_yscale("log")
        axes.set_title(spec.get("title", experiment.title or experiment.name), fontsize=8)
        labels = axes.get_legend_handles_labels()[1]
        if labels:  # rows whose values are all missing draw nothing to name
            axes.legend(fontsize=6, frameon=False, ncols=min(4, len(labels)))
        axes.grid(axis="y", linewidth=0.3, color="0.8")
        axes.set_axisbelow(True)
    return fig


def render(fig, fmt: str) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format=fmt, dpi=150, metadata={"Software": None} if fmt == "png" else {"Date": None})
    return buffer.getvalue()


def save(experiment, frame, folder: Path) -> list[Path]:
    """The figure as ``folder/NAME.png`` and ``.svg``, each written whole."""
    fig = figure(experiment, frame)
    paths = []
    for fmt in ("png", "svg"):
        path = Path(folder) / f"{experiment.name}.{fmt}"
        with outputs.output_file(path, make_folder=True) as temporary:
            temporary.write_bytes(render(fig, fmt))
        paths.append(path)
    return paths
