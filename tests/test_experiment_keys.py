"""No misspelt name is ignored: every key of an experiment file, every parameter (shared or a
system's own), every measure it names and every keyword of ``smrlab.compare``/``sweep`` is
checked before the first cell runs, and a wrong one stops it with one line naming it and the
nearest right one (exit 2 on the command line, a ``ParameterError`` in Python). The file's
JSON Schema, published under docs/, is the one the code generates and accepts every file in
experiments/."""

from __future__ import annotations

import json
import tomllib

import jsonschema
import pytest
import smrlab
from conftest import DATA, REPO
from smrlab.experiment.files import json_schema

SCHEMA = REPO / "docs" / "experiment.schema.json"

GOOD = """
name = "keys"
metrics = ["total_io_s", "r_wa"]
traces = ["bundled:wdev"]
[params]
buffer_on = "ssd"
[[systems]]
system = "dmsmr"
[figure]
kind = "bars"
y = "r_wa"
"""


def run_file(cli, tmp_path, text):
    path = tmp_path / "exp.toml"
    path.write_text(text)
    return cli("run", path, "--jobs", "1", "--out", "out")


@pytest.mark.parametrize(
    "good, bad, said",
    [
        (
            'buffer_on = "ssd"',
            'bufer_on = "ssd"',
            "no system of the line-up (dmsmr) reads a parameter 'bufer_on' (did you mean 'buffer_on'?)",
        ),
        (
            '"r_wa"]',
            '"r_wa", "no_such_metric"]',
            "metrics: no system of the line-up reports a measure 'no_such_metric'",
        ),
        (
            'y = "r_wa"',
            'y = "r_waa"',
            "figure.y: no system of the line-up reports a measure 'r_waa' (did you mean 'r_wa'?)",
        ),
        ('kind = "bars"', 'kind = "bar"', "figure: kind 'bar' is none of bars, lines, series (did you mean 'bars'?)"),
        (
            'system = "dmsmr"',
            'system = "dmsmr"\nparams = { bufer = "1/64" }',
            "parameter 'bufer': dmsmr reads no such parameter (did you mean 'buffer'?)",
        ),
        ("[figure]", "[figures]", "unknown key 'figures' (did you mean 'figure'?)"),
        ("[params]", '[engine]\nmod = "open"\n[params]', "engine: unknown key 'mod' (did you mean 'mode'?)"),
    ],
)
def test_a_misspelt_name_stops_the_run_before_any_cell_with_the_nearest_name(cli, tmp_path, good, bad, said):
    assert good in GOOD
    proc = run_file(cli, tmp_path, GOOD.replace(good, bad))
    assert proc.returncode == 2, proc.stderr
    assert said in proc.stderr and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not (tmp_path / "out").exists(), "nothing ran"


def test_the_right_names_run_and_a_ratio_without_a_value_in_the_probe_is_known(cli, tmp_path):
    # With the buffer on the SSD the probe's first request evicts nothing, so r_wa has no value
    # there: it is known from the core's declaration.
    proc = run_file(cli, tmp_path, GOOD)
    assert proc.returncode == 0, proc.stderr
    assert "SMR write amplification (R_wa)" in proc.stdout, "its column, named as sim names it"


def test_compare_and_sweep_refuse_a_keyword_no_system_reads():
    with pytest.raises(smrlab.ParameterError, match=r"reads a parameter 'bufer_on' \(did you mean 'buffer_on'\?\)"):
        smrlab.compare(["dmsmr"], [DATA / "wdev.csv.gz"], bufer_on="ssd")
    with pytest.raises(
        smrlab.ParameterError, match=r"parameter 'bufer': dmsmr reads no such parameter \(did you mean 'buffer'\?\)"
    ):
        smrlab.sweep("dmsmr", DATA / "wdev.csv.gz", vary={"bufer": ["1/512", "1/64"]})
    with pytest.raises(smrlab.ParameterError, match=r"no replay option 'mod' \(did you mean 'mode'\?\)"):
        smrlab.compare(["cmr"], DATA / "wdev.csv.gz", engine={"mod": "open"})
    with pytest.raises(smrlab.ParameterError, match=r"did you mean 'buffer_on'"):
        smrlab.simulate("dmsmr", DATA / "wdev.csv.gz", bufer_on="ssd")


def test_a_shared_key_goes_to_the_systems_that_read_it_through_their_stack():
    # buffer is dmsmr's: the cache reads it through the dmsmr below it, the plain disk not at all.
    frame = smrlab.compare(
        {"smr": "dmsmr", "disk": "cmr", "lru": {"system": "cache", "policy": "lru"}},
        DATA / "wdev.csv.gz",
        buffer="1/64",
    )
    assert frame["error"].isna().all()
    assert list(frame["buffer"].fillna("-")) == ["1/64", "-", "1/64"]
    # The right key changes the answer (the 2,121 s against 1,997 s).
    default, ssd = (
        smrlab.compare(["dmsmr"], DATA / "wdev.csv.gz", **given)["total_io_s"][0]
        for given in ({}, {"buffer_on": "ssd"})
    )
    assert ssd != default


def test_the_published_schema_is_the_generated_one():
    published = json.loads(SCHEMA.read_text())
    assert published == json_schema(), "regenerate it: python -m smrlab.experiment.files > docs/experiment.schema.json"


@pytest.mark.parametrize("path", sorted((REPO / "experiments").glob("*.toml")), ids=lambda p: p.stem)
def test_every_experiment_file_meets_the_schema(path):
    jsonschema.validate(tomllib.loads(path.read_text()), json.loads(SCHEMA.read_text()))


def test_the_schema_refuses_what_the_reader_refuses():
    schema = json.loads(SCHEMA.read_text())
    document = tomllib.loads(GOOD)
    jsonschema.validate(document, schema)
    for broken in (
        {**document, "metricz": []},
        {**document, "figure": {"kind": "bar"}},
        {**document, "seeds": [-1]},
        {k: v for k, v in document.items() if k != "traces"},
    ):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(broken, schema)
