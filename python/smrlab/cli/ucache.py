"""``smrlab ucache-sweep``: the uCache paper's Tables III and IV for one trace — the write hit
ratio and the garbage-collection cycles of uCache at bucket sizes from 128 KiB to 4 MiB, and
the GC cycles of the E-region baseline on the same drive, with the live fraction of its log over
time (Fig. 1). The runs are cells of one experiment (parallel, resumable), as in ``compare-caches``.
Their time is the paper's replay's (§IV: fio at iodepth 31): ``--iodepth`` defaults to the Fig. 7
file's, and the plain disk queues as many commands as the translation layers' drive."""

from __future__ import annotations

from pathlib import Path

from smrlab import outputs, systems
from smrlab.cli import views
from smrlab.cli.paper_command import Declared, PaperCommand, Sweep, trace_file
from smrlab.tables import note

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
    names={"cmr": "cmr (plain disk)"},
)


def after_table(runs: list[views.Ran], out: Path, fields: dict) -> None:
    """How the runs were replayed, and E-region's live fraction over the trace (Fig. 1) as a
    CSV beside the results."""
    by_label = {run.label: run.result for run in runs}
    if "cmr" in by_label:
        report = by_label["cmr"]["report"]
        depth = by_label["cmr"]["config"]["params"].get(QUEUE_DEPTH, "1")
        note(
            f"replayed as the paper's fio did (§IV): iodepth {report['iodepth']} (requests in flight), "
            f"the drive queueing {depth} commands; replay s is each run's makespan"
        )
    if "eregion" in by_label:
        eregion = by_label["eregion"]
        stem = out / f"{fields['name']}-eregion"
        write_live_fraction_csv(eregion["report"]["gauge_series"], stem.with_name(stem.name + "-live.csv"))
        e = eregion["derived"]
        note(
            f"E-region log live fraction over trace time (Fig. 1): mean {100 * e['log_live_fraction_mean']:.1f} %, "
            f"max {100 * e['log_live_fraction_max']:.1f} % (curve in {stem.name}-live.csv)"
        )


def write_live_fraction_csv(series: dict, path: Path) -> None:
    """The E-region live fraction samples as CSV (trace seconds, simulated seconds, fraction)."""
    column = series["names"].index("log_live_fraction")
    rows = [
        f"{s['trace_ns'] / 1e9:.6f},{s['sim_ns'] / 1e9:.6f},{s['request']},{s['values'][column]:.6f}\n"
        for s in series["samples"]
    ]
    outputs.write_text(path, "trace_s,sim_s,request,log_live_fraction\n" + "".join(rows))


def drive_help() -> str:
    """--param's help: the drive's and cache's parameters with uCache's defaults."""
    drive = systems.defaults("ucache")
    return (
        "drive and cache parameters: "
        + ", ".join(f"{key} [{drive[key]}]" for key in ("zone_size", "conventional", "cache", "disk")).replace(
            "%", "%%"
        )
        + " (see smrlab sim --help --system ucache for units)"
    )


SWEEP_COMMAND = PaperCommand(
    "ucache-sweep",
    "uCache write hit ratio and GC cycles per bucket size (uCache Tables III, IV)",
    (SWEEP_FILE, *LINE_UP_FILES),
    SWEEP,
    "results/ucache-sweep",
    traces=lambda parser: trace_file(parser, drive_help()),
    sweeps=(
        Sweep(
            "bucket", "--buckets", "comma-separated bucket sizes (default 128KiB..4MiB)", SWEEP_FILE, system="ucache"
        ),
    ),
    declared=(Declared("ucache", "promote"),),
    # E-region and the plain disk on the same drive as uCache's, queueing as many commands.
    params=lambda args: {QUEUE_DEPTH: systems.defaults("ucache")[QUEUE_DEPTH]},
    iodepth_file=REPLAY_FILE,
    draws=True,
    claims="uCache claims on {name}",
    after=after_table,
)


def register(commands) -> None:
    SWEEP_COMMAND.register(commands)
