"""What an experiment is — traces, systems, parameters (single values, lists as grid axes),
seeds, engine, the measures to show, the figure to draw and the paper figure or table it
reproduces with the paper's numbers — read from a TOML file (``load``) or built in code
(``smrlab.compare``, ``smrlab.sweep``), and its expansion into cells.

An experiment file::

    name = "pore-fig11"                 # names its results folder
    title = "..."
    seeds = [0]                         # default [0]
    metrics = ["total_io_s", "r_wa"]    # the columns its table shows
    traces = ["bundled:wdev", "pore-full-writes:mds", "my/trace.csv"]   # or tables {name, path, format, options}
    [reproduces]                        # optional
    paper = "pore"                      # a key of smrlab.citations.PAPERS
    figure = "Fig. 11"
    [engine]                            # keywords of smrlab.run.engine_config
    mode = "closed"
    [params]                            # for every system (those that declare the key, or stack over a disk)
    cache = ["1%", "2%"]                # a list is a grid axis
    [[systems]]
    label = "pore-bl"
    system = "cache"
    params = { policy = "pore", scheme = "bl" }     # this system's own; lists are its own axes
    engine = { gauge_samples = 200 }                # this system's engine overrides
    [figure]                            # smrlab.plots: kind = bars | lines | curve
    [[paper]]                           # the paper's numbers (smrlab.paper)

A trace is ``bundled:NAME`` (data/), ``pore-full:NAME`` or ``pore-full-writes:NAME`` (the
full-size PORE traces, generated on first use) or a path relative to the experiment file.
Every mistake is one ``UsageError`` naming the file and the key. Not here: running the cells
(``executors``) or storing them (``store``).
"""

from __future__ import annotations

import itertools
import math
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smrlab import bundled, fluid_traces, hwsr_traces, systems
from smrlab.errors import UsageError
from smrlab.experiment import schema
from smrlab.experiment.cells import Cell
from smrlab.run import engine_config
from smrlab.trace import Trace

# The most cells an experiment may have (each a simulation; the grid is counted before it is
# made).
MAX_CELLS = 10_000
GENERATED = {
    "bundled": lambda name: bundled.bundled_trace(name),
    "pore-full": lambda name: bundled.full_size_trace(name),
    "pore-full-writes": lambda name: bundled.full_size_trace(name, writes_only=True),
    # HWSR's Table 3 and FluidSMR's Table 1 traces at their full size, made on first use.
    "hwsr-table3": lambda name: _table_trace(hwsr_traces.ROWS, hwsr_traces.trace, name, "HWSR's Table 3"),
    "fluid-table1": lambda name: _table_trace(fluid_traces.TABLE1, fluid_traces.table1_trace, name, "FluidSMR's Table 1"),
    # FluidSMR's Fig. 16 workload at full size (its one name: four-phase).
    "fluid-phases": lambda name: _table_trace(["four-phase"], lambda _: fluid_traces.four_phase_trace(), name, "FluidSMR's Fig. 16 workloads"),
}


def _table_trace(rows, make, name: str, table: str) -> Path:
    if name not in rows:
        raise UsageError(f"trace {schema.shown(name)} is not one of {table} ({', '.join(rows)})")
    return make(name)


