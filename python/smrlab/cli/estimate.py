"""``smrlab trace smr-estimate``: the write-amplification estimate of PORE §III-A for a trace —
how badly a drive-managed SMR disk would amplify its writes, without simulating time (the
core's ``smr-estimate``, which experiments run as a system)."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from smrlab import _core, options, systems
from smrlab.cli.sim import add_geometry_argument, geometry_params
from smrlab.cli.trace import add_input_arguments
from smrlab.errors import UsageError
from smrlab.tables import note, print_json, print_table


def run(args: argparse.Namespace) -> int:
    if not Path(args.file).exists():
        raise UsageError(f"{args.file}: no such trace file")
    spec = {
        "system": "smr-estimate",
        "trace": args.file,
        "format": args.format,
        "trace_options": args.trace_option,
        "params": geometry_params(args),
        "seed": args.seed,
    }
    result = json.loads(_core.smr_estimate(json.dumps(spec)))
    geometry_lines = result.pop("geometry")
    if args.json:
        print_json({**result, "geometry": geometry_lines})
        return 0
    rows = [
        ("written range: capacity of the bands written (GB)", result["written_range_bytes"] / 1e9),
        ("working set: union of the 4 KiB blocks written (GB)", result["written_bytes"] / 1e9),
        ("virtual FIFO queue (MB)", result["buffer_bytes"] / 1e6),
        ("buffer fills", result["fills"]),
        ("bands covered, summed over fills", result["bands_covered"]),
        ("band bytes rewritten (GB)", result["band_bytes"] / 1e9),
        ("bytes through the queue (GB)", result["buffered_bytes"] / 1e9),
        ("estimated R_wa", result["r_wa"] if result["r_wa"] is not None else "not applicable: no writes"),
    ]
    print_table(f"SMR write-amplification estimate (PORE §III-A): {args.file}", ["", "value"], rows)
    for line in geometry_lines:
        note(line)
    return 0


# The parameters the estimate reads (its queue, and the bands as dmsmr declares them, with the
# geometry's scale).
ESTIMATE_PARAMS = ("buffer", "band_min", "band_max", "band_size")


def register(commands) -> None:
    declared = systems.defaults("smr-estimate")
    parser = commands.group("trace").add(
        "smr-estimate",
        help="estimate drive-managed SMR write amplification of a trace (PORE §III-A)",
        description=f"Only writes count. A virtual FIFO queue of {declared['buffer']} of the working set (the union of the "
        "4 KiB blocks the trace writes; `sim --system dmsmr` sizes its buffer from the written range, the capacity of the "
        "bands written, instead) fills with written blocks; at each fill the sizes of the bands it covers are summed and "
        "it is emptied. R_wa = band bytes / bytes through the queue. Bands are uniform in "
        f"[{declared['band_min']}, {declared['band_max']}] (seeded) unless changed.",
    )
    parser.add_argument("file", help="trace file")
    add_input_arguments(parser)
    defaults = ", ".join(f"{key} [{declared[key]}]" for key in ESTIMATE_PARAMS).replace(
        "%", "%%"
    )  # argparse %-formats help
    options.add_params_argument(
        parser,
        f"{defaults}: buffer in bytes, N blocks, N%% or a fraction of the working set; band sizes in "
        "bytes (band_size: fixed bands)",
    )
    parser.add_argument("--seed", type=options.seed, default=0, help="seed of the band layout (default 0)")
    add_geometry_argument(parser)
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    parser.set_defaults(func=run)
