"""``smrlab trace stats|convert|merge``: look at traces and turn them into other traces.

Every command here builds one trace pipeline (inputs, then transforms) that the Rust core runs;
``convert`` applies transforms to one trace, ``merge`` lays several traces (or N copies of one)
into adjacent LBA ranges in a seeded interleaving. Not here: synthesis (``trace synth``) and the
SMR estimate (``trace smr-estimate``).
"""

from __future__ import annotations

import argparse
import json

from smrlab import _core, options, outputs
from smrlab.tables import note, print_json, print_table

# The most copies `trace merge --copies` lays (the core's limit).
MAX_COPIES = 256

FORMATS_HELP = (
    "Formats: msr (MSR Cambridge CSV: 100 ns filetime ticks, bytes), spc (ASU,LBA in 512 B sectors,size in bytes,r/w,seconds), "
    "blkparse (blkparse text; --trace-option action=Q|D|C, default D), vscsi (CloudPhysics binary v1/v2, detected), "
    "blocks ('op blockno' per line, 4 KiB blocks, 1=write), csv (generic; --trace-option time=0 op=1 offset=2 len=3 "
    "time_unit=ns|us|ms|s|filetime offset_unit=bytes|sectors|blocks ...), smrbin (smrlab binary, memory-mapped; written uncompressed it carries its statistics, so a run reads it once). "
    "By default the format follows the file name (.csv is MSR); .gz/.xz/.bz2/.zst are decompressed on the fly."
)


def add_input_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        help="input format: "
        + ", ".join(name for name, _ in _core.trace_formats())
        + " (default: from the file name; see FORMATS below)",
    )
    parser.add_argument(
        "--trace-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="reader option (repeatable), e.g. action=Q for blkparse",
    )


def input_spec(path: str, args: argparse.Namespace) -> dict:
    return {"path": str(path), "format": args.format, "options": list(args.trace_option)}


def add_transform_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("transforms (applied in this order)")
    group.add_argument(
        "--shift", type=options.size, default=0, metavar="SIZE", help="add SIZE bytes to every offset (e.g. 1TiB)"
    )
    group.add_argument("--writes-only", action="store_true", help="keep only write requests")
    group.add_argument(
        "--sample", type=options.fraction, metavar="FRACTION", help="keep each request with this probability (seeded)"
    )
    group.add_argument("--head", type=options.whole, metavar="N", help="keep the first N requests")
    group.add_argument("--seed", type=options.seed, default=0, help="seed of sampling and interleaving (default 0)")


def transforms(args: argparse.Namespace) -> dict:
    return {
        "shift": args.shift,
        "writes_only": args.writes_only,
        "sample": args.sample,
        "head": args.head,
        "seed": args.seed,
    }


def stats_rows(stats: dict) -> list[tuple[str, object]]:
    gb = 1e9
    return [
        ("requests", stats["requests"]),
        ("reads / writes / trims", f"{stats['reads']:,} / {stats['writes']:,} / {stats['trims']:,}"),
        ("write percent", stats["write_percent"]),
        ("bytes read (GB)", stats["bytes_read"] / gb),
        ("bytes written (GB)", stats["bytes_written"] / gb),
        ("average read length (KiB)", stats["avg_read_len"] / 1024),
        ("average write length (KiB)", stats["avg_write_len"] / 1024),
        ("unique 4 KiB blocks read", stats["unique_blocks_read"]),
        ("unique 4 KiB blocks written", stats["unique_blocks_written"]),
        ("unique 4 KiB blocks touched", stats["unique_blocks_touched"]),
        ("written LBA range, union (GB)", stats["written_union_bytes"] / gb),
        ("written LBA range, span (GB)", stats["written_span_bytes"] / gb),
        ("accessed LBA range, union (GB)", stats["accessed_union_bytes"] / gb),
        ("accessed LBA range, span (GB)", stats["accessed_span_bytes"] / gb),
        ("updates (4 KiB blocks rewritten)", stats["updates"]),
        ("duration (s)", stats["duration_ns"] / 1e9),
        ("timestamps earlier than the one before", stats["time_regressions"]),
    ]


def show_stats(title: str, pipeline: dict, as_json: bool) -> None:
    stats = json.loads(_core.trace_stats(json.dumps(pipeline)))
    if as_json:
        print_json(stats)
    else:
        print_table(
            title, ["statistic", "value"], stats_rows(stats), caption="GB = 10^9 bytes; ranges over 4 KiB blocks"
        )


def run_stats(args: argparse.Namespace) -> int:
    show_stats(args.file, {"inputs": [input_spec(args.file, args)]}, args.json)
    return 0


def run_convert(args: argparse.Namespace) -> int:
    pipeline = {"inputs": [input_spec(args.src, args)], **transforms(args)}
    with outputs.output_file(args.dst, [args.src]) as temporary:
        count = _core.trace_write(json.dumps(pipeline), str(temporary), args.to)
    note(f"wrote {count:,} requests to {args.dst}")
    return 0


def run_merge(args: argparse.Namespace) -> int:
    pipeline = {"inputs": [input_spec(p, args) for p in args.src], "duplicate": args.copies, **transforms(args)}
    with outputs.output_file(args.out, args.src) as temporary:
        count = _core.trace_write(json.dumps(pipeline), str(temporary), args.to)
    note(f"wrote {count:,} requests to {args.out}")
    return 0


def register(commands) -> None:
    group = commands.group("trace", help="inspect, convert, merge and synthesize block traces")

    stats = group.add(
        "stats",
        help="statistics of a trace (Table I columns and more)",
        description="Statistics of a trace. " + FORMATS_HELP,
    )
    stats.add_argument("file", help="trace file")
    add_input_arguments(stats)
    stats.add_argument("--json", action="store_true", help="print JSON instead of a table")
    stats.set_defaults(func=run_stats)

    convert = group.add(
        "convert",
        help="convert a trace to another format, optionally transformed",
        description="Convert SRC to DST (format from DST's name or --to), applying transforms. " + FORMATS_HELP,
    )
    convert.add_argument("src", help="input trace")
    convert.add_argument("dst", help="output trace (.gz/.xz/.bz2/.zst compress)")
    convert.add_argument("--to", help="output format (default: from DST's name)")
    add_input_arguments(convert)
    add_transform_arguments(convert)
    convert.set_defaults(func=run_convert)

    merge = group.add(
        "merge",
        help="merge traces (or copies of one) into adjacent LBA ranges",
        description="Lay the input traces side by side in the LBA space (each starts past the previous one's end, "
        "rounded up to 1 MiB) and interleave their requests in a seeded random order that keeps each "
        "input's own order. --copies N repeats the whole set N times: the 'mix' trace of PORE §V-G. " + FORMATS_HELP,
    )
    merge.add_argument("src", nargs="+", help="input traces (all in the same --format, or detected per file)")
    merge.add_argument("--out", required=True, help="output trace")
    merge.add_argument("--to", help="output format (default: from the name)")
    merge.add_argument(
        "--copies",
        type=options.bounded_whole(1, MAX_COPIES),
        default=1,
        metavar="N",
        help="lay N copies of the inputs (default 1)",
    )
    add_input_arguments(merge)
    add_transform_arguments(merge)
    merge.set_defaults(func=run_merge)
