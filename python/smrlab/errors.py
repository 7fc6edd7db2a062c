"""The exceptions smrlab raises for user errors.

Every error that a user can cause (a bad parameter, a malformed trace, an impossible request) is a
``SmrlabError``: the command line prints its message on one line and exits with code 2. Anything
else is a bug and keeps its traceback.
"""

from smrlab._core import ParameterError, SimulationError, SmrlabError, TraceFormatError


class UsageError(SmrlabError):
    """A command-line or config combination that cannot work (found on the Python side)."""


__all__ = ["ParameterError", "SimulationError", "SmrlabError", "TraceFormatError", "UsageError"]
