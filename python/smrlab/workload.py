"""Key-value workloads from Python: arrival series (constant, Poisson, b-model self-similar,
envelope-guided diurnal: the SMRDB thesis's §4.1, parameters named as its Table 4.1), series
files, YCSB runs through the open-loop executor against SMRDB, its write-offloading variant or
any Redis-protocol server, and the NVRAM lifetime estimate of the thesis's Fig. 5.3.

    from smrlab import workload
    t = workload.arrivals("selfsimilar", rate=1000, duration=60, bias=0.65, seed=1)   # ns
    counts = workload.counts(t, interval=1.0, duration=60)        # arrivals per second
    store = workload.WorkloadStore(path=None, disk="desktop7200")  # SMRDB in memory, paced disk
    result = workload.run_ycsb(store, "a", process="poisson", rate=500, duration=10)
    result["summary"]["latency"]["p99_ns"]

The generators, the executor and the stores are the Rust crate ``smr-workload``; statistics of
series are ``smrlab.hurst``; the thesis's experiments are ``smrlab.workload_experiments``.
"""

from __future__ import annotations

import json
import math
from os import PathLike

import numpy as np

from smrlab import _core, arrival_names, live, options
from smrlab._core import WorkloadError
from smrlab.errors import ParameterError, UsageError
from smrlab.kv import store_path
from smrlab.options import quoted

__all__ = [
    "MAX_ARRIVALS",
    "MAX_THREADS",
    "PROCESSES",
    "SeriesError",
    "WorkloadError",
    "WorkloadStore",
    "arrival_params",
    "arrivals",
    "check_memory_store",
    "counts",
    "interarrivals",
    "nvram_lifetime",
    "read_series",
    "run_ycsb",
    "write_series",
]

PROCESSES = ("constant", "poisson", "selfsimilar", "diurnal")
# The most executor workers a run may have.
MAX_THREADS = _core.MAX_THREADS
# The most arrivals one schedule holds (rate x duration, and a diurnal run's worst case).
MAX_ARRIVALS = _core.MAX_ARRIVALS
# The offloading store's buffer levels, L0 to L2, at their declared defaults (§5.3's 10, 10 and
# 100 bands; smrdb's offload::OFFLOAD_TUNING).
BUFFER_BANDS = [int(p[1]) for p in _core.offload_params() if p[0].endswith("_buffer_bands")]
SEED_MAX = 2**64 - 1
# The most intervals ``counts`` makes (8 bytes each).
MAX_COUNTS = 10**8


def _whole(value, name: str, low: int, high: int) -> int:
    """``value`` as an int from ``low`` to ``high``, or a ParameterError naming ``name``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not low <= value <= high:
        raise ParameterError(f"{name} must be a whole number from {low} to {high}, not {quoted(repr(value))}")
    return int(value)


def client_threads(text) -> int:
    """Executor workers from a cell's ``threads`` (text or a number): 1 to ``MAX_THREADS`` (the
    core's limit), or a UsageError naming threads."""
    import argparse

    try:
        return options.bounded_whole(1, MAX_THREADS)(str(text))
    except argparse.ArgumentTypeError as error:
        raise UsageError(f"threads: {error}") from None


def _seconds(value, name: str) -> float:
    """``value`` as seconds, more than 0 and at most ``_core.MAX_SERVER_TIMEOUT_S``, or a
    ParameterError naming ``name``."""
    high = _core.MAX_SERVER_TIMEOUT_S
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) or not 0 < value <= high:
        raise ParameterError(f"{name} must be seconds, more than 0 and at most {high:g}, not {quoted(repr(value))}")
    return float(value)


