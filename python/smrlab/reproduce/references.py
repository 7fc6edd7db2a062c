"""The names a claims file uses, checked against the experiment files before anything runs: each
claim's experiment exists, its cells' labels, grid keys and values are the experiment's, its
traces and its trend's axis are the experiment's (full or quick), and each open choice and
calibration names experiments and traces that exist. A misspelt name would otherwise give a claim
no cells, and a "not run" row nobody asked for. Every mistake is one ``UsageError`` naming the
claims file, the line and the name, with the nearest known one.

Not here: the file's own keys and rules (``claims``); the measures, which only a run can tell
(``smrlab.experiment.check`` probes each line-up before its first cell).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from smrlab.errors import UsageError
from smrlab.experiment import files, spec
from smrlab.experiment.schema import nearest
from smrlab.experiment.spec import param_text
from smrlab.options import printable
from smrlab.reproduce.claims import Claim, ClaimsFile, Selector

# Columns a selector may name besides the experiment's parameters.
RUN_KEYS = ("label", "trace")


@dataclass
class Shape:
    """What an experiment file offers a claim: its labels, traces and parameter values, in its
    full and its quick form together."""

    labels: set[str] = field(default_factory=set)
    full_traces: list[str] = field(default_factory=list)
    quick_traces: list[str] = field(default_factory=list)
    values: dict[str, set[str]] = field(default_factory=dict)
    axes: set[str] = field(default_factory=set)

    @property
    def traces(self) -> set[str]:
        return set(self.full_traces) | set(self.quick_traces)


def shape(path: Path) -> Shape:
    """The shape of the experiment file at ``path`` (nothing generated or run)."""
    text = path.read_text()
    document = spec.read_toml(text, path)
    found = Shape()
    for quick in (False, True):
        exp = files.parse(text, path, with_traces=False, quick=quick)
        found.labels |= {run.label for run in exp.systems}
        if exp.traces:
            names = list(exp.traces)
        else:
            entries = (document.get("quick", {}) if quick else {}).get("traces", document["traces"])
            names = list(spec.trace_recipes(path, entries))
        (found.quick_traces if quick else found.full_traces).extend(names)
        for params in [exp.params] + [run.params for run in exp.systems]:
            for key, value in params.items():
                values = value if isinstance(value, list) else [value]
                found.values.setdefault(key, set()).update(param_text(v) for v in values)
                if isinstance(value, list) and len(value) > 1:
                    found.axes.add(key)
    return found


class Checker:
    """Checks one claims file's names against the experiment files under ``root``."""

    def __init__(self, claims_file: ClaimsFile, root: Path):
        self.file, self.root = claims_file, root
        self.shapes: dict[str, Shape | None] = {}

    def fail(self, line: int, where: str, message: str) -> UsageError:
        at = f"{self.file.source}:{line}" if line else str(self.file.source)
        return UsageError(f"{at}: {printable(where, 120)}: {message}")

    def shape(self, name: str) -> Shape | None:
        if name not in self.shapes:
            path = self.root / "experiments" / f"{name}.toml"
            self.shapes[name] = shape(path) if path.is_file() else None
        return self.shapes[name]

    def known(self) -> list[str]:
        folder = self.root / "experiments"
        return sorted(p.stem for p in folder.glob("*.toml")) if folder.is_dir() else []

    def experiment(self, name: str, line: int, where: str) -> Shape:
        found = self.shape(name)
        if found is None:
            raise self.fail(
                line,
                where,
                f"no experiment file {printable(str(self.root / 'experiments' / (name + '.toml')), 200)}"
                f"{nearest(name, self.known())}",
            )
        return found

    def claim(self, claim: Claim) -> None:
        if claim.kind == "not-run":
            return
        where = f"claim {claim.id}"
        exp = self.experiment(claim.experiment, claim.line, where)
        for selector in claim.selectors():
            self.selector(selector, exp, claim.line, where)
        for trace in claim.traces:
            if trace not in exp.traces:
                raise self.fail(
                    claim.line,
                    where,
                    f"traces: '{printable(trace, 80)}' is not a trace of {claim.experiment}{nearest(trace, exp.traces)} "
                    f"(its traces: {', '.join(exp.full_traces)})",
                )
        if claim.kind == "trend" and claim.x not in exp.axes:
            raise self.fail(
                claim.line,
                where,
                f"x: {claim.experiment} sweeps no parameter '{printable(claim.x, 80)}'{nearest(claim.x, exp.axes)}"
                f" (it sweeps: {', '.join(sorted(exp.axes)) or 'none'})",
            )

    def selector(self, selector: Selector, exp: Shape, line: int, where: str) -> None:
        for key, value in selector.items():
            values = value if isinstance(value, tuple) else (value,)
            if key == "label":
                known = exp.labels
            elif key == "trace":
                known = exp.traces
            elif key in exp.values:
                known = exp.values[key]
            else:
                keys = set(RUN_KEYS) | set(exp.values)
                raise self.fail(
                    line,
                    where,
                    f"the experiment has no label, trace or parameter '{printable(key, 80)}'{nearest(key, keys)}",
                )
            for item in values:
                if item not in known:
                    raise self.fail(
                        line,
                        where,
                        f"{key} '{printable(item, 80)}' is not one of the experiment's{nearest(item, known)} "
                        f"({printable(', '.join(sorted(known)), 300)})",
                    )

    def check(self) -> None:
        for claim in self.file.claims:
            self.claim(claim)
        for choice in self.file.open_choices:
            for name in choice.experiments:
                self.experiment(name, choice.line, f"open_choice {choice.param}")
        traces = set().union(*(self.experiment(n, 0, "claims").traces for n in self.file.experiments()))
        for calibration in self.file.calibrations:
            for name in calibration.experiments:
                self.experiment(name, calibration.line, f"calibration of {', '.join(calibration.params)}")
            for trace in calibration.fitted_on:
                if trace not in traces:
                    raise self.fail(
                        calibration.line,
                        f"calibration of {', '.join(calibration.params)}",
                        f"fitted_on: '{printable(trace, 80)}' is no trace of the paper's experiments{nearest(trace, traces)}",
                    )


def check(claims_file: ClaimsFile, root: Path) -> None:
    """Refuses the first name in ``claims_file`` that the experiment files under ``root`` lack."""
    Checker(claims_file, root).check()
