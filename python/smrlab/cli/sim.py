"""``smrlab sim``: replay one trace through one simulated system, print a table, write JSON.

System parameters are given as ``--param key=value`` or directly as ``--key value`` (e.g.
``--cache 2% --zone 20MB``); every system rejects keys it does not know. Not here: comparisons
of several systems (``compare-caches``, ``demo``).
"""

from __future__ import annotations

import argparse
import contextlib
from pathlib import Path

from smrlab import _core, live, options, outputs, systems
from smrlab.cli.declared import add_declared
from smrlab.probe.card import card_params
from smrlab.run import measure, note_time_regressions, simulate, write_result
from smrlab.sim_table import print_result
from smrlab.tables import note, print_json

UNITS_NOTE = (
    "Sizes: a bare number is bytes; KB/MB/GB are powers of 1000, KiB/MiB/GiB powers of 1024; "
    "cache and buffer sizes may also be a percentage (2%), a fraction (1/256) or a block count (1000blocks) "
    "of the trace's footprint. Times in the output are seconds (s) or milliseconds (ms) as labelled."
)


# What ``smrlab sim --help`` shows: a first run's options. ``--help --all`` and ``--help --system
# NAME`` show every option.
COMMON_OPTIONS = {
    "--help",
    "--system",
    "--trace",
    "--param",
    "--geometry-scale",
    "--replay",
    "--seed",
    "--json",
    "--all",
}
MORE_HELP = (
    "a system's parameters and every option: smrlab sim --help --system NAME\n"
    "every option and every system's parameters: smrlab sim --help --all"
)


def systems_epilog(only: str | None = None) -> str:
    """The systems and their parameters for ``--help``: every one, or ``only`` this one."""
    lines = [
        "systems and their parameters: KEY [default] (unit): meaning; 'open choice' marks a value",
        "the system's paper does not state, with the reason for its default",
    ]
    for name, summary, params in _core.systems():
        if only is not None and name != only:
            continue
        lines.append(f"  {name}: {summary}")
        lines.extend(param_lines(params, "      "))
    return "\n".join(lines)


def short_epilog() -> str:
    """The systems, one line each, and how to see more (the end of ``smrlab sim --help``)."""
    lines = ["systems:"] + [f"  {name}: {summary}" for name, summary, _ in _core.systems()]
    return "\n".join([*lines, "", MORE_HELP])


def aliases() -> str:
    """The other names of systems, as ``pore is cache``."""
    main = {name for name, *_ in _core.systems()}
    return ", ".join(f"{name} is {systems.stack(name, {})[0]}" for name in _core.system_names() if name not in main)


def short_help(parser: argparse.ArgumentParser) -> str:
    """``parser``'s help with only the ``COMMON_OPTIONS`` (in the usage line too)."""
    hidden = [a for a in parser._actions if a.option_strings and not COMMON_OPTIONS.intersection(a.option_strings)]
    kept = [a.help for a in hidden]
    try:
        for action in hidden:
            action.help = argparse.SUPPRESS
        parser.epilog = short_epilog()
        return parser.format_help()
    finally:
        for action, text in zip(hidden, kept):
            action.help = text


def param_lines(params, indent: str) -> list[str]:
    """``--help`` lines for declared parameters, as ``_core`` gives them: KEY [default] (unit):
    meaning, and the reason for the default of an open choice."""
    lines = []
    for key, default, unit, help_text, open_reason, *_ in params:
        lines.append(f"{indent}{key} [{default}] ({unit}): {help_text}")
        if open_reason:
            lines.append(f"{indent}    open choice: {open_reason}")
    return lines


