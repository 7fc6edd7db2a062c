"""One claim judged on an experiment's results: the cells each selector names, gathered into the
claim's points (a trace, and each value of every axis the cells leave free), one value per seed
at each point, then the rules of ``verdict`` per seed, per point and over the points. The claim
gets one ``Row``: its verdict, our value with its spread over seeds, and its points under it.

A value is one draw's: a seed of the traces at one scale (``verdict.Draw``: a --full run's
first draw is the full-size traces, its others the experiment's ``[quick]`` traces unless every
seed runs at full size; a frame without a ``scale`` column is at one scale, the full one). A
ratio divides cells matched on trace, draw and each free axis both sides share (a side that
leaves another axis free is averaged over it within a seed). A response time of a saturated
cell is not a number: the ratio records which side saturated (``verdict`` decides). Not here:
reading claims (``claims``), the rules (``verdict``), running experiments (``scorecard``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

from smrlab.reproduce import verdict
from smrlab.reproduce.claims import Claim, Selector, describe
from smrlab.reproduce.verdict import (
    BOTH_SATURATED,
    NOT_RUN,
    OF_SATURATED,
    OVER_SATURATED,
    Draw,
    Measured,
    fmt,
    spread_text,
)
from smrlab.result import RESPONSE_COLUMNS

# What a quick run says of a claim that needs the full-size traces.
FULL_ONLY = "needs the full-size traces (--full)"
AGGREGATES = ("mean", "median", "geomean", "max", "min")


@dataclass
class Point:
    """One point of a claim: a trace and the values of the axes its cells leave free."""

    trace: str
    at: dict[str, str]
    draws: list[Draw]
    values: list[Measured]
    verdict: str
    text: str
    cells: list[str] = field(default_factory=list)
    in_sample: bool = False
    # The verdict on the first seed alone (what a run of one seed would say).
    first: str = ""
    # An order's values: per tier, per cell, by seed (value, saturated), for a statistic of them.
    parts: list = field(default_factory=list, repr=False)
    # Why the point has fewer draws than the run gives its claim (``scorecard.judge``), or "".
    note: str = ""

    @property
    def seeds(self) -> list[int]:
        return [seed for _, seed in self.draws]

    @property
    def scales(self) -> list[str]:
        return [scale for scale, _ in self.draws]

    def name(self) -> str:
        return " ".join([self.trace] + [f"{k}={v}" for k, v in self.at.items()])

    def value_at(self, draw: Draw) -> Measured:
        """This point's value on ``draw`` (a point of one draw, as a fixed trace's, has that
        value for every draw)."""
        return self.values[self.draws.index(draw)] if draw in self.draws else self.values[0]

    def as_dict(self) -> dict[str, Any]:
        return {
            "point": self.name(),
            "trace": self.trace,
            "at": self.at,
            "seeds": self.seeds,
            "scales": self.scales,
            "values": [_finite(m.value) for m in self.values],
            "saturated": [m.saturated for m in self.values],
            "verdict": self.verdict,
            "first_seed": self.first,
            "text": self.text,
            "in_sample": self.in_sample,
            "note": self.note,
        }


@dataclass
class Row:
    """One claim of the scorecard, with its points under it."""

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
    per: str = ""
    seeds: list[int] = field(default_factory=list)
    # The scale of each seed's traces (``verdict.FULL`` or ``verdict.SCALED``).
    scales: list[str] = field(default_factory=list)
    values: list[float | None] = field(default_factory=list)
    miss: float | None = None
    in_sample: bool = False
    points: list[Point] = field(default_factory=list)
    # The verdict on the first seed alone (what a run of one seed would say).
    first_seed: str = ""

    def as_dict(self) -> dict[str, Any]:
        found = dict(self.__dict__)
        found["points"] = [p.as_dict() for p in self.points]
        found["values"] = [_finite(v) for v in self.values]
        known = [v for v in self.values if v is not None and math.isfinite(v)]
        found["low"], found["high"] = (min(known), max(known)) if known else (None, None)
        return found


def _finite(value: float | None) -> float | None:
    """A value as JSON holds it: a saturated side's unbounded ratio is None (its flag says why)."""
    return value if value is not None and math.isfinite(value) else None


