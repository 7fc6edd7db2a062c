"""``smrlab ucache-sweep``: the uCache paper's Tables III and IV for one trace — the write hit
ratio and the garbage-collection cycles of uCache at bucket sizes from 128 KiB to 4 MiB, and
the GC cycles of the E-region baseline on the same drive, with the live fraction of its log over
time (Fig. 1). The runs are cells of one experiment (parallel, resumable), as in ``compare-caches``.
Their time is the paper's replay's (§IV: fio at iodepth 31): ``--iodepth`` defaults to the Fig. 7
file's, and the plain disk queues as many commands as the translation layers' drive."""

from __future__ import annotations

import argparse
from pathlib import Path

from smrlab import experiment, options, outputs, systems
from smrlab.cli import presets, views
from smrlab.cli.caches import add_output_arguments
from smrlab.cli.declared import add_declared
from smrlab.cli.sim import add_engine_arguments, add_trace_arguments, engine_keywords
from smrlab.experiment.spec import SystemRun
from smrlab.tables import note
from smrlab.trace import Trace

# The experiment files whose systems make the sweep: E-region with its live-fraction samples
# (Fig. 1), uCache over the bucket sizes (Table IV, whose range is the default --buckets) and the
# plain disk (Fig. 7). Their shared parameters (a drive sized for the bundled samples) are not
# taken: the sweep runs on the systems' own defaults and --param.
LINE_UP_FILES = ("ucache-fig1", "ucache-table4", "ucache-fig7")
# The experiment file whose write hit ratios and GC cycles the table shows first.
SWEEP_FILE = "ucache-table3"
# The experiment file whose replay (its [engine] iodepth) the sweep's times follow.
REPLAY_FILE = "ucache-fig7"
# The drive parameter the plain disk takes from the translation layers' drive, so that all of
# them queue alike.
QUEUE_DEPTH = "disk_queue_depth"


def sweep_experiment(args: argparse.Namespace, buckets: list[str]) -> experiment.Experiment:
    """uCache at each bucket size, then E-region (sampling its live fraction at least as often as
    its file says) and the plain disk on the same drive, as one experiment."""
    given = systems.split(args.param)
    name = Path(args.trace).name.split(".")[0]
    swept = presets.read(SWEEP_FILE)
    own = {"ucache": {**given, "bucket": buckets, "promote": args.promote}}
    runs = []
    for entry in presets.line_up(*LINE_UP_FILES):
        # E-region and the plain disk run on the same drive (and E-region on the same on-media
        # cache) as uCache.
        params = own.get(entry.system) or systems.split(systems.declared_by(args.param, entry.system))
        if QUEUE_DEPTH in systems.defaults(entry.system):
            params.setdefault(QUEUE_DEPTH, given.get(QUEUE_DEPTH, systems.defaults("ucache")[QUEUE_DEPTH]))
        engine = {key: max(value, getattr(args, key)) for key, value in entry.engine.items()}
        runs.append(SystemRun(entry.label, entry.system, params, engine))
    return experiment.Experiment(
        name=f"ucache-sweep-{name}-{args.promote}",
        title=f"uCache on {name} (promotion by {args.promote})",
        traces={name: Trace.open(args.trace, args.format, args.trace_option)},
        systems=runs,
        seeds=[args.seed],
        engine=engine_keywords(args),
        metrics=["bucket_write_hit_ratio", "gc_cycles", "makespan_s"],
        reproduces={"paper": swept.reproduces["paper"], "figure": "Tables III and IV"},
        figure=swept.figure,
    )


