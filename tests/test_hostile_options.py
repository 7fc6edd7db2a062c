"""Generated hostile values for the command line's options and system parameters (hypothesis):
whatever the value, a command either runs or stops with exit code 2 and one line, never a
traceback, an internal (JSON) error or a control character echoed to the terminal.

Nor may a value raise this process's peak resident memory (Rust and Python alike, read from
/proc) by more than ``MEMORY_BOUND`` (a size must be refused before anything is sized by it),
or make a command use more than ``CPU_BOUND`` of CPU time (a count of work done, not a clock:
another process's load does not change it) — a loop over 2^64 blocks would.

The commands run in this process through ``smrlab.cli.main`` (the same code the ``smrlab``
command runs) so that many values can be tried; ``test_bad_input.py`` runs issue 19's examples
as separate processes. Examples per test: ``SMRLAB_HYPOTHESIS_EXAMPLES`` (fresh ones each run), or
25 (the same ones each run).
"""

from __future__ import annotations

import os
import time

import pytest
from conftest import msr_line
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from smrlab import _core, arrival_names
from smrlab.cli import main

EXAMPLES = int(os.environ.get("SMRLAB_HYPOTHESIS_EXAMPLES", "25"))
# The same examples on every run of `make test`; fresh ones when more are asked for.
DERANDOMIZE = "SMRLAB_HYPOTHESIS_EXAMPLES" not in os.environ
SETTINGS = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=DERANDOMIZE,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)

# Text that option parsers meet: numbers of every size and sign, special floats, units, words,
# control characters and long strings.
HOSTILE_TEXT = st.one_of(
    st.integers(min_value=-(2**70), max_value=2**70).map(str),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(
        [
            "",
            "nan",
            "inf",
            "-inf",
            "1e300",
            "1e-300",
            "1.5",
            "0",
            "-0",
            "4KiB",
            "1.5B",
            "150%",
            "1e30/1",
            "\x00",
            "\x07\x1b[2J",
            "auto",
            "true",
            "9" * 400,
        ]
    ),
    st.text(max_size=20),
)


@pytest.fixture
def trace(tmp_path) -> str:
    path = tmp_path / "t.csv"
    path.write_text(
        "".join(msr_line(i * 1000, "Write" if i % 3 else "Read", i * 8192, 4096) + "\n" for i in range(300))
    )
    return str(path)


# The most one command may add to this process's peak resident memory. The commands here read
# 300-request traces or make 2,000; a table sized by a hostile value (issue 19 found 23 GB and
# 20 TB ones) passes it at once.
MEMORY_BOUND = 256 << 20
# The most CPU time (seconds, this process's threads) one command may use; they use well under
# a second.
CPU_BOUND = 20.0


def status_bytes(field: str) -> int:
    """A ``kB`` figure of /proc/self/status, in bytes."""
    with open("/proc/self/status") as status:
        line = next(line for line in status if line.startswith(field + ":"))
    return int(line.split()[1]) * 1024


def reset_peak_memory() -> int:
    """Makes the peak resident memory the current one (Linux's clear_refs "5"); returns it."""
    with open("/proc/self/clear_refs", "w") as clear:
        clear.write("5")
    return status_bytes("VmRSS")


def run(capsys, monkeypatch, folder, argv: list[str]) -> tuple[int, str, int, float]:
    """Exit code, standard error, peak memory growth (bytes) and CPU seconds of ``smrlab ARGV``
    run in ``folder``."""
    monkeypatch.chdir(folder)
    capsys.readouterr()
    before = reset_peak_memory()
    cpu_before = time.process_time()
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else 2
    cpu = time.process_time() - cpu_before
    return code, capsys.readouterr().err, status_bytes("VmHWM") - before, cpu


def assert_clean(code: int, err: str, growth: int, cpu: float, argv: list[str]) -> None:
    assert growth <= MEMORY_BOUND, (argv, f"peak resident memory grew by {growth >> 20} MiB")
    assert cpu <= CPU_BOUND, (argv, f"used {cpu:.1f} s of CPU time")
    assert code in (0, 2), (argv, code, err[-1000:])
    if code == 2:
        lines = err.strip().splitlines()
        assert len(lines) == 1, (argv, err[-1000:])
        assert len(lines[0]) < 600, (argv, lines[0][:600])
        assert "Traceback" not in err and "run spec" not in err and "pipeline:" not in err, (argv, err)
        assert not any(ord(c) < 32 for c in lines[0]), (argv, lines[0])


