"""The command line as a user meets it: help with units, one-line errors with exit code 2,
result files with provenance, and identical numbers for identical runs."""

from __future__ import annotations

import json

import pytest
from smrlab import _core
from smrlab.cli import main


def test_help_lists_commands_and_units(cli):
    top = cli("--help", check=True).stdout
    for command in ("sim", "demo"):
        assert command in top
    sim = cli("sim", "--help", "--all", check=True).stdout
    assert "powers of 1000" in sim and "KiB" in sim
    for name, _summary, params in _core.systems():
        assert f"  {name}:" in sim
        for key, default, unit, _help, open_reason, *_ in params:
            assert unit, key
            assert f"{key} [{default}] ({unit}):" in sim, key
            if open_reason:
                assert f"open choice: {open_reason}" in sim, key
    assert "%%" not in sim, "percent signs are shown as typed"


def test_sim_writes_result_with_provenance(cli, small_msr_trace, tmp_path):
    cli("sim", "--system", "cmr", "--trace", small_msr_trace, "--out", "a.json", check=True)
    result = json.loads((tmp_path / "a.json").read_text())
    assert result["config"]["system"] == "cmr"
    assert result["config"]["seed"] == 0
    assert result["trace"]["checksum"].startswith("sha256:")
    assert result["smrlab"]["version"] == _core.__version__
    assert result["smrlab"]["git_commit"]
    assert result["report"]["requests"] == 2000
    assert result["derived"]["total_io_s"] > 0


def test_same_trace_config_and_seed_give_identical_results(cli, small_msr_trace, tmp_path):
    for name in ("a.json", "b.json"):
        cli("sim", "--system", "cmr", "--trace", small_msr_trace, "--seed", "7", "--out", name, check=True)
    assert (tmp_path / "a.json").read_bytes() == (tmp_path / "b.json").read_bytes()


def test_unknown_parameter_is_one_line_exit_2(cli, small_msr_trace):
    proc = cli("sim", "--system", "cmr", "--trace", small_msr_trace, "--param", "zoen=3")
    assert proc.returncode == 2
    assert "zoen" in proc.stderr
    assert "Traceback" not in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def test_extra_options_become_parameters(cli, small_msr_trace):
    proc = cli("sim", "--system", "cmr", "--trace", small_msr_trace, "--disk", "no-such-disk")
    assert proc.returncode == 2
    assert "disk" in proc.stderr and "Traceback" not in proc.stderr


def test_missing_trace_file(cli):
    proc = cli("sim", "--system", "cmr", "--trace", "nope.csv")
    assert proc.returncode == 2
    assert "nope.csv" in proc.stderr and "Traceback" not in proc.stderr


def test_unknown_system_is_a_usage_error(cli, small_msr_trace):
    proc = cli("sim", "--system", "floppy", "--trace", small_msr_trace)
    assert proc.returncode == 2
    assert "floppy" in proc.stderr


def test_open_loop_reports_waiting(cli, small_msr_trace, tmp_path):
    cli(
        "sim",
        "--system",
        "cmr",
        "--trace",
        small_msr_trace,
        "--replay",
        "open",
        "--speedup",
        "1000",
        "--out",
        "open.json",
        check=True,
    )
    report = json.loads((tmp_path / "open.json").read_text())["report"]
    assert report["write"]["response"]["mean_ns"] > report["write"]["service"]["mean_ns"]


def test_every_command_has_help():
    """argparse formats help lazily: a stray % in a help text only fails when asked for."""
    from smrlab.cli import build_parser

    def walk(parser, path):
        yield path, parser
        for action in parser._actions:
            if getattr(action, "choices", None) and hasattr(action, "_name_parser_map"):
                for name, sub in action._name_parser_map.items():
                    yield from walk(sub, path + [name])

    seen = 0
    for path, parser in walk(build_parser(), []):
        text = parser.format_help()
        assert "usage:" in text, path
        seen += 1
    assert seen >= 13


def test_demo_refuses_a_trace_folder_it_cannot_write(cli, tmp_path):
    """The full-size traces are generated before anything runs: a --traces that is a file gives
    one line naming it, exit 2."""
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("")
    proc = cli("demo", "--traces", blocker, "--out", "d")
    assert proc.returncode == 2 and str(blocker) in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "d").exists()


