"""``smrlab fluid-sweep`` and ``smrlab fluid-trace``: the FluidSMR paper's experiments on a hybrid
CMR/SMR partition, and its workloads as trace files.

fluid-sweep FIGURE runs the schemes of ``--system fluid`` on generated traces (``smrlab.fluid_traces``)
or on traces of your own (``--trace FILE``, repeated); ``SWEEP_HELP`` (its --help) says what each figure runs.

A generated trace scaled to fewer requests (``--requests``) comes with a zone size scaled by the
same factor; every size the paper states per TB or as a share follows the partition
(``crates/smr-sim/src/fluid/scaling.rs``), and a closing note says what each trace was scaled to.
Every number comes from the Rust core (``derived`` and ``gauge_series`` of each result); this
module only chooses runs and formats. Not here: the system (``crates/smr-sim/src/fluid``).
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass
from pathlib import Path

from smrlab import caveats, fluid_traces, options, outputs, systems
from smrlab.cli import presets, views
from smrlab.cli.paper_command import add_output_arguments
from smrlab.cli.sim import add_engine_arguments, engine_keywords
from smrlab.errors import UsageError
from smrlab.experiment.spec import SystemRun
from smrlab.tables import note, print_table
from smrlab.trace import Trace

SWEEP_HELP = """Runs the schemes of --system fluid on the paper's workloads (generated on first use)
or on traces of your own (--trace FILE, repeated; the MSR Cambridge traces as published, e.g.
hm_0.csv.gz, are read as they are, at full size), and prints one table per figure:

- prelim (§2.4, Fig. 3): the swapping baselines (recency, frequency, NSW-frequency) on ts_0
  at usage 0.9, and swap-only against pure CMR per usage;
- schemes (Fig. 12): average latency of each scheme at usage 0.9 across the Table 1 traces,
  with each trace's share of writes that found their zone in CMR and the occupancy swaps of
  fluid-smr;
- usage (Fig. 13): the same per usage, on one trace (prn_1);
- fixed (Figs. 14, 15): the fixed configurations fix-0.2 .. fix-0.8 against adapt, the
  latency over the whole run and from the fourth day on, and the CMR / SMR / cache zone counts
  over time as a JSON series;
- phases (Fig. 16): the four-phase workload, adaptive schemes against the fixed ones, with
  the zone counts over time;
- cache (Figs. 17, 18): the cache-policy ablation (format-adapt, imprv-lru, fifo, loop-back,
  fluid-smr) at usage 0.999, and the policies alone (swapping and conversion off, a cache of
  0.02 % of the SMR area) at usage 0.99;
- migration (Fig. 19): a space allocation during the run, its guard range replenished by
  quantized migration at acceptable latency increases of 60 and 100 ms, and blocking.
"""

# The experiment file of each figure: its traces, schemes, usages and settings are the figure's
# defaults; the cache figure's policies alone are Fig. 18's.
FIGURE_FILES = {
    "prelim": "fluidsmr-fig3",
    "schemes": "fluidsmr-fig12",
    "usage": "fluidsmr-fig13",
    "fixed": "fluidsmr-fig14-15",
    "phases": "fluidsmr-fig16",
    "cache": "fluidsmr-fig17",
    "migration": "fluidsmr-fig19",
}
POLICIES_FILE = "fluidsmr-fig18"
# The reference of the preliminary figure (against which swapping is measured) and the adaptive
# scheme the fixed configurations are set against.
REFERENCE = "pure-cmr"
ADAPTIVE = "adapt"
ZONE_GAUGES = ["cmr_zones", "smr_zones", "cache_zones"]
DAY_NS = 24 * 3600 * 10**9
SERIES_SAMPLES = 200
# The most values a list option takes (traces, schemes, usages, latency bounds).
MOST_LISTED = 16
# Below 16 MiB zones (a sixteenth of the paper's) a 128 KiB write is a large part of a zone.
SMALL_ZONE = 16 << 20


def trace_label(name: str) -> str:
    """A trace's name in tables: a Table 1 name, or a file's name up to its first dot, as every
    command names a trace file (``smrlab.trace.Trace.name``), whatever its format's suffixes."""
    return Path(name).name.split(".")[0]


