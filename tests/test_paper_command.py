"""A paper command is a declaration (``smrlab.cli.paper_command.PaperCommand``): a new one, made
from a throwaway experiment file in a temporary folder and a table of two columns, runs end to
end through the one command body: its options, its line-up on the user's trace, its table and
its results; one sweeping two parameters (one by default the file's values, one the user's in
another unit) prints them as a grid; one over several traces gives each the parameters it
brings; and a figure of ``fluid-sweep`` is such a declaration over its experiment file."""

from __future__ import annotations

import argparse
import json

from conftest import DATA
from smrlab import options, tables
from smrlab.cli import CommandGroup, fluid, views
from smrlab.cli.paper_command import PaperCommand, Sweep, Traces
from smrlab.options import bounded_whole, listed
from smrlab.trace import Trace

EXPERIMENT = """
name = "throwaway"
traces = ["wdev.csv.gz"]
params = { buffer = "1/64" }

[[systems]]
label = "plain"
system = "cmr"

[[systems]]
label = "shingled"
system = "dmsmr"
"""


def test_a_new_paper_command_is_a_few_lines_of_declaration(tmp_path, capsys):
    toml = tmp_path / "throwaway.toml"
    toml.write_text(EXPERIMENT)
    command = PaperCommand(
        "throwaway",
        "a plain and a shingled disk",
        (toml,),
        views.Table(
            "two disks on {trace}", "disk", (views.Column("requests", "requests"), views.Column("R_wa", "r_wa"))
        ),
        str(tmp_path / "out"),
    )
    parser = argparse.ArgumentParser()
    command.register(CommandGroup(parser.add_subparsers(dest="command"), {}))
    args = parser.parse_args(
        ["throwaway", "--trace", str(DATA / "ts.csv.gz"), "-p", "buffer=1/128", "--jobs", "1", "--json"]
    )
    tables.gather_json()
    try:
        assert args.func(args) == 0
    finally:
        tables.flush()
    [table] = json.loads(capsys.readouterr().out)["tables"]
    assert table["columns"] == ["disk", "requests", "R_wa"]
    rows = {row[0]: row[1:] for row in table["rows"]}
    assert list(rows) == ["plain", "shingled"] and rows["plain"][0] == rows["shingled"][0] == 100_000
    assert rows["plain"][1] is None and rows["shingled"][1] > 1, "only the shingled disk amplifies writes"
    shingled = json.loads((tmp_path / "out" / "ts-shingled.json").read_text())
    assert shingled["config"]["params"]["buffer"] == "1/128", "--param over the file's parameters"
    assert len(list((tmp_path / "out").rglob("*.parquet"))) == 1


def test_a_sweep_over_two_parameters_is_a_declaration_with_a_grid(tmp_path, capsys):
    """A swept parameter defaults to the file's values, one given is converted to the
    parameter's unit, and a grid table lays the runs out by both."""
    toml = tmp_path / "bands.toml"
    toml.write_text(
        'name = "bands"\ntraces = ["wdev.csv.gz"]\nparams = { buffer = ["1/64", "1/128"] }\n\n'
        '[[systems]]\nlabel = "shingled"\nsystem = "dmsmr"\n'
    )
    command = PaperCommand(
        "bands",
        "a shingled disk by buffer and band size",
        (toml,),
        views.Grid("R_wa on {trace}", "buffer", "buffer", "band_size", "bands of {} MB", views.Column("R_wa", "r_wa")),
        str(tmp_path / "out"),
        sweeps=(
            Sweep("buffer", "--buffers", "buffer sizes", toml),
            Sweep(
                "band_size", "--bands", "band sizes in MB", toml, listed(bounded_whole(1, 100), 4), None, "{}MB".format
            ),
        ),
    )
    parser = argparse.ArgumentParser()
    command.register(CommandGroup(parser.add_subparsers(dest="command"), {}))
    args = parser.parse_args(["bands", "--trace", str(DATA / "ts.csv.gz"), "--bands", "20", "--jobs", "1", "--json"])
    tables.gather_json()
    try:
        assert args.func(args) == 0
    finally:
        tables.flush()
    table = json.loads(capsys.readouterr().out)["tables"][0]
    assert table["columns"] == ["buffer", "bands of 20 MB"]
    assert [row[0] for row in table["rows"]] == ["1/64", "1/128"], "the file's values, in its order"
    assert all(row[1] > 1 for row in table["rows"])
    result = json.loads((tmp_path / "out" / "ts-shingled-1_128-20MB.json").read_text())
    assert (result["config"]["params"]["buffer"], result["config"]["params"]["band_size"]) == ("1/128", "20MB")


