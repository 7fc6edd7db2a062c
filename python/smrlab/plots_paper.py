"""The paper's numbers as points of a figure, and the caption that says where they come from.

The numbers are the experiment's claims (``smrlab.paper.claims_of``: its paper's claims file,
which quotes the paper) on the figure's measure that state a number, a range or a bound other than 1 (a bound of 1
only says which of two is larger): a value is
drawn as it is; a ratio "A over B" is drawn at A, where the paper puts A when the figure's
normalising label (or B, with a claim of that label over B) is where the paper has it, or else
on our own value of B (the paper's ratio applied to ours: the caption says so). A range is
drawn whole (both ends, carried alike), never as one point; a bound as a triangle pointing
to the side ours must be on. A statistic of several of the
paper's traces (a mean) goes in the figure's group of that statistic, or in its only group; a
claim about every trace goes on each trace's group. Where a figure has no point to carry a
number (a lines figure's statistic of the paper's traces, a claim about every x, a gauge's
mean over a run) it is drawn across the axis, a line or a band, with its label (``Mark.text``).
Not here: drawing (``smrlab.plots``), judging a claim (``smrlab.reproduce``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

# A figure's series named by a claim's selector (None where the figure has no such series),
# the x value a claim's selector and traces stand at (None where none), and our drawn value of
# a series at an x value (None where none).
KeyOf = Callable[[dict, list], "str | None"]
AtOf = Callable[[object, dict], "str | None"]
Ours = Callable[[str, "str | None"], "float | None"]
# The x values a claim about every one of them stands at (a bars figure's trace groups), or
# None where the figure draws such a claim across the axis instead.
EveryAt = Callable[[object], "list[str] | None"]
# The statistics of a gauge over a run that a claim's measure may name (``log_live_fraction_mean``
# on a figure of ``log_live_fraction`` over time).
GAUGE_STATISTICS = ("mean", "max", "min")


@dataclass(frozen=True)
class Mark:
    """One of the paper's numbers on the figure: series ``key`` at x value ``at``; with
    ``high``, the range from ``value`` to ``high``."""

    key: str
    at: str
    value: float
    claim: str
    # True where the number is the paper's ratio applied to our value of another series.
    on_ours: bool = False
    # The normalising series the paper's ratio over another one was carried to, through the
    # paper's own ratio of the two (PORE Fig. 11's ratios over PORE-BL, drawn relative to CMR-only).
    through: str = ""
    high: float | None = None
    # A bound: ours above it (1) or below it (-1); 0 for a number or a range.
    side: int = 0
    # Drawn across the axis (no point of the figure carries it), with this label beside it.
    across: bool = False
    text: str = ""


def numbers(claim) -> tuple[float, float | None] | None:
    """A claim's number (value, None), range (low, high) or bound (its number, None: "more than
    5", "at most 60 ms"); None for a claim of none, or whose bound is 1, a direction (which of
    two is larger), not a number."""
    if claim.paper_value is not None:
        return claim.paper_value, None
    if claim.range is not None:
        return claim.range
    if claim.bound is not None and claim.bound[1] != 1:
        return claim.bound[1], None
    return None


def side(claim) -> int:
    """Where a bound's claim puts ours: above it (1: above, at_least), below (-1), or 0 (no bound)."""
    if claim.bound is None or claim.paper_value is not None or claim.range is not None:
        return 0
    return 1 if claim.bound[0] in ("above", "at_least") else -1


def drawable(claim, y: str, kind: str = "") -> bool:
    """Whether ``claim`` gives a number or a range on a figure of measure ``y`` (of ``kind``):
    the figure's own measure, or a gauge's statistic over the run on a figure of the gauge."""
    if claim.kind not in ("value", "ratio") or numbers(claim) is None:
        return False
    if claim.metric == y:
        return True
    return kind == "series" and claim.kind == "value" and claim.metric in {f"{y}_{s}" for s in GAUGE_STATISTICS}


def _carried(values: tuple[float, float | None], by: Callable[[float], float]) -> tuple[float, float | None]:
    """A number or range with each end carried by ``by`` (a range kept low to high)."""
    low, high = values
    if high is None:
        return by(low), None
    ends = sorted((by(low), by(high)))
    return ends[0], ends[1]


def _text(claim, values: tuple[float, float | None], scale: float, y: str) -> str:
    """The label of a number drawn across the axis: what statistic it is, where, and the number."""
    low, high = values
    number = f"{low * scale:g}" if high is None else f"{low * scale:g}-{high * scale:g}"
    if side(claim):
        number = f"{claim.bound[0].replace('_', ' ')} {number}"
    if claim.metric != y:  # a gauge's statistic over a run (its mean, its peak)
        whose = f"{claim.metric[len(y) + 1 :]} over a run"
    else:
        whose = f"{claim.per} of its traces" if claim.per != "every" else "its traces"
    where = [f"{k} {v}" for k, v in claim.of.items() if k != "label" and isinstance(v, str)]
    share = [f"{claim.share[0]} of {claim.share[1]}"] if claim.share else []
    return f"paper ({', '.join([whose, *where, *share])}): {number}"


