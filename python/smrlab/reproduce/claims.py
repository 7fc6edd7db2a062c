"""A paper's claims, read from its claims file (``experiments/claims/PAPER.toml``): what the
paper states, where, the experiment cells that give our value, and the rule that decides whether
the claim holds. Every mistake in a file is one ``UsageError`` naming the file, the claim and the
key, before anything runs.

A claims file::

    paper = "pore"                  # a key of smrlab.citations.PAPERS
    doc = "docs/reproduction.md"    # where the reasons for results that part from the paper are
    calibration = "CLAIM-ID"        # optional: the one claim whose number set a parameter

    [[claim]]
    id = "c1-time-cmr"              # unique in the file
    where = "§V-C1"                 # section, figure
    quote = "..."                   # the paper's sentence
    claim = "..."                   # short, ours
    experiment = "pore-fig11"       # experiments/NAME.toml
    metric = "total_io_s"
    kind = "ratio"                  # value | ratio | order | trend | not-run
    of = "cmr-only"                 # cells: a label, or {label = ..., trace = ..., GRID-KEY = ...}
    over = "pore-bl"                # ratio: the denominator's cells
    paper_value = 3.26              # or range = [lo, hi]; or (ratio) expect = "below 1" | "above 1"
    within = 2.0                    # holds within this factor of paper_value (default 2)
    per = "mean"                    # each | mean | median | geomean | max | min | all
    traces = ["wdev"]               # optional subset of the experiment's traces
    order = ["a", ["b", "c"], "d"]  # order: ascending; a list is a tier whose order is free
    x = "zone"                      # trend: along this grid parameter ...
    direction = "valley"            # ... increasing | decreasing | valley (lowest inside) | peak
    at = "20MB"                     # trend, valley/peak: where the extreme must be (optional)
    full_only = true                # --quick does not run it
    general = true                  # names no one trace: also judged on a user's traces (--general)
    reason = "..."                  # why it parts from the paper (required for not-run)
    note = "..."                    # anything a reader needs beside the verdict

    [general]                       # how a user's trace gets the paper's geometry (reproduce.general)
    scaled = ["band_min", "band_max", "zone"]
    by = "written_bytes"
    reference = 4.71e9

    [[open_choice]]
    param = "window"                # a parameter declared an open choice
    values = ["25%", "100%"]
    experiments = ["hwsr-fig13-14"]

Not here: evaluating a claim (``verdict``) or running experiments (``scorecard``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smrlab import tomltext
from smrlab.citations import PAPERS
from smrlab.errors import UsageError

CLAIMS_DIR = Path("experiments") / "claims"

KINDS = ("value", "ratio", "order", "trend", "not-run")
PER = ("each", "mean", "median", "geomean", "max", "min", "all")
DIRECTIONS = ("increasing", "decreasing", "valley", "peak")
EXPECT = ("below 1", "above 1")

TOP_KEYS = {"paper", "doc", "calibration", "claim", "open_choice", "general"}
CLAIM_KEYS = {
    "id",
    "where",
    "quote",
    "claim",
    "experiment",
    "metric",
    "kind",
    "of",
    "over",
    "paper_value",
    "range",
    "expect",
    "within",
    "per",
    "traces",
    "order",
    "x",
    "direction",
    "at",
    "full_only",
    "general",
    "reason",
    "note",
}
OPEN_CHOICE_KEYS = {"param", "values", "experiments"}
# What each kind needs, beyond id, where, quote, claim.
NEEDS = {
    "value": ("experiment", "metric", "of"),
    "ratio": ("experiment", "metric", "of", "over"),
    "order": ("experiment", "metric", "order"),
    "trend": ("experiment", "metric", "of", "x", "direction"),
    "not-run": ("reason",),
}

Selector = dict[str, str]


@dataclass
class Claim:
    id: str
    where: str
    quote: str
    claim: str
    kind: str
    experiment: str = ""
    metric: str = ""
    of: Selector = field(default_factory=dict)
    over: Selector = field(default_factory=dict)
    paper_value: float | None = None
    range: tuple[float, float] | None = None
    expect: str | None = None
    within: float = 2.0
    per: str = "mean"
    traces: list[str] = field(default_factory=list)
    order: list[list[Selector]] = field(default_factory=list)
    x: str = ""
    direction: str = ""
    at: str | None = None
    full_only: bool = False
    # Names no one trace (an order, a direction, a trend): judged on a user's traces too
    # (``smrlab reproduce --traces DIR --general``).
    general: bool = False
    reason: str = ""
    note: str = ""

    def labels(self) -> set[str]:
        """The labels of the cells the claim compares."""
        selectors = [self.of, self.over] + [s for tier in self.order for s in tier]
        return {s["label"] for s in selectors if "label" in s}

    def paper_text(self) -> str:
        """The paper's side of the claim, as a table shows it."""
        if self.paper_value is not None:
            return f"{self.paper_value:g}"
        if self.range is not None:
            return f"{self.range[0]:g}-{self.range[1]:g}"
        if self.expect:
            return self.expect
        if self.kind == "order":
            return " < ".join(" = ".join(describe(s) for s in tier) for tier in self.order)
        if self.kind == "trend":
            return self.direction + (f" (extreme at {self.at})" if self.at else "")
        return ""


