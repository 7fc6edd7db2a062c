"""The reproduction scorecard: every claim of the chosen papers judged on the results of the
experiment files behind it, run through the experiment runner (so results folders, ``--resume``
and provenance are the runner's), plus the sensitivity of each verdict to the papers' open
choices.

Before anything runs, each claims file is read and its names checked against the experiment
files (``claims``, ``references``). An experiment runs once per scorecard, only the cells some
claim reads (a cell shared by claims runs once); a claim that compares cells on traces generated
by a recipe that takes a seed runs on ``seeds`` seeds (each a fresh draw of every generated trace
it reads, the first the trace as published), the others on one: a fixed file has no seed to
vary, and the noise floor decides its ties. In a full run the first seed runs the full-size
traces (the page's values) and the spread is ``seeds`` draws of the experiment's ``[quick]``
traces (seeds 0 to N-1), a declared choice of time (``SCALED_DRAWS``) that ``full_seeds`` turns
off; a claim marked ``full_only`` (its mechanism needs the full size) has no scaled draw. A
quick run (``quick=True``) loads each experiment with its ``[quick]`` table (smaller traces)
and leaves out the claims marked ``full_only``; a run over real traces (``traces_dir``) swaps
each experiment's generated traces for the files there that carry their names
(``realtraces``). The sensitivity table judges every value of an open choice, the default too,
on the first seed, so that its verdicts differ only by the choice. Not here: what a claim says
(``claims``), how it is judged (``evaluation``, ``verdict``), how the scorecard is printed or
written (``output``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smrlab import bundled, experiment, fingerprint, orchestrator, provenance, recipes, results, systems
from smrlab.citations import PAPERS
from smrlab.errors import UsageError
from smrlab.experiment import spec
from smrlab.experiment.spec import Experiment, param_text
from smrlab.live import CellProgress
from smrlab.reproduce import claims as claims_files
from smrlab.reproduce import realtraces, references
from smrlab.reproduce.claims import Claim, ClaimsFile, Selector
from smrlab.reproduce.evaluation import Evaluation, Row
from smrlab.reproduce.verdict import FULL, SCALED, VERDICTS

# Seeds of a claim that compares cells on generated traces (the first is the trace as published).
SEEDS = 3
# Why a --full run draws its extra seeds at the quick scale, as the page and the JSON say it.
SCALED_DRAWS = (
    "a --full run draws the first seed of a claim that compares cells on generated traces at full size "
    "(its value is the page's) and its spread from --seeds draws of the experiment's [quick] traces (seeds 0 "
    "to N-1): the whole --full run from nothing (trace generation included) took 51 minutes on 2 quiet cores, "
    "31 of them for one full-size seed (FluidSMR 14, SMRDB's paced cells 9, PORE and uCache 5, HWSR 3) and 20 "
    "for the sensitivity table, so full-size seeds would add about an hour per seed; a claim that needs the "
    "full-size traces (full_only) has no scaled draw. --full-seeds runs every seed at full size"
)
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
    # A --full run's extra seeds at full size too, rather than at the quick scale (``SCALED_DRAWS``).
    full_seeds: bool = False

    def scaled_draws(self) -> bool:
        """Whether the spread of a claim's seeds is drawn at the quick scale beside a full-size
        first seed."""
        return not self.quick and not self.full_seeds and self.seeds > 1

    def seed_scales(self) -> str:
        """The scale of each seed's traces, as the JSON says it."""
        if self.quick:
            return "every seed at the quick scale"
        if self.scaled_draws():
            return f"the first seed at full size, then {self.seeds} draws at the quick scale"
        return "every seed at full size"


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
            "seed_scales": s.seed_scales(),
            **({"scaled_draws": SCALED_DRAWS} if s.scaled_draws() else {}),
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
        # Per experiment that drew seeds: its generated traces at the first seed's scale, and
        # those its scaled draws drew (a --full run's [quick] traces; empty without scaled draws).
        self.seeded: dict[str, set[str]] = {}
        self.scaled: dict[str, set[str]] = {}

    @property
    def first_scale(self) -> str:
        """The scale of a claim's first seed: full size in a --full run."""
        return SCALED if self.settings.quick else FULL

    def load(
        self, name: str, override: tuple[str, str] | None = None, trace_seed: int = 0, quick: bool | None = None
    ) -> Experiment:
        path = self.settings.root / "experiments" / f"{name}.toml"
        if not path.is_file():
            raise UsageError(f"no experiment file {path} (named by a claim)")
        exp = experiment.load(
            path,
            quick=self.settings.quick if quick is None else quick,
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

    def seeded_traces(self, exp: Experiment, quick: bool) -> set[str]:
        """The traces of ``exp`` (loaded ``quick`` or not) that a seed draws afresh: those a
        recipe with a seed generates (not a bundled or a real file), and key-value workloads
        other than the paced ones (whose noise is the machine's, not the seed's)."""
        if getattr(exp, "kind", "") == "kv":
            return {name for name, workload in exp.traces.items() if workload.kind != "steps"}

        document = spec.read_toml(exp.source.read_text(), exp.source)
        entries = document["traces"]
        if quick:
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
            frames = [self._run(exp, self.first_scale)]
            seeded = self.seeded_traces(exp, self.settings.quick)
            compared = [c for c in claims if c.compares()]
            if override is None and seeded and compared:
                self.seeded[name] = seeded
                if self.settings.scaled_draws():
                    frames += self._scaled_draws(name, [c for c in compared if not c.full_only], exp)
                else:
                    frames += self._draws(name, exp.seeds[0], 1, False, seeded, compared)
            self._frames[key] = (pd.concat(frames, ignore_index=True), exp)
        return self._frames[key]

    def _scaled_draws(self, name: str, compared: list[Claim], full: Experiment) -> list:
        """A --full run's spread: ``seeds`` draws of the experiment's [quick] traces, seeds 0 to
        N-1 (the quick run's own cells, found stored when it ran first), only at the values of
        the parameters the full size runs (a point the full size lacks has no value to give a
        spread to)."""
        scaled = self.load(name, quick=True)
        self.scaled[name] = self.seeded_traces(scaled, True) if compared else set()
        if not self.scaled[name]:
            return []
        values = full.axes()
        for axis in scaled.axes():
            if axis not in values and axis in full.params:
                values[axis] = [param_text(full.params[axis])]

        def at_full_values(cell) -> bool:
            return all(str(cell.given[a]) in shown for a, shown in values.items() if a in cell.given)

        return self._draws(name, scaled.seeds[0], 0, True, self.scaled[name], compared, at_full_values)

    def _draws(
        self,
        name: str,
        first: int,
        start: int,
        scaled: bool,
        seeded: set[str],
        compared: list[Claim],
        within: Callable[[Any], bool] = lambda cell: True,
    ) -> list:
        """Draws ``start`` to ``seeds``-1 of the ``seeded`` traces (after seed ``first``) for the
        cells the ``compared`` claims read (and ``within`` keeps), at the quick scale
        (``scaled``) or the first seed's."""
        frames = []
        for extra in range(start, self.settings.seeds):
            load = {"quick": True} if scaled else {}
            again = self.load(name, trace_seed=first + extra, **load) if extra else self.load(name, **load)
            if extra:
                again.seeds, again.name = [first + extra], f"{again.name}-seed{first + extra}"
            again.keep = lambda cell: (
                cell.trace_name in seeded and within(cell) and any(reads(c, cell) for c in compared)
            )
            frames.append(self._run(again, SCALED if scaled else self.first_scale))
        return frames

    def _run(self, exp: Experiment, scale: str):

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
        scaled = scale == SCALED and not self.settings.quick
        self.runs[f"{exp.name} (quick scale)" if scaled else exp.name] = str(summary.folder)
        self.ran, self.reused = self.ran + summary.ran, self.reused + summary.reused
        self.pinned(summary.outcomes)
        return results.read(summary.table).assign(scale=scale)

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
        if (first_seed or (claim.full_only and runner.settings.scaled_draws())) and len(frame):
            first = frame["scale"] == runner.first_scale
            frame = frame[first & (frame["seed"] == exp.seeds[0]) if first_seed else first]
        in_sample = paper_claims.in_sample_traces(claim.experiment) - set(real_names(exp, runner.real))
        evaluation = Evaluation(frame, exp.axes(), traces_kind(exp, runner.real), in_sample, targets)
        row = evaluation.row(paper_claims.paper, claim)
        if override is None and not first_seed and claim.compares():
            note_single_draws(row, claim, runner)
        rows.append(row)
    return rows


def note_single_draws(row: Row, claim: Claim, runner: Runner) -> None:
    """Says on each point of a generated trace that has the full-size draw alone, in a run whose
    other points have scaled draws beside it, why it has no spread."""
    name = claim.experiment
    if not runner.settings.scaled_draws() or name not in runner.seeded:
        return
    for point in row.points:
        if point.trace not in runner.seeded[name] or len(point.draws) > 1:
            continue
        if claim.full_only:
            point.note = "1 seed: the claim needs the full-size traces, so no scaled draw stands for it"
        elif point.trace not in runner.scaled.get(name, set()):
            point.note = "1 seed: no scaled draw of this trace"
        else:
            point.note = "1 seed: the quick scale does not run this point"
        point.text += f" ({point.note})"
    if len(row.points) == 1 and row.points[0].note:
        row.ours_text += f" ({row.points[0].note})"


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
