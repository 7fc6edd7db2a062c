"""One key-value cell's workload on one store: its phases in order (db_bench-style loops, YCSB's
load and core workloads), each timed, then the store's own counters once its background work
is done.

A phase's time is the wall clock in the ``fs`` setting, and the simulated disk time of its
device commands when SMRDB runs on the disk model. A peer's disk time is worked out afterwards
from its captured file I/O (``capture``); the driver marks where each phase starts with a
``marker(index)`` call the capture can see.

Not here: the stores (``stores``), YCSB's operations (``ycsb``), the capture (``capture``).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

from smrlab import workload
from smrlab.errors import UsageError
from smrlab.experiment.kv import stores, ycsb
from smrlab.kv import run_workload

# db_bench-style phases (smrlab.kv.run_workload).
BENCH_PHASES = ("fillseq", "fillrandom", "overwrite", "readrandom", "readseq")


def run(
    system: str,
    folder: Path,
    trace: dict,
    params: dict,
    seed: int,
    modelled: bool,
    marker: Callable[[int], None] | None = None,
) -> dict:
    """Runs ``trace``'s phases on a new ``system`` store in ``folder``; returns the phases
    (name, operations, wall seconds, disk seconds where SMRDB timed them) and the store's
    counters."""
    store = stores.open_store(system, folder, params, modelled)
    threads = workload.client_threads(params.get("threads", 1))
    sync = stores.switch(params.get("sync", False), "sync")
    phases = []
    try:
        state = ycsb.State(trace, seed) if "ycsb" in trace else None
        for index, name in enumerate(phase_names(trace)):
            if marker:
                marker(index)
            disk_before = store.disk_ns()
            started = time.perf_counter()
            if state is not None:
                ops = ycsb.run_phase(store, state, name, 1 if modelled else threads, sync)
            else:
                ops = bench_phase(store, name, trace, sync, seed + index)
            wall = time.perf_counter() - started
            disk_after = store.disk_ns()
            phases.append(
                {
                    "phase": name,
                    "ops": ops,
                    "wall_s": wall,
                    "disk_s": None if disk_before is None else (disk_after - disk_before) / 1e9,
                }
            )
        if marker:
            marker(len(phases))
        store.settle()
        counters = store.stats()
    finally:
        store.close()
    return {"phases": phases, "store": counters}


def phase_names(trace: dict) -> list[str]:
    return list(trace["ycsb"] if "ycsb" in trace else trace["phases"])


def bench_phase(store, name: str, trace: dict, sync: bool, seed: int) -> int:
    if name not in BENCH_PHASES:
        raise UsageError(f"phase '{name}' is none of {', '.join(BENCH_PHASES)}")
    result = run_workload(
        store, name, int(trace["count"]), int(trace.get("value_size", 4096)), 1 if sync else 0, seed=seed
    )
    return result.ops
