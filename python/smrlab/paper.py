"""A reproduced figure's numbers beside the paper's: each ``[[paper]]`` entry of an experiment
file names a measure of a label's rows (optionally on one trace, or where other columns have
given values), optionally divided by another label's on the same trace, seed and swept values,
and the value the paper gives for it. Ours is the mean over the matching rows (of the per-row
ratios), then ``ours / paper``.

An entry: ``{ label = "smr-only", over = "pore-bl", metric = "write_io_s", value = 34.9,
note = "§V-C2, mean over wdev, mds, ts, usr" }``. Not here: running, plotting, HTML.
"""

from __future__ import annotations

from typing import Any

from smrlab.citations import short

COLUMNS = ["what", "paper", "ours", "ours / paper", "note"]


def _matching(frame, entry: dict[str, Any], label: str):
    rows = frame[frame["label"] == label]
    if "trace" in entry:
        rows = rows[rows["trace"] == entry["trace"]] if "trace" in rows else rows.iloc[:0]
    for column, value in entry.get("where", {}).items():
        if column in rows:
            rows = rows[rows[column].astype(str) == str(value)]
    return rows


def ours(frame, entry: dict[str, Any]) -> float | None:
    """Our value for one paper entry, or None when no row has it."""
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    metric = entry["metric"]
    if metric not in frame or "label" not in frame or not is_numeric_dtype(frame[metric]) or is_bool_dtype(frame[metric]):
        return None
    rows = _matching(frame, entry, entry["label"])
    if "over" not in entry:
        values = rows[metric].dropna()
        return float(values.mean()) if len(values) else None
    base = _matching(frame, entry, entry["over"])
    keys = [c for c in ("trace", "seed") if c in frame]
    joined = rows[keys + [metric]].merge(base[keys + [metric]], on=keys, suffixes=("", "_base")).dropna()
    joined = joined[joined[f"{metric}_base"] != 0]
    ratios = joined[metric].astype(float) / joined[f"{metric}_base"].astype(float)
    return float(ratios.mean()) if len(ratios) else None


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
    """(what, paper, ours, ours / paper, note) for each paper entry of the experiment."""
    rows = []
    for entry in experiment.paper:
        value = ours(frame, entry)
        paper = float(entry["value"])
        rows.append((describe(entry), paper, value, None if value is None or paper == 0 else value / paper, entry.get("note", "")))
    return rows


def caption(experiment) -> str:
    reproduces = experiment.reproduces
    return f"{short(reproduces.get('paper', ''))}, {reproduces.get('figure', '')}".strip(", ")
