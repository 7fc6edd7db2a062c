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
    (size, share, choice, policy, bool, fraction, count, system, custom), ``choices`` the words
    of a choice or the native names a policy offers, ``open`` the reason for the default of an
    open choice."""

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


def _read(system: str, params: dict[str, object], _above: tuple[dict, ...] = ()) -> list[tuple[str, str, str]] | None:
    """``(key, default, system)`` of every parameter ``system`` reads given ``params``: its own,
    and those of each system it stacks over (``below``), keyed as the core names them — ``KEY``,
    or ``NAME.KEY`` when a system above declares the same key. None when ``system`` is not a
    registry name (an alias, or unknown)."""
    try:
        own = defaults(system)
    except KeyError:
        return None
    found = [
        (f"{system}.{key}" if any(key in upper for upper in _above) else key, default, system)
        for key, default in own.items()
    ]
    for lower in _stacked_below(system, params):
        if lower == system:
            continue
        below = _read(lower, params, (*_above, own))
        if below is None:
            return None
        found += below
    return found


def accepted(system: str, params: dict[str, object] | None = None) -> set[str] | None:
    """Every key ``system`` reads, given ``params``: its own, and those of each system it stacks
    over (``below``), as the core names them — ``KEY``, or ``NAME.KEY`` when a system above
    declares the same key. None when ``system`` is not a registry name (an alias, or unknown):
    the core then judges alone."""
    read = _read(system, params or {})
    return None if read is None else {key for key, _, _ in read}


def resolved(system: str, given: dict[str, str]) -> dict[str, str]:
    """The parameters ``system`` runs with: every one it reads (its own and those of the
    systems below it), the given value or else the declared default, as the core resolves
    them; keys it does not read are kept as given (the core refuses them). Only ``given`` when
    ``system`` is not a registry name."""
    read = _read(system, given) or []
    return {**{key: default for key, default, _ in read}, **given}


def stack(system: str, given: dict[str, str]) -> list[str]:
    """``system`` and each system it builds below itself with ``given``, outermost first."""
    read = _read(system, given)
    return list(dict.fromkeys([system] + [owner for _, _, owner in read or []]))
