"""SSD cache replay speed, side by side with libCacheSim's LRU on the same 4 KiB block stream.

Writes a one-million-line block trace (from the wdev preset), then times, best of three, in
this one process: libCacheSim's LRU over it (its C trace reader and simulator), smrlab's lru
(plain disk below, so only the cache is measured) and smrlab's pore-bl over dmsmr. Both read
the same text file. Prints one JSON line per figure, as bench/run.py expects.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

import libcachesim

from smrlab import _core

LINES = 1_000_000
CACHE_BLOCKS = 20_000


def best_of(repeats, run):
    best = None
    for _ in range(repeats):
        start = time.perf_counter()
        out = run()
        took = time.perf_counter() - start
        if best is None or took < best[0]:
            best = (took, out)
    return best


def emit(name, seconds, extra=None):
    print(json.dumps({"bench": name, "items": LINES, "seconds": seconds, "per_second": LINES / seconds, **(extra or {})}))


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        blocks = Path(tmp) / "wdev.blocks"
        pipeline = {"synth": ["preset=wdev", "requests=400000"], "seed": 0}
        _core.trace_write(json.dumps(pipeline), str(blocks), "blocks")
        lines = blocks.read_text().splitlines()[:LINES]
        blocks.write_text("\n".join(lines) + "\n")
        ids = Path(tmp) / "wdev.ids"
        ids.write_text("\n".join(line.split()[1] for line in lines) + "\n")

        def lcs_lru():
            reader = libcachesim.TraceReader(trace=str(ids), trace_type=libcachesim.TraceType.PLAIN_TXT_TRACE)
            return libcachesim.LRU(cache_size=CACHE_BLOCKS).process_trace(reader)[0]

        spec = {"system": "cache", "trace": str(blocks), "format": "blocks", "seed": 0}
        spec["footprint"] = json.loads(_core.trace_footprint(json.dumps(spec)))["footprint"]

        def smrlab(params):
            def run():
                out = json.loads(_core.run_sim(json.dumps({**spec, "params": params})))
                c = out["report"]["counters"]
                return 1 - (c["read_hits"] + c["write_hits"]) / (c["read_lookups"] + c["write_lookups"])
            return run

        lcs_time, lcs_miss = best_of(3, lcs_lru)
        lru_time, lru_miss = best_of(3, smrlab(["policy=lru", "mode=rw", "below=cmr", f"cache={CACHE_BLOCKS}blocks"]))
        pore_time, _ = best_of(3, smrlab(["policy=pore", "scheme=bl", "mode=rw", f"cache={CACHE_BLOCKS}blocks"]))
    emit("cache lru, libcachesim", lcs_time, {"miss_ratio": lcs_miss})
    emit("cache lru, smrlab", lru_time, {"miss_ratio": lru_miss, "speed_vs_libcachesim": lcs_time / lru_time})
    emit("cache pore-bl over dmsmr, smrlab", pore_time, {"speed_vs_libcachesim_lru": lcs_time / pore_time})
    return 0


if __name__ == "__main__":
    sys.exit(main())
