"""Arrival series: seeded and deterministic, sorted, at the asked average rate; their statistics
have the shape of the thesis's Table 4.2 and Fig. 4.9 (Poisson: ACF near 0 from lag 1, H about
0.5; b-model: H clearly above 0.5 per second; diurnal: ACF oscillating with the cycle); series
files and the ``smrlab workload`` commands, with their errors."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from smrlab import _core, arrival_names, hurst, workload
from smrlab.cli.workload import ARRIVAL_OPTIONS
from smrlab.errors import ParameterError


@settings(max_examples=25, deadline=None)
@given(process=st.sampled_from(workload.PROCESSES), seed=st.integers(0, 2**32), rate=st.floats(1, 3000))
def test_arrivals_are_sorted_bounded_and_seeded(process, seed, rate):
    options = {
        "selfsimilar": {"bias": 0.7},
        "diurnal": {"modulation": rate / 2, "cycle_minutes": 0.05, "shape": 1.5},
    }.get(process, {})
    t = workload.arrivals(process, rate, 2.0, seed, **options)
    assert np.all(np.diff(t) >= 0)
    assert len(t) == 0 or (t[0] >= 0 and t[-1] < 2e9)
    assert np.array_equal(t, workload.arrivals(process, rate, 2.0, seed, **options))


def test_poisson_series_look_like_table_4_2():
    t = workload.arrivals("poisson", 50, 16384, seed=3)
    gaps = workload.interarrivals(t)
    assert abs(gaps.mean() - 0.02) < 0.0003
    assert np.max(np.abs(hurst.acf(gaps, 20)[1:])) < 0.01
    per_second = workload.counts(t, 1.0, 16384)
    estimates = hurst.estimate_all(per_second)
    assert all(abs(h - 0.5) <= 0.08 for h in estimates.values()), estimates


@pytest.mark.parametrize("bias", [0.65, 0.75])
def test_bmodel_is_self_similar_per_second(bias):
    t = workload.arrivals("selfsimilar", 100, 4096, seed=5, bias=bias)
    estimates = hurst.estimate_all(workload.counts(t, 1.0, 4096))
    assert all(h > 0.65 for h in estimates.values()), estimates
    gaps = workload.interarrivals(t)
    assert hurst.acf(gaps, 10)[1] > 0.05, "bursts: short gaps follow short gaps"


@pytest.mark.parametrize("bias", [0.55, 0.65, 0.75])
def test_bmodel_variance_time_h_is_the_cascades(bias):
    # Each halving multiplies a cell's count by b or 1 - b (a fair coin), so the second moment
    # of a cell's count falls by (b^2 + (1-b)^2) / 2 per level while block means scale by 2:
    # the variance of m-second means goes as m^-log2(2(b^2 + (1-b)^2)), so
    # H = 1 - log2(2(b^2 + (1-b)^2)) / 2 (0.99, 0.94 and 0.84 here). Burstier b, lower H.
    expected = 1 - np.log2(2 * (bias**2 + (1 - bias) ** 2)) / 2
    t = workload.arrivals("selfsimilar", 100, 4096, seed=6, bias=bias)
    assert hurst.aggregate_variance(workload.counts(t, 1.0, 4096)) == pytest.approx(expected, abs=0.04)


@pytest.mark.parametrize("shape", [1.1, 1.5, 1.9])
def test_diurnal_acf_oscillates_with_the_cycle(shape):
    # A 2-minute cycle over 20 minutes, counted per second: one cycle is 120 lags.
    t = workload.arrivals("diurnal", 200, 1200, seed=7, modulation=180, cycle_minutes=2, shape=shape)
    r = hurst.acf(workload.counts(t, 1.0, 1200), 130)
    # Pareto noise with alpha near 1 damps the oscillation; its sign still follows the cycle.
    assert r[60] < -0.25 and r[120] > 0.25, (r[60], r[120])
    assert r[30] > r[60] < r[90] < r[120]
    if shape >= 1.5:
        # At alpha = 1.1 the Pareto sample mean converges so slowly that a run of this length
        # has markedly more arrivals than its rate: most gaps fall below the mean.
        assert abs(len(t) / 1200 / 200 - 1) < 0.2


def test_series_files_round_trip_and_bad_lines_are_named(tmp_path):
    t = workload.arrivals("poisson", 50, 10, seed=1)
    path = tmp_path / "s.txt"
    workload.write_series(path, t, {"process": "poisson"})
    values, header = workload.read_series(path)
    assert header == {"kind": "arrivals", "process": "poisson"}
    assert np.array_equal(np.round(values * 1e9).astype(np.int64), t)
    bad = tmp_path / "bad.txt"
    bad.write_text("# kind=arrivals\n0.1\n0.3\n0.2\n")
    with pytest.raises(workload.SeriesError, match="must not decrease"):
        workload.read_series(bad)
    bad.write_text("1\n2\ninf\n")
    with pytest.raises(workload.SeriesError, match="line 3"):
        workload.read_series(bad)


def test_arrivals_and_analyze_commands(cli, tmp_path):
    proc = cli(
        "workload",
        "arrivals",
        "--process",
        "selfsimilar",
        "--bias",
        "0.65",
        "--rate",
        "200",
        "--duration",
        "1024",
        "--out",
        "ss.txt",
        check=True,
    )
    assert "204,800 arrivals" in proc.stdout
    proc = cli("workload", "analyze", "ss.txt", "--json", "--png", "acf.png", check=True)
    out = json.loads(proc.stdout)
    assert out["values"] == 1024 and out["acf"][0] == pytest.approx(1.0)
    assert set(out["hurst"]) == {"aggregate variance", "R/S", "periodogram", "Abry-Veitch", "Whittle"}
    assert sum(h > 0.6 for h in out["hurst"].values()) >= 4, out["hurst"]
    assert (tmp_path / "acf.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    proc = cli("workload", "analyze", "ss.txt", "--interarrivals", "--max-lag", "5", check=True)
    assert "inter-arrival times" in proc.stdout and "Whittle" in proc.stdout


@pytest.mark.parametrize(
    "args, named",
    [
        (
            ["workload", "arrivals", "--process", "selfsimilar", "--rate", "10", "--duration", "5", "--out", "x"],
            "--bias (the b-model's bias, from 0.5 (spreading evenly) to below 1; a share): needed by process 'selfsimilar'",
        ),
        (
            [
                "workload",
                "arrivals",
                "--process",
                "selfsimilar",
                "--bias",
                "1.5",
                "--rate",
                "10",
                "--duration",
                "5",
                "--out",
                "x",
            ],
            "--bias (the b-model's bias, from 0.5 (spreading evenly) to below 1; a share): must be in [0.5, 1)",
        ),
        (
            [
                "workload",
                "arrivals",
                "--process",
                "diurnal",
                "--modulation",
                "20",
                "--cycle",
                "1",
                "--shape",
                "1.5",
                "--rate",
                "10",
                "--duration",
                "5",
                "--out",
                "x",
            ],
            "--modulation (the sine envelope's amplitude, from 0 to below --rate; requests per second): must be in [0, --rate)",
        ),
        (
            [
                "workload",
                "arrivals",
                "--process",
                "diurnal",
                "--modulation",
                "2",
                "--cycle",
                "1",
                "--shape",
                "0.5",
                "--rate",
                "10",
                "--duration",
                "5",
                "--out",
                "x",
            ],
            "--shape (the Pareto shape, above 1; a Pareto shape): must be above 1",
        ),
        (["workload", "arrivals", "--rate", "-1", "--duration", "5", "--out", "x"], "--rate"),
        (["workload", "arrivals", "--rate", "1e300", "--duration", "1e300", "--out", "x"], "--duration"),
        (["workload", "arrivals", "--rate", "10", "--duration", "5", "--seed", "-1", "--out", "x"], "--seed"),
        (["workload", "arrivals", "--rate", "10", "--duration", "5", "--out", "."], "folder"),
        (["workload", "arrivals", "--process", "burst", "--rate", "1", "--duration", "5", "--out", "x"], "--process"),
        (["workload", "analyze", "missing.txt"], "missing.txt"),
    ],
)
def test_bad_arrival_options_exit_2_naming_what(cli, args, named):
    # Named as the user gave it (--bias, its meaning and unit), never by the core's Table 4.1 key.
    proc = cli(*args)
    assert proc.returncode == 2, proc.stderr
    assert named in proc.stderr and "Traceback" not in proc.stderr
    assert not any(key in proc.stderr for key in TABLE_4_1_KEYS), proc.stderr


# The core's names of the arrival parameters that no caller spells so.
TABLE_4_1_KEYS = [key for word, key in arrival_names.KEYWORDS.items() if key != word]


def test_every_arrival_parameter_has_a_keyword_and_an_option():
    # From the core's declarations: a parameter declared there and not given a keyword of
    # workload.arrival_params and an option of the command line fails here.
    declared = {key for key, *_ in _core.arrival_params()}
    assert set(arrival_names.KEYWORDS.values()) == declared
    assert set(ARRIVAL_OPTIONS) == set(arrival_names.KEYWORDS)


@pytest.mark.parametrize("keyword", sorted(arrival_names.KEYWORDS))
def test_a_bad_arrival_keyword_is_named_as_given_with_its_unit_and_range(keyword):
    # Each keyword of workload.arrivals given text that is no number and no name: the error
    # names the keyword, and the core's unit and meaning of its parameter.
    key = arrival_names.KEYWORDS[keyword]
    needs = {"ss": ("selfsimilar", {"bias": 0.7}), "diurnal": ("diurnal", DIURNAL)}
    process, options = needs.get(key.split(".")[0], ("poisson", {}))
    given = {"process": process, "rate": 10, "duration": 5, **options, keyword: "x?"}
    with pytest.raises(ParameterError) as raised:
        workload.arrivals(given.pop("process"), given.pop("rate"), given.pop("duration"), **given)
    message = str(raised.value)
    assert message.startswith(keyword) and not any(k in message for k in TABLE_4_1_KEYS), message
    if keyword not in ("process", "rate", "duration"):  # checked in Python, before the core
        unit, meaning = arrival_names.declared()[key]
        assert f"{keyword} ({meaning.split(',')[0]}" in message and f"; {unit}): " in message, message


@pytest.mark.parametrize(
    "process, needed", [("selfsimilar", "bias"), ("diurnal", "modulation"), ("diurnal", "cycle_minutes")]
)
def test_a_parameter_a_process_needs_is_named_before_it_runs(process, needed):
    options = {k: v for k, v in {"selfsimilar": {"bias": 0.7}, "diurnal": DIURNAL}[process].items() if k != needed}
    with pytest.raises(ParameterError, match=rf"^{needed} \(.*\): needed by process '{process}', and not given$"):
        workload.arrival_params(process, 10, 5, **options)


DIURNAL = {"modulation": 2, "cycle_minutes": 1, "shape": 1.5}


def test_corrupt_series_files_exit_2(cli, tmp_path):
    (tmp_path / "bad.txt").write_text("0.5\n0.7\nseven\n")
    proc = cli("workload", "analyze", "bad.txt")
    assert proc.returncode == 2 and "bad.txt, line 3" in proc.stderr
    (tmp_path / "short.txt").write_text("1\n2\n3\n")
    proc = cli("workload", "analyze", "short.txt")
    assert proc.returncode == 2 and "at least" in proc.stderr and "Traceback" not in proc.stderr
