"""``smrlab probe TARGET``: tell a drive-managed SMR disk from a conventional one by timing
requests, measure its media cache, bands and cleaning, and fit smrlab's model to it, within a
budget of bytes written and device time (docs/probe.md).

TARGET is ``sim:SYSTEM`` with ``-p KEY=VALUE`` parameters (a simulated drive of ``--capacity``
bytes, any system ``smrlab sim`` runs), or a block device or file, probed through fio (libaio,
O_DIRECT) and only with ``--destroy-data``: probing overwrites it. The drive card is printed and
written as JSON (``--out``); ``smrlab sim --system dmsmr --preset-file CARD`` runs the fitted
model. The fio job files of a real target are kept beside the card (CARD.jobs/).

Not here: the probes and the fit (``smrlab.probe``).
"""

from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

from smrlab import live, options, outputs
from smrlab.errors import UsageError
from smrlab.probe import api, card, target
from smrlab.probe.drive import BLOCK, Budget
from smrlab.probe.fio import FioDevice
from smrlab.probe.simdrive import SimDevice
from smrlab.tables import note, print_json

# The smallest media cache the probe looks for, as a share of the drive: a budget that cannot
# fill it is refused before anything is written. Open choice: Skylight's drive has 20 GB of 5 TB
# (0.4 %); an eighth of that.
SMALLEST_CACHE = 0.0005
DEFAULT_BUDGET = "40%,2h"
DURATION = re.compile(r"^\s*([0-9]*\.?[0-9]+)\s*(s|min|h)\s*$")


def parse_budget(text: str, capacity: int) -> Budget:
    """``SIZE``, ``DURATION`` or both (``4GiB,30min``): a size in bytes or a share of the drive
    (``25%``), a duration in s, min or h. What is not given is the default's."""
    default = dict(bytes=int(0.4 * capacity), time_ns=2 * 3600 * 10**9)
    for part in [p for p in text.split(",") if p.strip()]:
        if match := DURATION.match(part):
            scale = {"s": 1, "min": 60, "h": 3600}[match.group(2)]
            default["time_ns"] = int(float(match.group(1)) * scale * 1e9)
        elif part.strip().endswith("%"):
            default["bytes"] = int(options.fraction(str(float(part.strip()[:-1]) / 100)) * capacity)
        else:
            try:
                default["bytes"] = options.size(part.strip())
            except argparse.ArgumentTypeError:
                raise UsageError(
                    f"--budget {options.quoted(text)}: {options.quoted(part)} is neither a size nor a duration (s, min, h)"
                ) from None
    if default["time_ns"] <= 0:
        raise UsageError(f"--budget {options.quoted(text)}: the time must be above zero")
    return Budget(**default)


def register(commands) -> None:
    parser = commands.add(
        "probe",
        help="measure a drive's media cache, bands and cleaning by timing requests, and fit the dmsmr model",
        description=__doc__,
    )
    parser.add_argument("target", metavar="TARGET", help="sim:SYSTEM, or a block device or file")
    options.add_params_argument(parser, "sim: parameter (repeatable)")
    parser.add_argument(
        "--capacity", type=options.positive_size, metavar="SIZE", help="sim: the simulated drive's size (default 4GiB)"
    )
    parser.add_argument(
        "--budget",
        default=DEFAULT_BUDGET,
        metavar="SIZE,DURATION",
        help="most bytes written (a size, or a share of the drive) and device time (s, min, h) "
        f"the probe may spend (default {DEFAULT_BUDGET.replace('%', '%%')})",
    )
    parser.add_argument(
        "--idle-pause",
        type=options.positive,
        default=300.0,
        metavar="S",
        help="seconds of idle time the idle probe waits with the cache full (default 300)",
    )
    parser.add_argument(
        "--bands", type=options.bounded_whole(2, 10_000), default=32, metavar="N", help="bands to measure (default 32)"
    )
    parser.add_argument("--destroy-data", action="store_true", help="allow writing to a real target (its data is lost)")
    parser.add_argument("--seed", type=options.seed, default=0, help="seed of the probe's choices and of a sim: drive")
    parser.add_argument(
        "--out", metavar="CARD", default="drive-card.json", help="the card's JSON (default %(default)s)"
    )
    parser.add_argument("--json", action="store_true", help="print the card's JSON instead of its text")
    parser.set_defaults(func=run, extra_params=True)


def open_device(args: argparse.Namespace, jobs: Path):
    if target.is_sim(args.target):
        capacity = args.capacity or 4 << 30
        return SimDevice(target.sim_system(args.target), args.param, capacity, args.seed)
    if args.param or args.capacity:
        raise UsageError(f"{args.target}: -p and --capacity apply to sim: targets only")
    path, size = target.check_path(args.target, args.destroy_data)

    return FioDevice(path, size // BLOCK * BLOCK, jobs)


def run(args: argparse.Namespace) -> int:
    out = Path(args.out)
    outputs.check_output(out, [] if target.is_sim(args.target) else [args.target])
    jobs = out.with_name(out.stem + ".jobs")
    device = open_device(args, jobs)
    budget = parse_budget(args.budget, device.capacity)
    smallest = SMALLEST_CACHE * device.capacity
    if budget.bytes < smallest:
        raise UsageError(
            f"--budget of {budget.bytes:,} bytes cannot see one cleaning: it cannot fill even the smallest "
            f"media cache the probe looks for ({SMALLEST_CACHE:.2%} of the {device.capacity / 2**30:,.2f} GiB drive, "
            f"{int(smallest):,} bytes)"
        )
    if hasattr(device, "jobs"):
        jobs.mkdir(parents=True, exist_ok=True)
    with live.task(f"probe {args.target}", 100, "% of the byte budget") as show:
        result, drive = api.probe(device, budget, args.seed, args.idle_pause, args.bands, show)
    spent = {
        "bytes": budget.bytes,
        "seconds": budget.time_ns / 1e9,
        "written_bytes": drive.written,
        "device_seconds": drive.time_ns / 1e9,
        "requests": drive.requests,
        "stopped_by": drive.spent,
    }
    data = card.card(device.name, device.capacity, result, spent, getattr(device, "files", []))
    outputs.write_text(out, json.dumps(data, indent=2) + "\n")
    if args.json:
        print_json(data)
    else:
        print(card.text(data))
        note(f"card written to {out}")
    return 0