def WorkloadStore(
    offload_store: bool = False,
    path: str | PathLike | None = None,
    disk: str | None = None,
    band_size: int | None = None,
    capacity: int | None = None,
    compaction: str | None = None,
    tuning: dict | None = None,
    buffer_bands: tuple[int, ...] | None = None,
    offload: bool = True,
    nvram_capacity: int | None = None,
    check_interval: float | None = None,
    quiet_interval: float | None = None,
    offload_to: str = "nvram",
    offload_delay: float = 0.0,
) -> _core.WorkloadStore:
    """SMRDB, or with ``offload_store`` its write-offloading variant, for ``run_ycsb`` (the
    core's store, made by a function since Python cannot subclass it): in
    ``path``, or in memory; on the ``disk`` preset's model taken in real time, or at full speed;
    ``buffer_bands`` the bands of each buffer level (L0 to L2). Each argument of the wrong kind
    is a ``ParameterError`` naming it; values are the core's to check (``KvParameterError``,
    ``ParameterError``), as the core's store is what this makes."""
    given = locals()
    for name in ("offload_store", "offload"):
        if not isinstance(given[name], bool):
            raise ParameterError(f"{name} must be True or False, not {given[name]!r:.60}")
    for name in ("disk", "compaction", "offload_to"):
        if not isinstance(given[name], str) and not (given[name] is None and name != "offload_to"):
            raise ParameterError(f"{name} must be a name (str), not {given[name]!r:.60}")
    for name in ("band_size", "capacity", "nvram_capacity"):
        if given[name] is not None and (
            isinstance(given[name], bool) or not isinstance(given[name], (int, np.integer))
        ):
            raise ParameterError(f"{name} must be a whole number of bytes, not {given[name]!r:.60}")
    seconds = {name: _given_number(given[name], name) for name in ("check_interval", "quiet_interval", "offload_delay")}
    if tuning is not None and not isinstance(tuning, dict):
        raise ParameterError(f"tuning must be a dict of SMRDB's options, not {tuning!r:.60}")
    return _core.WorkloadStore(
        offload_store,
        None if path is None else store_path(path, ParameterError),
        disk,
        None if band_size is None else int(band_size),
        None if capacity is None else int(capacity),
        compaction,
        tuning,
        None if buffer_bands is None else _buffer_levels(buffer_bands),
        offload,
        None if nvram_capacity is None else int(nvram_capacity),
        seconds["check_interval"],
        seconds["quiet_interval"],
        offload_to,
        0.0 if seconds["offload_delay"] is None else seconds["offload_delay"],
    )


def _given_number(value, name: str, unit: str = "seconds", optional: bool = True) -> float | None:
    """``value`` as a float for the core (which checks its range), None when ``optional`` and
    not given, or a ParameterError naming ``name``."""
    if value is None and optional:
        return None
    try:
        if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
            raise TypeError
        return float(value)
    except (TypeError, OverflowError):
        raise ParameterError(f"{name} must be {unit} (a number), not {value!r:.60}") from None


def _buffer_levels(bands) -> tuple[int, ...]:
    """``bands`` as the core takes them: one whole number per buffer level (how many bands each
    may hold is the core's to check)."""
    if (
        not isinstance(bands, (tuple, list))
        or len(bands) != len(BUFFER_BANDS)
        or not all(isinstance(b, (int, np.integer)) and not isinstance(b, bool) and 0 <= b <= SEED_MAX for b in bands)
    ):
        raise ParameterError(
            f"buffer_bands must be {len(BUFFER_BANDS)} whole numbers of bands, L0 to L2 (e.g. "
            f"{tuple(BUFFER_BANDS)}), not {bands!r:.60}"
        )
    return tuple(int(b) for b in bands)


class SeriesError(UsageError):
    """A series file that cannot be read: named with the line at fault."""


def arrival_params(
    process: str,
    rate: float,
    duration: float,
    *,
    bias: float | None = None,
    modulation: float | None = None,
    cycle_minutes: float | None = None,
    distribution: str | None = None,
    shape: float | None = None,
    resolution: float | None = None,
) -> list[tuple[str, str]]:
    """The Table 4.1 parameters (and YCSB's ``target``) of an arrival process; a parameter the
    process needs and is not given is a ParameterError naming its keyword."""
    if not isinstance(process, str):
        raise ParameterError(f"process must be an arrival process's name (str), not {process!r:.60}")
    rate = _given_number(rate, "rate", "arrivals per second", optional=False)
    duration = _given_number(duration, "duration", optional=False)
    options = {
        "bias": bias,
        "resolution": resolution,
        "modulation": modulation,
        "cycle_minutes": cycle_minutes,
        "distribution": distribution,
        "shape": shape,
    }
    arrival_names.check_required(process, options)
    params = [("arrivalgenerator", process), ("target", repr(rate)), ("duration", repr(duration))]
    return params + [(arrival_names.KEYWORDS[word], str(value)) for word, value in options.items() if value is not None]


