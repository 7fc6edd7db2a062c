"""Progress lines for long runs, shown only when stderr is a terminal (never in result files)."""

from __future__ import annotations

import sys
from typing import Callable


def reporter(label: str) -> Callable[[int, int], bool] | None:
    """A progress callback for ``smrlab.run.simulate`` printing requests done and simulated time,
    or None when stderr is not a terminal."""
    if not sys.stderr.isatty():
        return None

    def show(requests: int, sim_time_ns: int) -> bool:
        print(f"\r{label}: {requests:,} requests, {sim_time_ns / 1e9:,.1f} s simulated", end="", file=sys.stderr, flush=True)
        return True

    return show


def done() -> None:
    if sys.stderr.isatty():
        print("\r\033[K", end="", file=sys.stderr, flush=True)
