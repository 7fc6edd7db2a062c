"""Progress on stderr, never in result files: one long run (percent and ETA, an updating line
on a terminal, plain lines when piped), and the cells of an experiment (a bar on a terminal,
plain lines when piped)."""

from __future__ import annotations

import sys


class RunProgress:
    """A progress callback for ``smrlab.run.simulate``: requests done out of ``total``, the
    percentage and an ETA (from the rate so far), on one updating line on a terminal; as plain
    lines every ``plain_every()`` seconds when stderr is piped (a quick run prints none, and a
    run that printed some ends with its 100 % line: ``done``)."""

    def __init__(self, label: str, total: int | None, terminal: bool):
        import time
        self.label, self.total, self.terminal = label, total, terminal
        self.printed = False
        self._start = self._last_line = time.monotonic()

    def __call__(self, requests: int, sim_time_ns: int) -> bool:
        import time
        now = time.monotonic()
        if self.total:
            eta = (now - self._start) / requests * (self.total - requests) if requests else float("nan")
            text = f"{self.label}: {100 * requests / self.total:.0f} % of {self.total:,} requests, ETA {eta:,.0f} s"
        else:
            text = f"{self.label}: {requests:,} requests, {sim_time_ns / 1e9:,.1f} s simulated"
        if self.terminal:
            print(f"\r{text}", end="", file=sys.stderr, flush=True)
        elif now - self._last_line >= plain_every():
            self._last_line, self.printed = now, True
            print(text, file=sys.stderr, flush=True)
        return True


def reporter(label: str, total: int | None = None, terminal: bool | None = None) -> RunProgress | None:
    """A ``RunProgress`` for one run (``total`` requests, if known), or None where it would show
    nothing: stderr piped and no total."""
    terminal = sys.stderr.isatty() if terminal is None else terminal
    return RunProgress(label, total, terminal) if terminal or total else None


def done(show: RunProgress | None = None) -> None:
    """Ends a run's progress: clears the terminal's line, or, where plain lines were printed,
    prints the last one (100 %)."""
    if sys.stderr.isatty():
        print("\r\033[K", end="", file=sys.stderr, flush=True)
    elif show is not None and show.printed:
        print(f"{show.label}: 100 % of {show.total:,} requests", file=sys.stderr, flush=True)


# Seconds between two plain progress lines (piped output): a quick run prints none.
# SMRLAB_PROGRESS_SECONDS sets another interval (logs that want more or fewer lines).
PLAIN_EVERY = 5.0


def plain_every() -> float:
    import os
    try:
        return max(0.0, float(os.environ.get("SMRLAB_PROGRESS_SECONDS", PLAIN_EVERY)))
    except ValueError:
        return PLAIN_EVERY


class CellProgress:
    """Progress of an experiment's cells on stderr — done, running and failed, with an ETA: a
    rich bar on a terminal, otherwise a plain line (for logs and pipes) when a cell finishes
    ``PLAIN_EVERY`` seconds or more after the last line (or the start)."""

    def __init__(self, title: str, terminal: bool | None = None):
        self.title = title
        self.terminal = sys.stderr.isatty() if terminal is None else terminal
        self.total = self.done = self.failed = self.at_once = 0
        self._bar = self._task = None
        self._start = self._last_line = 0.0

    def begin(self, total: int, reused: int) -> None:
        import time
        self.total, self.done, self._start = total, reused, time.monotonic()
        self._last_line = self._start
        self._reused = reused
        if reused:
            print(f"{self.title}: {reused} of {total} cells already stored, not run again", file=sys.stderr)
        if self.terminal:
            from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
            self._bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TextColumn("{task.fields[state]}"), TimeRemainingColumn(), transient=True)
            self._bar.start()
            self._task = self._bar.add_task(self.title, total=total, completed=reused, state="")
            self._show()

    def running(self, at_once: int) -> None:
        self.at_once = at_once
        self._show()

    def _running_now(self) -> int:
        return min(self.at_once, self.total - self.done)

    def _eta(self) -> str:
        import time
        ran = self.done - self._reused
        if ran <= 0:
            return "?"
        seconds = (time.monotonic() - self._start) / ran * (self.total - self.done)
        return f"{seconds:.0f} s"

    def _show(self) -> None:
        if self._bar is not None:
            self._bar.update(self._task, completed=self.done,
                             state=f"{self._running_now()} running, {self.failed} failed")

    def finished(self, error: str | None, label: str) -> None:
        import time
        self.done += 1
        if error:
            self.failed += 1
        if self._bar is not None:
            self._show()
            if error:
                self._bar.console.print(f"{label}: failed: {error}")
        elif time.monotonic() - self._last_line >= plain_every():
            self._last_line = time.monotonic()
            print(f"{self.title}: {self.done}/{self.total} cells done, {self._running_now()} running, "
                  f"{self.failed} failed, ETA {self._eta()}", file=sys.stderr, flush=True)

    def end(self) -> None:
        if self._bar is not None:
            self._bar.stop()
