"""Where an experiment's results are kept, so that no run overwrites another and an
interrupted one can go on.

A run of experiment NAME gets its own folder ``ROOT/NAME-DIGEST`` (DIGEST: of its cells' keys;
``-2``, ``-3``... for a later run of the same cells unless resuming), holding:

- ``cells/LABEL-TRACE-PARAMS-KEY.json``: each finished cell's whole result, written as it
  finishes (``--resume`` skips cells found here; failed cells are not stored, so they run again);
- ``NAME-DIGEST.parquet``: one row per cell (``smrlab.result.tidy_row``, plus ``cell`` and
  ``error``), written once every cell has run;
- ``NAME-DIGEST.json``: the provenance sidecar: the experiment file's text, every cell's
  resolved configuration (each parameter read, given or default), seed, trace checksums,
  smrlab version, git commit and host.

Every file is written under a temporary name and renamed when complete (``smrlab.outputs``):
Ctrl-C leaves the finished cells and nothing that looks like a finished table. Not here: running
cells (``executors``) or reading tables back (``smrlab.results``).
"""

from __future__ import annotations

import hashlib
import json
import platform
import re
import sys
from pathlib import Path
from typing import Any

from smrlab import outputs, provenance
from smrlab.experiment.cells import Cell, Outcome

CELLS = "cells"
# The longest part of a cell file's name that spells out its parameters.
PARAMS_IN_NAME = 80


def digest(keys: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(keys)).encode()).hexdigest()[:8]


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9=%.+_-]", "_", text)


def cell_file_name(cell: Cell, key: str) -> str:
    """``LABEL-TRACE-k=v_k=v-KEY.json``: what distinguishes the cell, then its key."""
    params = "_".join(f"{k}={v}" for k, v in cell.given.items())[:PARAMS_IN_NAME]
    parts = [cell.label, cell.trace_name] + ([params] if params else []) + [key]
    return _safe("-".join(parts)) + ".json"


class RunFolder:
    """The folder of one run of an experiment."""

    def __init__(self, folder: Path, stem: str):
        self.folder, self.stem = folder, stem

    @classmethod
    def open(cls, root: Path, name: str, keys: list[str], resume: bool) -> "RunFolder":
        """A new folder (never one a previous run wrote), or with ``resume`` the latest one of
        the same cells."""
        stem = f"{name}-{digest(keys)}"
        candidates = [root / stem] + [root / f"{stem}-{n}" for n in range(2, 10_000)]
        existing = [c for c in candidates[:1] if c.exists()]
        for candidate in candidates[1:]:
            if not candidate.exists():
                break
            existing.append(candidate)
        if resume and existing:
            return cls(existing[-1], stem)
        free = next(c for c in candidates if not c.exists())
        return cls(free, stem)

    @property
    def table_path(self) -> Path:
        return self.folder / f"{self.stem}.parquet"

    @property
    def provenance_path(self) -> Path:
        return self.folder / f"{self.stem}.json"

    def stored(self) -> dict[str, dict]:
        """The stored cells' results, by key."""
        found = {}
        for path in sorted((self.folder / CELLS).glob("*.json")):
            try:
                document = json.loads(path.read_text())
            except (OSError, ValueError):
                continue  # not one of ours, or unreadable: the cell runs again
            if isinstance(document, dict) and "key" in document and "result" in document:
                found[document["key"]] = document["result"]
        return found

    def save_cell(self, cell: Cell, outcome: Outcome) -> None:
        if outcome.result is None:
            return
        document = {"key": outcome.key, "cell": cell.describe(), "result": outcome.result}
        outputs.write_text(self.folder / CELLS / cell_file_name(cell, outcome.key), json.dumps(document, indent=1, sort_keys=True) + "\n")

    def write(self, rows: list[dict[str, Any]], sidecar: dict) -> Path:
        """The table (Parquet) and its provenance sidecar, each whole or not at all."""
        outputs.write_text(self.provenance_path, json.dumps(sidecar, indent=2, sort_keys=True) + "\n")
        write_parquet(rows, self.table_path)
        return self.table_path


def write_parquet(rows: list[dict[str, Any]], path: Path) -> Path:
    import pyarrow.parquet as pq
    with outputs.output_file(path, make_folder=True) as temporary:
        pq.write_table(arrow_table(rows), temporary)
    return path


def arrow_table(rows: list[dict[str, Any]]):
    """Rows as an Arrow table, columns in the order they first appear."""
    import pyarrow as pa
    columns: dict[str, None] = {}
    for row in rows:
        columns.update(dict.fromkeys(row))
    return pa.table({column: pa.array([row.get(column) for row in rows]) for column in columns})


def to_pandas(table):
    """An Arrow table as a DataFrame whose whole-number columns stay whole where a row lacks
    them (pandas' nullable ``Int64``, not floats)."""
    import pandas as pd
    import pyarrow as pa
    return table.to_pandas(types_mapper={pa.int64(): pd.Int64Dtype(), pa.uint64(): pd.UInt64Dtype()}.get)


def sidecar(experiment, cells: list[tuple[Cell, str]], outcomes: dict[int, Outcome]) -> dict:
    """The provenance of a run: everything needed to reproduce each of its rows."""
    from smrlab.experiment.totoml import render

    source = experiment.source
    described = []
    for cell, key in cells:
        outcome = outcomes[cell.index]
        entry = {"key": key, **cell.describe(), "error": outcome.error}
        if outcome.result is not None:
            entry["resolved_params"] = outcome.result["config"]["params"]
            entry["trace"]["footprint"] = outcome.result["trace"]["footprint"]
        described.append(entry)
    return {
        "experiment": {
            "name": experiment.name,
            "title": experiment.title,
            "file": str(source) if source else None,
            "text": source.read_text() if source else render(experiment),
            "reproduces": experiment.reproduces,
        },
        "smrlab": provenance.stamp(),
        "host": {"name": platform.node(), "platform": platform.platform(), "python": sys.version.split()[0]},
        "traces": {name: {"path": str(t.path) if t.path else None, "checksum": t.checksum()} for name, t in experiment.traces.items()},
        "cells": described,
        "failed": sum(1 for o in outcomes.values() if o.error),
    }
