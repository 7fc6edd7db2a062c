"""One trace, one geometry: ``geometry_scale`` (``--geometry-scale`` on the command line, a
keyword of the API) is one parameter of the core, read by every system with bands or zones; it
scales every size it claims to, defaults included, ``auto`` takes the factor from the paper
trace a sample is named after, each run says which bands it had and why, and a trace spanning
fewer than 50 bands is warned, in the result, whichever front ran it."""

from __future__ import annotations

import json
import re

import pytest
import smrlab
from conftest import DATA

WDEV = DATA / "wdev.csv.gz"
# The bundled wdev sample: 100,000 of the 2,654,824 requests of PORE's wdev (Table I).
WDEV_SCALE = 100_000 / 2_654_824


def geometry_lines(stderr: str) -> list[str]:
    return [line[line.index("geometry:") :] for line in stderr.splitlines() if "geometry:" in line]


def test_sim_says_its_bands_and_warns_when_they_are_few(cli, tmp_path):
    proc = cli("sim", "--system", "dmsmr", "--trace", WDEV, "--out", "plain.json", check=True)
    # The warning is among the table's notes, the geometry said after it.
    warned, said = geometry_lines(proc.stdout + proc.stderr)
    assert (
        said
        == "geometry: bands of 17MB to 36MB (the PORE paper's drive (§V-A), unscaled); 7 bands over the trace's footprint"
    )
    assert warned.startswith("geometry: only 7 bands: the figures are dominated by the few bands the trace touches")
    # auto: the sample's requests over PORE's wdev's, as the demo scales it.
    proc = cli(
        "sim", "--system", "dmsmr", "--trace", WDEV, "--geometry-scale", "auto", "--out", "scaled.json", check=True
    )
    [said] = geometry_lines(proc.stderr)
    bands = int(re.search(r"; ([0-9,]+) bands over", said).group(1).replace(",", ""))
    assert "scaled by 0.0376673 (geometry_scale auto: 100,000 of wdev's 2,654,824 requests" in said and bands >= 50
    scaled = json.loads((tmp_path / "scaled.json").read_text())
    assert scaled["config"]["params"]["band_min"] == str(round(17e6 * WDEV_SCALE))
    assert scaled["config"]["params"]["geometry_scale"] == "auto:wdev"
    plain = json.loads((tmp_path / "plain.json").read_text())
    assert scaled["derived"]["r_wa"] < plain["derived"]["r_wa"]


def test_the_scale_covers_the_default_zone_as_a_given_one(cli, tmp_path):
    """54.3: a PORE cache scaled with its defaults runs as with the default typed out."""
    runs = {}
    for name, typed in (("default", []), ("typed", ["--zone", "20MB"])):
        out = tmp_path / f"{name}.json"
        cli("sim", "--system", "pore", "--trace", WDEV, "--geometry-scale", "0.0377", *typed, "--out", out, check=True)
        runs[name] = json.loads(out.read_text())
    assert runs["default"]["config"]["params"]["zone"] == str(round(20e6 * 0.0377))
    assert (
        runs["default"]["report"] == runs["typed"]["report"] and runs["default"]["derived"] == runs["typed"]["derived"]
    )


def test_the_api_takes_the_scale_and_carries_the_warnings():
    """54.4: ``geometry_scale`` is a keyword of ``simulate``, and the few-bands warning is in
    the result the API returns."""
    plain = smrlab.simulate("cache", WDEV, zone=20e6)
    assert any("only 7 bands" in warning for warning in plain.warnings)
    scaled = smrlab.simulate("cache", WDEV, zone=20e6, geometry_scale="auto")
    assert scaled.warnings == [] and scaled.config["params"]["zone"] == str(round(20e6 * WDEV_SCALE))
    assert scaled.derived["r_wa"] < plain.derived["r_wa"]
    with pytest.raises(smrlab.ParameterError, match="did you mean 'wdev'") as refused:
        smrlab.simulate("dmsmr", WDEV, geometry_scale="auto:wdv")
    assert refused.value.key == "geometry_scale"


def test_the_estimate_takes_the_same_scale_and_says_its_bands(cli):
    plain = cli("trace", "smr-estimate", WDEV, "--json", check=True)
    scaled = cli("trace", "smr-estimate", WDEV, "--geometry-scale", "auto", "--json", check=True)
    plain, scaled = json.loads(plain.stdout), json.loads(scaled.stdout)
    assert scaled["r_wa"] < plain["r_wa"] / 3
    assert any("only" in line for line in plain["geometry"]) and not any("only" in line for line in scaled["geometry"])


def test_a_plain_disk_has_no_bands_to_speak_of(cli):
    assert geometry_lines(cli("sim", "--system", "cmr", "--trace", WDEV, "--out", "cmr.json", check=True).stderr) == []
