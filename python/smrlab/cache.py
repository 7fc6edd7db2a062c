"""Where smrlab keeps what it can make again: the generated traces (PORE full size, HWSR
Table 3, FluidSMR Table 1 and Fig. 16) and the footprints of traces it has measured, in one
folder a user chooses with ``SMRLAB_CACHE``, by default the platform's user cache folder
(``~/.cache/smrlab`` on Linux or ``$XDG_CACHE_HOME/smrlab``, ``~/Library/Caches/smrlab`` on
macOS, ``%LOCALAPPDATA%\\smrlab\\Cache`` on Windows; by ``platformdirs``). Never under the
installed package: a wheel installed for all users cannot write there, and a cache deleted is
made again on first use. Small values that cost a pass over a large file to make (a trace's
checksum) are kept too (``remembered``), one file each.

Not here: results (``smrlab run --out``), which are not a cache.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable
from pathlib import Path

from smrlab import outputs
from smrlab.errors import SmrlabError, UsageError

ENVIRONMENT = "SMRLAB_CACHE"


def root() -> Path:
    """The cache folder: ``SMRLAB_CACHE`` when set (and not empty), else the platform's."""
    chosen = os.environ.get(ENVIRONMENT, "").strip()
    if chosen:
        return Path(chosen).expanduser()
    import platformdirs

    return Path(platformdirs.user_cache_dir("smrlab", appauthor=False))


def folder(kind: str) -> Path:
    """The cache's sub-folder ``kind`` (``traces``, ``footprints``), created if missing; a
    folder that cannot be made is one ``UsageError`` naming it and ``SMRLAB_CACHE``."""
    path = root() / kind
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise UsageError(
            f"{path}: cannot make smrlab's cache folder there ({error.strerror}); "
            f"set {ENVIRONMENT} to a folder you can write"
        ) from None
    return path


# What ``remembered`` found or made in this process.
_KEPT: dict[tuple, str] = {}


def remembered(
    kind: str, identity: tuple, make: Callable[[], str], valid: Callable[[str], object], keep: bool = True
) -> str:
    """The text ``make()`` gives for ``identity`` (a tuple of plain values), kept in this process
    and (with ``keep``) in the cache's ``kind`` folder: made only when neither has it, or what is
    stored is not ``valid``. A cache folder that cannot be written only means making it again
    next time."""
    kept = (kind, identity)
    if kept in _KEPT:
        return _KEPT[kept]
    name = hashlib.sha256(json.dumps(identity).encode()).hexdigest()[:32]
    try:
        path: Path | None = folder(kind) / name if keep else None
    except SmrlabError:
        path = None
    try:
        text = path.read_text() if path else ""
    except (OSError, UnicodeDecodeError):
        text = ""
    if not valid(text):
        text = make()
        if path is not None:
            try:
                outputs.write_text(path, text)
            except SmrlabError:
                pass
    _KEPT[kept] = text
    return text
