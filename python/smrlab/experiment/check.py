"""An experiment checked before its first cell runs, so that a misspelt name stops it at once
with one line naming the name and the nearest right one, instead of being ignored (a
parameter no system reads, a measure no system reports) or found after every cell has run.

- ``parameters``: every cell's parameters and replay options as the core resolves them (a key
  its system does not read, a value out of its range: the core's one message), and every shared
  parameter (``[params]``, ``compare``/``sweep`` keywords) reaching a system of the line-up;
A key-value experiment's stores and steps are ``smrlab.experiment.kv.check``'s. Not here: the
file's own keys and their types (``spec``, ``schema``); the measures the experiment names,
checked against a probe of its systems (``smrlab.orchestrator``, which knows the claims and
figures that name them).
"""

from __future__ import annotations

import json

from smrlab import _core, policy, systems
from smrlab.errors import ParameterError, PolicyError
from smrlab.experiment.schema import engine_keys, nearest


def fail(experiment, message: str) -> ParameterError:
    """The error naming ``experiment``'s file (where it has one) and ``message``."""
    where = f"{experiment.source}: " if experiment.source else ""
    return ParameterError(where + message)


def parameters(experiment) -> None:
    """Refuses a shared parameter that no system of the line-up reads, an unknown replay option,
    a Python policy that cannot be loaded (``smrlab.policy``), and whatever the core refuses of a
    cell's parameters or replay; a key-value experiment's stores and steps as
    ``smrlab.experiment.kv.check`` checks them."""
    if getattr(experiment, "kind", None) == "kv":
        # For a key-value experiment only: its checks and the offloading steps' are 2 ms of
        # every start (python -X importtime, smrlab's command line loaded).
        from smrlab.experiment.kv import check as kv_check

        kv_check.parameters(experiment)
        return
    known = set().union(*(systems.accepted(r.system, {**experiment.params, **r.params}) for r in experiment.systems))
    for key in experiment.params:
        if key not in known:
            raise fail(
                experiment,
                f"params: no system of the line-up ({', '.join(r.system for r in experiment.systems)}) reads "
                f"a parameter '{key}'{nearest(key, known)}",
            )
    try:
        policy.check([experiment.params] + [run.params for run in experiment.systems])
    except PolicyError as error:
        raise PolicyError(f"{experiment.source}: {error}" if experiment.source else str(error)) from error.__cause__
    options = set(engine_keys())
    for where, engine in [("engine", experiment.engine)] + [
        (f"systems.{r.label}.engine", r.engine) for r in experiment.systems
    ]:
        for key in engine:
            if key not in options:
                raise fail(
                    experiment,
                    f"{where}: no replay option '{key}'{nearest(key, options)} (options: {', '.join(sorted(options))})",
                )
    seen = set()
    for cell in experiment.cells():
        asked = (cell.system, tuple(cell.params()), json.dumps(cell.engine, sort_keys=True))
        if asked in seen:
            continue
        seen.add(asked)
        try:
            _core.resolve_params(cell.system, cell.params())
            _core.resolve_engine(cell.system, asked[2])
        except ParameterError as error:
            raise fail(experiment, f"systems.{cell.label}: {error}") from None
