"""Chapter 5's cells: SMRDB's write-offloading variant (``smrdb-offload``, ``smrdb::offload``) on
the disk model taken in real time (each disk command sleeps its modelled service time, the
NVRAM device its profile's: ``smrdb::paced``), driven by YCSB through the open-loop executor
with an arrival process, step after step on one store (a ``steps`` workload).

A step: ``{ name, workload = "insert" | "a".."f", process, rate }`` and how long it runs, either
``duration`` (seconds of arrivals; the step stops issuing after ``STOP_AFTER`` times it and counts
what it left) or ``count`` (operations, every one issued however long they take: a measuring point
after a number of operations, as db_bench's 2.5 million inserts of §5.4.2, so that stores of
different speeds are compared on the same data). Arrivals per second; ``insert``: 1 KB random
inserts, the thesis's §5.4.3 records; scans are YCSB's E, 1 to 100 records. Per step: ``NAME_ops_per_s`` (completed per second of wall clock),
``NAME_p99_ms``, ``NAME_unissued``; then the store's state as the last step that writes leaves
it, before any reads that follow (the thesis's Fig. 5.5 table: "the system state after the
inserts and before the sequential reads", §5.4.2): the shares of the written bytes offloaded,
read and rewritten by compaction, and left unsorted. Compaction goes on during the reads, so
the state at the end of the cell would credit the reads' time to it.

Parameters: ``offload`` (``nvram``: to the NVRAM profile, the thesis's flash; ``disk``: to a
second disk of the ``disk`` preset; ``none``), ``offload_delay_us`` (microseconds each write
sleeps while the NVRAM device is crowded, §5.4.2's 10 µs variant; 0: never), ``disk`` (the HDD
preset), ``band_size``, ``capacity``, ``buffer_bands`` (``"10,10,100"``), ``threads``,
``value_size`` (bytes of each inserted value: 1000, §5.4.3's 1 KB, unless given). Not here: the store
(``smrdb::offload``), the executor (``smr-workload``).
"""

from __future__ import annotations

import json
import math

from smrlab import _core, workload
from smrlab.errors import UsageError
from smrlab.experiment.kv.schema import STEP, STEP_REQUIRED
from smrlab.kv import size

SYSTEM = "smrdb-offload"
PARAMS = (
    "offload",
    "offload_delay_us",
    "disk",
    "band_size",
    "capacity",
    "buffer_bands",
    "threads",
    "value_size",
    "setting",
)
OFFLOAD_TARGETS = ("nvram", "disk", "none")
# The longest write delay a cell may ask for, in microseconds: the core's own limit.
MAX_OFFLOAD_DELAY_US = _core.KV_MAX_OFFLOAD_DELAY_US
# The largest inserted value: far above the thesis's 4 KB, well inside a 1 MiB band.
MAX_VALUE_SIZE = 1 << 16
STOP_AFTER = 3.0
# Client threads unless a cell gives ``threads``.
DEFAULT_THREADS = 8
# Workloads that only read, as ``_properties`` sets them (E: scans, no inserts).
READ_ONLY = ("c", "e")


def check_steps(steps) -> list[dict]:
    """The steps of a ``steps`` workload, or a UsageError naming what is wrong."""
    step_keys = set(STEP)
    if not isinstance(steps, list) or not steps or not all(isinstance(s, dict) for s in steps):
        raise UsageError(
            "traces.steps must be a non-empty list of tables {name, workload, process, rate, duration or count}"
        )
    names = set()
    for step in steps:
        unknown = sorted(set(step) - step_keys)
        missing = sorted(set(STEP_REQUIRED) - set(step))
        if unknown or missing:
            raise UsageError(
                f"traces.steps: a step {'has unknown key ' + repr(unknown[0]) if unknown else 'needs ' + repr(missing[0])} "
                f"(keys: {', '.join(sorted(step_keys))})"
            )
        length = [key for key in ("duration", "count") if key in step]
        if len(length) != 1:
            raise UsageError(
                f"traces.steps: step '{step['name']}' needs a duration (seconds) or a count (operations), "
                f"not {'both' if length else 'neither'}"
            )
        if "count" in step and step["process"] != "constant":
            raise UsageError(
                f"traces.steps: step '{step['name']}': a count needs the constant process "
                f"(its arrivals number exactly the count), not '{step['process']}'"
            )
        if step["workload"] not in ("insert", "a", "b", "c", "d", "e", "f"):
            raise UsageError(f"traces.steps: workload '{step['workload']}' is none of insert, a-f")
        for key in ("rate", *length):
            if isinstance(step[key], bool) or not isinstance(step[key], (int, float)) or not step[key] > 0:
                raise UsageError(
                    f"traces.steps: step '{step['name']}': {key} must be a positive number, not {step[key]!r}"
                )
        if "count" in step and not (isinstance(step["count"], int) and step["count"] <= _core.MAX_ARRIVALS):
            raise UsageError(
                f"traces.steps: step '{step['name']}': count must be a whole number of operations "
                f"from 1 to {_core.MAX_ARRIVALS:,}, not {step['count']!r}"
            )
        if step["process"] not in ("constant", "poisson", "selfsimilar", "diurnal"):
            raise UsageError(
                f"traces.steps: step '{step['name']}': process '{step['process']}' is none of constant, poisson, selfsimilar, diurnal"
            )
        if step["name"] in names:
            raise UsageError(f"traces.steps: two steps are named '{step['name']}'")
        names.add(step["name"])
    return steps


