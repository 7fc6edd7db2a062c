"""Validation of command-line option values: one ``argparse`` type per kind of value (seconds, a
positive or non-negative number, a whole number, a seed, a size, a fraction, a request count of a
generated trace, a list of any of them), each refusing what the core
cannot take with a one-line message that names the option (argparse adds the option's name)
and quotes the value short. Not here: system parameters (``-p KEY=VALUE``), which the core's
declarations parse, or what a command does with a value.
"""

from __future__ import annotations

import argparse
import json
import math

from smrlab import _core

# The core's limits: simulated and trace time stop at 2^63 ns (292 years), whole numbers at 2^64 - 1.
MAX_SECONDS = _core.MAX_SECONDS
MAX_WHOLE = _core.MAX_WHOLE


def quoted(text: str, most: int | None = None) -> str:
    """``text`` in single quotes as the core's messages quote it (``smr_core::quote``): printable
    ASCII kept, other bytes written ``\\xNN``, cut after ``most`` characters (default the
    core's 80)."""
    return _core.quote(text) if most is None else _core.quote(text, most)


def printable(text: str, limit: int) -> str:
    """A message of smrlab's own that may carry the user's text (a schema validator's), shown
    unquoted with its quote marks kept, where ``quoted`` would escape them: printable ASCII, other
    characters escaped, cut after ``limit`` characters."""
    shown = "".join(c if c.isascii() and c.isprintable() else f"\\x{ord(c) & 0xFF:02x}" for c in text[:limit])
    return shown + (f"... ({len(text) - limit} more characters)" if len(text) > limit else "")


def _number(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a number") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a finite number")
    return value


def seconds(text: str) -> float:
    """Seconds of trace or simulated time: 0 up to 2^63 ns."""
    value = _number(text)
    if not 0 <= value <= MAX_SECONDS:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a number of seconds from 0 to {MAX_SECONDS:.4g}")
    return value


def positive(text: str) -> float:
    """A finite number above zero."""
    value = _number(text)
    if value <= 0:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a number above zero")
    return value


def non_negative(text: str) -> float:
    """A finite number, 0 or above."""
    value = _number(text)
    if value < 0:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a number of 0 or above")
    return value


def fraction(text: str) -> float:
    """A number above 0 and at most 1."""
    value = _number(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a fraction above 0 and at most 1")
    return value


def bounded_whole(low: int, high: int):
    """A type for whole numbers from ``low`` to ``high``."""

    def whole(text: str) -> int:
        try:
            value = int(text.strip())
        except ValueError:
            raise argparse.ArgumentTypeError(f"{quoted(text)} is not a whole number") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{quoted(text)} is not a whole number from {low} to {high}")
        return value

    whole.__name__ = "whole number"
    return whole


whole = bounded_whole(0, MAX_WHOLE)
count = bounded_whole(1, MAX_WHOLE)
seed = bounded_whole(0, MAX_WHOLE)

# The most requests a figure command generates a trace of (24 GB in smrlab's binary format): the
# core's limit on its paper workloads.
MAX_GENERATED_REQUESTS = json.loads(_core.paper_tables())["max_generated_requests"]
# ``--requests`` of every figure command: 0 is refused, never read as "the default".
generated_requests = bounded_whole(1, MAX_GENERATED_REQUESTS)


def bounded_number(low: float, high: float):
    """A type for finite numbers from ``low`` to ``high``."""

    def number(text: str) -> float:
        value = _number(text)
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"{quoted(text)} is not a number from {low:g} to {high:g}")
        return value

    number.__name__ = "number"
    return number


def listed(item, most: int):
    """A type for 1 to ``most`` comma-separated values, each read by the type ``item``."""

    def values(text: str) -> list:
        parts = text.split(",")
        if len(parts) > most:
            raise argparse.ArgumentTypeError(f"{quoted(text)} lists {len(parts)} values, at most {most}")
        return [item(part) for part in parts]

    values.__name__ = "list"
    return values


def size(text: str) -> int:
    """Whole bytes, with an optional unit (4096, 4KiB, 20MB); 0 allowed."""
    try:
        return _core.parse_size(text)
    except _core.ParameterError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def positive_size(text: str) -> int:
    """Whole bytes above zero, with an optional unit (a system's size parameter)."""
    value = size(text)
    if value == 0:
        raise argparse.ArgumentTypeError(f"{quoted(text)} is not a size above zero")
    return value


def policy(names: tuple[str, ...]):
    """A type for a replacement policy: one of ``names``, or a Python class of the user's
    (``FILE.py:CLASS`` or ``MODULE:CLASS``, the core's rule)."""

    def named(text: str) -> str:
        if text.strip().lower() not in names and not _core.is_python_policy(text):
            raise argparse.ArgumentTypeError(
                f"{quoted(text)} is none of {', '.join(names)}, and not a Python policy (FILE.py:CLASS or MODULE:CLASS)"
            )
        return text

    named.__name__ = "policy"
    return named


def key_value(text: str) -> str:
    """One ``KEY=VALUE`` argument (``--param``), refused as the core refuses it (no ``=``, no
    key, a second ``=``), naming it; its key and value are judged where the core reads them."""
    try:
        _core.parse_params([text])
    except _core.ParameterError as error:
        raise argparse.ArgumentTypeError(str(error)) from None
    return text


def add_params_argument(parser, help: str) -> None:
    """The repeatable ``--param KEY=VALUE`` (``-p``) of every command that takes parameters,
    each checked by ``key_value``; ``help`` says whose parameters they are."""
    parser.add_argument("--param", "-p", type=key_value, action="append", default=[], metavar="KEY=VALUE", help=help)


def merged_params(params: list[str], **given) -> list[str]:
    """``params`` (``KEY=VALUE`` strings) plus each of ``given`` whose value is not None, refusing
    a key that both name: one value per key, never one silently dropped."""
    named = set(dict(_core.parse_params(list(params))))
    for key, value in given.items():
        if value is None:
            continue
        if key in named:
            raise argparse.ArgumentTypeError(f"'{key}' is given both as an option and as -p {key}=...: give it once")
        params = [*params, f"{key}={value}"]
    return params
