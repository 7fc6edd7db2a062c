"""What a run says about itself: whether it exercised what it measures, the parameters and
format it actually used, and help that names units and formats."""

from __future__ import annotations

import json

from conftest import DATA


def test_a_buffer_that_holds_every_write_makes_a_run_not_informative(cli, tmp_path):
    trace = DATA / "wdev.csv.gz"
    proc = cli("sim", "--system", "dmsmr", "--trace", trace, "-p", "buffer=100%", "--out", "big.json")
    assert proc.returncode == 0, proc.stderr
    said = " ".join(proc.stdout.split())  # under the run's table, its words unbroken
    assert "not informative" in said and "no band was cleaned" in said
    big = json.loads((tmp_path / "big.json").read_text())
    assert big["informative"] is False and any("no band was cleaned" in r for r in big["not_informative"])
    cli("sim", "--system", "dmsmr", "--trace", trace, "--out", "default.json", check=True)
    default = json.loads((tmp_path / "default.json").read_text())
    assert default["informative"] is True and default["not_informative"] == []


def test_the_estimate_sizes_its_queue_from_the_working_set_and_the_emulator_from_the_written_range(cli, tmp_path):
    # §III-A: "a virtual FIFO queue whose size is 1/256 of the total working set size", the
    # blocks the analysis's writes touch; §V-A: the emulator's buffer is "1/256 ... of the
    # written LBA range", the capacity of the bands written (Table I).
    trace = DATA / "mds.csv.gz"
    estimate = json.loads(cli("trace", "smr-estimate", trace, "--json", check=True).stdout)
    cli("sim", "--system", "dmsmr", "--trace", trace, "--out", "smr.json", check=True)
    gauges = dict(json.loads((tmp_path / "smr.json").read_text())["report"]["gauges"])
    assert estimate["written_range_bytes"] > estimate["written_bytes"] > 0
    assert estimate["buffer_bytes"] == estimate["written_bytes"] // 256 // 4096 * 4096
    assert gauges["buffer_blocks"] * 4096 == estimate["written_range_bytes"] // 256 // 4096 * 4096


def test_results_record_the_format_and_every_parameter_used(cli, tmp_path):
    cli("sim", "--system", "pore", "--trace", DATA / "ts.csv.gz", "--out", "r.json", check=True)
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["trace"]["format"] == "msr", "detected from .csv"
    params = result["config"]["params"]
    for key, value in {
        "policy": "pore",
        "cache": "2%",
        "band_min": "17MB",
        "buffer": "1/256",
        "disk": "st5000as0011",
        "disk_cache": "preset",
    }.items():
        assert params[key] == value, (key, params)


def test_e_region_uses_the_cache_given_to_the_ucache_sweep(cli, tmp_path):
    cli(
        "ucache-sweep",
        "--trace",
        DATA / "vm-local.csv.gz",
        "-p",
        "zone_size=64MiB",
        "-p",
        "conventional=512MiB",
        "-p",
        "cache=128MiB",
        "--buckets",
        "256KiB",
        "--out",
        "sweep",
        check=True,
    )
    for name in ("ucache-256KiB", "eregion"):
        result = json.loads((tmp_path / "sweep" / f"vm-local-{name}.json").read_text())
        assert result["config"]["params"]["cache"] == "128MiB", name


def test_seeks_are_counted_on_disks_only(cli, tmp_path):
    cli("sim", "--system", "pore", "--trace", DATA / "wdev.csv.gz", "--out", "r.json", check=True)
    channels = {c["channel"]: c for c in json.loads((tmp_path / "r.json").read_text())["report"]["channels"]}
    assert channels["ssd"]["seeks"] == 0 and channels["ssd"]["reads"] > 0
    assert channels["band"]["seeks"] > 0


def test_help_names_formats_and_what_write_only_means(cli):
    sim = " ".join(cli("sim", "--help", "--all", check=True).stdout.split())
    assert "msr, spc, blkparse, vscsi, blocks, csv, smrbin" in sim
    caches = cli("compare-caches", "--help", check=True).stdout
    assert "served from it" in caches and "%%" not in caches


def test_numeric_op_codes_of_a_generic_csv_must_be_named(cli, tmp_path):
    """MSN and UMass write 1 for a read: a numeric op column has no default meaning."""
    trace = tmp_path / "t.txt"
    trace.write_text(
        "".join(f"{i},1,{i * 4096},4096\n" for i in range(10)) + "".join(f"{10 + i},0,0,4096\n" for i in range(2))
    )
    options = [
        "--format",
        "csv",
        "--trace-option",
        "time=0",
        "--trace-option",
        "op=1",
        "--trace-option",
        "offset=2",
        "--trace-option",
        "len=3",
    ]
    proc = cli("trace", "stats", trace, *options)
    assert proc.returncode == 2 and "read=1" in proc.stderr, proc.stderr
    stats = json.loads(
        cli(
            "trace",
            "stats",
            trace,
            *options,
            "--trace-option",
            "read=1",
            "--trace-option",
            "write=0",
            "--json",
            check=True,
        ).stdout
    )
    assert (stats["reads"], stats["writes"]) == (10, 2)


def test_timestamps_that_go_backwards_are_counted_and_said_once(cli, tmp_path):
    from conftest import msr_line

    ticks = [0, 10, 5, 20, 15, 30]
    trace = tmp_path / "t.csv"
    trace.write_text("".join(msr_line(t, "Write", i * 4096, 4096) + "\n" for i, t in enumerate(ticks)))
    proc = cli("sim", "--system", "cmr", "--trace", trace, "--replay", "open", "--out", "r.json")
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.count("timestamps earlier") == 1 and "2 requests" in proc.stderr, proc.stderr
    assert json.loads((tmp_path / "r.json").read_text())["report"]["time_regressions"] == 2
    stats = json.loads(cli("trace", "stats", trace, "--json", check=True).stdout)
    assert stats["time_regressions"] == 2
