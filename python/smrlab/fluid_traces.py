"""The workloads of the FluidSMR paper as generated traces: the twelve MSR Cambridge traces of its
Table 1, shaped by the table's figures (operations, writes, bytes written, maximum offset), and
the four-phase write workload of its Fig. 16. Both scale with a request count and are cached
in smrlab's cache folder by a digest of their recipe, like ``bundled.full_size_trace``.

Table 1 gives no footprint or locality, so the recipe chooses them (and says so). The
synthesizer writes a core of a quarter of the bytes written (each written block is written
about four times: Table 1's write size over an assumed four updates a block), at most half the
maximum offset, with hot regions inside it; a sparse area of single-block writes, 5 % of the
writes, reaches from the core to the maximum offset, so the trace's largest address is the
table's; request sizes mix 4 KiB and 128 KiB to the table's mean write size.

Where the written data lies (``placement``): the synthesizer puts the core at the start of the
address range, and the layout maps the lowest user zones to CMR, so the hot data would sit in
CMR and barely reach the SMR area; the MSR traces' hot data is not at LBA 0. With ``spread``
(the default) the address range is cut into chunks of the core's size over ``hot_ranges`` (16:
the core becomes 16 hot ranges), and the chunks are shuffled by a permutation seeded with the
trace's seed (the last, partial chunk stays last); each request moves with the chunk of its
first byte. The hot ranges so land at seeded places across the whole range, in CMR and SMR
zones alike, and the request stream and sizes are unchanged. Table 1's maximum offset is an
extent of addresses, not a written range: ``spread`` reaches it with ``SPARSE_WRITES`` (100)
single-block writes over the rest of the range, and pins it: the synthesizer's core can end a
little past it, so a request ending past it is folded back into the range, and the request
ending highest is moved to end there (the partition's size is then Table 1's, which matters
at usages of 0.99 and above, where a zone more or less decides whether there is a cache).
``front`` keeps the synthesizer's layout and 5 % of the writes as sparse ones over the range
(the recipe before).

A scaled trace (``requests`` below the table's) scales every size by the same factor, zone size
included (``zone_size``), so the partition keeps its number of zones.

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

from smrlab import _core, recipes
from smrlab.bundled import SMRBIN_RECORD, generated_trace
from smrlab.errors import UsageError
from smrlab.options import MAX_GENERATED_REQUESTS, quoted

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
SPARSE_WRITES = 100
OVERWRITES = 4.0
PLACEMENTS = ("spread", "front")
HOT_RANGES = 16
MAX_HOT_RANGES = 4096
# Bytes a request takes, at most, in the numeric CSV a spread trace passes through.
SPREAD_CSV_RECORD = 64
HOT_FRACTION = 0.2
SMALL, LARGE = 4, 128  # KiB
WEEK_S = 7 * 24 * 3600


def preset(name: str) -> tuple[float, float, float, float]:
    if name not in TABLE1:
        raise UsageError(f"{quoted(name)} is not a Table 1 trace of the FluidSMR paper ({', '.join(TABLE1)})")
    return TABLE1[name]


def scale_of(name: str, requests: int | None) -> float:
    """How much a trace of ``requests`` requests is scaled down from Table 1's (1: full size)."""
    total = preset(name)[0]
    if requests is None:
        return 1.0
    if not 0 < requests <= MAX_GENERATED_REQUESTS:
        raise UsageError(f"--requests must be from 1 to {MAX_GENERATED_REQUESTS:,}, got {requests}")
    return min(1.0, requests / total)


def requests_of(name: str, requests: int | None = None) -> int:
    """Requests of Table 1 trace ``name`` scaled to ``requests``."""
    return round(preset(name)[0] * scale_of(name, requests))


def zone_size(scale: float) -> int:
    """The zone size that keeps the paper's zone count at ``scale``: 256 MiB scaled, in 4 KiB."""
    return max(BLOCK, round(ZONE * scale / BLOCK) * BLOCK)


def core_bytes(name: str, requests: int | None = None) -> int:
    """Bytes of the written core of Table 1 trace ``name`` at ``requests`` requests."""
    _, _, written_gb, max_gb = preset(name)
    return round(min(written_gb * GIB / OVERWRITES, max_gb * GIB / 2) * scale_of(name, requests))


def sparse_fraction(name: str, requests: int | None, placement: str) -> float:
    """The share of writes that are sparse single blocks: ``front`` keeps the recipe before
    (5 %); ``spread`` only reaches the maximum offset, with ``SPARSE_WRITES`` of them."""
    if placement == "front":
        return SPARSE_FRACTION
    writes = requests_of(name, requests) * preset(name)[1] / preset(name)[0]
    return min(SPARSE_FRACTION, SPARSE_WRITES / max(1.0, writes))


