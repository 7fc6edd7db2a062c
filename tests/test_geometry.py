"""One trace, one geometry: ``sim`` and ``trace smr-estimate`` take ``--geometry-scale`` as
``compare-caches`` and the demo do, each says which bands it had and why, and a trace spanning
fewer than 50 bands is told that its figures are dominated by them."""

from __future__ import annotations

import json
import re

from conftest import DATA
from smrlab.bundled import sample_scale

WDEV = DATA / "wdev.csv.gz"


def geometry_lines(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("geometry:")]


def test_sim_says_its_bands_and_warns_when_they_are_few(cli, tmp_path):
    proc = cli("sim", "--system", "dmsmr", "--trace", WDEV, "--out", "plain.json", check=True)
    said, warned = geometry_lines(proc.stderr)
    assert (
        said
        == "geometry: bands of 17MB to 36MB (the PORE paper's drive (§V-A), unscaled); 7 bands over the trace's footprint"
    )
    assert warned.startswith("geometry: only 7 bands: the figures are dominated by the few bands the trace touches")
    # Scaled as the demo scales the sample, the same numbers as the demo's dmsmr run.
    scale = sample_scale("wdev")
    proc = cli(
        "sim", "--system", "dmsmr", "--trace", WDEV, "--geometry-scale", str(scale), "--out", "scaled.json", check=True
    )
    [said] = geometry_lines(proc.stderr)
    bands = int(re.search(r"; ([0-9,]+) bands over", said).group(1).replace(",", ""))
    assert f"scaled by {scale:g} (--geometry-scale)" in said and bands >= 50
    demo = json.loads((tmp_path / "scaled.json").read_text())
    assert demo["config"]["params"]["band_min"] == str(round(17e6 * scale))
    plain = json.loads((tmp_path / "plain.json").read_text())
    assert demo["derived"]["r_wa"] < plain["derived"]["r_wa"]


def test_the_estimate_takes_the_same_scale_and_says_its_bands(cli):
    plain = cli("trace", "smr-estimate", WDEV, "--json", check=True)
    scaled = cli("trace", "smr-estimate", WDEV, "--geometry-scale", str(sample_scale("wdev")), "--json", check=True)
    plain, scaled = json.loads(plain.stdout), json.loads(scaled.stdout)
    assert scaled["r_wa"] < plain["r_wa"] / 3
    assert any("only" in line for line in plain["geometry"]) and not any("only" in line for line in scaled["geometry"])


def test_a_plain_disk_has_no_bands_to_speak_of(cli):
    assert geometry_lines(cli("sim", "--system", "cmr", "--trace", WDEV, "--out", "cmr.json", check=True).stderr) == []
