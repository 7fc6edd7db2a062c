"""A paper's claims, read from its claims file (``experiments/claims/PAPER.toml``): what the
paper states, where, the experiment cells that give our value, and the rule that decides whether
the claim holds, encoded as the paper words it. Every mistake in a file is one ``UsageError``
naming the file, the line and the key, before anything runs: its keys and types against
``claims_schema`` (published as docs/claims.schema.json), its rules here, and (``check``) the
experiments, labels, grid values and traces it names against the experiment files.

A claims file::

    paper = "pore"                  # a key of smrlab.citations.PAPERS: the file's own name
    doc = "docs/pore.md"            # where the reasons for results that part from the paper are

    [[calibration]]                 # every parameter chosen with a result in view
    what = "the recipes' cold window (0.1) and sparse fraction (0.02)"
    params = ["cold_window", "sparse_fraction"]
    fitted_on = ["wdev"]            # points on these (generated) traces are in-sample
    claims = ["fig13c-rwa-smr-only"]    # claims whose own number was the target: in-sample
    reason = "a grid on wdev ... (data/README.md#...)"

    [[claim]]
    id = "c1-time-cmr"              # unique in the file
    where = "§V-C1"                 # section, figure
    quote = "..."                   # the paper's sentence
    claim = "..."                   # short, ours
    experiment = "pore-fig11"       # experiments/NAME.toml
    metric = "total_io_s"
    kind = "ratio"                  # value | ratio | order | trend | not-run
    of = "cmr-only"                 # cells: a label, or {label = ..., trace = ..., GRID-KEY = v or [v, ...]}
    over = "pore-bl"                # ratio: the denominator's cells
    paper_value = 3.26              # "about 3.26": within 'within' (default 2), never across 1
    #   or range = [lo, hi]         # "from lo to hi": every point inside
    #   or above = 5 / below = 0.5  # "more than 5" / "less than half": ours > 5 / ours < 0.5
    #   or at_least = 10 / at_most = 0.1   # "an order of magnitude": >= 10
    #   or expect = "below 1"       # the same as below = 1
    per = "mean"                    # every (each, all: the default) | mean | median | geomean | max | min
    share = [11, 15]                # "11 of 15": at least that share of the points
    traces = ["wdev", "mds"]        # the paper's trace set: all must run, or the claim is not run
    floor = 0.01                    # a relative difference below it is a tie (on a fixed trace)
    order = ["a", ["b", "c"], "d"]  # order: ascending; a list is a tier whose order is free
    x = "zone"                      # trend: along this grid parameter ...
    direction = "valley"            # ... increasing | decreasing | valley (lowest inside) | peak
    at = "20MB"                     # trend, valley/peak: where the extreme must be (optional)
    full_only = true                # --quick does not judge it
    general = true                  # names no one trace: also judged on a user's traces (--general)
    reason = "..."                  # the measured cause, with its doc anchor (required for not-run)
    note = "..."                    # anything a reader needs beside the verdict

    [general]                       # how a user's trace gets the paper's geometry (reproduce.general)
    scaled = ["band_min", "band_max", "zone"]
    by = "written_bytes"
    reference = 4.71e9

    [[open_choice]]
    param = "window"                # a parameter declared an open choice
    values = ["25%", "100%"]
    experiments = ["hwsr-fig13-14"]

A claim's points are its traces, and each value of every grid axis its cells leave free ("at
every bucket size" is judged at each bucket size, not on their mean). Not here: judging a claim
(``verdict``) or running experiments (``scorecard``).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smrlab import tomltext
from smrlab.citations import PAPERS
from smrlab.errors import UsageError
from smrlab.experiment.schema import nearest
from smrlab.experiment.spec import param_text
from smrlab.options import printable
from smrlab.reproduce import claims_schema
from smrlab.reproduce.claims_schema import TARGETS

CLAIMS_DIR = Path("experiments") / "claims"
# A claims file larger than this is not one (a file of claims is tens of kilobytes).
MAX_BYTES = 4 << 20
# The noise floor of a claim that states none: a relative difference below 1 % is a tie.
DEFAULT_FLOOR = 0.01
DEFAULT_WITHIN = 2.0
# "Direction only" needs our value within this factor of the paper's; beyond, the claim fails.
DIRECTION_MISS = 10.0
# Bounds by key: the comparison our value must pass.
BOUNDS = {"above": ">", "below": "<", "at_least": ">=", "at_most": "<="}
# What each kind needs, beyond id, where, quote, claim.
NEEDS = {
    "value": ("experiment", "metric", "of"),
    "ratio": ("experiment", "metric", "of", "over"),
    "order": ("experiment", "metric", "order"),
    "trend": ("experiment", "metric", "of", "x", "direction"),
    "not-run": ("reason",),
}

# A selector's value: one value as the results table holds it, or a subset of an axis.
Selector = dict[str, "str | tuple[str, ...]"]


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
    within: float = DEFAULT_WITHIN
    range: tuple[float, float] | None = None
    # ("above" | "below" | "at_least" | "at_most", X)
    bound: tuple[str, float] | None = None
    per: str = "every"
    share: tuple[int, int] | None = None
    traces: list[str] = field(default_factory=list)
    floor: float = DEFAULT_FLOOR
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
    # Where the claim starts in its file (1-based; 0 for one made in code).
    line: int = 0

    def selectors(self) -> list[Selector]:
        return [s for s in [self.of, self.over] + [s for tier in self.order for s in tier] if s]

    def labels(self) -> set[str]:
        """The labels of the cells the claim compares."""
        found: set[str] = set()
        for selector in self.selectors():
            value = selector.get("label")
            found |= set(value) if isinstance(value, tuple) else ({value} if value else set())
        return found

    def compares(self) -> bool:
        """Whether the claim compares cells with each other (a ratio, an order or a trend), the
        claims whose differences the noise floor judges."""
        return self.kind in ("ratio", "order", "trend")

    def one_sided(self) -> bool:
        """Whether the paper puts a ratio on one side of 1 (then the wrong side fails and a
        difference inside the noise is a tie): every ratio but one the paper calls about 1."""
        if self.kind != "ratio":
            return False
        if self.paper_value is not None:
            return self.paper_value != 1
        if self.range is not None:
            return self.range[0] >= 1 or self.range[1] <= 1
        return self.bound is not None and (
            (self.bound[0] in ("above", "at_least") and self.bound[1] >= 1)
            or (self.bound[0] in ("below", "at_most") and self.bound[1] <= 1)
        )

    def side(self) -> int:
        """+1 when the paper's ratio is above 1, -1 below, 0 when it states none (a value, or
        about 1)."""
        if not self.one_sided():
            return 0
        if self.paper_value is not None:
            return 1 if self.paper_value > 1 else -1
        if self.range is not None:
            return 1 if self.range[0] >= 1 else -1
        return 1 if self.bound[0] in ("above", "at_least") else -1

    def target(self) -> float | None:
        """The number the paper's side is measured from (a range's nearer end is chosen by
        ``verdict``)."""
        if self.paper_value is not None:
            return self.paper_value
        if self.bound is not None:
            return self.bound[1]
        return None

    def paper_text(self) -> str:
        """The paper's side of the claim, as a table shows it."""
        if self.paper_value is not None:
            return f"{self.paper_value:g} (x{self.within:g})"
        if self.range is not None:
            return f"{self.range[0]:g}-{self.range[1]:g}"
        if self.bound is not None:
            return f"{BOUNDS[self.bound[0]]} {self.bound[1]:g}"
        if self.kind == "order":
            return " < ".join(" = ".join(describe(s) for s in tier) for tier in self.order)
        if self.kind == "trend":
            return self.direction + (f" (extreme at {self.at})" if self.at else "")
        return ""

    def quantifier_text(self) -> str:
        """How the claim's points combine, in words."""
        if self.share is not None:
            return f"{self.share[0]} of {self.share[1]}"
        return self.per


