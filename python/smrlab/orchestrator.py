"""The orchestrator: runs an experiment (``smrlab.experiment``'s spec and cells) where asked and
gathers it into one tidy table, its figures and its provenance; it sits above the experiment
layer, tying it to the figures (``smrlab.plots``), the trace footprints (``smrlab.run``) and the
provenance stamp.

``run`` is what ``smrlab run`` does: a cluster is reached in the background from the start
(``executors.reaching``: the check and the plan go on meanwhile); the workers start at once;
cells already stored are skipped (unless told not to ``resume``); the others start longest first (``schedule``,
from what earlier runs of the experiment cost) serially, in local worker processes or on a
Dask cluster, and the experiment is checked (``check``) while the workers run their first
cells: a check that fails stops the run before any outcome is taken, so nothing is stored;
each cell is stored as it finishes; and the table, its figures and its provenance (with what
every cell cost and the parent's own work by phase) are written at the end. ``frame`` runs an
experiment without storing anything and returns the DataFrame. Rows are in cell order whatever
ran them, so the same experiment gives the same rows serially, on local workers and on a
cluster. ``measures`` checks, before any outcome is taken, that every measure the experiment
names (``metrics``, the figure's ``y``, its claims' ``metric``) is a column its systems report,
learnt from a probe: each label's first cell built on the real trace and stopped after one
request, which also makes the core check the values that depend on the trace (a share of its
footprint). Not here: what an experiment is (``smrlab.experiment``), tables on the terminal, the
report.
"""

from __future__ import annotations

import contextlib
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

from smrlab import plots, provenance
from smrlab.errors import ClusterLost, ParameterError, SmrlabError
from smrlab.experiment import check, executors, schedule
from smrlab.experiment.cells import Cell, Outcome
from smrlab.experiment.pending import Pending
from smrlab.experiment.schema import nearest
from smrlab.experiment.spec import Experiment
from smrlab.experiment.stopwatch import Phases
from smrlab.experiment.store import RunFolder, arrow_table, sidecar, to_pandas
from smrlab.options import printable
from smrlab.paper import claims_of
from smrlab.plots import MISS
from smrlab.result import tidy_row
from smrlab.run import footprint, simulate


@dataclass
class RunSummary:
    folder: Path
    table: Path
    rows: list[dict]
    ran: int
    reused: int
    failed: int
    outcomes: list[tuple[Cell, Outcome]]
    figures: list[Path] = field(default_factory=list)
    parent: dict = field(default_factory=dict)


def _rows(cells: list[tuple[Cell, str]], outcomes: dict[int, Outcome]) -> list[dict]:
    return [outcomes[cell.index].row(cell) for cell, _ in cells]


def _warm_up(figures: bool) -> threading.Thread:
    """Loads in a background thread, while the parent waits for cells, what it needs once they
    are done: the table's libraries (pyarrow, pandas), the software provenance (git), and with
    ``figures`` what drawing needs (``smrlab.plots.warm_up``); so that none of it is serial
    time at the end. What fails here fails again, with its message, where it is used."""

    def warm() -> None:
        with contextlib.suppress(Exception):
            import pandas  # noqa: F401
            import pyarrow.parquet  # noqa: F401

            provenance.stamp()
            if figures:
                plots.warm_up()

    thread = threading.Thread(target=warm, name="smrlab-warm-up", daemon=True)
    thread.start()
    return thread


def serial_seconds(phases: Phases, ended: float, outcomes: list[Outcome]) -> float:
    """The parent's serial time: from the run's start to the first cell's start, and from the
    last cell's end to the run's end (all of it when no cell ran); the cells' clocks are their
    workers' (on other machines, offset by the difference of the clocks)."""
    timed = [outcome.timing for outcome in outcomes if outcome.timing and outcome.timing.wall_s > 0]
    if not timed:
        return ended - phases.begun
    first, last = min(t.started_at for t in timed), max(t.ended_at for t in timed)
    return max(0.0, first - phases.begun) + max(0.0, ended - last)


