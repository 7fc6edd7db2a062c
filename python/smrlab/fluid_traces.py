"""The workloads of the FluidSMR paper as generated traces: the twelve MSR Cambridge traces of its
Table 1, shaped by the table's figures (operations, writes, bytes written, maximum offset), and
the four-phase write workload of its Fig. 16. Both scale with a request count and are cached
in smrlab's cache folder by a digest of their recipe, like ``bundled.full_size_trace``.

Table 1 gives no footprint or locality, so the recipe chooses them (and says so): a written core
at the start of the address range takes the hot and cold writes (the synthesizer's model); a
sparse area of single-block writes, 5 % of the writes, reaches from the core to the maximum
offset, so the trace's largest address is the table's; the core is a quarter of the bytes
written (each written block is written about four times), at most half the maximum offset;
request sizes mix 4 KiB and 128 KiB to the table's mean write size. A scaled trace
(``requests`` below the table's) scales every size by the same factor, zone size included
(``zone_size``), so the partition keeps its number of zones.

The four-phase workload (Fig. 16): write-only, four phases of 100 hours, over 1541 zones (a
428 GiB partition at usage 0.9). Phases 1 and 3 write every zone within a 20 MiB window (an
NSW-Range ratio of 7.8 %); phases 2 and 4 write the first 80 GiB of zones (320) within a
240 MiB window (93.8 %). Each zone's window starts at a random block-aligned place; writes are
uniform within the windows, of 64 KiB (1/4096 of a zone), at uniform times in the phase. A
scaled workload has fewer zones (``four_phase_shape``), so its windows are covered as densely.
Not here: running the experiments (``smrlab.cli.fluid``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from smrlab import _core
from smrlab.bundled import generated_trace
from smrlab.errors import UsageError

GIB = 1 << 30
ZONE = 256 << 20
BLOCK = 4096

# name: (total operations, write operations, bytes written in GB, max offset in GB), Table 1.
# The paper's GB are read as GiB, as its 460.0 GB = 1840 zones of 256 MB.
TABLE1 = {
    "hm_0": (4.0e6, 2.6e6, 20.5, 15.0),
    "prn_1": (11.2e6, 2.7e6, 30.8, 413.6),
    "proj_0": (4.2e6, 3.7e6, 144.2, 17.4),
    "proj_1": (23.6e6, 2.5e6, 25.6, 880.9),
    "prxy_0": (12.5e6, 12.1e6, 53.8, 22.2),
    "src1_1": (45.7e6, 2.2e6, 30.3, 293.6),
    "src1_2": (1.9e6, 1.4e6, 44.1, 8.6),
    "src2_2": (1.1e6, 0.8e6, 39.2, 182.1),
    "stg_0": (2.0e6, 1.7e6, 15.1, 11.6),
    "ts_0": (1.8e6, 1.5e6, 11.3, 23.6),
    "usr_0": (2.2e6, 1.3e6, 13.1, 17.1),
    "web_0": (2.0e6, 1.4e6, 11.7, 36.4),
}

SPARSE_FRACTION = 0.05
OVERWRITES = 4.0
HOT_FRACTION = 0.2
SMALL, LARGE = 4, 128  # KiB
WEEK_S = 7 * 24 * 3600


def preset(name: str) -> tuple[float, float, float, float]:
    if name not in TABLE1:
        raise UsageError(f"'{name}' is not a Table 1 trace of the FluidSMR paper ({', '.join(TABLE1)})")
    return TABLE1[name]


def scale_of(name: str, requests: int | None) -> float:
    """How much a trace of ``requests`` requests is scaled down from Table 1's (1: full size)."""
    total = preset(name)[0]
    if requests is None:
        return 1.0
    if requests <= 0:
        raise UsageError("--requests must be above 0")
    return min(1.0, requests / total)


def requests_of(name: str, requests: int | None = None) -> int:
    """Requests of Table 1 trace ``name`` scaled to ``requests``."""
    return round(preset(name)[0] * scale_of(name, requests))


def zone_size(scale: float) -> int:
    """The zone size that keeps the paper's zone count at ``scale``: 256 MiB scaled, in 4 KiB."""
    return max(BLOCK, round(ZONE * scale / BLOCK) * BLOCK)


