"""An experiment checked before its first cell runs, so that a misspelt name stops it at once
with one line naming the name and the nearest right one, instead of being ignored (a
parameter no system reads, a measure no system reports) or found after every cell has run.

- ``parameters``: every parameter key reaches a system of the line-up — a shared one
  (``[params]``, ``compare``/``sweep`` keywords) at least one system, through what it stacks
  over; a system's own, that system — and every engine option is one ``engine_config`` takes;
- ``measures``: every measure the experiment names (``metrics``, the figure's ``y``, the
  paper's ``metric``) is a column the systems report. What a system reports is learnt from a
  probe: its first cell built on the real trace and stopped after one request, which also
  makes the core check that cell's parameter values (a value it refuses stops the run too).

Not here: the file's own keys and their types (``spec``, ``schema``).
"""

from __future__ import annotations

from smrlab import policy, systems
from smrlab.errors import ParameterError, PolicyError
from smrlab.experiment.schema import engine_keys, nearest


def _fail(experiment, message: str) -> ParameterError:
    where = f"{experiment.source}: " if experiment.source else ""
    return ParameterError(where + message)


def unread(system: str, accepted: set[str], keys) -> str | None:
    """What is wrong with the first of ``keys`` that ``system`` (reading ``accepted``) does not
    read, or None."""
    for key in keys:
        if key not in accepted:
            return (
                f"{system} reads no parameter '{key}'{nearest(key, accepted)} "
                f"(smrlab sim --system {system} --help lists those it reads)"
            )
    return None


def system_parameters(system: str, params: list[str]) -> None:
    """Refuses a ``KEY=VALUE`` parameter ``system`` does not read (``smrlab sim``, ``simulate``)."""
    given = dict(p.split("=", 1) for p in params if "=" in p)
    accepted = systems.accepted(system, given)
    if accepted is not None and (unknown := unread(system, accepted, given)):
        raise ParameterError(unknown)


def parameters(experiment) -> None:
    """Refuses a parameter key that no system it is given to reads, an unknown engine option, and
    a Python policy that cannot be loaded (``smrlab.policy``)."""
    reach = {}
    for run in experiment.systems:
        accepted = systems.accepted(run.system, {**experiment.params, **run.params})
        reach[run.label] = accepted
        if accepted is None:
            continue
        unknown = unread(run.system, accepted, run.params)
        if unknown:
            raise _fail(experiment, f"systems.{run.label}.params: {unknown}")
    if None not in reach.values():
        known = set().union(*reach.values())
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