@dataclass
class OpenChoice:
    param: str
    values: list[str]
    experiments: list[str]
    line: int = 0


@dataclass
class Calibration:
    """A parameter (or several) chosen with a result in view: points on ``fitted_on`` traces of
    ``experiments`` (every experiment of the paper when empty) and the ``claims`` whose own
    number was the target are in-sample."""

    what: str
    params: list[str]
    reason: str
    fitted_on: list[str] = field(default_factory=list)
    experiments: list[str] = field(default_factory=list)
    claims: list[str] = field(default_factory=list)
    numbers: int = 0
    line: int = 0

    def fitted(self) -> int:
        """How many numbers were fitted."""
        return self.numbers or len(self.params)

    def covers(self, experiment: str) -> bool:
        return not self.experiments or experiment in self.experiments


@dataclass
class ClaimsFile:
    paper: str
    doc: str
    claims: list[Claim]
    open_choices: list[OpenChoice]
    source: Path
    calibrations: list[Calibration] = field(default_factory=list)

    def experiments(self) -> list[str]:
        """Every experiment a claim names, in order of first mention."""
        return list(dict.fromkeys(c.experiment for c in self.claims if c.experiment))

    def fitted_numbers(self) -> int:
        """How many numbers of this paper's models or recipes were chosen with a result in view."""
        return sum(c.fitted() for c in self.calibrations)

    def targets(self) -> set[str]:
        """The claims whose own number a calibration was fitted to."""
        return {claim for c in self.calibrations for claim in c.claims}

    def in_sample_traces(self, experiment: str) -> set[str]:
        """The traces of ``experiment`` on which a calibration was fitted (as generated)."""
        return {t for c in self.calibrations if c.covers(experiment) for t in c.fitted_on}


