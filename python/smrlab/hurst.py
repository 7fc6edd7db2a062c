"""Self-similarity statistics of a series: the autocorrelation function and five estimators of
the Hurst parameter H, as the SMRDB thesis applies them to arrival series (§4.3.3, Table 4.2,
after Feitelson's *Workload Modeling* and the SELFIS tool).

A series here is a 1-D sequence of numbers: inter-arrival times, or arrivals counted per
interval. H = 0.5 means no long-range dependence (a Poisson process's counts); 0.5 < H < 1
means long-range dependence (self-similar traffic). Each estimator returns H alone;
``estimate_all`` runs the five.

- ``aggregate_variance``: the variance of the series averaged over blocks of m falls as
  m^(2H-2); H from the slope of log variance against log m, each variance divided by the
  factor 1 - (m/n)^(2-2H) by which the sample variance of n/m block means falls short of it
  (H iterated to a fixed point): without it the estimate is 0.04-0.08 low at H = 0.9.
- ``rescaled_range``: the mean rescaled range R/S of windows of n grows as n^H; with the
  Anis-Lloyd-Peters correction (the slope of log(R/S) minus log of its expectation for white
  noise, plus 0.5), which removes most of the small-window bias.
- ``periodogram``: near frequency 0 the spectrum goes as f^(1-2H); H from the slope of the log
  periodogram at the lowest 10 % of frequencies.
- ``abry_veitch``: the energy of wavelet details at octave j goes as 2^(j(2H-1)); H from a
  weighted regression of the bias-corrected log2 energies (Daubechies-2 wavelet).
- ``whittle``: the H whose fractional-Gaussian-noise spectrum best explains the periodogram
  (Whittle's approximate likelihood, the scale profiled out).

Not here: making arrival series (``smrlab.workload``) or reading them from files.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

__all__ = [
    "ESTIMATORS",
    "abry_veitch",
    "acf",
    "aggregate_variance",
    "estimate_all",
    "periodogram",
    "rescaled_range",
    "whittle",
]


def _series(x, minimum: int = 64) -> np.ndarray:
    x = np.asarray(x, dtype=float)
    if x.ndim != 1 or len(x) < minimum:
        raise ValueError(f"a series of at least {minimum} numbers is needed, not {x.shape}")
    if not np.all(np.isfinite(x)):
        raise ValueError("the series holds values that are not finite numbers")
    with np.errstate(over="ignore"):  # a range past the largest float is not 0 either
        spread = np.ptp(x)
    if spread == 0:
        raise ValueError("the series is constant: it has no variance to analyse")
    # Every estimate, and the ACF, is unchanged by scaling the series; one whose numbers are so
    # large or so small that their squares overflow or vanish is scaled to at most 1 first.
    largest = float(np.max(np.abs(x)))
    if not _SAFE_SCALE[0] <= largest <= _SAFE_SCALE[1]:
        x = x / largest
    return x


_SAFE_SCALE = (1e-100, 1e100)


def acf(x, max_lag: int) -> np.ndarray:
    """r(0..max_lag) with the thesis's definition: r(k) = mean over i of (X_i - mu)(X_{i+k} - mu),
    divided by the variance (so r(0) = 1)."""
    x = _series(x, minimum=2)
    max_lag = min(int(max_lag), len(x) - 1)
    d = x - x.mean()
    var = float(np.mean(d * d))
    n = len(d)
    size = 1 << (2 * n - 1).bit_length()
    spectrum = np.fft.rfft(d, size)
    products = np.fft.irfft(spectrum * np.conj(spectrum), size)[: max_lag + 1]
    return products / (n - np.arange(max_lag + 1)) / var


def _slope(x: np.ndarray, y: np.ndarray, weights: np.ndarray | None = None) -> float:
    return float(np.polyfit(x, y, 1, w=None if weights is None else np.sqrt(weights))[0])


def _log_sizes(smallest: int, largest: int, count: int = 20) -> np.ndarray:
    return np.unique(np.round(np.logspace(math.log10(smallest), math.log10(largest), count)).astype(int))


def aggregate_variance(x) -> float:
    """H from the variance of block means over block sizes 10 .. n/10 (bias-corrected)."""
    x = _series(x)
    sizes = _log_sizes(10, max(20, len(x) // 10))
    log_var = []
    for m in sizes:
        blocks = len(x) // m
        log_var.append(math.log(x[: blocks * m].reshape(blocks, m).mean(axis=1).var()))
    log_m, log_var = np.log(sizes), np.array(log_var)
    plain = h = 1.0 + _slope(log_m, log_var) / 2.0
    # The correction assumes a self-similar series with 0 < H < 1; elsewhere (a periodic
    # series, say) it has no fixed point and the plain slope is returned.
    for _ in range(50):
        if not 0.0 < h < 1.0:
            return plain
        shortfall = 1.0 - (sizes / len(x)) ** (2.0 - 2.0 * h)
        previous, h = h, 1.0 + _slope(log_m, log_var - np.log(shortfall)) / 2.0
        if abs(h - previous) < 1e-6:
            return h
    return plain


def _expected_rs(n: int) -> float:
    """Anis and Lloyd's expected R/S of n independent Gaussian values, with Peters's (n - 1/2)/n
    factor."""
    i = np.arange(1, n)
    root_sum = float(np.sum(np.sqrt((n - i) / i)))
    if n <= 340:
        gamma_ratio = math.exp(math.lgamma((n - 1) / 2) - math.lgamma(n / 2)) / math.sqrt(math.pi)
    else:
        gamma_ratio = 1.0 / math.sqrt(n * math.pi / 2)
    return (n - 0.5) / n * gamma_ratio * root_sum


def _mean_rs(x: np.ndarray, n: int) -> float:
    windows = x[: (len(x) // n) * n].reshape(-1, n)
    walks = np.cumsum(windows - windows.mean(axis=1, keepdims=True), axis=1)
    ranges = walks.max(axis=1) - walks.min(axis=1)
    spreads = windows.std(axis=1, ddof=1)
    keep = ranges > 0
    return float(np.mean(ranges[keep] / spreads[keep]))


def rs_window_sizes(length: int) -> np.ndarray:
    """Window sizes of ``rescaled_range``: 16 .. length/4, logarithmically spaced."""
    return _log_sizes(16, max(32, length // 4), 15)


def rescaled_range(x) -> float:
    """H from the corrected R/S slope over windows of ``rs_window_sizes``."""
    x = _series(x)
    sizes = rs_window_sizes(len(x))
    log_rs = np.log([_mean_rs(x, n) for n in sizes]) - np.log([_expected_rs(n) for n in sizes])
    return _slope(np.log(sizes), log_rs) + 0.5


def _periodogram(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Fourier frequencies in (0, pi) and the periodogram there."""
    n = len(x)
    d = x - x.mean()
    power = np.abs(np.fft.rfft(d)) ** 2 / (2 * math.pi * n)
    freqs = 2 * math.pi * np.arange(len(power)) / n
    keep = (freqs > 0) & (freqs < math.pi)
    return freqs[keep], power[keep]


