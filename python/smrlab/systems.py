"""What the Rust core declares of each simulated system: its parameters' keys, defaults, units,
kinds and choices.

Commands that run several systems on one trace (a cache line-up, a plain disk beside an SMR
disk) hand each system the parameters it declares, read from here, and options that set a
system's parameter are built from its declaration (``smrlab.cli.declared``), instead of keeping
copies of the core's names, defaults and choices.
"""

from __future__ import annotations

import functools
from typing import NamedTuple

from smrlab import _core


class Parameter(NamedTuple):
    """One parameter as the core declares it (``ParamSpec``): ``kind`` is the name of its kind
    (size, share, choice, bool, fraction, count, system, custom), ``choices`` the words of a
    choice, ``open`` the reason for the default of an open choice."""

    key: str
    default: str
    unit: str
    help: str
    open: str | None
    kind: str
    choices: tuple[str, ...] | None


@functools.cache
def parameters(system: str) -> dict[str, Parameter]:
    """Every parameter ``system`` declares, by key, in declaration order."""
    for name, _summary, params in _core.systems():
        if name == system:
            return {p[0]: Parameter(*p[:6], tuple(p[6]) if p[6] is not None else None) for p in params}
    raise KeyError(system)


def defaults(system: str) -> dict[str, str]:
    """Every parameter ``system`` declares, with its default (as text)."""
    return {key: p.default for key, p in parameters(system).items()}


def declared_by(params: list[str], system: str) -> list[str]:
    """The ``key=value`` parameters whose key ``system`` declares."""
    keys = defaults(system)
    return [p for p in params if p.split("=", 1)[0] in keys]


def _stacked_below(system: str, params: dict[str, object]) -> list[str]:
    """The systems ``system`` may build below itself: each value given for ``below`` (a list is
    a grid axis), or its default; none for a system that does not stack."""
    declared = defaults(system)
    if "below" not in declared:
        return []
    given = params.get("below", declared["below"])
    return [str(v) for v in (given if isinstance(given, list) else [given])]


def accepted(system: str, params: dict[str, object] | None = None, _above: tuple[dict, ...] = ()) -> set[str] | None:
    """Every key ``system`` reads, given ``params``: its own, and those of each system it stacks
    over (``below``), as the core names them — ``KEY``, or ``NAME.KEY`` when a system above
    declares the same key. None when ``system`` is not a registry name (an alias, or unknown):
    the core then judges alone."""
    params = params or {}
    try:
        own = defaults(system)
    except KeyError:
        return None
    keys = {f"{system}.{key}" if any(key in upper for upper in _above) else key for key in own}
    for lower in _stacked_below(system, params):
        if lower == system:
            continue
        below = accepted(lower, params, (*_above, own))
        if below is None:
            return None
        keys |= below
    return keys