def describe(selector: Selector) -> str:
    """A selector as text: its label, then any other keys."""

    def text(value) -> str:
        return "|".join(value) if isinstance(value, tuple) else value

    rest = [f"{k}={text(v)}" for k, v in selector.items() if k != "label"]
    return " ".join([text(selector.get("label", ""))] + rest).strip()


def _value_text(value: Any) -> str:
    """A selector value as the results table holds it (``True`` is ``true``, ``20e6`` ``20000000``)."""
    return param_text(value)


class _Lines:
    """Where each claim, and each key of it, is in the file's text (for messages)."""

    HEADER = re.compile(r"^\s*\[\[\s*(claim|open_choice|calibration)\s*\]\]")

    def __init__(self, text: str):
        self.lines = text.splitlines()
        self.starts: dict[str, list[int]] = {}
        for number, line in enumerate(self.lines, 1):
            found = self.HEADER.match(line)
            if found:
                self.starts.setdefault(found.group(1), []).append(number)

    def of(self, table: str, index: int, key: str | None = None) -> int:
        """The line of entry ``index`` of ``[[table]]`` (or of its ``key``); 0 when unknown."""
        starts = self.starts.get(table, [])
        if index >= len(starts):
            return 0
        start = starts[index]
        if key is None:
            return start
        following = [s for entries in self.starts.values() for s in entries if s > start]
        end = min(following, default=len(self.lines) + 1)
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
        return next((n for n in range(start, end) if pattern.match(self.lines[n - 1])), start)

    def of_top(self, key: str) -> int:
        pattern = re.compile(rf"^\s*{re.escape(key)}\s*=")
        first = min((s for entries in self.starts.values() for s in entries), default=len(self.lines) + 1)
        return next((n for n in range(1, first) if pattern.match(self.lines[n - 1])), 0)


