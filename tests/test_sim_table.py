"""``smrlab sim``'s tables for people: measures named by their declared meaning (the paper's
name beside it where it has one) with units, the counters and gauges only with ``--all``, under
the core's names."""

from __future__ import annotations

import json

import smrlab
from conftest import DATA
from smrlab import Trace, tables
from smrlab.sim_table import declared_rows, named, print_result


def printed(capsys, result: dict, everything: bool) -> list[dict]:
    """The tables ``print_result`` prints, as the JSON of ``--json``."""
    tables.gather_json()
    print_result(result, "dmsmr", everything)
    tables.flush()
    return json.loads(capsys.readouterr().out)["tables"]


def test_sim_names_its_measures_for_people_and_shows_every_counter_only_when_asked(cli, tmp_path, capsys):
    proc = cli("sim", "--system", "dmsmr", "--trace", DATA / "wdev.csv.gz", "--all", "--out", "r.json", check=True)
    assert "SMR write amplification (R_wa)" in proc.stdout and "--all shows them" not in proc.stdout
    result = json.loads((tmp_path / "r.json").read_text())
    [brief] = printed(capsys, result, everything=False)
    rows = {row[0]: row for row in brief["rows"]}
    assert rows["SMR write amplification (R_wa)"][1:] == [result["derived"]["r_wa"], "", "r_wa"]
    assert rows["total I/O time"][2] == "s" and "band_cleanings" not in {row[3] for row in brief["rows"]}
    assert any("counters and" in line and "--all shows them" in line for line in brief["notes"])
    headline, counters, gauges = printed(capsys, result, everything=True)
    by_name = {row[3]: row for row in counters["rows"]}
    assert by_name["band_cleanings"][0] == "bands read, merged with their buffered blocks and rewritten whole"
    assert by_name["band_cleanings"][1] == result["report"]["counters"]["band_cleanings"] > 0
    assert {row[3] for row in gauges["rows"]} == set(dict(result["report"]["gauges"]))


def test_no_two_measures_of_a_table_share_a_name():
    # FluidSMR, uCache and PORE declare many measures as "SYSTEM: meaning", and E-region its
    # gauge statistics as "maximum of: meaning": named by what came before the colon, a fluid
    # run's table had four rows called "FluidSMR".
    trace = Trace.open(DATA / "vm-local.csv.gz").to_numpy()[:2000]
    for system, params in (
        ("fluid", {"zone_size": "16MiB"}),
        ("ucache", {"zone_size": "64MiB", "conventional": "192MiB"}),
        ("eregion", {"zone_size": "64MiB", "conventional": "192MiB"}),
        ("pore", {}),
    ):
        result = smrlab.simulate(system, trace, **params)
        for values in (result.derived, result.counters):
            names = [named(key, result.metrics.get(key, {})) for key in values]
            assert len(names) == len(set(names)), (system, sorted(names))
            assert not [name for name in names if " " not in name], (system, names)


def test_times_declared_in_nanoseconds_are_shown_in_milliseconds_as_the_headline_is():
    rows = declared_rows({"mean_latency_ns": 38_645_512}, {"mean_latency_ns": {"unit": "ns", "meaning": "latency"}})
    assert rows == [("latency", 38.645512, "ms", "mean_latency_ns")]