@dataclass
class _Plan:
    """A run's cells with their keys, its folder, the outcomes stored already (``reused``) and
    the cells to run in the order to start them, with what each is expected to cost."""

    cells: list[tuple[Cell, str]]
    folder: RunFolder
    outcomes: dict[int, Outcome]
    reused: set[int]
    todo: list[tuple[Cell, str]]
    expected: dict[int, float]


def _simulated(experiment: Experiment) -> bool:
    """Whether the experiment's cells are simulations (a key-value experiment has no block
    traces to probe)."""
    return getattr(experiment, "kind", None) != "kv"


def _checked(experiment: Experiment, every: list[Cell]) -> None:
    """Refuses what ``check`` finds wrong, before any cell runs. It probes one cell of each
    label, which needs that cell's trace footprint: measured here (once per trace) and handed
    to the cell, which then does not measure it again. The cells probed are, where a label has
    one, on a smrlab binary trace, whose footprint is read from its end rather than from a
    pass over it."""
    if not _simulated(experiment):
        return
    measured: dict[str, dict] = {}
    probed = sorted(every, key=lambda cell: cell.trace.path is None or cell.trace.path.suffix != ".smrbin")
    for label in dict.fromkeys(cell.label for cell in probed):
        first = next(cell for cell in probed if cell.label == label)
        if first.trace.path is not None:
            if first.trace_checksum() not in measured:
                measured[first.trace_checksum()] = footprint(first.trace)
            first.footprint = measured[first.trace_checksum()]
    measures(experiment, probed)


def named_measures(experiment) -> list[tuple[str, str]]:
    """(where, name) of every measure the experiment names."""
    named = [("metrics", metric) for metric in experiment.metrics]
    if experiment.figure.get("y"):
        named.append(("figure.y", experiment.figure["y"]))
    named += [
        (f"figure.also[{i}].y", also["y"]) for i, also in enumerate(experiment.figure.get("also", [])) if "y" in also
    ]

    named += [(f"claim {claim.id}", claim.metric) for claim in claims_of(experiment)]
    return named


def measures(experiment, cells) -> None:
    """Refuses a measure that no system of the line-up reports (learnt from a probe of each
    label's first cell on a trace file), and a probed cell whose parameters the core refuses
    (named by its label, trace and swept parameters); says nothing when a probe could not run (its
    cells will fail with their own error)."""
    named = named_measures(experiment)
    if not named:
        return

    reported = set(MISS)
    probed = True
    swept = experiment.swept()
    for label in dict.fromkeys(cell.label for cell in cells):
        first = next(cell for cell in cells if cell.label == label)
        try:
            columns = _probe(first)
        except ParameterError as error:
            # The cell by its label, trace and the swept parameters' values (cut short).
            given = " ".join(f"{key}={printable(first.given[key], 40)}" for key in swept if key in first.given)
            where = f"{label} on {first.trace_name}" + (f" ({given})" if given else "")
            raise check.fail(experiment, f"{where}: {error}") from None
        if columns is None:
            probed = False
        else:
            reported |= columns
    if not probed:
        return
    for where, name in named:
        if name not in reported:
            raise check.fail(
                experiment, f"{where}: no system of the line-up reports a measure '{name}'{nearest(name, reported)}"
            )


def _probe(cell) -> set[str] | None:
    """The columns ``cell``'s row would have, from a run stopped after its first request; None
    when it cannot be probed (a trace in memory) or failed for another reason than its
    parameters (its cells will say why). A parameter value the core refuses (a cache smaller
    than a block) raises its ``ParameterError``: the experiment stops before its first cell."""
    if cell.footprint is None:
        return None
    try:
        result = simulate(
            cell.system,
            cell.trace,
            cell.params(),
            engine={**cell.engine, "progress_every": 1},
            seed=cell.seed,
            footprint=cell.footprint,
            progress=lambda requests, sim_time_ns: False,
        )
    except ParameterError:
        raise
    except SmrlabError:
        return None
    return set(tidy_row(result, cell.label, cell.given)) | set(result["metrics"])


