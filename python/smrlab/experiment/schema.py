"""The keys of an experiment file, declared once: for each table of the file, every key it may
hold, what its value is (a JSON Schema fragment) and what it means. ``spec`` reads files by
these tables (an unknown key is refused with the nearest known one), and ``json_schema()``
builds from them the schema ``smrlab.experiment.files`` publishes as ``docs/experiment.schema.json``, which editors use to
check a file as it is typed (tests/test_experiment_keys.py keeps the two equal).

A new key is one entry here (and its reading in ``spec``). ``check_types`` holds a file's
values to these declarations (jsonschema), so a value of the wrong type is one line naming its
key, never a traceback later nor a value read as another (a string of metrics read as its
letters, ``true`` as seed 1). Not here: reading a file, the systems' parameters (declared by
the core; ``smrlab sim --help`` lists them), or the engine's options (declared by the core too:
``smrlab.run.engine_options``).
"""

from __future__ import annotations

import difflib
from typing import Any

from smrlab.errors import UsageError
from smrlab.options import printable
from smrlab.run import engine_options

TEXT = {"type": "string"}
NUMBER = {"type": "number"}
VALUE = {"type": ["string", "number", "boolean"]}
# A parameter: one value, or a non-empty list of them (a grid axis).
PARAM = {"anyOf": [VALUE, {"type": "array", "items": VALUE, "minItems": 1}]}
PARAMS = {"type": "object", "additionalProperties": PARAM}
METRIC = {"type": "string", "description": "a column of the results: a measure of the runs (e.g. total_io_s, r_wa)"}

TRACE = {
    "name": (TEXT, "the trace's name in the results (default: the file name up to its first dot)"),
    "path": (
        TEXT,
        "bundled:NAME, pore-full:NAME, pore-full-writes:NAME, hwsr-table3:NAME, fluid-table1:NAME, "
        "fluid-phases:four-phase, or a path relative to the experiment file",
    ),
    "format": (TEXT, "trace format (default: from the file name)"),
    "options": ({"type": "array", "items": TEXT}, "reader options, KEY=VALUE"),
}

REPRODUCES = {
    "paper": (TEXT, "the paper: a key of smrlab.citations.PAPERS (pore, ucache, hwsr, fluidsmr, smrdb)"),
    "claims": (
        TEXT,
        "the experiment whose claims (experiments/claims/PAPER.toml) this one's rows are judged by (default: its own name)",
    ),
    "figure": (TEXT, "the figure or table it reproduces, e.g. 'Fig. 11'"),
    "note": (TEXT, "anything a reader should know about how it reproduces it"),
}

FIGURE = {
    "x": (TEXT, "the column along the x axis: trace, label or a swept parameter"),
    "y": (METRIC, "the measure drawn"),
    "normalise": (TEXT, "bars: divide each bar by this label's bar in its group"),
    "ylabel": (TEXT, "the y axis label, with its unit (default: the measure's name and unit)"),
    "xlabel": (TEXT, "the x axis label, with its unit"),
    "logy": ({"type": "boolean"}, "y on a log scale (points, not bars: a bar's height means nothing on a log scale)"),
}

# The figures ``smrlab.plots`` draws, one function each by these names.
FIGURE_KINDS = ("bars", "lines", "series")


def figure_keys() -> dict[str, tuple[dict, str]]:
    """The keys of [figure]: ``kind``, one of the figures ``smrlab.plots`` draws, ``FIGURE``, and
    ``also``: further figures of the same runs, each a table of those keys laid over [figure]'s."""
    kinds = (
        {"enum": list(FIGURE_KINDS)},
        "bars (one group per x), lines (y over a swept x) or series (a gauge over trace time)",
    )
    keys = {"kind": kinds, **FIGURE}
    also = {"type": "array", "items": _object(keys)}
    return {
        **keys,
        "also": (
            also,
            "further figures of the same runs, each a table of these keys over [figure]'s "
            '(another measure of the paper\'s figure: also = [{ y = "r_wa", ylabel = "R_wa" }])',
        ),
    }


def engine_keys() -> dict[str, tuple[dict, str]]:
    """The replay options an experiment may set, as the core declares them (except how often
    progress is reported, which changes no number); a mode or a speed-up left out is the
    system's own."""
    kinds = {
        "mode": {"enum": ["closed", "open"]},
        "speedup": NUMBER,
        bool: {"type": "boolean"},
        int: {"type": "integer", "minimum": 0},
        float: NUMBER,
    }
    return {
        name: (
            kinds.get(name) or kinds[type(default)],
            "replay option (default: "
            + ("the system's own" if default is None else repr(default))
            + "; see smrlab.run.engine_options)",
        )
        for name, default in engine_options().items()
        if name != "progress_every"
    }


