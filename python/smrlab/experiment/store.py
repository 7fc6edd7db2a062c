"""Where an experiment's results are kept, so that no run overwrites another and an
interrupted one can go on.

A run of experiment NAME keeps its results in ``ROOT/NAME-DIGEST`` (DIGEST: of its cells' keys), so
a later run of the same cells goes on in the same folder, reusing what is stored and replacing
the table; only a run asked to start afresh gets a folder of its own (``-2``, ``-3``...). It holds:

- ``cells/LABEL-TRACE-PARAMS-KEY.json``: each finished cell's whole result and what running it
  cost, written as it finishes (a run skips cells found here or in an earlier run's folder of
  the same experiment, by key, and copies those here, unless it starts afresh; failed cells are
  not stored, so they run again);
- ``NAME-DIGEST.parquet``: one row per cell (``smrlab.result.tidy_row``, plus ``cell`` and
  ``error``), written once every cell has run: simulated numbers only, the same wherever and
  however fast the cells ran;
- ``NAME-DIGEST.json``: the provenance sidecar: the experiment file's text, every cell's
  resolved configuration (each parameter read, given or default), seed, trace checksums and
  what running it cost (``timing``: wall and CPU time, peak memory, worker, wait, attempts;
  its expected cost), smrlab version, git commit and host, and the parent's own work by phase
  (``parent``). ``timing_rows`` reads the costs back as columns.

Every file is written under a temporary name and renamed when complete (``smrlab.outputs``);
the table is renamed last, after its sidecar: Ctrl-C leaves the finished cells and nothing that
looks like a finished table. Not here: running cells (``executors``) or reading tables back
(``smrlab.results``).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import platform
import re
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from smrlab import outputs, provenance
from smrlab.experiment.cells import Cell, Outcome, Timing
from smrlab.experiment.totoml import render

CELLS = "cells"
# The longest part of a cell file's name that spells out its parameters, and its label and its
# trace's name each (the key that ends the name keeps it unique; a file system takes 255 bytes).
PARAMS_IN_NAME = 80
NAME_PART = 40


def digest(keys: list[str]) -> str:
    return hashlib.sha256("\n".join(sorted(keys)).encode()).hexdigest()[:8]


def _safe(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9=%.+_-]", "_", text)


def cell_file_name(cell: Cell, key: str) -> str:
    """``LABEL-TRACE-k=v_k=v-KEY.json``: what distinguishes the cell, then its key."""
    params = "_".join(f"{k}={v}" for k, v in cell.given.items())[:PARAMS_IN_NAME]
    parts = [cell.label[:NAME_PART], cell.trace_name[:NAME_PART]] + ([params] if params else []) + [key]
    return _safe("-".join(parts)) + ".json"


class RunFolder:
    """The folder of one run of an experiment."""

    def __init__(self, folder: Path, stem: str):
        self.folder, self.stem = folder, stem

    @classmethod
    def open(cls, root: Path, name: str, keys: list[str], resume: bool) -> RunFolder:
        """With ``resume``, the latest folder of the same cells (the first run's name when there
        is none); without, a new folder no previous run wrote."""
        stem = f"{name}-{digest(keys)}"
        first = root / stem
        latest, n = (first if first.exists() else None), 2
        while (root / f"{stem}-{n}").exists():
            latest, n = root / f"{stem}-{n}", n + 1
        if resume and latest is not None:
            return cls(latest, stem)
        return cls(first if not first.exists() else root / f"{stem}-{n}", stem)

    @staticmethod
    def earlier(root: Path, name: str) -> list[Path]:
        """The folders of earlier runs of experiment ``name`` under ``root``, newest first."""
        if not root.is_dir():
            return []
        pattern = re.compile(rf"{re.escape(name)}-[0-9a-f]{{8}}(-[0-9]+)?")
        found = [p for p in root.iterdir() if p.is_dir() and pattern.fullmatch(p.name)]
        return sorted(found, key=lambda p: p.stat().st_mtime_ns, reverse=True)

    @property
    def table_path(self) -> Path:
        return self.folder / f"{self.stem}.parquet"

    @property
    def provenance_path(self) -> Path:
        return self.folder / f"{self.stem}.json"

    def stored(self) -> dict[str, tuple[dict, Timing | None]]:
        """The stored cells' results and costs, by key."""
        found = {}
        for path in sorted((self.folder / CELLS).glob("*.json")):
            try:
                document = json.loads(path.read_text())
                timing = Timing.from_record(document["timing"]) if document.get("timing") else None
            except (OSError, ValueError, TypeError, KeyError, AttributeError):
                continue  # not one of ours, or unreadable: the cell runs again
            if isinstance(document, dict) and isinstance(document.get("key"), str) and "result" in document:
                if isinstance(document["result"], dict):
                    found[document["key"]] = (document["result"], timing)
        return found

    def save_cell(self, cell: Cell, outcome: Outcome) -> None:
        if outcome.result is None:
            return
        document = {
            "key": outcome.key,
            "cell": cell.describe(),
            "result": outcome.result,
            "timing": outcome.timing.record() if outcome.timing else None,
        }
        # One line: only then does json use its C encoder (an indented cell took the parent
        # 1.4 ms, as long as the rest of storing it, for each cell of a run).
        outputs.write_text(
            self.folder / CELLS / cell_file_name(cell, outcome.key), json.dumps(document, sort_keys=True) + "\n"
        )

    @contextlib.contextmanager
    def writing(self, rows: list[dict[str, Any]], phases) -> Iterator[None]:
        """Writes the table (Parquet) under a temporary name (timed in ``phases`` as "table"),
        then the block (the figures, then the provenance sidecar: ``write_sidecar``), then
        renames the table onto its name: each whole or not at all, the table last."""
        with outputs.output_file(self.table_path, make_folder=True) as temporary:
            with phases("table"):
                _parquet(rows, temporary)
            yield

    def write_sidecar(self, sidecar: dict) -> None:
        outputs.write_text(self.provenance_path, json.dumps(sidecar, indent=2, sort_keys=True) + "\n")


