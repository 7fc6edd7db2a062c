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
    [engine]                            # replay options (smrlab.run.engine_options()); unsaid: the system's
    mode = "closed"
    [params]                            # for every system (those that declare the key, or stack over a disk)
    cache = ["1%", "2%"]                # a list is a grid axis
    [[systems]]
    label = "pore-bl"
    system = "cache"
    params = { policy = "pore", scheme = "bl" }     # this system's own; lists are its own axes
    engine = { gauge_samples = 200 }                # this system's engine overrides
    [figure]                            # smrlab.plots: kind = bars | lines | curve
    [quick]                             # keys that replace the file's own in a quick run
    traces = ["hwsr-table3:financial1@20000"]   # (smrlab reproduce --quick)

A trace is ``RECIPE:NAME``, a trace a recipe of ``smrlab.recipes`` makes (``bundled:wdev``,
``hwsr-table3:prn0``; ``@N`` after the name scales it to N requests where the recipe allows), or
a path relative to the experiment file. A trace source given to ``load`` may
supply a file for a generated name instead (``smrlab reproduce --traces DIR``: real traces).
Every mistake is one ``UsageError`` naming the file and the key. Not here: running the cells
(``executors``) or storing them (``store``).
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smrlab import _core, policy, recipes, systems, tomltext
from smrlab.errors import UsageError
from smrlab.experiment import schema
from smrlab.experiment.cells import Cell
from smrlab.options import quoted
from smrlab.trace import Trace

# The most cells an experiment may have (each a simulation; the grid is counted before it is
# made).
MAX_CELLS = 10_000
# Each table's keys, declared once in ``schema`` (which also makes the published JSON Schema).
TOP_KEYS = set(schema.top_keys())
# What a [quick] table may replace.
QUICK_KEYS = set(schema.QUICK)
SYSTEM_KEYS = set(schema.system_keys())
TRACE_KEYS = set(schema.TRACE)
ENGINE_KEYS = set(schema.engine_keys())
REPRODUCES_KEYS = set(schema.REPRODUCES)


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
    source: Path | None = None
    # Which cells to run (None: every one); the scorecard runs only those its claims read.
    keep: Callable[[Any], bool] | None = field(default=None, compare=False, repr=False)

    def cells(self) -> list[Cell]:
        """Every cell (that ``keep`` keeps), in a fixed order: trace, seed, system, then the
        grid in the order its axes were written (shared axes first); more than ``MAX_CELLS``
        are refused before any is made."""
        grids = {entry.label: self._params_of(entry) for entry in self.systems}
        count = (
            len(self.traces)
            * len(self.seeds)
            * sum(math.prod(len(v) if isinstance(v, list) else 1 for v in params.values()) for params in grids.values())
        )
        if count > MAX_CELLS:
            raise UsageError(
                f"{self.source or self.name}: {count:,} cells (traces x seeds x each system's grid) are over the "
                f"{MAX_CELLS:,} an experiment may have"
            )
        cells = []
        for trace_name, trace in self.traces.items():
            for seed in self.seeds:
                for entry in self.systems:
                    params = grids[entry.label]
                    engine = {**self.engine, **entry.engine}
                    for given in grid(params):
                        cell = Cell(len(cells), entry.label, entry.system, trace_name, trace, given, seed, engine)
                        if self.keep is None or self.keep(cell):
                            cells.append(cell)
        return cells

    def _params_of(self, entry: SystemRun) -> dict[str, Any]:
        """The parameters of a system's cells: the shared ones it takes, then its own."""
        params = {
            key: value
            for key, value in self.params.items()
            if takes(entry.system, key, {**self.params, **entry.params})
        }
        params.update(entry.params)
        return params

    def swept(self) -> list[str]:
        """The parameters with more than one value (the grid's axes)."""
        axes = [key for key, value in self.params.items() if isinstance(value, list) and len(value) > 1]
        for entry in self.systems:
            axes += [
                key
                for key, value in entry.params.items()
                if isinstance(value, list) and len(value) > 1 and key not in axes
            ]
        return axes

    def axes(self) -> dict[str, list[str]]:
        """Each parameter given as a list, with its values as text in the order the file lists
        them (a system's own list after the shared one's): the order a trend runs along."""
        found: dict[str, list[str]] = {}
        for params in [self.params] + [s.params for s in self.systems]:
            for key, value in params.items():
                if isinstance(value, list):
                    known = found.setdefault(key, [])
                    known += [v for v in map(param_text, value) if v not in known]
        return found


def takes(system: str, key: str, params: dict[str, Any]) -> bool:
    """Whether a shared parameter goes to ``system`` (with ``params``): it reads the key, itself
    or through a system it stacks over (``below``)."""
    return key in systems.accepted(system, params)


