"""The paper's numbers as points of a figure, and the caption that says where they come from.

The numbers are the experiment's claims (``smrlab.paper.claims_of``: its paper's claims file,
which quotes the paper) on the figure's measure that state a number: a value is drawn as it
is; a ratio "A over B" is drawn at A, where the paper puts A when the figure's normalising
label (or B, with a claim of that label over B) is where the paper has it, or else on our own
value of B (the paper's ratio applied to ours: the caption says so). A statistic of several of
the paper's traces (a mean) goes in the figure's group of that statistic, or in its only
group. Not here: drawing (``smrlab.plots``), judging a claim (``smrlab.reproduce``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

# A figure's series named by a claim's selector (None where the figure has no such series),
# the x value a claim's selector and traces stand at (None where none), and our drawn value of
# a series at an x value (None where none).
KeyOf = Callable[[dict, list], "str | None"]
AtOf = Callable[[object, dict], "str | None"]
Ours = Callable[[str, "str | None"], "float | None"]


@dataclass(frozen=True)
class Mark:
    """One of the paper's numbers on the figure: series ``key`` at x value ``at``."""

    key: str
    at: str
    value: float
    claim: str
    # True where the number is the paper's ratio applied to our value of another series.
    on_ours: bool = False
    # The normalising series the paper's ratio over another one was carried to, through the
    # paper's own ratio of the two (PORE Fig. 11's ratios over PORE-BL, drawn relative to CMR-only).
    through: str = ""


def marks(claims: list, y: str, scale: float, base: str | None, key_of: KeyOf, at_of: AtOf, ours: Ours) -> list[Mark]:
    """The paper's numbers of ``claims`` on measure ``y`` as marks (times ``scale``, the unit
    the figure draws), in a figure normalised to series ``base`` (or not, None)."""
    numbered = [c for c in claims if c.metric == y and c.paper_value is not None and c.kind in ("value", "ratio")]
    # "base over B" ratios: where the paper puts B in a figure normalised to base.
    over_base = {}
    for claim in numbered:
        if claim.kind == "ratio" and base and key_of(claim.of, claim.traces) == base:
            over_base[(key_of(claim.over, claim.traces), tuple(claim.traces), claim.per)] = claim.paper_value
    found = []
    for claim in numbered:
        a, at = key_of(claim.of, claim.traces), at_of(claim, claim.of)
        if a is None or at is None:
            continue
        if claim.kind == "value":
            if not base:
                found.append(Mark(a, at, claim.paper_value * scale, claim.id))
            continue
        b, b_at = key_of(claim.over, claim.traces), at_of(claim, claim.over)
        # B at the same x as A, or at none named (then ``ours`` finds B's one value, if it has one).
        if b is None or b_at not in (at, None):
            continue
        if base and b == base:
            found.append(Mark(a, at, claim.paper_value, claim.id))
        elif base and a == base:
            found.append(Mark(b, at, 1 / claim.paper_value, claim.id))
        elif (b, tuple(claim.traces), claim.per) in over_base:
            ratio = claim.paper_value / over_base[(b, tuple(claim.traces), claim.per)]
            found.append(Mark(a, at, ratio, claim.id, through=base))
        elif (anchor := ours(b, b_at)) is not None and anchor == anchor:
            found.append(Mark(a, at, claim.paper_value * anchor, claim.id, on_ours=True))
    return found


def caption(drawn: list[Mark], claims: list, source: str) -> str:
    """What the figure's hollow diamonds are: the claims they come from (by id, in ``source``,
    the claims file), the statistic of the paper's traces they are, and which are the paper's
    ratios drawn on our values."""
    if not drawn:
        return ""
    by_id = {claim.id: claim for claim in claims}
    ids = list(dict.fromkeys(mark.claim for mark in drawn))
    text = f"Hollow diamonds: the paper's numbers, from its claims in {source} ({', '.join(ids)})"
    statistics = sorted(
        {
            f"{by_id[i].per} of its traces" + (f" {', '.join(by_id[i].traces)}" if by_id[i].traces else "")
            for i in ids
            if by_id[i].per != "every"
        }
    )
    if statistics:
        text += "; " + "; ".join(statistics)
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
