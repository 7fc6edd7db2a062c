"""What each key of an experiment file may hold, checked once when the file is read: a value of
the wrong type is one ``UsageError`` naming the file and the key, never a traceback later nor a
value silently read as another (a string of metrics read as its letters, ``true`` as seed 1, a
table as its text).

Each table of the file has a dict of its keys and their kinds; ``checked_table`` refuses a key
it does not list and a value that is not of its kind. Not here: what the values mean (``spec``)
or whether the core accepts them (parameters are checked when a cell runs).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

from smrlab.errors import UsageError
from smrlab.options import quoted


def _number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# Each kind: whether a value is of it, and how a message says what it must be.
KINDS = {
    "text": (lambda v: isinstance(v, str), "a string"),
    "number": (_number, "a finite number"),
    "whole": (lambda v: isinstance(v, int) and not isinstance(v, bool), "a whole number"),
    "flag": (lambda v: isinstance(v, bool), "true or false"),
    "texts": (lambda v: isinstance(v, list) and all(isinstance(x, str) for x in v), "a list of strings"),
    "table": (lambda v: isinstance(v, dict), "a table"),
    "tables": (lambda v: isinstance(v, list) and all(isinstance(x, dict) for x in v), "a list of tables"),
    "any": (lambda v: True, ""),
}

TOP = {"name": "text", "title": "text", "description": "text", "seeds": "any", "metrics": "texts", "traces": "any",
       "reproduces": "table", "engine": "table", "params": "table", "systems": "tables", "figure": "table", "paper": "tables"}
SYSTEM = {"label": "text", "system": "text", "params": "table", "engine": "table"}
TRACE = {"name": "text", "path": "text", "format": "text", "options": "texts"}
ENGINE = {"mode": "text", "speedup": "number", "warmup_requests": "whole", "warmup_seconds": "number", "idle_work": "flag",
          "series_interval_seconds": "number", "gauge_samples": "whole"}
FIGURE = {"kind": "text", "x": "text", "y": "text", "group": "text", "normalise": "text", "title": "text", "ylabel": "text",
          "xlabel": "text", "logy": "flag"}
PAPER = {"label": "text", "trace": "text", "metric": "text", "over": "text", "value": "number", "where": "table", "note": "text"}
REPRODUCES = {"paper": "text", "figure": "text", "note": "text"}


def shown(value: Any) -> str:
    """A value of the file as a message quotes it (a string as it is, anything else as Python
    writes it)."""
    return quoted(value if isinstance(value, str) else repr(value))


def checked_table(source: Path, where: str, value: Any, keys: dict[str, str]) -> dict:
    """``value`` if it is a table whose keys are all in ``keys`` and of their kinds."""
    if not isinstance(value, dict):
        raise UsageError(f"{source}: {where} must be a table, not {shown(value)}")
    unknown = sorted(set(value) - set(keys))
    if unknown:
        raise UsageError(f"{source}: {where}: unknown key {quoted(unknown[0])} (known: {', '.join(sorted(keys))})")
    for key, item in value.items():
        holds, described = KINDS[keys[key]]
        if not holds(item):
            raise UsageError(f"{source}: {where}.{key} must be {described}, not {shown(item)}")
    return value
