"""The rules that turn our numbers into a claim's verdict, as the paper words the claim. Each
works on plain numbers (one value per seed), so a test can hold a rule to the paper's words on
values made by hand; ``evaluation`` finds the numbers in an experiment's results.

The verdicts:

- **holds**: on every seed, ours passes the paper's rule: within the claim's factor of the
  paper's number (a band that never reaches across 1 when the paper's ratio lies on one side of
  it), inside its range, past its bound ("more than 5" is ours > 5, "an order of magnitude" is
  ours >= 10), the cells in the stated order, the metric moving the stated way;
- **tie**: the difference the claim rests on is inside the noise: our seeds fall on both sides
  of the threshold, or (on one fixed trace) ours is within the claim's floor of it (1 % unless
  it states another). A tie is never a hold;
- **direction only**: a ratio on the paper's side of 1 that misses its number or bound by less
  than ``DIRECTION_MISS`` (10) times; the page shows the miss. Beyond that it fails;
- **fails**: the wrong side of 1, a value outside its band, an order or trend that does not hold;
- **not comparable**: a response time that measures the trace's length rather than the system
  (a saturated run: its queue grew for the whole replay) where the paper's reading cannot be
  told: a single saturated value, both sides of a ratio saturated. When only the system the
  paper calls worse saturates, the claim holds; when only the better one does, it fails.
  Counts that queueing cannot change (segments, R_wa, GC cycles, bytes) are judged as usual;
- **not run**: the claim cannot be run here, was left out of a quick run, or the paper's trace
  set is not all in the run.

A claim's points (its traces, and each value of an axis its cells leave free) combine by its
quantifier: every point (the default), "N of M" (at least that share, rounded to a whole point),
or one statistic of their values (mean, median, geomean, max, min) judged per seed. Points on a
trace a calibration was fitted on are in-sample: shown, judged apart. Not here: reading claims
(``claims``), finding the numbers (``evaluation``), running experiments (``scorecard``).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

from smrlab.reproduce.claims import DIRECTION_MISS, Claim
from smrlab.tables import fmt as table_fmt

HOLDS, TIE, DIRECTION, FAILS = "holds", "tie", "direction only", "fails"
NOT_COMPARABLE, NOT_RUN = "not comparable", "not run"
VERDICTS = (HOLDS, TIE, DIRECTION, FAILS, NOT_COMPARABLE, NOT_RUN)
# What decides a claim that must hold everywhere, the most telling first: one point that fails
# refutes it whatever the others say.
EVERY_ORDER = (FAILS, NOT_RUN, NOT_COMPARABLE, TIE, DIRECTION, HOLDS)

# A ratio whose one side saturated: ``OF_SATURATED`` when the numerator did (its response time
# grew without bound), ``OVER_SATURATED`` when the denominator did, ``BOTH_SATURATED`` both.
OF_SATURATED, OVER_SATURATED, BOTH_SATURATED = 1, -1, 2

# One draw of a claim's traces: their scale and the seed they were drawn with. A --full run draws
# its first seed at ``FULL`` size (the page's values) and, unless told to run every seed at full
# size, its spread at the experiment's ``[quick]`` scale (``SCALED``); a quick run is all ``SCALED``.
# The full draw sorts first, so a claim's first draw is the one its value stands on.
FULL, SCALED = "full", "quick"
Draw = tuple[str, int]


@dataclass
class Measured:
    """One seed's value of a point, with which side of it (if any) saturated."""

    value: float | None
    saturated: int = 0

    def text(self) -> str:
        if self.saturated == BOTH_SATURATED:
            return "both saturated"
        if self.saturated == OF_SATURATED:
            return "inf (saturated)"
        if self.saturated == OVER_SATURATED:
            return "0 (denominator saturated)"
        return fmt(self.value)


