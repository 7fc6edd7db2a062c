"""Local worker processes for an experiment's cells: ``jobs`` processes, started as soon as
they are asked for, each handed one cell at a time in the order given, each cell's outcome
handed back as it finishes.

A worker is forked where that is safe (Linux, and a parent with no other thread, as the
command line is when it starts them): it starts in milliseconds with smrlab already loaded.
Otherwise (other systems, or a parent with threads, where a fork can inherit a lock some
thread held) it is spawned, and loads smrlab in a third of a second while the parent prepares
the cells.

A worker that dies running a cell (killed, out of memory, a crash in native code) is replaced
by a new process, and its cell is retried once there; if that one dies too, the cell is
recorded as failed with the reason, and the other cells go on. This is why the workers are our
own processes rather than a pool: ``multiprocessing.Pool`` waits for ever for the result of a
worker that died, ``concurrent.futures.ProcessPoolExecutor`` fails every cell still queued,
and pebble's pool breaks as a whole when a worker dies between cells; handing one cell at a
time to one process is also what keeps the longest-first order. Ctrl-C stops every worker at
once. Not here: the order of the cells (``schedule``), a cluster (``cluster``).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import signal
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait

from smrlab.experiment.cells import Outcome, run_cell
from smrlab.experiment.pending import LOOKAHEAD, Handed, Pending, dead_worker
from smrlab.experiment.stopwatch import Phases

# Seconds a worker asked to stop gets before it is killed.
STOP_SECONDS = 5.0


def _serve(connection: Connection, run: Callable[..., Outcome]) -> None:
    """A worker's life: run each cell sent until told to stop (None) or the parent is gone."""
    # The parent notices Ctrl-C and stops the workers; they must not print tracebacks of their own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        try:
            task = connection.recv()
        except (EOFError, OSError):
            return
        if task is None:
            return
        cell, key, submitted_at, attempts = task
        connection.send(run(cell, key, submitted_at, attempts))


@dataclass(eq=False)
class _Worker:
    process: multiprocessing.process.BaseProcess
    connection: Connection

    def ask_to_stop(self, kill: bool) -> None:
        if kill:
            self.process.kill()
        else:
            try:
                self.connection.send(None)
            except OSError:
                pass

    def join_dead(self) -> None:
        """Reaps a worker that died (or is dying: it is killed)."""
        self.ask_to_stop(kill=True)
        self.join()

    def join(self) -> None:
        self.process.join(STOP_SECONDS)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.connection.close()


def start_method() -> str:
    """``fork`` on Linux in a parent with one thread, else ``spawn``."""
    return "fork" if sys.platform.startswith("linux") and threading.active_count() == 1 else "spawn"


@contextlib.contextmanager
def _caller_not_rerun():
    """While a worker is spawned, hides the file of a plain script that called us (``python
    script.py``: ``__main__`` has a ``__file__`` and no module spec), so that the spawned
    worker does not run it again as ``__mp_main__`` — which, without an ``if __name__ ==
    "__main__":`` guard, would start workers of its own without end. The workers need only
    smrlab's modules; a module run with ``-m`` and a notebook are started as they are."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or path is None or getattr(main, "__spec__", None) is not None:
        yield
        return
    del main.__file__
    try:
        yield
    finally:
        main.__file__ = path


class LocalWorkers:
    """``jobs`` worker processes that run ``run(cell, key, submitted_at, attempts)``."""

    def __init__(self, jobs: int, run: Callable[..., Outcome] = run_cell):
        self.jobs, self._run = jobs, run
        self._workers = [self._start() for _ in range(jobs)]

    def _start(self) -> _Worker:
        # Chosen for each worker: one that replaces a dead worker may start when threads run.
        context = multiprocessing.get_context(start_method())
        ours, theirs = context.Pipe()
        process = context.Process(target=_serve, args=(theirs, self._run), daemon=True, name="smrlab-worker")
        with _caller_not_rerun():
            process.start()
        theirs.close()
        return _Worker(process, ours)

    @property
    def at_once(self) -> int:
        return self.jobs

    def run(
        self,
        pending: Pending,
        done: Callable[[Outcome], None],
        phases: Phases,
        handed_out: Callable[[], None] | None = None,
    ) -> None:
        """Runs every cell of ``pending``, handing each outcome to ``done`` as it comes
        (``handed_out``: ``executors``)."""
        handed = Handed()
        while pending or handed:
            # One cell at a time to the worker with the fewest, so the longest start first.
            while pending and handed.count(worker := min(self._workers, key=handed.count)) < 1 + LOOKAHEAD:
                task = pending.next()
                handed.add(worker, task)
                try:
                    worker.connection.send((task.cell, task.key, task.submitted_at, task.attempts))
                except OSError:
                    pass  # the worker is gone: found below by its end
            if handed_out:
                handed_out()
                handed_out = None
            busy = handed.workers()
            ends = {worker.process.sentinel: worker for worker in busy}
            for ready in wait([worker.connection for worker in busy] + list(ends)):
                worker = ends.get(ready) or next(w for w in busy if w.connection is ready)
                if worker not in self._workers:
                    continue  # its result and its end were both ready: replaced already
                try:
                    outcome = worker.connection.recv() if worker.connection.poll() else None
                except (EOFError, OSError):
                    outcome = None
                if outcome is not None:
                    handed.finished(worker, outcome.index)
                    done(outcome)
                if outcome is None or not worker.process.is_alive():
                    worker.join_dead()
                    for gave_up in handed.lost(
                        worker, 1, dead_worker(worker.process.exitcode), f"pid {worker.process.pid}", pending
                    ):
                        done(gave_up)
                    self._workers[self._workers.index(worker)] = self._start()

    def close(self, interrupted: bool = False) -> None:
        """Stops the workers: at once when ``interrupted``, else once they finish their cell."""
        for worker in self._workers:
            worker.ask_to_stop(kill=interrupted)
        for worker in self._workers:
            worker.join()
        self._workers = []
