"""``smrlab demo`` (what ``make demo`` runs): the main job on the bundled traces.

First replays the bundled wdev-, mds-, ts- and usr-like samples on a plain disk (``cmr``) and on
a drive-managed SMR disk (``dmsmr``) and prints how much slower SMR is and why (band cleanings,
write amplification); band sizes are scaled as each sample is scaled down from its original
trace (``--geometry-scale`` overrides), so the ratio of band size to write buffer stays the
paper's. Then puts SSD caches in front of the SMR disk (the PORE paper's line-up, write-only
cache of 2 %) on the full-size wdev, mds, ts and usr traces (generated on first use, see
``bundled.full_size_trace``; in write-only mode without their reads, as the paper ran its
write-only experiments, §V-C2): PORE's choices are between zones and bands holding tens to
hundreds of cached blocks each, which a sample scaled down 26-129 times no longer has; each
line-up runs as an experiment, in parallel. Results go to ``results/demo/``; the demo ends by
writing the report of its line-ups (``results/demo/report.html``) and printing its path. Grows
as systems land.
"""

from __future__ import annotations

import argparse
import copy
from pathlib import Path

from smrlab import caveats, docs_pages, live, outputs, report, results
from smrlab.bundled import DATA_DIR, DEMO_TRACES, bundled_trace, full_size_trace
from smrlab.cli import caches, paper_command
from smrlab.cli.paper_command import add_run_arguments
from smrlab.cli.sim import add_engine_arguments, engine_keywords
from smrlab.run import measure, note_time_regressions, simulate, write_result
from smrlab.tables import note, print_table
from smrlab.trace import Trace


def register(commands) -> None:
    parser = commands.add("demo", help="compare a plain disk with a drive-managed SMR disk on the bundled traces")
    parser.add_argument(
        "--data",
        type=Path,
        default=DATA_DIR,
        help="folder with the bundled traces (default: the samples installed with smrlab)",
    )
    parser.add_argument("--out", type=Path, default=Path("results/demo"), help="folder for the JSON results")
    parser.add_argument(
        "--traces",
        type=Path,
        default=None,
        help="folder for the generated full-size PORE traces (default: smrlab's cache, $SMRLAB_CACHE or ~/.cache/smrlab)",
    )
    caches.add_cache_arguments(parser)
    add_run_arguments(parser)
    add_engine_arguments(parser)
    parser.set_defaults(func=run, format=None, trace_option=[], geometry_scale=None)


def smr_vs_cmr(traces: dict[str, tuple[Path, argparse.Namespace]], out: Path) -> None:
    rows, ran = [], {}
    for name, (path, args) in traces.items():
        fp, requests = measure(path)
        results = {}
        for system, params in (("cmr", caches.disk_params(args)), ("dmsmr", caches.lower_params(args))):
            with live.task(f"{name}/{system}", requests, "requests") as show:
                results[system] = simulate(
                    system, path, params, seed=args.seed, footprint=fp, engine=engine_keywords(args), progress=show
                )
            note_time_regressions(results[system], f"{name}/{system}")
            write_result(results[system], out / f"{name}-{system}.json")
            ran[f"{name}/{system}"] = results[system]
        cmr, smr = results["cmr"]["derived"], results["dmsmr"]
        counters = smr["report"]["counters"]
        rows.append(
            (
                name,
                smr["report"]["requests"],
                cmr["read_io_s"],
                cmr["write_io_s"],
                smr["derived"]["read_io_s"],
                smr["derived"]["write_io_s"],
                smr["derived"]["total_io_s"] / cmr["total_io_s"],
                smr["derived"].get("r_wa"),
                counters.get("band_cleanings", 0),
            )
        )
    print_table(
        "Drive-managed SMR vs plain disk (closed loop, total I/O time)",
        [
            "trace",
            "requests",
            "cmr read s",
            "cmr write s",
            "smr read s",
            "smr write s",
            "smr / cmr",
            "R_wa",
            "band cleanings",
        ],
        rows,
        caption="dmsmr: FIFO persistent write buffer of 1/256 of the written range, bands 17-36 MB scaled with the sample "
        "(PORE §II, §V-A)",
        notes=caveats.notes(ran),
    )


def with_scale(args: argparse.Namespace) -> argparse.Namespace:
    """``args`` for a sample: band and zone sizes scaled as the sample is (``auto``: its
    requests over those of the paper trace it is named after), unless given."""
    scaled = copy.copy(args)
    if scaled.geometry_scale is None:
        scaled.geometry_scale = "auto"
    return scaled


def run(args: argparse.Namespace) -> int:
    traces = {name: (bundled_trace(name, args.data), with_scale(args)) for name in DEMO_TRACES}
    full_size = {name: full_size_trace(name, args.traces, writes_only=args.mode == "wo") for name in DEMO_TRACES}
    smr_vs_cmr(traces, args.out)
    full_args = copy.copy(args)
    full_args.geometry_scale = "1" if args.geometry_scale is None else args.geometry_scale
    per_trace = {}
    for name, path in full_size.items():
        # compare-caches' own run and table, on each full-size trace.
        runs, _ = paper_command.execute(
            caches.COMPARE_COMMAND, full_args, lambda path=path: Trace.open(path), name=name
        )
        caches.COMPARISON.show(runs, **{**vars(full_args), "trace": f"full-size {name}"})
        per_trace[name] = {run.label: run.result for run in runs}
    caches.print_factors(per_trace, args.mode, "full-size " + ", ".join(DEMO_TRACES))
    note(f"results written to {args.out}/")
    page = outputs.write_text(
        args.out / "report.html", report.page(results.tables_under(args.out), "smrlab demo: SSD caches over SMR")
    )
    docs_pages.write_beside(page.read_text(), args.out)
    note("report (figures, tables, the PORE paper's numbers beside ours):")
    print(page.resolve())
    return 0