def marks(
    claims: list,
    y: str,
    scale: float,
    base: str | None,
    key_of: KeyOf,
    at_of: AtOf,
    ours: Ours,
    every_at: EveryAt = lambda claim: [],
    kind: str = "",
) -> list[Mark]:
    """The paper's numbers of ``claims`` on measure ``y`` as marks (times ``scale``, the unit
    the figure draws), in a figure normalised to series ``base`` (or not, None)."""
    # A claim over several B's at once ("like fix-0.4, 0.6 and 0.8") is one over each of them.
    numbered = [each for c in claims if drawable(c, y, kind) for each in _each_over(c)]
    # "base over B" ratios: where the paper puts B in a figure normalised to base.
    over_base = {}
    for claim in numbered:
        if claim.kind == "ratio" and base and claim.paper_value is not None and key_of(claim.of, claim.traces) == base:
            over_base[(key_of(claim.over, claim.traces), tuple(claim.traces), claim.per)] = claim.paper_value
    found = []
    for claim in numbered:
        values = numbers(claim)
        a, at = key_of(claim.of, claim.traces), at_of(claim, claim.of)
        if claim.metric != y or (at is None and (ats := every_at(claim)) is None):
            # No point carries it: across the axis (a value only; a ratio needs its other side).
            if claim.kind == "value" and not base:
                low, high = _carried(values, lambda v: v * scale)
                text = _text(claim, values, scale, y)
                found.append(Mark("", "", low, claim.id, high=high, side=side(claim), across=True, text=text))
            continue
        for where in [at] if at is not None else ats:
            found += _marks_at(claim, values, a, where, scale, base, key_of, at_of, ours, over_base)
    return found


def _each_over(claim) -> list:
    """``claim`` once for each combination of the values its ``over`` lists (itself when it
    lists none; a key its ``of`` lists too pairs them up, and is left to the figure's x)."""
    listed = {
        key: value
        for key, value in claim.over.items()
        if isinstance(value, (tuple, list)) and not isinstance(claim.of.get(key), (tuple, list))
    }
    if not listed:
        return [claim]
    combinations = [{}]
    for key, values in listed.items():
        combinations = [{**combination, key: value} for combination in combinations for value in values]
    return [dataclasses.replace(claim, over={**claim.over, **combination}) for combination in combinations]


def _marks_at(claim, values, a, at, scale, base, key_of, at_of, ours, over_base) -> list[Mark]:
    """The marks of one claim at x value ``at`` (none where the figure cannot place it)."""
    if a is None and claim.kind == "ratio":
        return []
    a, up = a or "", side(claim)
    if claim.kind == "value":
        if base:
            return []
        low, high = _carried(values, lambda v: v * scale)
        return [Mark(a, at, low, claim.id, high=high, side=up)]
    b, b_at = key_of(claim.over, claim.traces), at_of(claim, claim.over)
    if b is None:
        return []
    # B at the same x as A, or at none named (then ``ours`` finds B's one value, if it has one);
    # B at another x (PORE Fig. 15's hit rate at 50 MB over its own at 2 MB) only on our value of B.
    same_x = b_at in (at, None)
    if same_x and base and b == base:
        low, high = values
        return [Mark(a, at, low, claim.id, high=high, side=up)]
    if same_x and base and a == base:
        low, high = _carried(values, lambda v: 1 / v)
        return [Mark(b, at, low, claim.id, high=high, side=-up)]  # B over A: the bound turns over
    if same_x and (b, tuple(claim.traces), claim.per) in over_base:
        over = over_base[(b, tuple(claim.traces), claim.per)]
        low, high = _carried(values, lambda v: v / over)
        return [Mark(a, at, low, claim.id, through=base, high=high, side=up)]
    anchor = ours(b, b_at)
    if anchor is None and b_at is None:  # B at A's x (a claim about every trace, on each)
        anchor = ours(b, at)
    if anchor is not None and anchor == anchor:
        low, high = _carried(values, lambda v: v * anchor)
        return [Mark(a, at, low, claim.id, on_ours=True, high=high, side=up)]
    return []


def caption(drawn: list[Mark], claims: list, source: str) -> str:
    """What the figure's hollow diamonds, triangles, capped bars and lines across are: the claims they come
    from (by id, in ``source``, the claims file), the statistic of the paper's traces they are,
    the share of its traces a range holds on, and which are the paper's ratios drawn on our values."""
    if not drawn:
        return ""
    by_id = {claim.id: claim for claim in claims}
    ids = list(dict.fromkeys(mark.claim for mark in drawn))
    shapes = [
        shape
        for shape, shown in (
            ("hollow diamonds", any(m.high is None and not m.side and not m.across for m in drawn)),
            (
                "hollow triangles (a bound: ours above one pointing up, below one pointing down)",
                any(m.side and not m.across for m in drawn),
            ),
            ("black capped bars (a range)", any(m.high is not None and not m.across for m in drawn)),
            ("labelled dashed lines across the axis", any(m.across and m.high is None for m in drawn)),
            ("labelled grey bands across the axis (a range)", any(m.across and m.high is not None for m in drawn)),
        )
        if shown
    ]
    shown = ", ".join(shapes)
    text = f"{shown[:1].upper()}{shown[1:]}: the paper's numbers, from its claims in {source} ({', '.join(ids)})"
    statistics = sorted(
        {
            f"{by_id[i].per} of its traces" + (f" {', '.join(by_id[i].traces)}" if by_id[i].traces else "")
            for i in ids
            if by_id[i].per != "every"
        }
    )
    if statistics:
        text += "; " + "; ".join(statistics)
    shares = [f"{i} on {by_id[i].share[0]} of {by_id[i].share[1]}" for i in ids if by_id[i].share]
    if shares:
        text += f"; the paper's number holds on a share of its traces only ({', '.join(shares)})"
    carried = list(dict.fromkeys(mark.claim for mark in drawn if mark.through))
    if carried:
        text += (
            f"; the paper's ratios over another system ({', '.join(carried)}) are drawn relative to "
            f"{next(m.through for m in drawn if m.through)} through the paper's own ratio of the two"
        )
    anchored = list(dict.fromkeys(mark.claim for mark in drawn if mark.on_ours))
    if anchored:
        which = "" if anchored == ids else f" ({', '.join(anchored)})"
        text += f"; the paper's ratios to another system{which} are drawn on our value of that system"
    return text + "."
