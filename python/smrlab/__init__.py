"""smrlab: a laboratory for shingled-magnetic-recording (SMR) storage.

The Python front of smrlab: the API (``simulate``, ``compare``, ``sweep``, ``Trace``,
``Result``), the ``smrlab`` command line, experiment files, result files with their
provenance, tables, plots and the report. The simulation itself runs in the Rust core
(``smrlab._core``); this package only prepares its inputs and presents its outputs.

>>> import smrlab
>>> smrlab.simulate("dmsmr", "data/wdev.csv.gz").derived["r_wa"] > 1
True
"""

# Every name, even the version and the error types, is imported on first use (PEP 562): this
# module runs before the command line's ``smrlab.__main__`` can take Ctrl-C, and a Ctrl-C while
# it loads prints a traceback instead of one line. Importing the API here would load numpy,
# pyarrow and the experiment runner (a quarter of a second); even the Rust core alone takes a few
# milliseconds. It also keeps ``smrlab --help`` quick.
_LAZY = {
    "__version__": "smrlab._core",
    "ParameterError": "smrlab.errors",
    "RunCancelled": "smrlab.errors",
    "SimulationError": "smrlab.errors",
    "SmrlabError": "smrlab.errors",
    "TraceFormatError": "smrlab.errors",
    "UsageError": "smrlab.errors",
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
    "RunCancelled",
    "SimulationError",
    "SmrlabError",
    "TraceFormatError",
    "UsageError",
]


def __getattr__(name: str):
    import importlib

    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'smrlab' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