def select(rows, selector: Selector):
    """The rows where every key of ``selector`` has its value, or one of its values (as text)."""
    for key, value in selector.items():
        if key not in rows:
            return rows.iloc[0:0]
        column = rows[key].astype(str)
        rows = rows[column.isin(value) if isinstance(value, tuple) else column == value]
    return rows


def _pinned(selector: Selector) -> set[str]:
    """The keys a selector fixes to one value."""
    return {k for k, v in selector.items() if not isinstance(v, tuple)}


class Evaluation:
    """Judges claims on one experiment's results: ``frame`` its rows, ``axes`` the values of each
    swept parameter in the order the experiment file lists them, ``traces_kind`` what its traces
    are (for the page), ``in_sample`` the traces a calibration was fitted on (as generated here),
    ``targets`` the claims whose own number a calibration was fitted to."""

    def __init__(self, frame, axes: dict[str, list[str]], traces_kind: str, in_sample=frozenset(), targets=frozenset()):
        self.frame, self.axes, self.traces_kind = frame, axes, traces_kind
        self.in_sample, self.targets = set(in_sample), set(targets)

    def row(self, paper: str, claim: Claim, left_out: bool = False) -> Row:
        """The claim's row; ``left_out``: "not run", as a quick run gives a claim that needs the
        full-size traces."""
        if claim.kind == "not-run":
            return self._row(paper, claim, NOT_RUN, "", claim.reason, first_seed=NOT_RUN)
        if left_out:
            return self._row(paper, claim, NOT_RUN, FULL_ONLY, "", first_seed=NOT_RUN)
        present = list(dict.fromkeys(self.frame["trace"])) if "trace" in self.frame else []
        missing = [t for t in claim.traces if t not in present]
        if missing:
            why = (
                f"the paper's trace set ({', '.join(claim.traces)}) is not all in this run: it lacks "
                f"{', '.join(missing)}"
            )
            return self._row(paper, claim, NOT_RUN, f"lacks {', '.join(missing)}", why, first_seed=NOT_RUN)
        traces = claim.traces or present
        if claim.metric not in self.frame:
            why = f"no column '{claim.metric}' in {claim.experiment}'s results"
            return self._row(paper, claim, NOT_RUN, why, why, first_seed=NOT_RUN)
        points = [p for trace in traces for p in self._points(claim, trace)]
        if not points:
            why = f"no cell of {claim.experiment} matches {', '.join(describe(s) for s in claim.selectors())}"
            return self._row(paper, claim, NOT_RUN, why, why, first_seed=NOT_RUN)
        unordered = [p for p in points if claim.kind == "order" and not p.parts]
        if unordered:
            # An order is over all its cells: one that did not run (a command run with --only, or
            # a run that lacks a trace's cell) leaves nothing to order, and no statistic over them.
            why = "; ".join(f"{p.trace}: {p.text}" for p in unordered)
            reason = f"not every cell it orders ran ({why})"
            return self._row(paper, claim, NOT_RUN, why, reason, first_seed=NOT_RUN, points=points)
        return self._combine(paper, claim, points)

    def not_run(self, paper: str, claim: Claim, why: str) -> Row:
        """``claim`` as this run cannot judge it, and ``why``."""
        return self._row(paper, claim, NOT_RUN, why, why, first_seed=NOT_RUN)

    def _row(self, paper: str, claim: Claim, outcome: str, text: str, reason: str, **more) -> Row:
        return Row(
            paper=paper,
            id=claim.id,
            where=claim.where,
            claim=claim.claim,
            trace=more.pop("trace", ""),
            paper_value=claim.paper_text(),
            ours=more.pop("ours", None),
            ours_text=text,
            ratio=more.pop("ratio", None),
            verdict=outcome,
            reason=reason,
            experiment=claim.experiment,
            metric=claim.metric,
            traces_kind=self.traces_kind if claim.kind != "not-run" else "",
            note=claim.note,
            per=claim.quantifier_text(),
            **more,
        )

    # The points of one trace.
    def _points(self, claim: Claim, trace: str) -> list[Point]:
        rows = self.frame[self.frame["trace"] == trace]
        if claim.kind == "value":
            return self._values(claim, trace, rows)
        if claim.kind == "ratio":
            return self._ratios(claim, trace, rows)
        if claim.kind == "order":
            return self._orders(claim, trace, rows)
        return self._trends(claim, trace, rows)

    def _free(self, frames: list, fixed: set[str]) -> list[str]:
        """The axes left free in every one of ``frames``: not fixed by a selector, given in each,
        and taking more than one value in one of them."""
        found = []
        for axis in self.axes:
            if axis in fixed or any(axis not in f or f[axis].isna().any() for f in frames):
                continue
            if any(f[axis].astype(str).nunique() > 1 for f in frames):
                found.append(axis)
        return found

    def _groups(self, frame, free: list[str]) -> list[tuple[dict[str, str], Any]]:
        """``frame``'s rows by the values of the ``free`` axes, in the experiment's axis order."""
        if not free:
            return [({}, frame)]
        keys = frame[free].astype(str)
        combos = list(dict.fromkeys(map(tuple, keys.itertuples(index=False))))
        combos.sort(key=lambda combo: [self._position(a, v) for a, v in zip(free, combo)])
        groups = []
        for combo in combos:
            mask = (keys == list(combo)).all(axis=1)
            groups.append((dict(zip(free, combo)), frame[mask]))
        return groups

    def _position(self, axis: str, value: str) -> int:
        values = self.axes.get(axis, [])
        return values.index(value) if value in values else len(values)

    def _saturates(self, claim: Claim, rows) -> bool:
        return (
            claim.metric in RESPONSE_COLUMNS
            and "saturated" in rows
            and bool(rows["saturated"].fillna(False).astype(bool).any())
        )

    def _by_seed(self, claim: Claim, rows) -> dict[Draw, tuple[float | None, bool]]:
        """Per draw: the mean of the metric over ``rows`` and whether one of them saturated."""
        found = {}
        scales = rows["scale"] if "scale" in rows else verdict.FULL
        for (scale, seed), group in rows.assign(scale=scales).groupby(["scale", "seed"], sort=True):
            values = group[claim.metric].dropna().astype(float)
            found[(str(scale), int(seed))] = (
                float(values.mean()) if len(values) else None,
                self._saturates(claim, group),
            )
        return found

    def _point(self, claim, trace, at, seeds, values, verdicts, rows, text=None) -> Point:
        outcome = verdict.over_seeds(verdicts) if verdicts else NOT_RUN
        return Point(
            trace,
            at,
            seeds,
            values,
            outcome,
            text if text is not None else _values_text(seeds, values),
            _cells(rows),
            trace in self.in_sample,
            verdicts[0] if verdicts else NOT_RUN,
        )

    def _values(self, claim: Claim, trace: str, rows) -> list[Point]:
        used = select(rows, claim.of)
        points = []
        for at, group in self._groups(used, self._free([used], _pinned(claim.of))):
            per_seed = self._by_seed(claim, group)
            seeds = sorted(per_seed)
            values = [Measured(v, BOTH_SATURATED if saturated else 0) for v, saturated in per_seed.values()]
            if not values:
                continue
            verdicts = [verdict.decide(claim, m) for m in values]
            points.append(self._point(claim, trace, at, seeds, values, verdicts, group))
        return points

    def _ratios(self, claim: Claim, trace: str, rows) -> list[Point]:
        """A point per value of each axis free on either side: an axis free on both sides
        pairs the cells of one value; one free on one side only divides each of its values by
        the other side's cells ("fix-0.6 and fix-0.8 each near fix-0.4")."""
        top, bottom = select(rows, claim.of), select(rows, claim.over)
        if top.empty or bottom.empty:
            return []
        fixed_of, fixed_over = _pinned(claim.of), _pinned(claim.over)
        shared = self._free([top, bottom], fixed_of | fixed_over)
        top_only = [a for a in self._free([top], fixed_of) if a not in shared]
        bottom_only = [a for a in self._free([bottom], fixed_over) if a not in shared]
        lowers = self._groups(bottom, shared + bottom_only)
        points = []
        for at_top, upper in self._groups(top, shared + top_only):
            for at_bottom, lower in lowers:
                if any(at_bottom[a] != at_top[a] for a in shared) or lower.empty:
                    continue
                at = {a: {**at_top, **at_bottom}[a] for a in self.axes if a in at_top or a in at_bottom}
                above, below = self._by_seed(claim, upper), self._by_seed(claim, lower)
                seeds = sorted(set(above) & set(below))
                values = [_ratio(above[s], below[s]) for s in seeds]
                if not values:
                    continue
                verdicts = [verdict.decide(claim, m) for m in values]
                points.append(self._point(claim, trace, at, seeds, values, verdicts, _concat(upper, lower)))
        return points

    def _orders(self, claim: Claim, trace: str, rows) -> list[Point]:
        chosen = [[select(rows, s) for s in tier] for tier in claim.order]
        flat = [r for tier in chosen for r in tier]
        lacking = [describe(s) for tier, found in zip(claim.order, chosen) for s, r in zip(tier, found) if r.empty]
        if lacking:
            text = f"no cell of {', '.join(lacking)}"
            return [
                self._point(claim, trace, {}, [(verdict.FULL, 0)], [Measured(None)], [NOT_RUN], _concat(*flat), text)
            ]
        fixed = set().union(*(_pinned(s) for tier in claim.order for s in tier))
        free = self._free(flat, fixed)
        points = []
        for at, _ in self._groups(flat[0], free):
            groups = [[_at(r, at) for r in tier] for tier in chosen]
            per_seed = [[self._by_seed(claim, g) for g in tier] for tier in groups]
            seeds = sorted(set.intersection(*(set(s) for tier in per_seed for s in tier)))
            verdicts = [_order_seed(claim, [[cell[seed] for cell in tier] for tier in per_seed]) for seed in seeds]
            texts = [
                " ~ ".join(
                    f"{describe(s)} {spread_text([cell[seed][0] for seed in seeds], seeds)}"
                    for s, cell in zip(claim.order[index], tier)
                )
                for index, tier in enumerate(per_seed)
            ]
            used = _concat(*(g for tier in groups for g in tier))
            point = self._point(
                claim, trace, at, seeds, [Measured(None)] * len(seeds), verdicts, used, " < ".join(texts)
            )
            point.parts = per_seed
            points.append(point)
        return points

    def _trends(self, claim: Claim, trace: str, rows) -> list[Point]:
        used = select(rows, claim.of)
        if claim.x not in used or used.empty:
            return []
        free = [a for a in self._free([used], _pinned(claim.of) | {claim.x})]
        axis = self.axes.get(claim.x) or sorted(set(used[claim.x].astype(str)))
        points = []
        for at, group in self._groups(used, free):
            along = [(x, self._by_seed(claim, group[group[claim.x].astype(str) == x])) for x in axis]
            along = [(x, s) for x, s in along if s]
            if len(along) < 2:
                continue
            seeds = sorted(set.intersection(*(set(s) for _, s in along)))
            verdicts = [_trend_seed(claim, [(x, s[seed]) for x, s in along]) for seed in seeds]
            text = ", ".join(f"{x}: {spread_text([s[seed][0] for seed in seeds], seeds)}" for x, s in along)
            points.append(self._point(claim, trace, at, seeds, [Measured(None)] * len(seeds), verdicts, group, text))
        return points

    def _combine(self, paper: str, claim: Claim, points: list[Point]) -> Row:
        held_out = [p for p in points if not p.in_sample]
        statistic = claim.per in AGGREGATES
        in_sample = claim.id in self.targets or not held_out or (statistic and len(held_out) < len(points))
        judged = points if statistic or not held_out else held_out
        cells = [c for p in points for c in p.cells]
        traces = ", ".join(dict.fromkeys(p.trace for p in points))
        seeds, numbers = [], []
        if statistic and claim.kind == "order":
            seeds = sorted(set.intersection(*(set(p.draws) for p in judged)))
            if not seeds:
                why = f"no seed ran on every trace of the {claim.per}"
                return self._row(paper, claim, NOT_RUN, why, why, first_seed=NOT_RUN)
            per_seed = [_order_statistic(claim, judged, seed) for seed in seeds]
            outcome, first = verdict.over_seeds(per_seed), per_seed[0]
            text = f"{claim.per} of {len(judged)}: " + _order_text(claim, judged, seeds)
        elif statistic:
            seeds = sorted(set().union(*(p.draws for p in judged)))
            values = [verdict.aggregate(claim.per, [p.value_at(s) for p in judged]) for s in seeds]
            per_seed = [verdict.decide(claim, m) for m in values]
            outcome, first = verdict.over_seeds(per_seed), per_seed[0]
            numbers = [m.value for m in values]
            text = _values_text(seeds, values)
            if len(judged) > 1:
                text += f" ({claim.per} of {len(judged)})"
        else:
            single = len(judged) == 1 and claim.kind in ("value", "ratio")
            if single:
                seeds, numbers = judged[0].draws, [m.value for m in judged[0].values]
            if claim.share is not None:
                by_trace = _by_trace(judged)
                outcome, want = verdict.share(*claim.share, [verdict.every([p.verdict for p in ps]) for ps in by_trace])
                first = verdict.share(*claim.share, [verdict.every([p.first for p in ps]) for ps in by_trace])[0]
                holding = sum(1 for ps in by_trace if verdict.every([p.verdict for p in ps]) == verdict.HOLDS)
                text = (
                    f"holds on {holding} of {len(by_trace)} traces (needs {want}: the paper's "
                    f"{claim.share[0]} of {claim.share[1]})"
                )
            else:
                outcome, first = verdict.every([p.verdict for p in judged]), verdict.every([p.first for p in judged])
                text = judged[0].text if single else f"holds on {_count(judged)} of {len(judged)}"
        # Our value: the mean of the draws, or the full-size draw's where scaled draws sit beside it.
        known = [(v, d) for v, d in zip(numbers, seeds) if v is not None and math.isfinite(v)]
        full = [v for v, (scale, _) in known if scale == verdict.FULL]
        chosen = full if full else [v for v, _ in known]
        ours = math.fsum(chosen) / len(chosen) if chosen else None
        target = claim.target()
        return self._row(
            paper,
            claim,
            outcome,
            text,
            "" if outcome == verdict.HOLDS else claim.reason,
            trace=traces,
            ours=ours,
            ratio=ours / target if ours is not None and target else None,
            cells=cells,
            seeds=[seed for _, seed in seeds],
            scales=[scale for scale, _ in seeds],
            values=numbers,
            miss=verdict.miss(ours, target if target is not None else _nearer(claim.range, ours)),
            in_sample=in_sample,
            points=points,
            first_seed=first,
        )


