"""SSD cache replay speed, side by side with libCacheSim's LRU on the same 4 KiB block stream.

Writes a one-million-line block trace (from the wdev preset), then times, in this one process:
libCacheSim's LRU over it (its C trace reader and simulator), smrlab's lru (a plain disk
below, whose timing model it still runs) through the core's binding with the trace's footprint
given and through ``smrlab.simulate`` as a user calls it (the footprint's pass, the result's
provenance and its ``Result``), and smrlab's pore-bl over dmsmr. Both read the same text file.
They run in turn, round after round, so a drift in the machine's speed meets all of them
alike: each side's figure is its best round, each ratio the median of the rounds' ratios, and
the share of ``smrlab.simulate`` spent outside the binding's replay the median of the rounds'.
Prints one JSON line per figure, as bench/run.py expects.
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

import libcachesim
import smrlab
from smrlab import _core

LINES = 1_000_000
CACHE_BLOCKS = 20_000


ROUNDS = 7


def timed(run):
    start = time.perf_counter()
    out = run()
    return time.perf_counter() - start, out


def emit(name, seconds, extra=None):
    print(
        json.dumps({"bench": name, "items": LINES, "seconds": seconds, "per_second": LINES / seconds, **(extra or {})})
    )


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

        def through_binding(params):
            def run():
                out = json.loads(_core.run_sim(json.dumps({**spec, "params": params})))
                c = out["report"]["counters"]
                return 1 - (c["read_hits"] + c["write_hits"]) / (c["read_lookups"] + c["write_lookups"])

            return run

        def front():
            result = smrlab.simulate(
                "cache", str(blocks), policy="lru", mode="rw", below="cmr", cache=f"{CACHE_BLOCKS}blocks"
            )
            c = result.counters
            return 1 - (c["read_hits"] + c["write_hits"]) / (c["read_lookups"] + c["write_lookups"])

        runs = {
            "lcs": lcs_lru,
            "lru": through_binding(["policy=lru", "mode=rw", "below=cmr", f"cache={CACHE_BLOCKS}blocks"]),
            "front": front,
            "pore": through_binding(["policy=pore", "scheme=bl", "mode=rw", f"cache={CACHE_BLOCKS}blocks"]),
        }
        rounds = [{name: timed(run) for name, run in runs.items()} for _ in range(ROUNDS)]
    best = {name: min(r[name][0] for r in rounds) for name in runs}
    miss = {name: rounds[0][name][1] for name in ("lcs", "lru", "front")}
    ratio = {name: statistics.median(r["lcs"][0] / r[name][0] for r in rounds) for name in ("lru", "front", "pore")}
    outside = statistics.median((r["front"][0] - r["lru"][0]) / r["front"][0] for r in rounds)
    emit("cache lru, libcachesim", best["lcs"], {"miss_ratio": miss["lcs"]})
    emit("cache lru, smrlab", best["lru"], {"miss_ratio": miss["lru"], "speed_vs_libcachesim": ratio["lru"]})
    emit(
        "cache lru, smrlab.simulate",
        best["front"],
        {"miss_ratio": miss["front"], "speed_vs_libcachesim": ratio["front"], "share_outside_the_replay": outside},
    )
    emit("cache pore-bl over dmsmr, smrlab", best["pore"], {"speed_vs_libcachesim_lru": ratio["pore"]})
    return 0


if __name__ == "__main__":
    sys.exit(main())