@dataclass
class OpenChoice:
    param: str
    values: list[str]
    experiments: list[str]


@dataclass
class ClaimsFile:
    paper: str
    doc: str
    calibration: str | None
    claims: list[Claim]
    open_choices: list[OpenChoice]
    source: Path

    def experiments(self) -> list[str]:
        """Every experiment a claim names, in order of first mention."""
        return list(dict.fromkeys(c.experiment for c in self.claims if c.experiment))


def describe(selector: Selector) -> str:
    """A selector as text: its label, then any other keys."""
    rest = [f"{k}={v}" for k, v in selector.items() if k != "label"]
    return " ".join([selector.get("label", "")] + rest).strip()


def _fail(source: Path, where: str, message: str) -> UsageError:
    return UsageError(f"{source}: {where}: {message}")


def _text(value: Any) -> str:
    """A selector value as the results table holds it (``True`` is ``true``, ``20e6`` ``20000000``)."""
    from smrlab.experiment.spec import param_text

    return param_text(value)


def _selector(source: Path, where: str, value: Any) -> Selector:
    if isinstance(value, str):
        return {"label": value}
    if isinstance(value, dict) and value and all(isinstance(v, (str, int, float, bool)) for v in value.values()):
        return {str(k): _text(v) for k, v in value.items()}
    raise _fail(source, where, "must be a label or a table of COLUMN = VALUE (label, trace or a grid parameter)")


def _claim(source: Path, entry: Any, seen: set[str]) -> Claim:
    if not isinstance(entry, dict):
        raise _fail(source, "a [[claim]]", "must be a table")
    claim_id = entry.get("id")
    if not isinstance(claim_id, str) or not re.fullmatch(r"[a-z0-9][a-z0-9-]*", claim_id):
        raise _fail(source, "a [[claim]]", f"id {claim_id!r} must be lowercase letters, digits and '-'")
    if claim_id in seen:
        raise _fail(source, f"claim {claim_id}", "a second claim has this id")
    seen.add(claim_id)
    here = f"claim {claim_id}"
    unknown = sorted(set(entry) - CLAIM_KEYS)
    if unknown:
        raise _fail(source, here, f"unknown key '{unknown[0]}' (known: {', '.join(sorted(CLAIM_KEYS))})")
    kind = entry.get("kind")
    if kind not in KINDS:
        raise _fail(source, here, f"kind {kind!r} is none of {', '.join(KINDS)}")
    for key in ("where", "quote", "claim") + NEEDS[kind]:
        if key not in entry:
            raise _fail(source, here, f"a {kind} claim needs '{key}'")
    for key in ("where", "quote", "claim", "experiment", "metric", "x", "reason", "note"):
        if key in entry and not isinstance(entry[key], str):
            raise _fail(source, here, f"'{key}' must be text")
    claim = Claim(
        id=claim_id,
        where=entry["where"],
        quote=entry["quote"],
        claim=entry["claim"],
        kind=kind,
        experiment=entry.get("experiment", ""),
        metric=entry.get("metric", ""),
        x=entry.get("x", ""),
        reason=entry.get("reason", ""),
        note=entry.get("note", ""),
    )
    if "of" in entry:
        claim.of = _selector(source, f"{here}: of", entry["of"])
    if "over" in entry:
        if kind != "ratio":
            raise _fail(source, here, "'over' belongs to ratio claims")
        claim.over = _selector(source, f"{here}: over", entry["over"])
    _targets(source, here, entry, claim)
    per = entry.get("per", "mean")
    if per not in PER:
        raise _fail(source, here, f"per {per!r} is none of {', '.join(PER)}")
    claim.per = per
    traces = entry.get("traces", [])
    if not isinstance(traces, list) or not all(isinstance(t, str) for t in traces):
        raise _fail(source, here, "traces must be a list of trace names")
    claim.traces = traces
    if kind == "order":
        order = entry["order"]
        if not isinstance(order, list) or len(order) < 2:
            raise _fail(source, here, "order must list at least two cells (a list inside it is a tier)")
        claim.order = [
            [_selector(source, f"{here}: order", s) for s in (tier if isinstance(tier, list) else [tier])]
            for tier in order
        ]
    if kind == "trend":
        if entry["direction"] not in DIRECTIONS:
            raise _fail(source, here, f"direction {entry['direction']!r} is none of {', '.join(DIRECTIONS)}")
        claim.direction = entry["direction"]
        if "at" in entry:
            if claim.direction not in ("valley", "peak"):
                raise _fail(source, here, "'at' belongs to a valley or a peak")
            claim.at = _text(entry["at"])
    full_only = entry.get("full_only", False)
    if not isinstance(full_only, bool):
        raise _fail(source, here, "full_only must be true or false")
    claim.full_only = full_only
    general = entry.get("general", False)
    if not isinstance(general, bool):
        raise _fail(source, here, "general must be true or false")
    if general and (kind == "not-run" or claim.traces):
        raise _fail(source, here, "a general claim names no trace and runs (no 'traces', not 'not-run')")
    claim.general = general
    return claim


