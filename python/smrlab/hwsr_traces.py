"""The traces of the HWSR paper's Table 3 (Financial1 and Financial2, SPC traces of OLTP
applications, and ten MSR Cambridge traces), generated on first use into smrlab's cache folder
(``bundled.traces_folder``; the Financial ones in SPC format, read back through the SPC reader;
the MSR ones in smrlab's binary format), and a trace's columns set against the table's.

The table, its calibration and how a row becomes synthesizer parameters are the core's
(crates/smr-trace/src/paper/hwsr_table3.rs, whose text says how and why); this module caches the
files and registers the recipe. Not here: simulation (``smrlab hwsr``).
"""

from __future__ import annotations

import json
from pathlib import Path

from smrlab import _core, recipes
from smrlab.bundled import SMRBIN_RECORD, generated_trace
from smrlab.errors import refused_as_usage

ROWS = {row["name"]: row for row in json.loads(_core.paper_tables())["hwsr_table3"]}
# Bytes of one request as a generated SPC line at most ("ASU,LBA,size,opcode,timestamp").
SPC_LINE = 48


def recipe(name: str, requests: int | None = None, seed: int = 0) -> dict:
    """The core's recipe of Table 3 trace ``name`` at ``requests`` requests (default the row's
    own count; fewer scale the ranges in proportion): its synthesizer parameters (``synth``),
    request count and file format; a ``UsageError`` for a trace or count the table cannot make."""
    paper = {"hwsr_table3": {"name": name, "requests": requests, "seed": seed}}
    return {**json.loads(refused_as_usage(_core.paper_recipe, json.dumps(paper))), "paper": paper}


def trace(name: str, requests: int | None = None, folder: Path | None = None, seed: int = 0) -> Path:
    """The Table 3 trace ``name``, generated into ``folder`` (default: the cache's) on
    first use under a name carrying a digest of its recipe."""
    made = recipe(name, requests, seed)
    return generated_trace(
        made["synth"],
        f"{name}-{made['requests']}",
        folder,
        lambda path: _core.trace_write(json.dumps({"paper": made["paper"]}), str(path), None),
        needed=trace_bytes(name, requests),
        suffix=made["format"],
    )


def trace_bytes(name: str, requests: int | None = None) -> int:
    """At most how many bytes the Table 3 trace ``name`` of ``requests`` requests takes."""
    made = recipe(name, requests)
    return made["requests"] * (SPC_LINE if made["format"] == "spc" else SMRBIN_RECORD)


def measured(path: Path) -> dict:
    """Table 3's columns of a trace file (read through its format's reader)."""
    return json.loads(_core.hwsr_trace_table(json.dumps({"inputs": [{"path": str(path)}]})))


def deviations(name: str, columns: dict, requests: int | None = None) -> dict[str, float]:
    """How far each measured column is from Table 3's (scaled to ``requests``), as a fraction."""
    r = ROWS[name]
    scale = (r["requests"] if requests is None else requests) / r["requests"]
    paper = {
        "requests": r["requests"] * scale,
        "unique_bytes": r["unique_gb"] * 1e9 * scale,
        "avg_read_len": r["avg_read"],
        "avg_write_len": r["avg_write"],
        "updates": r["updates"] * scale,
        "write_percent": r["write_percent"],
    }
    return {key: columns[key] / value - 1 for key, value in paper.items()}


# HWSR's Table 3 traces at their full size (or scaled to a request count), made on first use.
recipes.register(
    "hwsr-table3",
    lambda name, requests, seed: trace(name, requests, seed=seed),
    names=ROWS,
    source="HWSR's Table 3",
    paper_requests=lambda name: ROWS[name]["requests"],
)
