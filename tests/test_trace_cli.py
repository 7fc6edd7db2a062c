"""`smrlab trace stats|convert|merge`: numbers checked by hand, round trips between formats, and
one clear line with exit code 2 for every kind of bad trace."""

from __future__ import annotations

import gzip
import json

from conftest import DATA, msr_line


def stats_of(cli, path, *extra):
    return json.loads(cli("trace", "stats", path, "--json", *extra, check=True).stdout)


def test_stats_by_hand(cli, tmp_path):
    trace = tmp_path / "t.csv"
    trace.write_text(
        "\n".join(
            [
                msr_line(0, "Write", 0, 8192),  # blocks 0, 1
                msr_line(10, "Write", 4096, 4096),  # block 1 again: one update
                msr_line(20, "Read", 40960, 4096),  # block 10
                msr_line(50, "Write", 409600, 4096),  # block 100
            ]
        )
        + "\n"
    )
    s = stats_of(cli, trace)
    assert (s["requests"], s["reads"], s["writes"]) == (4, 1, 3)
    assert s["write_percent"] == 75.0
    assert s["unique_blocks_written"] == 3 and s["unique_blocks_touched"] == 4
    assert s["updates"] == 1
    assert s["written_span_bytes"] == 101 * 4096
    assert s["written_union_bytes"] == 3 * 4096
    assert s["duration_ns"] == 5000


def test_table_output_names_the_columns(cli, small_msr_trace):
    out = cli("trace", "stats", small_msr_trace, check=True).stdout
    assert "write percent" in out and "written LBA range, union" in out


def test_convert_round_trip_through_compressed_binary(cli, small_msr_trace, tmp_path):
    cli("trace", "convert", small_msr_trace, "t.smrbin.zst", check=True)
    cli("trace", "convert", "t.smrbin.zst", "t.smrbin", check=True)
    cli("trace", "convert", "t.smrbin", "back.csv.gz", check=True)
    cli("trace", "convert", "back.csv.gz", "t.blocks", "--writes-only", check=True)
    original = stats_of(cli, small_msr_trace)
    assert stats_of(cli, tmp_path / "t.smrbin.zst") == original
    # The uncompressed file's statistics are the ones it carries, not a pass over it.
    assert stats_of(cli, tmp_path / "t.smrbin") == original
    assert stats_of(cli, tmp_path / "back.csv.gz") == original
    blocks = stats_of(cli, tmp_path / "t.blocks")
    assert blocks["reads"] == 0
    assert blocks["unique_blocks_written"] == original["unique_blocks_written"]
    with gzip.open(tmp_path / "back.csv.gz", "rt") as handle:
        assert handle.readline().count(",") == 6


def test_merge_copies_lay_traces_side_by_side(cli, small_msr_trace, tmp_path):
    cli("trace", "merge", small_msr_trace, "--copies", "3", "--out", "mix.smrbin", "--seed", "4", check=True)
    one, mix = stats_of(cli, small_msr_trace), stats_of(cli, tmp_path / "mix.smrbin")
    assert mix["requests"] == 3 * one["requests"]
    assert mix["unique_blocks_written"] == 3 * one["unique_blocks_written"]
    cli("trace", "merge", small_msr_trace, "--copies", "3", "--out", "again.smrbin", "--seed", "4", check=True)
    assert (tmp_path / "mix.smrbin").read_bytes() == (tmp_path / "again.smrbin").read_bytes()


def test_generic_csv_with_a_column_mapping(cli, tmp_path):
    trace = tmp_path / "t.txt"
    trace.write_text("time;kind;sector;bytes\n0.5;W;8;4096\n1.5;R;16;512\n")
    s = stats_of(
        cli,
        trace,
        "--format",
        "csv",
        "--trace-option",
        "header=true",
        "--trace-option",
        "delimiter=;",
        "--trace-option",
        "time=0",
        "--trace-option",
        "op=1",
        "--trace-option",
        "offset=2",
        "--trace-option",
        "len=3",
        "--trace-option",
        "time_unit=s",
        "--trace-option",
        "offset_unit=sectors",
    )
    assert (s["reads"], s["writes"], s["duration_ns"]) == (1, 1, 1_000_000_000)


def one_line_error(proc, *needles):
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    for needle in needles:
        assert needle in proc.stderr, proc.stderr


def test_malformed_line_names_file_and_line(cli, tmp_path):
    trace = tmp_path / "bad.csv"
    trace.write_text(msr_line(0, "Write", 0, 4096) + "\n" + msr_line(1, "Erase", 0, 4096) + "\n")
    one_line_error(cli("trace", "stats", trace), "bad.csv:2", "Erase")
    one_line_error(cli("sim", "--system", "dmsmr", "--trace", trace), "bad.csv:2")


def test_unknown_format_and_unknown_option(cli, tmp_path):
    trace = tmp_path / "t.xyz"
    trace.write_text("1 2\n")
    one_line_error(cli("trace", "stats", trace), "t.xyz", "smrbin")
    one_line_error(cli("trace", "stats", trace, "--format", "nope"), "nope")
    one_line_error(cli("trace", "stats", trace, "--format", "blocks", "--trace-option", "speed=3"), "speed")


def test_empty_trace(cli, tmp_path):
    (tmp_path / "empty.csv").write_text("")
    one_line_error(cli("trace", "stats", tmp_path / "empty.csv"), "empty.csv", "no requests")
    one_line_error(cli("sim", "--system", "cmr", "--trace", tmp_path / "empty.csv"), "no requests")


def test_truncated_and_foreign_binary(cli, small_msr_trace, tmp_path):
    cli("trace", "convert", small_msr_trace, "t.smrbin", check=True)
    data = (tmp_path / "t.smrbin").read_bytes()
    (tmp_path / "cut.smrbin").write_bytes(data[:-5])
    one_line_error(cli("trace", "stats", tmp_path / "cut.smrbin"), "cut.smrbin", "truncated")
    (tmp_path / "junk.smrbin").write_bytes(b"\x00" * 100)
    one_line_error(cli("trace", "stats", tmp_path / "junk.smrbin"), "bad magic")
    (tmp_path / "junk.vscsi").write_bytes(b"\x07" * 100)
    one_line_error(cli("trace", "stats", tmp_path / "junk.vscsi"), "not a vscsi trace")


def test_binary_file_read_as_text(cli, tmp_path):
    (tmp_path / "bin.csv").write_bytes(bytes(range(256)) * 4)
    one_line_error(cli("trace", "stats", tmp_path / "bin.csv"), "bin.csv:")


def test_writer_refuses_what_it_cannot_write(cli, small_msr_trace):
    one_line_error(cli("trace", "convert", small_msr_trace, "out.vscsi"), "does not write")


def test_a_run_over_smrbin_sizes_from_its_stored_statistics_as_from_a_pass(cli, tmp_path):
    """The statistics an smrbin file carries size the system exactly as the first pass over the
    original trace does: same footprint, same results."""
    source = DATA / "wdev.csv.gz"
    cli("trace", "convert", source, "t.smrbin", check=True)
    results = []
    for trace in (source, tmp_path / "t.smrbin"):
        out = tmp_path / f"{trace.name}.json"
        cli("sim", "--system", "dmsmr", "--trace", trace, "--out", out, check=True)
        result = json.loads(out.read_text())
        results.append((result["trace"]["footprint"], result["report"]))
    assert results[0] == results[1]
