"""TOML a user wrote (experiment files, claims files, trace sidecars) read into a document:
text that is not TOML, or that nests tables and arrays deeper than ``MAX_DEPTH``, is one
``UsageError`` naming the file. Python's reader recurses once per level and stops with a
RecursionError a few hundred levels down, and the checks that walk a document recurse too, so
a depth no file of ours comes near is refused before either can.

Not here: what a document may hold (``smrlab.experiment.schema``, ``smrlab.reproduce.claims``).
"""

from __future__ import annotations

import tomllib
from pathlib import Path

from smrlab.errors import UsageError

# The deepest nesting of tables and arrays a file may have (ours nest five deep at most).
MAX_DEPTH = 32


def loads(text: str, source: str | Path) -> dict:
    """The TOML document in ``text``, read from ``source`` (which messages name)."""
    try:
        document = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise UsageError(f"{source}: not valid TOML: {error}") from None
    except RecursionError:
        raise UsageError(f"{source}: tables or arrays nested deeper than {MAX_DEPTH} levels") from None
    if _depth(document) > MAX_DEPTH:
        raise UsageError(f"{source}: tables or arrays nested deeper than {MAX_DEPTH} levels")
    return document


def _depth(document: dict) -> int:
    """How deep ``document``'s tables and arrays nest (walked without recursion)."""
    deepest, pending = 0, [(document, 1)]
    while pending:
        value, depth = pending.pop()
        deepest = max(deepest, depth)
        children = value.values() if isinstance(value, dict) else value
        pending.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return deepest