def run_in_process(command, *words: str, capsys) -> list[dict]:
    """Runs ``command`` (registered on a parser of its own) with ``words``; returns its tables."""
    parser = argparse.ArgumentParser()
    group = CommandGroup(parser.add_subparsers(dest="command"), {})
    command.register(group.group(command.group) if command.group else group)
    args = parser.parse_args([*filter(None, command.title.split(" ")), *words, "--jobs", "1", "--json"])
    tables.gather_json()
    try:
        assert args.func(args) == 0
    finally:
        tables.flush()
    return json.loads(capsys.readouterr().out)["tables"]


def test_traces_bring_parameters_of_their_own_under_the_users(tmp_path, capsys):
    """A command over several traces gives each the parameters it brings, over the file's and
    under the user's, and its tables lay the runs out by trace, some of them at a time."""
    toml = tmp_path / "throwaway.toml"
    toml.write_text(EXPERIMENT)
    opened = Traces(
        {"ts": Trace.open(DATA / "ts.csv.gz"), "wdev": Trace.open(DATA / "wdev.csv.gz")},
        {"ts": {"buffer": "1/128", "band_size": "20MB"}},
    )
    command = PaperCommand(
        "throwaway",
        "two disks on two traces",
        (toml,),
        views.Tables(
            (
                views.Grid("R_wa", "trace", "trace", "label", "{}", views.Column("R_wa", "r_wa")),
                views.Table(
                    "shingled",
                    "trace",
                    (views.Column("requests", "requests"),),
                    row="trace",
                    where={"label": "shingled"},
                ),
            )
        ),
        str(tmp_path / "out"),
        traces=lambda parser: (options.add_params_argument(parser, ""), lambda args: opened)[1],
    )
    grid, shingled = run_in_process(command, "-p", "band_size=30MB", capsys=capsys)
    assert grid["columns"] == ["trace", "plain", "shingled"] and [row[0] for row in grid["rows"]] == ["ts", "wdev"]
    assert all(row[1] is None and row[2] > 1 for row in grid["rows"]), grid["rows"]
    assert shingled["rows"] == [["ts", 100_000], ["wdev", shingled["rows"][1][1]]]
    params = {
        name: json.loads((tmp_path / "out" / f"{name}-shingled.json").read_text())["config"]["params"]
        for name in ("ts", "wdev")
    }
    assert params["ts"]["buffer"] == "1/128" and params["wdev"]["buffer"] == "1/64", "the trace's over the file's"
    assert params["ts"]["band_size"] == params["wdev"]["band_size"] == "30MB", "the user's over the trace's"


def test_a_fluid_sweep_figure_runs_its_file_on_the_users_traces(tmp_path, monkeypatch, capsys):
    """fluid-sweep schemes (Fig. 12) is its file's declaration: on two traces of the user's (in
    the MSR Cambridge format, as published), a grid of latencies by trace and scheme, the
    writes of fluid-smr's runs, the file's figure drawn and its claims judged."""
    monkeypatch.chdir(tmp_path)
    words = [
        "--trace",
        str(DATA / "wdev.csv.gz"),
        "--trace",
        str(DATA / "ts.csv.gz"),
        "--schemes",
        "fluid-smr,pure-cmr",
    ]
    latency, writes = run_in_process(fluid.SCHEMES, *words, "-p", "zone_size=4MiB", capsys=capsys)
    assert latency["columns"] == ["trace", "fluid-smr", "pure-cmr"]
    assert [row[0] for row in latency["rows"]] == ["wdev", "ts"] and all(
        row[1] > 0 and row[2] > 0 for row in latency["rows"]
    ), latency["rows"]
    assert [row[0] for row in writes["rows"]] == ["wdev", "ts"] and all(0 <= row[1] <= 1 for row in writes["rows"])
    out = tmp_path / "results" / "fluid-sweep" / "schemes"
    assert len(list(out.rglob("*.png"))) == 1, "the file's figure"
    result = json.loads((out / "ts-fluid-fluid-smr.json").read_text())
    assert result["config"]["params"]["zone_size"] == "4MiB" and result["config"]["params"]["usage"] == "0.9"
