"""smrlab: a laboratory for shingled-magnetic-recording (SMR) storage.

The Python front of smrlab: the ``smrlab`` command line, experiment configs, result files with
their provenance, tables and plots. The simulation itself runs in the Rust core
(``smrlab._core``); this package only prepares its inputs and presents its outputs.
"""

from smrlab._core import __version__
from smrlab.errors import ParameterError, SimulationError, SmrlabError, TraceFormatError, UsageError

__all__ = [
    "__version__",
    "ParameterError",
    "SimulationError",
    "SmrlabError",
    "TraceFormatError",
    "UsageError",
]
