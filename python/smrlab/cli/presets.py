"""The paper commands' line-ups read from the experiment files (experiments/NAME.toml), their one
home: ``compare-caches``, ``cache-sweep`` and the other presets take the systems (labels, systems
and their own parameters), the swept values and what each reproduces from there, put the
command's trace and options in place of the file's, and run the result through the experiment
runner like ``smrlab run``.

``run`` runs a command's experiment and hands back each cell's result. Not here: the tables the
commands print (``smrlab.cli``), running cells (``smrlab.experiment``).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from smrlab import bundled, live, orchestrator, plots, recipes
from smrlab.errors import SimulationError, UsageError
from smrlab.experiment.cells import Cell
from smrlab.experiment.files import parse
from smrlab.experiment.spec import Experiment, SystemRun, takes
from smrlab.results import read as results_frame
from smrlab.run import note_time_regressions, write_result


def experiment_file(name: str | Path) -> Path:
    """The experiment file ``experiments/NAME.toml`` smrlab ships (``bundled.experiments_root``),
    or the file at ``name`` when it is a path."""
    path = name if isinstance(name, Path) else bundled.experiments_root() / "experiments" / f"{name}.toml"
    if not path.is_file():
        raise UsageError(f"{path}: no such experiment file (this command's line-up lives there)")
    return path


def read(name: str | Path) -> Experiment:
    """The experiment ``experiments/NAME.toml`` as written, no trace opened or generated."""
    path = experiment_file(name)
    return parse(path.read_text(), path, with_traces=False)


def line_up(*names: str | Path) -> list[SystemRun]:
    """The systems of the named experiment files, each label once: a later file's system not yet
    present goes just before the next of its file's systems that is (or at the end), so that
    the files' orders are kept."""
    merged: list[SystemRun] = []
    for name in names:
        runs = read(name).systems
        for i, run in enumerate(runs):
            labels = [m.label for m in merged]
            if run.label in labels:
                continue
            following = next((r.label for r in runs[i + 1 :] if r.label in labels), None)
            merged.insert(labels.index(following) if following else len(merged), run)
    return merged


def trace_names(name: str) -> list[tuple[str, str]]:
    """(recipe, name) of each trace experiment ``name`` makes by a recipe (``hwsr-table3:prn0@N``
    is ``("hwsr-table3", "prn0")``), in the file's order; its trace files are left out."""
    traces = tomllib.loads(experiment_file(name).read_text())["traces"]
    paths = [entry if isinstance(entry, str) else entry.get("path", "") for entry in traces]
    return [(found[0], found[1]) for found in map(recipes.generated_name, paths) if found]


def axis(name: str, key: str) -> list[str]:
    """The values of grid axis ``key`` of experiment ``name``, as text in the file's order."""
    values = read(name).axes().get(key)
    if not values:
        raise UsageError(
            f"{experiment_file(name)}: no list of values for '{key}' (the range this command sweeps by default)"
        )
    return values


def run(exp: Experiment, args, out_dir: Path, name: str, title: str | None = None, unit: str = "cells") -> list[tuple]:
    """Runs a command's ``exp`` in parallel (``args.jobs`` local workers) into a results folder under
    ``out_dir`` (Parquet table, provenance, figure), going on in the latest folder of the same cells unless ``args.resume`` is False; returns
    each cell with its result, in cell order (what makes a result say less than it seems to is the
    tables' to say: ``smrlab.caveats``), its progress shown as ``title`` (default ``name``)
    counting ``unit``; each result is also written beside the results folder (``result_file``).
    A failed cell stops the command with its error once the others have run and been stored."""
    summary = orchestrator.run(
        exp,
        out=out_dir,
        jobs=getattr(args, "jobs", None),
        resume=getattr(args, "resume", True),
        progress=live.CellProgress(title or name, unit),
    )
    for cell, outcome in summary.outcomes:
        if outcome.error:
            raise SimulationError(f"{name}/{cell.label}: {outcome.error}")
    if exp.figure:
        plots.save(exp, results_frame(summary.table), summary.folder)
    swept = list(exp.axes())
    for cell, outcome in summary.outcomes:
        note_time_regressions(outcome.result, f"{name}/{cell.label}")
        inputs = [cell.trace.path] if cell.trace.path is not None else []
        write_result(outcome.result, out_dir / result_file(cell, swept), inputs=inputs)
    return [(cell, outcome.result) for cell, outcome in summary.outcomes]


def result_file(cell: Cell, swept: list[str]) -> str:
    """The name of a paper command's result file: TRACE-LABEL (a label that starts with its
    trace's name not repeating it), then the cell's value of each swept parameter, as a file name
    (a character other than a letter, digit, '.', '%', '+' or '-' as '_'), with .json (e.g.
    vm-local-ucache-128KiB.json, mds-pore-bl.json, hm_0-fluid-smr.json)."""
    label = cell.label.removeprefix(f"{cell.trace_name} ")
    parts = [cell.trace_name, label, *(str(cell.given[key]) for key in swept if key in cell.given)]
    return re.sub(r"[^A-Za-z0-9.%+-]", "_", "-".join(part.replace(" ", "-") for part in parts)) + ".json"


@dataclass
class TraceParams(Experiment):
    """An experiment whose traces each bring parameters of their own (``of_trace``: a zone size
    scaled with a generated trace), over the shared and own ones but not over those ``kept``
    (the user's), to each system that reads them."""

    of_trace: dict[str, dict[str, str]] = field(default_factory=dict)
    kept: frozenset[str] = frozenset()

    def cells(self) -> list[Cell]:
        cells = super().cells()
        for cell in cells:
            own = {key: value for key, value in self.of_trace.get(cell.trace_name, {}).items() if key not in self.kept}
            taken = {key: value for key, value in own.items() if takes(cell.system, key, {**cell.given, **own})}
            cell.given = {**cell.given, **taken}
        return cells