def _ratio(top: tuple[float | None, bool], bottom: tuple[float | None, bool]) -> Measured:
    (a, a_saturated), (b, b_saturated) = top, bottom
    if a_saturated and b_saturated:
        return Measured(None, BOTH_SATURATED)
    if a_saturated:
        return Measured(math.inf, OF_SATURATED)
    if b_saturated:
        return Measured(0.0, OVER_SATURATED)
    if a is None or b is None:
        return Measured(None)
    if b == 0:
        return Measured(1.0 if a == 0 else math.inf)
    return Measured(a / b)


def _order_seed(claim: Claim, tiers: list[list[tuple[float | None, bool]]]) -> str:
    """One seed of an order: a saturated response time is unbounded, above every other; two
    saturated cells in different tiers cannot be ordered."""
    saturated = [i for i, tier in enumerate(tiers) if any(s for _, s in tier)]
    if len(saturated) > 1:
        return verdict.NOT_COMPARABLE
    if any(v is None for tier in tiers for v, s in tier if not s):
        return NOT_RUN
    return verdict.order(claim, [[math.inf if s else v for v, s in tier] for tier in tiers])


def _trend_seed(claim: Claim, along: list[tuple[str, tuple[float | None, bool]]]) -> str:
    if sum(1 for _, (_, s) in along if s) > 1:
        return verdict.NOT_COMPARABLE
    if any(v is None for _, (v, s) in along if not s):
        return NOT_RUN
    return verdict.trend(claim, [(x, math.inf if s else v) for x, (v, s) in along])


