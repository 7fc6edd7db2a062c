"""What a result file must carry to be reproduced: smrlab version, git commit, trace checksum.

Not the configuration itself (the caller records that) and nothing that depends on wall-clock
time: two runs of the same trace, config and seed give byte-identical result files.
"""

from __future__ import annotations

import functools
import hashlib
import subprocess
from pathlib import Path

from smrlab import __version__

_CHUNK = 1 << 20


@functools.lru_cache(maxsize=None)
def git_commit() -> str:
    """The commit of the smrlab checkout this package runs from, or "unknown" outside one.

    A checkout with uncommitted changes is marked with a "-dirty" suffix.
    """
    root = Path(__file__).resolve().parent
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=root, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"],
            cwd=root, capture_output=True, text=True, check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("-dirty" if dirty else "")


@functools.lru_cache(maxsize=64)
def _file_sha256(path: str, size: int, mtime_ns: int) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def trace_checksum(path: str | Path) -> str:
    """SHA-256 of the trace file's bytes as stored (compressed files are hashed compressed)."""
    stat = Path(path).stat()
    return "sha256:" + _file_sha256(str(Path(path).resolve()), stat.st_size, stat.st_mtime_ns)


def stamp() -> dict:
    """The software half of provenance."""
    return {"version": __version__, "git_commit": git_commit()}