def _properties(step: dict, records: int, value_size: int) -> dict:
    values = {"recordcount": records, "fieldcount": 1, "fieldlength": value_size}
    if step["workload"] == "insert":
        return {**values, "readproportion": 0, "updateproportion": 0, "insertproportion": 1}
    if step["workload"] == "e":
        return {**values, "insertproportion": 0, "scanproportion": 1, "maxscanlength": 100}
    return values


def store_options(params: dict) -> dict:
    """The keywords of the ``WorkloadStore`` an offloading cell runs on (in memory): what
    ``check`` opens before any cell runs, so that the store's own readers refuse a bad value
    first."""
    offload = params.get("offload", "nvram")
    if offload not in OFFLOAD_TARGETS:
        raise UsageError(f"offload '{offload}' is none of {', '.join(OFFLOAD_TARGETS)}")
    given = params.get("offload_delay_us", 0)
    try:
        delay_us = float(given)
    except (TypeError, ValueError):
        delay_us = math.nan
    if isinstance(given, bool) or not 0 <= delay_us <= MAX_OFFLOAD_DELAY_US:
        raise UsageError(f"offload_delay_us must be microseconds from 0 to {MAX_OFFLOAD_DELAY_US:,}, not {given!r}")
    return {
        "offload_store": True,
        "disk": params.get("disk", "desktop7200"),
        "band_size": size(params.get("band_size", "4MiB"), "band_size"),
        "capacity": size(params.get("capacity", "8GiB"), "capacity"),
        "offload": offload != "none",
        "offload_to": "disk" if offload == "disk" else "nvram",
        "offload_delay": delay_us / 1e6,
        # None: the store's declared buffer levels.
        "buffer_bands": _buffer_bands(params["buffer_bands"]) if "buffer_bands" in params else None,
    }


def _buffer_bands(text: str) -> tuple[int, ...]:
    """Bands of each buffer level from ``"10,10,100"`` (their count and range are the store's
    to check)."""
    try:
        return tuple(int(part) for part in str(text).split(","))
    except ValueError:
        raise UsageError(f"buffer_bands must be whole numbers of bands separated by commas, not {text!r}") from None


def value_size(params: dict) -> int:
    """Bytes of each inserted value."""
    given = size(params.get("value_size", 1000), "value_size")
    if not 0 < given <= MAX_VALUE_SIZE:
        raise UsageError(f"value_size must be 1 to {MAX_VALUE_SIZE:,} bytes, not {given:,}")
    return given


def step_length(step: dict) -> dict:
    """How long a step runs, as ``run_ycsb`` takes it: a duration and the time after which it
    stops issuing, or, for a count, the duration whose constant arrivals number exactly the
    count (half an arrival more, so that rounding cannot drop the last) and no stop."""
    if "count" in step:
        return {"duration": (step["count"] + 0.5) / float(step["rate"]), "stop_after": None}
    return {"duration": float(step["duration"]), "stop_after": STOP_AFTER * float(step["duration"])}


def run(steps: list[dict], params: dict, seed: int) -> dict:
    """Runs the steps in order on one new paced offloading store; returns what ``cell``
    turns into a row."""
    size_of_values, threads = value_size(params), workload.client_threads(params.get("threads", DEFAULT_THREADS))
    store = workload.WorkloadStore(**store_options(params))
    phases, records, state = [], 1, None
    try:
        for index, step in enumerate(steps):
            result = workload.run_ycsb(
                store,
                "a" if step["workload"] == "insert" else step["workload"],
                _properties(step, records, size_of_values),
                process=step["process"],
                rate=float(step["rate"]),
                threads=threads,
                seed=seed + index,
                load=index == 0,
                **step_length(step),
            )
            summary = result["summary"]
            records += sum(lat["count"] for op, lat in summary["by_op"] if op == "insert")
            phases.append(
                {
                    "phase": step["name"],
                    "ops": summary["requests"] - summary["failed"],
                    "wall_s": summary["elapsed_s"],
                    "disk_s": None,
                    "p99_ms": summary["latency"]["p99_ns"] / 1e6,
                    "unissued": summary["unissued"],
                }
            )
            if step["workload"] not in READ_ONLY:
                state = store.stats()
        stats = json.loads(state if state is not None else store.stats())
    finally:
        store.close()
    written = max(1, stats["user_bytes"])
    return {
        "phases": phases,
        "store": {
            "offloaded_pct": 100 * stats["offloaded_user_bytes"] / written,
            "compaction_read_pct": 100 * stats["compaction_bytes_read"] / written,
            "compaction_rewritten_pct": 100 * stats["compaction_bytes_written"] / written,
            "unsorted_pct": 100 * stats["unsorted_user_bytes"] / written,
            "unsorted_on_nvram_pct": 100 * stats["unsorted_nvram_user_bytes"] / written,
            "compactions": stats["compactions"],
            "delayed_writes": stats["delayed_writes"],
        },
    }