def decide(claim: Claim, measured: Measured | float) -> str:
    """The verdict of a value or ratio claim on one seed's value."""
    if not isinstance(measured, Measured):
        measured = Measured(measured)
    if measured.saturated:
        return _saturated(claim, measured.saturated)
    value = measured.value
    if value is None or math.isnan(value):
        return NOT_RUN
    if claim.kind == "ratio" and value == 1.0:
        # Two runs that give the same number to the last bit are one run: the mechanism the
        # claim is about never acted, so it evidences nothing, whatever the claim says.
        return TIE
    side = claim.side()
    if side:
        if _close(value, 1.0, claim.floor):
            return TIE
        if (value > 1) != (side > 0):
            return FAILS
    if claim.paper_value is not None:
        low, high = claim.paper_value / claim.within, claim.paper_value * claim.within
        if side > 0:
            low = max(low, 1.0)
        elif side < 0:
            high = min(high, 1.0)
        return HOLDS if low <= value <= high else _missed(side, value, claim.paper_value)
    if claim.range is not None:
        low, high = claim.range
        if low <= value <= high:
            return HOLDS
        return _missed(side, value, low if value < low else high)
    op, bound = claim.bound
    if not (side and bound == 1.0) and _close(value, bound, claim.floor):
        return TIE
    passes = {"above": value > bound, "below": value < bound, "at_least": value >= bound, "at_most": value <= bound}
    return HOLDS if passes[op] else _missed(side, value, bound)


def miss(value: float | None, target: float | None) -> float | None:
    """How many times ours misses the paper's number (1 when equal), or None."""
    if value is None or target is None or not value > 0 or not target > 0 or math.isinf(value):
        return None
    return max(value / target, target / value)


def _missed(side: int, value: float, target: float) -> str:
    """A ratio on the paper's side of 1 that misses its number: direction only within 10x."""
    if side == 0:
        return FAILS
    off = miss(value, target)
    return DIRECTION if off is not None and off <= DIRECTION_MISS else FAILS


def _saturated(claim: Claim, saturated: int) -> str:
    """A response-time ratio with a saturated side: holds when the saturated system is the one
    the paper calls worse (slower: the numerator when its ratio is above 1), fails when it is
    the better one or the paper calls them about equal, not comparable when both saturated."""
    if saturated == BOTH_SATURATED:
        return NOT_COMPARABLE
    return HOLDS if claim.side() == saturated else FAILS


def _close(value: float, target: float, floor: float) -> bool:
    """Whether ``value`` is within the relative ``floor`` of ``target``."""
    scale = max(abs(value), abs(target))
    return scale == 0 or abs(value - target) <= floor * scale


def order(claim: Claim, tiers: list[list[float]]) -> str:
    """One seed of an order claim: each tier's values below the next tier's, by more than the
    floor (a gap inside it is a tie)."""
    verdicts = []
    for low, high in zip(tiers, tiers[1:]):
        top, bottom = max(low), min(high)
        if _close(bottom, top, claim.floor):
            verdicts.append(TIE)
        else:
            verdicts.append(HOLDS if bottom > top else FAILS)
    return every(verdicts)


def trend(claim: Claim, points: list[tuple[str, float]]) -> str:
    """One seed of a trend claim along its axis: increasing or decreasing (no step against the
    direction by more than the floor, the ends apart by more than it), or a valley or peak (its
    extreme inside the sweep, at ``claim.at`` when given, both ends off it by more than the floor)."""
    values = [v for _, v in points]
    floor = claim.floor
    if claim.direction in ("increasing", "decreasing"):
        sign = 1 if claim.direction == "increasing" else -1
        if any(sign * (b - a) < -floor * max(abs(a), abs(b)) for a, b in zip(values, values[1:])):
            return FAILS
        if _close(values[-1], values[0], floor):
            return TIE
        return HOLDS if sign * (values[-1] - values[0]) > 0 else FAILS
    sign = 1 if claim.direction == "valley" else -1
    extreme = min(range(len(values)), key=lambda i: sign * values[i])
    inner = values[1:-1]
    if not 0 < extreme < len(values) - 1:
        best = min(inner, key=lambda v: sign * v) if inner else None
        return TIE if best is not None and _close(best, values[extreme], floor) else FAILS
    if claim.at is not None and points[extreme][0] != claim.at:
        at = next((v for x, v in points if x == claim.at), None)
        return TIE if at is not None and _close(at, values[extreme], floor) else FAILS
    ends = [values[0], values[-1]]
    if any(_close(end, values[extreme], floor) for end in ends):
        return TIE
    return HOLDS


