"""The cells of a run still to start, in the order to start them, and the attempts each has had:
what every executor takes its next cell from (``Pending``); and the cells handed to each worker
and not finished yet (``Handed``). A worker is handed ``LOOKAHEAD`` cells beyond those it runs,
so that it starts the next one as soon as it finishes one, without waiting for the parent to
hear of it. A cell whose worker died under it goes back to the front for one more attempt on
another worker (the cells only waiting there go back as they were); after ``ATTEMPTS`` it is
given up as failed, with the reason. Not here: the order itself (``schedule``) or the workers
(``local``, ``cluster``).
"""

from __future__ import annotations

import signal
import time
from collections import defaultdict, deque
from collections.abc import Hashable
from dataclasses import dataclass

from smrlab.experiment.cells import Cell, Outcome, failed

# Attempts a cell gets when workers die running it: the first and one retry.
ATTEMPTS = 2
# Cells handed to a worker beyond those it can run at once.
LOOKAHEAD = 1


@dataclass(frozen=True)
class Task:
    cell: Cell
    key: str
    submitted_at: float  # when it was queued (seconds since the epoch)
    attempts: int = 1


class Pending:
    def __init__(self, cells: list[tuple[Cell, str]]):
        queued = time.time()
        self._tasks = deque(Task(cell, key, queued) for cell, key in cells)

    def __bool__(self) -> bool:
        return bool(self._tasks)

    def __len__(self) -> int:
        return len(self._tasks)

    def tasks(self) -> list[Task]:
        """The tasks still to start, in order."""
        return list(self._tasks)

    def next(self) -> Task:
        return self._tasks.popleft()

    def put_back(self, task: Task) -> None:
        """A task that never started (no worker took it): first again, its attempts unchanged."""
        self._tasks.appendleft(task)

    def again(self, task: Task, reason: str, worker: str) -> Outcome | None:
        """A task whose worker died running it: queued first for another attempt, or, once it
        had ``ATTEMPTS``, its failed outcome (to store as such)."""
        if task.attempts < ATTEMPTS:
            self._tasks.appendleft(Task(task.cell, task.key, time.time(), task.attempts + 1))
            return None
        return failed(
            task.cell,
            task.key,
            f"its worker died running it {task.attempts} times (last: {reason}, worker {worker}); not tried again",
            task.submitted_at,
            task.attempts,
            worker,
        )


def dead_worker(exitcode: int | None) -> str:
    """How a worker process ended, from its exit code."""
    if exitcode is not None and exitcode < 0:
        try:
            return f"killed by {signal.Signals(-exitcode).name}"
        except ValueError:
            return f"killed by signal {-exitcode}"
    return f"exit code {exitcode}" if exitcode is not None else "lost"


class Handed:
    """The tasks handed to each worker, in the order it runs them, until each finishes."""

    def __init__(self):
        self._by_worker: dict[Hashable, deque[Task]] = defaultdict(deque)

    def __bool__(self) -> bool:
        return any(self._by_worker.values())

    def count(self, worker: Hashable) -> int:
        return len(self._by_worker.get(worker, ()))

    def workers(self) -> list[Hashable]:
        return [worker for worker, tasks in self._by_worker.items() if tasks]

    def add(self, worker: Hashable, task: Task) -> None:
        self._by_worker[worker].append(task)

    def finished(self, worker: Hashable, index: int) -> Task | None:
        """The task of cell ``index`` that ``worker`` finished (None if it was not handed there)."""
        tasks = self._by_worker.get(worker, deque())
        for task in tasks:
            if task.cell.index == index:
                tasks.remove(task)
                return task
        return None

    def lost(self, worker: Hashable, running: int, reason: str, name: str, pending: Pending) -> list[Outcome]:
        """``worker`` died, or left: the first ``running`` of its tasks were running, and count
        an attempt; the others go back as they were. The outcomes of the cells given up."""
        tasks = list(self._by_worker.pop(worker, ()))
        for task in reversed(tasks[running:]):
            pending.put_back(task)
        gave_up = [pending.again(task, reason, name) for task in reversed(tasks[:running])]
        return [outcome for outcome in gave_up if outcome is not None]
