"""uCache from the command line, on the bundled CloudPhysics-like traces: no garbage collection
when the cache holds the write footprint, fewer collections than the E-region baseline under
spatially local writes, more collections and fewer hits with larger buckets under scattered
writes, and clear errors."""

from __future__ import annotations

import csv
import json

import pyarrow.parquet as pq
from conftest import DATA, assert_parameter_errors, msr_line

SMALL_DRIVE = ["-p", "zone_size=64MiB"]
# What a sweep counts (hits, collections, the log's live fraction) does not depend on the
# replay, which is cheapest one command at a time.
ONE_AT_A_TIME = ["--iodepth", "1"]


def test_a_cache_that_holds_the_footprint_never_collects(cli, tmp_path):
    out = cli(
        "ucache-sweep",
        "--trace",
        DATA / "wdev.csv.gz",
        *SMALL_DRIVE,
        "-p",
        "conventional=512MiB",
        "--buckets",
        "256KiB,4MiB",
        *ONE_AT_A_TIME,
        "--out",
        "sweep",
        check=True,
    ).stdout
    assert "Table III" in out
    for bucket in ("256KiB", "4MiB"):
        counters = json.loads((tmp_path / "sweep" / f"wdev-ucache-{bucket}.json").read_text())["report"]["counters"]
        assert counters["gc_cycles"] == 0
        assert counters["bucket_write_hits"] > 0.9 * counters["bucket_writes"]
    # The runs are the cells of one experiment, stored with its table: each bucket, E-region, cmr.
    [table] = (tmp_path / "sweep").rglob("*.parquet")
    assert pq.read_table(table).column("label").to_pylist() == ["ucache", "ucache", "eregion", "cmr"]


def test_scattered_writes_collect_more_and_hit_less_with_larger_buckets(cli, tmp_path):
    """The paper's case 3 (w37): hot blocks scattered thinly, so larger buckets fill the cache
    with data that is never written."""
    cli(
        "ucache-sweep",
        "--trace",
        DATA / "vm-scatter.csv.gz",
        *SMALL_DRIVE,
        "-p",
        "conventional=192MiB",
        "--buckets",
        "128KiB,1MiB,4MiB",
        *ONE_AT_A_TIME,
        "--out",
        "sweep",
        check=True,
    )
    results = [
        json.loads((tmp_path / "sweep" / f"vm-scatter-ucache-{b}.json").read_text()) for b in ("128KiB", "1MiB", "4MiB")
    ]
    cycles = [r["report"]["counters"]["gc_cycles"] for r in results]
    hit_ratio = [r["derived"]["bucket_write_hit_ratio"] for r in results]
    assert 0 < cycles[0] < cycles[1] < cycles[2], cycles
    assert hit_ratio[0] > hit_ratio[1] > hit_ratio[2], hit_ratio


def test_bad_ucache_parameters(cli):
    assert_parameter_errors(
        "ucache",
        DATA / "wdev.csv.gz",
        (
            ("--bucket=96KiB", "bucket"),
            ("--bucket=512MiB", "bucket"),
            ("--cache=1TiB", "cache"),
            ("--conventional=100MiB", "conventional"),
        ),
    )


def sweep(cli, tmp_path, conventional, buckets, replay=ONE_AT_A_TIME):
    """ucache-sweep on the bundled spatially local, write-heavy trace (``replay``: its replay
    options; none, the sweep's default)."""
    cli(
        "ucache-sweep",
        "--trace",
        DATA / "vm-local.csv.gz",
        *SMALL_DRIVE,
        "-p",
        f"conventional={conventional}",
        "--buckets",
        ",".join(buckets),
        *replay,
        "--out",
        conventional,
        check=True,
    )
    load = lambda name: json.loads((tmp_path / conventional / f"vm-local-{name}.json").read_text())
    return {b: load(f"ucache-{b}") for b in buckets}, load("eregion")


def test_ucache_avoids_the_collections_eregion_needs(cli, tmp_path):
    """With a cache that holds the footprint at 256 KiB buckets uCache never collects while the
    E-region log still must; with a smaller cache both collect, uCache less often."""
    gc = lambda result: result["report"]["counters"]["gc_cycles"]
    ucache, eregion = sweep(cli, tmp_path, "512MiB", ["256KiB"])
    assert gc(ucache["256KiB"]) == 0 < gc(eregion)
    ucache, eregion = sweep(cli, tmp_path, "192MiB", ["256KiB"])
    assert 0 < gc(ucache["256KiB"]) < gc(eregion)


