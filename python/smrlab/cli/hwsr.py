"""``smrlab hwsr ...`` and ``smrlab hwsr-sweep``: the HWSR paper's experiments.

- ``hwsr capacity``: the wave-like recording capacity model, Fig. 7's curves and the paper's
  stated points of them (§3.2);
- ``hwsr traces``: the Table 3 traces, generated, with their measured columns beside the table's;
- ``hwsr compare``: HWSR, S-block and the plain disk on one trace, with and without the MEM
  buffer and the SSD cache (Figs. 13-19), and HWSR's MEM policies side by side;
- ``hwsr-sweep``: HWSR's mean response time over block sizes and region sizes (Fig. 20).

Replays are as the experiment files say (open loop at trace timestamps, as the paper replays its
traces) unless ``--replay`` says otherwise. Every
number comes from the core; this module runs and formats.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path

from smrlab import _core, hwsr_traces, options
from smrlab.bundled import traces_folder
from smrlab.cli import views
from smrlab.cli.paper_command import PaperCommand, Sweep
from smrlab.errors import UsageError
from smrlab.options import bounded_whole, generated_requests, listed
from smrlab.outputs import check_room
from smrlab.tables import add_json_argument, print_table
from smrlab.trace import Trace

# The experiment files whose systems make the comparison: Figs. 15-19 (the plain disk; HWSR and
# S-block with neither cache, the SSD only, both), then HWSR's MEM policies and its MEM buffer
# alone (§2.3); the first file's shared parameters (the one drive of Table 2) are the line-up's.
LINE_UP_FILES = ("hwsr-fig15-19", "hwsr-mem-policies")
# The experiment file of the block and region sweep (Fig. 20): its values are the default ranges.
SWEEP_FILE = "hwsr-fig20"
SECTOR = 512
# The most block sizes and region sizes a sweep takes (a grid of at most 16 x 16 runs); their
# largest values are the core's: a block of one largest track, a region of the most tracks.
MOST_SWEPT = 16
MAX_BLOCK_SECTORS = _core.HWSR_MAX_TRACK // SECTOR


def run_capacity(args: argparse.Namespace) -> int:
    figure = json.loads(_core.hwsr_capacity())
    regions = [s for s, _ in figure["curves"][0]["points"]]
    rows = [(f"Fig. {c['panel']}", c["kappa"], c["beta"], *(v for _, v in c["points"])) for c in figure["curves"]]
    print_table(
        "H-S ratio: disk utilisation of HWSR over S-block (HWSR §3.2, Fig. 7)",
        ["figure", "kappa", "beta", *(f"S_reg={s}" for s in regions)],
        rows,
        caption="2(S_reg + 2 kappa) / ((2 S_reg + kappa)(1 - beta)); S_reg in tracks",
    )
    print_table(
        "The paper's stated points",
        ["claim", "S_reg", "kappa", "beta", "paper", "model", "holds"],
        [
            (p["claim"], p["region_tracks"], p["kappa"], p["beta"], p["paper"], p["model"], p["holds"])
            for p in figure["stated"]
        ],
    )
    return 0 if all(p["holds"] for p in figure["stated"]) else 1


def trace_of(args: argparse.Namespace) -> Path:
    """The trace a command runs on: --trace, or a Table 3 preset generated on first use."""
    if args.trace:
        return Path(args.trace)
    if not args.preset:
        raise UsageError("give --trace FILE or --preset NAME (a Table 3 trace)")
    return hwsr_traces.trace(args.preset, args.requests, Path(args.traces) if args.traces else None, args.seed)


def run_traces(args: argparse.Namespace) -> int:
    names = list(dict.fromkeys(args.preset or hwsr_traces.ROWS))
    check_room(
        traces_folder(args.out),
        sum(hwsr_traces.trace_bytes(name, args.requests) for name in names),
        f"{len(names)} generated traces",
    )
    rows = []
    for name in names:
        path = hwsr_traces.trace(name, args.requests, Path(args.out) if args.out else None, args.seed)
        columns = hwsr_traces.measured(path)
        off = hwsr_traces.deviations(name, columns, args.requests)
        rows.append(
            (
                name,
                path.name,
                columns["requests"],
                columns["unique_bytes"] / 1e9,
                columns["avg_read_len"],
                columns["avg_write_len"],
                columns["updates"],
                columns["write_percent"],
                max(abs(v) for v in off.values()),
            )
        )
    print_table(
        "Table 3 traces as generated",
        [
            "trace",
            "file",
            "requests",
            "unique GB",
            "avg read B",
            "avg write B",
            "updates",
            "write %",
            "largest deviation",
        ],
        rows,
        caption="largest deviation: the largest of the six columns' relative distance from Table 3 "
        "(scaled to the request count)",
    )
    return 0


# The comparison's table: HWSR Figs. 13 (response), 14 (segments rewritten), 12c (hit ratios),
# 15-19 (without MEM or SSD).
COMPARISON = views.Table(
    "HWSR, S-block and a plain disk on {trace}",
    "system",
    (
        views.Column("mean ms", "response_mean_ns", 1e-6),
        views.Column("read ms", "read_response_mean_ns", 1e-6),
        views.Column("write ms", "write_response_mean_ns", 1e-6),
        views.Column("write p99 ms", "write_response_p99_ns", 1e-6),
        views.Column("write service ms", "write_service_mean_ns", 1e-6),
        views.Column("segments /10k req", "segments_rewritten_per_request", 1e4),
        views.Column("MEM hit", "mem_hit_ratio"),
        views.Column("SSD hit", "ssd_hit_ratio"),
    ),
    caption="response = waiting + service (open loop at trace time unless --replay closed); "
    "HWSR Figs. 13 (response), 14 (segments rewritten), 12c (hit ratios), 15-19 (without MEM or SSD)",
)
MEAN_MS = COMPARISON.columns[0]


def add_trace_choice(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], Trace]:
    """--trace or a Table 3 --preset, and --param for every run; returns how to open the trace."""
    parser.add_argument("--trace", help="block trace file")
    parser.add_argument("--preset", choices=list(hwsr_traces.ROWS), help="a Table 3 trace, generated on first use")
    parser.add_argument(
        "--requests",
        type=generated_requests,
        metavar="N",
        help="with --preset: requests, 1 to 10^9 (default the table's 1,000,000)",
    )
    parser.add_argument(
        "--traces",
        metavar="DIR",
        help="with --preset: where generated traces go (default: smrlab's cache, $SMRLAB_CACHE or ~/.cache/smrlab)",
    )
    options.add_params_argument(
        parser, "parameters for every run that declares them (e.g. mem=2MiB, kappa=3, disk=desktop7200)"
    )
    return lambda args: Trace.open(trace_of(args))


COMPARE = PaperCommand(
    "compare",
    "HWSR, S-block and a plain disk, with and without MEM and SSD (Figs. 13-19)",
    LINE_UP_FILES,
    COMPARISON,
    "results/hwsr",
    group="hwsr",
    traces=add_trace_choice,
)


SWEEP = PaperCommand(
    "hwsr-sweep",
    "HWSR response time over block and region sizes (HWSR Fig. 20)",
    (SWEEP_FILE,),
    views.Grid(
        "HWSR mean response time (ms) by block and region size on {trace} (Fig. 20)",
        "region",
        "region tracks",
        "block",
        "block {} sectors",
        MEAN_MS,
    ),
    "results/hwsr-sweep",
    traces=add_trace_choice,
    sweeps=(
        # Fig. 20's ranges, from its experiment file, unless given: blocks in sectors, regions in tracks.
        Sweep(
            "block",
            "--blocks",
            f"block sizes in 512-byte sectors, comma-separated: at most {MOST_SWEPT}, each 1 to {MAX_BLOCK_SECTORS} "
            "(default 16..512)",
            SWEEP_FILE,
            type=listed(bounded_whole(1, MAX_BLOCK_SECTORS), MOST_SWEPT),
            to_param=lambda sectors: str(sectors * SECTOR),
            from_file=lambda size: _core.parse_size(size) // SECTOR,
        ),
        Sweep(
            "region",
            "--regions",
            f"region sizes in tracks, comma-separated: at most {MOST_SWEPT}, each 1 to "
            f"{_core.HWSR_MAX_REGION_TRACKS} (default 8..64)",
            SWEEP_FILE,
            type=listed(bounded_whole(1, _core.HWSR_MAX_REGION_TRACKS), MOST_SWEPT),
            from_file=int,
        ),
    ),
)


def register(commands) -> None:
    group = commands.group("hwsr", help="the HWSR paper: capacity model, Table 3 traces, comparisons (Luo et al.)")
    capacity = group.add(
        "capacity", help="wave-like recording capacity model: Fig. 7 and the paper's stated points (§3.2)"
    )
    add_json_argument(capacity)
    capacity.set_defaults(func=run_capacity)

    traces = group.add("traces", help="generate the Table 3 traces and compare their columns with the table")
    traces.add_argument(
        "--preset", action="append", choices=list(hwsr_traces.ROWS), help="only this trace (repeatable)"
    )
    traces.add_argument(
        "--requests",
        type=generated_requests,
        metavar="N",
        help="requests per trace, 1 to 10^9 (default 1,000,000; fewer scale ranges)",
    )
    traces.add_argument(
        "--out", metavar="DIR", help="where traces go (default: smrlab's cache, $SMRLAB_CACHE or ~/.cache/smrlab)"
    )
    traces.add_argument("--seed", type=int, default=0, help="generator seed (default 0)")
    add_json_argument(traces)
    traces.set_defaults(func=run_traces)

    COMPARE.register(group)

    SWEEP.register(commands)
