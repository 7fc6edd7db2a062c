"""The reproduction scorecard: every claim of the chosen papers judged on the results of the
experiment files behind it, run through the experiment runner (so results folders, ``--resume``
and provenance are the runner's), plus the sensitivity of each verdict to the papers' open
choices.

A quick run (``quick=True``) loads each experiment with its ``[quick]`` table (smaller traces)
and leaves out the claims marked ``full_only``; a run over real traces (``traces_dir``) swaps
each experiment's generated traces for the files there that carry their names
(``realtraces``). An experiment's cells are run once per scorecard and shared by every claim
that names it. Not here: what a claim says (``claims``), how it is judged (``verdict``), how the
scorecard is printed or written (``output``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smrlab import bundled, experiment, provenance, results
from smrlab.citations import PAPERS
from smrlab.errors import UsageError
from smrlab.experiment.spec import Experiment, param_text
from smrlab.reproduce import claims as claims_files
from smrlab.reproduce import realtraces
from smrlab.reproduce.verdict import VERDICTS, Evaluation, Row


@dataclass
class Settings:
    """How a scorecard is made: the papers, quick or full, real traces, where cells run."""

    papers: list[str]
    quick: bool = True
    traces_dir: Path | None = None
    sensitivity: bool = False
    jobs: int | None = None
    cluster: str | None = None
    share_paths: bool = False
    out: Path = Path("results") / "reproduce"
    root: Path = field(default_factory=bundled.experiments_root)


@dataclass
class SensitivityRow:
    paper: str
    param: str
    claim: str
    verdicts: dict[str, str]

    @property
    def changes(self) -> bool:
        return len(set(self.verdicts.values())) > 1


@dataclass
class Scorecard:
    settings: Settings
    rows: list[Row]
    sensitivity: list[SensitivityRow]
    calibration: dict[str, str]
    runs: dict[str, str]
    seconds: float
    cells_ran: int = 0
    cells_reused: int = 0
    # The code behind the cells: each cell's model fingerprint by key, and the commits that
    # made them (``Runner.pinned``).
    models: dict[str, str] = field(default_factory=dict)
    commits: dict[str, int] = field(default_factory=dict)

    def counts(self) -> dict[str, dict[str, int]]:
        """Per paper, the number of rows with each verdict."""
        counts = {paper: dict.fromkeys(VERDICTS, 0) for paper in self.settings.papers}
        for row in self.rows:
            counts[row.paper][row.verdict] += 1
        return counts

    def as_dict(self) -> dict[str, Any]:
        s = self.settings
        return {
            "mode": "quick" if s.quick else "full",
            "papers": s.papers,
            "traces": str(s.traces_dir) if s.traces_dir else "synthetic recipes and bundled samples",
            "rows": [
                {**row.as_dict(), "models": sorted({self.models.get(c, "") for c in row.cells} - {""})}
                for row in self.rows
            ],
            "model": model_record(self.models, self.commits),
            "sensitivity": [
                {"paper": r.paper, "param": r.param, "claim": r.claim, "verdicts": r.verdicts, "changes": r.changes}
                for r in self.sensitivity
            ],
            "counts": self.counts(),
            "calibration": self.calibration,
            "runs": self.runs,
            "smrlab": provenance.stamp(),
            "wall_seconds": round(self.seconds, 1),
            "cells": {"ran": self.cells_ran, "reused": self.cells_reused},
        }


class Runner:
    """Runs each experiment a scorecard needs once (per parameter override) and keeps its rows."""

    def __init__(self, settings: Settings, announce: Callable[[str], None]):
        self.settings, self.announce = settings, announce
        self.real = realtraces.RealTraces(settings.traces_dir) if settings.traces_dir is not None else None
        self._frames: dict[tuple, tuple[Any, Experiment]] = {}
        self.runs: dict[str, str] = {}
        # Cells run now and cells found stored from an earlier run.
        self.ran = self.reused = 0
        self.models: dict[str, str] = {}
        self.commits: dict[str, int] = {}

    def load(self, name: str, override: tuple[str, str] | None = None) -> Experiment:
        path = self.settings.root / "experiments" / f"{name}.toml"
        if not path.is_file():
            raise UsageError(f"no experiment file {path} (named by a claim)")
        exp = experiment.load(path, quick=self.settings.quick, trace_source=self.real.source if self.real else None)
        if override is not None:
            param, value = override
            exp.params[param] = value
            for system in exp.systems:
                if param in system.params:
                    system.params[param] = value
            exp.name = f"{exp.name}-{_safe(param)}-{_safe(value)}"
        return exp

    def frame(self, name: str, override: tuple[str, str] | None = None):
        """The rows of experiment ``name`` (with one parameter set to another value), run now
        or found again, and the experiment. An override to the value the experiment runs with
        anyway is the experiment itself."""
        if override is not None and override[1] == baseline_value(self.load(name), override[0]):
            override = None
        key = (name, override)
        if key not in self._frames:
            exp = self.load(name, override)
            from smrlab.live import CellProgress

            self.announce(f"running {exp.name} ({len(exp.cells())} cells)")
            summary = experiment.run(
                exp,
                out=self.settings.out,
                jobs=self.settings.jobs,
                cluster=self.settings.cluster,
                share_paths=self.settings.share_paths,
                resume=True,
                progress=CellProgress(exp.name),
            )
            self.runs[exp.name] = str(summary.folder)
            self.ran, self.reused = self.ran + summary.ran, self.reused + summary.reused
            self.pinned(summary.outcomes)
            self._frames[key] = (results.read(summary.table), exp)
        return self._frames[key]

    def pinned(self, outcomes) -> None:
        """Keeps each cell's model fingerprint (its key's) and counts the commits of the code
        that made the cells (a result's ``smrlab`` stamp; a key-value cell has none)."""
        for cell, outcome in outcomes:
            self.models[outcome.key] = cell.describe()["model"]
            commit = ((outcome.result or {}).get("smrlab") or {}).get("git_commit") or "unrecorded"
            self.commits[commit] = self.commits.get(commit, 0) + 1


def model_record(models: dict[str, str], commits: dict[str, int]) -> dict:
    """What a scorecard records of the code behind it: the fingerprint of each system and of
    the key-value store as this build computes them (a test holds the committed page to them),
    and how many of its cells each commit made."""
    from smrlab import fingerprint

    systems, _, _ = fingerprint.built()
    return {
        "systems": dict(sorted(systems.items())),
        "key_value": fingerprint.of_key_value(),
        "cells_by_commit": dict(sorted(commits.items(), key=lambda item: -item[1])),
        "cell_models": len(set(models.values())),
    }


def baseline_value(exp: Experiment, param: str) -> str | None:
    """The value ``param`` has in ``exp`` as written: the one it gives, else the default of the
    first of its systems that declares it (None when it is swept, or none declares it)."""
    from smrlab import systems

    for params in [s.params for s in exp.systems] + [exp.params]:
        if param in params:
            return None if isinstance(params[param], list) else param_text(params[param])
    for system in exp.systems:
        declared = systems.defaults(system.system)
        if param in declared:
            return declared[param]
    return None


def traces_kind(exp: Experiment, real_traces: realtraces.RealTraces | None) -> str:
    """What the experiment's traces are: real (from the traces folder), synthetic, or both."""
    real = [name for name, trace in exp.traces.items() if real_traces is not None and real_traces.is_real(trace.path)]
    if not real:
        return "synthetic"
    return "real" if len(real) == len(exp.traces) else f"real ({', '.join(real)}), the others synthetic"


def judge(
    paper_claims: claims_files.ClaimsFile,
    runner: Runner,
    override: tuple[str, str] | None = None,
    only: set[str] | None = None,
) -> list[Row]:
    """Every claim of one paper (or those whose experiment is in ``only``), judged."""
    rows: list[Row] = []
    for claim in paper_claims.claims:
        if only is not None and claim.experiment not in only:
            continue
        left_out = runner.settings.quick and claim.full_only
        if claim.kind == "not-run" or left_out:
            rows += Evaluation(None, {}, "").rows(paper_claims.paper, claim, left_out)
            continue
        frame, exp = runner.frame(claim.experiment, override)
        rows += Evaluation(frame, exp.axes(), traces_kind(exp, runner.real)).rows(paper_claims.paper, claim)
    return rows


def sensitivity(paper_claims: claims_files.ClaimsFile, runner: Runner) -> list[SensitivityRow]:
    """Each open choice of the paper at each of its values: every affected claim's verdict."""
    found: list[SensitivityRow] = []
    for choice in paper_claims.open_choices:
        only = set(choice.experiments)
        by_value = {value: judge(paper_claims, runner, (choice.param, value), only) for value in choice.values}
        for claim in paper_claims.claims:
            if claim.experiment not in only or claim.kind == "not-run":
                continue
            verdicts = {value: _summary(rows, claim.id) for value, rows in by_value.items()}
            found.append(SensitivityRow(paper_claims.paper, choice.param, claim.id, verdicts))
    return found


def _summary(rows: list[Row], claim_id: str) -> str:
    """One claim's verdict, or its verdicts per trace joined ("holds 3, fails 1")."""
    verdicts = [r.verdict for r in rows if r.id == claim_id]
    if len(set(verdicts)) == 1:
        return verdicts[0]
    return ", ".join(f"{v} {verdicts.count(v)}" for v in VERDICTS if v in verdicts)


def make(settings: Settings, announce: Callable[[str], None] = lambda _: None) -> Scorecard:
    """The scorecard of ``settings.papers``."""
    for paper in settings.papers:
        if paper not in PAPERS:
            raise UsageError(f"unknown paper '{paper}' (papers: {', '.join(PAPERS)})")
    runner = Runner(settings, announce)
    files = [claims_files.load(claims_files.claims_path(p, settings.root)) for p in settings.papers]
    started = time.monotonic()
    rows: list[Row] = []
    sensitive: list[SensitivityRow] = []
    for paper_claims in files:
        rows += judge(paper_claims, runner)
    if settings.sensitivity:
        for paper_claims in files:
            sensitive += sensitivity(paper_claims, runner)
    calibration = {f.paper: f.calibration for f in files if f.calibration}
    return Scorecard(
        settings,
        rows,
        sensitive,
        calibration,
        runner.runs,
        time.monotonic() - started,
        runner.ran,
        runner.reused,
        runner.models,
        runner.commits,
    )


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)
