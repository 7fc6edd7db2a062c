"""``smrlab trace synth``: generate a block trace with the seeded synthesizer, from a Table I
preset of the PORE paper or from explicit parameters."""

from __future__ import annotations

import argparse
import json

from smrlab import _core, options, outputs
from smrlab.cli.sim import param_lines
from smrlab.cli.trace import add_transform_arguments, show_stats, transforms
from smrlab.errors import UsageError
from smrlab.tables import note


def params_help() -> str:
    """The synthesizer's parameters, from their declarations in the Rust core."""
    lines = ["synthesizer parameters (--param KEY=VALUE): KEY [default] (unit): meaning"]
    return "\n".join(lines + param_lines(_core.synth_params(), "  "))


def presets_help() -> str:
    rows = [
        f"  {name:<5} {requests:>11,} requests, {wp:4.1f}% writes, written {w:5.2f} GB, accessed {a:5.2f} GB"
        for name, requests, wp, w, a in _core.synth_presets()
    ]
    return "presets (Table I of the PORE paper; GB = 10^9 bytes):\n" + "\n".join(rows)


def pipeline(args: argparse.Namespace) -> dict:
    params = options.merged_params(list(args.param), seed=args.seed, preset=args.preset, requests=args.requests)
    return {"synth": params, **transforms(args)}


def run(args: argparse.Namespace) -> int:
    spec = pipeline(args)
    if args.stats:
        show_stats(f"synthetic {args.preset or 'trace'}", spec, args.json)
        return 0
    if not args.out:
        raise UsageError("give --out FILE (or --stats to only print statistics)")
    with outputs.output_file(args.out) as temporary:
        count = _core.trace_write(json.dumps(spec), str(temporary), args.to)
    note(f"wrote {count:,} requests to {args.out}")
    return 0


def register(commands) -> None:
    parser = commands.group("trace").add(
        "synth",
        help="generate a synthetic block trace (seeded; Table I presets)",
        description="Generate a seeded synthetic block trace. With --requests below a preset's count, its ranges "
        "shrink in proportion so the trace keeps the preset's density.",
    )
    parser.epilog = params_help() + "\n" + presets_help()
    parser.add_argument("--preset", choices=[p[0] for p in _core.synth_presets()], help="start from a Table I preset")
    parser.add_argument("--requests", type=options.count, metavar="N", help="number of requests (scales a preset down)")
    options.add_params_argument(parser, "synthesizer parameter (see below)")
    parser.add_argument("--out", help="output trace file (format from its name, or --to)")
    parser.add_argument("--to", help="output format")
    parser.add_argument("--stats", action="store_true", help="print the trace's statistics instead of writing it")
    parser.add_argument("--json", action="store_true", help="with --stats: print JSON")
    add_transform_arguments(parser)
    parser.set_defaults(func=run)