SIM_OPTIONS = [
    "--speedup",
    "--warmup-requests",
    "--warmup-seconds",
    "--series-interval",
    "--gauge-samples",
    "--seed",
    "--iolog-max-io",
]


@SETTINGS
@given(option=st.sampled_from(SIM_OPTIONS), value=HOSTILE_TEXT, open_loop=st.booleans())
def test_sim_options(capsys, monkeypatch, tmp_path, trace, option, value, open_loop):
    argv = ["sim", "--system", "cmr", "--trace", trace, f"{option}={value}", "--out", "r.json"]
    if open_loop:
        argv += ["--replay", "open"]
    assert_clean(*run(capsys, monkeypatch, tmp_path, argv), argv)


TRACE_OPTIONS = [
    ("--shift", "convert"),
    ("--sample", "convert"),
    ("--head", "convert"),
    ("--seed", "convert"),
    ("--copies", "merge"),
]


@SETTINGS
@given(option=st.sampled_from(TRACE_OPTIONS), value=HOSTILE_TEXT)
def test_trace_options(capsys, monkeypatch, tmp_path, trace, option, value):
    name, command = option
    argv = (
        ["trace", command, trace, "out.smrbin"]
        if command == "convert"
        else ["trace", "merge", trace, "--out", "out.smrbin"]
    )
    argv.append(f"{name}={value}")
    assert_clean(*run(capsys, monkeypatch, tmp_path, argv), argv)


def declared_parameters() -> list[tuple[str, str]]:
    return [(name, key) for name, _, params in _core.systems() for key, *_ in params]


# The host-managed drive is made small (its default is 5 TB of 256 MiB zones) unless the value
# under test is its own.
SMALL_DRIVE = {"zone_size": "64MiB", "conventional": "192MiB"}


@SETTINGS
@given(system_param=st.sampled_from(declared_parameters()), value=HOSTILE_TEXT)
def test_system_parameters(capsys, monkeypatch, tmp_path, trace, system_param, value):
    system, key = system_param
    argv = ["sim", "--system", system, "--trace", trace, "-p", f"{key}={value}", "--out", "r.json"]
    if system in ("ucache", "eregion", "zonemap"):
        argv += [f"--param={k}={v}" for k, v in SMALL_DRIVE.items() if k != key]
    assert_clean(*run(capsys, monkeypatch, tmp_path, argv), argv)


# Not `requests`: a valid huge count is a long run, not a bad value.
SYNTH_KEYS = [
    "write_ratio",
    "written_range",
    "accessed_range",
    "sizes",
    "hot_regions",
    "hot_size",
    "hot_fraction",
    "zipf",
    "seq",
    "rate",
    "cold_streams",
    "cold_run",
    "cold_window",
    "sparse_fraction",
    "sparse_range",
]


@SETTINGS
@given(key=st.sampled_from(SYNTH_KEYS), value=HOSTILE_TEXT)
def test_synthesizer_parameters(capsys, monkeypatch, tmp_path, key, value):
    argv = ["trace", "synth", "-p", f"{key}={value}", "--requests", "2000", "--stats", "--json"]
    assert_clean(*run(capsys, monkeypatch, tmp_path, argv), argv)


READER_OPTIONS = [
    ("spc", "asu"),
    ("blkparse", "action"),
    ("csv", "op"),
    ("csv", "offset"),
    ("csv", "time"),
    ("csv", "time_unit"),
    ("csv", "offset_unit"),
    ("csv", "len_unit"),
    ("csv", "delimiter"),
    ("csv", "header"),
    ("csv", "read"),
]


@SETTINGS
@given(format_key=st.sampled_from(READER_OPTIONS), value=HOSTILE_TEXT)
def test_reader_options(capsys, monkeypatch, tmp_path, trace, format_key, value):
    fmt, key = format_key
    argv = ["trace", "stats", trace, "--format", fmt, "--trace-option", f"{key}={value}", "--json"]
    assert_clean(*run(capsys, monkeypatch, tmp_path, argv), argv)


LINE_UP_OPTIONS = [
    ("compare-caches", "--cache"),
    ("compare-caches", "--zone"),
    ("compare-caches", "--period"),
    ("compare-caches", "--geometry-scale"),
    ("cache-sweep", "--values"),
    ("trace locality", "--buckets"),
    ("ucache-sweep", "--buckets"),
]


