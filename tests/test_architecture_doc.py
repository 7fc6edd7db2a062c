"""docs/architecture.md against the tree: every path it names exists, and every crate, every
folder of a crate's sources, every top-level folder and every module of the Python package is
named in it. A newcomer's map that has drifted from the code fails here, not in their first hour.
Not here: what the code does (the other tests)."""

from __future__ import annotations

import fnmatch
import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "architecture.md"
# A named path ends in one of these, or holds a '/'; it may be a glob (`bench/*_vs_*.py`).
PATH_SUFFIXES = (".py", ".rs", ".md", ".toml", ".json")
# Words in capitals stand for any name in the doc's recipes (`cache/POLICY.rs`).
PLACEHOLDER = re.compile(r"[A-Z]{3,}")


def tracked() -> list[str]:
    """The repository's files as git has them (no build output, no virtual environment)."""
    listing = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    return [line for line in listing.splitlines() if line]


def folders(files: list[str]) -> set[str]:
    return {str(Path(f).parents[i]) for f in files for i in range(len(Path(f).parents) - 1)}


def code_spans(line: str) -> list[str]:
    return re.findall(r"`([^`]+)`", line)


LINES = DOC.read_text().splitlines()
SPANS = {span for line in LINES for span in code_spans(line)}
FILES = tracked()
PATHS = set(FILES) | folders(FILES)


def test_every_path_the_page_names_exists():
    named = [
        s.rstrip("/")
        for s in SPANS
        if " " not in s
        and ("/" in s or s.endswith(PATH_SUFFIXES))
        and not PLACEHOLDER.search(s)
        and not s.startswith(("$", "~", "http"))
    ]
    assert named, "the page names paths"
    absent = [s for s in named if not any(fnmatch.fnmatch(p, s) or fnmatch.fnmatch(p, "*/" + s) for p in PATHS)]
    assert not absent, f"docs/architecture.md names paths that do not exist: {sorted(absent)}"


def test_every_crate_top_folder_and_source_folder_is_named():
    top = {Path(f).parts[0] for f in FILES if len(Path(f).parts) > 1 and not Path(f).parts[0].startswith(".")}
    unnamed = [f"{t}/" for t in top if not any(s == t or s.startswith(t + "/") for s in SPANS)]
    crates = {Path(f).parts[1] for f in FILES if f.startswith("crates/")}
    unnamed += [f"crates/{c}" for c in crates if f"crates/{c}" not in SPANS]
    for crate in crates:
        source = f"crates/{crate}/src/"
        for folder in {Path(f).parts[3] for f in FILES if f.startswith(source) and len(Path(f).parts) > 4}:
            if not SPANS & {f"{folder}/", f"src/{folder}/", f"{source}{folder}/"}:
                unnamed.append(f"{source}{folder}/")
    assert crates and not unnamed, f"docs/architecture.md does not name: {sorted(unnamed)}"


def test_every_python_module_is_named():
    package = "python/smrlab/"
    modules = [f[len(package) :] for f in FILES if f.startswith(package) and f.endswith(".py")]
    unnamed = []
    for module in modules:
        path = Path(module)
        if len(path.parts) == 1:
            found = path.name in SPANS
        elif path.name == "__init__.py":
            found = f"{path.parent}/__init__.py" in SPANS or f"{path.parent}/" in SPANS
        else:
            # A module of a sub-package: its file named, or its name in the row naming the folder.
            row_names_folder = [line for line in LINES if f"{path.parent}/" in code_spans(line)]
            found = str(path) in SPANS or any(
                path.stem in code_spans(line) or path.name in code_spans(line) for line in row_names_folder
            )
        if not found:
            unnamed.append(module)
    assert modules and not unnamed, (
        f"docs/architecture.md does not name these modules of python/smrlab: {sorted(unnamed)}"
    )
