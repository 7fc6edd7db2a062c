"""One claim judged on an experiment's results: our value beside the paper's, and the verdict.

The verdicts, one rule each:

- holds: a value or ratio within the claim's factor of the paper's number (or inside its range);
  a ratio on the expected side of 1; cells in the stated order; a metric moving the stated way
  along a swept parameter (each step no more than 1 % against the direction, the ends apart);
- direction only: a ratio on the same side of 1 as the paper's, but outside the factor;
- fails: anything else;
- not comparable: a cell it rests on is saturated (its queue grew for the whole replay, so its
  response times measure the trace's length);
- not run: the claim cannot be run here, was left out of a quick run, or no cell matched.

Across traces a claim is judged per trace (``per = "each"``), on the mean, median, geometric
mean, largest or smallest of the per-trace values, or on every trace (``all``: holds when it
holds on each). Within a trace, the rows a selector matches (seeds, grid values it leaves
free) are averaged; a ratio divides rows matched on trace, seed and the grid values both sides
share. Not here: reading claims files (``claims``) or running experiments (``scorecard``).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Any

from smrlab.reproduce.claims import Claim, Selector, describe
from smrlab.results import any_saturated

HOLDS, DIRECTION, FAILS, NOT_COMPARABLE, NOT_RUN = "holds", "direction only", "fails", "not comparable", "not run"
VERDICTS = (HOLDS, DIRECTION, FAILS, NOT_COMPARABLE, NOT_RUN)

# What a quick run says of a claim that needs the full-size traces.
FULL_ONLY = "needs the full-size traces (--full)"
# How far a trend may step against its direction and still hold: noise, not a turn.
TREND_SLACK = 0.01


@dataclass
class Row:
    """One row of the scorecard."""

    paper: str
    id: str
    where: str
    claim: str
    trace: str
    paper_value: str
    ours: float | None
    ours_text: str
    ratio: float | None
    verdict: str
    reason: str = ""
    experiment: str = ""
    metric: str = ""
    cells: list[str] = field(default_factory=list)
    traces_kind: str = ""
    note: str = ""
    # How the claim combines traces (``Claim.per``): a row of its own per trace for "each".
    per: str = ""

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


class Evaluation:
    """Judges claims on one experiment's results: ``frame`` its rows, ``axes`` the values of each
    swept parameter in the order the experiment file lists them."""

    def __init__(self, frame, axes: dict[str, list[str]], traces_kind: str):
        self.frame, self.axes, self.traces_kind = frame, axes, traces_kind

    def rows(self, paper: str, claim: Claim, left_out: bool = False) -> list[Row]:
        """The claim's rows; ``left_out``: one "not run" row, as a quick run gives a claim that
        needs the full-size traces."""
        if claim.kind == "not-run":
            return [self._row(paper, claim, "", None, "", NOT_RUN, [])]
        if left_out:
            return [self._row(paper, claim, "", None, FULL_ONLY, NOT_RUN, [], reason="")]
        traces = [t for t in dict.fromkeys(self.frame["trace"]) if not claim.traces or t in claim.traces]
        if not traces:
            return [
                self._row(
                    paper, claim, "", None, "no cell of the experiment matched", NOT_RUN, [], reason=_no_cells(claim)
                )
            ]
        judged = [self._judge(claim, t) for t in traces]
        if claim.per == "each":
            return [self._row(paper, claim, t, *j) for t, j in zip(traces, judged)]
        return [self._row(paper, claim, ", ".join(traces), *self._combine(claim, judged))]

    def _row(
        self,
        paper: str,
        claim: Claim,
        trace: str,
        ours: float | None,
        text: str,
        verdict: str,
        cells: list[str],
        reason: str | None = None,
    ) -> Row:
        ratio = ours / claim.paper_value if ours is not None and claim.paper_value else None
        why = claim.reason if reason is None and verdict != HOLDS else (reason or "")
        return Row(
            paper,
            claim.id,
            claim.where,
            claim.claim,
            trace,
            claim.paper_text(),
            ours,
            text,
            ratio,
            verdict,
            why,
            claim.experiment,
            claim.metric,
            cells,
            self.traces_kind,
            claim.note,
            claim.per,
        )

    # One trace: (our value, its text, verdict, the cells behind it).
    def _judge(self, claim: Claim, trace: str) -> tuple[float | None, str, str, list[str]]:
        rows = self.frame[self.frame["trace"] == trace]
        if claim.metric not in rows:
            return None, f"no column '{claim.metric}'", NOT_RUN, []
        if claim.kind == "order":
            return self._order(claim, rows)
        if claim.kind == "trend":
            return self._trend(claim, rows)
        if claim.kind == "ratio":
            value, used = self._ratio(claim, rows)
        else:
            used = select(rows, claim.of)
            value = _mean(used, claim.metric)
        cells = _cells(used)
        if value is None:
            return None, "no matching cell", NOT_RUN, cells
        if any_saturated(used):
            return value, _fmt(value), NOT_COMPARABLE, cells
        return value, _fmt(value), decide(claim, value), cells

    def _ratio(self, claim: Claim, rows):
        top, bottom = select(rows, claim.of), select(rows, claim.over)
        keys = ["seed"] + [
            k
            for k in self.axes
            if k not in claim.of
            and k not in claim.over
            and k in rows
            and top[k].notna().all()
            and bottom[k].notna().all()
        ]
        joined = top[keys + [claim.metric]].merge(bottom[keys + [claim.metric]], on=keys, suffixes=("", "_over"))
        joined = joined[
            (joined[f"{claim.metric}_over"] != 0)
            & joined[claim.metric].notna()
            & joined[f"{claim.metric}_over"].notna()
        ]
        used = _concat(top, bottom)
        if joined.empty:
            return None, used
        return float((joined[claim.metric].astype(float) / joined[f"{claim.metric}_over"].astype(float)).mean()), used

    def _order(self, claim: Claim, rows):
        tiers = [[(s, select(rows, s)) for s in tier] for tier in claim.order]
        used = _concat(*(r for tier in tiers for _, r in tier))
        values = [[(s, _mean(r, claim.metric)) for s, r in tier] for tier in tiers]
        if any(v is None for tier in values for _, v in tier):
            return None, "a cell of the order is missing", NOT_RUN, _cells(used)
        text = " < ".join(" ~ ".join(f"{describe(s)} {_fmt(v)}" for s, v in tier) for tier in values)
        if any_saturated(used):
            return None, text, NOT_COMPARABLE, _cells(used)
        ordered = all(max(v for _, v in low) < min(v for _, v in high) for low, high in zip(values, values[1:]))
        return None, text, HOLDS if ordered else FAILS, _cells(used)

    def _trend(self, claim: Claim, rows):
        used = select(rows, claim.of)
        if claim.x not in used:
            return None, f"no grid parameter '{claim.x}'", NOT_RUN, _cells(used)
        axis = self.axes.get(claim.x) or sorted(set(used[claim.x].astype(str)))
        points = [(x, _mean(used[used[claim.x].astype(str) == x], claim.metric)) for x in axis]
        points = [(x, v) for x, v in points if v is not None]
        text = ", ".join(f"{x}: {_fmt(v)}" for x, v in points)
        if len(points) < 2:
            return None, text or "fewer than two points", NOT_RUN, _cells(used)
        if any_saturated(used):
            return None, text, NOT_COMPARABLE, _cells(used)
        return None, text, HOLDS if follows(claim, points) else FAILS, _cells(used)

    def _combine(self, claim: Claim, judged: list[tuple]) -> tuple[float | None, str, str, list[str]]:
        cells = [c for *_, cs in judged for c in cs]
        if claim.per == "all" or claim.kind in ("order", "trend"):
            verdicts = [v for _, _, v, _ in judged]
            return None, f"holds on {verdicts.count(HOLDS)} of {len(verdicts)} traces", _every(verdicts), cells
        values = [v for v, _, verdict, _ in judged if v is not None]
        if not values:
            return None, "no matching cell", NOT_RUN, cells
        value = aggregate(claim.per, values)
        if any(verdict == NOT_COMPARABLE for _, _, verdict, _ in judged):
            return value, _fmt(value), NOT_COMPARABLE, cells
        text = f"{_fmt(value)} ({claim.per} of {len(values)})" if len(values) > 1 else _fmt(value)
        return value, text, decide(claim, value), cells


def select(rows, selector: Selector):
    """The rows where every key of ``selector`` has its value (compared as text)."""
    for key, value in selector.items():
        if key not in rows:
            return rows.iloc[0:0]
        rows = rows[rows[key].astype(str) == value]
    return rows


def decide(claim: Claim, ours: float) -> str:
    """The verdict on a value or ratio claim, given our number."""
    if claim.expect:
        return HOLDS if (ours < 1 if claim.expect == "below 1" else ours > 1) else FAILS
    if claim.range:
        low, high = claim.range
        if low <= ours <= high:
            return HOLDS
        target = (low + high) / 2
    else:
        target = claim.paper_value
        if target / claim.within <= ours <= target * claim.within:
            return HOLDS
    if claim.kind == "ratio" and (ours - 1) * (target - 1) > 0:
        return DIRECTION
    return FAILS


def follows(claim: Claim, points: list[tuple[str, float]]) -> bool:
    """Whether a trend's points move as ``claim.direction`` says."""
    values = [v for _, v in points]
    if claim.direction in ("increasing", "decreasing"):
        sign = 1 if claim.direction == "increasing" else -1
        steps_ok = all(sign * (b - a) >= -TREND_SLACK * max(abs(a), abs(b)) for a, b in zip(values, values[1:]))
        return steps_ok and sign * (values[-1] - values[0]) > TREND_SLACK * max(abs(values[0]), abs(values[-1]))
    pick = min if claim.direction == "valley" else max
    extreme = pick(range(len(values)), key=values.__getitem__)
    inside = 0 < extreme < len(values) - 1
    if claim.at is not None and points[extreme][0] != claim.at:
        return False
    return inside and values[0] != values[extreme] and values[-1] != values[extreme]


def aggregate(per: str, values: list[float]) -> float:
    if per == "mean":
        return statistics.fmean(values)
    if per == "median":
        return statistics.median(values)
    if per == "geomean":
        return statistics.geometric_mean(values) if all(v > 0 for v in values) else math.nan
    return max(values) if per == "max" else min(values)


def _every(verdicts: list[str]) -> str:
    for blocking in (NOT_RUN, NOT_COMPARABLE, FAILS, DIRECTION):
        if blocking in verdicts:
            return blocking
    return HOLDS


def _mean(rows, metric: str) -> float | None:
    if metric not in rows:
        return None
    values = rows[metric].dropna()
    return float(values.astype(float).mean()) if len(values) else None


def _cells(rows) -> list[str]:
    return [str(c) for c in rows["cell"]] if "cell" in rows else []


def _concat(*frames):
    import pandas as pd

    return pd.concat(frames) if frames else None


def _no_cells(claim: Claim) -> str:
    return f"none of the traces {', '.join(claim.traces)} is in the experiment's results"


def _fmt(value: float | None) -> str:
    from smrlab.tables import fmt

    return fmt(value, 4)
