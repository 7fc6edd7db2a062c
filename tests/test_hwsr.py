"""HWSR and its S-block baseline from the command line: the capacity model's stated points, the
Table 3 traces, the comparisons of Figs. 13-19 on a small Financial1, the block and region sweep,
determinism, and clear errors for bad input."""

from __future__ import annotations

import json

from conftest import assert_parameter_errors, msr_line


def tables(proc) -> list[dict]:
    return json.loads(proc.stdout)["tables"]


def by_label(table: dict) -> dict[str, dict]:
    return {row[0]: dict(zip(table["columns"], row)) for row in table["rows"]}


def test_the_capacity_model_states_the_papers_points(cli):
    curves, stated = tables(cli("hwsr", "capacity", "--json", check=True))
    assert [row[-1] for row in stated["rows"]] == [True, True]
    assert abs(stated["rows"][1][5] - 1.88) < 0.005
    for row in curves["rows"]:
        ratios = row[3:]
        assert ratios == sorted(ratios, reverse=True) and ratios[-1] > 1, row
    # Fig. 7b at S_reg = 10: the larger the overlap, the more wave-like recording saves.
    panel_b = [row[3] for row in curves["rows"] if row[0] == "Fig. 7b"]
    assert panel_b == sorted(panel_b) and len(panel_b) == 5


def test_table3_traces_match_the_table_and_financial_ones_are_spc(cli, tmp_path):
    proc = cli(
        "hwsr",
        "traces",
        "--preset",
        "financial2",
        "--preset",
        "mds1",
        "--requests",
        "50000",
        "--out",
        "tr",
        "--json",
        check=True,
    )
    rows = by_label(tables(proc)[0])
    for name, row in rows.items():
        assert row["largest deviation"] < 0.10, (name, row)
    assert rows["financial2"]["file"].endswith(".spc") and rows["mds1"]["file"].endswith(".smrbin")
    asu, lba, size, opcode, seconds = (
        (tmp_path / "tr" / rows["financial2"]["file"]).read_text().splitlines()[1].split(",")
    )
    assert opcode in ("r", "w") and int(size) % 512 == 0 and float(seconds) > 0


def compare(cli, *extra):
    """The line-up on Financial1 at 1/50 of its size, with MEM and SSD scaled alike."""
    proc = cli(
        "hwsr",
        "compare",
        "--preset",
        "financial1",
        "--requests",
        "20000",
        "--traces",
        "traces",
        "--out",
        "cmp",
        "-p",
        "mem=1280KiB",
        "-p",
        "ssd=2560KiB",
        "--json",
        *extra,
        check=True,
    )
    return by_label(tables(proc)[0])


def test_shingled_disks_without_caches_are_slower_than_a_plain_disk_and_the_ssd_feeds_hwsr_rewrites(cli, tmp_path):
    # Closed loop: without a MEM buffer every write is a rewrite, more than the disk can serve
    # at Financial1's arrival rate, and an open-loop queue would hide what one rewrite costs.
    rows = compare(
        cli, "--only", "disk,hwsr no-cache,sblock no-cache,hwsr ssd-only,sblock ssd-only", "--replay", "closed"
    )
    for system in ("hwsr no-cache", "sblock no-cache"):
        assert rows[system]["mean ms"] > 2 * rows["disk"]["mean ms"], rows[system]
    # §5.4: the SSD serves part of each segment rewrite's reads, so HWSR's writes get faster.
    assert rows["hwsr ssd-only"]["write service ms"] < rows["hwsr no-cache"]["write service ms"]
    result = json.loads(next((tmp_path / "cmp").glob("*-hwsr-ssd-only.json")).read_text())
    assert result["report"]["counters"]["rewrite_reads_ssd"] > 0
    sblock = json.loads(next((tmp_path / "cmp").glob("*-sblock-ssd-only.json")).read_text())
    assert sblock["report"]["counters"]["rewrite_reads_ssd"] == 0


def test_lwa_rewrites_fewer_segments_than_lru_block_and_caches_absorb_most_accesses(cli):
    rows = compare(cli, "--only", "hwsr,hwsr lru-block,sblock")
    assert rows["hwsr"]["segments /10k req"] < rows["hwsr lru-block"]["segments /10k req"]
    assert rows["hwsr"]["MEM hit"] + rows["hwsr"]["SSD hit"] > 0.5
    assert rows["sblock"]["segments /10k req"] > 0


def test_the_block_and_region_sweep_covers_every_pair(cli):
    proc = cli(
        "hwsr-sweep",
        "--preset",
        "wdev0",
        "--requests",
        "5000",
        "--traces",
        "traces",
        "--blocks",
        "64,256",
        "--regions",
        "8,32",
        "--json",
        check=True,
    )
    table = tables(proc)[0]
    assert table["columns"] == ["region tracks", "block 64 sectors", "block 256 sectors"]
    assert [row[0] for row in table["rows"]] == [8, 32]
    assert all(value > 0 for row in table["rows"] for value in row[1:])


def test_runs_are_deterministic(cli, small_msr_trace):
    runs = [
        json.loads(
            cli("sim", "--system", system, "--trace", small_msr_trace, "--replay", "open", "--json", check=True).stdout
        )
        for system in ("hwsr", "hwsr", "sblock", "sblock")
    ]
    assert runs[0]["report"] == runs[1]["report"] and runs[2]["report"] == runs[3]["report"]
    assert runs[0]["report"]["counters"]["host_requests"] == 2000


def test_bad_input_is_one_line_naming_the_option(cli, small_msr_trace, tmp_path):
    assert_parameter_errors(
        "hwsr",
        small_msr_trace,
        (
            ("--block=96KiB", "block"),
            ("--segments=3", "segments"),
            ("--mem=0", "mem"),
            ("--ssd=0", "ssd"),
            ("--policy=fifo", "policy"),
            ("--disk_queue_depth=0", "disk_queue_depth"),
            ("--disk_queue_depth=257", "disk_queue_depth"),
            ("--destage_low=95%", "destage_low"),
            ("--destage_high=150%", "destage_high"),
            ("--destage=never", "destage"),
        ),
    )
    assert_parameter_errors("cmr", small_msr_trace, (("--disk_queue_depth=300", "disk_queue_depth"),))
    # A system that times its own overlapped I/O cannot queue its requests at the drive.
    proc = cli("sim", "--system", "dmsmr", "--trace", small_msr_trace, "--replay", "open", "--disk_queue_depth=8")
    assert (
        proc.returncode == 2 and "'disk_queue_depth'" in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    ), proc.stderr
    assert_parameter_errors("sblock", small_msr_trace, (("--spare=0", "spare"), ("--block=1000", "block")))
    far = tmp_path / "far.csv"
    far.write_text(msr_line(0, "Write", 0, 4096) + "\n" + msr_line(10, "Write", 990 * 10**9, 4096) + "\n")
    for system in ("hwsr", "sblock"):
        proc = cli("sim", "--system", system, "--trace", far)
        assert proc.returncode == 2 and "'disk'" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
        assert len(proc.stderr.strip().splitlines()) == 1
