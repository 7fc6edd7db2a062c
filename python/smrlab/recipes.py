"""Trace recipes by name: the generated traces an experiment file may name as ``RECIPE:NAME`` (or
``RECIPE:NAME@N``, scaled to N requests), each registered by the module that generates it.

A module that makes traces registers each of its recipes with ``register`` when it is imported;
``PROVIDERS`` lists those modules (adding a recipe is one ``register`` call, and one line there
for a new module). The experiment code looks recipes up here (``generated_name``, ``make``) and
names no paper. Not here: generating a trace (the providers) or reading one (``smrlab.trace``).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from smrlab.errors import UsageError
from smrlab.options import quoted

# The modules that register recipes when imported.
PROVIDERS = ("smrlab.bundled", "smrlab.hwsr_traces", "smrlab.fluid_traces")


@dataclass(frozen=True)
class Recipe:
    """A named way to get a trace file: ``make(name, requests, seed)`` (``requests`` None: the
    trace's own size; ``seed`` 0 the trace as published), the names it knows (None: any,
    checked by ``make``), what they come from (for messages), whether a request count may scale
    it, whether it generates a trace of its own for each seed (a fixed file does not), and
    ``paper_requests(name)``, the request count the paper gives the trace it stands for (None:
    the paper gives none)."""

    scheme: str
    make: Callable[[str, int | None, int], Path]
    names: tuple[str, ...] | None = None
    source: str = ""
    scalable: bool = True
    seeded: bool = True
    paper_requests: Callable[[str], int] | None = None


_RECIPES: dict[str, Recipe] = {}
_loaded = False


def register(
    scheme: str,
    make: Callable[[str, int | None, int], Path],
    names=None,
    source: str = "",
    scalable: bool = True,
    seeded: bool = True,
    paper_requests: Callable[[str], int] | None = None,
) -> None:
    """Registers ``make`` as the recipe ``scheme`` (see ``Recipe``); a scheme registered twice is
    a programming error."""
    if scheme in _RECIPES:
        raise ValueError(f"trace recipe {scheme!r} registered twice")
    _RECIPES[scheme] = Recipe(
        scheme, make, None if names is None else tuple(names), source, scalable, seeded, paper_requests
    )


def recipes() -> dict[str, Recipe]:
    """Every recipe by scheme, the providers imported on first use."""
    global _loaded
    if not _loaded:
        for module in PROVIDERS:
            importlib.import_module(module)
        _loaded = True
    return _RECIPES


def generated_name(text: str) -> tuple[str, str, int | None] | None:
    """``(scheme, name, requests)`` of a generated trace's spelling (``hwsr-table3:prn0@20000``),
    or None for a path."""
    scheme, colon, rest = text.partition(":")
    if not colon or scheme not in recipes():
        return None
    name, at, count = rest.partition("@")
    if not at:
        return scheme, name, None
    if not count.isdigit() or int(count) == 0:
        raise UsageError(f"trace '{text}': '@' must be followed by a request count above 0")
    return scheme, name, int(count)


def make(scheme: str, name: str, requests: int | None = None, seed: int = 0) -> Path:
    """The file of trace ``name`` of recipe ``scheme`` (generated with ``seed``), generated on
    first use; a name the recipe does not know, a count for a recipe that is not scaled, or a
    seed for one that has none, is refused before anything runs."""
    recipe = recipes()[scheme]
    if requests is not None and not recipe.scalable:
        raise UsageError(f"{scheme}:{name}@{requests}: {scheme} traces are not scaled (drop '@{requests}')")
    if seed and not recipe.seeded:
        raise UsageError(f"{scheme}:{name}: {scheme} traces are fixed files, made with no seed")
    if recipe.names is not None and name not in recipe.names:
        raise UsageError(f"trace {quoted(name)} is not one of {recipe.source} ({', '.join(recipe.names)})")
    return recipe.make(name, requests, seed)
