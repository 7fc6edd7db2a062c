"""Command-line options built from a simulated system's parameter declarations: an option that
sets a system parameter takes its name, meaning, unit, default and choices from the core's
``ParamSpec`` (``smrlab.systems.parameters``), and a type that refuses what the parameter's kind
cannot be, so neither the default nor a limit is written a second time in Python.

Not here: the generic value types (``smrlab.options``), or what a command does with the value
(it passes ``KEY=VALUE`` on to the system, whose declaration parses it again).
"""

from __future__ import annotations

import argparse

from smrlab import options, systems

# The argparse type of each kind of parameter the command line can check without the trace: a
# share (of the trace's footprint), a system name or a parameter the system parses itself is
# handed on as text and judged by the core.
KIND_TYPES = {
    "size": options.positive_size,
    "fraction": options.bounded_number(0, 1),
    "count": options.count,
}


def add_declared(
    parser,
    system: str,
    key: str,
    *,
    flag: str | None = None,
    preset: str | None = None,
    meaning: str | None = None,
    metavar: str | None = None,
) -> argparse.Action:
    """Adds to ``parser`` (a parser or an argument group) the option that sets ``system``'s
    parameter ``key``: ``--KEY`` (underscores as dashes, the value in ``args.KEY``) unless ``flag``
    names it (the value then under the flag's name), its help the
    declaration's meaning (or ``meaning``) with the unit and the default, its choices and type
    from the declaration's kind. ``preset`` is a default the command uses in place of the
    system's (the help says so); the option's value is always text the core parses, or a word
    of its choices."""
    declared = systems.parameters(system)[key]
    default = declared.default if preset is None else preset
    said = (
        f"default {default}" if preset is None else f"default here {default}; {system}'s own default {declared.default}"
    )
    # argparse lists a choice's words itself ({rw,wo}); other kinds say their unit (a policy's:
    # its names, or a Python class of the user's).
    choices = declared.choices if declared.kind == "choice" else None
    said = said if choices else f"{declared.unit}; {said}"
    if declared.kind == "policy":
        kind_type = options.policy(declared.choices or ())
    else:
        kind_type = KIND_TYPES.get(declared.kind)
    action = parser.add_argument(
        flag or f"--{key.replace('_', '-')}",
        dest=flag.lstrip("-").replace("-", "_") if flag else key,
        default=default,
        choices=list(choices) if choices else None,
        type=_checked(kind_type) if kind_type else str,
        metavar=metavar,
        help=f"{meaning or declared.help} ({said})".replace("%", "%%"),
    )
    return action


def _checked(kind_type):
    """A type that refuses what ``kind_type`` refuses and keeps the text the user gave, so the
    core reads what was typed (``20MB`` stays ``20MB``, not a number of bytes)."""

    def text(value: str) -> str:
        kind_type(value)
        return value

    text.__name__ = kind_type.__name__
    return text
