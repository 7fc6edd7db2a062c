"""``smrlab fluid-sweep`` and ``smrlab fluid-trace``: the FluidSMR paper's experiments on a hybrid
CMR/SMR partition, and its workloads as trace files.

fluid-sweep FIGURE runs the schemes of ``--system fluid`` on generated traces (``smrlab.fluid_traces``)
or on a trace of your own; ``SWEEP_HELP`` (its --help) says what each figure runs.

Every number comes from the Rust core (``derived`` and ``gauge_series`` of each result); this
module only chooses runs and formats. Not here: the system (``crates/smr-sim/src/fluid``).
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from smrlab import fluid_traces, live
from smrlab.cli.sim import add_engine_arguments, engine_from_args
from smrlab.errors import UsageError
from smrlab.run import measure, simulate, write_result
from smrlab.tables import add_json_argument, note, print_table

SWEEP_HELP = """Runs the schemes of --system fluid on the paper's workloads (generated on first use)
or on a trace of your own (--trace), and prints one table per figure:

- schemes (Fig. 12): average latency of each scheme at usage 0.9 across the Table 1 traces;
- usage (Fig. 13): the same per usage, on one trace (prn_1);
- fixed (Figs. 14, 15): the fixed configurations fix-0.2 .. fix-0.8 against adapt, the
  latency over the whole run and from the fourth day on, and the CMR / SMR / cache zone counts
  over time as a JSON series;
- phases (Fig. 16): the four-phase workload, adaptive schemes against the fixed ones, with
  the zone counts over time;
- cache (Figs. 17, 18): the cache-policy ablation (format-adapt, imprv-lru, fifo, loop-back,
  fluid-smr) and the policies alone (swapping and conversion off, a cache of 0.02 % of the SMR
  area);
- migration (Fig. 19): a space allocation during the run, its guard range replenished by
  quantized migration at acceptable latency increases of 60 and 100 ms, and blocking.
"""

FIGURE_SCHEMES = ["swap-only", "+cache-fix", "format-adapt", "fluid-smr", "pure-cmr"]
FIXED = ["fix-0.2", "fix-0.4", "fix-0.6", "fix-0.8"]
ABLATION = ["format-adapt", "imprv-lru", "fifo", "loop-back", "fluid-smr"]
POLICIES = ["imprv-lru", "fifo", "loop-back"]
USAGES = [0.6, 0.7, 0.8, 0.9, 0.95]
ZONE_GAUGES = ["cmr_zones", "smr_zones", "cache_zones"]
DAY_NS = 24 * 3600 * 10**9
SERIES_SAMPLES = 200


class Runner:
    """Runs fluid on traces with the sweep's shared options and keeps every result."""

    def __init__(self, args: argparse.Namespace, figure: str, runs: live.Task):
        self.args = args
        self.out = Path(args.out) / figure
        self.footprints: dict[str, dict] = {}
        self.requests: dict[str, int] = {}
        self.runs = runs

    def trace(self, name: str) -> tuple[Path, list[str]]:
        """The trace for Table 1 name ``name`` (or the user's) and the zone size it goes with."""
        if self.args.trace:
            return Path(self.args.trace), []
        scale = fluid_traces.scale_of(name, self.args.requests)
        return fluid_traces.table1_trace(name, self.args.requests, seed=self.args.seed), [f"zone_size={fluid_traces.zone_size(scale)}"]

    def run(self, label: str, trace: Path, params: list[str], samples: int = 0, warmup_ns: int = 0) -> dict:
        key = str(trace)
        if key not in self.footprints:
            self.footprints[key], self.requests[key] = measure(trace)
        engine = engine_from_args(self.args)
        if samples:
            engine["gauge_samples"] = max(engine["gauge_samples"], samples)
        engine["warmup_ns"] = max(engine["warmup_ns"], warmup_ns)
        with live.task(f"fluid {label}", self.requests[key], "requests") as show:
            result = simulate("fluid", trace, [*params, *self.args.param], engine=engine, seed=self.args.seed,
                              footprint=self.footprints[key], progress=show)
        self.runs.advance()
        write_result(result, self.out / f"{label.replace(' ', '_').replace('+', 'plus-')}.json")
        return result


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
    return {"trace_hours": [s["trace_ns"] / 3.6e12 for s in series["samples"]],
            **{name: [s["values"][c] for s in series["samples"]] for name, c in zip(ZONE_GAUGES, columns)}}