class _Reader:
    """Reads one claims file, every error naming the file and line."""

    def __init__(self, source: Path, text: str):
        self.source, self.lines = source, _Lines(text)

    def fail(self, line: int, where: str, message: str) -> UsageError:
        at = f"{self.source}:{line}" if line else str(self.source)
        return UsageError(f"{at}: {printable(where, 120)}: {message}")

    def claim(self, index: int, entry: dict, seen: set[str]) -> Claim:
        claim_id = entry["id"]
        here = f"claim {claim_id}"

        def fail(key: str | None, message: str) -> UsageError:
            return self.fail(self.lines.of("claim", index, key), here, message)

        if claim_id in seen:
            raise fail("id", "a second claim has this id")
        seen.add(claim_id)
        kind = entry["kind"]
        for key in NEEDS[kind]:
            if key not in entry:
                raise fail(None, f"a {kind} claim needs '{key}'")
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
            full_only=entry.get("full_only", False),
            general=entry.get("general", False),
            line=self.lines.of("claim", index),
        )
        for key in ("of", "over"):
            if key in entry:
                claim.__dict__[key] = self.selector(entry[key], lambda m, key=key: fail(key, m))
        if "over" in entry and kind != "ratio":
            raise fail("over", "'over' belongs to ratio claims")
        self.targets(claim, entry, fail)
        self.quantifier(claim, entry, fail)
        if claim.general and (kind == "not-run" or len(claim.traces) == 1):
            raise fail("general", "a general claim runs and names no one trace (not 'not-run', not one trace)")
        if kind == "order":
            claim.order = [
                [self.selector(s, lambda m: fail("order", m)) for s in (tier if isinstance(tier, list) else [tier])]
                for tier in entry["order"]
            ]
        elif "order" in entry:
            raise fail("order", "'order' belongs to order claims")
        if kind == "trend":
            claim.direction = entry["direction"]
            if "at" in entry:
                if claim.direction not in ("valley", "peak"):
                    raise fail("at", "'at' belongs to a valley or a peak")
                claim.at = _value_text(entry["at"])
        else:
            for key in ("x", "direction", "at"):
                if key in entry:
                    raise fail(key, f"'{key}' belongs to trend claims")
        return claim

    def selector(self, value: Any, fail) -> Selector:
        if isinstance(value, str):
            return {"label": value}
        found: Selector = {}
        for key, item in value.items():
            if isinstance(item, list):
                if len(set(map(_value_text, item))) != len(item):
                    raise fail(f"'{key}' lists a value twice")
                found[str(key)] = tuple(_value_text(v) for v in item)
            else:
                found[str(key)] = _value_text(item)
        return found

    def targets(self, claim: Claim, entry: dict, fail) -> None:
        """The paper's side of a value or ratio claim: exactly one of ``TARGETS``."""
        given = [key for key in TARGETS if key in entry]
        if claim.kind in ("value", "ratio"):
            if len(given) != 1:
                raise fail(
                    given[1] if len(given) > 1 else None,
                    f"a {claim.kind} claim needs exactly one of {', '.join(TARGETS)}"
                    + (f" (it has {', '.join(given)})" if given else ""),
                )
        elif given:
            raise fail(given[0], f"'{given[0]}' belongs to value and ratio claims")
        if "within" in entry and "paper_value" not in entry:
            raise fail("within", "'within' is a tolerance around paper_value, and the claim has none")
        for key in given:
            value = entry[key]
            numbers = value if isinstance(value, list) else [value]
            if any(isinstance(v, (int, float)) and not math.isfinite(v) for v in numbers):
                raise fail(key, f"{key} must be a finite number")
        if "within" in entry and not math.isfinite(entry["within"]):
            raise fail("within", "within must be a finite factor above 1")
        claim.within = float(entry.get("within", DEFAULT_WITHIN))
        if "paper_value" in entry:
            claim.paper_value = float(entry["paper_value"])
        if "range" in entry:
            low, high = entry["range"]
            if not 0 <= low <= high:
                raise fail("range", "range must be [low, high] with 0 <= low <= high")
            claim.range = (float(low), float(high))
        for key in BOUNDS:
            if key in entry:
                if claim.kind == "ratio" and not entry[key] > 0:
                    raise fail(key, f"a ratio's bound must be above 0 (got {entry[key]})")
                claim.bound = (key, float(entry[key]))
        if "expect" in entry:
            claim.bound = ("above" if entry["expect"] == "above 1" else "below", 1.0)
            if claim.kind != "ratio":
                raise fail("expect", "'expect' belongs to ratio claims")

    def quantifier(self, claim: Claim, entry: dict, fail) -> None:
        per = entry.get("per", "every")
        claim.per = "every" if per in ("each", "all") else per
        if "share" in entry:
            needed, of = entry["share"]
            if needed > of:
                raise fail("share", f"share [{needed}, {of}]: N of M needs N <= M")
            if "per" in entry and claim.per != "every":
                raise fail("share", f"'share' counts the points that hold; it cannot go with per = '{per}'")
            claim.share = (needed, of)
        if claim.kind == "trend" and claim.per != "every":
            raise fail("per", "a trend holds or not on each point: per must be every (or share)")
        traces = entry.get("traces", [])
        if len(set(traces)) != len(traces):
            raise fail("traces", "names a trace twice")
        claim.traces = list(traces)
        claim.floor = float(entry.get("floor", DEFAULT_FLOOR))

    def open_choice(self, index: int, entry: dict) -> OpenChoice:
        return OpenChoice(
            entry["param"],
            [_value_text(v) for v in entry["values"]],
            list(entry["experiments"]),
            self.lines.of("open_choice", index),
        )

    def calibration(self, index: int, entry: dict) -> Calibration:
        return Calibration(
            what=entry["what"],
            params=list(entry["params"]),
            reason=entry["reason"],
            fitted_on=list(entry.get("fitted_on", [])),
            experiments=list(entry.get("experiments", [])),
            claims=list(entry.get("claims", [])),
            numbers=int(entry.get("numbers", 0)),
            line=self.lines.of("calibration", index),
        )

    def types(self, document: dict) -> None:
        """Refuses the first value that is not what its key declares (``claims_schema``)."""
        import jsonschema

        validator = jsonschema.Draft202012Validator(claims_schema.json_schema())
        errors = sorted(validator.iter_errors(document), key=lambda e: [str(p) for p in e.absolute_path])
        if not errors:
            return
        error = errors[0]
        path = list(error.absolute_path)
        table, index = (path[0], path[1]) if len(path) >= 2 and isinstance(path[1], int) else (None, None)
        key = str(path[2]) if len(path) >= 3 else None
        if error.validator == "additionalProperties":
            known = error.schema.get("properties", {})
            unknown = sorted(set(error.instance) - set(known))
            key = unknown[0] if unknown else key
            message = f"unknown key '{key}'{nearest(key, known)} (known: {', '.join(sorted(known))})"
        else:
            message = printable(error.message, 200)
        if table is None:
            line = self.lines.of_top(key or str(path[0]) if path else "")
            raise self.fail(line, "the file" if not path else str(path[0]), message)
        name = document[table][index].get("id") if table == "claim" else None
        where = f"claim {name}" if isinstance(name, str) else f"[[{table}]] number {index + 1}"
        spot = ".".join(map(str, path[3:]))
        raise self.fail(
            self.lines.of(table, index, key), where, f"{key}{'.' + spot if spot else ''}: {message}" if key else message
        )


