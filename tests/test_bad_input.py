"""Issue 19's examples, and issue 42's on the newer surfaces (figure commands, experiment files,
reports, the key-value store, arrivals), each through the real command line: a bad trace,
parameter, option or output path gives one line naming what and where and exit code 2 (Ctrl-C:
exit 130), never a crash, a hang, a partial or destroyed file, or a silently wrong number.

Generated hostile values are in ``test_hostile_options.py`` (options), ``test_hostile_surfaces.py``
(the newer commands, experiment files, results tables) and the Rust property tests (trace
records, system parameters, the store's options, workload parameters).
"""

from __future__ import annotations

import contextlib
import functools
import gzip
import json
import os
import resource
import signal
import struct
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import msr_line

TOP = 2**64 - 1
# The address space a command that must not size tables from the address space may use.
ADDRESS_SPACE_LIMIT = 4 << 30


def one_line_error(proc, *needles: str) -> str:
    """The single line a failed command printed, after checking exit code 2 and ``needles``."""
    assert proc.returncode == 2, (proc.returncode, proc.stdout[-500:], proc.stderr[-2000:])
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr[-2000:]
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    assert len(lines[0]) < 600 and "\x00" not in lines[0] and "\x07" not in lines[0], lines[0][:600]
    return lines[0]


def write_msr(path: Path, rows: list[tuple[int, str, int, int]]) -> Path:
    path.write_text("".join(msr_line(tick, op, offset, size) + "\n" for tick, op, offset, size in rows))
    return path


