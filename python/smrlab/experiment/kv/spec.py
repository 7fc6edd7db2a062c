"""A key-value experiment file (``kind = "kv"`` at its top): stores instead of simulated
systems, workloads instead of block traces, expanded into cells the experiment runner runs and
stores like simulation cells (one Parquet row each: label, trace, seed, grid keys, metrics)::

    kind = "kv"
    name = "smrdb-fig3.13"
    title = "..."
    seeds = [1]
    metrics = ["fillrandom_ops_per_s", "readseq_ops_per_s"]
    [reproduces]
    paper = "smrdb"
    figure = "Fig. 3.13"
    [[traces]]                          # a workload: db_bench-style phases on one store...
    name = "random"
    phases = ["fillrandom", "readseq"]
    count = 100000                      # operations per phase
    value_size = 4096
    [[traces]]                          # ...or YCSB's load and core workloads, in order
    name = "ycsb"
    ycsb = ["load", "a", "b", "c", "f", "d", "e"]
    records = 100000
    operations = 10000
    value_size = 4096
    [params]                            # for every store that takes the key; a list is a grid axis
    setting = "model"                   # model: disk model time; fs: this machine's file system, wall clock
    threads = [1, 4, 8]
    band_size = "4MiB"
    [[systems]]
    label = "soc"
    system = "smrdb-soc"                # smrdb-soc | smrdb-loc | leveldb | rocksdb
    params = { l1_overlap_trigger = [2, 3, 4] }
    [quick]                             # keys that replace the file's own for a --quick run
    traces = [...]

The runner's other key (``figure``) keeps its meaning. Every mistake is one
``UsageError`` naming the file and the key. Not here: running a cell (``cell``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from smrlab.errors import UsageError
from smrlab.experiment.kv import schema, stores
from smrlab.experiment.kv.cell import KvCell, Workload
from smrlab.experiment.kv.offload import check_steps
from smrlab.experiment.schema import check_types
from smrlab.experiment.spec import (
    REPRODUCES_KEYS,
    Experiment,
    SystemRun,
    _fail,
    _figure,
    _name,
    _table,
    grid,
    top_level,
)
from smrlab.experiment.spec import _values as values

TOP_KEYS = set(schema.top_keys())
QUICK_KEYS = set(schema.QUICK)
TRACE_KEYS = set(schema.TRACE)
SYSTEM_KEYS = set(schema.SYSTEM)
SETTINGS = ("model", "fs")
PHASES = {
    "phases": ("fillseq", "fillrandom", "overwrite", "readrandom", "readseq"),
    "ycsb": ("load", "a", "b", "c", "d", "e", "f"),
}


class KvExperiment(Experiment):
    """An experiment whose cells are key-value cells (the runner's other keys as ``Experiment``'s)."""

    kind = "kv"

    def cells(self) -> list[KvCell]:
        """Every cell (that ``keep`` keeps) in a fixed order: trace, seed, store, then the grid
        (shared axes first)."""
        cells = []
        for trace_name, workload in self.traces.items():
            for seed in self.seeds:
                for entry in self.systems:
                    params = {k: v for k, v in self.params.items() if stores.takes(entry.system, k)}
                    params.update(entry.params)
                    for given in grid(params):
                        cell = KvCell(len(cells), entry.label, entry.system, trace_name, workload, given, seed)
                        if self.keep is None or self.keep(cell):
                            cells.append(cell)
        return cells


def _whole(source: Path, where: str, value: Any, low: int = 1) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise _fail(source, f"{where} must be a whole number of at least {low}, not {value!r}")
    return value


def _workload(source: Path, entry: Any) -> tuple[str, Workload]:
    entry = _table(source, "a [[traces]] entry", entry, TRACE_KEYS)
    kinds = [k for k in ("phases", "ycsb", "steps") if k in entry]
    if len(kinds) != 1:
        raise _fail(
            source,
            "a [[traces]] entry needs one of phases (db_bench-style), ycsb (load and workloads a-f) "
            "or steps (arrival-driven YCSB steps, for smrdb-offload)",
        )
    kind = kinds[0]
    if kind == "steps":
        try:
            steps = check_steps(entry["steps"])
        except UsageError as error:
            raise _fail(source, str(error)) from None
        name = str(entry.get("name", kind))
        return name, Workload(name, kind, tuple(steps), {})
    steps = entry[kind]
    if not isinstance(steps, list) or not steps or not all(isinstance(s, str) for s in steps):
        raise _fail(source, f"traces.{kind} must be a non-empty list of names")
    for step in steps:
        if step not in PHASES[kind]:
            raise _fail(source, f"traces.{kind}: '{step}' is none of {', '.join(PHASES[kind])}")
    if len(set(steps)) != len(steps):
        raise _fail(source, f"traces.{kind}: each phase may appear once (its metrics are named after it)")
    numbers = {
        key: _whole(source, f"traces.{key}", entry[key])
        for key in ("count", "value_size", "records", "operations")
        if key in entry
    }
    name = str(entry.get("name", kind))
    return name, Workload(name, kind, tuple(steps), numbers)


def _values(source: Path, where: str, params: Any) -> dict[str, Any]:
    """The simulation files' parameter tables, and a known ``setting``."""
    params = values(source, where, params)
    setting = params.get("setting", [])
    if any(v not in SETTINGS for v in (setting if isinstance(setting, list) else [setting])):
        raise _fail(source, f"{where}.setting must be one of {', '.join(SETTINGS)}")
    return params


