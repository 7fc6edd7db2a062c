"""``smrlab sim``'s tables for people: measures named by their declared meaning (the paper's
name beside it where it has one) with units, the counters and gauges only with ``--all``, under
the core's names."""

from __future__ import annotations

import json

from conftest import DATA
from smrlab import tables
from smrlab.sim_table import print_result


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
