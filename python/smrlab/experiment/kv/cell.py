"""One key-value cell: a store (``system`` with its ``given`` parameters) running one workload
(``trace``: phases or YCSB workloads) from a seed, in one of two settings, and the row it
gives the experiment runner.

- ``setting = "fs"``: each store on this machine's file system, timed by the wall clock (what
  a user of the libraries sees). Such cells take a machine-wide lock while they run, so two of
  them never share the CPUs and disk, whatever the runner's ``--jobs``.
- ``smrdb-offload`` (chapter 5's store) runs paced: the disk model's time taken in real time,
  its cells timed by the wall clock (``offload``).
- ``setting = "model"`` (the default): each store's I/O on the same disk model (an HDD preset,
  ``disk``, default ``desktop7200``, the thesis's 7200 rpm disk): SMRDB on its zoned device
  timed command by command (compaction inline, so the same commands every run); a peer's file
  I/O captured and laid on the disk as a file system would (``capture``, ``filelayout``).
  A phase's time is its disk time, closed loop at queue depth one, so the client threads do
  not change it: the operations run in stream order from one thread.

A row: ``label``, ``system``, ``trace``, ``seed``, the given parameters, then per phase
``PHASE_ops_per_s`` and ``PHASE_s`` (seconds in the cell's setting), then the store's
counters (SMRDB: write amplification, compaction bytes, bands per level, the tables a get
searched). Not here: the file format (``spec``), the stores (``stores``).
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smrlab import fingerprint
from smrlab.errors import SmrlabError
from smrlab.experiment.cells import Outcome
from smrlab.experiment.kv import capture, drive, offload, stores

# Held while an fs-setting cell runs: such cells measure the wall clock and must not overlap.
FS_LOCK = Path(tempfile.gettempdir()) / "smrlab-kv-fs.lock"


@dataclass(frozen=True)
class Workload:
    """A cell's workload, standing where a simulation cell has its trace."""

    name: str
    kind: str  # "phases" or "ycsb"
    steps: tuple[str, ...]
    numbers: dict = field(default_factory=dict, hash=False)
    path = None
    format = "kv"
    options = ()

    def as_dict(self) -> dict[str, Any]:
        return {self.kind: list(self.steps), **self.numbers}

    def checksum(self) -> str:
        return "kv:" + hashlib.sha256(json.dumps(self.as_dict(), sort_keys=True).encode()).hexdigest()[:16]

    def __len__(self) -> int:
        """Operations the workload issues, as far as its numbers say (what the scheduler weighs
        a cell by, as a simulation cell by its trace's requests)."""
        per_step = self.numbers.get("operations") or self.numbers.get("count") or 1
        return int(self.numbers.get("records", 0)) + int(per_step) * len(self.steps)


@dataclass
class KvCell:
    index: int
    label: str
    system: str
    trace_name: str
    trace: Workload
    given: dict[str, str]
    seed: int
    engine: dict = field(default_factory=dict)
    footprint: dict | None = field(default=None, compare=False)

    @property
    def setting(self) -> str:
        return self.given.get("setting", "model")

    def describe(self) -> dict[str, Any]:
        return {
            "kind": "kv",
            "model": fingerprint.of_key_value(),
            "label": self.label,
            "system": self.system,
            "params": self.given,
            "trace": {"name": self.trace_name, "checksum": self.trace.checksum(), "workload": self.trace.as_dict()},
            "seed": self.seed,
        }

    def key(self) -> str:
        return hashlib.sha256(json.dumps(self.describe(), sort_keys=True).encode()).hexdigest()[:16]

    def trace_checksum(self) -> str:
        return self.trace.checksum()

    def run(self, key: str | None = None) -> Outcome:
        key = key or self.key()
        try:
            if self.setting == "fs":
                with open(FS_LOCK, "w") as lock:
                    fcntl.flock(lock, fcntl.LOCK_EX)
                    out = self._measure()
            else:
                out = self._measure()
        except SmrlabError as error:
            return Outcome(self.index, key, None, str(error))
        except (ValueError, TypeError, OSError, RuntimeError) as error:
            return Outcome(self.index, key, None, f"{type(error).__name__}: {error}")
        result = {
            "config": {"system": self.system, "seed": self.seed, "params": dict(self.given), "setting": self.setting},
            "trace": {"name": self.trace_name, "footprint": None},
            "kv": out,
        }
        return Outcome(self.index, key, result, None)

    def _measure(self) -> dict:
        if self.system == stores.OFFLOAD:
            return offload.run(list(self.trace.steps), self.given, self.seed)
        modelled = self.setting == "model"
        with tempfile.TemporaryDirectory(prefix="smrlab-kv-") as scratch:
            folder = Path(scratch) / "store"
            if modelled and self.system in stores.PEERS:
                return capture.run_traced(self.system, folder, self.trace.as_dict(), self.given, self.seed)
            return drive.run(self.system, folder, self.trace.as_dict(), self.given, self.seed, modelled)

    def row(self, outcome: Outcome) -> dict[str, Any]:
        row: dict[str, Any] = {
            "cell": outcome.key,
            "label": self.label,
            "system": self.system,
            "trace": self.trace_name,
            "seed": self.seed,
            **self.given,
        }
        if outcome.result is not None:
            row.update(metrics(outcome.result["kv"], self.setting == "model"))
        row["error"] = outcome.error
        return row


def metrics(out: dict, modelled: bool) -> dict[str, Any]:
    """Per phase its rate and seconds (disk seconds when modelled), then the store's counters."""
    row: dict[str, Any] = {}
    for phase in out["phases"]:
        # A paced store's time is the wall clock even on the model.
        seconds = phase["disk_s"] if modelled and phase["disk_s"] is not None else phase["wall_s"]
        row[f"{phase['phase']}_s"] = seconds
        row[f"{phase['phase']}_ops_per_s"] = phase["ops"] / seconds if seconds else None
        for extra in ("p99_ms", "unissued"):
            if extra in phase:
                row[f"{phase['phase']}_{extra}"] = phase[extra]
    row.update(out.get("store", {}))
    return row
