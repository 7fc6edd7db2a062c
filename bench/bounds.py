"""What bounds each replay speed: instructions and cache misses per block access, beside the
machine's memory latency, for the configurations of issue 18 (small caches that fit in the CPU
caches, and caches of about 340 k blocks that do not).

For each configuration the replay runs natively once (its time, block accesses and peak heap)
and once under a counter: `perf stat` where the machine exposes hardware counters, else
valgrind's cachegrind, which simulates this machine's L1 data cache and L2 (their sizes read
from /sys) on the same instruction stream. Cachegrind's counts are exact for its model and the
same on every run; perf's are the real hardware's.

The memory-latency binary (`memory_latency`) gives the time of one dependent load at each
working-set size. What the misses would cost per access if no two overlapped is then
    (L1 misses - L2 misses) x L2 latency + L2 misses x latency at the run's peak heap
(with perf, last-level misses at the latency of the largest working set): `miss_ns_if_serial`,
and its share of the measured time, `serial_miss_share`. A share above 1 means the run waits on
memory and only overlapping misses make it as fast as it is; a share well below 1 means the
instructions are the cost. The miss counts do not tell which misses a prefetch started early (a
cache of 32 k blocks or more prefetches its next lookups and victims): those overlap the work
before them, so for such a cache the serial figure is an upper bound on the wait. With
cachegrind, `costliest` lists the functions that execute the most instructions or miss L2 most,
per access: where to look first.

    python bench/bounds.py

The 340 k-block runs replay the first 3 M requests of the 16 M-request trace with the cache
given in blocks (it fills within the first 0.2 M requests), so that cachegrind's 50-fold
slowdown stays within minutes. Prints one JSON line per figure, as bench/run.py expects. Never
part of the tests.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

from smrlab import _core

REPO = Path(__file__).resolve().parent.parent
RELEASE = REPO / "target" / "release"

# The footprints of `bench scale` (FIXED and LARGE in bench/src/bin/scale.rs), so the two
# benchmarks' figures describe the same runs.
FIXED = ["written_range=2GiB", "accessed_range=2560MiB", "requests=1000000"]
LARGE = ["written_range=48GiB", "accessed_range=64GiB", "requests=16000000"]
# The first 3 M requests of the large trace: under cachegrind, its 16 M would take an hour.
HEAD = {"fixed": None, "large": 3_000_000}
LARGE_CACHE = "cache=340000blocks"

# (name, trace, system, parameters); a cache counts per block looked up, dmsmr per request.
CONFIGURATIONS = [
    ("lru over cmr, fixed footprint", "fixed", "cache", ["policy=lru", "mode=rw", "below=cmr"]),
    ("pore-bl over dmsmr, fixed footprint", "fixed", "cache", ["policy=pore", "scheme=bl", "mode=rw"]),
    ("dmsmr, fixed footprint", "fixed", "dmsmr", []),
    ("lru over cmr, 340k-block cache", "large", "cache", ["policy=lru", "mode=rw", "below=cmr", LARGE_CACHE]),
    ("pore-bl over dmsmr, 340k-block cache", "large", "cache", ["policy=pore", "scheme=bl", "mode=rw", LARGE_CACHE]),
]

PERF_EVENTS = ["instructions", "L1-dcache-load-misses", "LLC-load-misses"]


def cache_size(level: int) -> int | None:
    """Bytes of this CPU's data or unified cache at `level`, from sysfs."""
    for index in sorted(Path("/sys/devices/system/cpu/cpu0/cache").glob("index*")):
        try:
            if int((index / "level").read_text()) == level and (index / "type").read_text().strip() != "Instruction":
                text = (index / "size").read_text().strip()
                return int(text[:-1]) * 1024 if text.endswith("K") else int(text)
        except (OSError, ValueError):
            continue
    return None


def perf_counts(command: list[str]) -> dict | None:
    """Counts of `PERF_EVENTS` over `command` by perf stat, or None where perf or the hardware
    counters are missing."""
    if not shutil.which("perf"):
        return None
    proc = subprocess.run(
        ["perf", "stat", "-x", ",", "-e", ",".join(PERF_EVENTS), "--", *command], capture_output=True, text=True
    )
    counts: dict[str, int] = {}
    for line in proc.stderr.splitlines():
        fields = line.split(",")
        # An event may come back as "instructions:u", or once per core type on a hybrid CPU
        # ("cpu_core/instructions/"): those add up.
        event = next(
            (e for e in PERF_EVENTS if len(fields) > 2 and (fields[2].split(":")[0] == e or f"/{e}/" in fields[2])),
            None,
        )
        if event is None:
            continue
        if not fields[0].strip().isdigit():
            return None  # "<not supported>" or "<not counted>": no hardware counters here
        counts[event] = counts.get(event, 0) + int(fields[0])
    if proc.returncode != 0 or len(counts) != len(PERF_EVENTS):
        return None
    return {
        "instructions": counts["instructions"],
        "l1_misses": counts["L1-dcache-load-misses"],
        "outer_misses": counts["LLC-load-misses"],
        "outer": "llc",
        "counted_by": "perf stat",
    }