@settings(
    max_examples=max(5, EXAMPLES // 3),
    deadline=None,
    derandomize=DERANDOMIZE,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(command_option=st.sampled_from(LINE_UP_OPTIONS), value=HOSTILE_TEXT)
def test_line_up_options(capsys, monkeypatch, tmp_path, trace, command_option, value):
    command, option = command_option
    if command == "trace locality":
        argv = ["trace", "locality", trace, f"{option}={value}", "--json"]
    else:
        argv = [command, "--trace", trace, f"{option}={value}", "--out", "results", "--json"]
        argv += ["--vary", "cache"] if command == "cache-sweep" else []
        argv += ["-p", "zone_size=64MiB", "-p", "conventional=192MiB"] if command == "ucache-sweep" else []
    assert_clean(*run(capsys, monkeypatch, tmp_path, argv), argv)


# `workload arrivals` and `analyze`: not --rate or --duration (a valid huge value is a long run).
ARRIVAL_RUNS = {
    "selfsimilar": ["--bias", "0.65", "--resolution", "0.001"],
    "diurnal": ["--modulation", "50", "--cycle", "0.01", "--shape", "1.5", "--distribution", "pareto"],
}
ARRIVAL_OPTIONS = [
    ("selfsimilar", "--bias"),
    ("selfsimilar", "--resolution"),
    ("selfsimilar", "--seed"),
    ("diurnal", "--modulation"),
    ("diurnal", "--cycle"),
    ("diurnal", "--shape"),
    ("analyze", "--interval"),
    ("analyze", "--max-lag"),
]


@SETTINGS
@given(process_option=st.sampled_from(ARRIVAL_OPTIONS), value=HOSTILE_TEXT)
def test_workload_options(capsys, monkeypatch, tmp_path, process_option, value):
    process, option = process_option
    if process == "analyze":
        (tmp_path / "series.txt").write_text("".join(f"{i * 0.37 % 5:.3f}\n" for i in range(200)))
        argv = ["workload", "analyze", "series.txt", f"{option}={value}", "--json"]
    else:
        argv = ["workload", "arrivals", "--process", process, "--rate", "100", "--duration", "2", "--out", "a.txt"]
        argv += ARRIVAL_RUNS[process] + [f"{option}={value}"]
    code, err, growth, cpu = run(capsys, monkeypatch, tmp_path, argv)
    assert_clean(code, err, growth, cpu, argv)
    # A refusal names the option given, never the core's Table 4.1 key (ss.bias, target...).
    assert not any(key in err for word, key in arrival_names.KEYWORDS.items() if key != word), (argv, err)


# --- Every option of every command, from the parser's own tree ------------------------------------

# Text for any option's declared type: numbers past every limit and of every sign, special
# floats, fractions, sizes, words, control characters and long strings.
TEXT_FOR_ANY_TYPE = [
    "-1",
    "0",
    "1.5",
    "18446744073709551616",
    "1e400",
    "nan",
    "-inf",
    "1/0",
    "4KiB",
    "",
    "x",
    "\x00",
    "\x1b[2J",
    "9" * 400,
]


def command_options():
    """(command path, option, its action) of every option that takes a value, in every
    command of the command line (walked from ``build_parser``): a command or option added is
    covered without a case written for it."""
    import argparse

    from smrlab.cli import build_parser

    def walk(parser, path):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    yield from walk(sub, (*path, name))
            elif action.option_strings and action.nargs != 0 and not isinstance(action, argparse._HelpAction):
                yield path, action.option_strings[-1], action

    return list(walk(build_parser(), ()))


def test_every_option_of_every_command_takes_hostile_text_or_refuses_it_in_one_line(capsys):
    # Parsed only (the commands that run with hostile values are the families above): each
    # declared type either takes the text or refuses it, exit code 2 and one line, in well under
    # a second, never an exception of its own.
    from smrlab.cli import build_parser

    found = command_options()
    assert len({path for path, *_ in found}) >= 30 and len(found) >= 200, "the walk reaches every command"
    parser = build_parser()
    for path, option, action in found:
        for text in TEXT_FOR_ANY_TYPE:
            given = [option, *[text] * action.nargs] if isinstance(action.nargs, int) else [f"{option}={text}"]
            argv = [*path, *given]
            started = time.process_time()
            try:
                parser.parse_known_args(argv)
                code = 0
            except SystemExit as stop:
                code = stop.code
            assert time.process_time() - started < 1.0, argv
            assert_clean(code, capsys.readouterr().err, 0, 0.0, argv)