def table1_params(name: str, requests: int | None = None, seed: int = 0, placement: str = "spread") -> list[str]:
    """Synthesizer parameters of Table 1 trace ``name`` at ``requests`` requests."""
    total, writes, written_gb, max_gb = preset(name)
    scale = scale_of(name, requests)
    count = requests_of(name, requests)
    mean_kib = written_gb * GIB / writes / 1024
    large = min(1.0, max(0.0, (mean_kib - SMALL) / (LARGE - SMALL)))
    max_offset = max_gb * GIB * scale
    core = core_bytes(name, requests)
    return [f"requests={count}", f"write_ratio={writes / total:.4f}", f"sizes={SMALL}k:{1 - large:.4f},{LARGE}k:{large:.4f}",
            f"hot_fraction={HOT_FRACTION}", f"written_range={core}", f"accessed_range={core}",
            f"sparse_fraction={sparse_fraction(name, requests, placement):.6g}", f"sparse_range={round(max_offset - core)}", f"rate={count / WEEK_S:.6f}",
            f"seed={seed}"]


def chunk_bytes(name: str, requests: int | None, hot_ranges: int) -> int:
    """The chunk ``spread`` shuffles: the core over ``hot_ranges``, in whole 4 KiB blocks; a
    ``UsageError`` when that does not fit (fewer than 2 chunks in the range, or a chunk smaller
    than the largest request, which would then straddle most chunk ends)."""
    if not 1 <= hot_ranges <= MAX_HOT_RANGES:
        raise UsageError(f"--hot-ranges must be from 1 to {MAX_HOT_RANGES}, got {hot_ranges}")
    chunk = core_bytes(name, requests) // hot_ranges // BLOCK * BLOCK
    span = max_offset(name, requests)
    if chunk < LARGE * 1024 or span // chunk < 2:
        raise UsageError(f"{hot_ranges} hot ranges do not fit {name} at {requests_of(name, requests):,} requests: each would be "
                         f"{chunk:,} bytes of a {round(span):,}-byte range (at least {LARGE} KiB each, and two in the range)")
    return chunk


def max_offset(name: str, requests: int | None = None) -> int:
    """Table 1's maximum offset of ``name``, scaled to ``requests``, in whole 4 KiB blocks."""
    return round(preset(name)[3] * GIB * scale_of(name, requests)) // BLOCK * BLOCK


def spread(offsets: np.ndarray, lengths: np.ndarray, chunk: int, end: int, seed: int) -> np.ndarray:
    """``offsets`` (of requests of ``lengths``) moved by the ``spread`` rule over the range
    ``0..end``: whole chunks of ``chunk`` bytes shuffled by a permutation seeded with ``seed``,
    the last partial chunk in place; a request ending past ``end`` folded back into the range
    (its offset modulo the room left for it, in whole blocks), and the request ending highest
    moved to end at ``end``, so the range is exactly Table 1's."""
    chunk64, block = np.uint64(chunk), np.uint64(BLOCK)
    whole = end // chunk
    order = np.random.default_rng(seed).permutation(whole).astype(np.uint64)
    index = offsets // chunk64
    inside = index < whole
    moved = offsets.copy()
    moved[inside] = order[index[inside]] * chunk64 + offsets[inside] % chunk64
    beyond = moved + lengths > np.uint64(end)
    room = np.uint64(end) - np.minimum(lengths[beyond], np.uint64(end))
    moved[beyond] = moved[beyond] % np.maximum(room, block) // block * block
    if moved.size:
        top = int(np.argmax(moved + lengths))
        moved[top] = end - min(int(lengths[top]), end)
    return moved


def table1_trace(name: str, requests: int | None = None, folder: Path | None = None, seed: int = 0, placement: str = "spread",
                 hot_ranges: int = HOT_RANGES) -> Path:
    """The generated Table 1 trace ``name`` in smrlab's binary format (made on first use), its
    written data placed by ``placement`` (see the module's text)."""
    if placement not in PLACEMENTS:
        raise UsageError(f"placement '{placement}' is none of {', '.join(PLACEMENTS)}")
    pipeline = {"synth": table1_params(name, requests, seed, placement)}
    if placement == "front":
        return generated_trace(pipeline, f"fluid-{name}", folder, lambda path: _core.trace_write(json.dumps(pipeline), str(path), None),
                               needed=requests_of(name, requests) * SMRBIN_RECORD)
    chunk = chunk_bytes(name, requests, hot_ranges)
    end = max_offset(name, requests)
    recipe = {**pipeline, "placement": placement, "chunk": chunk, "end": end}
    return generated_trace(recipe, f"fluid-{name}-{placement}", folder, lambda path: write_spread(pipeline, chunk, end, seed, path),
                           needed=requests_of(name, requests) * (SMRBIN_RECORD + SPREAD_CSV_RECORD))


