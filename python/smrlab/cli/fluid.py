"""``smrlab fluid-sweep FIGURE`` and ``smrlab fluid-trace``: the FluidSMR paper's experiments on a
hybrid CMR/SMR partition, and its workloads as trace files.

Each figure of fluid-sweep is a paper command declared over its experiment file
(experiments/fluidsmr-*.toml: its schemes, usages, line-up, replay, figure and claims) and run
by the paper commands' one body (``smrlab.cli.paper_command``) on the paper's Table 1 traces,
generated on first use (``smrlab.fluid_traces``), or on the user's (``--trace FILE``).

A generated trace scaled to fewer requests (``--requests``) comes with a zone size scaled by the
same factor (the paper's zone count kept); every size the paper states per TB or as a share
follows the partition (``crates/smr-sim/src/fluid/scaling.rs``), and a closing note says what
each trace was scaled to. Not here: the system (``crates/smr-sim/src/fluid``), the traces
(``smrlab.fluid_traces``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from smrlab import fluid_traces, options
from smrlab.cli import presets, views
from smrlab.cli.paper_command import PaperCommand, Sweep, Traces
from smrlab.errors import UsageError
from smrlab.experiment.spec import SystemRun
from smrlab.tables import note
from smrlab.trace import Trace

# The most values a list option takes (traces, schemes, usages, latency bounds).
MOST_LISTED = 16
# Below 16 MiB zones (a sixteenth of the paper's) a 128 KiB write is a large part of a zone.
SMALL_ZONE = 16 << 20
# The recipe of FluidSMR's Table 1 traces (smrlab.recipes), the figures' own traces.
TABLE1_RECIPE = "fluid-table1"
# The label of the cache figure's runs of Fig. 18's policies alone, beside Fig. 17's ablation.
ALONE = "policies alone"
MEAN_MS = views.Column("latency ms", "mean_latency_ns", 1e-6)


def add_trace_option(parser: argparse.ArgumentParser, most: int) -> None:
    parser.add_argument(
        "--trace",
        action="append",
        metavar="FILE",
        help="a trace of your own instead of the generated ones"
        + (f" (repeat for several, at most {most})" if most > 1 else "")
        + "; an MSR Cambridge trace such as hm_0.csv.gz is read as published, at full size, with the paper's "
        "256 MiB zones",
    )


def user_traces(args: argparse.Namespace, most: int) -> Traces:
    """The user's ``--trace`` files (at most ``most``), each by its file's name, as they are."""
    if len(args.trace) > most:
        raise UsageError(f"--trace: at most {most} trace{'s' if most > 1 else ''} for this figure")
    if args.requests:
        note("--requests scales the generated traces; the --trace files run as they are")
    traces: dict[str, Trace] = {}
    for path in args.trace:
        trace = Trace.open(path)
        traces[trace.name if trace.name not in traces else f"{trace.name}-{len(traces)}"] = trace
    return Traces(traces)


def add_requests_option(parser: argparse.ArgumentParser, more: str) -> None:
    parser.add_argument(
        "--requests",
        type=options.generated_requests,
        help=f"scale the generated traces down to this many requests, 1 to 10^9 (default: full size{more})",
    )


def add_placement_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--placement",
        choices=fluid_traces.PLACEMENTS,
        default="spread",
        help="where a generated Table 1 trace's written data lies: spread (default: its hot ranges at seeded places "
        "over the whole address range) or front (at its start, in the lowest zones, which the layout puts in CMR)",
    )
    parser.add_argument(
        "--hot-ranges",
        type=int,
        default=fluid_traces.HOT_RANGES,
        metavar="N",
        help=f"spread: the written core in N hot ranges (default {fluid_traces.HOT_RANGES}, at most "
        f"{fluid_traces.MAX_HOT_RANGES}; each at least 128 KiB)",
    )


def table1_names(args: argparse.Namespace, file: str, most: int) -> list[str]:
    """The Table 1 traces ``--traces`` names (default: those of experiment ``file``), refused
    before any is made when one is not in Table 1, is named twice, or they are more than ``most``."""
    names = (
        args.traces.split(",")
        if args.traces
        else [name for recipe, name in presets.trace_names(file) if recipe == TABLE1_RECIPE]
    )
    for name in names:
        fluid_traces.preset(name)
    if len(set(names)) != len(names) or len(names) > most:
        raise UsageError(
            f"--traces: at most {most} Table 1 trace{'s' if most > 1 else ''}, each once, not "
            f"{options.quoted(args.traces)}"
        )
    return names


def table1_traces(file: str, most: int = MOST_LISTED):
    """How a figure of experiment ``file`` opens its traces (at most ``most``): the user's files
    as they are, or Table 1's generated at ``--requests``, each with the zone size scaled with it."""

    def opened(args: argparse.Namespace) -> Traces:
        if args.trace:
            return user_traces(args, most)
        names = table1_names(args, file, most)
        made = {
            name: fluid_traces.table1_trace(
                name, args.requests, seed=args.seed, placement=args.placement, hot_ranges=args.hot_ranges
            )
            for name in names
        }
        scaled = {name: {"zone_size": str(fluid_traces.zone_size(name, args.requests))} for name in names}
        return Traces({name: Trace.open(path) for name, path in made.items()}, scaled if args.requests else {})

    def add(parser: argparse.ArgumentParser):
        add_trace_option(parser, most)
        parser.add_argument("--traces", help="comma-separated Table 1 traces (default: the figure's)")
        add_requests_option(parser, "")
        add_placement_arguments(parser)
        options.add_params_argument(parser, "more fluid parameters for every run")
        return opened

    return add