def schemes_figure(r: Runner, args: argparse.Namespace) -> None:
    names = [args.trace] if args.trace else args.traces.split(",")
    rows = []
    for name in names:
        trace, zone = r.trace(name)
        latencies = [latency_ms(r.run(f"{Path(name).stem} {scheme}", trace, [f"scheme={scheme}", f"usage={args.usage}", *zone])) for scheme in args.schemes.split(",")]
        rows.append([Path(name).stem, *latencies])
    print_table(f"average latency (ms) per scheme at usage {args.usage}", ["trace", *args.schemes.split(",")], rows,
                caption="FluidSMR Fig. 12 (the paper plots it on a log scale)")


def usage_figure(r: Runner, args: argparse.Namespace) -> None:
    trace, zone = r.trace(args.traces.split(",")[0])
    schemes = args.schemes.split(",")
    rows = [[usage, *[latency_ms(r.run(f"{scheme} usage {usage}", trace, [f"scheme={scheme}", f"usage={usage}", *zone])) for scheme in schemes]]
            for usage in [float(u) for u in args.usages.split(",")]]
    print_table(f"average latency (ms) per usage on {trace.name}", ["usage", *schemes], rows, caption="FluidSMR Fig. 13")


def fixed_figure(r: Runner, args: argparse.Namespace) -> None:
    trace, zone = r.trace(args.traces.split(",")[0])
    rows, series = [], {}
    for scheme in [*FIXED, "adapt"]:
        params = [f"scheme={scheme}", f"usage={args.usage}", *zone]
        result = r.run(f"{scheme} usage {args.usage}", trace, params, samples=SERIES_SAMPLES)
        stable = r.run(f"{scheme} usage {args.usage} from day 4", trace, params, warmup_ns=3 * DAY_NS)
        rows.append([scheme, latency_ms(result), latency_ms(stable), gauge(result, "cache_zones"), counter(result, "to_smr_conversions"),
                     counter(result, "to_cmr_conversions")])
        series[scheme] = zone_series(result)
    print_table(f"fixed vs adaptive format on {trace.name} at usage {args.usage}",
                ["scheme", "latency ms", "from day 4 ms", "cache zones at end", "groups to SMR", "groups to CMR"], rows,
                caption="FluidSMR Fig. 14 (left: whole run; right: from the fourth day); zone counts over time (Fig. 15) in zones.json")
    write_series(r, series)


def phases_figure(r: Runner, args: argparse.Namespace) -> None:
    requests = args.requests or fluid_traces.PHASE_REQUESTS
    zone, zones, hot = fluid_traces.four_phase_shape(requests)
    trace = Path(args.trace) if args.trace else fluid_traces.four_phase_trace(requests, zone, zones, hot, hours=args.phase_hours, seed=args.seed)
    rows, series = [], {}
    for scheme in ["adapt", "fluid-smr", *FIXED]:
        result = r.run(scheme, trace, [f"scheme={scheme}", f"usage={args.usage}", f"zone_size={zone}"], samples=SERIES_SAMPLES)
        s = zone_series(result)
        rows.append([scheme, latency_ms(result), min(s["cache_zones"]), max(s["cache_zones"]), min(s["cmr_zones"]), max(s["cmr_zones"]),
                     counter(result, "to_smr_conversions"), counter(result, "to_cmr_conversions")])
        series[scheme] = s
    print_table(f"four-phase workload ({requests:,} writes, {args.phase_hours:g} h a phase) at usage {args.usage}",
                ["scheme", "latency ms", "cache zones min", "cache zones max", "CMR zones min", "CMR zones max", "groups to SMR", "groups to CMR"],
                rows, caption="FluidSMR Fig. 16: phases 1 and 3 favour SMR + cache, 2 and 4 CMR; zone counts over time in zones.json")
    write_series(r, series)