@dataclass
class Run:
    """One planned run of fluid: its label (its JSON file's name), trace and own parameters, and
    the gauge samples and warm-up it needs at least."""

    label: str
    trace: Path
    params: list[str]
    samples: int = 0
    warmup_ns: int = 0


class Runner:
    """Plans a figure's runs of fluid on traces with the sweep's shared options, runs them as one
    experiment through the experiment runner, and keeps every result."""

    def __init__(self, args: argparse.Namespace, figure: str):
        self.args, self.figure = args, figure
        self.out = Path(args.out) / figure
        self.planned: dict[str, Run] = {}
        self.scaled: dict[str, list[dict]] = {}
        # The name each trace goes by in tables, results and file names (a Table 1 name).
        self.trace_names: dict[Path, str] = {}
        # Each run's cell and result, as the experiment runner gave them back.
        self.ran: list[tuple] = []

    def names(self) -> list[str]:
        """The traces of the figure: the user's files, or Table 1 names."""
        return self.args.trace or self.args.traces.split(",")

    def trace(self, name: str) -> tuple[Path, list[str]]:
        """The trace for ``name`` (a Table 1 name, or the user's file) and the zone size it goes
        with (the paper's for the user's files)."""
        if self.args.trace:
            return Path(name), []
        path = fluid_traces.table1_trace(
            name,
            self.args.requests,
            seed=self.args.seed,
            placement=self.args.placement,
            hot_ranges=self.args.hot_ranges,
        )
        self.trace_names[path] = name
        return path, [f"zone_size={fluid_traces.zone_size(name, self.args.requests)}"]

    def add(self, label: str, trace: Path, params: list[str], samples: int = 0, warmup_ns: int = 0) -> str:
        """Plans a run and returns its label (a label planned again is the same run)."""
        self.planned.setdefault(label, Run(label, trace, params, samples, warmup_ns))
        return label

    def execute(self) -> dict[str, dict]:
        """Runs what is planned as one experiment (``--jobs``, ``--resume``, a results folder with
        its Parquet table under out/FIGURE), --param over each run's own parameters; returns
        each result by label, each also written under out/FIGURE (``presets.result_file``). Its measures are the
        figure's file's; it draws no figure (that would take longer than small runs)."""
        given = systems.split(self.args.param)
        paper = presets.read(FIGURE_FILES[self.figure])
        names: dict[Path, str] = {}
        for run in self.planned.values():
            if run.trace not in names:
                stem = self.trace_names.get(run.trace) or trace_label(str(run.trace))
                names[run.trace] = stem if stem not in names.values() else f"{stem}-{len(names)}"
        exp = presets.Selected(
            name=f"fluid-sweep-{self.figure}",
            title=f"fluid-sweep {self.figure}",
            traces={name: Trace.open(path) for path, name in names.items()},
            systems=[
                SystemRun(run.label, "fluid", {**systems.split(run.params), **given}, self._engine(run))
                for run in self.planned.values()
            ],
            seeds=[self.args.seed],
            engine=engine_keywords(self.args),
            metrics=paper.metrics,
            reproduces=paper.reproduces,
            pairs={(names[run.trace], run.label) for run in self.planned.values()},
        )
        results = {}
        self.ran = presets.run(exp, self.args, self.out, f"fluid-sweep {self.figure}", unit="runs")
        for cell, result in self.ran:
            run = self.planned[cell.label]
            self.scaled.setdefault(run.trace.name, []).append(result)
            results[run.label] = result
        return results

    def _engine(self, run: Run) -> dict:
        """A run's replay options over the sweep's: at least its gauge samples and warm-up."""
        engine = {}
        if run.samples:
            engine["gauge_samples"] = max(self.args.gauge_samples, run.samples)
        if run.warmup_ns:
            engine["warmup_seconds"] = max(self.args.warmup_seconds, run.warmup_ns / 1e9)
        return engine

    def print_claims(self) -> None:
        """The FluidSMR paper's claims on the figure's experiment files that name no one trace,
        judged on these runs by the scorecard's code (a claim that reads cells by the file's
        labels is listed as not judged: the runs here are labelled by trace and scheme)."""
        files = (FIGURE_FILES[self.figure], *((POLICIES_FILE,) if self.figure == "cache" else ()))
        views.print_claims("fluidsmr", files, self.ran, f"FluidSMR claims on the {self.figure} figure's runs")

    def scaling_note(self) -> None:
        """What each trace's partition was scaled to, and the sizes that followed it."""
        for name, results in self.scaled.items():
            gauges = [dict(result["report"]["gauges"]) for result in results]
            scale = gauges[0].get("scale", 1.0)
            if scale == 1.0:
                continue
            quota = max(g.get("cache_map_quota_bytes", 0) for g in gauges)
            limit = max(g.get("cache_limit_bytes", 0) for g in gauges)
            note(
                f"{name}: partition scaled to {scale:.4g} of the paper's: zones of {round(scale * fluid_traces.ZONE):,} bytes "
                f"(paper 256 MiB), mapping quota {quota:,.0f} bytes (25 MB per TB of the partition)"
                + (f", cache limit {limit:,.0f} bytes" if limit else "")
            )
            if scale * fluid_traces.ZONE < SMALL_ZONE:
                note(
                    f"{name}: a zone of {round(scale * fluid_traces.ZONE):,} bytes is small against the trace's 128 KiB "
                    "writes: scaled this far, zone rewrites and cache entries are coarse (use more --requests)"
                )


