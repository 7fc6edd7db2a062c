"""Block traces from Python: a trace file (``Trace.open``) or requests held in memory (a numpy
structured array, an Arrow table or a pandas DataFrame), one type for both.

In memory a trace is four columns: ``time_ns`` (arrival, ns), ``op`` (0 read, 1 write, 2 trim),
``offset`` and ``len`` (bytes). They cross to the Rust core as four byte buffers in one call,
never a Python call per request, and the core checks every request as its file readers do.
Not here: running a simulation on a trace (``smrlab.api``) or writing trace files
(``smrlab trace convert``).

>>> import numpy as np, smrlab
>>> requests = np.zeros(3, dtype=smrlab.REQUEST_DTYPE)
>>> requests["op"] = smrlab.WRITE
>>> requests["offset"] = [0, 4096, 1 << 20]
>>> requests["len"] = 4096
>>> trace = smrlab.Trace.from_numpy(requests)
>>> len(trace), trace.stats()["bytes_written"]
(3, 12288)
"""

from __future__ import annotations

import functools
import hashlib
import json
from pathlib import Path
from typing import Any

import numpy as np

from smrlab import _core
from smrlab.errors import TraceFormatError
from smrlab.options import quoted
from smrlab.provenance import trace_checksum

READ, WRITE, TRIM = 0, 1, 2
OP_NAMES = ("read", "write", "trim")
COLUMNS = ("time_ns", "op", "offset", "len")
# The layout of one request in a numpy structured array.
REQUEST_DTYPE = np.dtype([("time_ns", "<u8"), ("op", "u1"), ("offset", "<u8"), ("len", "<u8")])
IN_MEMORY = "<in-memory trace>"


def _column_bytes(name: str, values: Any) -> bytes:
    """One column as the little-endian bytes the core reads, refusing what is not whole numbers
    from 0 up."""
    array = np.asarray(values)
    if array.dtype.kind not in "ui":
        raise TraceFormatError(f"{IN_MEMORY}: column '{name}' holds {array.dtype} values, not whole numbers")
    if array.dtype.kind == "i" and array.size and array.min() < 0:
        raise TraceFormatError(f"{IN_MEMORY}: column '{name}' has a negative value at index {int(np.argmin(array))}")
    if name == "op" and array.size and array.max() > TRIM:
        raise TraceFormatError(
            f"{IN_MEMORY}: op code {int(array.max())} at index {int(np.argmax(array))} is none of "
            "0 (read), 1 (write), 2 (trim)"
        )
    return np.ascontiguousarray(array, dtype="u1" if name == "op" else "<u8").tobytes()


