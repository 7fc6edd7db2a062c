"""What the Rust core declares of each simulated system: its parameters' keys and defaults.

Commands that run several systems on one trace (a cache line-up, a plain disk beside an SMR
disk) hand each system the parameters it declares, read from here, instead of keeping copies of
the core's names and defaults.
"""

from __future__ import annotations

import functools

from smrlab import _core


@functools.lru_cache(maxsize=None)
def defaults(system: str) -> dict[str, str]:
    """Every parameter ``system`` declares, with its default (as text)."""
    for name, _summary, params in _core.systems():
        if name == system:
            return {key: default for key, default, *_ in params}
    raise KeyError(system)


def declared_by(params: list[str], system: str) -> list[str]:
    """The ``key=value`` parameters whose key ``system`` declares."""
    keys = defaults(system)
    return [p for p in params if p.split("=", 1)[0] in keys]