def cache_figure(r: Runner, args: argparse.Namespace) -> None:
    names = [args.trace] if args.trace else args.traces.split(",")
    rows = []
    for name in names:
        trace, zone = r.trace(name)
        stem = Path(name).stem
        ablation = [latency_ms(r.run(f"{stem} {scheme}", trace, [f"scheme={scheme}", f"usage={args.usage}", *zone])) for scheme in ABLATION]
        alone = []
        for policy in POLICIES:
            result = r.run(f"{stem} {policy} alone", trace, [f"scheme={policy}", f"usage={args.usage}", *zone, "swapping=none", "adapt=off",
                                                              f"cache_limit={cache_limit(r, trace, args.usage)}"])
            alone += [latency_ms(result), counter(result, "zone_rewrites")]
        rows.append([stem, *ablation, *alone])
    columns = ["trace", *ABLATION, *[f"{p} alone {what}" for p in POLICIES for what in ("ms", "zone rewrites")]]
    print_table(f"cache optimisations at usage {args.usage}", columns, rows,
                caption="FluidSMR Fig. 17 (the ablation steps) and Fig. 18 (policies alone: no swapping or conversion, a cache of at "
                        "most 0.02 % of the SMR area; latency in ms). A partition this full may have no zone left for a cache: then every "
                        "column is the same")