class Trace:
    """A block trace: a file read by the core, or requests in memory.

    >>> trace = Trace.open("data/wdev.csv.gz")
    >>> len(trace)
    100000
    >>> list(trace.head(2).columns)
    ['time_ns', 'op', 'offset', 'len']
    """

    def __init__(
        self,
        path: Path | None = None,
        format: str | None = None,
        options: tuple[str, ...] = (),
        columns: tuple[bytes, bytes, bytes, bytes] | None = None,
    ):
        self._path, self._format, self._options, self._columns = path, format, tuple(options), columns

    @classmethod
    def open(cls, path: str | Path, format: str | None = None, options: tuple[str, ...] | list[str] = ()) -> Trace:
        """The trace file at ``path`` (format from its name unless given; reader ``options`` as
        ``key=value``). Nothing is read until asked."""
        if not isinstance(path, (str, Path)):
            raise TraceFormatError(f"a trace's path is text or a Path, not {type(path).__name__}")
        if format is not None and not isinstance(format, str):
            raise TraceFormatError(f"{path}: format is a format's name, not {type(format).__name__}")
        if isinstance(options, str) or not isinstance(options, (tuple, list)):
            raise TraceFormatError(f"{path}: options is a list of 'key=value' texts, not {type(options).__name__}")
        if not all(isinstance(option, str) for option in options):
            raise TraceFormatError(f"{path}: each option is a 'key=value' text")
        path = Path(path)
        try:
            found = path.is_file()
        except OSError as error:  # e.g. a name past the file system's length limit
            raise TraceFormatError(f"{quoted(str(path))}: cannot look it up ({error.strerror})") from None
        if not found:
            raise TraceFormatError(f"{path}: no such trace file")
        return cls(path=path, format=format, options=tuple(options))

    @classmethod
    def from_columns(cls, time_ns: Any, op: Any, offset: Any, length: Any) -> Trace:
        """Requests from four equally long sequences of whole numbers (arrival ns, op code,
        offset and length in bytes)."""
        given = dict(zip(COLUMNS, (time_ns, op, offset, length)))
        counts = {name: np.asarray(values).size for name, values in given.items()}
        if len(set(counts.values())) != 1:
            raise TraceFormatError(f"{IN_MEMORY}: columns differ in length ({counts})")
        return cls(columns=tuple(_column_bytes(name, values) for name, values in given.items()))

    @classmethod
    def from_numpy(cls, requests: np.ndarray) -> Trace:
        """Requests from a numpy structured array with the fields of ``REQUEST_DTYPE``."""
        if not isinstance(requests, np.ndarray):
            raise TraceFormatError(f"{IN_MEMORY}: requests are a numpy structured array, not {type(requests).__name__}")
        names = requests.dtype.names or ()
        missing = [name for name in COLUMNS if name not in names]
        if missing:
            raise TraceFormatError(
                f"{IN_MEMORY}: the array has no field {', '.join(map(repr, missing))} (fields: {', '.join(COLUMNS)})"
            )
        return cls.from_columns(*(requests[name] for name in COLUMNS))

    @classmethod
    def from_arrow(cls, table: Any) -> Trace:
        """Requests from an Arrow table (or a pandas DataFrame) with columns ``time_ns``, ``op``,
        ``offset`` and ``len``."""
        names = list(getattr(table, "column_names", None) or getattr(table, "columns", []))
        missing = [name for name in COLUMNS if name not in names]
        if missing:
            raise TraceFormatError(
                f"{IN_MEMORY}: the table has no column {', '.join(map(repr, missing))} (columns: {', '.join(COLUMNS)})"
            )
        values = []
        for name in COLUMNS:
            column = table[name]
            if getattr(column, "null_count", 0) or (hasattr(column, "isna") and column.isna().any()):
                raise TraceFormatError(f"{IN_MEMORY}: column '{name}' has missing values")
            values.append(column.to_numpy())
        return cls.from_columns(*values)

    @property
    def path(self) -> Path | None:
        """The file, or None for a trace in memory."""
        return self._path

    @property
    def format(self) -> str | None:
        """The file's format as given (None: from its name, or in memory)."""
        return self._format

    @property
    def options(self) -> tuple[str, ...]:
        """The reader options as given (``key=value``)."""
        return self._options

    @property
    def name(self) -> str:
        """The file's name up to its first dot, or ``<in-memory trace>``."""
        return self._path.name.split(".")[0] if self._path else IN_MEMORY

    def pipeline(self) -> dict:
        """The core's description of this file as a trace pipeline input."""
        return {"inputs": [{"path": str(self._path), "format": self._format, "options": list(self._options)}]}

    def columns(self) -> tuple[bytes, bytes, bytes, bytes]:
        """The four columns as bytes (a file is read once, then kept)."""
        if self._columns is None:
            self._columns = tuple(_core.trace_columns(json.dumps(self.pipeline())))
        return self._columns

    @functools.cached_property
    def _stats(self) -> dict:
        if self._columns is not None:
            return json.loads(_core.columns_stats(*self._columns))
        return json.loads(_core.trace_stats(json.dumps(self.pipeline())))

    def stats(self) -> dict:
        """Counts, bytes, unique blocks, LBA ranges and duration (``smrlab trace stats``)."""
        return dict(self._stats)

    def __len__(self) -> int:
        return self._stats["requests"]

    def checksum(self) -> str:
        """SHA-256 of the file's bytes, or of the four columns of a trace in memory."""
        if self._path is not None:
            return trace_checksum(self._path)
        digest = hashlib.sha256()
        for column in self._columns:
            digest.update(column)
        return "sha256:" + digest.hexdigest()

    def to_numpy(self) -> np.ndarray:
        """The requests as a structured array of ``REQUEST_DTYPE``."""
        time_ns, op, offset, length = self.columns()
        requests = np.empty(len(op), dtype=REQUEST_DTYPE)
        requests["time_ns"] = np.frombuffer(time_ns, dtype="<u8")
        requests["op"] = np.frombuffer(op, dtype="u1")
        requests["offset"] = np.frombuffer(offset, dtype="<u8")
        requests["len"] = np.frombuffer(length, dtype="<u8")
        return requests

    def to_arrow(self):
        """The requests as an Arrow table (``op`` as codes: 0 read, 1 write, 2 trim)."""
        import pyarrow as pa

        time_ns, op, offset, length = self.columns()
        arrays = [
            np.frombuffer(time_ns, "<u8"),
            np.frombuffer(op, "u1"),
            np.frombuffer(offset, "<u8"),
            np.frombuffer(length, "<u8"),
        ]
        return pa.table(dict(zip(COLUMNS, arrays)))

    def head(self, n: int = 5):
        """The first ``n`` requests as a pandas DataFrame, ``op`` by name."""
        import pandas as pd

        if self._columns is None and self._path is not None:
            head = Trace(columns=tuple(_core.trace_columns(json.dumps({**self.pipeline(), "head": int(n)}))))
        else:
            head = self
        frame = pd.DataFrame(head.to_numpy()[:n])
        frame["op"] = pd.Categorical.from_codes(frame["op"], categories=list(OP_NAMES))
        return frame

    def __repr__(self) -> str:
        return (
            f"Trace.open({str(self._path)!r})"
            if self._path
            else f"<Trace in memory, {len(self._columns[1]):,} requests>"
        )
