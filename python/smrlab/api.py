"""The Python API: one run (``simulate``), a line-up of systems (``compare``) and a parameter
grid (``sweep``), with parameters as keywords and results as ``Result`` objects and tidy
pandas DataFrames (one row per run).

A trace is a path, a ``Trace``, a numpy structured array (``REQUEST_DTYPE``), an Arrow table or
a pandas DataFrame; in-memory requests go to the core in one call. Parameters are the systems'
own (``smrlab sim --help --all`` lists them): ``cache="2%"``, ``zone=20e6``, ``policy="pore"``, or a
policy of your own, its class itself (``policy=MyPolicy``) or ``"FILE.py:CLASS"`` (``smrlab.policy``).
Replay options go in ``engine={...}`` (``mode="open"``, ``speedup=10``, ``warmup_requests=1000``...:
``smrlab.run.engine_options()`` lists them); a replay not asked for is the system's own. A
parameter's value is checked, and a key no system reads refused, by the core (``ParameterError``,
with ``key``, ``nearest`` and ``unit``). Not here: experiment files and their results folders
(``smrlab.experiment``).

>>> import smrlab
>>> frame = smrlab.compare(["cmr", "dmsmr"], "data/wdev.csv.gz")
>>> list(frame["label"])
['cmr', 'dmsmr']
>>> bool(frame.set_index("label")["total_io_s"].idxmin() == "cmr")
True
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

import numpy as np

from smrlab import api_arguments as arguments
from smrlab import policy, run
from smrlab.errors import ParameterError, RunCancelled
from smrlab.experiment.spec import Experiment, SystemRun, param_text
from smrlab.result import Result
from smrlab.trace import Trace


def as_trace(trace: Any) -> Trace:
    """A ``Trace`` from any of the forms the API takes."""
    if isinstance(trace, Trace):
        return trace
    if isinstance(trace, (str, Path)):
        return Trace.open(trace)
    if isinstance(trace, np.ndarray):
        return Trace.from_numpy(trace)
    if hasattr(trace, "column_names") or hasattr(trace, "columns"):
        return Trace.from_arrow(trace)
    raise ParameterError(
        f"a trace is a path, a Trace, a numpy structured array or an Arrow table, not {type(trace).__name__}"
    )


def _traces(traces: Any) -> dict[str, Trace]:
    """Traces by name: one trace, a list of them, or a mapping name -> trace."""
    if isinstance(traces, Mapping):
        return {str(name): as_trace(t) for name, t in traces.items()}
    if isinstance(traces, (list, tuple)):
        named = {}
        for index, t in enumerate(traces):
            trace = as_trace(t)
            named[trace.name if trace.path else f"memory-{index}"] = trace
        return named
    trace = as_trace(traces)
    return {trace.name if trace.path else "memory": trace}


def simulate(
    system: str,
    trace: Any,
    *,
    seed: int = 0,
    engine: dict | None = None,
    progress: Callable[[int, int], bool] | None = None,
    **params: Any,
) -> Result:
    """Replays ``trace`` through ``system`` with keyword ``params``; returns a ``Result``.

    ``progress(requests, sim_time_ns)`` is called every 65,536 requests: returning False (or
    raising) cancels the run, which then raises ``RunCancelled`` (its ``result`` holds what was
    measured); any other return, None included, goes on.

    >>> import numpy as np, smrlab
    >>> requests = np.zeros(1000, dtype=smrlab.REQUEST_DTYPE)
    >>> requests["op"] = smrlab.WRITE
    >>> requests["offset"] = np.arange(1000) * 4096
    >>> requests["len"] = 4096
    >>> result = smrlab.simulate("cmr", requests)
    >>> int(result.to_pandas()["requests"][0]), result.counters == smrlab.simulate("cmr", smrlab.Trace.from_numpy(requests)).counters
    (1000, True)
    """
    arguments.system_name(system)
    arguments.progress(progress)
    given = {key: param_text(value) for key, value in policy.references(params).items()}
    output = run.simulate(
        system,
        as_trace(trace),
        [f"{k}={v}" for k, v in given.items()],
        engine=arguments.engine(engine),
        seed=arguments.seed(seed),
        progress=progress,
    )
    if output["report"]["cancelled"]:
        raise RunCancelled(Result(output, system, given))
    return Result(output, system, given)


def _experiment(
    traces: Any,
    systems: list[SystemRun],
    params: dict[str, Any],
    seeds: Iterable[int],
    engine: dict | None,
    name: str,
    cluster: Any = None,
) -> Experiment:
    arguments.cluster(cluster)
    return Experiment(
        name=name,
        traces=_traces(traces),
        systems=systems,
        params=params,
        seeds=arguments.seeds(seeds),
        engine=arguments.engine(engine),
    )


def compare(
    systems: Iterable[str] | Mapping[str, Any],
    traces: Any,
    *,
    seeds: Iterable[int] = (0,),
    engine: dict | None = None,
    jobs: int | None = 1,
    cluster=None,
    **params: Any,
):
    """Runs each system on each trace; returns a DataFrame, one row per run.

    ``systems`` is a list of registry names, or a mapping label -> name or label ->
    ``{"system": name, **its own params}``; keyword ``params`` go to every system that declares
    them (a list is a grid axis). ``engine`` takes the replay options (``smrlab.run.engine_options()``).
    ``jobs`` local processes (None: one per core) or a Dask ``cluster`` address run the runs.
    """
    arguments.line_up(systems)
    if isinstance(systems, Mapping):
        line_up = []
        for label, entry in systems.items():
            if isinstance(entry, str):
                line_up.append(SystemRun(label, entry))
            else:
                own = dict(entry)
                line_up.append(SystemRun(label, own.pop("system"), policy.references(own)))
    else:
        line_up = [SystemRun(name, name) for name in arguments.listed(systems)]
    shared = policy.references(params)
    # Here, not at the top: the orchestrator brings the figures and results modules, about 18 ms
    # of smrlab.simulate's first call, which never needs them (python -X importtime).
    from smrlab import orchestrator

    return orchestrator.frame(
        _experiment(traces, line_up, shared, seeds, engine, "compare", cluster), jobs=jobs, cluster=cluster
    )


def sweep(
    system: str,
    traces: Any,
    vary: Mapping[str, list],
    *,
    seeds: Iterable[int] = (0,),
    engine: dict | None = None,
    jobs: int | None = 1,
    cluster=None,
    **params: Any,
):
    """Runs ``system`` on each trace at every combination of the ``vary`` values (with the fixed
    keyword ``params``); returns a DataFrame, one row per run, a column per varied parameter.

    >>> import smrlab
    >>> frame = smrlab.sweep("dmsmr", "data/wdev.csv.gz", vary={"buffer": ["1/512", "1/64"]})
    >>> list(frame["buffer"])
    ['1/512', '1/64']
    >>> bool(frame["band_cleanings"].is_monotonic_decreasing)
    True
    """
    arguments.system_name(system)
    arguments.vary(vary)
    own = policy.references({**params, **{key: list(values) for key, values in vary.items()}})
    from smrlab import orchestrator  # here, not at the top: 18 ms of simulate's first call, as in compare

    return orchestrator.frame(
        _experiment(traces, [SystemRun(system, system, own)], {}, seeds, engine, "sweep", cluster),
        jobs=jobs,
        cluster=cluster,
    )
