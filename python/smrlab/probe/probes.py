"""The probes, after Skylight (Aghayev and Desnoyers, FAST 2015; docs/probe.md says what each
measures and why): each sends its requests through a metered device and returns what it saw,
the raw observations the fit reads. Run in this order by ``run_all``, each leaving the media
cache as the next expects:

1. ``reads``: random 4 KiB reads over the whole range and one sequential read: the positioning
   and transfer times the disk preset is fitted to, and the scale a stall is judged against.
2. ``fill``: random 4 KiB writes, each to a block not written before, over the whole range but
   a reserved region: the count before the first stall is the media cache in blocks; the
   spacing and duration of the stalls after it are cleaning against written volume, spread.
3. ``idle``: a pause with the cache full, then writes until the next stall: what the drive
   cleaned while idle, and so the level it cleans down to.
4. ``confined``: writes in address order, a fixed stride apart, in the reserved region: the
   stalls come once per band, each after as many writes as the band held, so the spacing of
   the stalls measures each band (to one stride), where spread writes freed a few blocks each.
5. ``sequential``: large sequential writes with the cache full: whether they stall (they go
   through the cache) or not (they bypass it).

A conventional drive stops after ``fill``: no stall, and random writes as slow as random reads.
Not here: the estimates drawn from these (``fit``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .drive import BLOCK, Batch, Metered

MIB = 1 << 20
# A stall is a write slower than this many median random reads, and than STALL_FLOOR_NS: a band
# cleaning reads and writes megabytes (Skylight's drive: hundreds of ms), where a write that only
# positions the head costs about one read. Open choice: any factor between about 3 and 10 gives
# the same stalls on every drive smrlab models.
STALL_FACTOR = 5
STALL_FLOOR_NS = 50_000_000
# Bands are assumed no larger than this (Skylight measured 15-40 MB): the gap kept between the
# fill's writes and the confined region, so no cleaning of the one reaches into the other.
LARGEST_BAND = 64 * MIB


def margin(capacity: int) -> int:
    """The gap kept around the confined region: ``LARGEST_BAND``, or a 64th of a smaller drive."""
    return min(LARGEST_BAND, capacity // 64 // BLOCK * BLOCK)


# The reserved region for the confined writes: from 1/8 to 1/2 of the range.
CONFINED_FROM, CONFINED_TO = 1 / 8, 1 / 2
# Writes without a stall over this share of the range mean there is no media cache that fills.
NO_CACHE_SHARE = 0.10
# Random writes at least this share of a random read's time position the head each: no log.
POSITIONED_SHARE = 0.5
# Writes looked at before deciding a drive without stalls positions every write (the first batch).
FIRST_LOOK = 256
BATCH = 4096


@dataclass
class Stalls:
    """Stalls among a sequence of writes: the index of each stalled write and its latency."""

    at: list[int] = field(default_factory=list)
    ns: list[int] = field(default_factory=list)

    def add(self, start: int, latencies: np.ndarray, threshold: int) -> None:
        hits = np.flatnonzero(latencies > threshold)
        self.at.extend(int(start + i) for i in hits)
        self.ns.extend(int(latencies[i]) for i in hits)

    def __len__(self) -> int:
        return len(self.at)


@dataclass
class Reads:
    random_ns: np.ndarray
    sequential_ns: np.ndarray
    sequential_bytes: int
    batch: Batch  # replayed on each disk preset by the fit

    @property
    def median_ns(self) -> float:
        return float(np.median(self.random_ns))

    def stall_threshold(self) -> int:
        return int(max(STALL_FLOOR_NS, STALL_FACTOR * self.median_ns))


@dataclass
class Fill:
    writes: int = 0
    stalls: Stalls = field(default_factory=Stalls)
    median_write_ns: float = 0.0
    first_tenth_ns: float = 0.0
    last_tenth_ns: float = 0.0
    stopped: str = ""


@dataclass
class Idle:
    pause_ns: int
    writes_before_stall: int | None  # None: the budget ran out first


@dataclass
class Confined:
    stride: int
    start: int
    stalls: Stalls = field(default_factory=Stalls)
    writes: int = 0
    stopped: str = ""


@dataclass
class Sequential:
    bytes: int
    requests: int
    stalls: int
    seconds: float


@dataclass
class Observations:
    reads: Reads
    fill: Fill
    idle: Idle | None = None
    confined: Confined | None = None
    sequential: Sequential | None = None


def reads(drive: Metered, rng: np.random.Generator, count: int = 200, sequential: int = 32 * MIB) -> Reads:
    blocks = drive.capacity // BLOCK
    offsets = rng.integers(0, blocks, size=count, dtype=np.uint64) * BLOCK
    sequential = min(sequential, drive.capacity // MIB * MIB)
    seq_offsets = np.arange(0, sequential, MIB, dtype=np.uint64)
    lengths = np.concatenate([np.full(count, BLOCK), np.full(len(seq_offsets), MIB)])
    batch = Batch.of(False, np.concatenate([offsets, seq_offsets]), lengths)
    latencies = drive.run(batch)
    return Reads(latencies[:count], latencies[count:], sequential, batch)


class Spread:
    """Blocks of the range outside the reserved region, each once, in a seeded order spread over
    the whole of it (a step coprime with their count walks every one): what ``fill`` and
    ``idle`` write."""

    def __init__(self, capacity: int, seed: int):
        blocks = capacity // BLOCK
        low = int(blocks * CONFINED_FROM) - margin(capacity) // BLOCK
        high = int(blocks * CONFINED_TO) + margin(capacity) // BLOCK
        self.low, self.skip = max(low, 0), min(high, blocks) - max(low, 0)
        self.count = blocks - self.skip
        step = int(self.count * 0.6180339887) | 1
        while math.gcd(step, self.count) != 1:
            step += 2
        self.step, self.start = step, int(np.random.default_rng(seed).integers(0, self.count))
        self.used = 0

    def take(self, n: int) -> np.ndarray:
        n = min(n, self.count - self.used)
        index = (self.start + (self.used + np.arange(n, dtype=np.uint64)) * self.step) % self.count
        self.used += n
        blocks = np.where(index >= self.low, index + self.skip, index)
        return blocks.astype(np.uint64) * BLOCK


def _write_blocks(drive: Metered, offsets: np.ndarray, pause_first: int = 0) -> np.ndarray:
    pauses = np.zeros(len(offsets), dtype=np.uint64)
    if len(offsets):
        pauses[0] = pause_first
    return drive.run(Batch(np.ones(len(offsets), bool), offsets, np.full(len(offsets), BLOCK, np.uint64), pauses))


def fill(drive: Metered, spread: Spread, threshold: int, median_read_ns: float, stalls_wanted: int = 8) -> Fill:
    seen = Fill()
    latencies: list[np.ndarray] = []
    while True:
        got = _write_blocks(drive, spread.take(BATCH if seen.writes else FIRST_LOOK))
        if len(got) == 0:
            seen.stopped = drive.spent or "every block outside the reserved region was written"
            break
        seen.stalls.add(seen.writes, got, threshold)
        seen.writes += len(got)
        latencies.append(got)
        if len(seen.stalls) > stalls_wanted:
            break
        if len(seen.stalls) <= 1:  # none, or one stray slow write
            quiet = np.concatenate(latencies)
            if len(quiet) >= FIRST_LOOK and np.median(quiet) >= POSITIONED_SHARE * median_read_ns:
                seen.stopped = "random writes take as long as random reads"
                break
            if seen.writes * BLOCK >= NO_CACHE_SHARE * drive.capacity:
                seen.stopped = f"{NO_CACHE_SHARE:.0%} of the range written without a stall"
                break
    if latencies:
        every = np.concatenate(latencies)
        calm = np.delete(every, [i for i in seen.stalls.at if i < len(every)])
        tenth = max(len(every) // 10, 1)
        seen.median_write_ns = float(np.median(calm)) if len(calm) else 0.0
        seen.first_tenth_ns = float(np.median(every[:tenth]))
        seen.last_tenth_ns = float(np.median(every[-tenth:]))
    return seen


def idle(drive: Metered, spread: Spread, threshold: int, pause_ns: int) -> Idle:
    """Pauses, then writes spread blocks until one stalls (the cache was full before the pause)."""
    written, first = 0, True
    while True:
        got = _write_blocks(drive, spread.take(BATCH), pause_ns if first else 0)
        first = False
        if len(got) == 0:
            return Idle(pause_ns, None)
        hits = np.flatnonzero(got > threshold)
        if len(hits):
            return Idle(pause_ns, written + int(hits[0]))
        written += len(got)


def confined_stride(capacity: int, cache_blocks: int) -> int:
    """The stride of the confined writes: a 32nd of the range shared among the cache's blocks,
    at least two blocks (never plain sequential writes) and enough that the cache holds a band."""
    stride = max(2 * BLOCK, capacity // (32 * max(cache_blocks, 1)), LARGEST_BAND // max(cache_blocks, 1))
    return -(-stride // BLOCK) * BLOCK


def confined(drive: Metered, threshold: int, cache_blocks: int, bands_wanted: int = 32) -> Confined:
    """Writes the reserved region in address order, a stride apart, until ``bands_wanted`` whole
    bands have been cleaned after the cache held only these writes (stall ``cache_blocks`` on)."""
    stride = confined_stride(drive.capacity, cache_blocks)
    start = int(drive.capacity * CONFINED_FROM) // BLOCK * BLOCK + margin(drive.capacity)
    end = int(drive.capacity * CONFINED_TO) // BLOCK * BLOCK
    seen = Confined(stride, start)
    while True:
        offsets = start + (seen.writes + np.arange(BATCH, dtype=np.uint64)) * stride
        offsets = offsets[offsets + BLOCK <= end]
        got = _write_blocks(drive, offsets)
        if len(got) == 0:
            seen.stopped = drive.spent or "the reserved region ended"
            return seen
        seen.stalls.add(seen.writes, got, threshold)
        seen.writes += len(got)
        if sum(1 for w in seen.stalls.at if w >= cache_blocks) >= bands_wanted + 2:
            return seen


def sequential(drive: Metered, start: int, threshold: int, volume: int = 64 * MIB) -> Sequential:
    volume = max(min(volume, (drive.capacity - start) // MIB * MIB), 0)
    offsets = start + np.arange(0, volume, MIB, dtype=np.uint64)
    got = drive.run(Batch.of(True, offsets, MIB))
    return Sequential(len(got) * MIB, len(got), int((got > threshold).sum()), float(got.sum()) / 1e9)


def run_all(drive: Metered, seed: int, idle_pause_ns: int, bands_wanted: int = 32) -> Observations:
    rng = np.random.default_rng(seed)
    drive.stage = "reads"
    seen = Observations(reads(drive, rng), Fill())
    threshold = seen.reads.stall_threshold()
    spread = Spread(drive.capacity, seed)
    drive.stage = "fill"
    seen.fill = fill(drive, spread, threshold, seen.reads.median_ns)
    if not seen.fill.stalls.at or drive.spent:
        return seen
    cache_blocks = seen.fill.stalls.at[0]
    pause = min(idle_pause_ns, max(drive.budget.time_ns - drive.time_ns, 0) // 4)
    drive.stage = "idle"
    seen.idle = idle(drive, spread, threshold, pause)
    if seen.idle.writes_before_stall is None or drive.spent:
        return seen
    drive.stage = "confined"
    seen.confined = confined(drive, threshold, cache_blocks, bands_wanted)
    if drive.spent:
        return seen
    end = seen.confined.start + seen.confined.writes * seen.confined.stride + margin(drive.capacity)
    drive.stage = "sequential"
    seen.sequential = sequential(drive, end, threshold)
    return seen
