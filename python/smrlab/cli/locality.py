"""``smrlab trace locality``: the write locality measures of the uCache paper (§II) for a trace —
write footprint vs bucket size (Fig. 4), 4 MiB write stack-distance CDF (Fig. 2), and the share
of writes within 256 KiB of the previous one."""

from __future__ import annotations

import argparse
import json

from smrlab import _core
from smrlab.cli.trace import add_input_arguments, input_spec
from smrlab.tables import print_json, print_table

BUCKETS = "4KiB,128KiB,256KiB,512KiB,1MiB,2MiB,4MiB"


def run(args: argparse.Namespace) -> int:
    sizes = [_core.parse_size(s) for s in args.buckets.split(",")]
    result = json.loads(_core.trace_locality(json.dumps({"inputs": [input_spec(args.file, args)]}), sizes))
    if args.json:
        print_json(result)
        return 0
    print_table(
        f"Write footprint vs bucket size (uCache Fig. 4): {args.file}",
        ["bucket (bytes)", "footprint (GB)"],
        [(size, footprint / 1e9) for size, footprint in result["footprint"]],
    )
    print_table(
        "4 MiB write stack distance CDF (uCache Fig. 2)",
        ["distance ≤", "fraction of repeated writes"],
        result["stack_distance_cdf"],
        caption=f"{result['writes']:,} writes, {result['first_region_writes']:,} to a region for the first time; "
        f"{result['near_previous']:.1%} within 256 KiB of the previous write",
    )
    return 0


def register(commands) -> None:
    parser = commands.group("trace").add(
        "locality", help="write footprint by bucket size and write stack distances (uCache §II)"
    )
    parser.add_argument("file", help="trace file")
    add_input_arguments(parser)
    parser.add_argument("--buckets", default=BUCKETS, help=f"comma-separated bucket sizes (default {BUCKETS})")
    parser.add_argument("--json", action="store_true", help="print JSON instead of tables")
    parser.set_defaults(func=run)
