"""``smrlab workload``: request arrival series and their statistics, and the SMRDB thesis's
experiments on arrivals and write-offloading — ``arrivals`` writes a seeded arrival series
(constant, Poisson, b-model self-similar, diurnal), ``analyze`` prints a series' autocorrelation
(and draws it as a PNG) and five Hurst estimates, ``fig4.10``, ``fig5.8`` and ``table5.1`` run
the experiments. Running YCSB against a store or server is ``smrlab kv ycsb``."""

from __future__ import annotations

import argparse
import math

import numpy as np

from smrlab import _core, hurst, workload
from smrlab import workload_experiments as experiments
from smrlab.arrival_names import OPTIONS as ARRIVAL_OPTIONS
from smrlab.arrival_names import named_as
from smrlab.cli.sim import param_lines
from smrlab.errors import UsageError
from smrlab.options import bounded_whole, non_negative, positive, seed
from smrlab.outputs import output_file
from smrlab.tables import print_json, print_table

# The most ACF lags `analyze` computes (a series shorter than that gets as many as it has).
MAX_LAG = 10**7


def process_help() -> str:
    """The arrival processes' parameters for ``--help``, from their declarations in the Rust core,
    under the SMRDB thesis's Table 4.1 names, and the options that give them."""
    lines = [
        "arrival parameters (Table 4.1 of the SMRDB thesis): --process [arrivalgenerator], --rate [target], "
        "--duration, --bias [ss.bias], --resolution [ss.resolution], --modulation [diurnal.modulation], "
        "--cycle [diurnal.cyclelength], --distribution, --shape [diurnal.distribution.shape]"
    ]
    return "\n".join(lines + param_lines(_core.arrival_params(), "  "))


def add_arrival_arguments(
    parser: argparse.ArgumentParser, rate_default: float | None = None, duration_default: float | None = None
) -> None:
    """The options of an arrival process, shared by ``workload arrivals`` and ``kv ycsb``, and the
    process parameters' help (``process_help``) after the options."""
    parser.epilog = process_help()
    parser.add_argument(
        "--process",
        "--arrival",
        dest="process",
        choices=workload.PROCESSES,
        default="constant",
        help="arrival process (default constant)",
    )
    parser.add_argument(
        "--rate",
        type=positive,
        default=rate_default,
        required=rate_default is None,
        help="average requests per second [target]" + (f" (default {rate_default:g})" if rate_default else ""),
    )
    parser.add_argument(
        "--duration",
        type=positive,
        default=duration_default,
        required=duration_default is None,
        help=f"seconds of arrivals; rate x duration at most {workload.MAX_ARRIVALS:,} arrivals"
        + (f" (default {duration_default:g})" if duration_default else ""),
    )
    parser.add_argument("--bias", type=positive, help="selfsimilar: the b-model's bias b")
    parser.add_argument("--resolution", type=positive, help="selfsimilar: finest slot, seconds (default 0.001)")
    parser.add_argument(
        "--modulation", type=non_negative, help="diurnal: amplitude of the rate, requests per second (< rate)"
    )
    parser.add_argument("--cycle", type=positive, help="diurnal: cycle length, minutes")
    parser.add_argument(
        "--distribution", choices=["pareto", "exponential"], help="diurnal: inter-arrival distribution (default pareto)"
    )
    parser.add_argument(
        "--shape",
        type=positive,
        help="diurnal: Pareto shape alpha (> 1; refused where the run could hold more than the arrivals allowed)",
    )
    parser.add_argument(
        "--seed", type=seed, default=1, help="seed of the arrivals (and of the operations, for kv ycsb) (default 1)"
    )


def arrival_options(args: argparse.Namespace) -> dict:
    """The keyword arguments of ``workload.arrival_params`` from parsed options."""
    return {
        "bias": args.bias,
        "resolution": args.resolution,
        "modulation": args.modulation,
        "cycle_minutes": args.cycle,
        "distribution": args.distribution,
        "shape": args.shape,
    }