def _plan(experiment: Experiment, every: list[Cell], out: Path, resume: bool, phases: Phases) -> _Plan:
    with phases("keys"):
        cells = [(cell, cell.key()) for cell in every]
    with phases("folder"):
        folder = RunFolder.open(out, experiment.name, [key for _, key in cells], resume)
        stored = _stored(folder, out, experiment.name, {key for _, key in cells}) if resume else {}
    outcomes = {
        cell.index: Outcome(cell.index, key, stored[key][0], None, stored[key][1])
        for cell, key in cells
        if key in stored
    }
    for cell, key in cells:  # a damaged cell file whose result makes no row: the cell runs again
        if cell.index in outcomes and not _makes_a_row(cell, outcomes[cell.index]):
            del outcomes[cell.index], stored[key]
    for cell, key in cells:  # a cell found in an earlier run's folder is kept here too
        if key in stored and stored[key][2] != folder.folder:
            folder.save_cell(cell, outcomes[cell.index])
    with phases("order"):
        todo, expected = schedule.longest_first(
            [(c, k) for c, k in cells if k not in stored], schedule.learn(out, experiment.name)
        )
    return _Plan(cells, folder, outcomes, set(outcomes), todo, expected)


def _makes_a_row(cell: Cell, outcome: Outcome) -> bool:
    """Whether a stored result has what the cell's row is made of (a cell file damaged or
    edited by hand may hold any JSON)."""
    try:
        outcome.row(cell)
    except (KeyError, TypeError, ValueError, AttributeError, IndexError):
        return False
    return True


def _stored(folder: RunFolder, out: Path, name: str, wanted: set[str]) -> dict:
    """The stored results of the cells ``wanted``, by key, with the folder each was found in:
    this run's folder first, then the earlier runs' of the same experiment, newest first. A key
    names everything a cell's numbers come from, the model's code included, so a cell stored by
    any run of the experiment is the same cell."""
    found: dict[str, tuple] = {}
    for place in [folder.folder] + [p for p in RunFolder.earlier(out, name) if p != folder.folder]:
        if wanted <= set(found):
            break
        for key, (result, timing) in RunFolder(place, "").stored().items():
            if key in wanted and key not in found:
                found[key] = (result, timing, place)
    return found


def _run_cells(plan: _Plan, executor, progress, phases: Phases, checked) -> None:
    """Runs the plan's cells, storing each as it finishes; ``checked()`` once the first are
    handed out (at once when none is to run)."""
    by_index = {cell.index: cell for cell, _ in plan.cells}
    with phases("workers"):  # a cluster still being reached is waited for here
        at_once = executor.at_once
    if progress:
        progress.begin(len(plan.cells), len(plan.reused))
        progress.running(min(at_once, len(plan.todo)))

    def done(outcome: Outcome) -> None:
        with phases("store"):
            plan.folder.save_cell(by_index[outcome.index], outcome)
            plan.outcomes[outcome.index] = outcome
        if progress:
            progress.finished(outcome.error, by_index[outcome.index].label)

    try:
        if plan.todo:
            executor.run(Pending(plan.todo), done, phases, checked)
        else:
            checked()
    finally:
        if progress:
            progress.end()


