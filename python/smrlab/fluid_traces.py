"""The workloads of the FluidSMR paper as generated traces: the twelve MSR Cambridge traces of its
Table 1 and the four-phase write workload of its Fig. 16, at full size or scaled to a request
count, made on first use into smrlab's cache folder by a digest of their recipe, like
``bundled.full_size_trace``.

The table, its recipe (footprint and locality chosen where Table 1 is silent), the ``spread``
placement and the four-phase workload are the core's (crates/smr-trace/src/paper/:
fluid_table1.rs, spread.rs, four_phase.rs, whose texts say how and why); this module caches the
files, passes the shapes the commands print, and registers the recipes. Not here: running the
experiments (``smrlab.cli.fluid``).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from smrlab import _core, recipes
from smrlab.bundled import SMRBIN_RECORD, generated_trace
from smrlab.errors import refused_as_usage

_TABLES = json.loads(_core.paper_tables())
TABLE1 = {row["name"]: row for row in _TABLES["fluid_table1"]}
ZONE = _TABLES["zone"]
PLACEMENTS = tuple(_TABLES["placements"])
HOT_RANGES = _TABLES["hot_ranges"]
MAX_HOT_RANGES = _TABLES["max_hot_ranges"]
PHASE_REQUESTS = _TABLES["phase_requests"]
PHASE_HOURS = _TABLES["phase_hours"]
PHASE_HOURS_MIN, PHASE_HOURS_MAX = _TABLES["phase_hours_min"], _TABLES["phase_hours_max"]


def recipe(paper: dict) -> dict:
    """The core's recipe of a paper workload (``{"fluid_table1": ...}`` or ``{"four_phase": ...}``)."""
    return json.loads(refused_as_usage(_core.paper_recipe, json.dumps(paper)))


def preset(name: str) -> dict:
    """Table 1's row ``name``; a ``UsageError`` naming the table's traces for another name."""
    refused_as_usage(_core.fluid_table1_shape, name, None)
    return TABLE1[name]


def scale_of(name: str, requests: int | None) -> float:
    """How much a trace of ``requests`` requests is scaled down from Table 1's (1: full size)."""
    return refused_as_usage(_core.fluid_table1_shape, name, requests)[0]


def requests_of(name: str, requests: int | None = None) -> int:
    """Requests of Table 1 trace ``name`` scaled to ``requests``."""
    return refused_as_usage(_core.fluid_table1_shape, name, requests)[1]


def zone_size(name: str, requests: int | None = None) -> int:
    """The zone size that keeps the paper's zone count for ``name`` at ``requests``: 256 MiB
    scaled, in 4 KiB blocks."""
    return refused_as_usage(_core.fluid_table1_shape, name, requests)[2]


def max_offset(name: str, requests: int | None = None) -> int:
    """Table 1's maximum offset of ``name``, scaled to ``requests``, in whole 4 KiB blocks."""
    return refused_as_usage(_core.fluid_table1_shape, name, requests)[3]


def chunk_bytes(name: str, requests: int | None, hot_ranges: int) -> int:
    """The chunk ``spread`` shuffles: the core over ``hot_ranges``, in whole 4 KiB blocks; a
    ``UsageError`` when that does not fit."""
    return recipe({"fluid_table1": {"name": name, "requests": requests, "hot_ranges": hot_ranges}})["chunk"]


def spread(offsets: np.ndarray, lengths: np.ndarray, chunk: int, end: int, seed: int) -> np.ndarray:
    """``offsets`` (of requests of ``lengths``) moved by the core's ``spread`` rule over ``0..end``."""
    return np.array(
        refused_as_usage(_core.fluid_spread, offsets.tolist(), lengths.tolist(), chunk, end, seed), dtype=np.uint64
    )


def table1_trace(
    name: str,
    requests: int | None = None,
    folder: Path | None = None,
    seed: int = 0,
    placement: str = "spread",
    hot_ranges: int = HOT_RANGES,
) -> Path:
    """The generated Table 1 trace ``name`` in smrlab's binary format (made on first use), its
    written data placed by ``placement``."""
    paper = {
        "fluid_table1": {
            "name": name,
            "requests": requests,
            "seed": seed,
            "placement": placement,
            "hot_ranges": hot_ranges,
        }
    }
    made = recipe(paper)
    pipeline = {"synth": made["synth"]}
    if placement == "front":
        key, stem = pipeline, f"fluid-{name}"
    else:
        key, stem = (
            {**pipeline, "placement": placement, "chunk": made["chunk"], "end": made["end"]},
            f"fluid-{name}-{placement}",
        )
    return generated_trace(
        key,
        stem,
        folder,
        lambda path: _core.trace_write(json.dumps({"paper": paper}), str(path), None),
        needed=made["requests"] * SMRBIN_RECORD,
    )


def four_phase_shape(requests: int) -> tuple[int, int, int]:
    """(zone size, zones, zones of the CMR-favourable phases) of the four-phase workload scaled to
    ``requests``: fewer zones, of the same size, so its windows are covered as densely."""
    return tuple(_core.four_phase_shape(requests))


def four_phase_trace(
    requests: int = PHASE_REQUESTS,
    zone: int = ZONE,
    zones: int | None = None,
    hot_zones: int | None = None,
    hours: float = PHASE_HOURS,
    folder: Path | None = None,
    seed: int = 0,
) -> Path:
    """Fig. 16's workload in smrlab's binary format (made on first use)."""
    _, full_zones, full_hot = four_phase_shape(PHASE_REQUESTS)
    zones, hot_zones = full_zones if zones is None else zones, full_hot if hot_zones is None else hot_zones
    paper = {
        "four_phase": {
            "requests": requests,
            "zone": zone,
            "zones": zones,
            "hot_zones": hot_zones,
            "hours": hours,
            "seed": seed,
        }
    }
    recipe(paper)
    key = {"four_phase": [requests, zone, zones, hot_zones, hours, seed]}
    return generated_trace(
        key,
        "fluid-four-phase",
        folder,
        lambda path: _core.trace_write(json.dumps({"paper": paper}), str(path), None),
        needed=requests * SMRBIN_RECORD,
    )


# FluidSMR's Table 1 traces and its Fig. 16 workload (its one name: four-phase), at full size or
# scaled to a request count, made on first use.
recipes.register(
    "fluid-table1",
    lambda name, requests, seed: table1_trace(name, requests, seed=seed),
    names=TABLE1,
    source="FluidSMR's Table 1",
    paper_requests=requests_of,
)
recipes.register(
    "fluid-phases",
    lambda name, requests, seed: four_phase_trace(*([requests] if requests else []), seed=seed),
    names=["four-phase"],
    source="FluidSMR's Fig. 16 workloads",
)