def cachegrind_counts(command: list[str], scratch: Path) -> dict | None:
    """Instructions and simulated L1 data and L2 misses over `command`, or None without valgrind."""
    l1, l2 = cache_size(1), cache_size(2)
    if not shutil.which("valgrind") or not l1 or not l2:
        return None
    out = scratch / "cachegrind.out"
    proc = subprocess.run(
        [
            "valgrind",
            "--tool=cachegrind",
            f"--D1={l1},8,64",
            f"--LL={l2},8,64",
            f"--cachegrind-out-file={out}",
            *command,
        ],
        capture_output=True,
        text=True,
    )
    if proc.returncode != 0:
        return None
    lines = out.read_text().splitlines()
    events = next(line.split()[1:] for line in lines if line.startswith("events:"))
    total = dict(zip(events, map(int, next(line.split()[1:] for line in lines if line.startswith("summary:")))))
    return {
        "instructions": total["Ir"],
        "l1_misses": total["D1mr"] + total["D1mw"],
        "outer_misses": total["DLmr"] + total["DLmw"],
        "outer": "l2",
        "counted_by": f"cachegrind (simulated L1d {l1 >> 10} KiB, L2 {l2 >> 10} KiB, 8-way)",
        "by_function": costliest_functions(lines, events),
    }


def costliest_functions(lines: list[str], events: list[str], top: int = 5) -> list[tuple[str, int, int]]:
    """(function, instructions, L2 misses) of the `top` functions with the most instructions and
    of the `top` with the most misses in a cachegrind output (its per-line counts summed per
    function, inlined code counted where it landed), most instructions first."""
    instructions: Counter[str] = Counter()
    misses: Counter[str] = Counter()
    ir, outer = events.index("Ir"), [events.index("DLmr"), events.index("DLmw")]
    function = None
    for line in lines:
        if line.startswith("fn="):
            function = line[3:]
        elif function and line[:1].isdigit():
            counts = [int(c) for c in line.split()[1:]]
            counts += [0] * (len(events) - len(counts))  # trailing zeros are left out
            instructions[function] += counts[ir]
            misses[function] += sum(counts[i] for i in outer)
    names = {name for name, _ in instructions.most_common(top)} | {name for name, _ in misses.most_common(top)}
    return sorted(((name, instructions[name], misses[name]) for name in names), key=lambda f: -f[1])


def replay_once(command: list[str]) -> dict:
    proc = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(proc.stdout.splitlines()[-1])


def latency_at(latencies: list[tuple[int, float]], bytes_: int) -> float:
    """ns per dependent load for a working set of `bytes_`: the smallest measured one that holds it."""
    return next((ns for size, ns in latencies if size >= bytes_), latencies[-1][1])


def main() -> int:
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "smrlab-bench"], cwd=REPO, check=True)
    latency_lines = [
        json.loads(line)
        for line in subprocess.run(
            [str(RELEASE / "memory_latency")], capture_output=True, text=True, check=True
        ).stdout.splitlines()
    ]
    latencies = sorted((f["working_set_bytes"], f["ns_per_load"]) for f in latency_lines)
    l2_ns = latency_at(latencies, (cache_size(2) or 256 << 10) // 2)
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        traces = {}
        for name, synth in (("fixed", FIXED), ("large", LARGE)):
            traces[name] = scratch / f"{name}.smrbin"
            _core.trace_write(json.dumps({"synth": synth, "head": HEAD[name], "seed": 0}), str(traces[name]), "smrbin")
        for label, trace, system, params in CONFIGURATIONS:
            command = [str(RELEASE / "replay"), system, str(traces[trace]), *params]
            native = replay_once(command)
            counts = perf_counts(command) or cachegrind_counts(command, scratch)
            if counts is None:
                print(
                    json.dumps(
                        {
                            "bounds": label,
                            "skipped": "no hardware counters for perf stat and no valgrind (apt-get install valgrind)",
                        }
                    )
                )
                continue
            items = native["block_accesses"] or native["items"]
            per = {key: counts[key] / items for key in ("instructions", "l1_misses", "outer_misses")}
            ns = native["seconds"] * 1e9 / items
            # A miss of L2 is served from L3 or memory, whichever holds the run's heap; a miss of
            # the last level always from memory.
            outer_ns = latency_at(latencies, native["peak_heap_bytes"]) if counts["outer"] == "l2" else latencies[-1][1]
            serial_ns = (per["l1_misses"] - per["outer_misses"]) * l2_ns + per["outer_misses"] * outer_ns
            print(
                json.dumps(
                    {
                        "bench": f"bounds {label}",
                        "items": items,
                        "seconds": native["seconds"],
                        "per_second": items / native["seconds"],
                        "per": "block access" if native["block_accesses"] else "request",
                        "ns": round(ns, 1),
                        "instructions": round(per["instructions"]),
                        "l1_misses": round(per["l1_misses"], 2),
                        f"{counts['outer']}_misses": round(per["outer_misses"], 3),
                        "peak_heap_mib": round(native["peak_heap_bytes"] / 2**20, 1),
                        "miss_ns_if_serial": round(serial_ns, 1),
                        "serial_miss_share": round(serial_ns / ns, 2),
                        "counted_by": counts["counted_by"],
                        # Where the instructions and misses go, per access (cachegrind only).
                        "costliest": [
                            [name[:90], round(n / items), round(m / items, 3)]
                            for name, n, m in counts.get("by_function", [])
                        ],
                    }
                )
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
