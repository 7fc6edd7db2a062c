"""An experiment checked before its first cell runs, so that a misspelt name stops it at once
with one line naming the name and the nearest right one, instead of being ignored (a
parameter no system reads, a measure no system reports) or found after every cell has run.

- ``parameters``: every cell's parameters and replay options as the core resolves them (a key
  its system does not read, a value out of its range: the core's one message), and every shared
  parameter (``[params]``, ``compare``/``sweep`` keywords) reaching a system of the line-up;
- ``measures``: every measure the experiment names (``metrics``, the figure's ``y``, the
  paper's ``metric``) is a column the systems report. What a system reports is learnt from a
  probe: its first cell built on the real trace and stopped after one request, which also
  makes the core check the values that depend on the trace (a share of its footprint).

A key-value experiment's stores and steps are ``smrlab.experiment.kv.check``'s. Not here: the
file's own keys and their types (``spec``, ``schema``).
"""

from __future__ import annotations

import json

from smrlab import _core, policy, systems
from smrlab.errors import ParameterError, PolicyError
from smrlab.experiment.schema import engine_keys, nearest


def _fail(experiment, message: str) -> ParameterError:
    where = f"{experiment.source}: " if experiment.source else ""
    return ParameterError(where + message)


def parameters(experiment) -> None:
    """Refuses a shared parameter that no system of the line-up reads, an unknown replay option,
    a Python policy that cannot be loaded (``smrlab.policy``), and whatever the core refuses of a
    cell's parameters or replay; a key-value experiment's stores and steps as
    ``smrlab.experiment.kv.check`` checks them."""
    if getattr(experiment, "kind", None) == "kv":
        from smrlab.experiment.kv import check as kv_check

        kv_check.parameters(experiment)
        return
    known = set().union(*(systems.accepted(r.system, {**experiment.params, **r.params}) for r in experiment.systems))
    for key in experiment.params:
        if key not in known:
            raise _fail(
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
                raise _fail(
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
            raise _fail(experiment, f"systems.{cell.label}: {error}") from None


def named_measures(experiment) -> list[tuple[str, str]]:
    """(where, name) of every measure the experiment names."""
    named = [("metrics", metric) for metric in experiment.metrics]
    if experiment.figure.get("y"):
        named.append(("figure.y", experiment.figure["y"]))
    from smrlab.paper import claims_of

    named += [(f"claim {claim.id}", claim.metric) for claim in claims_of(experiment)]
    return named


def measures(experiment, cells) -> None:
    """Refuses a measure that no system of the line-up reports (learnt from a probe of each
    label's first cell on a trace file); says nothing when a probe could not run (its cells
    will fail with their own error)."""
    named = named_measures(experiment)
    if not named:
        return
    from smrlab.plots import MISS

    reported = set(MISS)
    probed = True
    for label in dict.fromkeys(cell.label for cell in cells):
        first = next(cell for cell in cells if cell.label == label)
        try:
            columns = _probe(first)
        except ParameterError as error:
            raise _fail(experiment, f"{label}: {error}") from None
        if columns is None:
            probed = False
        else:
            reported |= columns
    if not probed:
        return
    for where, name in named:
        if name not in reported:
            raise _fail(
                experiment, f"{where}: no system of the line-up reports a measure '{name}'{nearest(name, reported)}"
            )


def _probe(cell) -> set[str] | None:
    """The columns ``cell``'s row would have, from a run stopped after its first request; None
    when it cannot be probed (a trace in memory) or failed for another reason than its
    parameters (its cells will say why). A parameter value the core refuses (a cache smaller
    than a block) raises its ``ParameterError``: the experiment stops before its first cell."""
    from smrlab.errors import SmrlabError
    from smrlab.result import tidy_row
    from smrlab.run import simulate

    if cell.footprint is None:
        return None
    try:
        result = simulate(
            cell.system,
            cell.trace,
            cell.params(),
            engine={**cell.engine, "progress_every": 1},
            seed=cell.seed,
            footprint=cell.footprint,
            progress=lambda requests, sim_time_ns: False,
        )
    except ParameterError:
        raise
    except SmrlabError:
        return None
    return set(tidy_row(result, cell.label, cell.given)) | set(result["metrics"])