def latency_ms(result: dict) -> float | None:
    value = result["derived"].get("mean_latency_ns")
    return None if value is None else value / 1e6


def counter(result: dict, name: str) -> int:
    return result["report"]["counters"].get(name, 0)


def gauge(result: dict, name: str) -> float | None:
    return dict(result["report"]["gauges"]).get(name)


def zone_series(result: dict) -> dict:
    """The CMR / SMR / cache zone counts over trace time (Figs. 15, 16)."""
    series = result["report"]["gauge_series"]
    columns = [series["names"].index(name) for name in ZONE_GAUGES]
    return {
        "trace_hours": [s["trace_ns"] / 3.6e12 for s in series["samples"]],
        **{name: [s["values"][c] for s in series["samples"]] for name, c in zip(ZONE_GAUGES, columns)},
    }


def schemes_figure(r: Runner, args: argparse.Namespace) -> None:
    schemes = args.schemes.split(",")
    planned = []
    for name in r.names():
        trace, zone = r.trace(name)
        planned.append(
            (
                trace_label(name),
                [
                    r.add(f"{trace_label(name)} {scheme}", trace, [f"scheme={scheme}", f"usage={args.usage}", *zone])
                    for scheme in schemes
                ],
            )
        )
    ran = r.execute()
    rows, shares = [], []
    for stem, labels in planned:
        results = [ran[label] for label in labels]
        rows.append([stem, *[latency_ms(result) for result in results]])
        fluid = next((result for scheme, result in zip(schemes, results) if scheme == "fluid-smr"), results[0])
        shares.append(
            [
                stem,
                fluid["derived"].get("cmr_write_share"),
                counter(fluid, "occupancy_swaps"),
                counter(fluid, "zone_rewrites"),
                counter(fluid, "nsw_writes"),
            ]
        )
    print_table(
        f"average latency (ms) per scheme at usage {args.usage}",
        ["trace", *schemes],
        rows,
        caption="FluidSMR Fig. 12 (the paper plots it on a log scale)",
        notes=caveats.notes(ran),
    )
    print_table(
        f"where the writes went ({'fluid-smr' if 'fluid-smr' in schemes else schemes[0]})",
        ["trace", "CMR share of writes", "occupancy swaps", "zone rewrites", "NSWs"],
        shares,
        caption="writes per zone piece that found their zone in CMR; occupancy swaps: evictions that became swaps (§6.2)",
    )


