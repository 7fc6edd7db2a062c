"""Experiments: many simulations described once (a TOML file or ``smrlab.compare``/``sweep``),
expanded into cells, run where asked, and gathered into one tidy table.

``run`` is what ``smrlab run`` does: cells already stored are skipped on ``resume``, the others
run (serially, in local worker processes or on a Dask cluster), each is stored as it finishes,
and the table and its provenance are written at the end. ``frame`` runs an experiment without
storing anything and returns the DataFrame. Rows are in cell order whatever ran them, so the
same experiment gives the same rows serially, on local workers and on a cluster.

Modules: ``spec`` (the file and its cells), ``schema`` (its keys), ``check`` (its names,
before the first cell runs), ``cells`` (one cell and how it runs),
``executors`` (where), ``store`` (results folders). Not here: tables on the terminal, plots,
the report.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from smrlab.experiment import check
from smrlab.experiment.cells import Cell, Outcome
from smrlab.experiment.executors import execute
from smrlab.experiment.spec import Experiment, load
from smrlab.experiment.store import RunFolder, sidecar
from smrlab.run import footprint

__all__ = ["Experiment", "load", "run", "frame", "RunSummary"]


@dataclass
class RunSummary:
    folder: Path
    table: Path
    rows: list[dict]
    ran: int
    reused: int
    failed: int
    outcomes: list[tuple[Cell, Outcome]]


def _keyed_cells(experiment: Experiment) -> list[tuple[Cell, str]]:
    """The cells with their keys, once the experiment's names are checked (``check``)."""
    check.parameters(experiment)
    cells = experiment.cells()
    footprints = {}
    for cell in cells:
        if cell.trace.path is not None:
            if cell.trace_name not in footprints:
                footprints[cell.trace_name] = footprint(cell.trace)
            cell.footprint = footprints[cell.trace_name]
    check.measures(experiment, cells)
    return [(cell, cell.key()) for cell in cells]


def _rows(cells: list[tuple[Cell, str]], outcomes: dict[int, Outcome]) -> list[dict]:
    return [outcomes[cell.index].row(cell) for cell, _ in cells]


def run(experiment: Experiment, out: str | Path = "results", jobs: int | None = None, cluster=None,
        resume: bool = False, share_paths: bool = False, progress=None) -> RunSummary:
    """Runs ``experiment`` into a new folder under ``out`` (or, with ``resume``, the latest one
    of the same cells) and writes its table and provenance. ``progress`` (see
    ``smrlab.live.CellProgress``) is told of each cell."""
    cells = _keyed_cells(experiment)
    folder = RunFolder.open(Path(out), experiment.name, [key for _, key in cells], resume)
    stored = folder.stored() if resume else {}
    outcomes = {cell.index: Outcome(cell.index, key, stored[key], None) for cell, key in cells if key in stored}
    todo = [(cell, key) for cell, key in cells if key not in stored]
    by_index = {cell.index: cell for cell, _ in cells}
    if progress:
        progress.begin(len(cells), len(outcomes))

    def done(outcome: Outcome) -> None:
        folder.save_cell(by_index[outcome.index], outcome)
        outcomes[outcome.index] = outcome
        if progress:
            progress.finished(outcome.error, by_index[outcome.index].label)

    try:
        execute(todo, done, jobs=jobs, cluster=cluster, share_paths=share_paths,
                started=progress.running if progress else None)
    finally:
        if progress:
            progress.end()
    rows = _rows(cells, outcomes)
    table = folder.write(rows, sidecar(experiment, cells, outcomes))
    failed = sum(1 for outcome in outcomes.values() if outcome.error)
    return RunSummary(folder.folder, table, rows, len(todo), len(cells) - len(todo), failed,
                      [(cell, outcomes[cell.index]) for cell, _ in cells])


def frame(experiment: Experiment, jobs: int | None = 1, cluster=None):
    """The experiment's rows as a pandas DataFrame, nothing stored (``smrlab.compare``,
    ``smrlab.sweep``)."""
    from smrlab.experiment.store import arrow_table, to_pandas
    cells = _keyed_cells(experiment)
    outcomes: dict[int, Outcome] = {}
    execute(cells, lambda outcome: outcomes.__setitem__(outcome.index, outcome), jobs=jobs, cluster=cluster)
    return to_pandas(arrow_table(_rows(cells, outcomes)))