def test_a_trace_beyond_the_drive_is_refused(cli, tmp_path):
    trace = tmp_path / "far.csv"
    trace.write_text(msr_line(0, "Write", 0, 4096) + "\n" + msr_line(10, "Write", 10 * 10**12, 4096) + "\n")
    for system in ("ucache", "eregion", "zonemap"):
        proc = cli("sim", "--system", system, "--trace", trace)
        assert proc.returncode == 2, (system, proc.stderr)
        assert "'disk'" in proc.stderr and "bytes" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_sweep_traces_the_eregion_live_fraction(cli, tmp_path):
    """uCache Fig. 1: overwrites leave dead space in the log, so its live fraction stays below
    one while the log wraps; the curve is written as CSV beside the result."""
    _, eregion = sweep(cli, tmp_path, "192MiB", ["256KiB"])
    rows = list(csv.DictReader((tmp_path / "192MiB" / "vm-local-eregion-live.csv").open()))
    assert len(rows) >= 200
    assert [int(r["request"]) for r in rows] == sorted(int(r["request"]) for r in rows)
    live = [float(r["log_live_fraction"]) for r in rows]
    assert all(0 <= f <= 1 for f in live)
    derived = eregion["derived"]
    assert abs(derived["log_live_fraction_max"] - max(live)) < 1e-6
    assert 0 < derived["log_live_fraction_mean"] < derived["log_live_fraction_max"] < 1


def test_locality_measures(cli):
    local = json.loads(cli("trace", "locality", DATA / "vm-local.csv.gz", "--json", check=True).stdout)
    scatter = json.loads(cli("trace", "locality", DATA / "vm-scatter.csv.gz", "--json", check=True).stdout)
    footprints = [f for _, f in local["footprint"]]
    assert footprints == sorted(footprints), "footprint grows with bucket size"
    assert local["near_previous"] > 2 * scatter["near_previous"]
    cdf, scatter_cdf = dict(local["stack_distance_cdf"]), dict(scatter["stack_distance_cdf"])
    assert cdf[0] > scatter_cdf[0], "sequential runs rewrite the same 4 MiB region"
    # The local trace comes back to its 4 MiB regions sooner at every distance.
    assert all(cdf[d] > scatter_cdf[d] for d in set(cdf) & set(scatter_cdf) if scatter_cdf[d] < 1), (cdf, scatter_cdf)


def test_sweep_replays_as_the_paper_did_and_reports_amplification_and_promotion_time(cli, tmp_path):
    """The sweep replays each run as the paper's fio replayed its translated traces (§IV:
    iodepth 31): every run says so, and the plain disk queues as the layers' drive does. A
    promotion's time then includes its wait among the commands the drive holds, so it is longer
    than the same promotions one at a time, and the whole replay is shorter."""
    ucache, eregion = sweep(cli, tmp_path, "192MiB", ["256KiB"], replay=[])
    queued = ucache["256KiB"]
    assert queued["report"]["iodepth"] == eregion["report"]["iodepth"] == 31
    [table] = (tmp_path / "192MiB").rglob("*.parquet")
    depths = dict(zip(*pq.read_table(table).select(["label", "disk_queue_depth"]).to_pydict().values()))
    assert depths == {"ucache": "31", "eregion": "31", "cmr": "31"}, depths
    derived = queued["derived"]
    assert derived["io_amplification_bytes"] > 1 and derived["io_amplification_ops"] > 1
    assert eregion["derived"]["io_amplification_bytes"] > 1
    cli(
        "sim",
        "--system",
        "ucache",
        "--trace",
        DATA / "vm-local.csv.gz",
        *SMALL_DRIVE,
        "-p",
        "conventional=192MiB",
        "--iodepth",
        "1",
        "--out",
        "serial.json",
        check=True,
    )
    serial = json.loads((tmp_path / "serial.json").read_text())
    assert serial["report"]["iodepth"] == 1
    # One at a time, a copy promotion is its two media accesses: a 256 KiB write (over 1 ms at
    # any preset's media rate of at most 250 MB/s) after a read, well under 100 ms.
    assert 1e6 < serial["derived"]["mean_promotion_ns"] < 100e6, serial["derived"]["mean_promotion_ns"]
    assert derived["mean_promotion_ns"] > serial["derived"]["mean_promotion_ns"]
    assert queued["derived"]["makespan_s"] < serial["derived"]["makespan_s"]


def test_promotion_by_map_reads_less_and_seeks_differently(cli, tmp_path):
    results = {}
    for promote in ("copy", "map"):
        out = tmp_path / f"{promote}.json"
        cli(
            "sim",
            "--system",
            "ucache",
            "--trace",
            DATA / "vm-local.csv.gz",
            "--zone-size",
            "64MiB",
            "--conventional",
            "512MiB",
            "--promote",
            promote,
            "--out",
            out,
            check=True,
        )
        results[promote] = json.loads(out.read_text())
    copy, by_map = results["copy"], results["map"]
    assert (
        copy["report"]["counters"]["promotion_bytes_read"] > 0 == by_map["report"]["counters"]["promotion_bytes_read"]
    )
    assert copy["derived"]["io_amplification_bytes"] > by_map["derived"]["io_amplification_bytes"]
    assert "mean_promotion_ns" in copy["derived"] and "mean_promotion_ns" not in by_map["derived"]
    assert copy["derived"]["seeks"] != by_map["derived"]["seeks"]
