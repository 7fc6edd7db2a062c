"""From the probes' observations to a verdict, estimates with their uncertainty, and the
parameters of the smrlab model that stands for the drive (``dmsmr`` for a drive-managed SMR
disk, ``cmr`` for a conventional one).

- Kind: DM-SMR when writes stall again and again, at close intervals once the first came,
  while random writes between the stalls are much faster than random reads (a log in front of
  the media); conventional when no stall recurs so and random writes position the head like
  reads, or a tenth of the range took writes; undetermined when the budget ended first.
- Media cache: the writes before the first stall (each a new 4 KiB block), exact to one write.
- Bands: each confined stall after the cache held only confined writes frees one band; the
  writes between two such stalls are that band's, so each band is measured to one stride.
  Equal to within two strides: one fixed size. Otherwise a uniform range (as ``dmsmr`` lays
  bands), its ends estimated from the smallest and largest band seen, widened by the expected
  gap of a uniform sample, and its mean with the standard error of that estimate.
- Idle cleaning: writes taken after a pause before the next stall; the level it cleaned down to,
  to one spread cleaning's worth (the blocks a spread stall frees).
- Disk: the preset whose model, replaying the very reads the drive was sent (on ``cmr``), comes
  closest in mean random read and sequential rate; not estimated when none is within 25 %.

Not here: the probes (``probes``) or the card's layout (``card``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from smrlab import systems

from .drive import BLOCK
from .probes import NO_CACHE_SHARE, Observations, Reads
from .simdrive import SimDevice

# Random writes between stalls faster than this share of a random read: a log takes them.
LOG_SHARE = 0.5
# A preset farther than this (relative error of its mean read and sequential rate) is no fit.
PRESET_TOLERANCE = 0.25


@dataclass
class Estimate:
    """One estimated quantity: its value and uncertainty (± in the same unit), or why not."""

    name: str
    unit: str
    value: float | str | None = None
    uncertainty: float | None = None
    how: str = ""
    not_estimated: str | None = None

    def as_json(self) -> dict:
        out = {"name": self.name, "unit": self.unit, "how": self.how}
        if self.not_estimated is not None:
            out["not_estimated"] = self.not_estimated
        else:
            out["value"], out["uncertainty"] = self.value, self.uncertainty
        return out


@dataclass
class Fit:
    kind: str  # "dm-smr", "conventional" or "undetermined"
    evidence: list[str] = field(default_factory=list)
    estimates: list[Estimate] = field(default_factory=list)
    system: str | None = None
    params: dict[str, str] = field(default_factory=dict)

    def estimate(self, name: str) -> Estimate:
        return next(e for e in self.estimates if e.name == name)


def recurring(stalls: list[int]) -> bool:
    """Stalls as a filling cache makes them: at least three, the ones after the first at least
    ten times closer together than the first came (a cleaning frees a sliver of the cache), where
    stray slow writes (another program, a busy machine) come at random."""
    if len(stalls) < 3:
        return False
    return (stalls[-1] - stalls[0]) / (len(stalls) - 1) < max(stalls[0], 1) / 10


def classify(seen: Observations, capacity: int, spent: str | None) -> tuple[str, list[str]]:
    fill, read_ms = seen.fill, seen.reads.median_ns / 1e6
    write_ms = fill.median_write_ns / 1e6
    evidence = [
        f"random 4 KiB reads: median {read_ms:.3f} ms; random 4 KiB writes between stalls: median {write_ms:.3f} ms",
        f"{fill.writes} random writes, {len(fill.stalls)} stalls (writes slower than "
        f"{seen.reads.stall_threshold() / 1e6:.0f} ms)",
    ]
    logged = fill.median_write_ns < LOG_SHARE * seen.reads.median_ns
    if recurring(fill.stalls.at) and logged:
        evidence.append(
            "random writes are absorbed by a log (much faster than reads) until it fills, then stall while it is cleaned"
        )
        return "dm-smr", evidence
    trend = fill.last_tenth_ns / fill.first_tenth_ns if fill.first_tenth_ns else 1.0
    evidence.append(
        f"write latency against written volume: median of the last tenth {trend:.2f} times the first tenth's"
    )
    quiet = not recurring(fill.stalls.at)
    if quiet and (not logged or fill.writes * BLOCK >= NO_CACHE_SHARE * capacity):
        why = "random writes cost what random reads do" if not logged else f"{fill.writes} writes took no cache"
        stray = (
            f" ({len(fill.stalls)} isolated slow writes, not the regular stalls of cleaning)" if fill.stalls.at else ""
        )
        evidence.append(f"conventional signature: no stall that recurs{stray}, and {why}")
        return "conventional", evidence
    evidence.append(
        f"writes look cached but {'too few stalls were' if fill.stalls.at else 'no stall was'} seen "
        f"before {spent or fill.stopped}"
    )
    return "undetermined", evidence


def preset_fit(reads: Reads, capacity: int, seed: int) -> tuple[Estimate, str | None]:
    """The disk preset whose model best replays the probe's own reads (on ``cmr``)."""
    names = systems.parameters("cmr")["disk"].choices or ()
    count = len(reads.random_ns)
    measured = (float(np.mean(reads.random_ns)), reads.sequential_bytes / max(float(reads.sequential_ns.sum()), 1.0))
    scores = []
    for name in names:
        try:
            model = SimDevice("cmr", [f"disk={name}"], capacity, seed).serve(reads.batch, "reads")
        except Exception:
            continue
        modelled = (float(np.mean(model[:count])), reads.sequential_bytes / max(float(model[count:].sum()), 1.0))
        error = max(abs(m - o) / o for m, o in zip(modelled, measured))
        scores.append((error, name, modelled))
    how = (
        f"measured: random read {measured[0] / 1e6:.2f} ms mean, sequential {measured[1] * 1e3:.0f} MB/s; "
        + "; ".join(f"{n}: {m[0] / 1e6:.2f} ms, {m[1] * 1e3:.0f} MB/s" for _, n, m in sorted(scores))
    )
    best = min(scores, default=None)
    if best is None or best[0] > PRESET_TOLERANCE:
        return Estimate(
            "disk", "preset", how=how, not_estimated="no disk preset within 25 % of the measured reads"
        ), None
    return Estimate("disk", "preset", value=best[1], uncertainty=best[0], how=f"off by {best[0]:.1%}; {how}"), best[1]