def param_text(value: Any) -> str:
    """A parameter value as the core reads it: ``True`` is ``true``, ``20e6`` is ``20000000``."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


@dataclass
class SystemRun:
    """One system of the line-up: its label, registry name, own parameters and engine."""

    label: str
    system: str
    params: dict[str, Any] = field(default_factory=dict)
    engine: dict[str, Any] = field(default_factory=dict)


@dataclass
class Experiment:
    name: str
    traces: dict[str, Trace]
    systems: list[SystemRun]
    params: dict[str, Any] = field(default_factory=dict)
    seeds: list[int] = field(default_factory=lambda: [0])
    engine: dict[str, Any] = field(default_factory=dict)
    title: str = ""
    description: str = ""
    metrics: list[str] = field(default_factory=list)
    reproduces: dict[str, str] = field(default_factory=dict)
    figure: dict[str, Any] = field(default_factory=dict)
    paper: list[dict[str, Any]] = field(default_factory=list)
    source: Path | None = None

    def cells(self) -> list[Cell]:
        """Every cell, in a fixed order: trace, seed, system, then the grid in the order its
        axes were written (shared axes first); more than ``MAX_CELLS`` are refused before any
        is made."""
        count = len(self.traces) * len(self.seeds) * sum(math.prod(len(v) if isinstance(v, list) else 1 for v in self._params_of(entry).values())
                                                          for entry in self.systems)
        if count > MAX_CELLS:
            raise UsageError(f"{self.source or self.name}: {count:,} cells (traces x seeds x each system's grid) are over the "
                             f"{MAX_CELLS:,} an experiment may have")
        cells = []
        for trace_name, trace in self.traces.items():
            for seed in self.seeds:
                for entry in self.systems:
                    params = self._params_of(entry)
                    engine = engine_config(**{**self.engine, **entry.engine})
                    for given in grid(params):
                        cells.append(Cell(len(cells), entry.label, entry.system, trace_name, trace, given, seed, engine))
        return cells

    def _params_of(self, entry: SystemRun) -> dict[str, Any]:
        """The parameters of a system's cells: the shared ones it takes, then its own."""
        params = {key: value for key, value in self.params.items() if takes(entry.system, key)}
        params.update(entry.params)
        return params

    def swept(self) -> list[str]:
        """The parameters with more than one value (the grid's axes)."""
        axes = [key for key, value in self.params.items() if isinstance(value, list) and len(value) > 1]
        for entry in self.systems:
            axes += [key for key, value in entry.params.items() if isinstance(value, list) and len(value) > 1 and key not in axes]
        return axes


def takes(system: str, key: str) -> bool:
    """Whether a shared parameter goes to ``system``: it declares the key, or it stacks over
    another system (declares ``below``), which reads what it does not."""
    declared = systems.defaults(system)
    return key in declared or "below" in declared


def grid(params: dict[str, Any]) -> list[dict[str, str]]:
    """Every combination of the parameters, a list being an axis, as text."""
    axes = [[(key, param_text(v)) for v in value] if isinstance(value, list) else [(key, param_text(value))]
            for key, value in params.items()]
    return [dict(combination) for combination in itertools.product(*axes)]


def _fail(source: Path, message: str) -> UsageError:
    return UsageError(f"{source}: {message}")


def _trace_entry(source: Path, entry: Any) -> tuple[str, dict]:
    """A trace entry's name (given, or the generated trace's, or the file's without suffixes)
    and its table, nothing opened or generated yet."""
    if isinstance(entry, str):
        entry = {"path": entry}
    entry = schema.checked_table(source, "a trace", entry, schema.TRACE)
    if "path" not in entry:
        raise _fail(source, "a trace needs a path (or bundled:NAME, pore-full:NAME, pore-full-writes:NAME)")
    scheme, colon, name = entry["path"].partition(":")
    label = name if colon and scheme in GENERATED else Path(entry["path"]).name.split(".")[0]
    return entry.get("name", label), entry


def _trace(source: Path, entry: dict) -> Trace:
    text = entry["path"]
    scheme, colon, name = text.partition(":")
    if colon and scheme in GENERATED:
        path = GENERATED[scheme](name)
    else:
        path = (source.parent / text) if not Path(text).is_absolute() else Path(text)
        if not path.is_file():
            raise _fail(source, f"trace {schema.shown(text)}: no such file ({path})")
    return Trace.open(path, entry.get("format"), entry.get("options", []))


def _traces(source: Path, entries: list, with_traces: bool) -> dict[str, Trace]:
    """The traces by name; two of one name (``a/t.smrbin`` and ``b/t.smrbin`` are both ``t``)
    are refused before any is opened or generated, as each cell is known by its trace's name."""
    named = [_trace_entry(source, entry) for entry in entries]
    seen: dict[str, str] = {}
    for name, entry in named:
        if name in seen:
            raise _fail(source, f"traces {schema.shown(seen[name])} and {schema.shown(entry['path'])} are both named "
                                f"{schema.shown(name)}: give each a distinct name (traces = [{{ name = \"...\", path = \"...\" }}])")
        seen[name] = entry["path"]
    return {name: _trace(source, entry) for name, entry in named} if with_traces else {}


def _values(source: Path, where: str, params: Any) -> dict[str, Any]:
    params = schema.checked_table(source, where, params, dict.fromkeys(params, "any") if isinstance(params, dict) else {})
    for key, value in params.items():
        if not PARAM_KEY.fullmatch(key):
            raise _fail(source, f"{where}: {schema.shown(key)} is not a parameter name (letters, digits, '_' and '.')")
        values = value if isinstance(value, list) else [value]
        if not values or not all(isinstance(v, (str, int, float, bool)) for v in values):
            raise _fail(source, f"{where}.{key} must be a value or a non-empty list of values")
    return params


