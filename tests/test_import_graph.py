"""No import circle between smrlab's Python modules: the module import graph, built from the
source with ``ast`` (every ``import`` and ``from ... import``, at module level and inside
functions, resolved to smrlab's own modules; a package's ``__init__`` is a module of its own,
and importing a module does not count as importing its parent packages), has no cycle. A
failure names the modules of one cycle, each importing the next.

An import of smrlab's own modules inside a function hides an arrow of the graph from a reader:
it is allowed where it keeps ``import smrlab`` (or a command's start, or a first call) fast, with
a comment on its line or just above giving the measured saving ("... 6 ms ..."). Those without
one are counted per module, and a module may not gain one (``UNEXPLAINED``, the debt of the
layering: it only shrinks, and a module that loses one lowers its count here)."""

from __future__ import annotations

import ast
import functools
import graphlib
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1] / "python"


def module_name(path: Path, root: Path) -> str:
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def modules(root: Path, package: str) -> dict[str, Path]:
    """Every Python source module of ``package`` under ``root``, by dotted name."""
    return {module_name(path, root): path for path in sorted((root / package).rglob("*.py"))}


def imported(tree: ast.AST, name: str, is_package: bool, known: set[str]) -> set[str]:
    """The modules of ``known`` that the module ``name`` (parsed as ``tree``) imports anywhere
    in its body: ``import a.b`` gives ``a.b``; ``from a import b`` gives ``a.b`` when that is a
    module, else ``a`` (b a name defined there); relative imports are resolved from ``name``."""
    found = set()
    package = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")
                anchor = anchor[: len(anchor) - (node.level - 1)]
                base = ".".join([*anchor, *([base] if base else [])])
            for alias in node.names:
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in known else base)
    return (found & known) - {name}


@functools.cache
def parsed(path: Path) -> tuple[list[str], ast.AST]:
    """A source file's lines and syntax tree (read once for every test of this file)."""
    text = path.read_text()
    return text.splitlines(), ast.parse(text, str(path))


def import_graph(root: Path, package: str) -> dict[str, set[str]]:
    """Each module of ``package`` and the modules of the package it imports."""
    sources = modules(root, package)
    known = set(sources)
    return {name: imported(parsed(path)[1], name, path.name == "__init__.py", known) for name, path in sources.items()}


# Per module, its function-local imports of smrlab's own modules without a measured saving.
UNEXPLAINED: dict[str, int] = {}
MEASURED = re.compile(r"#.*\d\s*ms\b")


def unexplained_local_imports(path: Path, name: str, is_package: bool, known: set[str]) -> int:
    """How many imports of ``known`` modules inside ``path``'s functions carry no comment giving
    a measured saving (on the import's line or the comment lines just above it)."""
    lines, tree = parsed(path)
    found = set()
    for function in ast.walk(tree):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(function):
            if not isinstance(node, (ast.Import, ast.ImportFrom)) or node.lineno in found:
                continue
            if not imported(ast.Module([node], []), name, is_package, known):
                continue
            above = node.lineno - 2
            while above >= 0 and lines[above].strip().startswith("#"):
                above -= 1
            if not any(MEASURED.search(line) for line in lines[above + 1 : node.lineno]):
                found.add(node.lineno)
    return len(found)


def test_no_module_gains_a_function_local_import_without_its_measured_saving():
    sources = modules(ROOT, "smrlab")
    known = set(sources)
    counts = {
        name: unexplained_local_imports(path, name, path.name == "__init__.py", known) for name, path in sources.items()
    }
    counts = {name: count for name, count in counts.items() if count}
    grown = {name: count for name, count in counts.items() if count > UNEXPLAINED.get(name, 0)}
    assert not grown, f"function-local imports of smrlab's own modules without a measured saving: {grown}"
    shrunk = {name: count for name, count in UNEXPLAINED.items() if counts.get(name, 0) < count}
    assert not shrunk, f"fewer unexplained function-local imports than UNEXPLAINED says; lower it: {shrunk}"


def test_a_function_local_import_is_counted_unless_its_saving_is_given(tmp_path):
    write_package(
        tmp_path,
        {
            "p/__init__.py": "",
            "p/a.py": "def f():\n    from p import b\n    import p.c  # 4 ms of each start\n"
            "    # loads the figures: 12 ms\n    # of import p\n    from p.b import x\n    import json\n",
            "p/b.py": "x = 1\n",
            "p/c.py": "",
        },
    )
    known = set(modules(tmp_path, "p"))
    assert unexplained_local_imports(tmp_path / "p" / "a.py", "p.a", False, known) == 1


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` (each module imports the next, the last the first), or None."""
    try:
        tuple(graphlib.TopologicalSorter(graph).static_order())
    except graphlib.CycleError as error:
        return list(reversed(error.args[1]))[:-1]
    return None


def test_smrlab_has_no_import_cycle():
    graph = import_graph(ROOT, "smrlab")
    assert len(graph) > 50 and graph["smrlab.cli.caches"], "the graph holds smrlab's modules and their imports"
    found = cycle(graph)
    assert found is None, "import cycle: " + " -> ".join([*found, found[0]])


def write_package(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@pytest.mark.parametrize(
    "files, expected",
    [
        # Module-level imports both ways.
        ({"p/__init__.py": "", "p/a.py": "import p.b\n", "p/b.py": "from p import a\n"}, {"p.a", "p.b"}),
        # One side hidden inside a function, and a relative import.
        (
            {"p/__init__.py": "", "p/a.py": "def f():\n    from .b import g\n", "p/b.py": "from p.a import f\n"},
            {"p.a", "p.b"},
        ),
        # A package's __init__ importing a submodule that takes a name from the __init__.
        ({"p/__init__.py": "from p.a import f\nX = 1\n", "p/a.py": "from p import X\ndef f(): pass\n"}, {"p", "p.a"}),
        # Three modules around, one through a subpackage's relative import of its parent's module.
        (
            {
                "p/__init__.py": "",
                "p/a.py": "from p.q import c\n",
                "p/q/__init__.py": "",
                "p/q/c.py": "from .. import b\n",
                "p/b.py": "import p.a\n",
            },
            {"p.a", "p.q.c", "p.b"},
        ),
    ],
)
def test_a_cycle_is_found_and_named(tmp_path, files, expected):
    write_package(tmp_path, files)
    found = cycle(import_graph(tmp_path, "p"))
    assert found is not None and set(found) == expected
    graph = import_graph(tmp_path, "p")
    assert all(found[(i + 1) % len(found)] in graph[module] for i, module in enumerate(found)), "each imports the next"


def test_no_cycle_is_reported_where_there_is_none(tmp_path):
    write_package(
        tmp_path,
        {
            "p/__init__.py": "",
            "p/a.py": "import p.b\nimport os\n",
            "p/b.py": "from p.c import x\nimport json\n",
            "p/c.py": "x = 1\n",
        },
    )
    assert cycle(import_graph(tmp_path, "p")) is None