def arrivals(process: str, rate: float, duration: float, seed: int = 1, **options) -> np.ndarray:
    """Arrival times in nanoseconds from the start (int64, non-decreasing, below ``duration``
    seconds); ``options`` as ``arrival_params``'s."""
    with arrival_names.named_as():
        packed = _core.arrival_schedule(
            arrival_params(process, rate, duration, **options), _whole(seed, "seed", 0, SEED_MAX)
        )
    return np.frombuffer(packed, dtype="<u8").astype(np.int64)


def available_memory() -> int | None:
    """Bytes of memory this machine has available now (Linux's MemAvailable), if it says."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def check_memory_store(records: float, record_bytes: int, capacity: int | None, what: str) -> None:
    """Refuses, before a store in memory is made, ``records`` records of ``record_bytes`` each
    that are more than its device holds (``capacity``, if given) or than this machine has
    memory available."""
    needed = float(records) * record_bytes
    count = f"{records:,.0f}" if records < 1e15 else f"{records:.3g}"
    if capacity is not None and needed > capacity:
        raise UsageError(
            f"{what}: {count} records of {record_bytes:,} bytes are {needed:.3g} bytes, over the {capacity:,} "
            "the store's device holds (a larger --capacity, or fewer records)"
        )
    available = available_memory()
    if available is not None and needed > available:
        raise UsageError(
            f"{what}: {count} records of {record_bytes:,} bytes would hold {needed / 1e9:.3g} GB in memory, "
            f"and this machine has {available / 1e9:,.1f} GB available"
        )


def interarrivals(times_ns: np.ndarray) -> np.ndarray:
    """Seconds between consecutive arrivals."""
    return np.diff(np.asarray(times_ns, dtype=np.int64)) / 1e9


def counts(times_ns: np.ndarray, interval: float, duration: float | None = None) -> np.ndarray:
    """Arrivals per interval of ``interval`` seconds, from 0 to ``duration`` (default: the last
    arrival's interval)."""
    t = np.asarray(times_ns, dtype=np.int64)
    if not interval > 0:
        raise UsageError(f"the counting interval must be positive seconds, not {interval}")
    end = duration if duration is not None else (t[-1] / 1e9 if len(t) else 0.0)
    if not end / interval <= MAX_COUNTS:
        raise UsageError(
            f"{end:g} s counted per {interval:g} s is over {MAX_COUNTS:,} counts: count per a longer interval"
        )
    bins = max(1, math.ceil(end / interval - 1e-9))
    return np.bincount(np.minimum((t / 1e9 / interval).astype(np.int64), bins - 1), minlength=bins).astype(float)


def write_series(path: str | PathLike, times_ns: np.ndarray, header: dict) -> None:
    """Writes arrival times as a series file: ``# key=value`` header lines (``kind=arrivals``
    first), then one time in seconds per line."""
    with open(path, "w") as out:
        out.write("# kind=arrivals\n")
        for key, value in header.items():
            out.write(f"# {key}={value}\n")
        np.savetxt(out, np.asarray(times_ns, dtype=np.int64) / 1e9, fmt="%.9f")


def read_series(path: str | PathLike) -> tuple[np.ndarray, dict]:
    """A series file's numbers and header. A file ``write_series`` made has ``kind=arrivals``
    (arrival times, seconds); any other file of one number per line is a plain series.
    ``#`` lines are comments; anything else that is not a finite number is an error naming the
    line."""
    header, values = {}, []
    try:
        with open(path) as f:
            for number, line in enumerate(f, 1):
                text = line.strip()
                if not text:
                    continue
                if text.startswith("#"):
                    key, eq, value = text[1:].strip().partition("=")
                    if eq:
                        header[key.strip()] = value.strip()
                    continue
                try:
                    value = float(text)
                except ValueError:
                    raise SeriesError(f"{path}, line {number}: {quoted(text)} is not a number") from None
                if not math.isfinite(value):
                    raise SeriesError(f"{path}, line {number}: {quoted(text)} is not a finite number")
                values.append(value)
    except (OSError, UnicodeDecodeError) as error:
        raise SeriesError(f"{path}: cannot read the series ({error})") from None
    x = np.array(values)
    if header.get("kind") == "arrivals" and np.any(np.diff(x) < 0):
        at = int(np.argmax(np.diff(x) < 0)) + 2
        raise SeriesError(f"{path}: arrival times must not decrease (value {at} is below the one before)")
    return x, header


def run_ycsb(
    endpoint,
    workload: str = "a",
    properties: dict | None = None,
    *,
    process: str = "constant",
    rate: float = 1000,
    duration: float = 10,
    threads: int = 8,
    seed: int = 1,
    load: bool = True,
    log_path: str | PathLike | None = None,
    sync: bool = False,
    stop_after: float | None = None,
    progress: bool = False,
    server_timeout: float | None = None,
    **arrival_options,
) -> dict:
    """One YCSB run: ``endpoint`` a ``WorkloadStore`` or ``"host:port"``; ``workload`` a letter
    a-f; ``properties`` YCSB properties (recordcount, requestdistribution, ...). Returns the
    result (``summary``: latency percentiles from the scheduled times, per operation, the
    executor's scheduling error, throughput; ``arrivals``; ``load_seconds``) with the
    per-request ``latencies_ns`` and ``scheduled_ns`` as arrays. ``stop_after``: issue nothing
    after that many seconds (``summary["unissued"]`` counts the requests left). ``progress``
    shows the run's seconds on stderr while it runs (``smrlab.live``; the command line does).
    ``server_timeout``: seconds a server may take to accept, take a request or answer it
    (default ``_core.SERVER_TIMEOUT_S``); past it the connection is given up and its requests
    fail, so a server that never answers ends the run with an error instead of hanging it."""
    import contextlib

    if server_timeout is not None and not isinstance(endpoint, str):
        raise ParameterError("server_timeout applies to a server endpoint ('host:port') only")
    if sync and isinstance(endpoint, str):
        raise ParameterError(
            "sync applies to a store endpoint only: a server syncs as it was started (kv serve --sync)"
        )
    if not isinstance(workload, str):
        raise ParameterError(f"workload must be a YCSB workload's letter (str), not {workload!r:.60}")
    if properties is not None and not isinstance(properties, dict):
        raise ParameterError(f"properties must be a dict of YCSB properties, not {properties!r:.60}")
    stop_after = _given_number(stop_after, "stop_after")
    props = [("workload", workload)] + [(str(k), str(v)) for k, v in (properties or {}).items()]
    shown = (
        live.timed(f"YCSB workload {workload}, {process} arrivals", _given_number(duration, "duration", optional=False))
        if progress
        else contextlib.nullcontext()
    )
    with shown, arrival_names.named_as():
        text, latencies, scheduled = _core.run_ycsb(
            endpoint,
            props,
            arrival_params(process, rate, duration, **arrival_options),
            threads=_whole(threads, "threads", 1, MAX_THREADS),
            seed=_whole(seed, "seed", 0, SEED_MAX),
            load=bool(load),
            log_path=None if log_path is None else str(log_path),
            sync=bool(sync),
            stop_after_s=stop_after,
            server_timeout_s=None if server_timeout is None else _seconds(server_timeout, "server_timeout"),
        )
    result = json.loads(text)
    result["latencies_ns"] = np.frombuffer(latencies, dtype="<u8").astype(np.int64)
    result["scheduled_ns"] = np.frombuffer(scheduled, dtype="<u8").astype(np.int64)
    return result


def nvram_lifetime(nvram_bytes: int, disk_bytes: int, offloaded_fraction: float, write_cycles: int = 3000) -> dict:
    """The thesis's Fig. 5.3: user bytes written before an NVRAM device that wears out after
    ``write_cycles`` full writes does, when ``offloaded_fraction`` of them go to it, and that as
    full overwrites of the disk. 40 GB of flash on an 8 TB disk at 3,000 cycles lasts 120 TB
    (15 overwrites) offloading everything, 300 TB (37.5) offloading 40 %."""
    if not 0 < offloaded_fraction <= 1:
        return {"user_bytes": math.inf, "disk_overwrites": math.inf}
    total = nvram_bytes * write_cycles / offloaded_fraction
    return {"user_bytes": total, "disk_overwrites": total / disk_bytes}
