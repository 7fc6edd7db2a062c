"""Checks of the Python API's own arguments (``smrlab.simulate``, ``compare``, ``sweep``): the
system names, seeds, ``engine``, ``vary``, the progress callback and the cluster, each refused
with a ``ParameterError`` naming the argument, before anything runs. Python would otherwise
answer a wrong type with its own TypeError or AttributeError from deep inside, or take it
silently (a string of systems iterated letter by letter, a seed of 1.5 cut to 1).

Not here: the systems' parameters (the core's declarations, ``experiment.check``) or the
traces (``smrlab.trace``).
"""

from __future__ import annotations

import sys
from collections.abc import Iterable, Mapping
from typing import Any

from smrlab import run
from smrlab.errors import ParameterError
from smrlab.experiment.schema import nearest

MAX_SEED = 2**64 - 1


def _kind(value: Any) -> str:
    return type(value).__name__


def seed(value: Any, name: str = "seed") -> int:
    """A seed: a whole number from 0 to 2^64 - 1 (a bool or a float is not one)."""
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED:
        shown = repr(value) if isinstance(value, (int, float)) else _kind(value)
        raise ParameterError(f"{name} must be a whole number from 0 to 2^64 - 1, not {shown}")
    return int(value)


def seeds(values: Any) -> list[int]:
    """A non-empty list of seeds (``seed``)."""
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise ParameterError(f"seeds must be a list of whole numbers, not {_kind(values)}")
    checked = [seed(value, f"seeds[{index}]") for index, value in enumerate(values)]
    if not checked:
        raise ParameterError("seeds must name at least one seed")
    return checked


def system_name(value: Any, name: str = "system") -> str:
    """A system's registry name: text."""
    if not isinstance(value, str):
        raise ParameterError(f"{name} must be a system's name (text such as 'dmsmr'), not {_kind(value)}")
    return value


def line_up(systems: Any) -> None:
    """``compare``'s systems: a list of names, or a mapping label -> name or label ->
    ``{"system": name, ...}``; one name alone is refused (it would be iterated letter by
    letter)."""
    if isinstance(systems, str):
        raise ParameterError(f"systems must be a list of names or a mapping, not one name (write [{systems!r}])")
    if isinstance(systems, Mapping):
        for label, entry in systems.items():
            if not isinstance(label, str):
                raise ParameterError(f"systems: a label must be text, not {_kind(label)}")
            if isinstance(entry, Mapping):
                if "system" not in entry:
                    raise ParameterError(f"systems[{label!r}] names no 'system'")
                system_name(entry["system"], f"systems[{label!r}]['system']")
            else:
                system_name(entry, f"systems[{label!r}]")
        return
    if not isinstance(systems, Iterable):
        raise ParameterError(f"systems must be a list of names or a mapping, not {_kind(systems)}")


def listed(systems: Any) -> list[str]:
    """``compare``'s list of names (after ``line_up``), each checked."""
    names = list(systems)
    for index, name in enumerate(names):
        system_name(name, f"systems[{index}]")
    if not names:
        raise ParameterError("systems must name at least one system")
    return names


def vary(values: Any) -> None:
    """``sweep``'s ``vary``: a mapping of parameter name -> non-empty list of values."""
    if not isinstance(values, Mapping):
        raise ParameterError(f"vary must be a mapping of parameter -> list of values, not {_kind(values)}")
    for key, given in values.items():
        if not isinstance(key, str):
            raise ParameterError(f"vary: a parameter's name must be text, not {_kind(key)}")
        if not isinstance(given, (list, tuple)) or not given:
            raise ParameterError(f"vary['{key}'] must be a non-empty list of values")


# What each replay option takes (``run.engine_options``), from its default's type; the mode and
# the speed-up, whose defaults are the system's own (None), are text and a number.
_ENGINE = {
    name: {"mode": str, "speedup": float}.get(name, type(default)) for name, default in run.engine_options().items()
}


def engine(value: Any) -> dict:
    """``engine``: None or a mapping of replay options (``run.engine_options``), each of its type
    (a float also takes a whole number); their ranges are the core's to check."""
    if value is None:
        return {}
    if not isinstance(value, Mapping):
        raise ParameterError(f"engine must be a mapping of replay options, not {_kind(value)}")
    for key, given in value.items():
        wanted = _ENGINE.get(key) if isinstance(key, str) else None
        if wanted is None:
            raise ParameterError(
                f"engine: no replay option {key!r}{nearest(str(key), _ENGINE)} (options: {', '.join(_ENGINE)})"
            )
        accepted = (int, float) if wanted is float else (wanted,)
        if (isinstance(given, bool) and wanted is not bool) or not isinstance(given, accepted):
            raise ParameterError(f"engine[{key!r}] must be {wanted.__name__}, not {_kind(given)}")
    return dict(value)


def progress(callback: Any) -> None:
    """The progress callback: None or a callable taking (requests, sim_time_ns)."""
    if callback is not None and not callable(callback):
        raise ParameterError(f"progress must be a function of (requests, sim_time_ns), not {_kind(callback)}")


def cluster(value: Any) -> None:
    """A cluster: None, a scheduler address (text), or a ``distributed.Client``."""
    if value is None or isinstance(value, str):
        return
    # A Client can only have been made with distributed imported.
    distributed = sys.modules.get("distributed")
    if distributed is None or not isinstance(value, distributed.Client):
        raise ParameterError(f"cluster must be a Dask scheduler's address or a distributed.Client, not {_kind(value)}")
