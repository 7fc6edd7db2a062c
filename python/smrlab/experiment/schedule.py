"""The order an experiment's cells start in: longest first by expected cost, so that a long
cell does not start last while the other workers sit idle (Graham's longest-processing-time
rule; its makespan is at most 4/3 of the best possible, and close to it when there are many
cells).

A cell's expected cost, in seconds, is learnt from earlier runs of the same experiment (the
provenance sidecars of its results folders under the same results root, the latest
``HISTORY_RUNS``): the cell's own wall time when the same cell (key) ran before, else its
trace's requests times the cost per request that its label had, else that its system had,
else the median of the costs per request known (with no history at all: the requests alone).
A trace's requests come from an earlier run (by checksum), else from the count a smrlab binary
trace carries, else an estimate from the file's size. Costs decide only the order: no result
depends on them. Not here: running the cells (``executors``).
"""

from __future__ import annotations

import json
import re
import statistics
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

from smrlab.experiment.cells import Cell

# Earlier runs read for costs (the latest of the experiment's results folders).
HISTORY_RUNS = 10
# A trace file's bytes per request, to guess its requests before a run counted them: a smrlab
# binary record is 24 bytes or fewer, an MSR or SPC line 25 to 60. Only the order of cells
# depends on the guess.
BYTES_PER_REQUEST_GUESS = {".smrbin": 24}
BYTES_PER_TEXT_REQUEST_GUESS = 40


@dataclass
class Costs:
    """What earlier runs of an experiment cost: seconds by cell key, seconds per request by
    label and by system, and requests by trace checksum."""

    seconds: dict[str, float] = field(default_factory=dict)
    per_request_label: dict[str, float] = field(default_factory=dict)
    per_request_system: dict[str, float] = field(default_factory=dict)
    requests: dict[str, int] = field(default_factory=dict)

    def median_per_request(self) -> float:
        known = list(self.per_request_system.values())
        return statistics.median(known) if known else 1.0


def _sidecars(root: Path, name: str) -> list[Path]:
    folder = re.compile(re.escape(name) + r"-[0-9a-f]{8}(-\d+)?")
    found = [path for path in root.glob(f"{name}-*/{name}-*.json") if folder.fullmatch(path.parent.name)]
    return sorted(found, key=lambda path: path.stat().st_mtime)[-HISTORY_RUNS:]


def learn(root: Path, name: str) -> Costs:
    """The costs recorded by the latest runs of experiment ``name`` under ``root``."""
    seconds: dict[str, list[float]] = defaultdict(list)
    totals: dict[tuple[str, str], list[float]] = defaultdict(lambda: [0.0, 0])
    requests: dict[str, int] = {}
    for path in _sidecars(root, name) if root.is_dir() else []:
        try:
            document = json.loads(path.read_text())
            cells = document["cells"] if document["experiment"]["name"] == name else []
        except (OSError, ValueError, KeyError, TypeError):
            continue  # not a sidecar smrlab wrote, or from before timings were kept
        for cell in cells:
            timing = cell.get("timing") if isinstance(cell, dict) else None
            if not timing or cell.get("error") or not timing.get("requests"):
                continue
            seconds[cell["key"]].append(timing["wall_s"])
            requests[cell["trace"]["checksum"]] = timing["requests"]
            for kind in (("label", cell["label"]), ("system", cell["system"])):
                totals[kind][0] += timing["wall_s"]
                totals[kind][1] += timing["requests"]
    per = {kind: spent / count for kind, (spent, count) in totals.items() if count}
    return Costs(
        seconds={key: statistics.mean(values) for key, values in seconds.items()},
        per_request_label={name: cost for (kind, name), cost in per.items() if kind == "label"},
        per_request_system={name: cost for (kind, name), cost in per.items() if kind == "system"},
        requests=requests,
    )


def trace_requests(cell: Cell, costs: Costs) -> float:
    """The requests of the cell's trace: counted by an earlier run, or in memory, or guessed
    from the file's size (reading no trace)."""
    trace = cell.trace
    if cell.trace_checksum() in costs.requests:
        return costs.requests[cell.trace_checksum()]
    if trace.path is None:
        return len(trace)
    return trace.path.stat().st_size / BYTES_PER_REQUEST_GUESS.get(trace.path.suffix, BYTES_PER_TEXT_REQUEST_GUESS)


def expected_seconds(cell: Cell, key: str, costs: Costs) -> float:
    """The cell's expected cost (seconds; relative only, when nothing ran before)."""
    if key in costs.seconds:
        return costs.seconds[key]
    per_request = (
        costs.per_request_label.get(cell.label)
        or costs.per_request_system.get(cell.system)
        or costs.median_per_request()
    )
    return trace_requests(cell, costs) * per_request


def longest_first(cells: list[tuple[Cell, str]], costs: Costs) -> tuple[list[tuple[Cell, str]], dict[int, float]]:
    """The cells in the order to start them, and each one's expected cost by cell index."""
    expected = {cell.index: expected_seconds(cell, key, costs) for cell, key in cells}
    return sorted(cells, key=lambda pair: (-expected[pair[0].index], pair[0].index)), expected