def table1_params(name: str, requests: int | None = None, seed: int = 0) -> list[str]:
    """Synthesizer parameters of Table 1 trace ``name`` at ``requests`` requests."""
    total, writes, written_gb, max_gb = preset(name)
    scale = scale_of(name, requests)
    count = requests_of(name, requests)
    mean_kib = written_gb * GIB / writes / 1024
    large = min(1.0, max(0.0, (mean_kib - SMALL) / (LARGE - SMALL)))
    max_offset = max_gb * GIB * scale
    core = min(written_gb * GIB / OVERWRITES, max_gb * GIB / 2) * scale
    return [f"requests={count}", f"write_ratio={writes / total:.4f}", f"sizes={SMALL}k:{1 - large:.4f},{LARGE}k:{large:.4f}",
            f"hot_fraction={HOT_FRACTION}", f"written_range={round(core)}", f"accessed_range={round(core)}",
            f"sparse_fraction={SPARSE_FRACTION}", f"sparse_range={round(max_offset - core)}", f"rate={count / WEEK_S:.6f}",
            f"seed={seed}"]


def table1_trace(name: str, requests: int | None = None, folder: Path | None = None, seed: int = 0) -> Path:
    """The generated Table 1 trace ``name`` in smrlab's binary format (made on first use)."""
    pipeline = {"synth": table1_params(name, requests, seed)}
    return generated_trace(pipeline, f"fluid-{name}", folder, lambda path: _core.trace_write(json.dumps(pipeline), str(path), None))


# Fig. 16's workload.
PHASE_ZONES = 1541
HOT_ZONES = 320
PHASE_HOURS = 100.0
NARROW, WIDE = 20 / 256, 240 / 256  # NSW-Range ratios of the two kinds of phase
PHASE_WRITE = 64 << 10
PHASE_REQUESTS = 10_000_000


def four_phase_shape(requests: int) -> tuple[int, int, int]:
    """(zone size, zones, zones of the CMR-favourable phases) of the four-phase workload scaled to
    ``requests``. A window's NSW-Range is what the window's writes cover, so a scaled workload
    keeps the writes per zone per hour: it has fewer zones, of the same size."""
    scale = min(1.0, requests / PHASE_REQUESTS)
    return ZONE, max(4, round(PHASE_ZONES * scale)), max(1, round(HOT_ZONES * scale))


def four_phase_requests(requests: int = PHASE_REQUESTS, zone: int = ZONE, zones: int = PHASE_ZONES, hot_zones: int = HOT_ZONES,
                        hours: float = PHASE_HOURS, seed: int = 0) -> np.ndarray:
    """Fig. 16's write-only workload as an array of (time ns, offset, length) rows."""
    if zone % BLOCK or zone <= 0:
        raise UsageError("the zone size must be a positive multiple of 4 KiB")
    if hot_zones <= 0 or zones <= 0:
        raise UsageError("the workload needs at least one zone in each kind of phase")
    rng = np.random.default_rng(seed)
    size = max(BLOCK, (PHASE_WRITE * zone // ZONE) // BLOCK * BLOCK)
    if hot_zones > zones:
        hot_zones = zones
    phase_ns = int(hours * 3600e9)
    rows = []
    for phase in range(4):
        count = requests // 4 + (1 if phase < requests % 4 else 0)
        narrow = phase % 2 == 0
        ratio, width = (NARROW, zones) if narrow else (WIDE, hot_zones)
        window = max(size, int(zone * ratio) // BLOCK * BLOCK)
        starts = rng.integers(0, (zone - window) // BLOCK + 1, size=width) * BLOCK
        picked = rng.integers(0, width, size=count)
        within = rng.integers(0, (window - size) // BLOCK + 1, size=count) * BLOCK
        times = np.sort(rng.integers(0, phase_ns, size=count)) + phase * phase_ns
        rows.append(np.stack([times, picked * zone + starts[picked] + within, np.full(count, size)], axis=1))
    return np.concatenate(rows).astype(np.int64)


def four_phase_trace(requests: int = PHASE_REQUESTS, zone: int = ZONE, zones: int = PHASE_ZONES, hot_zones: int = HOT_ZONES,
                     hours: float = PHASE_HOURS, folder: Path | None = None, seed: int = 0) -> Path:
    """Fig. 16's workload in smrlab's binary format (made on first use, through an MSR CSV)."""
    recipe = {"four_phase": [requests, zone, zones, hot_zones, hours, seed]}

    def make(path: Path) -> None:
        rows = four_phase_requests(requests, zone, zones, hot_zones, hours, seed)
        csv = path.with_suffix(".csv")
        ticks = 128166372000000000 + rows[:, 0] // 100  # Windows FILETIME, 100 ns ticks
        with open(csv, "w") as out:
            for tick, offset, length in zip(ticks.tolist(), rows[:, 1].tolist(), rows[:, 2].tolist()):
                out.write(f"{tick},fluid,0,Write,{offset},{length},0\n")
        try:
            _core.trace_write(json.dumps({"inputs": [{"path": str(csv), "format": "msr"}]}), str(path), None)
        finally:
            csv.unlink(missing_ok=True)

    return generated_trace(recipe, "fluid-four-phase", folder, make)
