"""A probe target seen as a device: batches of requests in, each request's latency out, with the
probe's budget (bytes written, device time) kept and its progress shown.

Every request of a batch is issued after the one before it completed, at queue depth one, after
its own pause (idle time the device may use). Device time is the sum of latencies and pauses: on a
simulated drive it is simulated time, so a probe and its card are the same on every run.

Not here: what a probe sends (``probes``) or how a kind of target serves it (``simdrive``,
``fio``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

import numpy as np

BLOCK = 4096


@dataclass
class Batch:
    """Requests in order: ``writes`` (bool), byte ``offsets`` and ``lengths``, ``pauses_ns``."""

    writes: np.ndarray
    offsets: np.ndarray
    lengths: np.ndarray
    pauses_ns: np.ndarray

    @staticmethod
    def of(writes, offsets, lengths, pauses_ns=0) -> Batch:
        offsets = np.asarray(offsets, dtype=np.uint64)
        n = len(offsets)
        full = lambda v, t: np.broadcast_to(np.asarray(v, dtype=t), (n,)).copy()
        return Batch(full(writes, bool), offsets, full(lengths, np.uint64), full(pauses_ns, np.uint64))

    def __len__(self) -> int:
        return len(self.offsets)

    def head(self, n: int) -> Batch:
        return Batch(self.writes[:n], self.offsets[:n], self.lengths[:n], self.pauses_ns[:n])

    def written_bytes(self) -> int:
        return int(self.lengths[self.writes].sum())


class Device(Protocol):
    """A kind of target: its name, its size, and a way to serve a batch."""

    name: str
    capacity: int

    def serve(self, batch: Batch, stage: str) -> np.ndarray:
        """Each request's latency in ns (uint64), in order; ``stage`` names the probe sending it."""


@dataclass
class Budget:
    """What a probe may spend: bytes written to the target and device time (ns)."""

    bytes: int
    time_ns: int

    def describe(self) -> str:
        return f"{self.bytes / 2**20:,.0f} MiB written, {self.time_ns / 1e9:,.0f} s of device time"


@dataclass
class Metered:
    """A device with the probe's budget and progress around it: a batch that would write past
    the byte budget is cut where it fits, and once the budget is spent (bytes or time)
    ``spent`` names which and no more requests go out."""

    device: Device
    budget: Budget
    progress: object = None
    written: int = 0
    time_ns: int = 0
    requests: int = 0
    spent: str | None = None
    stage: str = "probe"

    @property
    def capacity(self) -> int:
        return self.device.capacity

    def run(self, batch: Batch) -> np.ndarray:
        """Latencies of as much of ``batch`` as the budget allows (possibly none)."""
        if self.spent:
            return np.zeros(0, dtype=np.uint64)
        sizes = np.where(batch.writes, batch.lengths, 0).astype(np.int64)
        fits = int(np.searchsorted(np.cumsum(sizes), self.budget.bytes - self.written, side="right"))
        if fits < len(batch):
            batch = batch.head(fits)
            self.spent = f"the budget of {self.budget.bytes / 2**20:,.0f} MiB written"
        if len(batch) == 0:
            return np.zeros(0, dtype=np.uint64)
        latencies = self.device.serve(batch, self.stage)
        self.written += batch.written_bytes()
        self.time_ns += int(latencies.sum()) + int(batch.pauses_ns.sum())
        self.requests += len(batch)
        if self.time_ns >= self.budget.time_ns and not self.spent:
            self.spent = f"the budget of {self.budget.time_ns / 1e9:,.0f} s of device time"
        if self.progress is not None:
            self.progress.update(
                completed=min(self.written / self.budget.bytes, 1.0) * 100,
                state=f"{self.written / 2**20:,.0f} MiB written, {self.time_ns / 1e9:,.1f} s",
            )
        return latencies
