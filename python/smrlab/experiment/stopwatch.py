"""The parent's own work in a run (keying cells, ordering them, starting workers, sending
traces, storing cells, assembling the table, figures), timed by phase for the run's
provenance: what the workers cannot do while the parent does it.
"""

from __future__ import annotations

import contextlib
import time
from collections import defaultdict
from collections.abc import Iterator


class Phases:
    """Seconds spent in each named phase (summed over every time it ran), counts of what the
    parent did (e.g. traces sent to workers, and their bytes), and when the run began (seconds
    since the epoch)."""

    def __init__(self):
        self.begun = time.time()
        self.seconds: dict[str, float] = defaultdict(float)
        self.counts: dict[str, int] = defaultdict(int)

    @contextlib.contextmanager
    def __call__(self, name: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.seconds[name] += time.perf_counter() - start