def add_engine_arguments(parser: argparse.ArgumentParser, experiment: str | None = None, iodepth: int = 1) -> None:
    """Replay options shared by every command that runs simulations; a replay not asked for is
    each system's own (its declaration's), or that of the command's ``experiment`` file;
    ``iodepth`` is the command's default (its help shows it)."""
    group = parser.add_argument_group("replay")
    opened = [name for name, replay in systems.replays().items() if replay != "closed"]
    group.add_argument(
        "--replay",
        choices=["closed", "open"],
        default=None,
        help="closed: back to back, --iodepth requests in flight (1: total I/O time); "
        "open: at trace timestamps, response time = waiting + service (default: "
        + (
            f"experiments/{experiment}.toml's replay)"
            if experiment
            else f"the system's own, open for {' and '.join(opened)}, closed for the others)"
        ),
    )
    group.add_argument(
        "--iodepth",
        type=options.bounded_whole(1, _core.MAX_IODEPTH),
        default=iodepth,
        metavar="N",
        help="closed loop: keep N requests in flight, as fio replays a trace at an iodepth; above 1 they "
        "overlap at the drive's command queue (disk_queue_depth) and the replay's time is makespan_s "
        "(default %(default)s)",
    )
    group.add_argument(
        "--speedup",
        type=options.positive,
        default=None,
        help="open loop: divide trace inter-arrival times by this factor (default 1)",
    )
    group.add_argument(
        "--warmup-requests",
        type=options.whole,
        default=0,
        metavar="N",
        help="simulate but do not measure the first N requests",
    )
    group.add_argument(
        "--warmup-seconds",
        type=options.seconds,
        default=0.0,
        metavar="S",
        help="simulate but do not measure the first S seconds of trace time",
    )
    group.add_argument(
        "--no-idle-work",
        action="store_true",
        help="open loop: do not offer idle gaps to the system for background work",
    )
    group.add_argument(
        "--series-interval",
        type=options.seconds,
        default=0.0,
        metavar="S",
        help="keep a time series point every S seconds of simulated time (0: none)",
    )
    group.add_argument(
        "--gauge-samples",
        type=options.bounded_whole(0, _core.MAX_GAUGE_SAMPLES),
        default=0,
        metavar="N",
        help="sample the system's gauges (e.g. the E-region log's live fraction, uCache Fig. 1) "
        "about N times, evenly over the requests, into the JSON result (0: only at the end)",
    )
    group.add_argument("--seed", type=options.seed, default=0, help="seed of every random choice (default 0)")


def engine_keywords(args: argparse.Namespace) -> dict:
    """The replay options given (an experiment's ``[engine]``, the API's ``engine``): a mode
    or a speed-up not given is left to the system."""
    given = {"mode": args.replay, "speedup": args.speedup}
    return {
        **{key: value for key, value in given.items() if value is not None},
        "iodepth": args.iodepth,
        "warmup_requests": args.warmup_requests,
        "warmup_seconds": args.warmup_seconds,
        "idle_work": not args.no_idle_work,
        "series_interval_seconds": args.series_interval,
        "gauge_samples": args.gauge_samples,
    }


def add_trace_arguments(parser: argparse.ArgumentParser, required: bool = True) -> None:
    parser.add_argument(
        "--trace", required=required, help="block trace file (compressed .gz/.xz/.bz2/.zst are read directly)"
    )
    parser.add_argument(
        "--format",
        choices=[name for name, _ in _core.trace_formats()],
        metavar="FORMAT",
        help="trace format: "
        + ", ".join(name for name, _ in _core.trace_formats())
        + " (default: from the file name; `smrlab trace convert --help` describes each)",
    )
    parser.add_argument(
        "--trace-option",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="reader option, e.g. action=D for blkparse (repeatable)",
    )


def add_geometry_argument(parser) -> None:
    """``--geometry-scale``, the shingled disk's ``geometry_scale`` parameter (declared by the
    systems with bands or zones, and by every one stacked over them)."""
    add_declared(parser, "dmsmr", "geometry_scale", flag="--geometry-scale", preset=None, metavar="F")


def geometry_params(args: argparse.Namespace) -> list[str]:
    """``args.param`` with ``--geometry-scale`` among them when given (once: not also as -p)."""
    scale = args.geometry_scale if args.geometry_scale != systems.defaults("dmsmr")["geometry_scale"] else None
    return options.merged_params(args.param, geometry_scale=scale)


class SystemHelp(argparse.Action):
    """``--help``: the common options and the systems (``short_help``); with ``--system NAME``
    (before or after it, an alias too) every option and that system's parameters; with ``--all``
    every option and every system's parameters."""

    def __call__(self, parser, namespace, values, option_string=None):
        words = getattr(parser, "words", [])
        named = [w.removeprefix("--system=") for w in words if w.startswith("--system=")]
        named += [words[i + 1] for i, w in enumerate(words[:-1]) if w == "--system"]
        system = systems.stack(named[-1], {})[0] if named and named[-1] in _core.system_names() else None
        if system is None and "--all" not in words:
            print(short_help(parser), end="")
        else:
            parser.epilog = systems_epilog(system)
            parser.print_help()
        parser.exit()


