"""A ``sim:SYSTEM`` target: any system ``smrlab sim`` runs, with its parameters, built by the
core for a given capacity and served request by request (``smrlab._core.SimDrive``), so the
probe sees each request's simulated latency as it would a device's.

Not here: the probes, or whole-trace simulation (``smrlab.run``).
"""

from __future__ import annotations

import numpy as np

from smrlab import _core

from .drive import Batch


class SimDevice:
    def __init__(self, system: str, params: list[str], capacity: int, seed: int = 0):
        self.system, self.params = system, list(params)
        self.drive = _core.SimDrive(system, self.params, capacity, seed)
        self.capacity = self.drive.capacity
        shown = " ".join(f"-p {p}" for p in self.params)
        self.name = f"sim:{system}{' ' + shown if shown else ''}"

    def serve(self, batch: Batch, stage: str = "") -> np.ndarray:
        raw = self.drive.run(
            batch.writes.astype(np.uint8).tobytes(),
            batch.offsets.astype("<u8").tobytes(),
            batch.lengths.astype("<u8").tobytes(),
            batch.pauses_ns.astype("<u8").tobytes(),
        )
        return np.frombuffer(raw, dtype="<u8").astype(np.uint64)