@pytest.fixture
def bounded_cli(tmp_path):
    """Like ``cli``, with the process's address space limited to ``ADDRESS_SPACE_LIMIT``: a
    table sized from the address space instead of the trace fails its allocation."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (ADDRESS_SPACE_LIMIT, ADDRESS_SPACE_LIMIT))

    def run(*args: str, check: bool = False) -> subprocess.CompletedProcess:
        proc = subprocess.run(
            [sys.executable, "-m", "smrlab", *map(str, args)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
            preexec_fn=limit,
        )
        assert not check or proc.returncode == 0, (args, proc.stderr[-2000:])
        return proc

    return run


@pytest.fixture
def msr(tmp_path) -> Path:
    """A valid 200-request MSR trace."""
    return write_msr(
        tmp_path / "ok.csv", [(i * 1000, "Write" if i % 3 else "Read", i * 8192, 4096) for i in range(200)]
    )


def vscsi_v1(cmd: int, length: int, lbn: int, ts: int) -> bytes:
    return struct.pack("<IIIHHQQ", 7, length, 1, cmd, 0x0100, lbn, ts)


# --- Ranges that cannot be byte ranges ---------------------------------------------------------


@pytest.mark.parametrize(
    "name,text,fmt,says",
    [
        ("far.csv", msr_line(0, "Write", TOP, 4096), "msr", "2^63"),
        ("huge.csv", msr_line(0, "Write", 0, TOP), "msr", "longer than"),
        ("far.spc", "0,36028797018963967,8192,w,0.0", "spc", "2^63"),
        ("far.blkparse", "  8,0    0        6     0.1   697  D   W 18446744073709551615 + 8 [x]", "blkparse", "sector"),
    ],
)
def test_text_records_past_the_address_space_are_refused_by_line(cli, tmp_path, name, text, fmt, says):
    path = tmp_path / name
    path.write_text(msr_line(0, "Read", 0, 4096) + "\n" + text + "\n" if fmt == "msr" else text + "\n")
    for command in (
        ("trace", "stats", path, "--format", fmt),
        ("sim", "--system", "dmsmr", "--trace", path, "--format", fmt),
    ):
        one_line_error(cli(*command), says, str(path))


def test_a_vscsi_record_near_2_55_sectors_is_refused_and_one_record_is_a_trace(cli, tmp_path):
    far = tmp_path / "far.vscsi"
    far.write_bytes(vscsi_v1(0x2A, 4096, 8, 5) + vscsi_v1(0x2A, 4096, 2**55 - 1, 6))
    one_line_error(cli("trace", "stats", far), "at byte 32", "2^63")
    one = tmp_path / "one.vscsi"
    one.write_bytes(vscsi_v1(0x2A, 4096, 8, 5))
    stats = json.loads(cli("trace", "stats", one, "--json", check=True).stdout)
    assert stats["requests"] == 1 and stats["bytes_written"] == 4096


def test_an_offset_far_up_is_refused_before_any_table_is_sized(bounded_cli, tmp_path):
    far = write_msr(tmp_path / "far.csv", [(0, "Write", 2**60, 4096)])
    one_line_error(bounded_cli("sim", "--system", "dmsmr", "--trace", far), "'disk'", "holds")
    one_line_error(bounded_cli("trace", "smr-estimate", far), "'band_min'", "bands")


def test_an_endless_line_is_an_error_at_line_one(cli):
    one_line_error(cli("trace", "stats", "/dev/zero", "--format", "msr"), "/dev/zero:1:", "longer than 65536 bytes")


# --- Fields, line ends and echoes ----------------------------------------------------------------


@pytest.mark.parametrize(
    "line,fmt,says",
    [
        ("128166372003061629,h,0,Write,0,4096", "msr", "missing field ResponseTime"),
        ("128166372003061629,h,0,Write,0,4096,1,x,y", "msr", "more than 7 fields"),
        ("0,1,512,r,0.1,7", "spc", "found 6"),
    ],
)
def test_lines_with_the_wrong_number_of_fields_are_refused(cli, tmp_path, line, fmt, says):
    path = tmp_path / "t.txt"
    path.write_text(line + "\n")
    one_line_error(cli("trace", "stats", path, "--format", fmt), ":1:", says)


def test_carriage_return_line_ends_are_not_read_as_one_line(cli, tmp_path):
    path = tmp_path / "mac.csv"
    path.write_text("\r".join(msr_line(i, "Write", i * 4096, 4096) for i in range(3)) + "\r")
    one_line_error(cli("trace", "stats", path), ":1:", "carriage return")


def test_a_huge_bad_field_is_quoted_short_and_control_bytes_are_escaped(cli, tmp_path):
    path = tmp_path / "big.csv"
    path.write_bytes(b"1,h,0,\x00\x07" + b"W" * 60_000 + b",0,4096,1\n")
    line = one_line_error(cli("trace", "stats", path), ":1:", "Type")
    assert "\\x00\\x07" in line


def test_a_folder_or_device_given_as_a_trace_is_named_as_such(cli, tmp_path):
    one_line_error(cli("trace", "stats", tmp_path, "--format", "smrbin"), str(tmp_path), "is a folder")
    one_line_error(cli("trace", "stats", "/dev/null", "--format", "smrbin"), "/dev/null", "not an smrbin trace")


# --- Parameters and options ----------------------------------------------------------------------


@pytest.mark.parametrize(
    "system,param,says",
    [
        ("dmsmr", "band_size=1.5", "whole number of bytes"),
        ("cache", "zone=1.5", "whole number of bytes"),
        ("ucache", "zone_size=1.5", "whole number of bytes"),
        ("ucache", "zone_size=4096", "choose a larger one"),
        ("dmsmr", "buffer=150%", "more than the whole"),
        ("dmsmr", "buffer=1TiB", "more than the whole"),
    ],
)
def test_parameters_follow_one_rule_per_kind(bounded_cli, msr, system, param, says):
    one_line_error(
        bounded_cli("sim", "--system", system, "--trace", msr, "-p", param), f"'{param.split('=')[0]}'", says
    )


def test_estimate_buffer_past_the_whole_and_synth_huge_tables_are_refused(bounded_cli, msr, tmp_path):
    one_line_error(bounded_cli("trace", "smr-estimate", msr, "-p", "buffer=1e30/1"), "'buffer'", "more than the whole")
    one_line_error(
        bounded_cli(
            "trace", "synth", "--requests", "1000", "-p", "hot_regions=99999999999", "--out", tmp_path / "s.csv"
        ),
        "'hot_regions'",
    )
    assert not (tmp_path / "s.csv").exists()


def test_an_option_and_a_parameter_for_the_same_key_are_refused(cli, tmp_path):
    one_line_error(
        cli("trace", "synth", "--requests", "1000", "-p", "requests=abc", "--stats"), "'requests'", "give it once"
    )


@pytest.mark.parametrize(
    "option,value,says",
    [
        ("--warmup-seconds", "1e300", "--warmup-seconds"),
        ("--series-interval", "1e300", "--series-interval"),
        ("--seed", "-1", "--seed"),
        ("--iolog-max-io", "1", "'iolog_max_io'"),
    ],
)
def test_out_of_range_options_are_named(cli, msr, option, value, says):
    line = one_line_error(cli("sim", "--system", "cmr", "--trace", msr, option, value), says)
    assert "run spec" not in line and "OverflowError" not in line


def test_a_series_interval_below_a_nanosecond_is_refused(cli, msr):
    one_line_error(
        cli("sim", "--system", "cmr", "--trace", msr, "--series-interval", "1e-12"),
        "'series_interval_seconds'",
        "nanosecond",
    )


@pytest.mark.parametrize("speedup", ["0", "-1", "inf", "nan", "2"])
def test_speedup_is_refused_without_the_open_loop_or_when_not_positive(cli, msr, speedup):
    one_line_error(cli("sim", "--system", "cmr", "--trace", msr, "--speedup", speedup), "speedup")


def test_a_tiny_speedup_is_refused_instead_of_wrapping_the_clock(cli, tmp_path):
    day = 864_000_000_000  # 100 ns ticks
    trace = write_msr(tmp_path / "day.csv", [(i * day // 10, "Write", i * 4096, 4096) for i in range(11)])
    one_line_error(
        cli("sim", "--system", "cmr", "--trace", trace, "--replay", "open", "--speedup", "1e-9"), "'speedup'", "2^63"
    )


def test_a_warmup_longer_than_the_trace_says_nothing_was_measured(cli, msr):
    one_line_error(cli("sim", "--system", "cmr", "--trace", msr, "--warmup-requests", "500"), "nothing was measured")
    one_line_error(cli("sim", "--system", "cmr", "--trace", msr, "--warmup-seconds", "100000"), "nothing was measured")


def test_response_times_past_an_hour_are_not_clipped(cli, tmp_path):
    gib = 2**30
    trace = tmp_path / "long.csv"
    trace.write_text("".join(f"0,W,{i * gib},{gib}\n" for i in range(1500)))
    proc = cli("sim", "--system", "cmr", "--trace", trace, "--format", "csv", "--replay", "open", "--json", check=True)
    response = json.loads(proc.stdout)["report"]["write"]["response"]
    assert response["mean_ns"] > 3600e9
    assert abs(response["p50_ns"] - response["mean_ns"]) / response["mean_ns"] < 0.05, response


def test_merged_copies_never_overlap_or_wrap(cli, tmp_path):
    high = write_msr(tmp_path / "high.csv", [(0, "Write", 2**62, 4096), (1, "Write", 0, 4096)])
    out = tmp_path / "mix.csv"
    one_line_error(cli("trace", "merge", high, "--copies", "2", "--out", out), "2^63")
    assert not out.exists()
    low = write_msr(tmp_path / "low.csv", [(0, "Write", 2**40, 4096), (1, "Write", 0, 4096)])
    cli("trace", "merge", low, "--copies", "3", "--out", out, check=True)
    offsets = sorted(int(line.split(",")[4]) for line in out.read_text().splitlines())
    assert len(set(offsets)) == 6 and offsets[2] > 2**40, offsets


# --- Files ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("suffix", [".smrbin", ".csv"])
def test_an_output_that_is_an_input_is_refused_and_left_whole(cli, msr, tmp_path, suffix):
    source = tmp_path / f"x{suffix}"
    cli("trace", "convert", msr, source, check=True)
    before = source.read_bytes()
    one_line_error(cli("trace", "convert", source, source), str(source), "is also an input")
    other = tmp_path / f"y{suffix}"
    cli("trace", "convert", msr, other, check=True)
    one_line_error(cli("trace", "merge", source, other, "--out", source), "is also an input")
    assert source.read_bytes() == before


def test_a_failed_convert_leaves_no_partial_file_and_destroys_none(cli, msr, tmp_path):
    whole = gzip.compress(msr.read_bytes() * 50)
    truncated = tmp_path / "cut.csv.gz"
    truncated.write_bytes(whole[: len(whole) // 2])
    out = tmp_path / "out.smrbin"
    one_line_error(cli("trace", "convert", truncated, out))
    assert not out.exists() and not list(tmp_path.glob(".smrlab-*"))
    good = tmp_path / "good.smrbin"
    cli("trace", "convert", msr, good, check=True)
    before = good.read_bytes()
    one_line_error(cli("trace", "convert", truncated, good))
    assert good.read_bytes() == before


def test_a_failed_sim_leaves_no_iolog(cli, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join(msr_line(i, "Write", i * 4096, 4096) for i in range(100)) + "\nnot a line\n")
    iolog = tmp_path / "io.log"
    one_line_error(cli("sim", "--system", "cmr", "--trace", bad, "--iolog", iolog), ":101:")
    assert not iolog.exists() and not list(tmp_path.glob(".smrlab-*"))


def test_bad_output_paths_are_one_line_naming_them(cli, msr, tmp_path):
    folder = tmp_path / "folder"
    folder.mkdir()
    plain = tmp_path / "plain.txt"
    plain.write_text("x")
    for out in (folder, plain / "under.csv", Path("/dev/full")):
        one_line_error(cli("trace", "convert", msr, out), str(out))
        one_line_error(cli("sim", "--system", "cmr", "--trace", msr, "--out", out), str(out))
    assert plain.read_text() == "x"


# --- Ctrl-C --------------------------------------------------------------------------------------


def cpu_seconds(pid: int) -> float:
    """CPU time process ``pid`` has used (user + system), from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


