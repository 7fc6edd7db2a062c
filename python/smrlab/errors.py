"""The exceptions smrlab raises for user errors.

Every error that a user can cause (a bad parameter, a malformed trace, an impossible request) is a
``SmrlabError``: the command line prints its message on one line and exits with code 2. Anything
else is a bug and keeps its traceback.
"""

from smrlab._core import ParameterError, PolicyError, SimulationError, SmrlabError, TraceFormatError


class UsageError(SmrlabError):
    """A command-line or config combination that cannot work (found on the Python side)."""


def refused_as_usage(function, *args):
    """``function(*args)`` of the core, a ``ParameterError`` it raises given again as a
    ``UsageError`` with the same sentence (for the Python APIs that promise ``UsageError``)."""
    try:
        return function(*args)
    except ParameterError as error:
        raise UsageError(str(error)) from None


__all__ = [
    "ParameterError",
    "PolicyError",
    "SimulationError",
    "SmrlabError",
    "TraceFormatError",
    "UsageError",
    "refused_as_usage",
]
