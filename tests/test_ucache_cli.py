"""uCache from the command line: no garbage collection when the cache holds the write footprint,
more GC cycles with larger buckets under scattered writes, and clear errors."""

from __future__ import annotations

import json

from conftest import DATA

SMALL_DRIVE = ["-p", "zone_size=64MiB"]


def test_a_cache_that_holds_the_footprint_never_collects(cli, tmp_path):
    out = cli("ucache-sweep", "--trace", DATA / "wdev.csv.gz", *SMALL_DRIVE, "-p", "conventional=512MiB",
              "--buckets", "256KiB,4MiB", "--out", "sweep", check=True).stdout
    assert "Table III" in out
    for bucket in ("256KiB", "4MiB"):
        counters = json.loads((tmp_path / "sweep" / f"wdev-ucache-{bucket}.json").read_text())["report"]["counters"]
        assert counters["gc_cycles"] == 0
        assert counters["bucket_write_hits"] > 0.9 * counters["bucket_writes"]


def test_scattered_writes_collect_more_with_larger_buckets(cli, tmp_path):
    cli("trace", "synth", "--requests", "60000", "-p", "seq=0", "-p", "hot_fraction=0", "-p", "write_ratio=0.9",
        "-p", "sizes=4k:1", "-p", "written_range=200MiB", "-p", "accessed_range=200MiB", "--out", "scatter.smrbin", check=True)
    cli("ucache-sweep", "--trace", "scatter.smrbin", *SMALL_DRIVE, "-p", "conventional=192MiB",
        "--buckets", "128KiB,1MiB,4MiB", "--out", "sweep", check=True)
    cycles = [json.loads((tmp_path / "sweep" / f"scatter-ucache-{b}.json").read_text())["report"]["counters"]["gc_cycles"]
              for b in ("128KiB", "1MiB", "4MiB")]
    assert 0 < cycles[0] < cycles[1] < cycles[2], cycles


def test_bad_ucache_parameters(cli):
    trace = DATA / "wdev.csv.gz"
    for bad, name in (("--bucket=96KiB", "bucket"), ("--bucket=512MiB", "bucket"), ("--cache=1TiB", "cache"),
                      ("--conventional=100MiB", "conventional")):
        proc = cli("sim", "--system", "ucache", "--trace", trace, bad)
        assert proc.returncode == 2, (bad, proc.stderr)
        assert name in proc.stderr and "Traceback" not in proc.stderr
