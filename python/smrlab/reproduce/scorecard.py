"""The reproduction scorecard: every claim of the chosen papers judged on the results of the
experiment files behind it, run through the experiment runner (so results folders, ``--resume``
and provenance are the runner's), plus the sensitivity of each verdict to the papers' open
choices.

Before anything runs, each claims file is read and its names checked against the experiment
files (``claims``, ``references``). An experiment runs once per scorecard, only the cells some
claim reads (a cell shared by claims runs once); a claim that compares cells on traces generated
by a recipe that takes a seed runs on ``seeds`` seeds (each a fresh draw of every generated trace
it reads, the first the trace as published), the others on one: a fixed file has no seed to
vary, and the noise floor decides its ties. A quick run (``quick=True``) loads each experiment
with its ``[quick]`` table (smaller traces) and leaves out the claims marked ``full_only``; a run
over real traces (``traces_dir``) swaps each experiment's generated traces for the files there
that carry their names (``realtraces``). The sensitivity table judges every value of an open
choice, the default too, on the first seed, so that its verdicts differ only by the choice. Not
here: what a claim says (``claims``), how it is judged (``evaluation``, ``verdict``), how the
scorecard is printed or written (``output``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smrlab import bundled, experiment, orchestrator, provenance, recipes, results
from smrlab.citations import PAPERS
from smrlab.errors import UsageError
from smrlab.experiment.spec import Experiment, param_text
from smrlab.reproduce import claims as claims_files
from smrlab.reproduce import realtraces, references
from smrlab.reproduce.claims import Claim, ClaimsFile, Selector
from smrlab.reproduce.evaluation import Evaluation, Row
from smrlab.reproduce.verdict import VERDICTS

# Seeds of a claim that compares cells on generated traces (the first is the trace as published).
SEEDS = 3
# The traces of a scorecard run without --traces, as its JSON names them.
SYNTHETIC = "synthetic recipes and bundled samples"


@dataclass
class Settings:
    """How a scorecard is made: the papers, quick or full, real traces, seeds, where cells run."""

    papers: list[str]
    quick: bool = True
    traces_dir: Path | None = None
    sensitivity: bool = False
    jobs: int | None = None
    cluster: str | None = None
    share_paths: bool = False
    out: Path = Path("results") / "reproduce"
    root: Path = field(default_factory=bundled.experiments_root)
    seeds: int = SEEDS


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
    files: list[ClaimsFile]
    runs: dict[str, str]
    seconds: float
    cells_ran: int = 0
    cells_reused: int = 0
    # The code behind the cells: each cell's model fingerprint by key, and the commits that
    # made them (``Runner.pinned``).
    models: dict[str, str] = field(default_factory=dict)
    commits: dict[str, int] = field(default_factory=dict)
    # What a reader must know of the traces (a real file far smaller than the paper's trace).
    warnings: list[str] = field(default_factory=list)

    def counts(self, in_sample: bool = False) -> dict[str, dict[str, int]]:
        """Per paper (and ``all``), the number of claims with each verdict: the out-of-sample
        claims, or (``in_sample``) those judged where a calibration was fitted."""
        counts = {paper: dict.fromkeys(VERDICTS, 0) for paper in self.settings.papers + ["all"]}
        for row in self.rows:
            if row.in_sample == in_sample:
                counts[row.paper][row.verdict] += 1
                counts["all"][row.verdict] += 1
        return counts

    def calibrations(self) -> dict[str, dict[str, Any]]:
        """Per paper: its calibrations, the numbers they fitted, and the split of its traces."""
        found = {}
        for file in self.files:
            fitted_on = sorted({t for c in file.calibrations for t in c.fitted_on})
            found[file.paper] = {
                "numbers": file.fitted_numbers(),
                "fitted_on": fitted_on,
                "targets": sorted(file.targets()),
                "calibrations": [
                    {
                        "what": c.what,
                        "params": c.params,
                        "numbers": c.fitted(),
                        "fitted_on": c.fitted_on,
                        "experiments": c.experiments,
                        "claims": c.claims,
                        "reason": c.reason,
                    }
                    for c in file.calibrations
                ],
            }
        return found

    def as_dict(self) -> dict[str, Any]:
        s = self.settings
        return {
            "mode": "quick" if s.quick else "full",
            "papers": s.papers,
            "traces": str(s.traces_dir) if s.traces_dir else SYNTHETIC,
            "warnings": self.warnings,
            "seeds": s.seeds,
            "rows": [
                {**row.as_dict(), "cell_models": {c: self.models[c] for c in row.cells if c in self.models}}
                for row in self.rows
            ],
            "model": model_record(self.models, self.commits),
            "sensitivity": [
                {"paper": r.paper, "param": r.param, "claim": r.claim, "verdicts": r.verdicts, "changes": r.changes}
                for r in self.sensitivity
            ],
            "counts": self.counts(),
            "in_sample": self.counts(in_sample=True),
            "calibrations": self.calibrations(),
            "runs": self.runs,
            "smrlab": provenance.stamp(),
            "wall_seconds": round(self.seconds, 1),
            "cells": {"ran": self.cells_ran, "reused": self.cells_reused},
        }


def matches(selector: Selector, cell) -> bool:
    """Whether ``cell`` is one of the cells ``selector`` names."""
    for key, value in selector.items():
        have = cell.label if key == "label" else cell.trace_name if key == "trace" else cell.given.get(key)
        if have is None or (have not in value if isinstance(value, tuple) else have != value):
            return False
    return True


def reads(claim: Claim, cell) -> bool:
    """Whether ``claim`` reads ``cell``'s result."""
    if claim.traces and cell.trace_name not in claim.traces:
        return False
    return any(matches(selector, cell) for selector in claim.selectors())


