"""smrlab: a laboratory for shingled-magnetic-recording (SMR) storage.

The Python front of smrlab: the API (``simulate``, ``compare``, ``sweep``, ``Trace``,
``Result``), the ``smrlab`` command line, experiment files, result files with their
provenance, tables, plots and the report. The simulation itself runs in the Rust core
(``smrlab._core``); this package only prepares its inputs and presents its outputs.

>>> import smrlab
>>> smrlab.simulate("dmsmr", "data/wdev.csv.gz").derived["r_wa"] > 1
True
"""

from smrlab._core import __version__
from smrlab.api import compare, simulate, sweep
from smrlab.errors import ParameterError, SimulationError, SmrlabError, TraceFormatError, UsageError
from smrlab.result import Result
from smrlab.trace import READ, REQUEST_DTYPE, TRIM, WRITE, Trace

__all__ = [
    "__version__",
    "compare",
    "simulate",
    "sweep",
    "Result",
    "Trace",
    "REQUEST_DTYPE",
    "READ",
    "WRITE",
    "TRIM",
    "ParameterError",
    "SimulationError",
    "SmrlabError",
    "TraceFormatError",
    "UsageError",
]