def _system(source: Path, entry: Any) -> SystemRun:
    entry = _table(source, "a [[systems]] entry", entry, SYSTEM_KEYS)
    system = entry.get("system")
    if system not in stores.SYSTEMS:
        raise _fail(source, f"system '{system}' is none of {', '.join(stores.SYSTEMS)}")
    params = _values(source, f"systems.{system}.params", entry.get("params", {}))
    for key in params:
        if not stores.takes(system, key):
            raise _fail(source, f"systems.{system}.params: {system} takes no parameter '{key}'")
    return SystemRun(str(entry.get("label", system)), system, params)


def parse(document: dict, source: Path, quick: bool = False) -> KvExperiment:
    """The key-value experiment of a TOML ``document`` read from ``source``; with ``quick``,
    the ``[quick]`` table's keys replace the file's own."""
    document = top_level(source, document, TOP_KEYS, QUICK_KEYS, quick)
    check_types(source, document, schema.json_schema())
    runs = [_system(source, entry) for entry in document["systems"]]
    labels = [r.label for r in runs]
    if len(set(labels)) != len(labels):
        raise _fail(source, "two systems have the same label; give each a distinct 'label'")
    params = _values(source, "params", document.get("params", {}))
    for key in params:
        if not any(stores.takes(s, key) for s in stores.SYSTEMS):
            raise _fail(source, f"params: no store takes a parameter '{key}'")
    seeds = document.get("seeds", [1])
    if (
        not isinstance(seeds, list)
        or not seeds
        or not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 2**63 for s in seeds)
    ):
        raise _fail(source, "seeds must be a non-empty list of whole numbers from 0 to 2^63-1")
    traces = dict(_workload(source, entry) for entry in document["traces"])
    for workload in traces.values():
        for entry in runs:
            if (workload.kind == "steps") != (entry.system == stores.OFFLOAD):
                raise _fail(
                    source,
                    f"trace '{workload.name}' ({workload.kind}) cannot run on {entry.system}: steps of arrivals run on "
                    f"{stores.OFFLOAD}, and only they do",
                )
    return KvExperiment(
        name=_name(source, document["name"]),
        traces=traces,
        systems=runs,
        params=params,
        seeds=seeds,
        title=str(document.get("title", "")),
        description=str(document.get("description", "")),
        metrics=[str(m) for m in document.get("metrics", [])],
        reproduces=_table(source, "reproduces", document.get("reproduces", {}), REPRODUCES_KEYS),
        figure=_figure(source, document.get("figure", {})),
        source=source,
    )
