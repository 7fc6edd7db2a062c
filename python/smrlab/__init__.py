"""smrlab: a laboratory for shingled-magnetic-recording (SMR) storage.

The Python front of smrlab: the API (``simulate``, ``compare``, ``sweep``, ``Trace``,
``Result``), the ``smrlab`` command line, experiment files, result files with their
provenance, tables, plots and the report. The simulation itself runs in the Rust core
(``smrlab._core``); this package only prepares its inputs and presents its outputs.

>>> import smrlab
>>> smrlab.simulate("dmsmr", "data/wdev.csv.gz").derived["r_wa"] > 1
True
"""

import importlib

from smrlab._core import __version__
from smrlab.errors import ParameterError, SimulationError, SmrlabError, TraceFormatError, UsageError

# The API's names, imported on first use (PEP 562): importing them here would load numpy,
# pyarrow and the experiment runner (a quarter of a second) before the command line's
# ``main`` could take Ctrl-C, which would then print a traceback instead of one line; it also
# keeps ``smrlab --help`` quick.
_LAZY = {
    "compare": "smrlab.api",
    "simulate": "smrlab.api",
    "sweep": "smrlab.api",
    "Result": "smrlab.result",
    "Trace": "smrlab.trace",
    "REQUEST_DTYPE": "smrlab.trace",
    "READ": "smrlab.trace",
    "WRITE": "smrlab.trace",
    "TRIM": "smrlab.trace",
}

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


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'smrlab' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
