"""The exceptions smrlab raises for user errors.

Every error that a user can cause (a bad parameter, a malformed trace, an impossible request) is a
``SmrlabError``: the command line prints its message on one line and exits with code 2. Anything
else is a bug and keeps its traceback.
"""

from smrlab._core import ParameterError, PolicyError, SimulationError, SmrlabError, TraceFormatError


class UsageError(SmrlabError):
    """A command-line or config combination that cannot work (found on the Python side)."""


class ClusterLost(SmrlabError):
    """A Dask cluster that went away while an experiment ran on it (its scheduler died, or
    stopped answering for longer than the client waits to reconnect): the cells that finished
    before are stored, and the same run again reuses them."""


class RunCancelled(SmrlabError):
    """A run its progress callback cancelled (by returning False): never a result, since it
    measured only the requests before; what it measured is ``result`` (its report says
    ``cancelled``)."""

    def __init__(self, result):
        self.result = result
        super().__init__(
            f"the progress callback cancelled the run after {result.to_dict()['report']['requests']:,} requests"
        )


def refused_as_usage(function, *args):
    """``function(*args)`` of the core, a ``ParameterError`` it raises given again as a
    ``UsageError`` with the same sentence (for the Python APIs that promise ``UsageError``)."""
    try:
        return function(*args)
    except ParameterError as error:
        raise UsageError(str(error)) from None


__all__ = [
    "ClusterLost",
    "ParameterError",
    "PolicyError",
    "RunCancelled",
    "SimulationError",
    "SmrlabError",
    "TraceFormatError",
    "UsageError",
    "refused_as_usage",
]
