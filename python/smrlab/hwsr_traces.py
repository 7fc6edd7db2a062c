"""The traces of the HWSR paper's Table 3 as synthesizer recipes: Financial1 and Financial2 (SPC
traces of OLTP applications) and ten MSR Cambridge traces, each shaped by its row — request
count, unique data, average read and write length, updates and write percent — and generated on
first use into smrlab's cache folder (``bundled.traces_folder``; the Financial ones in SPC
format, read back through the SPC reader; the MSR ones in smrlab's binary format).

How a row becomes parameters (``recipe``). Sizes are 512-byte multiples (``size_unit=512``):
writes and reads each draw from two sizes whose weighted mean is the row's average length. A
write that is not an update lands on blocks never written before, so the written range is what
the row's non-updating writes cover (writes − updates, times the blocks a write touches); the
unique data is the accessed range, the rest of it reached by reads. Writes that do not land in
the written area's cold part go to hot regions, as many as leave the cold writes twice the
blocks the area holds. Arrival rates are the
original traces' average rates (requests over the trace's duration: a week for MSR Cambridge,
about 12 hours for the Financial traces; counts from the traces' published summaries), so the
open-loop replay sees the load the paper's replay saw. Sequential continuation is 0.2, 0.6 for
the media servers (mds: "almost all requests are sequential", §5.3.2). A smaller ``requests``
scales the ranges in proportion, keeping the density.

Calibration. The first estimates miss: a write that overlaps one written block is an update, and
a read of 2 KB touches a whole 4 KiB block. Each row carries two factors, found once by
bisection against the generator at 100,000 requests (seed 0): the written range per first write
that gives the row's updates, and the accessed range that gives its unique data; with them every
column is within 3 % of the table at that size. Not here: simulation (``smrlab hwsr``).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

from smrlab import _core, recipes
from smrlab.bundled import SMRBIN_RECORD, generated_trace
from smrlab.errors import UsageError
from smrlab.options import MAX_GENERATED_REQUESTS, quoted


@dataclass(frozen=True)
class Row:
    """One row of Table 3, and the original trace's average arrival rate (requests/s)."""
    name: str
    requests: int
    unique_gb: float
    avg_read: int
    avg_write: int
    updates: int
    write_percent: float
    rate: float
    # Calibration against the generator (see `recipe`): the written range per first write and
    # the accessed range, as multiples of the first estimate.
    written_fit: float = 1.0
    unique_fit: float = 1.0

    @property
    def spc(self) -> bool:
        return self.name.startswith("financial")


WEEK_S = 7 * 24 * 3600
TABLE3 = [
    Row("financial1", 1_000_000, 0.43, 3167, 4525, 749_893, 78.73, 5_334_987 / 43_712, 1.291, 0.902),
    Row("financial2", 1_000_000, 0.24, 2166, 3020, 157_481, 18.19, 3_699_194 / 41_848, 1.214, 0.845),
    Row("mds0", 1_000_000, 3.06, 26021, 7423, 856_083, 86.88, 1_211_034 / WEEK_S, 2.178, 0.952),
    Row("mds1", 1_000_000, 51.78, 60233, 14057, 37_958, 5.22, 1_637_711 / WEEK_S, 2.48, 0.993),
    Row("prn0", 1_000_000, 3.99, 25019, 10573, 793_929, 85.74, 5_585_886 / WEEK_S, 1.481, 0.957),
    Row("prn1", 1_000_000, 6.02, 13794, 9840, 174_255, 28.97, 11_233_411 / WEEK_S, 1.307, 0.958),
    Row("proj0", 1_000_000, 1.93, 19717, 13262, 758_902, 77.43, 4_224_524 / WEEK_S, 1.714, 0.986),
    Row("proj1", 1_000_000, 31.27, 36394, 23836, 62_869, 17.54, 23_639_742 / WEEK_S, 1.343, 0.973),
    Row("usr0", 1_000_000, 2.21, 42916, 9801, 600_846, 61.40, 2_237_889 / WEEK_S, 1.763, 0.973),
    Row("usr1", 1_000_000, 33.14, 42705, 7154, 54_190, 12.67, 45_283_980 / WEEK_S, 1.174, 0.961),
    Row("prxy0", 1_000_000, 0.27, 5900, 2441, 937_862, 95.26, 12_518_968 / WEEK_S, 1.085, 0.923),
    Row("wdev0", 1_000_000, 0.49, 12861, 8406, 781_367, 79.41, 1_143_261 / WEEK_S, 1.476, 0.982),
]
ROWS = {row.name: row for row in TABLE3}
SECTOR = 512
BLOCK = 4096


def row(name: str) -> Row:
    if name not in ROWS:
        raise UsageError(f"{quoted(name)} is not a Table 3 trace ({', '.join(ROWS)})")
    return ROWS[name]