def grid(params: dict[str, Any]) -> list[dict[str, str]]:
    """Every combination of the parameters, a list being an axis, as text."""
    axes = [
        [(key, param_text(v)) for v in value] if isinstance(value, list) else [(key, param_text(value))]
        for key, value in params.items()
    ]
    return [dict(combination) for combination in itertools.product(*axes)]


def _fail(source: Path, message: str) -> UsageError:
    return UsageError(f"{source}: {message}")


def _table(source: Path, where: str, value: Any, allowed: set[str]) -> dict:
    if not isinstance(value, dict):
        raise _fail(source, f"{where} must be a table")
    unknown = sorted(set(value) - allowed)
    if unknown:
        raise _fail(
            source,
            f"{where}: unknown key '{unknown[0]}'{schema.nearest(unknown[0], allowed)} (known: {', '.join(sorted(allowed))})",
        )
    return value


def _trace_entry(source: Path, entry: Any) -> tuple[str, dict, tuple | None]:
    """A trace entry's name (given, or the generated trace's, or the file's up to its first
    dot), its table and what generates it (None: a file), nothing opened or generated yet."""
    if isinstance(entry, str):
        entry = {"path": entry}
    entry = _table(source, "a trace", entry, TRACE_KEYS)
    if "path" not in entry:
        raise _fail(source, f"a trace needs a path (or RECIPE:NAME, RECIPE one of {', '.join(recipes.recipes())})")
    try:
        generated = recipes.generated_name(entry["path"])
    except UsageError as error:
        raise _fail(source, str(error)) from None
    label = generated[1] if generated else Path(entry["path"]).name.split(".")[0]
    return entry.get("name", label), entry, generated


def _trace(source: Path, entry: dict, generated: tuple | None, trace_source=None, trace_seed: int = 0) -> Trace:
    text = entry["path"]
    if generated:
        scheme, name, requests = generated
        # A trace scaled to N requests is a sample at the sizes its (quick) experiment names for
        # it: a full-size file of the same name never takes its place.
        found = trace_source(scheme, name) if trace_source and requests is None else None
        seed = trace_seed if recipes.recipes()[scheme].seeded else 0
        path = found or recipes.make(scheme, name, requests, seed)
    else:
        path = (source.parent / text) if not Path(text).is_absolute() else Path(text)
        if not _is_file(path):
            raise _fail(source, f"trace {quoted(text)}: no such file ({quoted(str(path))})")
    return Trace.open(path, entry.get("format"), entry.get("options", []))


def _is_file(path: Path) -> bool:
    """Whether ``path`` is a file; a path the system cannot even look up (a name past its
    length limit) is not."""
    try:
        return path.is_file()
    except OSError:
        return False


def trace_recipes(source: Path, entries: list) -> dict[str, tuple | None]:
    """Each of a file's trace entries by the name its cells know it by: the generated trace's
    ``(scheme, name, requests)``, or None for a file; none opened or generated."""
    return {name: generated for name, _, generated in map(lambda e: _trace_entry(source, e), entries)}


def _traces(source: Path, entries: list, with_traces: bool, trace_source=None, trace_seed: int = 0) -> dict[str, Trace]:
    """The traces by name; two of one name (``a/t.smrbin`` and ``b/t.smrbin`` are both ``t``)
    are refused before any is opened or generated, as each cell is known by its trace's name."""
    named = [_trace_entry(source, entry) for entry in entries]
    seen: dict[str, str] = {}
    for name, entry, _ in named:
        if name in seen:
            raise _fail(
                source,
                f"traces {quoted(seen[name])} and {quoted(entry['path'])} are both named {quoted(name)}: "
                'give each a distinct name (traces = [{ name = "...", path = "..." }])',
            )
        seen[name] = entry["path"]
    return (
        {name: _trace(source, entry, generated, trace_source, trace_seed) for name, entry, generated in named}
        if with_traces
        else {}
    )


def _values(source: Path, where: str, params: Any) -> dict[str, Any]:
    params = _table(source, where, params, set(params) if isinstance(params, dict) else set())
    for key, value in params.items():
        if not PARAM_KEY.fullmatch(key):
            raise _fail(source, f"{where}: {quoted(key)} is not a parameter name (letters, digits, '_' and '.')")
        values = value if isinstance(value, list) else [value]
        if not values or not all(isinstance(v, (str, int, float, bool)) for v in values):
            raise _fail(source, f"{where}.{key} must be a value or a non-empty list of values")
    return params


