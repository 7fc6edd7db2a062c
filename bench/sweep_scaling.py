"""How smrlab's sweeps scale with workers: each experiment run as `smrlab run` (its own process,
as a user runs it) in local worker processes at 1 and N workers (N: the cores here), and on a
Dask LocalCluster of N single-threaded worker processes: through the API with a client already
connected (as a script or notebook that uses a cluster runs it), the workers first without the
traces (they travel) and then holding them; and as `smrlab run --cluster`, which also imports
dask.distributed and connects (the first half second or more of its makespan).

For each run it prints, from the run's provenance sidecar: the makespan (the run's wall time,
from loading the experiment to the table, figure and sidecar written; the command's own wall
time, with Python's start, beside it), the speed-up over 1 worker and the efficiency (speed-up /
workers), the parent's serial time (before the first cell starts and after the last ends) and
its share of the total cell time, the total and the longest cell time, and the makespan a
perfect scheduler would reach with those cells, max(total / workers, longest), with ours over it.

Then it predicts the speed-up at 16 and 64 workers from the 1-worker run, for each way of
running at N: each cell taking the time it took alone, started longest first (the order
`smrlab run` uses once it has a history) on the first free worker (list scheduling,
simulated), plus the parent's serial time as measured that way at N; beside it the perfect
scheduler's bound. The same prediction made for N itself is printed beside the makespan
measured at N: how far the method is from a run it can be checked against. It leaves out that
cells side by side each take longer than alone (memory bandwidth: on a 16-core x86, 16 replays
side by side take 1.85 times as long each as one alone), so its makespans are short of the
measured ones; that stretches ours and the perfect one alike, so their ratio holds better.

    python bench/sweep_scaling.py                       # experiments/hwsr-fig13-14.toml, bench/experiments/{short,tiny}-cells.toml
    python bench/sweep_scaling.py experiments/pore-fig11.toml --workers 4 --json

A warm-up run first makes the experiment's traces (in the cache folder, SMRLAB_CACHE) and gives
the runs after it a history to order cells by. Benchmarks measure; they never assert.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
EXPERIMENTS = [
    REPO / "experiments" / "hwsr-fig13-14.toml",
    BENCH / "experiments" / "short-cells.toml",
    BENCH / "experiments" / "tiny-cells.toml",
]
PREDICT_FOR = (16, 64)


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def smrlab_run(experiment: Path, out: Path, options: list[str]) -> tuple[dict, float]:
    """Runs `smrlab run`; its provenance sidecar and the command's wall time."""
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "smrlab", "run", str(experiment), "--out", str(out), *options],
        capture_output=True,
        text=True,
    )
    command_s = time.perf_counter() - start
    found = re.search(r"table: (\S+\.parquet)", proc.stderr)
    if proc.returncode != 0 or not found:
        raise SystemExit(f"smrlab run {experiment} {' '.join(options)} failed ({proc.returncode}):\n{proc.stderr}")
    return json.loads(Path(found.group(1)).with_suffix(".json").read_text()), command_s


def api_run(experiment: Path, out: Path, client) -> tuple[dict, float]:
    """Runs the experiment through the API on ``client``'s cluster, timed from loading it, as
    `smrlab run` times itself; its provenance sidecar and the call's wall time."""
    from smrlab import experiment as experiments
    from smrlab.experiment.stopwatch import Phases

    start = time.perf_counter()
    phases = Phases()
    with phases("load"):
        loaded = experiments.load(experiment)
    summary = experiments.run(loaded, out=out, cluster=client, figures=True, phases=phases)
    return json.loads(summary.table.with_suffix(".json").read_text()), time.perf_counter() - start


def measures(sidecar: dict, command_s: float, workers: int) -> dict:
    parent = sidecar["parent"]
    walls = [cell["timing"]["wall_s"] for cell in sidecar["cells"] if cell["timing"] and not cell["reused"]]
    makespan = parent["ended_at"] - parent["begun_at"]
    total, longest = sum(walls), max(walls)
    perfect = max(total / workers, longest)
    return {
        "workers": workers,
        "makespan_s": makespan,
        "command_s": command_s,
        "serial_s": parent["serial_s"],
        "serial_share": parent["serial_s"] / total,
        "cells": len(walls),
        "cells_s": total,
        "longest_s": longest,
        "perfect_s": perfect,
        "over_perfect": makespan / perfect,
        "phases_s": parent["phases_s"],
        "counts": parent.get("counts", {}),
        "reached_s": parent.get("cluster_reached_s"),
        "walls": walls,
    }


def list_schedule(walls: list[float], workers: int) -> float:
    """The makespan of cells started longest first, each on the first free worker."""
    free = [0.0] * workers
    for wall in sorted(walls, reverse=True):
        heapq.heappush(free, heapq.heappop(free) + wall)
    return max(free)


