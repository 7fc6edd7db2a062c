"""Running simulations from Python: one function that builds the run spec, calls the Rust core,
and returns a result dictionary carrying its full provenance.

The result is what ``smrlab sim`` writes as JSON: ``smrlab`` (version, commit), ``config``
(system, params, engine, seed, and for each policy written in Python its source file and the hash
of its text: ``smrlab.policy``), ``trace`` (path, format, checksum, footprint), ``report`` (the
engine's measurements), ``derived`` (every value the core derives: ratios, I/O times in seconds,
I/O amplification, gauge means) and ``metrics`` (the core's declaration of every counter, gauge
and derived value: kind, unit, meaning). Python computes none of them. Not here: tables and plots
(``smrlab.tables``), sweeps over many runs (the experiment modules).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from smrlab import _core, outputs, policy, provenance
from smrlab.errors import UsageError
from smrlab.tables import note
from smrlab.trace import IN_MEMORY, Trace


def engine_options() -> dict:
    """The replay options every front shares (an experiment's ``[engine]`` keys, the API's
    ``engine={...}``), with their defaults, as the core declares them; ``mode`` and ``speedup``
    left out (None) are the system's own."""
    return json.loads(_core.engine_options())


def _spec(system, trace, params, fmt, trace_options, engine, seed, footprint, iolog, iolog_max_io) -> dict:
    if isinstance(trace, Trace):
        if trace.path is None:
            trace_path = IN_MEMORY
        else:
            trace_path, fmt, trace_options = trace.path, trace.format, trace.options
    else:
        trace_path = Path(trace)
        if not trace_path.exists():
            raise UsageError(f"{trace_path}: no such trace file")
    return {
        "system": system,
        "trace": str(trace_path),
        "format": fmt,
        "trace_options": list(trace_options),
        "params": list(params),
        "engine": dict(engine or {}),
        "seed": int(seed),
        "footprint": footprint,
        "iolog": str(iolog) if iolog else None,
        "iolog_max_io": int(iolog_max_io),
    }


def footprint(trace: str | Path | Trace, fmt: str | None = None, trace_options: Iterable[str] = ()) -> dict:
    """The trace's footprint (written / accessed bytes, max end): the first pass of every run."""
    return measure(trace, fmt, trace_options)[0]


def measure(trace: str | Path | Trace, fmt: str | None = None, trace_options: Iterable[str] = ()) -> tuple[dict, int]:
    """The trace's footprint and its number of requests (one pass over it)."""
    spec = _spec("cmr", trace, (), fmt, trace_options, None, 0, None, None, 0)
    measured = json.loads(_core.trace_footprint(json.dumps(spec)))
    return measured["footprint"], measured["requests"]


def simulate(
    system: str,
    trace: str | Path | Trace,
    params: Sequence[str] = (),
    *,
    fmt: str | None = None,
    trace_options: Iterable[str] = (),
    engine: dict | None = None,
    seed: int = 0,
    footprint: dict | None = None,
    iolog: str | Path | None = None,
    iolog_max_io: int = 0,
    progress: Callable[[int, int], bool] | None = None,
) -> dict:
    """Replays ``trace`` (a file, or a ``Trace`` from a file or in memory) through ``system``
    with ``params`` (``key=value`` strings).

    ``footprint`` (from :func:`footprint`) skips the measuring pass when many systems run on one
    trace. ``progress(requests, sim_time_ns)`` is called periodically; returning False cancels.
    """
    spec = _spec(system, trace, params, fmt, trace_options, engine, seed, footprint, iolog, iolog_max_io)
    in_memory = isinstance(trace, Trace) and trace.path is None
    own = policy.classes(spec["params"])  # the Python policies the parameters name
    classes = {ref: loaded.cls for ref, loaded in own.items()}
    if in_memory:
        output = json.loads(_core.run_sim_columns(json.dumps(spec), *trace.columns(), progress, classes))
    else:
        output = json.loads(_core.run_sim(json.dumps(spec), progress, classes))
    report = output["report"]
    derived, metrics = report.pop("derived"), report.pop("metrics")
    informative, not_informative = report.pop("informative"), report.pop("not_informative")
    return {
        "smrlab": provenance.stamp(),
        "config": {
            "system": system,
            "params": dict(output["params"]),  # every parameter read, given or default
            "engine": output["engine"],  # the replay as it ran: the options, the system's own where unsaid
            "seed": spec["seed"],
            **({"policies": policy.provenance(own)} if own else {}),
        },
        "trace": {
            "name": trace.name if isinstance(trace, Trace) else Path(spec["trace"]).name.split(".")[0],
            "path": spec["trace"],
            "format": output["format"],
            "options": spec["trace_options"],
            "checksum": trace.checksum() if in_memory else provenance.trace_checksum(spec["trace"]),
            "footprint": output["footprint"],
        },
        "devices": dict(output["devices"]),
        "iolog": {"path": spec["iolog"], "ios": output["iolog_ios"]} if spec["iolog"] else None,
        "report": report,
        "derived": derived,
        "metrics": metrics,
        "informative": informative,
        "not_informative": not_informative,
        "notes": output["notes"],
        "warnings": output["warnings"],
    }


def note_time_regressions(result: dict, label: str) -> None:
    """One line on stderr for timestamps that went backwards, with their count (what makes the
    numbers say less than they seem to goes with the tables: ``smrlab.caveats``)."""
    if regressions := result["report"]["time_regressions"]:
        note(
            f"{label}: {regressions:,} requests have timestamps earlier than the request before them; "
            "each was replayed at the time before it"
        )


def write_result(result: dict, path: str | Path, inputs: Iterable[str | Path] = ()) -> Path:
    """Writes a result as pretty, key-sorted JSON (byte-identical for identical runs), whole or
    not at all, and never onto one of ``inputs`` (``smrlab.outputs``)."""
    return outputs.write_text(path, json.dumps(result, indent=2, sort_keys=True) + "\n", inputs=inputs)