def cache(seen: Observations) -> Estimate:
    est = Estimate("media_cache", "bytes")
    if not seen.fill.stalls.at:
        est.not_estimated = f"no stall within {seen.fill.writes} random writes ({seen.fill.stopped})"
        return est
    blocks = seen.fill.stalls.at[0]
    est.value, est.uncertainty = blocks * BLOCK, BLOCK
    est.how = f"{blocks} random 4 KiB writes to new blocks went in before the first stall"
    return est


def spread_spacing(seen: Observations, most: bool = False) -> float | None:
    """Writes between stalls after the first, spread writes (the blocks a spread cleaning
    frees): their mean, or with ``most`` their largest."""
    at = seen.fill.stalls.at
    if len(at) < 2:
        return None
    return float(np.max(np.diff(at)) if most else np.mean(np.diff(at)))


def bands(seen: Observations, cache_blocks: int) -> tuple[list[Estimate], dict[str, str], list[str]]:
    """Band estimates and parameters, from the confined stalls."""
    conf = seen.confined
    mean = Estimate("band_mean", "bytes")
    low, high = Estimate("band_min", "bytes"), Estimate("band_max", "bytes")
    if conf is None:
        mean.not_estimated = low.not_estimated = high.not_estimated = "the confined probe did not run"
        return [mean, low, high], {}, []
    at = [w for w in conf.stalls.at if w >= cache_blocks]
    evidence = []
    if at and at[0] == cache_blocks:
        evidence.append(
            f"the first confined band was cleaned at exactly the cache's {cache_blocks} writes: "
            "the oldest block's band is cleaned first (FIFO), whole"
        )
    sizes = np.diff(at[1:]).astype(float) * conf.stride  # the first is cut by the region's start
    if len(sizes) < 2:
        why = f"{len(sizes)} whole bands measured before {conf.stopped or 'the probe ended'}"
        mean.not_estimated = low.not_estimated = high.not_estimated = why
        return [mean, low, high], {}, evidence
    k, stride = len(sizes), conf.stride
    spacing = spread_spacing(seen)
    if spacing:
        evidence.append(
            f"a cleaning freed {np.mean(sizes) / stride:.0f} writes confined in address order against "
            f"{spacing:.0f} spread ones: the drive cleans whole bands, not blocks"
        )
    how = f"{k} bands, each the writes between two confined stalls times the {stride // 1024} KiB stride"
    if sizes.max() - sizes.min() <= 2 * stride:
        value = float(np.mean(sizes))
        mean.value, mean.uncertainty, mean.how = value, float(stride), how + ": all equal"
        low.value = high.value = value
        low.uncertainty = high.uncertainty = float(stride)
        return [mean, low, high], {"band_size": str(round(value / BLOCK) * BLOCK)}, evidence
    spread = (sizes.max() - sizes.min()) / (k - 1)
    a, b = sizes.min() - spread, sizes.max() + spread
    mean.value = (a + b) / 2
    mean.uncertainty = float((b - a) / np.sqrt(2 * (k + 1) * (k + 2)))
    mean.how = how + f": uniform from {a / 1e6:.1f} to {b / 1e6:.1f} MB (sample mean {np.mean(sizes) / 1e6:.2f} MB)"
    low.value, high.value = float(a), float(b)
    low.uncertainty = high.uncertainty = float(spread)
    low.how = high.how = "smallest and largest band seen, widened by the expected gap of a uniform sample"
    params = {"band_min": str(round(a / BLOCK) * BLOCK), "band_max": str(round(b / BLOCK) * BLOCK)}
    return [mean, low, high], params, evidence


