"""A user's folder of block traces (``smrlab reproduce --traces DIR --general``): every file in
it with the format to read it in, and the files that cannot be read, each with its reason.

A file's format comes from a sidecar beside it, or else from its content:

- A sidecar is a small TOML file named after the trace with ``.trace.toml`` added
  (``web.log.trace.toml`` beside ``web.log``)::

      format = "csv"            # one of `smrlab trace formats`
      options = { time = 0, op = 1, offset = 2, len = 3, time_unit = "us", header = true }

  ``options`` are the reader's options (``--trace-option``): for the generic ``csv`` format
  the column mapping, which only a sidecar can give.
- Otherwise each format the core reads without options is tried on the file's first
  ``PROBE`` requests, by the core's own reader, in the order of ``DETECTED``; the first that
  reads them without an error is the file's format. Compressed files (``.gz``, ``.xz``,
  ``.bz2``, ``.zst``) are read as they are.

A file no reader takes, an empty one, a sidecar that is wrong: each is skipped with its reason,
and the others go on. Hidden files and sidecars are not traces. Not here: running claims on the
traces (``general``).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from smrlab import _core, tomltext
from smrlab.errors import SmrlabError, UsageError
from smrlab.options import quoted
from smrlab.trace import Trace

SIDECAR = ".trace.toml"
# How many requests a format must read from a file's start to be taken as its format.
PROBE = 200
# The formats told from content, most particular first: smrlab's binary has a magic number,
# vscsi's fixed records hold op codes and sizes that text rarely passes for, and of the text
# formats each has its own field count and op spelling.
DETECTED = ("smrbin", "vscsi", "msr", "spc", "blkparse", "blocks")


@dataclass
class FolderTrace:
    """One readable trace of the folder: its name (the file's name up to its first dot, or the
    whole name where two share one), file, format and reader options, and where the format
    came from (``sidecar`` or ``content``)."""

    name: str
    path: Path
    format: str
    options: list[str] = field(default_factory=list)
    told_by: str = "content"

    def open(self) -> Trace:
        return Trace.open(self.path, self.format, self.options)


@dataclass
class Skipped:
    path: Path
    reason: str


def scan(folder: Path) -> tuple[list[FolderTrace], list[Skipped]]:
    """The traces of ``folder`` and the files skipped; a folder that does not exist, or holds
    no file at all, is refused (``UsageError``)."""
    if not folder.is_dir():
        raise UsageError(f"--traces {folder}: no such folder")
    files = [p for p in sorted(folder.iterdir()) if p.is_file() and not p.name.startswith(".") and not is_sidecar(p)]
    if not files:
        raise UsageError(f"--traces {folder}: the folder holds no trace file")
    found: list[FolderTrace] = []
    skipped: list[Skipped] = []
    for path in files:
        try:
            found.append(identify(path))
        except SmrlabError as error:
            skipped.append(Skipped(path, str(error)))
    stems = [t.name for t in found]
    for trace in found:
        if stems.count(trace.name) > 1:
            trace.name = trace.path.name
    return found, skipped


def is_sidecar(path: Path) -> bool:
    return path.name.endswith(SIDECAR)


def identify(path: Path) -> FolderTrace:
    """The trace in file ``path``, its format from its sidecar or its content; a
    ``UsageError`` saying why when it cannot be read."""
    name = path.name.split(".")[0] or path.name
    sidecar = path.with_name(path.name + SIDECAR)
    if sidecar.is_file():
        format, options = read_sidecar(sidecar)
        _probe(path, format, options)
        return FolderTrace(name, path, format, options, "sidecar")
    failures = []
    for format in DETECTED:
        try:
            _probe(path, format, [])
        except SmrlabError as error:
            failures.append(f"{format}: {error}")
            continue
        return FolderTrace(name, path, format)
    raise UsageError(
        f"{path.name}: no trace format reads it ({'; '.join(failures[:3])}; ...); "
        f"name its format in a sidecar {quoted(path.name + SIDECAR)} (docs/your-traces.md)"
    )


def read_sidecar(path: Path) -> tuple[str, list[str]]:
    """The format and reader options a sidecar names."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{path.name}: cannot read it ({error})") from None
    document = tomltext.loads(text, path.name)
    unknown = sorted(set(document) - {"format", "options"})
    if unknown:
        raise UsageError(f"{path.name}: unknown key {quoted(unknown[0])} (known: format, options)")
    formats = [name for name, _ in _core.trace_formats()]
    format = document.get("format")
    if format not in formats:
        raise UsageError(f"{path.name}: format {format!r} is none of {', '.join(formats)}")
    options = document.get("options", {})
    if not isinstance(options, dict) or not all(isinstance(v, (str, int, float, bool)) for v in options.values()):
        raise UsageError(f"{path.name}: options must be a table of KEY = VALUE")
    return format, [f"{key}={_text(value)}" for key, value in options.items()]


def _text(value) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _probe(path: Path, format: str, options: list[str]) -> None:
    """Reads the first ``PROBE`` requests of ``path`` as ``format``: an error if it fails or
    reads none."""
    pipeline = {"inputs": [{"path": str(path), "format": format, "options": options}], "head": PROBE}
    try:
        columns = _core.trace_columns(json.dumps(pipeline))
    except SmrlabError:
        raise
    except (ValueError, OSError) as error:
        raise UsageError(str(error)) from None
    if not len(columns[1]):
        raise UsageError(f"{path.name}: no request in it as {format}")