def load(path: str | Path, paper: str | None = None) -> ClaimsFile:
    """The claims file at ``path`` (which must be ``paper``'s, when given), its keys, types and
    rules checked."""
    source = Path(path)
    try:
        if source.stat().st_size > MAX_BYTES:
            raise UsageError(f"{source}: {source.stat().st_size:,} bytes is not a claims file (at most {MAX_BYTES:,})")
        text = source.read_text()
    except FileNotFoundError:
        raise UsageError(f"{source}: no such claims file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{source}: cannot read it ({error})") from None
    return parse(text, source, paper)


def parse(text: str, source: Path, paper: str | None = None) -> ClaimsFile:
    """The claims file in ``text`` (read from ``source``)."""
    document = tomltext.loads(text, source)
    reader = _Reader(source, text)
    if document.get("paper") not in PAPERS:
        raise reader.fail(
            reader.lines.of_top("paper"),
            "paper",
            f"{printable(repr(document.get('paper')), 60)} is none of {', '.join(PAPERS)}",
        )
    if paper is not None and document["paper"] != paper:
        raise reader.fail(
            reader.lines.of_top("paper"),
            "paper",
            f"'{document['paper']}' in {paper}'s claims file (a claims file is named after its paper: {document['paper']}.toml)",
        )
    try:
        reader.types(document)
    except RecursionError:
        raise UsageError(f"{source}: not a claims file (values nested too deep to check)") from None
    seen: set[str] = set()
    claims = [reader.claim(i, entry, seen) for i, entry in enumerate(document["claim"])]
    calibrations = [reader.calibration(i, entry) for i, entry in enumerate(document.get("calibration", []))]
    for index, calibration in enumerate(calibrations):
        for claim_id in calibration.claims:
            if claim_id not in seen:
                raise reader.fail(
                    reader.lines.of("calibration", index, "claims"),
                    f"[[calibration]] number {index + 1}",
                    f"'{claim_id}' is not the id of a claim in the file",
                )
    choices = [reader.open_choice(i, c) for i, c in enumerate(document.get("open_choice", []))]
    return ClaimsFile(
        document["paper"], document.get("doc", "docs/reproduction.md"), claims, choices, source, calibrations
    )


def claims_path(paper: str, root: Path) -> Path:
    """Where ``paper``'s claims file is under the repository or folder ``root``."""
    return root / CLAIMS_DIR / f"{paper}.toml"