# The two ways to start the command line: the installed ``smrlab`` script and ``python -m``.
LAUNCHERS = {"script": [str(Path(sys.executable).parent / "smrlab")], "module": [sys.executable, "-m", "smrlab"]}
# What each launcher runs of Python's own before any of smrlab's code: the interpreter's start-up
# and, for the script, its own imports; for ``-m``, runpy finding a module.
PYTHON_ONLY = {"script": [sys.executable, "-c", "import re, sys"], "module": [sys.executable, "-m", "this"]}


@functools.cache
def python_startup_cpu_seconds(launcher: str) -> float:
    """The most CPU time, over five runs, that Python's own start-up takes here before smrlab's
    code would run (about 0.02 s on a fast machine, more on a slow one)."""
    most = 0.0
    for _ in range(5):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(PYTHON_ONLY[launcher], stdout=subprocess.DEVNULL, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        most = max(most, after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return most


def interrupted(
    tmp_path: Path, *args: str, ready=None, after_cpu_seconds: float = 1.0, launcher: str = "module"
) -> subprocess.CompletedProcess:
    """Runs ``smrlab ARGS`` and sends it SIGINT once ``ready()`` says so (default: once it has
    used ``after_cpu_seconds`` of CPU time, by default well past Python's start-up, whatever the
    machine's load)."""
    proc = subprocess.Popen(
        [*LAUNCHERS[launcher], *map(str, args)], cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    ready = ready or (lambda: cpu_seconds(proc.pid) >= after_cpu_seconds)
    while proc.poll() is None and not ready():
        time.sleep(0.001)
    proc.send_signal(signal.SIGINT)
    # A guard against a hang, not a measure of speed: the core checks every 65,536 requests.
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err)


@pytest.mark.parametrize(
    "command",
    [
        ("trace", "synth", "--requests", "300000000", "--out", "big.smrbin"),
        ("trace", "synth", "--requests", "300000000", "--stats"),
    ],
)
def test_ctrl_c_stops_trace_commands_with_one_line_and_no_partial_file(tmp_path, command):
    proc = interrupted(tmp_path, *command)
    assert proc.returncode == 130, proc.stderr[-2000:]
    assert proc.stderr.strip() == "smrlab: interrupted", proc.stderr[-2000:]
    assert not [p for p in os.listdir(tmp_path)], os.listdir(tmp_path)


@pytest.mark.parametrize("launcher", LAUNCHERS)
@pytest.mark.parametrize("after_startup_seconds", [0.0, 0.02, 0.05, 0.09, 0.17])
def test_ctrl_c_while_the_command_line_loads_is_one_line(tmp_path, launcher, after_startup_seconds):
    # From the end of Python's own start-up on (measured here, as it depends on the machine),
    # while the command line and its command modules load (numpy, pyarrow, rich), Ctrl-C is one
    # line and 130. The CPU time is read in clock ticks, so the signal comes at least a tick
    # after the start-up's longest measured run.
    proc = interrupted(
        tmp_path,
        "trace",
        "synth",
        "--requests",
        "300000000",
        "--stats",
        launcher=launcher,
        after_cpu_seconds=python_startup_cpu_seconds(launcher) + 1 / os.sysconf("SC_CLK_TCK") + after_startup_seconds,
    )
    assert proc.returncode == 130, proc.stderr[-2000:]
    assert proc.stderr.strip() == "smrlab: interrupted", proc.stderr[-2000:]


def test_ctrl_c_stops_a_simulation_with_one_line_and_no_partial_file(cli, tmp_path):
    cli("trace", "synth", "--requests", "3000000", "--out", "t.smrbin", check=True)

    def replaying() -> bool:
        """Whether the replay has started writing its (temporary) iolog."""
        for path in tmp_path.glob(".smrlab-*io.log"):
            with contextlib.suppress(FileNotFoundError):
                if path.stat().st_size > 0:
                    return True
        return False

    proc = interrupted(
        tmp_path,
        "sim",
        "--system",
        "dmsmr",
        "--trace",
        "t.smrbin",
        "--iolog",
        "io.log",
        "--out",
        "r.json",
        ready=replaying,
    )
    assert proc.returncode == 130, proc.stderr[-2000:]
    assert proc.stderr.strip() == "smrlab: interrupted", proc.stderr[-2000:]
    assert sorted(os.listdir(tmp_path)) == ["t.smrbin"]


# --- Issue 42: the newer surfaces ----------------------------------------------------------------


def test_a_store_whose_data_file_is_gone_is_an_error_naming_it_never_an_empty_store(cli, tmp_path):
    from smrlab.kv import DB, KvCorruptionError, KvNotFoundError

    with DB(tmp_path / "st", band_size="1MiB", capacity="64MiB") as db:
        for i in range(6000):
            db.put(b"key%05d" % i, b"v")
        db.sync()
    (tmp_path / "st" / "bands").unlink()
    one_line_error(cli("kv", "get", "st", "key00001"), "st/bands", "is missing")
    one_line_error(cli("kv", "put", "st", "k", "v"), "st/bands", "is missing")
    with pytest.raises(KvCorruptionError, match="is missing"):
        DB(tmp_path / "st")
    assert sorted(p.name for p in (tmp_path / "st").iterdir()) == ["LOCK"], "nothing was made in its place"
    # Reading a store that is not there makes none; asking for one does.
    one_line_error(cli("kv", "get", "nothing", "k"), "nothing", "no store there")
    assert not (tmp_path / "nothing").exists()
    with pytest.raises(KvNotFoundError):
        DB(tmp_path / "nothing", create=False)
    cli("kv", "put", "nothing", "k", "v", check=True)
    assert cli("kv", "get", "nothing", "k", check=True).stdout == "v\n"


def test_a_benchmark_that_would_fill_its_device_is_refused_before_it_starts(bounded_cli, tmp_path):
    proc = bounded_cli("kv", "bench", "st", "--count", "1000000000000")
    one_line_error(proc, "--count 1,000,000,000,000", "over the 68,585,259,008 the store's device holds")
    assert sum(p.stat().st_blocks for p in (tmp_path / "st").iterdir()) * 512 < 1 << 20, "nothing was written"
    one_line_error(bounded_cli("kv", "bench", "st", "--value-size", "1TiB"), "--value-size")


def test_arrivals_that_could_outgrow_memory_are_refused_before_any_is_drawn(bounded_cli, tmp_path):
    proc = bounded_cli(
        "workload",
        "arrivals",
        "--process",
        "diurnal",
        "--rate",
        "100",
        "--duration",
        "2",
        "--modulation",
        "50",
        "--cycle",
        "0.01",
        "--shape",
        "1.0000001",
        "--out",
        "a.txt",
    )
    one_line_error(proc, "--shape (the Pareto shape", "at least 1.0000151")
    assert not (tmp_path / "a.txt").exists()
    # The b-model at its finest slots and a bias near 1 holds runs of empty slots, not 2^26 slots.
    bounded_cli(
        "workload",
        "arrivals",
        "--process",
        "selfsimilar",
        "--bias",
        "0.99999",
        "--resolution",
        "1e-300",
        "--rate",
        "100",
        "--duration",
        "1",
        "--out",
        "b.txt",
        check=True,
    )


def small_results(cli, tmp_path: Path, msr: Path) -> Path:
    """A results table of one cell, run in ``tmp_path``."""
    (tmp_path / "e.toml").write_text(f'name = "one"\ntraces = ["{msr}"]\n[[systems]]\nsystem = "cmr"\n')
    cli("run", "e.toml", "--jobs", "1", "--out", "results", check=True)
    [table] = (tmp_path / "results").glob("*/*.parquet")
    return table


def test_a_report_is_never_written_onto_a_table_it_reads_or_its_provenance(cli, tmp_path, msr):
    table = small_results(cli, tmp_path, msr)
    sidecar = table.with_suffix(".json")
    before = table.read_bytes(), sidecar.read_bytes()
    for out in (table, sidecar):
        one_line_error(cli("report", table, "-o", out), str(out), "is also an input")
        one_line_error(cli("report", tmp_path / "results", "-o", out), str(out), "is also an input")
    assert (table.read_bytes(), sidecar.read_bytes()) == before
    assert not list(table.parent.glob(".smrlab-*"))
    cli("report", table, "-o", tmp_path / "report.html", check=True)


def test_two_traces_of_one_name_in_an_experiment_are_refused_before_either_is_read(cli, tmp_path, msr):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        cli("trace", "convert", msr, f"{folder}/t.smrbin", check=True)
    (tmp_path / "e.toml").write_text(
        'name = "two"\ntraces = ["a/t.smrbin", "b/t.smrbin"]\n[[systems]]\nsystem = "cmr"\n'
    )
    one_line_error(cli("run", "e.toml", "--jobs", "1"), "e.toml", "'a/t.smrbin' and 'b/t.smrbin' are both named 't'")
    assert not (tmp_path / "results").exists()
    # Named apart, both run.
    (tmp_path / "e.toml").write_text(
        'name = "two"\ntraces = [{ name = "a", path = "a/t.smrbin" }, { name = "b", path = "b/t.smrbin" }]\n'
        '[[systems]]\nsystem = "cmr"\n'
    )
    cli("run", "e.toml", "--jobs", "1", check=True)
    rows = json.loads(cli("results", "results", "--json", check=True).stdout)["tables"][0]["rows"]
    assert len(rows) == 2, rows


@pytest.mark.parametrize(
    "command",
    [
        ("fluid-sweep", "phases"),
        ("fluid-sweep", "schemes"),
        ("fluid-trace", "four-phase"),
        ("fluid-trace", "usr_0"),
        ("hwsr", "traces"),
        ("hwsr", "compare", "--preset", "wdev0"),
        ("hwsr-sweep", "--preset", "wdev0"),
        ("trace", "synth", "--stats"),
    ],
)
def test_requests_0_is_refused_alike_by_every_figure_command(cli, tmp_path, command):
    # Issue 42: `fluid-sweep phases` and `hwsr traces` read 0 as "the default" (full-size runs).
    one_line_error(cli(*command, "--requests", "0"), "--requests", "'0'")
    assert not (tmp_path / "results").exists()
