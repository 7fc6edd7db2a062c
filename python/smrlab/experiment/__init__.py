"""Experiments: many simulations described once (a TOML file or ``smrlab.compare``/``sweep``)
and expanded into cells: the low layer, which knows what an experiment is and how one cell runs
and is stored, and nothing above it.

Modules: ``files`` (a file of either kind, and their JSON Schema), ``spec`` (the file and its
cells), ``schema`` (its keys), ``check`` (its names, before the first cell runs), ``cells`` (one
cell, how it runs, what it cost), ``schedule`` (the order), ``pending`` (the cells still to
start), ``executors`` (where: ``local`` processes, a ``cluster``), ``store`` (results folders),
``stopwatch`` (the parent's phases). Not here: running a whole experiment into its table,
figures and provenance (``smrlab.orchestrator``), tables on the terminal, the report.
"""

from __future__ import annotations

from smrlab.experiment.files import load
from smrlab.experiment.spec import Experiment

__all__ = ["Experiment", "load"]