def register(commands) -> None:
    parser = commands.add(
        "sim",
        add_help=False,
        help="replay a trace through one simulated system",
        description="Replay a block trace through one simulated system and report I/O time, latency "
        "and the system's counters. " + UNITS_NOTE,
    )
    parser.epilog = systems_epilog()
    parser.add_argument(
        "-h",
        "--help",
        action=SystemHelp,
        nargs=0,
        help="show the common options; with --system NAME every option and that system's parameters, "
        "with --all every option and every system's parameters",
    )
    parser.add_argument(
        "--system",
        required=True,
        choices=_core.system_names(),
        metavar="NAME",
        help=f"which system: {', '.join(_core.system_names())} ({aliases()}; see below)",
    )
    add_trace_arguments(parser)
    options.add_params_argument(parser, "system parameter (repeatable); `--KEY VALUE` works too")
    parser.add_argument(
        "--preset-file",
        metavar="CARD",
        help="take the system's parameters from a drive card of smrlab probe (-p overrides them)",
    )
    add_geometry_argument(parser)
    add_engine_arguments(parser)
    parser.add_argument("--iolog", metavar="FILE", help="also write every media I/O as a fio iolog v2 to FILE")
    parser.add_argument(
        "--iolog-max-io",
        type=options.size,
        default=0,
        metavar="SIZE",
        help="split recorded I/Os into pieces of at most SIZE bytes (e.g. 512KiB; 0: never)",
    )
    parser.add_argument(
        "--out",
        metavar="FILE",
        help="result JSON (default: results/sim-SYSTEM-TRACE-DIGEST.json, DIGEST of the "
        "configuration, seed and trace, so no other run's file is replaced)",
    )
    parser.add_argument("--json", action="store_true", help="print the result JSON instead of tables")
    parser.add_argument(
        "--all", action="store_true", help="also print every counter and final gauge of the run, under the core's names"
    )
    parser.set_defaults(func=run, extra_params=True)


def default_out(result: dict) -> Path:
    """``results/sim-SYSTEM-TRACE-DIGEST.json``, DIGEST of what determines the run's numbers
    (system, every parameter read, engine, seed, the trace's checksum, format and options): a
    run never replaces the file of a different run, and the same run finds its own again."""
    import hashlib
    import json

    trace = result["trace"]
    determined = {"config": result["config"], "trace": [trace["checksum"], trace["format"], trace["options"]]}
    digest = hashlib.sha256(json.dumps(determined, sort_keys=True).encode()).hexdigest()[:8]
    return Path("results") / f"sim-{result['config']['system']}-{trace['name']}-{digest}.json"


def run(args: argparse.Namespace) -> int:
    engine = engine_keywords(args)
    if args.preset_file:
        merged = {**systems.split(card_params(args.preset_file, args.system)), **systems.split(args.param)}
        args.param = [f"{key}={value}" for key, value in merged.items()]
    out = Path(args.out) if args.out else None
    if out is not None:
        outputs.check_output(out, [args.trace])
    params = geometry_params(args)
    _core.resolve_params(args.system, params)  # a bad parameter stops before the trace is read
    # The first pass (the footprint) also counts the requests, so the replay's progress has a total.
    fp, total = measure(args.trace, args.format, args.trace_option)
    with contextlib.ExitStack() as stack:
        show = stack.enter_context(live.task(f"{args.system} on {Path(args.trace).name}", total, "requests"))
        iolog = stack.enter_context(outputs.output_file(args.iolog, [args.trace])) if args.iolog else None
        result = simulate(
            args.system,
            args.trace,
            params,
            fmt=args.format,
            trace_options=args.trace_option,
            engine=engine,
            seed=args.seed,
            iolog=iolog,
            iolog_max_io=args.iolog_max_io,
            footprint=fp,
            progress=show,
        )
        note_time_regressions(result, args.system)
        if iolog is not None:
            result["iolog"]["path"] = str(args.iolog)
        out = out or default_out(result)
        write_result(result, out)
    if args.json:
        print_json(result)
    else:
        print_result(result, f"{args.system} on {args.trace}", args.all)
        note(f"result written to {out}")
    for line in result["notes"]:
        note(line)
    return 0