# The sweep's table: uCache at each bucket size, then E-region and the plain disk.
SWEEP = views.Table(
    "uCache on {trace} (promotion by {promote})",
    "bucket",
    (
        views.Column("write hit ratio", "bucket_write_hit_ratio"),
        views.Column("GC cycles", "gc_cycles"),
        views.Column("buckets/GC", "gc_buckets_per_cycle"),
        views.Column("promotions", "promotions"),
        views.Column("replay s", "makespan_s"),
        views.Column("ops/host op", "io_amplification_ops"),
        views.Column("bytes/host byte", "io_amplification_bytes"),
        views.Column("promotion ms", "mean_promotion_ns", 1e-6),
        views.Column("seeks", "seeks"),
    ),
    caption="uCache paper: write hit ratio = Table III, GC cycles = Table IV, buckets/GC = Fig. 8, replay time "
    "beside a plain disk = Fig. 7, media ops and bytes per host op and byte = Fig. 9, promotion time = Fig. 10, "
    "seeks minus the plain disk's = Table V (a seek: a disk I/O not starting where the previous one ended)",
)
# The rows' names of the runs other than uCache's.
ROW_NAMES = {"cmr": "cmr (plain disk)"}


def run(args: argparse.Namespace) -> int:
    buckets = args.buckets.split(",") if args.buckets else presets.axis(SWEEP_FILE, "bucket")
    name = Path(args.trace).name.split(".")[0]
    out = Path(args.out)
    ran = presets.run(sweep_experiment(args, buckets), args, out, name)
    by_label = {cell.label: result for cell, result in ran[len(buckets) :]}
    eregion, cmr_result = by_label["eregion"], by_label["cmr"]
    stem = out / f"{name}-eregion"
    write_live_fraction_csv(eregion["report"]["gauge_series"], stem.with_name(stem.name + "-live.csv"))
    SWEEP.print(
        [
            *zip(buckets, (result for _, result in ran)),
            *((ROW_NAMES.get(label, label), r) for label, r in by_label.items()),
        ],
        noted=[*(f"bucket {bucket}" for bucket in buckets), *by_label],
        trace=args.trace,
        promote=args.promote,
    )
    views.print_claims("ucache", (*LINE_UP_FILES, SWEEP_FILE), ran, f"uCache claims on {name}")
    report = cmr_result["report"]
    depth = cmr_result["config"]["params"].get(QUEUE_DEPTH, "1")
    note(
        f"replayed as the paper's fio did (§IV): iodepth {report['iodepth']} (requests in flight), "
        f"the drive queueing {depth} commands; replay s is each run's makespan"
    )
    e = eregion["derived"]
    note(
        f"E-region log live fraction over trace time (Fig. 1): mean {100 * e['log_live_fraction_mean']:.1f} %, "
        f"max {100 * e['log_live_fraction_max']:.1f} % (curve in {stem.name}-live.csv)"
    )
    note(f"results written to {args.out}/")
    return 0


def write_live_fraction_csv(series: dict, path: Path) -> None:
    """The E-region live fraction samples as CSV (trace seconds, simulated seconds, fraction)."""
    column = series["names"].index("log_live_fraction")
    rows = [
        f"{s['trace_ns'] / 1e9:.6f},{s['sim_ns'] / 1e9:.6f},{s['request']},{s['values'][column]:.6f}\n"
        for s in series["samples"]
    ]
    outputs.write_text(path, "trace_s,sim_s,request,log_live_fraction\n" + "".join(rows))


def register(commands) -> None:
    parser = commands.add(
        "ucache-sweep", help="uCache write hit ratio and GC cycles per bucket size (uCache Tables III, IV)"
    )
    add_trace_arguments(parser)
    parser.add_argument("--buckets", default=None, help="comma-separated bucket sizes (default 128KiB..4MiB)")
    add_declared(parser, "ucache", "promote")
    drive = systems.defaults("ucache")
    options.add_params_argument(
        parser,
        "drive and cache parameters: "
        + ", ".join(f"{key} [{drive[key]}]" for key in ("zone_size", "conventional", "cache", "disk")).replace(
            "%", "%%"
        )
        + " (see smrlab sim --help --system ucache for units)",
    )
    add_engine_arguments(parser, iodepth=presets.read(REPLAY_FILE).engine.get("iodepth", 1))
    add_output_arguments(
        parser,
        "results/ucache-sweep",
        "folder for the JSON results and the sweep's results folder (Parquet table, provenance, figure)",
    )
    parser.set_defaults(func=run)