def cache_limit(r: Runner, trace: Path, usage: float) -> int:
    """0.02 % of the partition's pure-SMR capacity (§7.4), at least one block."""
    return max(4096, int(r.footprints[str(trace)]["max_end"] / usage * 0.0002) // 4096 * 4096)


def migration_figure(r: Runner, args: argparse.Namespace) -> None:
    name = args.traces.split(",")[0] if not args.trace else args.trace
    trace, zone_param = r.trace(name)
    zone = int(zone_param[0].split("=")[1]) if zone_param else fluid_traces.ZONE
    # 25 GB of new space (100 zones of 256 MB); the guard range keeps two zones more, so the
    # first group's data has somewhere to go (see docs/fluidsmr.md).
    allocate = 100 * zone
    guard = 102 * zone
    at = args.allocate_at or (max(1, fluid_traces.requests_of(name, args.requests) // 4) if not args.trace else 1)
    base = [f"scheme={args.migration_scheme}", f"usage={args.migration_usage}", *zone_param, f"guard={guard}"]
    rows = []
    runs = [("no allocation", []), ("blocking", [f"allocate={allocate}", f"allocate_at={at}"])]
    runs += [(f"{bound} ms", [f"allocate={allocate}", f"allocate_at={at}", f"latency_bound={bound}"]) for bound in args.bounds.split(",")]
    for label, extra in runs:
        result = r.run(f"migration {label}", trace, [*base, *extra], samples=SERIES_SAMPLES)
        finished = counter(result, "repletions") > 0
        rows.append([label, latency_ms(result), (gauge(result, "max_quantum_ns") or 0) / 1e6, counter(result, "conversion_wall_ns") / 1e9 if finished else None,
                     counter(result, "conversion_commands"), counter(result, "migration_quanta"), finished])
    print_table(f"quantized migration on {trace.name}: {allocate:,} bytes allocated before request {at:,}",
                ["run", "latency ms", "worst added ms", "conversion s", "conversions", "quanta", "finished"], rows,
                caption="FluidSMR Fig. 19: a larger acceptable increase of latency gives a shorter conversion; 'worst added' is the longest "
                        "migration quantum, the most any request waited for one")


def write_series(r: Runner, series: dict) -> None:
    r.out.mkdir(parents=True, exist_ok=True)
    (r.out / "zones.json").write_text(json.dumps(series, sort_keys=True) + "\n")
    note(f"zone counts over time in {r.out / 'zones.json'}")


FIGURES = {"schemes": schemes_figure, "usage": usage_figure, "fixed": fixed_figure, "phases": phases_figure,
           "cache": cache_figure, "migration": migration_figure}
DEFAULT_TRACES = {"schemes": ",".join(fluid_traces.TABLE1), "usage": "prn_1", "fixed": "prn_1", "phases": "",
                  "cache": "hm_0,src2_2,stg_0", "migration": "proj_1"}
DEFAULT_USAGE = {"cache": 0.99}


def sweep(args: argparse.Namespace) -> int:
    if args.usage is None:
        args.usage = DEFAULT_USAGE.get(args.figure, 0.9)
    if args.traces is None:
        args.traces = DEFAULT_TRACES[args.figure]
    if not 0 < args.usage <= 1:
        raise UsageError(f"--usage must be above 0 and at most 1, got {args.usage}")
    with live.task(f"fluid-sweep {args.figure}", None, "runs done:") as runs:
        FIGURES[args.figure](Runner(args, args.figure, runs), args)
    note(f"results written to {Path(args.out) / args.figure}/")
    return 0


def trace_command(args: argparse.Namespace) -> int:
    if args.name == "four-phase":
        requests = args.requests or fluid_traces.PHASE_REQUESTS
        zone, zones, hot = fluid_traces.four_phase_shape(requests)
        path = fluid_traces.four_phase_trace(requests, zone, zones, hot, hours=args.phase_hours, folder=Path(args.out), seed=args.seed)
    else:
        path = fluid_traces.table1_trace(args.name, args.requests, folder=Path(args.out), seed=args.seed)
        zone = fluid_traces.zone_size(fluid_traces.scale_of(args.name, args.requests))
    print(path)
    note(f"run it with: smrlab sim --system fluid --trace {path} --zone-size {zone}")
    return 0


def register(commands) -> None:
    parser = commands.add("fluid-sweep", help="FluidSMR paper experiments on a hybrid CMR/SMR partition (Figs. 12-19)",
                          description=SWEEP_HELP)
    parser.add_argument("figure", choices=list(FIGURES), help="which experiment (see above)")
    parser.add_argument("--trace", help="a trace of your own instead of the generated ones")
    parser.add_argument("--traces", help="comma-separated Table 1 traces (default: the figure's)")
    parser.add_argument("--requests", type=int, help="scale the generated traces to this many requests (default: full size)")
    parser.add_argument("--usage", type=float, help="partition usage (default 0.9; 0.99 for cache, §7.4)")
    parser.add_argument("--usages", default=",".join(map(str, USAGES)), help="usages of the usage figure")
    parser.add_argument("--schemes", default=",".join(FIGURE_SCHEMES), help="schemes of the schemes and usage figures")
    parser.add_argument("--phase-hours", type=float, default=fluid_traces.PHASE_HOURS, help="length of each phase of the phases figure")
    parser.add_argument("--bounds", default="60,100", help="acceptable latency increases (ms) of the migration figure")
    parser.add_argument("--migration-scheme", default="fluid-smr", help="scheme of the migration figure")
    parser.add_argument("--migration-usage", type=float, default=0.8, help="usage of the migration figure")
    parser.add_argument("--allocate-at", type=int, help="migration figure: the request before which space is allocated "
                                                         "(default: a quarter into a generated trace, the first of yours)")
    parser.add_argument("--param", "-p", action="append", default=[], metavar="KEY=VALUE", help="more fluid parameters for every run")
    add_engine_arguments(parser)
    parser.add_argument("--out", default="results/fluid-sweep", help="folder for the JSON results")
    add_json_argument(parser)
    parser.set_defaults(func=sweep)

    trace = commands.add("fluid-trace", help="write a FluidSMR workload: a Table 1 trace or the four-phase workload (Fig. 16)")
    trace.add_argument("name", choices=[*fluid_traces.TABLE1, "four-phase"])
    trace.add_argument("--requests", type=int, help="scale to this many requests (default: full size)")
    trace.add_argument("--phase-hours", type=float, default=fluid_traces.PHASE_HOURS, help="four-phase: hours per phase")
    trace.add_argument("--seed", type=int, default=0, help="seed of the trace generator (default 0); the same seed gives the same trace")
    trace.add_argument("--out", default="results/traces", help="folder for the trace")
    trace.set_defaults(func=trace_command)