def prelim_figure(r: Runner, args: argparse.Namespace) -> None:
    name = r.names()[0]
    trace, zone = r.trace(name)

    def add(scheme: str, usage: float) -> str:
        return r.add(f"{scheme} usage {usage}", trace, [f"scheme={scheme}", f"usage={usage}", *zone])

    schemes = [scheme for scheme in presets.axis(FIGURE_FILES["prelim"], "scheme") if scheme != REFERENCE]
    baselines = [add(scheme, 0.9) for scheme in schemes]
    per_usage_runs = [(usage, add("swap-only", usage), add(REFERENCE, usage)) for usage in args.usages]
    ran = r.execute()
    rows = [[scheme, latency_ms(ran[label])] for scheme, label in zip(schemes, baselines)]
    nsw = rows[-1][1]
    for row in rows:
        row.append(None if row[1] is None or nsw is None else 1 - nsw / row[1])
    print_table(
        f"zone swapping on {trace_label(name)} at usage 0.9",
        ["scheme", "latency ms", "NSW-frequency's reduction"],
        rows,
        caption="FluidSMR §2.4: NSW-frequency swapping (swap-only) lowers the recency and frequency baselines' latency by "
        "22.4 % and 29.4 % (ts_0)",
        notes=caveats.notes(ran),
    )
    per_usage = []
    for usage, swap_label, cmr_label in per_usage_runs:
        swap, cmr = latency_ms(ran[swap_label]), latency_ms(ran[cmr_label])
        per_usage.append([usage, swap, cmr, None if swap is None or not cmr else swap / cmr])
    print_table(
        f"swap-only against pure CMR per usage on {trace_label(name)}",
        ["usage", "swap-only ms", "pure-cmr ms", "degradation"],
        per_usage,
        caption="FluidSMR Fig. 3: the average latency normalized to pure CMR; none below 70 % usage, rising sharply above 80 %",
    )


def usage_figure(r: Runner, args: argparse.Namespace) -> None:
    name = r.names()[0]
    trace, zone = r.trace(name)
    schemes = args.schemes.split(",")
    labels = [
        [r.add(f"{scheme} usage {usage}", trace, [f"scheme={scheme}", f"usage={usage}", *zone]) for scheme in schemes]
        for usage in args.usages
    ]
    ran = r.execute()
    rows = [[usage, *[latency_ms(ran[label]) for label in row]] for usage, row in zip(args.usages, labels)]
    print_table(
        f"average latency (ms) per usage on {trace_label(name)}",
        ["usage", *schemes],
        rows,
        caption="FluidSMR Fig. 13",
        notes=caveats.notes(ran),
    )


def fixed_figure(r: Runner, args: argparse.Namespace) -> None:
    name = r.names()[0]
    trace, zone = r.trace(name)
    planned = []
    fixed = [scheme for scheme in presets.axis(FIGURE_FILES["fixed"], "scheme") if scheme != ADAPTIVE]
    for scheme in [*fixed, ADAPTIVE]:
        params = [f"scheme={scheme}", f"usage={args.usage}", *zone]
        planned.append(
            (
                scheme,
                r.add(f"{scheme} usage {args.usage}", trace, params, samples=SERIES_SAMPLES),
                r.add(f"{scheme} usage {args.usage} from day 4", trace, params, warmup_ns=3 * DAY_NS),
            )
        )
    ran = r.execute()
    rows, series = [], {}
    for scheme, whole, from_day_4 in planned:
        result = ran[whole]
        rows.append(
            [
                scheme,
                latency_ms(result),
                latency_ms(ran[from_day_4]),
                gauge(result, "cache_zones"),
                counter(result, "to_smr_conversions"),
                counter(result, "to_cmr_conversions"),
            ]
        )
        series[scheme] = zone_series(result)
    print_table(
        f"fixed vs adaptive format on {trace_label(name)} at usage {args.usage}",
        ["scheme", "latency ms", "from day 4 ms", "cache zones at end", "groups to SMR", "groups to CMR"],
        rows,
        caption="FluidSMR Fig. 14 (left: whole run; right: from the fourth day); zone counts over time (Fig. 15) in zones.json",
        notes=caveats.notes(ran),
    )
    write_series(r, series)