def four_phase(parser: argparse.ArgumentParser):
    """The phases figure's trace: the four-phase workload, generated at ``--requests`` with
    ``--phase-hours``, or the user's file."""
    add_trace_option(parser, 1)
    add_requests_option(parser, "; the workload has at most its full 10,000,000")
    add_phase_hours(parser, "hours of each phase")
    options.add_params_argument(parser, "more fluid parameters for every run")

    def opened(args: argparse.Namespace) -> Traces:
        if args.trace:
            return user_traces(args, 1)
        requests = fluid_traces.PHASE_REQUESTS if args.requests is None else args.requests
        zone, zones, hot = fluid_traces.four_phase_shape(requests)
        made = fluid_traces.four_phase_trace(requests, zone, zones, hot, hours=args.phase_hours, seed=args.seed)
        return Traces({"four-phase": Trace.open(made)})

    return opened


def add_phase_hours(parser: argparse.ArgumentParser, what: str) -> None:
    parser.add_argument(
        "--phase-hours",
        type=options.bounded_number(fluid_traces.PHASE_HOURS_MIN, fluid_traces.PHASE_HOURS_MAX),
        default=fluid_traces.PHASE_HOURS,
        help=f"{what}, {fluid_traces.PHASE_HOURS_MIN:g} to {fluid_traces.PHASE_HOURS_MAX:g} "
        f"(default {fluid_traces.PHASE_HOURS:g})",
    )


# The options that replace an axis of a figure's file: its schemes, its usages.
SWEEPS = {
    "scheme": lambda file: Sweep(
        "scheme",
        "--schemes",
        f"comma-separated schemes, at most {MOST_LISTED} (default: the figure's)",
        file,
        type=options.listed(str, MOST_LISTED),
    ),
    "usage": lambda file: Sweep(
        "usage",
        "--usages",
        f"comma-separated usages, each above 0 and at most 1, at most {MOST_LISTED} (default: the figure's)",
        file,
        type=options.listed(options.fraction, MOST_LISTED),
        from_file=float,
    ),
}