def _values_text(draws: list[Draw], values: list[Measured]) -> str:
    """A point's value over its draws; with a saturated side, each draw's own."""
    if len(values) == 1 or any(m.saturated for m in values):
        return "; ".join(
            (f"{verdict.draw_name(d, draws)}: " if len(values) > 1 else "") + m.text() for d, m in zip(draws, values)
        )
    return spread_text([m.value for m in values], draws)


def _by_trace(points: list[Point]) -> list[list[Point]]:
    """The points of each trace, in order: "N of M" counts traces, each holding on every point."""
    found: dict[str, list[Point]] = {}
    for point in points:
        found.setdefault(point.trace, []).append(point)
    return list(found.values())


def _order_statistic(claim: Claim, points: list[Point], seed: int) -> str:
    """One seed of an order of statistics ("the average R_wa of PORE is below LRU-band's"): each
    cell's values over the points, their statistic, then the order."""
    tiers = []
    for index, tier in enumerate(claim.order):
        cells = []
        for position in range(len(tier)):
            found = [p.parts[index][position][seed] for p in points]
            measured = verdict.aggregate(
                claim.per, [verdict.Measured(None, OF_SATURATED) if s else verdict.Measured(v) for v, s in found]
            )
            cells.append((measured.value, bool(measured.saturated)))
        tiers.append(cells)
    return _order_seed(claim, tiers)


