"""The papers' real public traces in place of smrlab's synthetic recipes (``smrlab reproduce
--traces DIR``): each generated trace an experiment names is looked for in DIR by its name.

A trace named NAME (``hwsr-table3:financial1`` is ``financial1``, ``fluid-table1:hm_0`` is
``hm_0``, ``pore-full:wdev`` is ``wdev``) is the file in DIR whose name, up to its first dot,
is NAME once case, ``_`` and ``-`` are set aside, or is NAME followed by volume 0 (``wdev_0``:
PORE names servers, the MSR archive their volumes). Its format is told by its suffix as
everywhere (``.csv`` MSR Cambridge, ``.spc`` UMass/SPC; compressed files are read as they are).
For a write-only experiment (``pore-full-writes:``) the file's writes are copied once into an
smrbin file in the generated-traces folder. Bundled samples (``bundled:``) and traces scaled to N requests (``NAME@N``, a quick
table's samples at sizes scaled with them) are never replaced.
A name with no file in DIR keeps its recipe, and the scorecard says which traces were real. A
file with less than half the requests the paper gives the trace of its name (an excerpt, or one
volume of a server the paper merged) is used as it is, with a warning the scorecard keeps.

Where the traces are published (docs/reproduction.md lists the files):

- MSR Cambridge block traces (Narayanan et al., FAST 2008): the SNIA IOTTA repository, trace
  set 388 ("MSR Cambridge Traces"): ``hm_0.csv``, ``mds_0.csv``, ``prn_0.csv``, ...
- UMass Trace Repository, "OLTP Application I/O": ``Financial1.spc``, ``Financial2.spc``.

Not here: which experiments run or how claims are judged (``scorecard``).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from smrlab import _core, recipes
from smrlab.bundled import generated_trace
from smrlab.errors import SmrlabError, UsageError
from smrlab.trace import Trace

# Generated traces that a real one may replace, and those kept as they are.
KEPT = {"bundled"}
WRITES_ONLY = {"pore-full-writes"}
# A file with fewer requests than this share of the paper's trace of its name is warned of.
FAR_SMALLER = 0.5


def _key(name: str) -> str:
    return "".join(c for c in name.lower() if c.isalnum())


def check_folder(folder: Path) -> None:
    if not folder.is_dir():
        raise UsageError(f"--traces {folder}: no such folder")


class RealTraces:
    """The trace files in one folder, found by name; remembers which it handed out, and warns
    (``warn``, and in ``warnings``) of a file far smaller than the paper's trace of its name."""

    def __init__(self, folder: Path, warn: Callable[[str], None] = lambda _: None):
        check_folder(folder)
        self.folder, self.warn = folder, warn
        self.warnings: list[str] = []
        self.checked: set[Path] = set()
        self.files = {}
        for path in sorted(folder.iterdir()):
            if path.is_file() and not path.name.startswith("."):
                self.files.setdefault(_key(path.name.split(".")[0]), path)
        self.used: dict[str, Path] = {}

    def find(self, name: str) -> Path | None:
        for candidate in (name, f"{name}_0", f"{name}0"):
            found = self.files.get(_key(candidate))
            if found is not None:
                return found
        return None

    def source(self, scheme: str, name: str) -> Path | None:
        """The file to use for generated trace ``scheme:name``, or None to generate it."""
        if scheme in KEPT:
            return None
        found = self.find(name)
        if found is None:
            return None
        if found not in self.checked:
            readable(found)
            self.checked.add(found)
            self.compare_size(scheme, name, found)
        if scheme in WRITES_ONLY:
            found = writes_only_copy(found)
        self.used[name] = found
        return found

    def compare_size(self, scheme: str, name: str, path: Path) -> None:
        """Warns when ``path`` has far fewer requests than the paper gives trace ``name``."""
        recipe = recipes.recipes()[scheme]
        if recipe.paper_requests is None:
            return
        paper, found = recipe.paper_requests(name), len(Trace.open(path))
        if found < FAR_SMALLER * paper:
            message = (
                f"--traces: {path.name} has {found:,} requests, {found / paper:.1%} of the {paper:,} of {name} "
                f"in {recipe.source}: an excerpt, or one volume of it? Its claims are judged on this file"
            )
            self.warnings.append(message)
            self.warn(message)

    def is_real(self, path: Path | None) -> bool:
        return path is not None and path in self.used.values()


def readable(path: Path) -> None:
    """Refuses, at once, a file the trace reader cannot read a first request from: its checksum
    (every cell's key) would otherwise read it whole first, for hours on a huge or sparse file."""
    try:
        Trace.open(path).head(1)
    except SmrlabError as error:
        raise UsageError(f"--traces: {error}") from None


def writes_only_copy(path: Path) -> Path:
    """The writes of trace file ``path`` as an smrbin file, made once."""
    stat = path.stat()
    pipeline = {"inputs": [{"path": str(path.resolve())}], "writes_only": True}
    recipe = {**pipeline, "size": stat.st_size, "mtime_ns": stat.st_mtime_ns}
    return generated_trace(
        recipe,
        f"{path.name.split('.')[0]}-writes",
        None,
        lambda out: _core.trace_write(json.dumps(pipeline), str(out), None),
    )