def add_usage(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--usage", type=options.fraction, help="partition usage, above 0 and at most 1 (default: the figure's)"
    )


def with_usage(file: str):
    """The shared parameters of experiment ``file``, with ``--usage`` in place of its usage."""
    return lambda args: {
        **presets.read(file).params,
        **({} if args.usage is None else {"usage": str(args.usage)}),
    }


def scaling_note(runs: list[views.Ran], out: Path, fields: dict) -> None:
    """What each trace's partition was scaled to, and the sizes that followed it."""
    by_trace: dict[str, list[dict]] = {}
    for run in runs:
        by_trace.setdefault(run.trace, []).append(dict(run.result["report"]["gauges"]))
    for name, gauges in by_trace.items():
        scale = gauges[0].get("scale", 1.0)
        if scale == 1.0:
            continue
        zone = round(scale * fluid_traces.ZONE)
        quota = max(g.get("cache_map_quota_bytes", 0) for g in gauges)
        limit = max(g.get("cache_limit_bytes", 0) for g in gauges)
        note(
            f"{name}: partition scaled to {scale:.4g} of the paper's: zones of {zone:,} bytes (paper 256 MiB), "
            f"mapping quota {quota:,.0f} bytes (25 MB per TB of the partition)"
            + (f", cache limit {limit:,.0f} bytes" if limit else "")
        )
        if zone < SMALL_ZONE:
            note(
                f"{name}: a zone of {zone:,} bytes is small against the trace's 128 KiB writes: scaled this far, "
                "zone rewrites and cache entries are coarse (use more --requests)"
            )


def figure(
    name: str,
    help: str,
    files: tuple[str, ...],
    table: views.Shows,
    swept: tuple[str, ...] = ("scheme",),
    most: int = MOST_LISTED,
    usage: bool = True,
    **declared,
) -> PaperCommand:
    """A figure of fluid-sweep: experiment ``files`` (the first leads) shown as ``table``, on at
    most ``most`` of the first file's Table 1 traces (or the user's), the file's axes ``swept``
    by options (``SWEEPS``), its usage by ``--usage`` where ``usage`` says, its figure drawn and
    the FluidSMR claims on the files that name no one trace judged on its runs; ``declared``:
    the rest of its declaration (``PaperCommand``)."""
    given = {"params": with_usage(files[0]), "options": add_usage} if usage else {}
    return PaperCommand(
        name,
        help,
        files,
        table,
        f"results/fluid-sweep/{name}",
        group="fluid-sweep",
        draws=True,
        claims="FluidSMR claims on the {name} runs",
        after=scaling_note,
        **{
            "traces": table1_traces(files[0], most),
            "sweeps": tuple(SWEEPS[key](files[0]) for key in swept),
            **given,
            **declared,
        },
    )


def latency(title: str, rows: str, across: str = "scheme", **shown) -> views.Grid:
    """The mean latency in ms of each run, a row per value of ``rows``, a column per ``across``."""
    return views.Grid(title, rows, rows, across, "{}", MEAN_MS, **shown)


def measures(title: str, rows: str, *columns: tuple[str, str], **shown) -> views.Table:
    """A row per value of ``rows``, a column per (header, measure) of ``columns``."""
    return views.Table(title, rows, tuple(views.Column(*column) for column in columns), row=rows, **shown)


# Figs. 15 and 16's zone counts at the end of a run.
CONVERSIONS = (
    ("cache zones at end", "cache_zones"),
    ("groups to SMR", "to_smr_conversions"),
    ("groups to CMR", "to_cmr_conversions"),
)

PRELIM = figure(
    "prelim",
    "§2.4, Fig. 3: the swapping baselines and swap-only against pure CMR per usage, on ts_0",
    ("fluidsmr-fig3",),
    latency(
        "average latency (ms) by usage and scheme on {trace}",
        "usage",
        caption="FluidSMR §2.4: NSW-frequency swapping (swap-only) lowers the recency and frequency baselines' "
        "latency by 22.4 % and 29.4 % (ts_0, usage 0.9); Fig. 3: swap-only matches pure CMR below 70 % usage and "
        "rises sharply above 80 %",
    ),
    swept=("usage", "scheme"),
    most=1,
    usage=False,
)

SCHEMES = figure(
    "schemes",
    "Fig. 12: every scheme on the Table 1 traces",
    ("fluidsmr-fig12",),
    views.Tables(
        (
            latency("average latency (ms) per scheme", "trace", caption="FluidSMR Fig. 12 (the paper: a log scale)"),
            measures(
                "where the writes went (fluid-smr)",
                "trace",
                ("CMR share of writes", "cmr_write_share"),
                ("occupancy swaps", "occupancy_swaps"),
                ("zone rewrites", "zone_rewrites"),
                ("NSWs", "nsw_writes"),
                caption="writes per zone piece that found their zone in CMR; occupancy swaps: evictions that "
                "became swaps (§6.2)",
                where={"scheme": "fluid-smr"},
            ),
        )
    ),
)

USAGE = figure(
    "usage",
    "Fig. 13: every scheme per usage, on prn_1",
    ("fluidsmr-fig13",),
    latency("average latency (ms) per usage on {trace}", "usage", caption="FluidSMR Fig. 13"),
    swept=("usage", "scheme"),
    most=1,
    usage=False,
)

FIXED = figure(
    "fixed",
    "Figs. 14, 15: the fixed cache sizes fix-0.2 .. fix-0.8 against adapt, on prn_1",
    ("fluidsmr-fig14-15",),
    views.Tables(
        (
            latency(
                "fixed vs adaptive format on {trace}: average latency (ms)",
                "scheme",
                "label",
                caption="FluidSMR Fig. 14 (left: the whole run; right: from the fourth day)",
                names={"fluid": "whole run"},
            ),
            measures(
                "the cache zones and conversions on {trace}",
                "scheme",
                *CONVERSIONS,
                caption="FluidSMR Fig. 15: the cache zones over time are the figure in the results folder",
                where={"label": "fluid"},
            ),
        )
    ),
    most=1,
)

PHASES = figure(
    "phases",
    "Fig. 16: the four-phase workload, adaptive schemes against the fixed ones",
    ("fluidsmr-fig16",),
    measures(
        "adaptive and fixed formats on {trace}",
        "scheme",
        ("latency ms", MEAN_MS.measure, MEAN_MS.scale),
        *CONVERSIONS,
        caption="FluidSMR Fig. 16: phases 1 and 3 favour SMR + cache, 2 and 4 CMR; the cache zones over time are "
        "the figure in the results folder",
    ),
    traces=four_phase,
)


def cache_line_up(args: argparse.Namespace) -> list[SystemRun]:
    """Fig. 17's ablation, then Fig. 18's policies alone (its own settings, at ``--policy-usage``)."""
    alone = presets.read("fluidsmr-fig18").params
    usage = {} if args.policy_usage is None else {"usage": str(args.policy_usage)}
    return [*presets.line_up("fluidsmr-fig17"), SystemRun(ALONE, "fluid", {**alone, **usage})]


def add_cache_options(parser: argparse.ArgumentParser) -> None:
    add_usage(parser)
    parser.add_argument(
        "--policy-usage",
        type=options.fraction,
        help="usage of the policies alone, above 0 and at most 1 (default Fig. 18's, §7.4)",
    )


CACHE = figure(
    "cache",
    "Figs. 17, 18: the cache-policy ablation, and the policies alone",
    ("fluidsmr-fig17", "fluidsmr-fig18"),
    views.Tables(
        (
            latency(
                "cache optimisations: average latency (ms)",
                "trace",
                caption="FluidSMR Fig. 17. A partition this full may have no whole CMR zone to spare: its cache is "
                "then one SMR zone formatted CMR on its own (docs/fluidsmr.md)",
                where={"label": "fluid"},
            ),
            latency(
                "the policies alone (Fig. 18: no swapping or conversion): average latency (ms)",
                "trace",
                where={"label": ALONE},
            ),
            views.Grid(
                "the policies alone: zone rewrites",
                "trace",
                "trace",
                "scheme",
                "{}",
                views.Column("zone rewrites", "zone_rewrites"),
                where={"label": ALONE},
            ),
        )
    ),
    systems=cache_line_up,
    options=add_cache_options,
    judged_on={"fluidsmr-fig17": {"label": "fluid"}, "fluidsmr-fig18": {"label": ALONE}},
)


def migration_zone(args: argparse.Namespace) -> tuple[int, int]:
    """The zone size of the migration figure's trace and the request before which space is
    allocated (``--allocate-at``; default a quarter into a generated trace, the first of yours)."""
    if args.trace:
        return fluid_traces.ZONE, args.allocate_at or 1
    [name] = table1_names(args, "fluidsmr-fig19", 1)
    at = args.allocate_at or max(1, fluid_traces.requests_of(name, args.requests) // 4)
    return fluid_traces.zone_size(name, args.requests), at


def migration_line_up(args: argparse.Namespace) -> list[SystemRun]:
    """Fig. 19's runs: none allocating, then 100 zones (25 GB of the paper's 256 MiB zones)
    allocated blocking, and within each acceptable latency increase (``--bounds``, each once,
    default the file's)."""
    zone, at = migration_zone(args)
    allocation = {"allocate": str(100 * zone), "allocate_at": str(at)}
    bounds = args.bounds or [
        float(run.params["latency_bound"])
        for run in presets.read("fluidsmr-fig19").systems
        if "latency_bound" in run.params
    ]
    return [
        SystemRun("no allocation", "fluid"),
        SystemRun("blocking", "fluid", allocation),
        *(
            SystemRun(f"within {b:g} ms", "fluid", {**allocation, "latency_bound": f"{b:g}"})
            for b in dict.fromkeys(bounds)
        ),
    ]


def migration_params(args: argparse.Namespace) -> dict:
    """Fig. 19's scheme and usage (or the options'), the guard range two zones more than the
    allocation, so the first group's data has somewhere to go (docs/fluidsmr.md)."""
    params = presets.read("fluidsmr-fig19").params
    return {
        "scheme": args.migration_scheme or params["scheme"],
        "usage": str(args.migration_usage or params["usage"]),
        "guard": str(102 * migration_zone(args)[0]),
    }


def add_migration_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--bounds",
        type=options.listed(options.positive, MOST_LISTED),
        help=f"acceptable latency increases (ms), comma-separated, at most {MOST_LISTED} (default 60,100)",
    )
    parser.add_argument("--migration-scheme", help="the scheme (default fluid-smr)")
    parser.add_argument(
        "--migration-usage", type=options.fraction, help="the usage, above 0 and at most 1 (default 0.8)"
    )
    parser.add_argument(
        "--allocate-at",
        type=options.count,
        help="the request before which space is allocated (default: a quarter into a generated trace, the first "
        "of yours)",
    )


MIGRATION = figure(
    "migration",
    "Fig. 19: quantized migration at acceptable latency increases, and blocking",
    ("fluidsmr-fig19",),
    views.Table(
        "quantized migration on {trace}",
        "run",
        (
            MEAN_MS,
            views.Column("worst added ms", "max_quantum_ns", 1e-6),
            views.Column("conversion s", "conversion_wall_ns", 1e-9),
            views.Column("conversions", "conversion_commands"),
            views.Column("quanta", "migration_quanta"),
            views.Column("repletions", "repletions"),
        ),
        caption="FluidSMR Fig. 19: a larger acceptable increase of latency gives a shorter conversion; 'worst added' "
        "is the longest migration quantum, the most any request waited for one; a repletion: the guard range "
        "refilled",
    ),
    swept=(),
    most=1,
    systems=migration_line_up,
    params=migration_params,
    options=add_migration_options,
)

FIGURES = (PRELIM, SCHEMES, USAGE, FIXED, PHASES, CACHE, MIGRATION)


def trace_command(args: argparse.Namespace) -> int:
    if args.name == "four-phase":
        requests = fluid_traces.PHASE_REQUESTS if args.requests is None else args.requests
        zone, zones, hot = fluid_traces.four_phase_shape(requests)
        path = fluid_traces.four_phase_trace(
            requests, zone, zones, hot, hours=args.phase_hours, folder=Path(args.out), seed=args.seed
        )
    else:
        path = fluid_traces.table1_trace(
            args.name,
            args.requests,
            folder=Path(args.out),
            seed=args.seed,
            placement=args.placement,
            hot_ranges=args.hot_ranges,
        )
        zone = fluid_traces.zone_size(args.name, args.requests)
    print(path)
    note(f"run it with: smrlab sim --system fluid --trace {path} --zone-size {zone}")
    return 0


def register(commands) -> None:
    group = commands.group(
        "fluid-sweep", help="FluidSMR paper experiments on a hybrid CMR/SMR partition (§2.4, Figs. 3, 12-19)"
    )
    for command in FIGURES:
        command.register(group)

    trace = commands.add(
        "fluid-trace", help="write a FluidSMR workload: a Table 1 trace or the four-phase workload (Fig. 16)"
    )
    trace.add_argument("name", choices=[*fluid_traces.TABLE1, "four-phase"])
    trace.add_argument(
        "--requests",
        type=options.generated_requests,
        help="scale down to this many requests, 1 to 10^9 (default: full size; four-phase: at most its full 10,000,000)",
    )
    add_phase_hours(trace, "four-phase: hours per phase")
    add_placement_arguments(trace)
    trace.add_argument(
        "--seed",
        type=options.seed,
        default=0,
        help="seed of the trace generator (default 0); the same seed gives the same trace",
    )
    trace.add_argument("--out", default="results/traces", help="folder for the trace")
    trace.set_defaults(func=trace_command)
