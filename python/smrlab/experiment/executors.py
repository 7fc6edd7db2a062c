"""Where an experiment's cells run: one after another in this process (``jobs=1``), in local
worker processes (the default: one per core; ``local``), or on an existing Dask cluster
(``cluster="tcp://HOST:8786"``, workers with smrlab installed; ``cluster``).

``started`` starts the workers at once (before the parent keys and orders the cells, so that
local workers load smrlab meanwhile) and gives an executor whose ``run(pending, done, phases,
handed_out)`` starts the cells in the order of ``pending`` and hands each finished cell to
``done(outcome)`` as it comes, in whatever order cells finish; the caller orders rows by cell
index, so the rows do not depend on where cells ran. ``handed_out()``, when given, is called
once the first cells are handed to the workers and before any outcome is taken: the parent's
check of the experiment runs there, beside the workers' first cells instead of before them; if
it raises, the run stops (the workers at once) with no outcome taken, so nothing is stored. Ctrl-C stops the local workers at once and cancels what a
cluster has not finished. Not here: which cells to run (``spec``), their order (``schedule``)
or what is kept of them (``store``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterator

from smrlab.errors import UsageError
from smrlab.experiment.cells import Outcome, run_cell
from smrlab.experiment.pending import Pending
from smrlab.experiment.stopwatch import Phases

# The most local worker processes a run starts (--jobs).
MAX_JOBS = 1024


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def checked_jobs(jobs: int | None) -> int:
    """``jobs``, or one per core when None; a number outside 1 to ``MAX_JOBS`` is a ``UsageError``."""
    jobs = default_jobs() if jobs is None else jobs
    if isinstance(jobs, bool) or not isinstance(jobs, int) or not 1 <= jobs <= MAX_JOBS:
        raise UsageError(f"--jobs must be a whole number from 1 to {MAX_JOBS}, got {jobs!r}")
    return jobs


class InThisProcess:
    """Cells one after another in this process."""

    at_once = 1

    def __init__(self, run: Callable[..., Outcome] = run_cell):
        self._run = run

    def run(
        self,
        pending: Pending,
        done: Callable[[Outcome], None],
        phases: Phases,
        handed_out: Callable[[], None] | None = None,
    ) -> None:
        if handed_out:  # nothing runs beside this process: the check comes first
            handed_out()
        while pending:
            task = pending.next()
            done(self._run(task.cell, task.key, task.submitted_at, task.attempts))

    def close(self, interrupted: bool = False) -> None:
        pass


@contextlib.contextmanager
def reaching(cluster) -> Iterator:
    """A cluster (``started``'s ``cluster``) being reached in the background from now on
    (``cluster.Connecting``), for a caller with work to do before the run (loading the
    experiment); closed when the block ends unless the run's executor closed it. None stays None."""
    if cluster is None:
        yield None
        return
    # Loaded for a cluster run only: the cluster executor and its logging and queues are 8 ms of
    # every start (python -X importtime, smrlab's command line loaded).
    from smrlab.experiment.cluster import Connecting

    connecting = cluster if isinstance(cluster, Connecting) else Connecting(cluster)
    try:
        yield connecting
    finally:
        connecting.close()


@contextlib.contextmanager
def started(
    cells: int,
    jobs: int | None = None,
    cluster=None,
    share_paths: bool = False,
    run: Callable[..., Outcome] = run_cell,
    phases: Phases | None = None,
) -> Iterator:
    """The executor for ``cells`` cells, started; stopped when the block ends (at once when it
    ends by an error or Ctrl-C). ``run(cell, key, submitted_at, attempts, ...)`` runs one cell
    (``run_cell``; a cluster's workers pass their address and the seconds the trace took to
    reach them)."""
    phases = phases or Phases()
    with phases("workers"):
        if cluster is not None:
            # For a cluster run only: 8 ms of every start (as in ``reaching``).
            from smrlab.experiment.cluster import OnCluster

            executor = OnCluster(cluster, share_paths, run)
        else:
            jobs = min(checked_jobs(jobs), max(1, cells))
            if jobs == 1:
                executor = InThisProcess(run)
            else:
                # For local workers only: the pool and multiprocessing are 6 ms of every start
                # (python -X importtime, smrlab's command line loaded).
                from smrlab.experiment.local import LocalWorkers

                executor = LocalWorkers(jobs, run)
    try:
        yield executor
    except BaseException:
        executor.close(interrupted=True)
        raise
    with phases("workers"):
        executor.close()