def test_impossible_numbers_in_options_are_named(cli, small_msr_trace):
    """NaN, infinity and negative values in numeric options: one line naming the option, exit 2."""
    sim = ("sim", "--system", "dmsmr", "--trace", small_msr_trace)
    cases = [
        ((*sim, "--warmup-seconds", "nan"), "--warmup-seconds"),
        ((*sim, "--series-interval", "inf"), "--series-interval"),
        ((*sim, "--replay", "open", "--speedup", "inf"), "--speedup"),
        ((*sim, "--warmup-requests", "-1"), "--warmup-requests"),
        (("compare-caches", "--trace", small_msr_trace, "--geometry-scale", "inf"), "geometry_scale"),
        (("cache-sweep", "--trace", small_msr_trace, "--vary", "period", "--values", "0.5,-1"), "period '-1'"),
        (("cache-sweep", "--trace", small_msr_trace, "--vary", "period", "--values", "abc"), "period 'abc'"),
    ]
    for args, named in cases:
        proc = cli(*args)
        assert proc.returncode == 2, (args, proc.stderr)
        assert named in proc.stderr and "Traceback" not in proc.stderr, (args, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_a_long_run_shows_percent_and_eta_as_plain_lines_when_piped(cli, tmp_path, monkeypatch):
    # A line at every progress point instead of every 5 s, so that a short run shows them.
    monkeypatch.setenv("SMRLAB_PROGRESS_SECONDS", "0")
    cli("trace", "synth", "--requests", "300000", "--out", "t.smrbin", check=True)
    lines = cli("sim", "--system", "cmr", "--trace", "t.smrbin", "--out", "r.json", check=True).stderr.splitlines()
    shown = [line for line in lines if "% of 300,000 requests" in line]
    percents = [int(line.split(": ")[1].split(" %")[0]) for line in shown]
    assert len(percents) >= 4 and percents == sorted(percents) and percents[-1] == 100, lines
    assert all("ETA" in line for line in shown[:-1]), shown
    # At the default interval a run this short prints none.
    monkeypatch.delenv("SMRLAB_PROGRESS_SECONDS")
    assert "%" not in cli("sim", "--system", "cmr", "--trace", "t.smrbin", "--out", "r2.json", check=True).stderr


def test_sim_never_replaces_a_different_runs_result(cli, small_msr_trace, tmp_path):
    cli("sim", "--system", "dmsmr", "--trace", small_msr_trace, check=True)
    cli("sim", "--system", "dmsmr", "--trace", small_msr_trace, "--buffer", "1/64", check=True)
    cli("sim", "--system", "dmsmr", "--trace", small_msr_trace, "--seed", "3", check=True)
    written = sorted((tmp_path / "results").glob("sim-dmsmr-small-*.json"))
    assert len(written) == 3, written
    configs = [json.loads(path.read_text())["config"] for path in written]
    assert len({json.dumps(config, sort_keys=True) for config in configs}) == 3
    # The same run again finds its own file (and says so), and writes nothing new.
    proc = cli(
        "sim", "--system", "dmsmr", "--trace", small_msr_trace, "--buffer", "1/256", check=True
    )  # the default buffer
    assert len(list((tmp_path / "results").glob("sim-dmsmr-small-*.json"))) == 3
    assert any(f"result written to results/{path.name}" in proc.stderr for path in written), proc.stderr


# Every command that takes -p KEY=VALUE (the trace is never read: the argument is refused first).
PARAM_COMMANDS = [
    ["sim", "--system", "dmsmr", "--trace", "t.csv"],
    ["compare-caches", "--trace", "t.csv"],
    ["cache-sweep", "--trace", "t.csv", "--vary", "zone"],
    ["ucache-sweep", "--trace", "t.csv"],
    ["hwsr", "compare", "--trace", "t.csv"],
    ["hwsr-sweep", "--trace", "t.csv"],
    ["fluid-sweep", "schemes", "--trace", "t.csv"],
    ["trace", "smr-estimate", "t.csv"],
    ["trace", "synth", "--stats"],
]


@pytest.mark.parametrize("bad", ["foo", "=1", "a==b", " "])
def test_a_param_that_is_not_one_key_value_pair_is_one_line_naming_it(capsys, bad):
    for command in PARAM_COMMANDS:
        with pytest.raises(SystemExit) as stopped:
            main([*command, "-p", "buffer=1/64", "--param", bad])
        err = capsys.readouterr().err
        assert stopped.value.code == 2 and len(err.strip().splitlines()) == 1, (command, err)
        assert f"parameter '{bad}'" in err and "KEY=VALUE" in err and "Traceback" not in err, (command, err)
