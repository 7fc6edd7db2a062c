"""What a result file must carry to be reproduced: smrlab version, git commit, trace checksum.

Not the configuration itself (the caller records that) and nothing that depends on wall-clock
time: two runs of the same trace, config and seed give byte-identical result files.
"""

from __future__ import annotations

import functools
import hashlib
import re
import subprocess
from pathlib import Path

from smrlab import __version__, cache

_CHUNK = 1 << 20
_HEX64 = re.compile("[0-9a-f]{64}")
# Trace files from this size on have their checksums remembered (hashing one takes 30 ms or more).
REMEMBER_FROM = 16 << 20


@functools.cache
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
            cwd=root,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return commit + ("-dirty" if dirty else "")


def _file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def trace_checksum(path: str | Path) -> str:
    """SHA-256 of the trace file's bytes as stored (compressed files are hashed compressed).

    A file hashed before, and not changed since, is not read again: its checksum is kept under
    the file's path, size, modification and change times and inode, as git's index keeps its
    files' hashes (a file rewritten in any way gets a new change time, which no program can set
    back), in this process and, for files of ``REMEMBER_FROM`` bytes or more, in smrlab's cache
    folder (``checksums``)."""
    resolved = Path(path).resolve()
    stat = resolved.stat()
    identity = (str(resolved), stat.st_size, stat.st_mtime_ns, stat.st_ctime_ns, stat.st_ino)
    return "sha256:" + cache.remembered(
        "checksums", identity, lambda: _file_sha256(str(resolved)), _HEX64.fullmatch, keep=stat.st_size >= REMEMBER_FROM
    )


def stamp() -> dict:
    """The software half of provenance."""
    return {"version": __version__, "git_commit": git_commit()}