def two_sizes(mean: int) -> str:
    """A ``sizes`` distribution of two sector multiples whose weighted mean is ``mean`` bytes:
    a small size (half the mean, at least a sector) and a large one (twice the mean)."""
    small = max(SECTOR, mean // 2 // SECTOR * SECTOR)
    large = max(small + SECTOR, math.ceil(2 * mean / SECTOR) * SECTOR)
    weight = (mean - small) / (large - small)
    return f"{small}:{1 - weight:.6f},{large}:{weight:.6f}"


def blocks_touched(mean: int) -> float:
    """Expected 4 KiB blocks a request of ``mean`` bytes at a 4 KiB-aligned offset touches, for
    the two sizes of ``two_sizes``."""
    small = max(SECTOR, mean // 2 // SECTOR * SECTOR)
    large = max(small + SECTOR, math.ceil(2 * mean / SECTOR) * SECTOR)
    weight = (mean - small) / (large - small)
    return (1 - weight) * math.ceil(small / BLOCK) + weight * math.ceil(large / BLOCK)


def recipe(name: str, requests: int | None = None, seed: int = 0, fit: tuple[float, float] | None = None) -> list[str]:
    """Synthesizer parameters of Table 3 trace ``name`` at ``requests`` requests (default the
    row's own count; fewer scale the ranges in proportion), with the row's calibration or
    ``fit`` (written, unique)."""
    r = row(name)
    written_fit, unique_fit = fit or (r.written_fit, r.unique_fit)
    count = r.requests if requests is None else requests
    if not 0 < count <= MAX_GENERATED_REQUESTS:
        raise UsageError(f"requests must be from 1 to {MAX_GENERATED_REQUESTS:,}, got {count}")
    scale = count / r.requests
    writes = r.requests * r.write_percent / 100
    first_writes = writes - r.updates
    unique = r.unique_gb * 1e9 * scale * unique_fit
    written = min(unique, 0.9 * writes * scale * r.avg_write, first_writes * blocks_touched(r.avg_write) * BLOCK * scale * written_fit)
    # Cold writes (uniform over the written area) carry twice the blocks the area needs, the
    # rest go to hot regions: how few first writes there are sets how hot the writes are.
    hot = min(0.9, max(0.0, 1 - 2 * written / (writes * scale * r.avg_write)))
    # Reads reach what writes do not, at most 90 % of the bytes they read (proj1 reads 30 GB
    # and touches 31.27 GB: its reads are nearly all first reads; the generator's cannot all be).
    reads = (r.requests - writes) * scale
    unique = min(unique, written + 0.9 * reads * r.avg_read)
    return [
        f"requests={count}", f"seed={seed}", f"write_ratio={r.write_percent / 100:.6f}", "size_unit=512",
        f"sizes={two_sizes(r.avg_write)}", f"read_sizes={two_sizes(r.avg_read)}",
        f"written_range={max(BLOCK, round(written))}", f"accessed_range={max(BLOCK, round(unique))}",
        f"hot_fraction={hot:.6f}", f"seq={0.6 if name.startswith('mds') else 0.2}", f"rate={r.rate:.6f}",
    ]


# Bytes of one request as a generated SPC line at most ("ASU,LBA,size,opcode,timestamp").
SPC_LINE = 48


def trace(name: str, requests: int | None = None, folder: Path | None = None, seed: int = 0) -> Path:
    """The Table 3 trace ``name``, generated into ``folder`` (default: the cache's) on
    first use under a name carrying a digest of its recipe."""
    params = recipe(name, requests, seed)
    count = row(name).requests if requests is None else requests
    return generated_trace(params, f"{name}-{count}", folder, lambda path: _core.trace_write(json.dumps({"synth": params}), str(path), None),
                           needed=trace_bytes(name, requests), suffix="spc" if row(name).spc else "smrbin")


def trace_bytes(name: str, requests: int | None = None) -> int:
    """At most how many bytes the Table 3 trace ``name`` of ``requests`` requests takes."""
    return (row(name).requests if requests is None else requests) * (SPC_LINE if row(name).spc else SMRBIN_RECORD)


def measured(path: Path) -> dict:
    """Table 3's columns of a trace file (read through its format's reader)."""
    return json.loads(_core.hwsr_trace_table(json.dumps({"inputs": [{"path": str(path)}]})))


def deviations(name: str, columns: dict, requests: int | None = None) -> dict[str, float]:
    """How far each measured column is from Table 3's (scaled to ``requests``), as a fraction."""
    r = row(name)
    scale = (r.requests if requests is None else requests) / r.requests
    paper = {"requests": r.requests * scale, "unique_bytes": r.unique_gb * 1e9 * scale, "avg_read_len": r.avg_read,
             "avg_write_len": r.avg_write, "updates": r.updates * scale, "write_percent": r.write_percent}
    return {key: columns[key] / value - 1 for key, value in paper.items()}


# HWSR's Table 3 traces at their full size (or scaled to a request count), made on first use.
recipes.register("hwsr-table3", lambda name, requests: trace(name, requests), names=ROWS, source="HWSR's Table 3")
