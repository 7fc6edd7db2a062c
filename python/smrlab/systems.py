"""What the Rust core declares of each simulated system: its parameters' keys, defaults, units,
kinds and choices, the keys a system reads with what it stacks over, and its replay; and
``split``, the one function that hands ``KEY=VALUE`` strings to the core to be split.

Commands that run several systems on one trace (a cache line-up, a plain disk beside an SMR
disk) hand each system the parameters it declares, read from here, and options that set a
system's parameter are built from its declaration (``smrlab.cli.declared``), instead of keeping
copies of the core's names, defaults and choices. Not here: checking a value or refusing a key
(the core does, when a run starts or ``smrlab._core.resolve_params`` is asked).
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from typing import NamedTuple

from smrlab import _core


class Parameter(NamedTuple):
    """One parameter as the core declares it (``ParamSpec``): ``kind`` is the name of its kind
    (size, share, choice, policy, bool, fraction, count, scale, system, custom), ``choices`` the words
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


def split(params: Iterable[str]) -> dict[str, str]:
    """``KEY=VALUE`` strings as a table, split by the core (an argument that is not one
    ``KEY=VALUE`` raises ``ParameterError`` naming it); a later key wins."""
    return dict(_core.parse_params(list(params)))


def declared_by(params: list[str], system: str) -> list[str]:
    """The ``key=value`` parameters whose key ``system`` declares."""
    keys = defaults(system)
    return [f"{key}={value}" for key, value in split(params).items() if key in keys]


def accepted(system: str, params: dict[str, object] | None = None) -> set[str]:
    """Every key ``system`` reads given ``params``, its own and those of each system it stacks
    over, as the core names them (``KEY``, or ``NAME.KEY`` when a system above declares the
    same key); a list of values for ``below`` (a grid axis) stacks over each."""
    below = (params or {}).get("below")
    keys: set[str] = set()
    for value in below if isinstance(below, list) else [below]:
        keys |= set(_core.system_keys(system, [] if value is None else [("below", str(value))]))
    return keys


@functools.cache
def replays() -> dict[str, str]:
    """How each system is replayed unless told otherwise, as ``--help`` says it."""
    return {
        name: mode if speedup in (None, 1.0) else f"{mode} at {speedup:g}x"
        for name, mode, speedup in _core.system_replays()
    }


def _pairs(given: dict[str, str]) -> list[str]:
    return [f"{key}={value}" for key, value in given.items()]


def resolved(system: str, given: dict[str, str]) -> dict[str, str]:
    """The parameters ``system`` runs with: every one it reads (its own and those of the
    systems below it), the given value or else the declared default, as the core resolves them;
    ``given`` as it is when the core refuses it (the run then says why)."""
    try:
        return {key: value for key, value, _ in _core.resolve_params(system, _pairs(given))}
    except _core.ParameterError:
        return dict(given)


def stack(system: str, given: dict[str, str]) -> list[str]:
    """``system`` and each system it builds below itself with ``given``, outermost first, as
    the core builds them (``system`` alone when the core refuses ``given``)."""
    try:
        return list(_core.system_stack(system, _pairs(given)))
    except _core.ParameterError:
        return [system]
