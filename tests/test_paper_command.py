"""A paper command is a declaration (``smrlab.cli.paper_command.PaperCommand``): a new one, made
from a throwaway experiment file in a temporary folder and a table of two columns, runs end to
end through the one command body: its options, its line-up on the user's trace, its table and
its results; one sweeping two parameters (one by default the file's values, one the user's in
another unit) prints them as a grid."""

from __future__ import annotations

import argparse
import json

from conftest import DATA
from smrlab import tables
from smrlab.cli import CommandGroup, views
from smrlab.cli.paper_command import PaperCommand, Sweep
from smrlab.options import bounded_whole, listed

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