def periodogram(x) -> float:
    """H from the log-log slope of the periodogram at the lowest 10 % of frequencies."""
    freqs, power = _periodogram(_series(x))
    low = max(8, len(freqs) // 10)
    return (1.0 - _slope(np.log(freqs[:low]), np.log(power[:low]))) / 2.0


# Daubechies-2 low-pass filter (four taps, two vanishing moments).
_DB2 = np.array([1 + math.sqrt(3), 3 + math.sqrt(3), 3 - math.sqrt(3), 1 - math.sqrt(3)]) / (4 * math.sqrt(2))
_DB2_HIGH = _DB2[::-1] * np.array([1, -1, 1, -1])


def _digamma(z: float) -> float:
    """psi(z) for z >= 1: recurrence up to 6, then the asymptotic series."""
    result = 0.0
    while z < 6:
        result -= 1 / z
        z += 1
    inv = 1 / (z * z)
    return result + math.log(z) - 0.5 / z - inv * (1 / 12 - inv * (1 / 120 - inv / 252))


def abry_veitch(x, first_octave: int = 2) -> float:
    """H from the wavelet log-scale diagram over octaves ``first_octave`` up to the last with
    at least 16 details (weighted by detail counts, log2 energies bias-corrected)."""
    approx = _series(x)
    octaves, energies, counts = [], [], []
    j = 0
    while len(approx) >= 2 * len(_DB2) + 32:
        j += 1
        detail = np.convolve(approx, _DB2_HIGH[::-1], mode="valid")[::2]
        approx = np.convolve(approx, _DB2[::-1], mode="valid")[::2]
        n_j = len(detail)
        if j >= first_octave and n_j >= 16:
            mu = float(np.mean(detail**2))
            octaves.append(j)
            energies.append(math.log2(mu) - (_digamma(n_j / 2) / math.log(2) - math.log2(n_j / 2)))
            counts.append(n_j)
    if len(octaves) < 2:
        raise ValueError("the series is too short for the wavelet estimator (fewer than two octaves)")
    return (_slope(np.array(octaves, float), np.array(energies), np.array(counts, float)) + 1.0) / 2.0


def _fgn_spectrum(freqs: np.ndarray, h: float, terms: int = 10) -> np.ndarray:
    """The spectral density of fractional Gaussian noise, up to a constant: (1 - cos f) times the
    sum over j of |f + 2 pi j|^(-2H-1), its tail beyond ``terms`` by the integral."""
    d = 2 * h + 1
    total = np.abs(freqs) ** -d
    for j in range(1, terms + 1):
        total += (2 * math.pi * j + freqs) ** -d + (2 * math.pi * j - freqs) ** -d
    edge = 2 * math.pi * (terms + 0.5)
    total += ((edge + freqs) ** (1 - d) + (edge - freqs) ** (1 - d)) / ((d - 1) * 2 * math.pi)
    return (1 - np.cos(freqs)) * total


def whittle(x) -> float:
    """H in (0.01, 0.99) minimising Whittle's objective for fractional Gaussian noise."""
    freqs, power = _periodogram(_series(x))

    def objective(h: float) -> float:
        f = _fgn_spectrum(freqs, h)
        return math.log(float(np.mean(power / f))) + float(np.mean(np.log(f)))

    lo, hi = 0.01, 0.99
    golden = (math.sqrt(5) - 1) / 2
    a, b = hi - golden * (hi - lo), lo + golden * (hi - lo)
    fa, fb = objective(a), objective(b)
    while hi - lo > 1e-4:
        if fa < fb:
            hi, b, fb = b, a, fa
            a = hi - golden * (hi - lo)
            fa = objective(a)
        else:
            lo, a, fa = a, b, fb
            b = lo + golden * (hi - lo)
            fb = objective(b)
    return (lo + hi) / 2


ESTIMATORS = {
    "aggregate variance": aggregate_variance,
    "R/S": rescaled_range,
    "periodogram": periodogram,
    "Abry-Veitch": abry_veitch,
    "Whittle": whittle,
}


def estimate_all(x) -> dict[str, float | None]:
    """The five estimates of H, by estimator name (Table 4.2's columns); None for an estimator
    the series leaves undefined (its variance, range or spectrum vanishes at a scale the
    estimator takes a logarithm of, as in a series that repeats with a short period)."""
    _series(x)  # what no estimator can take is refused for all
    estimates: dict[str, float | None] = {}
    for name, estimator in ESTIMATORS.items():
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # a mean of no windows: None below
            try:
                value = float(estimator(x))
            except (ValueError, ZeroDivisionError):  # a logarithm of 0 (math domain error)
                value = None
        estimates[name] = value if value is not None and math.isfinite(value) else None
    return estimates