def _write(
    experiment: Experiment, plan: _Plan, executor, figures: bool, phases: Phases
) -> tuple[list[dict], list[Path], dict]:
    """The table, the figure (with ``figures``) and the sidecar: the rows, the figures' paths
    and the parent's record (with, on a cluster, how long it took to reach: part of the serial
    time before the first cell, spent beside loading and planning)."""
    with phases("assemble"):
        rows = _rows(plan.cells, plan.outcomes)
    drawn: list[Path] = []
    with plan.folder.writing(rows, phases):
        if figures:
            with phases("figures"):
                drawn = plots.save(experiment, to_pandas(arrow_table(rows)), plan.folder.folder)
        ran = [outcome for index, outcome in plan.outcomes.items() if index not in plan.reused]
        ended = time.time()
        parent = {
            "phases_s": dict(phases.seconds),
            "counts": dict(phases.counts),
            "begun_at": phases.begun,
            "ended_at": ended,
            "serial_s": serial_seconds(phases, ended, ran),
            "cells_s": sum(o.timing.wall_s for o in ran if o.timing),
            "executor": type(executor).__name__,
            "at_once": executor.at_once,
        }
        if getattr(executor, "reached_s", None) is not None:
            parent["cluster_reached_s"] = executor.reached_s
        plan.folder.write_sidecar(sidecar(experiment, plan.cells, plan.outcomes, parent, plan.reused, plan.expected))
    return rows, drawn, parent


def run(
    experiment: Experiment,
    out: str | Path = "results",
    jobs: int | None = None,
    cluster=None,
    resume: bool = True,
    share_paths: bool = False,
    progress=None,
    figures: bool = False,
    phases: Phases | None = None,
) -> RunSummary:
    """Runs ``experiment`` into the latest folder of the same cells under ``out``, reusing the
    cells stored there or in an earlier run's folder (or, without ``resume``, every cell again
    into a new folder) and writes its table, its figure (with ``figures``, if it has one) and
    provenance. ``progress`` (see ``smrlab.live.CellProgress``) is told of each cell;
    ``phases`` holds what the caller timed before (e.g. loading the experiment). The workers
    stop once all is written (their stopping is not part of the run's time)."""
    phases = phases or Phases()
    with executors.reaching(cluster) as cluster:  # meanwhile: the check, the cells and their plan
        with phases("check"):
            check.parameters(experiment)
        every = experiment.cells()
        figures = figures and bool(experiment.figure)
        with executors.started(len(every), jobs, cluster, share_paths, phases=phases) as executor:
            plan = _plan(experiment, every, Path(out), resume, phases)
            warming: list[threading.Thread] = []

            def checked() -> None:
                # Once the first cells are out: the warm-up's imports would slow handing them out.
                warming.append(_warm_up(figures))
                with phases("check"):
                    _checked(experiment, every)

            try:
                _run_cells(plan, executor, progress, phases, checked)
            except KeyboardInterrupt as interrupt:
                raise KeyboardInterrupt(_kept(plan)) from interrupt
            except ClusterLost as lost:
                raise ClusterLost(f"{lost}: {_kept(plan)}") from None
            with phases("assemble"):
                for thread in warming:
                    thread.join()
            rows, drawn, parent = _write(experiment, plan, executor, figures, phases)
    failed = sum(1 for outcome in plan.outcomes.values() if outcome.error)
    return RunSummary(
        plan.folder.folder,
        plan.folder.table_path,
        rows,
        len(plan.todo),
        len(plan.reused),
        failed,
        [(cell, plan.outcomes[cell.index]) for cell, _ in plan.cells],
        drawn,
        parent,
    )


def _kept(plan: _Plan) -> str:
    return f"the cells that finished are kept in {plan.folder.folder}; the same command again goes on from them"


def frame(experiment: Experiment, jobs: int | None = 1, cluster=None):
    """The experiment's rows as a pandas DataFrame, nothing stored (``smrlab.compare``,
    ``smrlab.sweep``)."""
    check.parameters(experiment)
    every = experiment.cells()
    _checked(experiment, every)
    outcomes: dict[int, Outcome] = {}
    with executors.started(len(every), jobs, cluster) as executor:
        cells = [(cell, cell.key()) for cell in every]
        executor.run(Pending(cells), lambda outcome: outcomes.__setitem__(outcome.index, outcome), Phases())
    return to_pandas(arrow_table(_rows(cells, outcomes)))
