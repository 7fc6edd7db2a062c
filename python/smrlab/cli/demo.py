"""``smrlab demo`` (what ``make demo`` runs): the main job on the bundled traces.

Replays the bundled wdev-, mds-, ts- and usr-like traces on a plain disk (``cmr``) and on a
drive-managed SMR disk (``dmsmr``) and prints how much slower SMR is and why (band cleanings,
write amplification); then puts SSD caches in front of the SMR disk (the PORE paper's
line-up, write-only cache of 2 %). Results go to ``results/demo/``. Grows as systems land.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from smrlab import progress
from smrlab.bundled import DATA_DIR, DEMO_TRACES, bundled_trace
from smrlab.cli import caches
from smrlab.cli.sim import add_engine_arguments
from smrlab.run import footprint, simulate, write_result
from smrlab.tables import note, print_table


def register(commands) -> None:
    parser = commands.add("demo", help="compare a plain disk with a drive-managed SMR disk on the bundled traces")
    parser.add_argument("--data", type=Path, default=DATA_DIR, help="folder with the bundled traces (default: data/)")
    parser.add_argument("--out", type=Path, default=Path("results/demo"), help="folder for the JSON results")
    caches.add_cache_arguments(parser)
    add_engine_arguments(parser)
    parser.set_defaults(func=run, format=None, trace_option=[])


def smr_vs_cmr(traces: dict[str, Path], out: Path, seed: int) -> None:
    rows = []
    for name, path in traces.items():
        fp = footprint(path)
        results = {}
        for system in ("cmr", "dmsmr"):
            results[system] = simulate(system, path, seed=seed, footprint=fp, progress=progress.reporter(f"{name}/{system}"))
            progress.done()
            write_result(results[system], out / f"{name}-{system}.json")
        cmr, smr = results["cmr"]["derived"], results["dmsmr"]
        counters = smr["report"]["counters"]
        rows.append((
            name,
            smr["report"]["requests"],
            cmr["read_io_s"], cmr["write_io_s"],
            smr["derived"]["read_io_s"], smr["derived"]["write_io_s"],
            smr["derived"]["total_io_s"] / cmr["total_io_s"],
            smr["derived"].get("r_wa"),
            counters.get("band_cleanings", 0),
        ))
    print_table(
        "Drive-managed SMR vs plain disk (closed loop, total I/O time)",
        ["trace", "requests", "cmr read s", "cmr write s", "smr read s", "smr write s", "smr / cmr", "R_wa", "band cleanings"],
        rows,
        caption="dmsmr: FIFO persistent write buffer of 1/256 of the written range, bands 17-36 MB (PORE §II, §V-A)",
    )


def run(args: argparse.Namespace) -> int:
    traces = {name: bundled_trace(name, args.data) for name in DEMO_TRACES}
    smr_vs_cmr(traces, args.out, args.seed)
    for name, path in traces.items():
        results = caches.compare(str(path), args, args.out)
        print_table(f"SSD caches over drive-managed SMR: {name} ({args.mode}, cache {args.cache})", caches.COLUMNS,
                    caches.comparison_rows(results), caption="I/O times as fractions of cmr-only's total I/O time (PORE Figs. 11-14)")
    note(f"results written to {args.out}/")
    return 0
