"""A reproduced figure's numbers beside the paper's: each ``[[paper]]`` entry of an experiment
file names a measure of a label's rows (optionally on one trace, or where other columns have
given values), optionally divided by another label's on the same trace, seed and swept values,
and the value the paper gives for it.

Ours combines the matching rows' values (or per-row ratios) with the paper's own statistic —
``statistic = "median"`` where the paper gives a median over its traces, ``"geomean"``, or the
mean (the default) — and the table says which, over how many rows; then ``ours / paper``. A
ratio on the other side of 1 from the paper's (the paper's winner loses here) is marked
``reversed``, whatever the factor.

An entry: ``{ label = "smr-only", over = "pore-bl", metric = "write_io_s", value = 34.9,
note = "§V-C2, mean over wdev, mds, ts, usr" }``. Not here: running, plotting, HTML.
"""

from __future__ import annotations

import math
from typing import Any

from smrlab.citations import short

COLUMNS = ["what", "paper", "ours", "ours is", "ours / paper", "direction", "note"]
# How ours may combine several rows, as the paper combines its traces (the first is the default).
STATISTICS = ("mean", "median", "geomean")
REVERSED = "reversed"


def _matching(frame, entry: dict[str, Any], label: str):
    rows = frame[frame["label"] == label]
    if "trace" in entry:
        rows = rows[rows["trace"] == entry["trace"]]
    for column, value in entry.get("where", {}).items():
        if column in rows:
            rows = rows[rows[column].astype(str) == str(value)]
    return rows


def _values(frame, entry: dict[str, Any]) -> list[tuple[str, float]]:
    """(trace, value) of each matching row: the measure, or its ratio to ``over``'s."""
    metric = entry["metric"]
    if metric not in frame:
        return []
    rows = _matching(frame, entry, entry["label"])
    if "over" not in entry:
        rows = rows[["trace", metric]].dropna()
        return [(str(trace), float(value)) for trace, value in zip(rows["trace"], rows[metric])]
    base = _matching(frame, entry, entry["over"])
    keys = [c for c in ("trace", "seed") if c in frame]
    joined = rows[keys + [metric]].merge(base[keys + [metric]], on=keys, suffixes=("", "_base")).dropna()
    joined = joined[joined[f"{metric}_base"] != 0]
    return [(str(trace), float(a) / float(b)) for trace, a, b in zip(joined["trace"], joined[metric], joined[f"{metric}_base"])]


def combine(values: list[float], statistic: str) -> float | None:
    """The values' mean, median or geometric mean (None without values)."""
    if not values:
        return None
    ordered = sorted(values)
    if statistic == "median":
        middle = len(ordered) // 2
        return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2
    if statistic == "geomean":
        return math.exp(sum(math.log(v) for v in ordered) / len(ordered)) if all(v > 0 for v in ordered) else None
    return sum(ordered) / len(ordered)


def ours(frame, entry: dict[str, Any]) -> float | None:
    """Our value for one paper entry (its ``statistic`` of the matching rows), or None."""
    return combine([value for _, value in _values(frame, entry)], entry.get("statistic", STATISTICS[0]))


def how(frame, entry: dict[str, Any]) -> str:
    """What ours is: the statistic and the rows it combines (``median of 2: vm-local, vm-scatter``)."""
    values = _values(frame, entry)
    if not values:
        return "no rows"
    traces = list(dict.fromkeys(trace for trace, _ in values))
    if len(values) == 1:
        return f"one row ({traces[0]})"
    return f"{entry.get('statistic', STATISTICS[0])} of {len(values)} ({', '.join(traces)})"


def direction(entry: dict[str, Any], value: float | None) -> str:
    """For a ratio, whether ours is on the paper's side of 1 (``same``) or not (``reversed``)."""
    paper = float(entry["value"])
    if "over" not in entry or value is None or paper == 1 or value == 1:
        return ""
    return "same" if (paper > 1) == (value > 1) else REVERSED


def describe(entry: dict[str, Any]) -> str:
    text = f"{entry['label']} {entry['metric']}"
    if "over" in entry:
        text += f" / {entry['over']}'s"
    if "trace" in entry:
        text += f" on {entry['trace']}"
    if entry.get("where"):
        text += " where " + ", ".join(f"{k}={v}" for k, v in entry["where"].items())
    return text


def comparison_rows(experiment, frame) -> list[tuple]:
    """(what, paper, ours, ours is, ours / paper, direction, note) for each paper entry."""
    rows = []
    for entry in experiment.paper:
        value = ours(frame, entry)
        paper = float(entry["value"])
        rows.append((describe(entry), paper, value, how(frame, entry), None if value is None or paper == 0 else value / paper,
                     direction(entry, value), entry.get("note", "")))
    return rows


def caption(experiment) -> str:
    reproduces = experiment.reproduces
    return f"{short(reproduces.get('paper', ''))}, {reproduces.get('figure', '')}".strip(", ")