def phases_figure(r: Runner, args: argparse.Namespace) -> None:
    requests = fluid_traces.PHASE_REQUESTS if args.requests is None else args.requests
    zone, zones, hot = fluid_traces.four_phase_shape(requests)
    trace = (
        Path(args.trace[0])
        if args.trace
        else fluid_traces.four_phase_trace(requests, zone, zones, hot, hours=args.phase_hours, seed=args.seed)
    )
    schemes = presets.axis(FIGURE_FILES["phases"], "scheme")
    for scheme in schemes:
        r.add(scheme, trace, [f"scheme={scheme}", f"usage={args.usage}", f"zone_size={zone}"], samples=SERIES_SAMPLES)
    ran = r.execute()
    rows, series = [], {}
    for scheme in schemes:
        result = ran[scheme]
        s = zone_series(result)
        rows.append(
            [
                scheme,
                latency_ms(result),
                min(s["cache_zones"]),
                max(s["cache_zones"]),
                min(s["cmr_zones"]),
                max(s["cmr_zones"]),
                counter(result, "to_smr_conversions"),
                counter(result, "to_cmr_conversions"),
            ]
        )
        series[scheme] = s
    print_table(
        f"four-phase workload ({requests:,} writes, {args.phase_hours:g} h a phase) at usage {args.usage}",
        [
            "scheme",
            "latency ms",
            "cache zones min",
            "cache zones max",
            "CMR zones min",
            "CMR zones max",
            "groups to SMR",
            "groups to CMR",
        ],
        rows,
        caption="FluidSMR Fig. 16: phases 1 and 3 favour SMR + cache, 2 and 4 CMR; zone counts over time in zones.json",
        notes=caveats.notes(ran),
    )
    write_series(r, series)


def cache_figure(r: Runner, args: argparse.Namespace) -> None:
    steps = presets.axis(FIGURE_FILES["cache"], "scheme")
    policies = presets.axis(POLICIES_FILE, "scheme")
    # Fig. 18's settings of the policies alone (no swapping, no conversion, its cache limit).
    alone_settings = {
        key: value for key, value in presets.read(POLICIES_FILE).params.items() if key not in ("scheme", "usage")
    }
    cache_limit = alone_settings.get("cache_limit")
    planned = []
    for name in r.names():
        trace, zone = r.trace(name)
        stem = trace_label(name)
        ablation = [
            r.add(f"{stem} {scheme}", trace, [f"scheme={scheme}", f"usage={args.usage}", *zone]) for scheme in steps
        ]
        alone = [
            r.add(
                f"{stem} {policy} alone",
                trace,
                [
                    f"scheme={policy}",
                    f"usage={args.policy_usage}",
                    *zone,
                    *(f"{key}={value}" for key, value in alone_settings.items()),
                ],
            )
            for policy in policies
        ]
        planned.append((stem, ablation, alone))
    ran = r.execute()
    rows = []
    for stem, ablation, alone in planned:
        rows.append(
            [
                stem,
                *[latency_ms(ran[label]) for label in ablation],
                *[value for label in alone for value in (latency_ms(ran[label]), counter(ran[label], "zone_rewrites"))],
            ]
        )
    columns = ["trace", *steps, *[f"{p} alone {what}" for p in policies for what in ("ms", "zone rewrites")]]
    print_table(
        f"cache optimisations at usage {args.usage}; the policies alone at {args.policy_usage}",
        columns,
        rows,
        caption=f"FluidSMR Fig. 17 (the ablation steps) and Fig. 18 (policies alone: no swapping or conversion, a cache of "
        f"{cache_limit} of the SMR area; latency in ms). A partition this full may have no whole CMR zone to spare: its "
        "cache is then one SMR zone formatted CMR on its own (docs/fluidsmr.md)",
        notes=caveats.notes(ran),
    )