def write_spread(pipeline: dict, chunk: int, end: int, seed: int, path: Path) -> None:
    """Synthesizes ``pipeline``, spreads it over ``0..end`` (``spread``) and writes it to
    ``path``, through a CSV of numeric columns beside it."""
    import pyarrow as pa  # only here: the command line loads without it
    import pyarrow.csv as pa_csv

    time_ns, op, offset, length = (np.frombuffer(c, dtype=d) for c, d in
                                   zip(_core.trace_columns(json.dumps(pipeline)), ("<u8", "u1", "<u8", "<u8")))
    table = pa.table({"time_ns": time_ns, "op": op, "offset": spread(offset, length, chunk, end, seed), "len": length})
    csv = path.with_name(path.name + ".csv")
    try:
        pa_csv.write_csv(table, csv, pa_csv.WriteOptions(include_header=False))
        options = ["time=0", "op=1", "offset=2", "len=3", "read=0", "write=1", "trim=2"]
        _core.trace_write(json.dumps({"inputs": [{"path": str(csv), "format": "csv", "options": options}]}), str(path), None)
    finally:
        csv.unlink(missing_ok=True)


# Fig. 16's workload.
PHASE_ZONES = 1541
HOT_ZONES = 320
PHASE_HOURS = 100.0
NARROW, WIDE = 20 / 256, 240 / 256  # NSW-Range ratios of the two kinds of phase
PHASE_WRITE = 64 << 10
PHASE_REQUESTS = 10_000_000
# Hours a phase may last: from 3.6 s, so every phase has time for its writes' nanoseconds, to
# 100,000 (four phases stay far below the 2^63 ns a trace's clock reaches).
PHASE_HOURS_MIN, PHASE_HOURS_MAX = 0.001, 100_000.0
# Bytes of one request of the four-phase workload while it is made: its MSR line, and the
# smrlab binary record it becomes.
PHASE_LINE = 64


def four_phase_shape(requests: int) -> tuple[int, int, int]:
    """(zone size, zones, zones of the CMR-favourable phases) of the four-phase workload scaled to
    ``requests``. A window's NSW-Range is what the window's writes cover, so a scaled workload
    keeps the writes per zone per hour: it has fewer zones, of the same size."""
    scale = min(1.0, requests / PHASE_REQUESTS)
    return ZONE, max(4, round(PHASE_ZONES * scale)), max(1, round(HOT_ZONES * scale))


def check_four_phase(requests: int, hours: float) -> None:
    """Refuses a four-phase workload of more than its full size, ``PHASE_REQUESTS`` (its array
    is made whole in memory, 24 bytes a request), or of phases outside the hours allowed."""
    if not 0 < requests <= PHASE_REQUESTS:
        raise UsageError(f"the four-phase workload has from 1 to {PHASE_REQUESTS:,} requests (its full size), not {requests:,}")
    if not PHASE_HOURS_MIN <= hours <= PHASE_HOURS_MAX:
        raise UsageError(f"a phase lasts from {PHASE_HOURS_MIN:g} to {PHASE_HOURS_MAX:g} hours, not {hours:g}")


def four_phase_requests(requests: int = PHASE_REQUESTS, zone: int = ZONE, zones: int = PHASE_ZONES, hot_zones: int = HOT_ZONES,
                        hours: float = PHASE_HOURS, seed: int = 0) -> np.ndarray:
    """Fig. 16's write-only workload as an array of (time ns, offset, length) rows."""
    check_four_phase(requests, hours)
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
    check_four_phase(requests, hours)
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

    return generated_trace(recipe, "fluid-four-phase", folder, make, needed=requests * (PHASE_LINE + SMRBIN_RECORD))


# FluidSMR's Table 1 traces and its Fig. 16 workload (its one name: four-phase), at full size or
# scaled to a request count, made on first use.
recipes.register("fluid-table1", lambda name, requests: table1_trace(name, requests), names=TABLE1, source="FluidSMR's Table 1")
recipes.register("fluid-phases", lambda name, requests: four_phase_trace(*([requests] if requests else [])), names=["four-phase"],
                 source="FluidSMR's Fig. 16 workloads")