def _targets(source: Path, here: str, entry: dict, claim: Claim) -> None:
    """The paper's side of a value or ratio claim: a number, a range, or (ratio) an expectation."""
    given = [key for key in ("paper_value", "range", "expect") if key in entry]
    if claim.kind in ("value", "ratio"):
        if len(given) != 1 or (claim.kind == "value" and given == ["expect"]):
            choices = "paper_value or range" if claim.kind == "value" else "paper_value, range or expect"
            raise _fail(source, here, f"a {claim.kind} claim needs exactly one of {choices}")
    elif given:
        raise _fail(source, here, f"'{given[0]}' belongs to value and ratio claims")
    if "paper_value" in entry:
        value = entry["paper_value"]
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
            raise _fail(source, here, "paper_value must be a number above 0")
        claim.paper_value = float(value)
    if "range" in entry:
        bounds = entry["range"]
        if (
            not isinstance(bounds, list)
            or len(bounds) != 2
            or not all(isinstance(b, (int, float)) and not isinstance(b, bool) for b in bounds)
            or not 0 <= bounds[0] <= bounds[1]
        ):
            raise _fail(source, here, "range must be [low, high] with 0 <= low <= high")
        claim.range = (float(bounds[0]), float(bounds[1]))
    if "expect" in entry:
        if entry["expect"] not in EXPECT:
            raise _fail(source, here, f"expect {entry['expect']!r} is none of {', '.join(repr(e) for e in EXPECT)}")
        claim.expect = entry["expect"]
    within = entry.get("within", 2.0)
    if isinstance(within, bool) or not isinstance(within, (int, float)) or not within >= 1:
        raise _fail(source, here, "within must be a factor of at least 1")
    claim.within = float(within)


def _open_choice(source: Path, entry: Any) -> OpenChoice:
    if not isinstance(entry, dict):
        raise _fail(source, "an [[open_choice]]", "must be a table")
    unknown = sorted(set(entry) - OPEN_CHOICE_KEYS)
    if unknown:
        raise _fail(
            source, "an [[open_choice]]", f"unknown key '{unknown[0]}' (known: {', '.join(sorted(OPEN_CHOICE_KEYS))})"
        )
    param, values, experiments = entry.get("param"), entry.get("values"), entry.get("experiments")
    here = f"open_choice {param}"
    if not isinstance(param, str) or not param:
        raise _fail(source, "an [[open_choice]]", "needs 'param', a parameter name")
    if (
        not isinstance(values, list)
        or not 2 <= len(values) <= 4
        or not all(isinstance(v, (str, int, float, bool)) for v in values)
    ):
        raise _fail(source, here, "values must list two to four values")
    if not isinstance(experiments, list) or not experiments or not all(isinstance(e, str) for e in experiments):
        raise _fail(source, here, "experiments must be a non-empty list of experiment names")
    return OpenChoice(param, [_text(v) for v in values], experiments)


def load(path: str | Path) -> ClaimsFile:
    """The claims file at ``path``."""
    source = Path(path)
    try:
        text = source.read_text()
    except FileNotFoundError:
        raise UsageError(f"{source}: no such claims file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{source}: cannot read it ({error})") from None
    document = tomltext.loads(text, source)
    unknown = sorted(set(document) - TOP_KEYS)
    if unknown:
        raise _fail(source, "the file", f"unknown key '{unknown[0]}' (known: {', '.join(sorted(TOP_KEYS))})")
    paper = document.get("paper")
    if paper not in PAPERS:
        raise _fail(source, "paper", f"{paper!r} is none of {', '.join(PAPERS)}")
    doc = document.get("doc", "docs/reproduction.md")
    if not isinstance(doc, str):
        raise _fail(source, "doc", "must be a path")
    entries = document.get("claim", [])
    if not isinstance(entries, list) or not entries:
        raise _fail(source, "the file", "needs at least one [[claim]]")
    seen: set[str] = set()
    claims = [_claim(source, entry, seen) for entry in entries]
    calibration = document.get("calibration")
    if calibration is not None and calibration not in seen:
        raise _fail(source, "calibration", f"{calibration!r} is not the id of a claim in the file")
    choices = document.get("open_choice", [])
    if not isinstance(choices, list):
        raise _fail(source, "open_choice", "must be a list of tables ([[open_choice]])")
    return ClaimsFile(paper, doc, calibration, claims, [_open_choice(source, c) for c in choices], source)


def claims_path(paper: str, root: Path) -> Path:
    """Where ``paper``'s claims file is under the repository or folder ``root``."""
    return root / CLAIMS_DIR / f"{paper}.toml"