def idle_cleaning(seen: Observations, cache_blocks: int) -> tuple[list[Estimate], dict[str, str]]:
    cleaned = Estimate("idle_cleaned", "bytes")
    level = Estimate("idle_clean_level", "fraction of the cache")
    idle = seen.idle
    if idle is None or idle.writes_before_stall is None:
        cleaned.not_estimated = level.not_estimated = "the idle probe did not finish within the budget"
        return [cleaned, level], {}
    # The cache was full but for what the last cleaning before the pause freed and later writes
    # did not fill: up to one spread cleaning's blocks, so the count is known to within one.
    grain = spread_spacing(seen, most=True) or 1.0
    taken = idle.writes_before_stall
    cleaned.value, cleaned.uncertainty = taken * BLOCK, grain * BLOCK
    cleaned.how = f"{taken} writes went in after a {idle.pause_ns / 1e9:.0f} s pause with the cache (nearly) full"
    if taken <= 2 * grain:
        level.not_estimated = "no idle cleaning seen: the cache stayed full through the pause"
        return [cleaned, level], {"idle_clean": "false"}
    left = max(cache_blocks - taken, 0) / cache_blocks
    level.value, level.uncertainty = min(left + grain / cache_blocks, 1.0), grain / cache_blocks
    level.how = f"cleaned down to {left:.1%} of the cache, to within one spread cleaning ({grain:.0f} blocks)"
    return [cleaned, level], {"idle_clean": "true", "idle_clean_above": f"{level.value:.3f}"}


def sequential_evidence(seen: Observations) -> list[str]:
    seq = seen.sequential
    if seq is None or seq.requests == 0:
        return ["sequential writes: not probed within the budget"]
    rate = seq.bytes / seq.seconds / 1e6 if seq.seconds else float("inf")
    if seq.stalls:
        return [
            f"sequential 1 MiB writes with the cache full stalled {seq.stalls} times in {seq.requests}: "
            f"they go through the media cache ({rate:.0f} MB/s)"
        ]
    return [f"sequential 1 MiB writes with the cache full did not stall: they bypass the media cache ({rate:.0f} MB/s)"]


def fit(seen: Observations, capacity: int, seed: int, spent: str | None) -> Fit:
    kind, evidence = classify(seen, capacity, spent)
    result = Fit(kind, evidence)
    disk, preset = preset_fit(seen.reads, capacity, seed)
    result.estimates.append(disk)
    if preset:
        result.params["disk"] = preset
    if kind != "dm-smr":
        result.system = "cmr" if kind == "conventional" else None
        reason = "nothing stalled" if kind == "conventional" else "the drive was not classified"
        for name, unit in [("media_cache", "bytes"), ("band_mean", "bytes"), ("idle_clean_level", "fraction")]:
            result.estimates.append(Estimate(name, unit, not_estimated=reason))
        return result
    result.system = "dmsmr"
    est = cache(seen)
    result.estimates.append(est)
    cache_blocks = int(est.value // BLOCK)
    result.params["buffer"] = str(cache_blocks * BLOCK)
    band_estimates, band_params, band_evidence = bands(seen, cache_blocks)
    result.estimates += band_estimates
    result.params.update(band_params)
    result.evidence += band_evidence
    idle_estimates, idle_params = idle_cleaning(seen, cache_blocks)
    result.estimates += idle_estimates
    result.params.update(idle_params)
    result.evidence += sequential_evidence(seen)
    return result
