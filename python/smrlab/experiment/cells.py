"""One cell of an experiment: a single simulation (system, given parameters, trace, seed,
engine), its key, and the function every executor calls to run it, which also measures what
running it cost.

A cell's key is a digest of everything that determines its numbers (label, system, its
parameters resolved as the core resolves them, defaults included, the trace's checksum and
reader, seed, engine, and the model's fingerprint: a digest of the code behind the system,
``smrlab.fingerprint``), so a stored cell is found again on ``--resume`` and a changed trace,
parameter, default or model never reuses an old one. ``run_cell`` never raises for a user
error: a failed cell comes back with its message, and the other cells go on.

What a cell cost (``Timing``: wall and CPU time, peak memory, the worker, the wait from
submission to start, attempts) is wall-clock and lives beside the result, never in it or in
the key: the same cell gives the same numbers whatever it cost. A trace's footprint (the first
pass of every replay; free for a smrlab binary trace, which carries it) is measured in a
worker and kept in the cache folder, where the other workers and later runs find it; the
parent measures only those of the cells it probes before the run (``check``) and hands them
over. Not here: which cells an experiment has (``spec``), where they run
(``executors``), storing them (``store``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import socket
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from smrlab import _core, cache, fingerprint, policy, systems
from smrlab.errors import SmrlabError
from smrlab.result import tidy_row
from smrlab.run import footprint, simulate
from smrlab.trace import Trace


@dataclass
class Cell:
    index: int
    label: str
    system: str
    trace_name: str
    trace: Trace
    given: dict[str, str]
    seed: int
    engine: dict
    # Known before the cell starts, so that a worker need not read the trace for them: the
    # trace's checksum (the parent's, from keying the cell) and, for a cell the parent probed
    # (``experiment.check``), its footprint.
    checksum: str | None = field(default=None, compare=False)
    footprint: dict | None = field(default=None, compare=False)

    def params(self) -> list[str]:
        return [f"{key}={value}" for key, value in self.given.items()]

    def trace_checksum(self) -> str:
        if self.checksum is None:
            self.checksum = self.trace.checksum()
        return self.checksum

    def describe(self) -> dict[str, Any]:
        """What determines the cell's numbers, as plain data (with the text hash of each Python
        policy its parameters name, when there are any)."""
        own = policy.fingerprints(self.given)
        return {
            **({"policies": own} if own else {}),
            "label": self.label,
            "system": self.system,
            "params": systems.resolved(self.system, self.given),
            "model": fingerprint.of_system(self.system, self.given),
            "trace": {
                "name": self.trace_name,
                "checksum": self.trace_checksum(),
                "format": self.trace.format,
                "options": list(self.trace.options),
            },
            "seed": self.seed,
            "engine": self.engine,
        }

    def key(self) -> str:
        """16 hex digits of the SHA-256 of ``describe()``."""
        text = json.dumps(self.describe(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class Timing:
    """What running a cell cost, measured where it ran (wall-clock: never part of a result).

    ``wait_s`` is from the parent's submission to the start on the worker (across machines it
    includes the difference of their clocks); ``peak_rss_bytes`` is the worker process's
    largest resident memory during the cell (Linux resets the mark before each cell; elsewhere
    it is the process's peak so far); ``footprint_s`` the footprint pass this cell made (0 when
    it was known) and ``fetch_s`` the time the trace took to reach the worker (a cluster)."""

    worker: str
    submitted_at: float
    started_at: float
    wall_s: float
    cpu_s: float
    peak_rss_bytes: int
    footprint_s: float = 0.0
    fetch_s: float = 0.0
    requests: int | None = None
    attempts: int = 1

    @property
    def wait_s(self) -> float:
        return self.started_at - self.submitted_at

    @property
    def ended_at(self) -> float:
        return self.started_at + self.wall_s

    def record(self) -> dict[str, Any]:
        """As stored in a cell file and the provenance (``wait_s`` included)."""
        return {**asdict(self), "wait_s": self.wait_s}

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Timing:
        return cls(**{name: record[name] for name in cls.__dataclass_fields__ if name in record})


@dataclass
class Outcome:
    """What running a cell gave: the result dict, or the error that stopped it, and its cost."""

    index: int
    key: str
    result: dict | None
    error: str | None
    timing: Timing | None = None

    def row(self, cell: Cell) -> dict[str, Any]:
        """The cell's tidy row (``smrlab.result.tidy_row``), with its key and error; a failed
        cell's row says what ran and why it has no measures. A key-value cell makes its own
        row (``smrlab.experiment.kv``)."""
        if not isinstance(cell, Cell):
            return cell.row(self)
        if self.result is None:
            row = {
                "label": cell.label,
                "system": cell.system,
                "trace": cell.trace_name,
                "seed": cell.seed,
                **cell.given,
            }
        else:
            row = tidy_row(self.result, cell.label, cell.given)
            row["trace"] = cell.trace_name
        return {"cell": self.key, **row, "error": self.error}


def this_worker() -> str:
    """``HOST:PID`` of this process."""
    return f"{socket.gethostname()}:{os.getpid()}"


_CLEAR_REFS = "/proc/self/clear_refs"
_STATUS = "/proc/self/status"


def _reset_peak_memory() -> None:
    # Linux: writing 5 to clear_refs resets the process's VmHWM to its current resident size.
    try:
        with open(_CLEAR_REFS, "w") as handle:
            handle.write("5")
    except OSError:
        pass


def _peak_memory() -> int:
    try:
        with open(_STATUS) as handle:
            found = re.search(r"VmHWM:\s+(\d+) kB", handle.read())
        if found:
            return int(found.group(1)) * 1024
    except OSError:
        pass
    import resource
    import sys

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak if sys.platform == "darwin" else peak * 1024


def _core_build() -> tuple[int, int]:
    """Size and time of the compiled core: a rebuilt core measures footprints afresh."""

    built = os.stat(_core.__file__)
    return built.st_size, built.st_mtime_ns


def _footprint(cell: Cell) -> tuple[dict | None, float]:
    """The cell's trace footprint (given, or measured once and kept by ``smrlab.cache``, in
    this process and the cache folder, by the trace's checksum, format and options, so that the
    other workers and later runs read it rather than pass over the trace again) and the
    seconds measuring took here; None for a trace in memory (the replay measures it)."""
    if cell.footprint is not None or cell.trace.path is None:
        return cell.footprint, 0.0

    start, measured = time.perf_counter(), []

    def measure() -> str:
        measured.append(True)
        return json.dumps(footprint(cell.trace))

    identity = (cell.trace_checksum(), cell.trace.format, tuple(cell.trace.options), _core_build())
    text = cache.remembered("footprints", identity, measure, _a_footprint)
    return json.loads(text), (time.perf_counter() - start if measured else 0.0)


def _a_footprint(text: str) -> bool:
    try:
        return isinstance(json.loads(text), dict)
    except ValueError:
        return False


def run_cell(
    cell: Cell,
    key: str | None = None,
    submitted_at: float | None = None,
    attempts: int = 1,
    worker: str | None = None,
    fetch_s: float = 0.0,
) -> Outcome:
    """Runs one cell (in whichever process or worker it was sent to) and measures it."""

    key = key or cell.key()
    # A trace fetched for this cell (``fetch_s`` seconds) was part of it.
    started_at, start, cpu = time.time() - fetch_s, time.perf_counter(), time.thread_time()
    _reset_peak_memory()
    result = error = None
    footprint_s = 0.0
    try:
        if isinstance(cell, Cell):
            footprint, footprint_s = _footprint(cell)
            result = simulate(
                cell.system, cell.trace, cell.params(), engine=cell.engine, seed=cell.seed, footprint=footprint
            )
        else:  # a key-value cell (``smrlab.experiment.kv``) runs itself
            done = cell.run(key)
            result, error = done.result, done.error
    except SmrlabError as failure:
        error = str(failure)
    except (ValueError, TypeError, OSError) as failure:
        error = f"{type(failure).__name__}: {failure}"
    timing = Timing(
        worker=worker or this_worker(),
        submitted_at=started_at if submitted_at is None else submitted_at,
        started_at=started_at,
        wall_s=time.perf_counter() - start + fetch_s,
        cpu_s=time.thread_time() - cpu,
        peak_rss_bytes=_peak_memory(),
        footprint_s=footprint_s,
        fetch_s=fetch_s,
        requests=(result.get("report") or {}).get("requests") if result else None,
        attempts=attempts,
    )
    return Outcome(cell.index, key, result, error, timing)


def failed(cell: Cell, key: str, error: str, submitted_at: float, attempts: int, worker: str) -> Outcome:
    """The outcome of a cell that never finished on a worker (it died running it)."""
    now = time.time()
    return Outcome(
        cell.index,
        key,
        None,
        error,
        Timing(
            worker=worker,
            submitted_at=submitted_at,
            started_at=now,
            wall_s=0.0,
            cpu_s=0.0,
            peak_rss_bytes=0,
            attempts=attempts,
        ),
    )