def top_level(source: Path, document: dict, keys: set[str], quick_keys: set[str], quick: bool) -> dict:
    """The file's top-level table, checked (known keys, name, traces and systems present), with
    the ``[quick]`` table's keys in place of its own when ``quick``."""
    document = _table(source, "the file", dict(document), keys)
    replaced = _table(source, "quick", document.pop("quick", {}), quick_keys)
    if quick:
        document.update(replaced)
    for key in ("name", "traces", "systems"):
        if key not in document:
            raise _fail(source, f"'{key}' is missing")
    if not isinstance(document["traces"], list) or not document["traces"]:
        raise _fail(source, "traces must be a non-empty list")
    if not isinstance(document["systems"], list) or not document["systems"]:
        raise _fail(source, "systems must be a non-empty list of tables ([[systems]])")
    return document


def read_toml(text: str, source: Path) -> dict:
    """The TOML document in ``text`` (read from ``source``)."""
    return tomltext.loads(text, source)


def parse_document(
    document: dict, source: Path, with_traces: bool = True, quick: bool = False, trace_source=None, trace_seed: int = 0
) -> Experiment:
    """The simulation experiment of a TOML ``document`` read from ``source`` (a file of either
    kind is read by ``smrlab.experiment.files``); without its traces (none opened or generated)
    when ``with_traces`` is false, to describe a stored run. ``trace_seed`` generates each trace
    whose recipe takes a seed with that seed (the scorecard's replicates)."""
    document = top_level(source, document, TOP_KEYS, QUICK_KEYS, quick)
    schema.check_types(source, document, schema.json_schema())
    known = set(_core_system_names())
    runs = []
    for entry in document["systems"]:
        entry = _table(source, "a [[systems]] entry", entry, SYSTEM_KEYS)
        system = entry.get("system")
        if system not in known:
            raise _fail(
                source, f"system '{system}' is none of {', '.join(sorted(known))}{schema.nearest(system, known)}"
            )
        runs.append(
            SystemRun(
                str(entry.get("label", system)),
                system,
                policy.references(_values(source, f"systems.{system}.params", entry.get("params", {})), source.parent),
                _table(source, f"systems.{system}.engine", entry.get("engine", {}), ENGINE_KEYS),
            )
        )
    labels = [run.label for run in runs]
    if len(set(labels)) != len(labels):
        raise _fail(source, "two systems have the same label; give each a distinct 'label'")
    seeds = document.get("seeds", [0])
    if not isinstance(seeds, list) or not seeds or not all(isinstance(s, int) and 0 <= s < 2**64 for s in seeds):
        raise _fail(source, "seeds must be a non-empty list of whole numbers from 0 to 2^64-1")
    engine = _table(source, "engine", document.get("engine", {}), ENGINE_KEYS)
    params = policy.references(_values(source, "params", document.get("params", {})), source.parent)
    return Experiment(
        name=_name(source, document["name"]),
        traces=_traces(source, document["traces"], with_traces, trace_source, trace_seed),
        systems=runs,
        params=params,
        seeds=seeds,
        engine=engine,
        title=str(document.get("title", "")),
        description=str(document.get("description", "")),
        metrics=[str(m) for m in document.get("metrics", [])],
        reproduces=_table(source, "reproduces", document.get("reproduces", {}), REPRODUCES_KEYS),
        figure=_figure(source, document.get("figure", {})),
        source=source,
    )


def _figure(source: Path, entry: Any) -> dict:
    keys = schema.figure_keys()
    figure = _table(source, "figure", entry, set(keys))
    also = figure.get("also", [])
    if not isinstance(also, list):
        raise _fail(source, "figure: also must be a list of tables (each a further figure's keys)")
    kinds = keys["kind"][0]["enum"]
    for where, table in [("figure", figure)] + [(f"figure.also[{i}]", t) for i, t in enumerate(also)]:
        _table(source, where, table, set(keys) - ({"also"} if where != "figure" else set()))
        if table and table.get("kind", figure.get("kind", "bars")) not in kinds:
            kind = table["kind"]
            raise _fail(source, f"{where}: kind '{kind}' is none of {', '.join(kinds)}{schema.nearest(kind, kinds)}")
    return figure


# A parameter name as the core declares them (``below.zone`` for a stacked system's).
PARAM_KEY = re.compile(r"[A-Za-z0-9_.]{1,64}")
# The longest experiment name (it names the results folder).
NAME_MAX = 100


def _name(source: Path, name: str) -> str:
    if (
        not 0 < len(name) <= NAME_MAX
        or not all(c.isascii() and (c.isalnum() or c in "-_.") for c in name)
        or name in (".", "..")
    ):
        raise _fail(
            source,
            f"name {quoted(name)} must be 1 to {NAME_MAX} letters, digits, '-', '_' or '.' (it names the results folder)",
        )
    return name


def _core_system_names() -> list[str]:

    return list(_core.system_names())