def over_seeds(verdicts: list[str]) -> str:
    """One point's verdict from its seeds': holds only when every seed holds; seeds that fall on
    both sides of the rule (or any within the floor) make a tie; a miss on some seeds and a hold
    on the others is direction only."""
    found = set(verdicts)
    if len(found) == 1:
        return verdicts[0]
    if NOT_RUN in found:
        return NOT_RUN
    if NOT_COMPARABLE in found:
        return NOT_COMPARABLE
    if found <= {HOLDS, DIRECTION}:
        return DIRECTION
    return TIE


def every(verdicts: list[str]) -> str:
    """A claim that must hold on every point: the most telling point's verdict (``EVERY_ORDER``)."""
    for verdict in EVERY_ORDER:
        if verdict in verdicts:
            return verdict
    return NOT_RUN


def share(needed: int, of: int, verdicts: list[str]) -> tuple[str, int]:
    """A claim that must hold on N of M points: the verdict, and how many of ours it needs (the
    paper's share of our points, rounded to a whole point, at least one)."""
    want = max(1, math.floor(needed / of * len(verdicts) + 0.5))
    holds = verdicts.count(HOLDS)
    if holds >= want:
        return HOLDS, want
    holds += verdicts.count(DIRECTION)
    if holds >= want:
        return DIRECTION, want
    undecided = [v for v in (TIE, NOT_COMPARABLE, NOT_RUN) if v in verdicts]
    if undecided and holds + sum(verdicts.count(v) for v in undecided) >= want:
        return undecided[0], want
    return FAILS, want


def aggregate(per: str, values: list[Measured]) -> Measured:
    """One seed's statistic over the points' values; a saturated side counts as an unbounded
    ratio (inf when the numerator saturated, 0 when the denominator did)."""
    if any(m.saturated == BOTH_SATURATED or m.value is None or math.isnan(m.value) for m in values):
        both = any(m.saturated == BOTH_SATURATED for m in values)
        return Measured(None, BOTH_SATURATED if both else 0)
    numbers = [
        math.inf if m.saturated == OF_SATURATED else 0.0 if m.saturated == OVER_SATURATED else m.value for m in values
    ]
    if per == "mean":
        result = math.fsum(numbers) / len(numbers) if not any(map(math.isinf, numbers)) else math.inf
    elif per == "median":
        result = statistics.median(numbers)
    elif per == "geomean":
        if any(v < 0 for v in numbers):
            return Measured(math.nan)
        result = (
            0.0 if 0.0 in numbers else math.inf if any(map(math.isinf, numbers)) else statistics.geometric_mean(numbers)
        )
    else:
        result = max(numbers) if per == "max" else min(numbers)
    sides = {m.saturated for m in values if m.saturated}
    if math.isinf(result):
        return Measured(None, OF_SATURATED)
    if result == 0.0 and OVER_SATURATED in sides:
        return Measured(None, OVER_SATURATED)
    return Measured(result)


def fmt(value: float | None) -> str:

    return table_fmt(value, 4)


def spread_text(values: list[float | None], draws: list[Draw] | None = None) -> str:
    """Our value over its draws as a table shows it: the mean, then the range of the seeds; when
    the full-size draw has scaled draws beside it, the full-size value, then the range of the
    scaled draws, labelled as such."""
    known = [(v, d) for v, d in zip(values, draws or [(FULL, 0)] * len(values)) if v is not None and math.isfinite(v)]
    if not known:
        return ""
    full = [v for v, (scale, _) in known if scale == FULL]
    scaled = [v for v, (scale, _) in known if scale != FULL]
    if full and scaled:
        mean = math.fsum(full) / len(full)
        draws_text = f"{len(scaled)} draw{'s' if len(scaled) > 1 else ''}"
        return f"{fmt(mean)} [{fmt(min(scaled))}-{fmt(max(scaled))} over {draws_text} at the quick scale]"
    numbers = [v for v, _ in known]
    mean = math.fsum(numbers) / len(numbers)
    if len(numbers) == 1:
        return fmt(mean)
    return f"{fmt(mean)} [{fmt(min(numbers))}-{fmt(max(numbers))}, {len(numbers)} seeds]"


def draw_name(draw: Draw, among: list[Draw]) -> str:
    """A draw as the page names it: "seed N", with its scale when ``among`` mixes scales."""
    scale, seed = draw
    mixed = len({s for s, _ in among}) > 1
    return f"seed {seed}" + (f" ({'full size' if scale == FULL else 'quick scale'})" if mixed else "")
