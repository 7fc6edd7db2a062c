"""``smrlab kv``: put, get, delete, scan, stats and bench as a user runs them, and one line with
exit code 2 for every user error."""

from __future__ import annotations

import json
import re

STORE = ["--band-size", "1MiB", "--capacity", "64MiB"]


def test_put_get_scan_delete_and_stats(cli):
    assert cli("kv", "put", "s", "apple", "red", *STORE).returncode == 0
    assert cli("kv", "put", "s", "banana", "yellow").returncode == 0, "recorded parameters need not be repeated"
    assert cli("kv", "put", "s", "cherry", "dark red").returncode == 0
    got = cli("kv", "get", "s", "banana")
    assert (got.returncode, got.stdout) == (0, "yellow\n")
    missing = cli("kv", "get", "s", "durian")
    assert missing.returncode == 1 and "not found" in missing.stderr and missing.stdout == ""
    scan = cli("kv", "scan", "s", "--start", "b")
    assert scan.stdout.splitlines() == ["banana\tyellow", "cherry\tdark red"]
    assert cli("kv", "delete", "s", "banana").returncode == 0
    assert cli("kv", "scan", "s", "--limit", "5").stdout.splitlines() == ["apple\tred", "cherry\tdark red"]
    assert cli("kv", "put", "s", "00ff", "c0ffee", "--hex").returncode == 0
    assert cli("kv", "get", "s", "00ff", "--hex").stdout == "c0ffee\n"
    stats = json.loads(cli("kv", "stats", "s", "--json", check=True).stdout)
    assert stats["band_size"] == 1 << 20 and stats["scheme"] == "soc"
    assert sum(count for count, _ in stats["levels"]) >= 1, "the logged writes were flushed at reopening"


def test_bench_reports_rates_and_amplification(cli):
    proc = cli(
        "kv",
        "bench",
        "b",
        "--count",
        "3000",
        "--value-size",
        "512",
        "--json",
        "--workloads",
        "fillseq,readseq,readrandom",
        *STORE,
        check=True,
    )
    rows = {row["workload"]: row for row in json.loads(proc.stdout)}
    assert rows["fillseq"]["ops"] == 3000 and rows["readseq"]["ops"] == 3000
    assert rows["fillseq"]["write_amplification"] > 1, "the log and the tables both hold the data"
    assert rows["readrandom"]["ops_per_s"] > 0
    timed = json.loads(
        cli(
            "kv", "bench", "t", "--count", "2000", "--disk", "desktop7200", "--inline", "--json", *STORE, check=True
        ).stdout
    )
    assert timed[0]["disk_seconds"] > 0


def test_user_errors_are_one_line_with_exit_code_2(cli, tmp_path):
    assert cli("kv", "put", "s", "k", "v", *STORE).returncode == 0
    cases = [
        (("kv", "put", "s", "k", "v", "--band-size", "2MiB"), "band_size"),
        (("kv", "get", "s", "k", "--compaction", "loc"), "compaction"),
        (("kv", "put", "s", "k" * 2000, "v"), "max_key_len"),
        (("kv", "get", "s", "zz", "--hex"), "hexadecimal"),
        (("kv", "bench", "n", "--count", "0"), "--count"),
        (("kv", "bench", "n", "--value-size", "lots"), "value-size"),
        (("kv", "bench", "n", "--workloads", "fillsideways"), "fillsideways"),
        (("kv", "put", "f/x", "k", "v"), "f"),
    ]
    (tmp_path / "f").write_text("a file where a folder should be")
    for args, needle in cases:
        proc = cli(*args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert needle in proc.stderr and "Traceback" not in proc.stderr, (args, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert cli("kv", "get", "s", "k").stdout == "v\n", "nothing stored was lost"


def test_help_explains_units(cli):
    text = cli("kv", "bench", "--help").stdout
    assert "MB/s" in text and "powers of 1024" in text and "write amplification" in text


def test_a_new_stores_geometry_is_the_cores_default_and_its_help_says_so(cli, tmp_path):
    # The defaults and limits the help states are the core's (written once, in smrdb's options);
    # a store made with none of the three options has exactly them.
    from smrlab import _core
    from smrlab.cli.kv import binary_size

    band, bands, schemes = _core.KV_DEFAULT_BAND_SIZE, _core.KV_DEFAULT_BANDS, _core.KV_SCHEMES
    assert cli("kv", "put", "d", "k", "v").returncode == 0
    stats = json.loads(cli("kv", "stats", "d", "--json", check=True).stdout)
    device = (tmp_path / "d" / "bands").stat().st_size  # every band, metadata ones too
    assert (stats["band_size"], device // stats["band_size"], stats["scheme"]) == (band, bands, schemes[0])
    for command in ("get", "ycsb"):
        text = " ".join(cli("kv", command, "--help").stdout.split())
        assert (
            f"default {binary_size(band)}" in text
            and f"default {bands} bands" in text
            and f"default {schemes[0]}" in text
        ), text
        assert f"{binary_size(_core.KV_MIN_BAND_SIZE)} to {binary_size(_core.KV_MAX_BAND_SIZE)}" in text
    small = cli("kv", "put", "tiny", "k", "v", "--band-size", str(_core.KV_MIN_BAND_SIZE - 4096))
    assert small.returncode == 2 and "band_size" in small.stderr and "64 KiB" in small.stderr


def test_stats_says_the_device_file_is_sparse_and_what_it_takes(cli, tmp_path):
    # A store of one key: its device file is as long as the whole default device (64 GiB), which
    # `ls` shows; kv stats says so and gives the bytes it takes on disk, a few blocks.
    cli("kv", "put", "one", "apple", "red", check=True)
    length = (tmp_path / "one" / "bands").stat().st_size
    on_disk = (tmp_path / "one" / "bands").stat().st_blocks * 512
    shown = " ".join(cli("kv", "stats", "one", check=True).stdout.split())
    assert length // (64 * 2**20) == 1024 and on_disk < 2**20
    assert f"Its device file is {length:,} bytes long (the whole device) but sparse" in shown
    taken = int(re.search(r"it takes ([0-9,]+) bytes on disk", shown).group(1).replace(",", ""))
    assert 0 < taken < 2**20
