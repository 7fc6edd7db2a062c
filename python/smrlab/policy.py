"""Cache policies of the user's own, written in Python (docs/policies.md): found from where a
parameter names them, loaded, and described for a result's provenance and a cell's key.

A parameter whose kind is ``policy`` (``policy``, HWSR's ``ssd_policy``) takes a policy's name or
a reference to a class: ``FILE.py:CLASS`` (a path, relative to the working folder, or, in an
experiment file, to that file) or ``MODULE:CLASS`` (an importable module). The Python API also
takes the class itself (``smrlab.simulate(..., policy=MyPolicy)``): it stands for
``MODULE:CLASS``; in this process the class itself is used. A worker process or a Dask worker
imports the class again from its reference, so the file must be readable there at the same
path, or the module importable; a class of the script or notebook that started the run
(``__main__``) runs in that process and in workers forked from it only.

``classes`` gives the core what a run needs (reference -> class); ``provenance`` and
``fingerprints`` what its result and its cell's key record (the source file and a hash of its
text). Loading a file or a module runs it, as ``import`` does. Not here: calling the hooks and
checking their answers (the core, ``smrlab._core``).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import inspect
import sys
import traceback
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from smrlab import _core
from smrlab.errors import PolicyError

# The hooks a policy must have (``counters`` is optional).
HOOKS = ("inserted", "hit", "removed", "victims")
# Modules run from files, by (path, hash of the text): a file is run once per text.
_from_files: dict[tuple[str, str], Any] = {}


@dataclass(frozen=True)
class Loaded:
    """A policy class and where it came from: its file (None when it has none) and the SHA-256
    of that file's text (of the class's own source when it has no file)."""

    cls: type
    source: str | None
    sha256: str


# Classes given as objects in this process (or the parent a worker was forked from), by the
# reference that stands for them, with their source and hash as found when they were given.
_given: dict[str, Loaded] = {}


def is_reference(value: Any) -> bool:
    """Whether ``value`` has the form of a reference to a Python class (the core's rule)."""
    return isinstance(value, str) and _core.is_python_policy(value)


def _file_and_class(reference: str) -> tuple[str | None, str, str]:
    """(file, module, qualified class name) of a reference; file None for ``MODULE:CLASS``."""
    place, _, qualname = reference.strip().rpartition(":")
    return (place, "", qualname) if place.endswith(".py") else (None, place, qualname)


def reference(value: Any, base: Path | None = None) -> Any:
    """``value`` as the core takes it: a class becomes its reference (and is kept for this
    process), a ``FILE.py:CLASS`` reference gets an absolute path (relative to ``base``, else
    to the working folder); any other value is returned unchanged."""
    if isinstance(value, type):
        return _reference_of_class(value)
    if not is_reference(value):
        return value
    path, _, qualname = _file_and_class(value)
    if path is None:
        return value.strip()
    resolved = Path(path).expanduser()
    if not resolved.is_absolute():
        resolved = (base or Path.cwd()) / resolved
    return f"{resolved.resolve()}:{qualname}"


def _reference_of_class(cls: type) -> str:
    qualname = cls.__qualname__
    if "<locals>" in qualname:
        raise PolicyError(
            f"policy {qualname}: a class defined inside a function cannot be found again by name; "
            "define it at the top level of a module or file"
        )
    ref = f"{cls.__module__}:{qualname}"
    _given[ref] = Loaded(cls, *_class_fingerprint(cls, ref))
    return ref


def _class_fingerprint(cls: type, ref: str) -> tuple[str | None, str]:
    """The source file of a class given as an object and the hash of its text (of the class's
    own source when it has no file, as in a notebook)."""
    try:
        file = inspect.getsourcefile(cls)
    except (OSError, TypeError):
        file = None
    if file and Path(file).is_file():
        return str(Path(file).resolve()), _text_hash(_read(file, ref))
    try:
        return None, _text_hash(inspect.getsource(cls).encode())
    except (OSError, TypeError):
        return None, _text_hash(ref.encode())


def references(params: dict[str, Any], base: Path | None = None) -> dict[str, Any]:
    """``params`` with every policy value (a class, a reference, or a list of them: a grid axis)
    as ``reference`` gives it."""
    return {
        key: [reference(v, base) for v in value] if isinstance(value, list) else reference(value, base)
        for key, value in params.items()
    }


def _text_hash(text: bytes) -> str:
    return "sha256:" + hashlib.sha256(text).hexdigest()


def _read(path: str, ref: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as error:
        raise PolicyError(f"policy {ref}: cannot read {path}: {error.strerror or error}") from None


def _source_of_module(module: str, ref: str) -> str | None:
    """The file of ``module`` (None for one without a file), found without running it."""
    try:
        spec = importlib.util.find_spec(module)
    except (ImportError, ValueError) as error:
        raise PolicyError(f"policy {ref}: module {module!r} cannot be found: {error}") from None
    if spec is None:
        raise PolicyError(
            f"policy {ref}: no module {module!r} can be imported here (give FILE.py:CLASS, or make the "
            "module importable: on PYTHONPATH, or installed)"
        )
    return spec.origin if spec.origin and Path(spec.origin).is_file() else None


def fingerprint(ref: str) -> tuple[str | None, str]:
    """The source file of the policy ``ref`` and the hash of its text, without running it."""
    if ref in _given:
        return _given[ref].source, _given[ref].sha256
    path, module, _ = _file_and_class(ref)
    if path is None:
        path = _source_of_module(module, ref)
        if path is None:
            return None, _text_hash(ref.encode())
    return str(Path(path).resolve()), _text_hash(_read(str(path), ref))


def _run_file(path: str, text: bytes, ref: str):
    name = "smrlab_policy_" + hashlib.sha256(path.encode() + text).hexdigest()[:16]
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise PolicyError(f"policy {ref}: {path} is not a Python file")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling look their module up by name
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        del sys.modules[name]
        raise PolicyError(f"policy {ref}: {path}, line {error.lineno}: {error.msg}") from error
    except Exception as error:
        del sys.modules[name]
        raise PolicyError(f"policy {ref}: running {path} raised {type(error).__name__}: {error}") from error
    return module


def _import(module: str, ref: str):
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as error:
        if error.name and (module == error.name or module.startswith(error.name + ".")):
            _source_of_module(module, ref)  # says where it was looked for
        raise PolicyError(f"policy {ref}: importing {module} raised ModuleNotFoundError: {error}") from error
    except SyntaxError as error:
        raise PolicyError(f"policy {ref}: {error.filename}, line {error.lineno}: {error.msg}") from error
    except Exception as error:
        raise PolicyError(f"policy {ref}: importing {module} raised {type(error).__name__}: {error}") from error


def _class_in(namespace: Any, qualname: str, where: str, ref: str) -> type:
    found = namespace
    for part in qualname.split("."):
        found = getattr(found, part, None)
        if found is None:
            known = sorted(n for n, v in vars(namespace).items() if isinstance(v, type) and not n.startswith("_"))
            have = f" (its classes: {', '.join(known)})" if known else ""
            raise PolicyError(f"policy {ref}: {where} has no class {qualname}{have}")
    if not isinstance(found, type):
        raise PolicyError(f"policy {ref}: {qualname} in {where} is a {type(found).__name__}, not a class")
    return found


def _checked(cls: type, ref: str) -> type:
    missing = [hook for hook in HOOKS if not callable(getattr(cls, hook, None))]
    if missing:
        raise PolicyError(
            f"policy {ref}: class {cls.__qualname__} has no method {', '.join(h + '()' for h in missing)} "
            f"(a policy has {', '.join(HOOKS)}; see docs/policies.md)"
        )
    return cls


def load(ref: str) -> Loaded:
    """The class ``ref`` names, checked to have every hook, with its source and hash."""
    if ref not in _given and _file_and_class(ref)[1] == "__main__":
        raise PolicyError(
            f"policy {ref}: a class of the script or notebook that started the run cannot be imported by "
            "another process; put it in a file (FILE.py:CLASS) or a module of its own, or run in one process "
            "(jobs=1)"
        )
    if ref in _given:
        return Loaded(_checked(_given[ref].cls, ref), _given[ref].source, _given[ref].sha256)
    source, sha = fingerprint(ref)
    path, module, qualname = _file_and_class(ref)
    if path is not None:
        key = (path, sha)
        if key not in _from_files:
            _from_files[key] = _run_file(path, _read(path, ref), ref)
        return Loaded(_checked(_class_in(_from_files[key], qualname, path, ref), ref), source, sha)
    namespace = _import(module, ref)
    return Loaded(_checked(_class_in(namespace, qualname, f"module {module}", ref), ref), source, sha)


def _policy_keys() -> set[str]:
    return {p[0] for _name, _summary, params in _core.systems() for p in params if p[5] == "policy"}


def named(params: Iterable[str]) -> list[str]:
    """The Python policies ``KEY=VALUE`` parameters name, in order, each once (a key counts
    when it, or its last part after ``NAME.``, is declared a policy by some system)."""
    keys = _policy_keys()
    found = []
    for param in params:
        key, _, value = param.partition("=")
        if key.rpartition(".")[2] in keys and is_reference(value) and value not in found:
            found.append(value)
    return found


def classes(params: Iterable[str]) -> dict[str, Loaded]:
    """Each Python policy the parameters name, loaded."""
    return {ref: load(ref) for ref in named(params)}


def provenance(loaded: dict[str, Loaded]) -> dict[str, dict[str, str | None]]:
    """What a result records of its Python policies: each one's source file and text hash."""
    return {ref: {"source": one.source, "sha256": one.sha256} for ref, one in loaded.items()}


def fingerprints(given: dict[str, str]) -> dict[str, str]:
    """The text hash of each Python policy a cell's parameters name (part of its key)."""
    return {ref: fingerprint(ref)[1] for ref in named(f"{k}={v}" for k, v in given.items())}


def check(systems_params: Iterable[dict[str, Any]]) -> None:
    """Loads every Python policy the parameters name (a list value is a grid axis), so that a
    missing file, a syntax error or a missing hook stops an experiment before its first cell."""
    for params in systems_params:
        for key, value in params.items():
            for one in value if isinstance(value, list) else [value]:
                classes([f"{key}={one}"])


def user_traceback(error: BaseException) -> str:
    """The traceback of the user's own code behind a ``PolicyError``: its cause's frames
    outside smrlab and Python's import machinery ('' when it has no cause)."""
    cause = error.__cause__
    if cause is None:
        return ""
    ours = str(Path(__file__).resolve().parent)
    frames = [
        frame for frame in traceback.extract_tb(cause.__traceback__) if not frame.filename.startswith((ours, "<frozen"))
    ]
    lines = ["Traceback of the policy (most recent call last):\n", *traceback.format_list(frames)]
    lines += traceback.format_exception_only(type(cause), cause)
    return "".join(lines)