class Runner:
    """Runs the cells each experiment's claims read once (per parameter override and seed) and
    keeps their rows."""

    def __init__(self, settings: Settings, announce: Callable[[str], None], files: list[ClaimsFile]):
        self.settings, self.announce = settings, announce
        self.real = (
            realtraces.RealTraces(settings.traces_dir, warn=announce) if settings.traces_dir is not None else None
        )
        self.claims: dict[str, list[Claim]] = {}
        for file in files:
            for claim in file.claims:
                if claim.kind != "not-run" and not (settings.quick and claim.full_only):
                    self.claims.setdefault(claim.experiment, []).append(claim)
        self._frames: dict[tuple, tuple[Any, Experiment]] = {}
        self.runs: dict[str, str] = {}
        # Cells run now and cells found stored from an earlier run.
        self.ran = self.reused = 0
        self.models: dict[str, str] = {}
        self.commits: dict[str, int] = {}

    def load(self, name: str, override: tuple[str, str] | None = None, trace_seed: int = 0) -> Experiment:
        path = self.settings.root / "experiments" / f"{name}.toml"
        if not path.is_file():
            raise UsageError(f"no experiment file {path} (named by a claim)")
        exp = experiment.load(
            path,
            quick=self.settings.quick,
            trace_source=self.real.source if self.real else None,
            trace_seed=trace_seed,
        )
        if override is not None:
            param, value = override
            exp.params[param] = value
            for system in exp.systems:
                if param in system.params:
                    system.params[param] = value
            exp.name = f"{exp.name}-{_safe(param)}-{_safe(value)}"
        return exp

    def seeded_traces(self, exp: Experiment) -> set[str]:
        """The traces of ``exp`` that a seed draws afresh: those a recipe with a seed generates
        (not a bundled or a real file), and key-value workloads other than the paced ones (whose
        noise is the machine's, not the seed's)."""
        if getattr(exp, "kind", "") == "kv":
            return {name for name, workload in exp.traces.items() if workload.kind != "steps"}
        from smrlab.experiment import spec

        document = spec.read_toml(exp.source.read_text(), exp.source)
        entries = document["traces"]
        if self.settings.quick:
            entries = document.get("quick", {}).get("traces", entries)
        generated = spec.trace_recipes(exp.source, entries)
        return {
            name
            for name, made in generated.items()
            if made is not None
            and recipes.recipes()[made[0]].seeded
            and not (self.real is not None and self.real.is_real(exp.traces[name].path))
        }

    def frame(self, name: str, override: tuple[str, str] | None = None):
        """The rows of experiment ``name`` (with one parameter set to another value), run now
        or found again, and the experiment: the cells its claims read, those of the claims that
        compare cells on seeded traces on every seed. An override to the value the experiment
        runs with anyway is the experiment itself."""
        if override is not None and override[1] == baseline_value(self.load(name), override[0]):
            override = None
        key = (name, override)
        if key not in self._frames:
            import pandas as pd

            claims = self.claims.get(name, [])
            exp = self.load(name, override)
            exp.keep = lambda cell: any(reads(c, cell) for c in claims)
            frames = [self._run(exp)]
            seeded = self.seeded_traces(exp)
            compared = [c for c in claims if c.compares()]
            if override is None and seeded and compared:
                first = exp.seeds[0]
                for extra in range(1, self.settings.seeds):
                    again = self.load(name, override, trace_seed=first + extra)
                    again.seeds, again.name = [first + extra], f"{again.name}-seed{first + extra}"
                    again.keep = lambda cell: cell.trace_name in seeded and any(reads(c, cell) for c in compared)
                    frames.append(self._run(again))
            self._frames[key] = (pd.concat(frames, ignore_index=True), exp)
        return self._frames[key]

    def _run(self, exp: Experiment):
        from smrlab.live import CellProgress

        self.announce(f"running {exp.name} ({len(exp.cells())} cells)")
        summary = orchestrator.run(
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
        return results.read(summary.table)

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
    real = real_names(exp, real_traces)
    if not real:
        return "synthetic"
    return "real" if len(real) == len(exp.traces) else f"real ({', '.join(real)}), the others synthetic"


def real_names(exp: Experiment, real_traces: realtraces.RealTraces | None) -> list[str]:
    return [
        name
        for name, trace in exp.traces.items()
        if real_traces is not None and real_traces.is_real(getattr(trace, "path", None))
    ]


def judge(
    paper_claims: ClaimsFile,
    runner: Runner,
    override: tuple[str, str] | None = None,
    only: set[str] | None = None,
    first_seed: bool = False,
) -> list[Row]:
    """Every claim of one paper (or those whose experiment is in ``only``), judged (on the
    first seed alone with ``first_seed``)."""
    rows: list[Row] = []
    targets = paper_claims.targets()
    for claim in paper_claims.claims:
        if only is not None and claim.experiment not in only:
            continue
        left_out = runner.settings.quick and claim.full_only
        if claim.kind == "not-run" or left_out:
            rows.append(Evaluation(None, {}, "", targets=targets).row(paper_claims.paper, claim, left_out))
            continue
        frame, exp = runner.frame(claim.experiment, override)
        if first_seed and len(frame):
            frame = frame[frame["seed"] == exp.seeds[0]]
        in_sample = paper_claims.in_sample_traces(claim.experiment) - set(real_names(exp, runner.real))
        evaluation = Evaluation(frame, exp.axes(), traces_kind(exp, runner.real), in_sample, targets)
        rows.append(evaluation.row(paper_claims.paper, claim))
    return rows


def sensitivity(paper_claims: ClaimsFile, runner: Runner) -> list[SensitivityRow]:
    """Each open choice of the paper at each of its values: every affected claim's verdict, each
    judged on the first seed."""
    found: list[SensitivityRow] = []
    for choice in paper_claims.open_choices:
        only = set(choice.experiments)
        by_value = {
            value: {r.id: r.verdict for r in judge(paper_claims, runner, (choice.param, value), only, True)}
            for value in choice.values
        }
        for claim in paper_claims.claims:
            if claim.experiment not in only or claim.kind == "not-run":
                continue
            verdicts = {value: rows[claim.id] for value, rows in by_value.items()}
            found.append(SensitivityRow(paper_claims.paper, choice.param, claim.id, verdicts))
    return found


def load_files(settings: Settings) -> list[ClaimsFile]:
    """Each paper's claims file, read and checked against the experiment files."""
    files = []
    for paper in settings.papers:
        if paper not in PAPERS:
            raise UsageError(f"unknown paper '{paper}' (papers: {', '.join(PAPERS)})")
        loaded = claims_files.load(claims_files.claims_path(paper, settings.root), paper)
        references.check(loaded, settings.root)
        files.append(loaded)
    return files


def make(settings: Settings, announce: Callable[[str], None] = lambda _: None) -> Scorecard:
    """The scorecard of ``settings.papers``."""
    if not settings.papers:
        raise UsageError("no paper to judge: no claims file (experiments/claims/PAPER.toml) was found")
    if not 1 <= settings.seeds <= 10:
        raise UsageError(f"--seeds must be from 1 to 10, got {settings.seeds}")
    files = load_files(settings)
    runner = Runner(settings, announce, files)
    started = time.monotonic()
    rows: list[Row] = []
    sensitive: list[SensitivityRow] = []
    for paper_claims in files:
        rows += judge(paper_claims, runner)
    if settings.sensitivity:
        for paper_claims in files:
            sensitive += sensitivity(paper_claims, runner)
    return Scorecard(
        settings,
        rows,
        sensitive,
        files,
        runner.runs,
        time.monotonic() - started,
        runner.ran,
        runner.reused,
        runner.models,
        runner.commits,
        runner.real.warnings if runner.real else [],
    )


def _safe(text: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in text)
