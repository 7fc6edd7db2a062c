"""A cache policy written in Python, side by side with libCacheSim's Python plugin cache.

Writes a block trace of one million 4 KiB accesses (from the wdev preset), then times, in this
one process and round after round (so a drift in the machine's speed meets all of them alike):
smrlab's SSD cache over a drive-managed SMR disk with the native ``lru``; the same with the LRU
of docs/policies.md written in Python; and libCacheSim's ``PluginCache`` with the LRU hooks of
its own documentation (an ``OrderedDict``, as ours) over the same block numbers. smrlab's runs
also replay the SMR disk below the cache, which libCacheSim has no model of. Each side's figure
is its best round of CPU time in this process (on a shared machine, wall-clock time counts the
others' work), each ratio the median of the rounds' ratios; the overhead per hook call is
the Python LRU's extra time over the native one divided by the hooks it called (one per block
looked up, and two per eviction: ``victims`` and ``removed``). Prints one JSON line per figure,
as bench/run.py expects.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from collections import OrderedDict
from pathlib import Path

import libcachesim
from smrlab import _core

ACCESSES = 1_000_000
CACHE_BLOCKS = 20_000
ROUNDS = 5


class Lru:
    """Evicts the least recently used block (docs/policies.md's first example)."""

    def __init__(self, cache):
        self.order = OrderedDict()

    def inserted(self, slot, block, dirty):
        self.order[slot] = None

    def hit(self, slot, block, became_dirty):
        self.order.move_to_end(slot)

    def removed(self, slot, block, was_dirty):
        del self.order[slot]

    def victims(self, blocks):
        return [next(iter(self.order))]


# libCacheSim's PluginCache LRU, as its documentation writes it.
def lcs_init(params):
    return OrderedDict()


def lcs_hit(data, request):
    data.move_to_end(request.obj_id, last=True)


def lcs_miss(data, request):
    data[request.obj_id] = request.obj_size


def lcs_evict(data, request):
    return data.popitem(last=False)[0]


def lcs_remove(data, obj_id):
    data.pop(obj_id, None)


def lcs_free(data):
    data.clear()


def timed(run):
    """The CPU time `run` took in this process (the machine may be shared: another process's
    work does not count), and what it returned."""
    start = time.process_time()
    out = run()
    return time.process_time() - start, out


def emit(name, seconds, extra=None):
    print(
        json.dumps(
            {"bench": name, "items": ACCESSES, "seconds": seconds, "per_second": ACCESSES / seconds, **(extra or {})}
        )
    )


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        blocks = Path(tmp) / "wdev.blocks"
        pipeline = {"synth": ["preset=wdev", "requests=400000"], "seed": 0}
        _core.trace_write(json.dumps(pipeline), str(blocks), "blocks")
        lines = blocks.read_text().splitlines()[:ACCESSES]
        blocks.write_text("\n".join(lines) + "\n")
        ids = Path(tmp) / "wdev.ids"
        ids.write_text("\n".join(line.split()[1] for line in lines) + "\n")

        def lcs_plugin():
            reader = libcachesim.TraceReader(trace=str(ids), trace_type=libcachesim.TraceType.PLAIN_TXT_TRACE)
            cache = libcachesim.PluginCache(CACHE_BLOCKS, lcs_init, lcs_hit, lcs_miss, lcs_evict, lcs_remove, lcs_free)
            return {"miss_ratio": cache.process_trace(reader)[0]}

        spec = {"system": "cache", "trace": str(blocks), "format": "blocks", "seed": 0}
        spec["footprint"] = json.loads(_core.trace_footprint(json.dumps(spec)))["footprint"]
        params = ["mode=rw", "below=dmsmr", f"cache={CACHE_BLOCKS}blocks"]

        def smrlab(policy, classes=None):
            def run():
                run_spec = {**spec, "params": [*params, f"policy={policy}"]}
                c = json.loads(_core.run_sim(json.dumps(run_spec), None, classes))["report"]["counters"]
                lookups, hits = c["read_lookups"] + c["write_lookups"], c["read_hits"] + c["write_hits"]
                evictions = c["evicted_clean_blocks"] + c["evicted_dirty_blocks"]
                return {"miss_ratio": 1 - hits / lookups, "hooks": lookups + 2 * evictions}

            return run

        runs = {
            "native": smrlab("lru"),
            "python": smrlab("bench.py:Lru", {"bench.py:Lru": Lru}),
            "plugin": lcs_plugin,
        }
        rounds = [{name: timed(run) for name, run in runs.items()} for _ in range(ROUNDS)]
    best = {name: min(r[name][0] for r in rounds) for name in runs}
    out = {name: rounds[0][name][1] for name in runs}
    assert out["python"] == out["native"], "the Python LRU and the native one counted alike"
    vs_plugin = statistics.median(r["plugin"][0] / r["python"][0] for r in rounds)
    vs_native = statistics.median(r["python"][0] / r["native"][0] for r in rounds)
    per_hook_ns = statistics.median((r["python"][0] - r["native"][0]) / out["python"]["hooks"] * 1e9 for r in rounds)
    emit("policy lru over dmsmr, native", best["native"], out["native"])
    emit(
        "policy lru over dmsmr, Python",
        best["python"],
        {**out["python"], "time_vs_native": vs_native, "overhead_per_hook_ns": per_hook_ns},
    )
    emit("libcachesim PluginCache lru", best["plugin"], {**out["plugin"], "python_policy_speed_vs_plugin": vs_plugin})
    return 0


if __name__ == "__main__":
    sys.exit(main())