def _parquet(rows: list[dict[str, Any]], path: Path) -> None:
    import pyarrow.parquet as pq

    pq.write_table(arrow_table(rows), path)


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


def sidecar(
    experiment,
    cells: list[tuple[Cell, str]],
    outcomes: dict[int, Outcome],
    parent: dict,
    reused: set[int] = frozenset(),
    expected: dict[int, float] | None = None,
) -> dict:
    """The provenance of a run: everything needed to reproduce each of its rows, what each
    cost (``reused`` cells: in the run that stored them) and the parent's work (``parent``)."""

    source = experiment.source
    described = []
    for cell, key in cells:
        outcome = outcomes[cell.index]
        entry = {
            "key": key,
            **cell.describe(),
            "error": outcome.error,
            "timing": outcome.timing.record() if outcome.timing else None,
            "reused": cell.index in reused,
            "expected_s": (expected or {}).get(cell.index),
        }
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
        "traces": {
            name: {"path": str(t.path) if t.path else None, "checksum": t.checksum()}
            for name, t in experiment.traces.items()
        },
        "cells": described,
        "failed": sum(1 for o in outcomes.values() if o.error),
        "parent": parent,
    }


# The columns of ``timing_rows`` after ``cell``, as ``timing.NAME``.
TIMING_COLUMNS = (
    "worker",
    "wall_s",
    "cpu_s",
    "peak_rss_bytes",
    "wait_s",
    "attempts",
    "footprint_s",
    "fetch_s",
    "requests",
    "started_at",
    "expected_s",
    "reused",
)


def timing_rows(sidecar: dict) -> list[dict[str, Any]]:
    """What each cell of a run cost, from its sidecar: one row per cell with its key (``cell``)
    and ``timing.NAME`` columns (``TIMING_COLUMNS``); None where a cell has no record (a run
    from before costs were kept)."""
    rows = []
    for entry in sidecar.get("cells", []):
        record = {**(entry.get("timing") or {}), "expected_s": entry.get("expected_s"), "reused": entry.get("reused")}
        rows.append({"cell": entry.get("key"), **{f"timing.{name}": record.get(name) for name in TIMING_COLUMNS}})
    return rows
