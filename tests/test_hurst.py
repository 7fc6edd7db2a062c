"""The Hurst estimators and the ACF against series of known character: fractional Gaussian
noise of known H (PyPI ``fbm``), Poisson counts (H = 0.5, no autocorrelation), and R/S
cross-checked against ``nolds.hurst_rs`` on the same series. Tolerances are the issue's:
Whittle and Abry-Veitch within 0.05, aggregate variance and periodogram within 0.08, R/S within
0.12, all within 0.08 of 0.5 on Poisson counts; seeds fixed."""

from __future__ import annotations

import numpy as np
import pytest
from fbm import FBM
from smrlab import hurst

N = 2**16
TOLERANCE = {"Whittle": 0.05, "Abry-Veitch": 0.05, "aggregate variance": 0.08, "periodogram": 0.08, "R/S": 0.12}


def fgn(h: float, seed: int) -> np.ndarray:
    np.random.seed(seed)
    return FBM(n=N, hurst=h, length=1, method="daviesharte").fgn()


@pytest.mark.parametrize("h", [0.6, 0.7, 0.8, 0.9])
@pytest.mark.parametrize("seed", [11, 12, 13])
def test_estimators_recover_the_h_of_fractional_gaussian_noise(h, seed):
    estimates = hurst.estimate_all(fgn(h, seed))
    errors = {name: round(value - h, 3) for name, value in estimates.items()}
    assert all(abs(errors[name]) <= TOLERANCE[name] for name in TOLERANCE), errors


@pytest.mark.parametrize("seed", [21, 22, 23])
def test_poisson_counts_have_h_one_half_and_no_autocorrelation(seed):
    counts = np.random.default_rng(seed).poisson(50, N).astype(float)
    estimates = hurst.estimate_all(counts)
    assert all(abs(v - 0.5) <= 0.08 for v in estimates.values()), estimates
    r = hurst.acf(counts, 50)
    assert r[0] == pytest.approx(1.0)
    assert np.max(np.abs(r[1:])) < 0.03


def test_rescaled_range_agrees_with_nolds():
    import nolds

    for h, seed in [(0.6, 31), (0.8, 32)]:
        x = fgn(h, seed)
        theirs = nolds.hurst_rs(x, nvals=hurst.rs_window_sizes(len(x)), fit="poly", corrected=True, unbiased=True)
        assert hurst.rescaled_range(x) == pytest.approx(theirs, abs=1e-6)


def test_acf_matches_the_definition():
    x = np.random.default_rng(4).normal(size=300).cumsum()
    d = x - x.mean()
    by_hand = [np.mean(d[: len(d) - k] * d[k:]) / np.mean(d * d) for k in range(6)]
    assert hurst.acf(x, 5) == pytest.approx(by_hand)


def test_unusable_series_are_refused():
    for bad in ([1.0] * 100, [1.0, 2.0], [1.0, np.nan] * 50):
        with pytest.raises(ValueError):
            hurst.estimate_all(bad)


def test_a_scale_no_estimator_can_square_is_scaled_first_and_changes_no_estimate():
    # Every estimate is unchanged by scaling; at 1e300 (squares overflow) or 1e-300 (squares
    # vanish) the series is scaled to at most 1 first, so the estimates are those of the series.
    x = fgn(0.7, 33)
    unscaled = hurst.estimate_all(x)
    for factor in (1e300, 1e-300):
        assert hurst.estimate_all(x * factor) == pytest.approx(unscaled, rel=1e-6)
        assert hurst.acf(x * factor, 5) == pytest.approx(hurst.acf(x, 5), rel=1e-6)


def test_an_estimator_a_series_leaves_undefined_is_none_not_a_math_error(cli, tmp_path):
    # A series of period 2: its means over blocks of an even size all agree (no variance to
    # take the logarithm of), and its periodogram is zero at all the low frequencies.
    estimates = hurst.estimate_all([5.0, 6.0] * 1000)
    assert estimates["aggregate variance"] is None and estimates["periodogram"] is None
    assert all(v is None or np.isfinite(v) for v in estimates.values())
    series = tmp_path / "two.txt"
    series.write_text("5\n6\n" * 1000)
    done = cli("workload", "analyze", series, "--png", tmp_path / "two.png")
    assert done.returncode == 0 and "undefined" in done.stdout and "math domain" not in done.stderr, done.stderr
