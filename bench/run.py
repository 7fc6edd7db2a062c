"""Runs every smrlab benchmark and prints its figures with the machine they ran on.

Benchmarks are never part of the test run's pass/fail: they measure, they do not assert. Each
Rust benchmark binary (bench/src/bin/*.rs), each peer comparison script (bench/*_vs_*.py) and
bench/bounds.py (instructions and cache misses per block access, by perf stat or cachegrind)
prints one JSON line per figure; this script builds the binaries once in release mode, runs
them one after another (never in parallel, so they do not disturb each other) and tabulates.

    python bench/run.py            # everything
    python bench/run.py dmsmr      # only benchmarks whose name contains "dmsmr"

`scale` runs with `--long`: its 45 M-request traces (about 1 GB each, written to the temporary
folder and removed) add a few minutes; `bounds` under cachegrind about 15 minutes more.
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
# Arguments some benchmark binaries take here.
ARGUMENTS = {"scale": ["--long"]}
# Binaries that are tools, not benchmarks: `replay` times one run of a trace you name, for
# paired before/after timings of a change.
TOOLS = {"replay"}


def machine() -> str:
    cpu = platform.processor() or "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        mem_kib = int(
            next(
                line for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")
            ).split()[1]
        )
        memory = f"{mem_kib / 2**20:.0f} GiB"
    except (OSError, StopIteration, ValueError):
        memory = "unknown memory"
    return f"{cpu}, {os.cpu_count()} cores, {memory}, {platform.system()} {platform.release()}, Python {platform.python_version()}"


def run_lines(command: list[str]) -> list[dict]:
    proc = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    if proc.returncode != 0:
        print(f"benchmark {' '.join(command)} failed:\n{proc.stderr}", file=sys.stderr)
        return []
    return [json.loads(line) for line in proc.stdout.splitlines() if line.startswith("{")]


def main(argv: list[str]) -> int:
    wanted = argv[0] if argv else ""
    subprocess.run(["cargo", "build", "--release", "--quiet", "-p", "smrlab-bench"], cwd=REPO, check=True)
    binaries = sorted(p.stem for p in (BENCH / "src" / "bin").glob("*.rs") if wanted in p.stem and p.stem not in TOOLS)
    scripts = sorted(p for p in [*BENCH.glob("*_vs_*.py"), BENCH / "bounds.py"] if wanted in p.stem)
    figures: list[dict] = []
    for name in binaries:
        figures += run_lines([str(REPO / "target" / "release" / name), *ARGUMENTS.get(name, [])])
    for script in scripts:
        figures += run_lines([sys.executable, str(script)])
    print(f"machine: {machine()}")
    # A rate figure (`bench`, `items`, `seconds`, `per_second`) is a table row; any other line
    # (the network benchmark's per-server rates) is printed as it came.
    rates = [f for f in figures if {"bench", "items", "seconds", "per_second"} <= f.keys()]
    width = max((len(f["bench"]) for f in rates), default=10)
    for figure in rates:
        extra = {k: v for k, v in figure.items() if k not in ("bench", "items", "seconds", "per_second")}
        print(
            f"{figure['bench']:<{width}}  {figure['per_second']:>14,.0f} /s  ({figure['items']:,} in {figure['seconds']:.3f} s)  {json.dumps(extra) if extra else ''}"
        )
    for figure in figures:
        if figure not in rates:
            print(json.dumps(figure))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