def run_arrivals(args: argparse.Namespace) -> int:
    with named_as(ARRIVAL_OPTIONS):
        times = workload.arrivals(args.process, args.rate, args.duration, args.seed, **arrival_options(args))
    header = {
        "process": args.process,
        "rate": args.rate,
        "duration": args.duration,
        "seed": args.seed,
        **{k: v for k, v in arrival_options(args).items() if v is not None},
    }
    with output_file(args.out) as temporary:
        workload.write_series(temporary, times, header)
    # Only the seconds that hold arrivals are counted: a long, sparse run has few of them.
    _, per_second = np.unique(times // 1_000_000_000, return_counts=True)
    busiest = int(per_second.max()) if len(per_second) else 0
    quietest = int(per_second.min()) if len(per_second) >= math.ceil(args.duration) else 0
    print(
        f"{len(times):,} arrivals in {args.duration:g} s ({len(times) / args.duration:,.1f}/s on average; "
        f"busiest second {busiest:,}, quietest {quietest:,}) written to {args.out}"
    )
    return 0


def analysis_series(args: argparse.Namespace) -> tuple[np.ndarray, str]:
    """The series to analyse and what it is."""
    values, header = workload.read_series(args.series)
    if header.get("kind") != "arrivals":
        return values, "the series as given"
    times = np.round(values * 1e9).astype(np.int64)
    if args.interarrivals:
        return workload.interarrivals(times), "inter-arrival times (s)"
    duration = float(header["duration"]) if "duration" in header else None
    return workload.counts(times, args.interval, duration), f"arrivals per {args.interval:g} s"


def draw_acf(path: str, lags: np.ndarray, what: str, name: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.5))
    ax.bar(np.arange(len(lags)), lags, width=0.8, color="#4472c4")
    ax.axhline(0, color="black", linewidth=0.6)
    ax.set_xlabel("lag")
    ax.set_ylabel("autocorrelation")
    ax.set_title(f"ACF of {name}: {what}")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def run_analyze(args: argparse.Namespace) -> int:
    series, what = analysis_series(args)
    try:
        lags = hurst.acf(series, args.max_lag)
        estimates = hurst.estimate_all(series)
    except ValueError as error:
        raise UsageError(f"{args.series}: {error} ({what}, {len(series):,} values)") from None
    png = args.png or f"{args.series}.acf.png"
    with output_file(png, inputs=[args.series]) as temporary:
        draw_acf(str(temporary), lags, what, str(args.series))
    if args.json:
        print_json({"series": what, "values": len(series), "acf": lags.tolist(), "hurst": estimates, "png": png})
        return 0
    shown = [
        (k, f"{lags[k]:.4f}") for k in range(len(lags)) if k <= 10 or k in (20, 50, 100, 200, 500) or k == len(lags) - 1
    ]
    print_table(
        f"Autocorrelation of {what} ({len(series):,} values)",
        ["lag", "ACF"],
        shown,
        caption=f"all {len(lags) - 1} lags drawn in {png}",
    )
    print_table(
        "Hurst parameter estimates (0.5: no long-range dependence; 0.5-1: self-similar)",
        ["estimator", "H"],
        [(k, "undefined" if v is None else f"{v:.3f}") for k, v in estimates.items()],
        caption="undefined: the series' variance, range or spectrum vanishes at a scale the estimator needs"
        if None in estimates.values()
        else None,
    )
    return 0


def register(commands) -> None:
    group = commands.group(
        "workload",
        help="arrival series and their statistics (ACF, Hurst), and the thesis's arrival and offloading experiments",
    )
    arrivals = group.add(
        "arrivals",
        help="write a seeded arrival series: one arrival time (s) per line",
        description="Writes the arrival times of a seeded arrival process to a series file: '# key=value' "
        "header lines, then one time in seconds per line.",
    )
    add_arrival_arguments(arrivals)
    arrivals.add_argument("--out", required=True, metavar="FILE", help="series file to write")
    arrivals.set_defaults(func=run_arrivals)

    analyze = group.add(
        "analyze",
        help="print a series' autocorrelation (and draw it as a PNG) and five Hurst estimates",
        description="Analyses a series file: arrival times (as 'smrlab workload arrivals' writes them) are "
        "counted per --interval seconds, or turned into inter-arrival times with "
        "--interarrivals; any other file of one number per line is analysed as it is. "
        "Prints the autocorrelation function, draws it as a PNG, and prints H by aggregate "
        "variance, R/S, periodogram, Abry-Veitch and Whittle.",
    )
    analyze.add_argument("series", help="series file")
    analyze.add_argument("--interval", type=positive, default=1.0, help="arrival series: seconds per count (default 1)")
    analyze.add_argument(
        "--interarrivals", action="store_true", help="arrival series: analyse inter-arrival times, not counts"
    )
    analyze.add_argument("--max-lag", type=bounded_whole(1, MAX_LAG), default=100, help="lags of the ACF (default 100)")
    analyze.add_argument("--png", metavar="FILE", help="where to draw the ACF (default SERIES.acf.png)")
    analyze.add_argument("--json", action="store_true", help="print JSON")
    analyze.set_defaults(func=run_analyze)

    experiments.register(group)