def _order_text(claim: Claim, points: list[Point], seeds: list[Draw]) -> str:
    parts = []
    for index, tier in enumerate(claim.order):
        texts = []
        for position, selector in enumerate(tier):
            values = [
                verdict.aggregate(claim.per, [verdict.Measured(p.parts[index][position][s][0]) for p in points]).value
                for s in seeds
            ]
            texts.append(f"{describe(selector)} {spread_text(values, seeds)}")
        parts.append(" ~ ".join(texts))
    return " < ".join(parts)


def _nearer(bounds: tuple[float, float] | None, value: float | None) -> float | None:
    if bounds is None or value is None:
        return None
    low, high = bounds
    return value if low <= value <= high else (low if value < low else high)


def _count(points: list[Point]) -> int:
    return sum(1 for p in points if p.verdict == verdict.HOLDS)


def _at(rows, at: dict[str, str]):
    for key, value in at.items():
        rows = rows[rows[key].astype(str) == value]
    return rows


def _cells(rows) -> list[str]:
    return [str(c) for c in rows["cell"]] if rows is not None and "cell" in rows else []


def _concat(*frames):
    import pandas as pd

    frames = [f for f in frames if f is not None]
    return pd.concat(frames) if frames else None


__all__ = ["Evaluation", "Point", "Row", "FULL_ONLY", "select", "fmt"]
