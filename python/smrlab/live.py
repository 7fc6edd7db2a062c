"""Progress on stderr, for every command that can run longer than a few seconds, through one
``rich.progress.Progress`` per process (never in result files).

What runs is a task: a replay (requests done of the trace's), the cells of an experiment or a
line-up (done, running, failed), a command's runs, or a run that lasts a set time (a YCSB run's
seconds). Tasks nest: a sweep's task and the replay running inside it show together.

- On a terminal: rich's bars, updated in place and gone when their task ends.
- Piped (a log, CI): one plain line at most every ``plain_every()`` seconds (5, or
  ``SMRLAB_PROGRESS_SECONDS``), naming every task in progress with its share done and its ETA
  (rich's estimate from the recent rate). A command quicker than that prints none; a longer one
  is never silent longer than that, since a clock prints the line even when no task moved
  (a cell running in a worker process, a long replay between two progress points). A task
  that printed a line ends with one saying it is done (100 %).

Not here: what a command runs, or its results (``smrlab.tables``).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
from collections.abc import Iterator

# Seconds between two plain progress lines (piped output): a quick run prints none.
# SMRLAB_PROGRESS_SECONDS sets another interval (logs that want more or fewer lines).
PLAIN_EVERY = 5.0


def plain_every() -> float:
    try:
        return max(0.0, float(os.environ.get("SMRLAB_PROGRESS_SECONDS", PLAIN_EVERY)))
    except ValueError:
        return PLAIN_EVERY


class Task:
    """One task in progress: ``advance``, ``update`` or (for a replay) call it as the
    ``progress(requests, sim_time_ns)`` callback of ``smrlab.run.simulate``."""

    def __init__(self, board: _Board, description: str, total: float | None, unit: str):
        self.board, self.description, self.unit = board, description, unit
        self.id = board.progress.add_task(description, total=total, state="")
        self.printed = False

    def update(self, completed: float | None = None, total: float | None = None, state: str | None = None) -> None:
        fields = {"state": state} if state is not None else {}
        self.board.progress.update(self.id, completed=completed, total=total, **fields)
        self.board.moved()

    def advance(self, amount: float = 1) -> None:
        self.board.progress.advance(self.id, amount)
        self.board.moved()

    def __call__(self, requests: int, sim_time_ns: int) -> bool:
        """The replay's progress callback: requests done so far. Never cancels."""
        self.update(completed=requests)
        return True

    def line(self) -> str:
        """The task as a plain line's part: done of total, and the ETA."""
        task = self.board.progress._tasks[self.id]
        state = f", {task.fields['state']}" if task.fields.get("state") else ""
        if task.total:
            eta = task.time_remaining
            return (
                f"{self.description}: {task.percentage:.0f} % of {task.total:,.0f} {self.unit}{state}, "
                f"ETA {'?' if eta is None else f'{eta:,.0f} s'}"
            )
        return f"{self.description}: {self.unit} {task.completed:,.0f}{state}, {task.elapsed or 0:,.0f} s so far"


class _Board:
    """The process's tasks and their display: rich on a terminal, plain lines when piped."""

    def __init__(self):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.terminal = sys.stderr.isatty()
        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[state]}"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=True,
            disable=not self.terminal,
        )
        self.tasks: list[Task] = []
        self.lock = threading.RLock()
        self.last_line = time.monotonic()
        self.clock: threading.Thread | None = None

    def begin(self, task_description: str, total: float | None, unit: str) -> Task:
        with self.lock:
            if not self.tasks:
                self.last_line = time.monotonic()
                if self.terminal:
                    self.progress.start()
                elif self.clock is None:
                    self.clock = threading.Thread(target=self._tick, name="smrlab-progress", daemon=True)
                    self.clock.start()
            task = Task(self, task_description, total, unit)
            self.tasks.append(task)
            return task

    def end(self, task: Task, finished: bool) -> None:
        with self.lock:
            self.tasks.remove(task)
            if finished and task.printed and not self.terminal:
                total = self.progress._tasks[task.id].total
                print(
                    f"{task.description}: " + (f"100 % of {total:,.0f} {task.unit}" if total else "done"),
                    file=sys.stderr,
                    flush=True,
                )
            self.progress.remove_task(task.id)
            if not self.tasks and self.terminal:
                self.progress.stop()

    def moved(self) -> None:
        if not self.terminal:
            self._print_if_due()

    def _print_if_due(self) -> None:
        with self.lock:
            now = time.monotonic()
            if not self.tasks or now - self.last_line < plain_every():
                return
            self.last_line = now
            for task in self.tasks:
                task.printed = True
            print(" | ".join(task.line() for task in self.tasks), file=sys.stderr, flush=True)

    def _tick(self) -> None:
        while True:
            time.sleep(max(0.2, plain_every() / 5))
            self._print_if_due()

    def say(self, message: str) -> None:
        """A line for the user that must not tear a bar (a failed cell)."""
        if self.terminal:
            self.progress.console.print(message, markup=False, highlight=False)
        else:
            print(message, file=sys.stderr, flush=True)


_board: _Board | None = None


def _the_board() -> _Board:
    global _board
    if _board is None:
        _board = _Board()
    return _board


@contextlib.contextmanager
def task(description: str, total: float | None = None, unit: str = "") -> Iterator[Task]:
    """A task shown while the block runs (``total`` units of work, if known)."""
    board = _the_board()
    shown = board.begin(description, total, unit)
    finished = False
    try:
        yield shown
        finished = True
    finally:
        board.end(shown, finished)


@contextlib.contextmanager
def timed(description: str, seconds: float) -> Iterator[Task]:
    """A task that lasts about ``seconds`` of wall-clock time (a YCSB run's arrivals), shown
    as the seconds gone of those."""
    with task(description, total=seconds, unit="s") as shown:
        start = time.monotonic()
        stop = threading.Event()

        def clock() -> None:
            while not stop.wait(0.5):
                shown.update(completed=min(seconds, time.monotonic() - start))

        ticker = threading.Thread(target=clock, name="smrlab-timed", daemon=True)
        ticker.start()
        try:
            yield shown
        finally:
            stop.set()
            ticker.join()


def say(message: str) -> None:
    """A line on stderr that keeps clear of the bars."""
    _the_board().say(message)


class CellProgress:
    """The cells of an experiment as a task — done of all, with those running and failed — for
    ``smrlab.orchestrator.run``, which calls ``begin``, ``running``, ``finished`` and ``end``."""

    def __init__(self, title: str, unit: str = "cells"):
        self.title, self.unit = title, unit
        self._context = None
        self.task: Task | None = None
        self.at_once = self.done = self.failed = self.total = 0

    def begin(self, total: int, reused: int) -> None:
        if reused:
            say(f"{self.title}: {reused} of {total} cells already stored, not run again")
        self.total, self.done = total, reused
        self._context = task(self.title, total=total, unit=self.unit)
        self.task = self._context.__enter__()
        self._show()

    def running(self, at_once: int) -> None:
        self.at_once = at_once
        self._show()

    def finished(self, error: str | None, label: str) -> None:
        self.done += 1
        if error:
            self.failed += 1
            say(f"{self.title}/{label}: failed: {error}")
        self._show()

    def _show(self) -> None:
        running = min(self.at_once, self.total - self.done)
        self.task.update(completed=self.done, state=f"{running} running, {self.failed} failed")

    def end(self) -> None:
        if self._context is not None:
            self._context.__exit__(*sys.exc_info())
            self._context = None
