"""Chapter 5's cells: SMRDB's write-offloading variant (``smrdb-offload``, ``smrdb::offload``) on
the disk model taken in real time (each disk command sleeps its modelled service time, the
NVRAM device its profile's: ``smrdb::paced``), driven by YCSB through the open-loop executor
with an arrival process, step after step on one store (a ``steps`` workload).

A step: ``{ name, workload = "insert" | "a".."f", process, rate, duration }`` (arrivals per
second and seconds; ``insert``: 1 KB random inserts, the thesis's §5.4.3 records; scans are
YCSB's E, 1 to 100 records). A step stops issuing after ``stop_after`` times its duration (3)
and counts what it left. Per step: ``NAME_ops_per_s`` (completed per second of wall clock),
``NAME_p99_ms``, ``NAME_unissued``; then, over the cell, the shares of the written bytes
offloaded, read and rewritten by compaction, and left unsorted.

Parameters: ``offload`` (``nvram`` or ``none``), ``disk`` (the HDD preset), ``band_size``,
``capacity``, ``buffer_bands`` (``"10,10,100"``), ``threads``. Not here: the store
(``smrdb::offload``), the executor (``smr-workload``).
"""

from __future__ import annotations

import json

from smrlab.errors import UsageError

SYSTEM = "smrdb-offload"
PARAMS = ("offload", "disk", "band_size", "capacity", "buffer_bands", "threads", "setting")
STOP_AFTER = 3.0


def check_steps(steps) -> list[dict]:
    """The steps of a ``steps`` workload, or a UsageError naming what is wrong."""
    from smrlab.experiment.kv.schema import STEP
    step_keys = set(STEP)
    if not isinstance(steps, list) or not steps or not all(isinstance(s, dict) for s in steps):
        raise UsageError("traces.steps must be a non-empty list of tables {name, workload, process, rate, duration}")
    names = set()
    for step in steps:
        unknown = sorted(set(step) - step_keys)
        missing = sorted(step_keys - set(step))
        if unknown or missing:
            raise UsageError(f"traces.steps: a step {'has unknown key ' + repr(unknown[0]) if unknown else 'needs ' + repr(missing[0])} "
                             f"(keys: {', '.join(sorted(step_keys))})")
        if step["workload"] not in ("insert", "a", "b", "c", "d", "e", "f"):
            raise UsageError(f"traces.steps: workload '{step['workload']}' is none of insert, a-f")
        for key in ("rate", "duration"):
            if isinstance(step[key], bool) or not isinstance(step[key], (int, float)) or not step[key] > 0:
                raise UsageError(f"traces.steps: step '{step['name']}': {key} must be a positive number, not {step[key]!r}")
        if step["process"] not in ("constant", "poisson", "selfsimilar", "diurnal"):
            raise UsageError(f"traces.steps: step '{step['name']}': process '{step['process']}' is none of constant, poisson, selfsimilar, diurnal")
        if step["name"] in names:
            raise UsageError(f"traces.steps: two steps are named '{step['name']}'")
        names.add(step["name"])
    return steps


def _properties(step: dict, records: int) -> dict:
    values = {"recordcount": records, "fieldcount": 1, "fieldlength": 1000}
    if step["workload"] == "insert":
        return {**values, "readproportion": 0, "updateproportion": 0, "insertproportion": 1}
    if step["workload"] == "e":
        return {**values, "insertproportion": 0, "scanproportion": 1, "maxscanlength": 100}
    return values


def run(steps: list[dict], params: dict, seed: int) -> dict:
    """Runs the steps in order on one new paced offloading store; returns what ``cell``
    turns into a row."""
    from smrlab import workload
    from smrlab.kv import size
    offload = params.get("offload", "nvram")
    if offload not in ("nvram", "none"):
        raise UsageError(f"offload '{offload}' is neither nvram nor none")
    bands = tuple(int(b) for b in str(params.get("buffer_bands", "10,10,100")).split(","))
    store = workload.WorkloadStore(offload_store=True, disk=params.get("disk", "desktop7200"),
                                   band_size=size(params.get("band_size", "4MiB"), "band_size"),
                                   capacity=size(params.get("capacity", "8GiB"), "capacity"),
                                   offload=offload == "nvram", buffer_bands=bands)
    phases, records = [], 1
    try:
        for index, step in enumerate(steps):
            result = workload.run_ycsb(store, "a" if step["workload"] == "insert" else step["workload"], _properties(step, records),
                                       process=step["process"], rate=float(step["rate"]), duration=float(step["duration"]),
                                       threads=int(params.get("threads", 8)), seed=seed + index, load=index == 0,
                                       stop_after=STOP_AFTER * float(step["duration"]))
            summary = result["summary"]
            records += sum(l["count"] for op, l in summary["by_op"] if op == "insert")
            phases.append({"phase": step["name"], "ops": summary["requests"] - summary["failed"], "wall_s": summary["elapsed_s"],
                           "disk_s": None, "p99_ms": summary["latency"]["p99_ns"] / 1e6, "unissued": summary["unissued"]})
        stats = json.loads(store.stats())
    finally:
        store.close()
    written = max(1, stats["user_bytes"])
    return {"phases": phases, "store": {
        "offloaded_pct": 100 * stats["offloaded_user_bytes"] / written,
        "compaction_read_pct": 100 * stats["compaction_bytes_read"] / written,
        "compaction_rewritten_pct": 100 * stats["compaction_bytes_written"] / written,
        "unsorted_pct": 100 * stats["unsorted_user_bytes"] / written,
        "unsorted_on_nvram_pct": 100 * stats["unsorted_nvram_user_bytes"] / written,
        "compactions": stats["compactions"]}}
