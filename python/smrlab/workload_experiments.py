"""The SMRDB thesis's experiments on arrivals and write-offloading, scaled to run in minutes
on a laptop-sized machine, each a ``smrlab workload`` command:

- ``fig4.10``: the same insert workload on SMRDB at the same average rate under constant,
  Poisson, self-similar (b = 0.65) and diurnal (Pareto alpha = 1.5) arrivals: per-request
  latency percentiles differ (the thesis's Fig. 4.10, on LevelDB).
- ``fig5.8``: random inserts under Poisson arrivals near saturation, on the offloading store
  with and without offloading: p99 insert latency and the latency distribution (Figs. 5.8/5.9).
- ``table5.1``: the eight workloads of Table 5.1, in order, on one offloading store: % of
  written bytes read and rewritten by compaction, % offloaded, % left unsorted, time
  offloading was active, NVRAM bytes written, and the NVRAM lifetime estimate of Fig. 5.3.

The latency experiments' stores run in memory on the thesis's 7200 rpm disk model taken in
real time (each disk command sleeps its modeled service time: ``smrdb::paced``), the NVRAM
device on the NVRAM profile, so compaction traffic competes with user writes for one disk head
as on the thesis's drive. ``table5.1`` runs paced too; its scans of unsorted bands (one seek per
unit per record) cannot keep up with the thesis's rates, so each workload stops issuing
requests after ``--stop-after`` seconds (twice its duration by default) and the table says how
many of its scheduled requests it never issued; ``--disk none`` runs it in memory at full
speed. Every parameter of a run is printed with its results. Wall-clock latency is what these
measure: repeated runs differ a little.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

from smrlab import _core, caveats, workload
from smrlab.arrival_names import OPTIONS, named_as
from smrlab.kv import size
from smrlab.options import bounded_number, bounded_whole, count, positive, seed, whole
from smrlab.tables import print_json, print_table

MIB = 1 << 20
# Seconds between the offloading store's background checks: below a millisecond it would spin.
INTERVAL = bounded_number(0.001, 3600.0)
# Bytes a record of these runs takes at least: its 1,000-byte value and a key of "user" and a
# digit.
RECORD_BYTES = 1005


def insert_properties(records: int) -> dict:
    """YCSB properties of a pure random-insert run (the thesis's 1 KB values)."""
    return {
        "recordcount": records,
        "readproportion": 0,
        "updateproportion": 0,
        "insertproportion": 1,
        "fieldcount": 1,
        "fieldlength": 1000,
    }


def media(args: argparse.Namespace) -> str:
    """What the stores ran on, for a caption."""
    return (
        "stores in memory at full speed" if args.disk == "none" else f"{args.disk} disk (and NVRAM) taken in real time"
    )


def open_store(args: argparse.Namespace, offload_store: bool, offload: bool = True) -> _core.WorkloadStore:
    return workload.WorkloadStore(
        offload_store=offload_store,
        disk=None if args.disk == "none" else args.disk,
        band_size=size(args.band_size, "--band-size"),
        capacity=size(args.capacity, "--capacity"),
        offload=offload,
        buffer_bands=tuple(args.buffer_bands) if offload_store else None,
        check_interval=args.check_interval if offload_store else None,
        quiet_interval=args.quiet_interval if offload_store else None,
    )


def check_inserts(args: argparse.Namespace, records: float, what: str) -> None:
    """Refuses, before a store is made, a run whose inserted records alone are more than its
    store (in memory) holds or than this machine has free."""
    workload.check_memory_store(records, RECORD_BYTES, size(args.capacity, "--capacity"), what)


# The options of these commands that give an arrival process's keywords, for messages about them
# (a rate they compute from --load is not --rate's).
ARRIVAL_OPTIONS = {keyword: OPTIONS[keyword] for keyword in ("bias", "shape", "cycle_minutes", "duration")}


def check_arrivals(args: argparse.Namespace, runs: list[tuple[str, float, dict]]) -> None:
    """Draws the arrivals of each run, ``(process, rate, extra keywords)``, before the first
    starts, so a bad --bias or --shape is refused naming it instead of after other runs."""
    with named_as(ARRIVAL_OPTIONS):
        for process, rate, extra in runs:
            workload.arrivals(process, rate, args.duration, args.seed, **extra)


def saturation(args: argparse.Namespace, offload_store: bool, offload: bool) -> float:
    """Inserts per second a fresh store sustains back to back (a constant schedule far above
    what it can do, one worker: each insert starts when the last one ends)."""
    check_inserts(args, args.records, "--records")
    check_inserts(args, 1000 + args.calibration_requests, "--calibration-requests")
    store = open_store(args, offload_store, offload)
    try:
        result = workload.run_ycsb(
            store,
            "a",
            insert_properties(1000),
            process="constant",
            rate=1e6,
            duration=args.calibration_requests / 1e6,
            threads=1,
            seed=args.seed,
            progress=True,
        )
    finally:
        store.close()
    return result["summary"]["throughput"]


def ms(ns: float) -> str:
    return f"{ns / 1e6:,.2f}"


def latency_row(label: str, summary: dict, duration_s: float) -> tuple:
    """A run's row: its latencies marked saturated when it fell behind its arrivals."""
    lat, behind = summary["latency"], caveats.fell_behind(summary, duration_s)
    return (
        label,
        lat["count"],
        f"{summary['throughput']:,.0f}",
        *(
            caveats.response(ms(lat[key]), behind)
            for key in ("mean_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns")
        ),
    )


def behind_notes(runs: dict[str, dict], duration_s: float) -> list[str]:
    """The runs that fell behind their arrivals, each with its rates."""
    lower = "--load or --rate (the calibration's rate back to back may not last)"
    return [line for label, run in runs.items() for line in caveats.behind(label, run["summary"], duration_s, lower)]


LATENCY_COLUMNS = ["run", "requests", "achieved/s", "mean (ms)", "p50", "p90", "p99", "p99.9", "max"]


def cdf_points(latencies_ns: np.ndarray) -> list[tuple[float, float]]:
    """The normalised cumulative histogram on logarithmic bins (Figs. 4.10b and 5.9): fraction
    of requests at or below each bin's upper edge, from 10 us to the largest latency."""
    if len(latencies_ns) == 0:
        return []
    edges = np.logspace(4, np.log10(max(latencies_ns.max(), 1e4)) + 1e-9, 25)
    return [(float(e), float(np.mean(latencies_ns <= e))) for e in edges]


def fig_4_10_arrivals(args: argparse.Namespace, rate: float) -> list[tuple[str, float, dict]]:
    """Fig. 4.10's four runs at ``rate``: (process, rate, extra keywords)."""
    diurnal = {"modulation": 0.9 * rate, "cycle_minutes": args.duration / 60 / 3, "shape": args.shape}
    return [
        ("constant", rate, {}),
        ("poisson", rate, {}),
        ("selfsimilar", rate, {"bias": args.bias}),
        ("diurnal", rate, diurnal),
    ]


def run_fig_4_10(args: argparse.Namespace) -> int:
    # Before the calibration, at the rate if given (else at one per second), then at the rate.
    check_arrivals(args, fig_4_10_arrivals(args, args.rate or 1.0))
    capacity = saturation(args, offload_store=False, offload=False)
    rate = args.rate or args.load * capacity
    check_inserts(args, args.records + rate * args.duration, "--rate x --duration")
    processes = fig_4_10_arrivals(args, rate)
    check_arrivals(args, processes)
    rows, out = [], {"saturation_per_s": capacity, "rate": rate, "runs": {}}
    for name, _, extra in processes:
        store = open_store(args, offload_store=False)
        try:
            result = workload.run_ycsb(
                store,
                "a",
                insert_properties(args.records),
                process=name,
                rate=rate,
                duration=args.duration,
                threads=args.threads,
                seed=args.seed,
                progress=True,
                **extra,
            )
        finally:
            store.close()
        rows.append(latency_row(name, result["summary"], args.duration))
        out["runs"][name] = {"summary": result["summary"], "arrival": extra, "cdf": cdf_points(result["latencies_ns"])}
    out["notes"] = behind_notes(out["runs"], args.duration)
    if args.json:
        print_json(out)
        return 0
    print_table(
        f"Fig. 4.10: SMRDB, random 1 KB inserts at {rate:,.0f}/s on average ({rate / capacity:.0%} of the {capacity:,.0f}/s "
        f"it sustains back to back), {args.duration:g} s per run",
        LATENCY_COLUMNS,
        rows,
        caption=f"latency from the scheduled time; {media(args)}; bands of {args.band_size}; "
        f"b = {args.bias}, diurnal modulation 0.9 x rate over three cycles, Pareto alpha {args.shape}; seed {args.seed}",
        notes=out["notes"],
    )
    return 0


def run_fig_5_8(args: argparse.Namespace) -> int:
    capacity = saturation(args, offload_store=True, offload=False)
    rate = args.rate or args.load * capacity
    check_inserts(args, args.records + rate * args.duration, "--rate x --duration")
    rows, out = [], {"saturation_per_s": capacity, "rate": rate, "runs": {}}
    for label, offload in (("without offloading", False), ("with offloading", True)):
        store = open_store(args, offload_store=True, offload=offload)
        try:
            result = workload.run_ycsb(
                store,
                "a",
                insert_properties(args.records),
                process="poisson",
                rate=rate,
                duration=args.duration,
                threads=args.threads,
                seed=args.seed,
                progress=True,
            )
            stats = json.loads(store.stats())
        finally:
            store.close()
        rows.append(
            latency_row(label, result["summary"], args.duration)
            + (f"{100 * stats['offloaded_user_bytes'] / max(1, stats['user_bytes']):.1f}", stats["compactions"])
        )
        out["runs"][label] = {"summary": result["summary"], "store": stats, "cdf": cdf_points(result["latencies_ns"])}
    out["notes"] = behind_notes(out["runs"], args.duration) + caveats.offload_notes(out["runs"])
    if args.json:
        print_json(out)
        return 0
    print_table(
        f"Figs. 5.8/5.9: offloading store, random 1 KB inserts, Poisson arrivals at {rate:,.0f}/s "
        f"({rate / capacity:.0%} of the {capacity:,.0f}/s it sustains back to back without offloading), {args.duration:g} s",
        LATENCY_COLUMNS + ["% offloaded", "compactions"],
        rows,
        caption=f"latency from the scheduled time; {media(args)}; bands of {args.band_size}; "
        f"buffer levels {args.buffer_bands}; seed {args.seed}",
        notes=out["notes"],
    )
    for label, run in out["runs"].items():
        cdf = run["cdf"]
        print(f"{label}: fraction of inserts within " + ", ".join(f"{e / 1e6:.2f} ms: {f:.4f}" for e, f in cdf[::4]))
    return 0


# Table 5.1's workloads: (name, process, average rate, modulation, pure inserts).
TABLE_5_1 = [
    ("1", "selfsimilar", 5000, None, True),
    ("2", "selfsimilar", 5000, None, True),
    ("3", "selfsimilar", 100, None, False),
    ("4", "selfsimilar", 100, None, False),
    ("5", "diurnal", 100, 90, False),
    ("6", "diurnal", 500, 490, False),
    ("7", "diurnal", 1000, 950, False),
    ("8", "diurnal", 5000, 4900, False),
]


def mixed_properties(records: int) -> dict:
    """The mixed workloads of Table 5.1: inserts and updates 30 % of the operations (15 % each,
    the thesis gives only their sum), the rest scans of 1 to 100 records."""
    return {
        "recordcount": records,
        "readproportion": 0,
        "updateproportion": 0.15,
        "insertproportion": 0.15,
        "scanproportion": 0.7,
        "maxscanlength": 100,
        "fieldcount": 1,
        "fieldlength": 1000,
    }


def by_reason(rows: list[dict]) -> dict[str, list[str]]:
    """The workloads (as ``#N``) each caveat of Table 5.1's rows applies to."""
    found: dict[str, list[str]] = {}
    for row in rows:
        for reason in row["caveats"]:
            found.setdefault(reason, []).append(f"#{row['workload']}")
    return found


def table_5_1_arrivals(args: argparse.Namespace, process: str, modulation: float | None) -> dict:
    """The arrival keywords of a Table 5.1 workload (self-similar or diurnal) beyond its process
    and rate."""
    if process == "selfsimilar":
        return {"bias": args.bias}
    return {"modulation": modulation * args.rate_scale, "cycle_minutes": args.cycle, "shape": args.shape}


def run_table_5_1(args: argparse.Namespace) -> int:
    # Every arrival may write a record, into the one store all eight workloads share.
    check_inserts(
        args,
        1 + sum(rate * args.rate_scale * args.duration for _, _, rate, _, _ in TABLE_5_1),
        "--rate-scale x --duration",
    )
    stop_after = None if args.disk == "none" else (args.stop_after or 2 * args.duration)
    check_arrivals(
        args,
        [
            (process, rate * args.rate_scale, table_5_1_arrivals(args, process, modulation))
            for _, process, rate, modulation, _ in TABLE_5_1
        ],
    )
    store = open_store(args, offload_store=True)
    rows, out = [], []
    before = json.loads(store.stats())
    inserted = 0
    try:
        for name, process, rate, modulation, inserts_only in TABLE_5_1:
            rate_here = rate * args.rate_scale
            extra = table_5_1_arrivals(args, process, modulation)
            # The first run loads one record; later ones continue the record numbers inserted so far.
            records = max(1, inserted)
            properties = insert_properties(records) if inserts_only else mixed_properties(records)
            result = workload.run_ycsb(
                store,
                "a",
                properties,
                process=process,
                rate=rate_here,
                duration=args.duration,
                threads=args.threads,
                seed=args.seed + int(name),
                load=inserted == 0,
                stop_after=stop_after,
                progress=True,
                **extra,
            )
            inserted = records + sum(lat["count"] for op, lat in result["summary"]["by_op"] if op == "insert")
            after = json.loads(store.stats())
            delta = {
                k: after[k] - before[k]
                for k in (
                    "user_bytes",
                    "compaction_bytes_read",
                    "compaction_bytes_written",
                    "offloaded_user_bytes",
                    "nvram_bytes_written",
                    "compaction_seconds",
                    "open_seconds",
                )
            }
            written = max(1, delta["user_bytes"])
            offloaded = delta["offloaded_user_bytes"] / written
            lifetime = workload.nvram_lifetime(
                after["nvram_capacity"], after["disk_capacity"], offloaded, args.write_cycles
            )
            row = {
                "workload": name,
                "process": process,
                "rate": rate_here,
                "modulation": None if modulation is None else modulation * args.rate_scale,
                "written_mb": delta["user_bytes"] / 1e6,
                "read_pct": 100 * delta["compaction_bytes_read"] / written,
                "rewritten_pct": 100 * delta["compaction_bytes_written"] / written,
                "offloaded_pct": 100 * offloaded,
                "unsorted_pct": 100 * after["unsorted_user_bytes"] / max(1, after["user_bytes"]),
                "offload_active_pct": 100 * delta["compaction_seconds"] / max(1e-9, delta["open_seconds"]),
                "nvram_mb_written": delta["nvram_bytes_written"] / 1e6,
                # JSON has no infinity: a life no offloaded write bounds is null, and says why.
                "nvram_lifetime_disk_overwrites": lifetime["disk_overwrites"] if offloaded else None,
                "requests": result["summary"]["requests"],
                "failed": result["summary"]["failed"],
                "unissued_pct": 100 * result["summary"]["unissued"] / max(1, result["arrivals"]),
                "caveats": caveats.offload_reasons(
                    delta["compaction_bytes_read"] + delta["compaction_bytes_written"], delta["offloaded_user_bytes"]
                ),
            }
            out.append(row)
            rows.append(
                (
                    name,
                    f"{process} {rate_here:g}/s" + (f" +-{row['modulation']:g}" if modulation else ""),
                    f"{row['written_mb']:,.1f}",
                    f"{row['read_pct']:,.1f}",
                    f"{row['rewritten_pct']:,.1f}",
                    f"{row['offloaded_pct']:.1f}",
                    f"{row['unsorted_pct']:.1f}",
                    f"{row['offload_active_pct']:.1f}",
                    f"{row['nvram_mb_written']:,.1f}",
                    caveats.UNBOUNDED if offloaded == 0 else f"{row['nvram_lifetime_disk_overwrites']:,.1f}",
                    f"{row['unissued_pct']:.1f}",
                )
            )
            before = after
    finally:
        store.close()
    if args.json:
        print_json(out)
        return 0
    print_table(
        "Table 5.1: compaction and offload statistics, eight workloads in order on one offloading store",
        [
            "#",
            "arrivals",
            "written (MB)",
            "% read",
            "% rewritten",
            "% offloaded",
            "% unsorted",
            "% time offloading",
            "NVRAM MB written",
            f"NVRAM life (disk overwrites, {args.write_cycles} cycles)",
            "% not issued",
        ],
        rows,
        caption=f"percentages of the bytes each workload wrote; {args.duration:g} s per workload, rates x {args.rate_scale:g}, diurnal "
        f"cycles of {args.cycle:g} min, Pareto alpha {args.shape}, b = {args.bias}; 1 and 2 pure inserts, the rest 15 % inserts, "
        f"15 % updates, 70 % scans of 1-100 records; {media(args)}; bands of {args.band_size}, "
        f"buffer levels {args.buffer_bands}; quiet after {args.quiet_interval:g} s"
        + ("" if stop_after is None else f"; each workload stopped issuing after {stop_after:g} s (% not issued)"),
        notes=caveats.group(by_reason(out)),
    )
    return 0


def add_common(parser: argparse.ArgumentParser, duration: float, band_size: str, disk: str = "desktop7200") -> None:
    parser.add_argument(
        "--duration", type=positive, default=duration, help=f"seconds of arrivals per run (default {duration:g})"
    )
    parser.add_argument(
        "--disk",
        default=disk,
        help=f"HDD preset taken in real time (e.g. desktop7200, the thesis's 7200 rpm disk), or none: memory at full speed (default {disk})",
    )
    parser.add_argument(
        "--band-size",
        default=band_size,
        help=f"bytes per band, 64KiB to 1GiB (default {band_size}: bands scaled down with the runs)",
    )
    parser.add_argument(
        "--capacity",
        default="8GiB",
        help="bytes of the disk, at most 2^20 bands, fewer when bands are small (one band of metadata describes "
        "them all: the default 8GiB fits bands of 2MiB, not 1MiB); held in memory as written (default 8GiB)",
    )
    parser.add_argument(
        "--threads", type=bounded_whole(1, workload.MAX_THREADS), default=16, help="executor workers (default 16)"
    )
    parser.add_argument("--seed", type=seed, default=1, help="seed (default 1)")
    parser.add_argument("--json", action="store_true", help="print JSON (with the latency distributions)")


def add_offload_store(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--buffer-bands",
        type=whole,
        nargs=3,
        default=workload.BUFFER_BANDS,
        metavar=("L0", "L1", "L2"),
        help=f"bands of the three buffer levels (default {' '.join(map(str, workload.BUFFER_BANDS))}, the thesis's)",
    )
    parser.add_argument(
        "--check-interval",
        type=INTERVAL,
        default=0.5,
        help="seconds between the periodic checker's looks, 0.001 to 3600 (default 0.5)",
    )
    parser.add_argument(
        "--quiet-interval",
        type=INTERVAL,
        default=2.0,
        help="seconds without a size-triggered compaction that count as quiet, 0.001 to 3600 (default 2)",
    )


def add_saturation(parser: argparse.ArgumentParser, load: float) -> None:
    parser.add_argument(
        "--rate", type=positive, help="average requests per second (default: --load x the back-to-back rate)"
    )
    parser.add_argument(
        "--load",
        type=positive,
        default=load,
        help=f"rate as a fraction of the back-to-back insert rate, measured first (default {load:g})",
    )
    parser.add_argument(
        "--records",
        type=count,
        default=1000,
        help="records loaded first (default 1000); with the run's inserts, 1 KB each, they must fit the store's --capacity and this machine's free memory",
    )
    parser.add_argument(
        "--calibration-requests",
        type=count,
        default=200_000,
        help="inserts of the back-to-back measurement, enough for compactions to run (default 200000); 1 KB each, they must fit as --records do",
    )


def register(group) -> None:
    fig410 = group.add(
        "fig4.10",
        help="SMRDB's latency under constant, Poisson, self-similar and diurnal arrivals at one average rate (Fig. 4.10)",
    )
    add_common(fig410, duration=20, band_size="4MiB")
    add_saturation(fig410, load=0.8)
    fig410.add_argument("--bias", type=positive, default=0.65, help="b-model bias (default 0.65)")
    fig410.add_argument("--shape", type=positive, default=1.5, help="diurnal Pareto shape (default 1.5)")
    fig410.set_defaults(func=run_fig_4_10)

    fig58 = group.add(
        "fig5.8",
        help="p99 insert latency with and without write-offloading, Poisson arrivals near saturation (Figs. 5.8/5.9)",
    )
    add_common(fig58, duration=20, band_size="4MiB")
    add_offload_store(fig58)
    add_saturation(fig58, load=0.9)
    fig58.set_defaults(func=run_fig_5_8)

    table = group.add(
        "table5.1",
        help="the eight workloads of Table 5.1 in order on one offloading store: compaction and offload statistics",
    )
    add_common(table, duration=20, band_size="4MiB")
    add_offload_store(table)
    table.add_argument(
        "--rate-scale", type=positive, default=1.0, help="multiply Table 5.1's rates by this (default 1)"
    )
    table.add_argument(
        "--cycle",
        type=positive,
        default=0.25,
        help="diurnal cycle length, minutes (default 0.25: the thesis's 15 minutes scaled 60 times)",
    )
    table.add_argument("--shape", type=positive, default=1.5, help="diurnal Pareto shape (default 1.5, the thesis's)")
    table.add_argument("--bias", type=positive, default=0.65, help="b-model bias (default 0.65, the thesis's)")
    table.add_argument(
        "--stop-after",
        type=positive,
        help="seconds after which a workload issues no more requests, the rest counted as not issued (default: twice --duration; not with --disk none)",
    )
    table.add_argument(
        "--write-cycles",
        type=count,
        default=3000,
        help="NVRAM write cycles before wear-out, for the lifetime (default 3000, Fig. 5.3's)",
    )
    table.set_defaults(func=run_table_5_1)