def system_keys() -> dict[str, tuple[dict, str]]:
    return {
        "label": (TEXT, "its name in the results (default: the system's); unique in the file"),
        "system": (TEXT, "a system of the registry (smrlab sim --help lists them)"),
        "params": (PARAMS, "this system's own parameters; a list is a grid axis of its own"),
        "engine": (_object(engine_keys()), "this system's replay options, over the file's [engine]"),
    }


# The keys of the file a [quick] table may replace (smrlab reproduce --quick).
QUICK = ("traces", "params", "seeds", "engine", "systems", "description")


def top_keys() -> dict[str, tuple[dict, str]]:
    """The keys of the file itself, with ``quick``, a table of some of them."""
    keys = _file_keys()
    keys["quick"] = (
        _object({key: keys[key] for key in QUICK}),
        "keys that replace the file's own in a quick run (smrlab reproduce --quick)",
    )
    return keys


def _file_keys() -> dict[str, tuple[dict, str]]:
    return {
        "name": (
            {"type": "string", "pattern": "^[A-Za-z0-9._-]+$"},
            "names the results folder: letters, digits, '-', '_', '.'",
        ),
        "title": (TEXT, "the title of its table, figure and report section"),
        "description": (TEXT, "what it runs, for the report"),
        "seeds": (
            {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 1},
            "seeds of every random choice (default [0])",
        ),
        "metrics": (
            {"type": "array", "items": METRIC},
            "the measures its table shows (smrlab results shows these by default)",
        ),
        "traces": (
            {"type": "array", "minItems": 1, "items": {"anyOf": [TEXT, _object(TRACE, required=["path"])]}},
            "the traces: bundled:NAME, a generated trace or a path, or a table {name, path, format, options}",
        ),
        "reproduces": (_object(REPRODUCES), "the paper figure or table it reproduces"),
        "engine": (_object(engine_keys()), "replay options for every system"),
        "params": (
            PARAMS,
            "parameters for every system that declares them (or stacks over one that does); a list is a grid axis",
        ),
        "systems": (
            {"type": "array", "minItems": 1, "items": _object(system_keys(), required=["system"])},
            "the line-up",
        ),
        "figure": (_object(figure_keys()), "the figure drawn from the results"),
    }


def _object(keys: dict[str, tuple[dict, str]], required: list[str] = ()) -> dict:
    schema = {
        "type": "object",
        "properties": {key: {**fragment, "description": text} for key, (fragment, text) in keys.items()},
        "additionalProperties": False,
    }
    if required:
        schema["required"] = list(required)
    return schema


def json_schema() -> dict:
    """The JSON Schema of a simulation experiment file (``smrlab.experiment.files`` publishes
    it beside the key-value one's)."""
    return _object(top_keys(), required=["name", "traces", "systems"])


# What the readers (``spec``, a key-value file's, the engine) say themselves, with the nearest
# known name where there is one: a key not declared or missing, a name not among the choices
# or not of its pattern, an empty list, a number out of its range. What is left is a value of
# the wrong type.
SAID_BY_SPEC = {
    "additionalProperties",
    "required",
    "enum",
    "pattern",
    "minItems",
    "minimum",
    "exclusiveMinimum",
    "maximum",
    "exclusiveMaximum",
}


def check_types(source, document: dict, declared: dict) -> None:
    """Refuses the first value of ``document`` (an experiment file read from ``source``) that
    is not what its key declares in the JSON Schema ``declared`` (``json_schema()``, or a
    key-value file's): one ``UsageError`` naming the file and the key."""
    import jsonschema

    validator = jsonschema.Draft202012Validator(declared)
    errors = [e for e in validator.iter_errors(document) if e.validator not in SAID_BY_SPEC]
    if errors:
        error = min(errors, key=lambda e: list(map(str, e.absolute_path)))
        where = ".".join(map(str, error.absolute_path)) or "the file"
        raise UsageError(f"{source}: {where}: {printable(error.message, 200)}")


def nearest(word: str, known: Any) -> str:
    """`` (did you mean 'X'?)`` for the known name nearest ``word``, or nothing when none is near."""
    close = difflib.get_close_matches(str(word), [str(k) for k in known], n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""