def migration_figure(r: Runner, args: argparse.Namespace) -> None:
    name = r.names()[0]
    trace, zone_param = r.trace(name)
    zone = int(systems.split(zone_param)["zone_size"]) if zone_param else fluid_traces.ZONE
    # 25 GB of new space (100 zones of 256 MB); the guard range keeps two zones more, so the
    # first group's data has somewhere to go (see docs/fluidsmr.md).
    allocate = 100 * zone
    guard = 102 * zone
    at = args.allocate_at or (max(1, fluid_traces.requests_of(name, args.requests) // 4) if not args.trace else 1)
    base = [f"scheme={args.migration_scheme}", f"usage={args.migration_usage}", *zone_param, f"guard={guard}"]
    runs = [("no allocation", []), ("blocking", [f"allocate={allocate}", f"allocate_at={at}"])]
    runs += [
        (f"{bound:g} ms", [f"allocate={allocate}", f"allocate_at={at}", f"latency_bound={bound:g}"])
        for bound in args.bounds
    ]
    labels = [
        (label, r.add(f"migration {label}", trace, [*base, *extra], samples=SERIES_SAMPLES)) for label, extra in runs
    ]
    ran = r.execute()
    rows = []
    for label, key in labels:
        result = ran[key]
        finished = counter(result, "repletions") > 0
        rows.append(
            [
                label,
                latency_ms(result),
                (gauge(result, "max_quantum_ns") or 0) / 1e6,
                counter(result, "conversion_wall_ns") / 1e9 if finished else None,
                counter(result, "conversion_commands"),
                counter(result, "migration_quanta"),
                finished,
            ]
        )
    print_table(
        f"quantized migration on {trace_label(name)}: {allocate:,} bytes allocated before request {at:,}",
        ["run", "latency ms", "worst added ms", "conversion s", "conversions", "quanta", "finished"],
        rows,
        caption="FluidSMR Fig. 19: a larger acceptable increase of latency gives a shorter conversion; 'worst added' is the longest "
        "migration quantum, the most any request waited for one",
        notes=caveats.notes(ran),
    )


def write_series(r: Runner, series: dict) -> None:
    outputs.write_text(r.out / "zones.json", json.dumps(series, sort_keys=True) + "\n")
    note(f"zone counts over time in {r.out / 'zones.json'}")


FIGURES = {
    "prelim": prelim_figure,
    "schemes": schemes_figure,
    "usage": usage_figure,
    "fixed": fixed_figure,
    "phases": phases_figure,
    "cache": cache_figure,
    "migration": migration_figure,
}
# The recipe of FluidSMR's Table 1 traces (smrlab.recipes), the figures' own traces.
TABLE1_RECIPE = "fluid-table1"


def paper_defaults(args: argparse.Namespace) -> None:
    """The options not given, from the figure's experiment file (``FIGURE_FILES``): its Table 1
    traces, its usage (where one), usages and schemes (where a list), Fig. 18's usage for the
    policies alone, and the migration figure's scheme, usage and latency bounds."""
    figure = presets.read(FIGURE_FILES[args.figure])
    axes = figure.axes()
    if args.traces is None:
        args.traces = ",".join(
            name for recipe, name in presets.trace_names(FIGURE_FILES[args.figure]) if recipe == TABLE1_RECIPE
        )
    if args.usage is None and not isinstance(figure.params.get("usage"), list):
        args.usage = figure.params.get("usage")
    if args.usages is None:
        args.usages = [float(usage) for usage in axes.get("usage", [])]
    if args.schemes is None:
        args.schemes = ",".join(axes.get("scheme", []))
    if args.policy_usage is None:
        args.policy_usage = presets.read(POLICIES_FILE).params["usage"]
    migration = presets.read(FIGURE_FILES["migration"])
    if args.migration_scheme is None:
        args.migration_scheme = migration.params["scheme"]
    if args.migration_usage is None:
        args.migration_usage = migration.params["usage"]
    if args.bounds is None:
        args.bounds = [float(run.params["latency_bound"]) for run in migration.systems if "latency_bound" in run.params]


def sweep(args: argparse.Namespace) -> int:
    paper_defaults(args)
    if args.usage is not None and not 0 < args.usage <= 1:
        raise UsageError(f"--usage must be above 0 and at most 1, got {args.usage}")
    check_lists(args)
    if len(args.trace or []) > MOST_LISTED:
        raise UsageError(f"--trace: at most {MOST_LISTED} traces")
    if args.trace and args.requests:
        note("--requests scales the generated traces; the --trace files run as they are")
    runner = Runner(args, args.figure)
    FIGURES[args.figure](runner, args)
    runner.print_claims()
    runner.scaling_note()
    note(f"results written to {Path(args.out) / args.figure}/")
    return 0


def check_lists(args: argparse.Namespace) -> None:
    """Refuses, before any trace is made, a list of traces naming one that is not in Table 1
    (or one twice) and a list of schemes longer than ``MOST_LISTED``."""
    names = args.traces.split(",") if args.traces else []
    for name in names:
        fluid_traces.preset(name)
    if len(set(names)) != len(names) or len(names) > MOST_LISTED:
        raise UsageError(
            f"--traces: at most {MOST_LISTED} Table 1 traces, each once, not {options.quoted(args.traces)}"
        )
    if len(args.schemes.split(",")) > MOST_LISTED:
        raise UsageError(f"--schemes: at most {MOST_LISTED} schemes")


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


def register(commands) -> None:
    parser = commands.add(
        "fluid-sweep",
        help="FluidSMR paper experiments on a hybrid CMR/SMR partition (Figs. 12-19)",
        description=SWEEP_HELP,
    )
    parser.add_argument("figure", choices=list(FIGURES), help="which experiment (see above)")
    parser.add_argument(
        "--trace",
        action="append",
        metavar="FILE",
        help="a trace of your own instead of the generated ones (repeat for several; an MSR Cambridge trace "
        "such as hm_0.csv.gz is read as published, at full size, with the paper's 256 MiB zones)",
    )
    parser.add_argument("--traces", help="comma-separated Table 1 traces (default: the figure's)")
    parser.add_argument(
        "--requests",
        type=options.generated_requests,
        help="scale the generated traces down to this many requests, 1 to 10^9 (default: full size; the "
        "phases figure's workload has at most its full 10,000,000)",
    )
    parser.add_argument(
        "--usage",
        type=options.fraction,
        help="partition usage, above 0 and at most 1 (default 0.9; 0.999 for cache, §7.3)",
    )
    parser.add_argument(
        "--policy-usage",
        type=options.fraction,
        default=None,
        help="cache figure: usage of the policies alone, above 0 and at most 1 (Fig. 18, §7.4; default 0.99)",
    )
    parser.add_argument(
        "--usages",
        type=options.listed(options.fraction, MOST_LISTED),
        default=None,
        help=f"usages of the usage figure, comma-separated, at most {MOST_LISTED}",
    )
    parser.add_argument(
        "--schemes", default=None, help=f"schemes of the schemes and usage figures (at most {MOST_LISTED})"
    )
    parser.add_argument(
        "--phase-hours",
        type=options.bounded_number(fluid_traces.PHASE_HOURS_MIN, fluid_traces.PHASE_HOURS_MAX),
        default=fluid_traces.PHASE_HOURS,
        help=f"hours of each phase of the phases figure, {fluid_traces.PHASE_HOURS_MIN:g} to {fluid_traces.PHASE_HOURS_MAX:g}",
    )
    parser.add_argument(
        "--bounds",
        type=options.listed(options.positive, MOST_LISTED),
        default=None,
        help=f"acceptable latency increases (ms) of the migration figure, comma-separated, at most {MOST_LISTED}",
    )
    parser.add_argument("--migration-scheme", default=None, help="scheme of the migration figure (default fluid-smr)")
    parser.add_argument(
        "--migration-usage",
        type=options.fraction,
        default=None,
        help="usage of the migration figure, above 0 and at most 1 (default 0.8)",
    )
    parser.add_argument(
        "--allocate-at",
        type=options.count,
        help="migration figure: the request before which space is allocated "
        "(default: a quarter into a generated trace, the first of yours)",
    )
    add_placement_arguments(parser)
    options.add_params_argument(parser, "more fluid parameters for every run")
    add_engine_arguments(parser)
    add_output_arguments(parser, "results/fluid-sweep", "folder for the JSON results and each figure's results folder")
    parser.set_defaults(func=sweep)

    trace = commands.add(
        "fluid-trace", help="write a FluidSMR workload: a Table 1 trace or the four-phase workload (Fig. 16)"
    )
    trace.add_argument("name", choices=[*fluid_traces.TABLE1, "four-phase"])
    trace.add_argument(
        "--requests",
        type=options.generated_requests,
        help="scale down to this many requests, 1 to 10^9 (default: full size; four-phase: at most its full 10,000,000)",
    )
    trace.add_argument(
        "--phase-hours",
        type=options.bounded_number(fluid_traces.PHASE_HOURS_MIN, fluid_traces.PHASE_HOURS_MAX),
        default=fluid_traces.PHASE_HOURS,
        help=f"four-phase: hours per phase, {fluid_traces.PHASE_HOURS_MIN:g} to {fluid_traces.PHASE_HOURS_MAX:g}",
    )
    add_placement_arguments(trace)
    trace.add_argument(
        "--seed",
        type=options.seed,
        default=0,
        help="seed of the trace generator (default 0); the same seed gives the same trace",
    )
    trace.add_argument("--out", default="results/traces", help="folder for the trace")
    trace.set_defaults(func=trace_command)