def load(path: str | Path) -> Experiment:
    """The experiment in the TOML file at ``path``."""
    source = Path(path)
    try:
        text = source.read_text()
    except FileNotFoundError:
        raise UsageError(f"{source}: no such experiment file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{source}: cannot read it ({error})") from None
    return parse(text, source)


def parse(text: str, source: Path, with_traces: bool = True) -> Experiment:
    """The experiment in ``text`` (read from ``source``); without its traces (none opened or
    generated) when ``with_traces`` is false, to describe a stored run."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"{source}: not valid TOML: {error}") from None
    document = schema.checked_table(source, "the file", document, schema.TOP)
    for key in ("name", "traces", "systems"):
        if key not in document:
            raise _fail(source, f"'{key}' is missing")
    if not isinstance(document["traces"], list) or not document["traces"]:
        raise _fail(source, "traces must be a non-empty list")
    if not isinstance(document["systems"], list) or not document["systems"]:
        raise _fail(source, "systems must be a non-empty list of tables ([[systems]])")
    known = set(_core_system_names())
    runs = []
    for entry in document["systems"]:
        entry = schema.checked_table(source, "a [[systems]] entry", entry, schema.SYSTEM)
        system = entry.get("system")
        if system not in known:
            raise _fail(source, f"system {schema.shown(system)} is none of {', '.join(sorted(known))}")
        runs.append(SystemRun(entry.get("label", system), system,
                              _values(source, f"systems.{system}.params", entry.get("params", {})),
                              _engine(source, f"systems.{system}.engine", entry.get("engine", {}))))
    labels = [run.label for run in runs]
    if len(set(labels)) != len(labels):
        raise _fail(source, "two systems have the same label; give each a distinct 'label'")
    seeds = document.get("seeds", [0])
    if not isinstance(seeds, list) or not seeds or not all(schema.KINDS["whole"][0](s) and 0 <= s < 2**64 for s in seeds):
        raise _fail(source, "seeds must be a non-empty list of whole numbers from 0 to 2^64-1")
    engine = _engine(source, "engine", document.get("engine", {}))
    params = _values(source, "params", document.get("params", {}))
    figure = schema.checked_table(source, "figure", document.get("figure", {}), schema.FIGURE)
    paper = [_paper_entry(source, p) for p in document.get("paper", [])]
    return Experiment(
        name=_name(source, document["name"]),
        traces=_traces(source, document["traces"], with_traces),
        systems=runs,
        params=params,
        seeds=seeds,
        engine=engine,
        title=document.get("title", ""),
        description=document.get("description", ""),
        metrics=document.get("metrics", []),
        reproduces=schema.checked_table(source, "reproduces", document.get("reproduces", {}), schema.REPRODUCES),
        figure=figure,
        paper=paper,
        source=source,
    )


def _engine(source: Path, where: str, engine: Any) -> dict:
    """An engine table whose values the engine takes."""
    engine = schema.checked_table(source, where, engine, schema.ENGINE)
    try:
        engine_config(**engine)
    except UsageError as error:
        raise _fail(source, f"{where}: {error}") from None
    return engine


def _paper_entry(source: Path, entry: Any) -> dict:
    entry = schema.checked_table(source, "a [[paper]] entry", entry, schema.PAPER)
    for key in ("label", "metric", "value"):
        if key not in entry:
            raise _fail(source, f"a [[paper]] entry needs '{key}'")
    _values(source, f"[[paper]] {entry['label']} {entry['metric']}: where", entry.get("where", {}))
    return entry


# A parameter name as the core declares them (``below.zone`` for a stacked system's).
PARAM_KEY = re.compile(r"[A-Za-z0-9_.]{1,64}")
# The longest experiment name (it names the results folder).
NAME_MAX = 100


def _name(source: Path, name: str) -> str:
    if not name or len(name) > NAME_MAX or not all(c.isascii() and (c.isalnum() or c in "-_.") for c in name) or name in (".", ".."):
        raise _fail(source, f"name {schema.shown(name)} must be 1 to {NAME_MAX} letters, digits, '-', '_' or '.' (it names the results folder)")
    return name


def _core_system_names() -> list[str]:
    from smrlab import _core
    return list(_core.system_names())
