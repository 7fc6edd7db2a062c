"""One cell of an experiment: a single simulation (system, given parameters, trace, seed,
engine), its key, and the function every executor calls to run it.

A cell's key is a digest of everything that determines its numbers (label, system, parameters,
the trace's checksum and reader, seed, engine), so a stored cell is found again on ``--resume``
and a changed trace or parameter never reuses an old one. ``run_cell`` never raises for a user
error: a failed cell comes back with its message, and the other cells go on. Not here: which
cells an experiment has (``spec``), where they run (``executors``), storing them (``store``).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from smrlab.errors import SmrlabError
from smrlab.result import tidy_row
from smrlab.trace import Trace


@dataclass
class Cell:
    index: int
    label: str
    system: str
    trace_name: str
    trace: Trace
    given: dict[str, str]
    seed: int
    engine: dict
    footprint: dict | None = field(default=None, compare=False)

    def params(self) -> list[str]:
        return [f"{key}={value}" for key, value in self.given.items()]

    def describe(self) -> dict[str, Any]:
        """What determines the cell's numbers, as plain data."""
        return {
            "label": self.label,
            "system": self.system,
            "params": self.given,
            "trace": {"name": self.trace_name, "checksum": self.trace.checksum(),
                      "format": self.trace.format, "options": list(self.trace.options)},
            "seed": self.seed,
            "engine": self.engine,
        }

    def key(self) -> str:
        """16 hex digits of the SHA-256 of ``describe()``."""
        text = json.dumps(self.describe(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class Outcome:
    """What running a cell gave: the result dict, or the error that stopped it."""

    index: int
    key: str
    result: dict | None
    error: str | None

    def row(self, cell: Cell) -> dict[str, Any]:
        """The cell's tidy row (``smrlab.result.tidy_row``), with its key and error; a failed
        cell's row says what ran and why it has no measures. A key-value cell makes its own
        row (``smrlab.experiment.kv``)."""
        if not isinstance(cell, Cell):
            return cell.row(self)
        if self.result is None:
            row = {"label": cell.label, "system": cell.system, "trace": cell.trace_name, "seed": cell.seed, **cell.given}
        else:
            row = tidy_row(self.result, cell.label, cell.given)
            row["trace"] = cell.trace_name
        return {"cell": self.key, **row, "error": self.error}


def run_cell(cell: Cell, key: str | None = None) -> Outcome:
    """Runs one cell (in whichever process or worker it was sent to)."""
    from smrlab.run import simulate

    key = key or cell.key()
    if not isinstance(cell, Cell):
        return cell.run(key)
    try:
        result = simulate(cell.system, cell.trace, cell.params(), engine=cell.engine, seed=cell.seed,
                          footprint=cell.footprint)
    except SmrlabError as error:
        return Outcome(cell.index, key, None, str(error))
    except (ValueError, TypeError, OSError) as error:
        return Outcome(cell.index, key, None, f"{type(error).__name__}: {error}")
    return Outcome(cell.index, key, result, None)