def predict(one: dict, serial_s: float, workers: int) -> dict:
    walls = one["walls"]
    ours = serial_s + list_schedule(walls, workers)
    perfect = max(sum(walls) / workers, max(walls))
    return {
        "workers": workers,
        "makespan_s": ours,
        "speedup": one["makespan_s"] / ours,
        "perfect_s": perfect,
        "perfect_speedup": one["makespan_s"] / perfect,
        "over_perfect": ours / perfect,
    }


def scale(experiment: Path, workers: int, out: Path, as_json: bool) -> None:
    from distributed import Client, LocalCluster

    smrlab_run(experiment, out, ["--jobs", str(workers)])  # warm-up: traces made, a history to order by
    runs = {}
    sidecar, command_s = smrlab_run(experiment, out, ["--jobs", "1"])
    runs["local, 1 worker"] = measures(sidecar, command_s, 1)
    sidecar, command_s = smrlab_run(experiment, out, ["--jobs", str(workers)])
    runs[f"local, {workers} workers"] = measures(sidecar, command_s, workers)
    with tempfile.TemporaryDirectory() as shipped:
        with (
            LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                env={"SMRLAB_CACHE": shipped},
                silence_logs=50,
            ) as cluster,
            Client(cluster) as client,
        ):
            for state in ("traces travel", "traces held"):
                sidecar, command_s = api_run(experiment, out, client)
                runs[f"Dask, {workers} workers, {state}"] = measures(sidecar, command_s, workers)
            sidecar, command_s = smrlab_run(experiment, out, ["--cluster", cluster.scheduler_address])
            runs[f"Dask, {workers} workers, smrlab run --cluster"] = measures(sidecar, command_s, workers)
    one = runs["local, 1 worker"]
    predictions = {
        how: [predict(one, run["serial_s"], n) for n in (workers, *PREDICT_FOR)]
        for how, run in runs.items()
        if run["workers"] > 1
    }
    if as_json:
        for how, run in runs.items():
            print(
                json.dumps(
                    {"experiment": experiment.stem, "run": how, **{k: v for k, v in run.items() if k != "walls"}}
                )
            )
        for how, predicted in predictions.items():
            for prediction in predicted:
                print(json.dumps({"experiment": experiment.stem, "prediction": how, **prediction}))
        return
    print(
        f"\n{experiment.name}: {one['cells']} cells, {one['cells_s']:.2f} s of cells at 1 worker, longest {one['longest_s']:.2f} s"
    )
    print(
        "| run | makespan s (command s) | speed-up | efficiency | parent serial s (share of cell time) | cells s | longest s | perfect s | ours / perfect |"
    )
    print("|---|---|---|---|---|---|---|---|---|")
    for how, run in runs.items():
        speedup = one["makespan_s"] / run["makespan_s"]
        print(
            f"| {how} | {run['makespan_s']:.2f} ({run['command_s']:.2f}) | {speedup:.2f} | {speedup / run['workers']:.2f} | "
            f"{run['serial_s']:.3f} ({100 * run['serial_share']:.1f} %) | {run['cells_s']:.2f} | {run['longest_s']:.2f} | "
            f"{run['perfect_s']:.2f} | {run['over_perfect']:.3f} |"
        )
    for how, run in runs.items():
        phases = ", ".join(f"{name} {seconds:.3f}" for name, seconds in sorted(run["phases_s"].items()))
        reached = (
            f"; the cluster reached {run['reached_s']:.3f} s after the start" if run["reached_s"] is not None else ""
        )
        print(f"  {how}: parent phases (s): {phases}; {run['counts'] or 'nothing sent'}{reached}")
    print("Predicted from the 1-worker cell times, longest first, plus each way's parent serial time at N:")
    for how, predicted in predictions.items():
        at_n, *beyond = predicted
        said = "; ".join(
            f"{p['workers']} workers: makespan {p['makespan_s']:.2f} s, speed-up {p['speedup']:.1f} of a perfect "
            f"{p['perfect_speedup']:.1f}, ours / perfect {p['over_perfect']:.3f}"
            for p in beyond
        )
        print(
            f"  {how} ({runs[how]['serial_s']:.3f} s serial): at {workers} {at_n['makespan_s']:.2f} s "
            f"(measured {runs[how]['makespan_s']:.2f} s); {said}"
        )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "experiments", nargs="*", type=Path, default=EXPERIMENTS, help="experiment files (default: %(default)s)"
    )
    parser.add_argument(
        "--workers", type=int, default=cores(), help="N, the workers of the parallel runs (default: the cores)"
    )
    parser.add_argument("--out", type=Path, help="results folder (default: a temporary one)")
    parser.add_argument("--json", action="store_true", help="one JSON line per run and prediction")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as scratch:
        for experiment in args.experiments:
            scale(experiment.resolve(), args.workers, (args.out or Path(scratch)) / experiment.stem, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
