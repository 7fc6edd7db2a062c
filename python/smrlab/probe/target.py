"""Which device a probe target names, and the checks made before anything is written to it:
``sim:SYSTEM`` (with ``-p`` parameters) is a simulated drive; anything else is a block device
or a file, probed through fio, and only with ``--destroy-data``, never while mounted or in use,
and only if fio is installed.

Not here: how either kind serves requests (``simdrive``, ``fio``).
"""

from __future__ import annotations

import os
import shutil
import stat
from pathlib import Path

from smrlab.errors import UsageError

SIM = "sim:"


def is_sim(target: str) -> bool:
    return target.startswith(SIM)


def sim_system(target: str) -> str:
    system = target[len(SIM) :]
    if not system:
        raise UsageError(f"{target}: name a system after sim: (e.g. sim:dmsmr)")
    return system


def _sysfs(rdev: int) -> str | None:
    path = Path(f"/sys/dev/block/{os.major(rdev)}:{os.minor(rdev)}")
    return os.path.realpath(path) if path.exists() else None


def _mounted_devices() -> list[tuple[str, int]]:
    """(source, device number) of every mounted block device and active swap device."""
    found = []
    for table, column in [("/proc/self/mounts", 0), ("/proc/swaps", 0)]:
        try:
            lines = Path(table).read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            words = line.split()
            if not words or not words[column].startswith("/dev/"):
                continue
            try:
                found.append((words[column], os.stat(words[column]).st_rdev))
            except OSError:
                continue
    return found


def in_use(device: str, rdev: int) -> str | None:
    """Why the block device ``device`` must not be written (mounted, a partition of it mounted,
    swap, or held by another device such as LVM or RAID), or None."""
    mine = _sysfs(rdev)
    for source, other in _mounted_devices():
        theirs = _sysfs(other)
        if other == rdev or (mine and theirs and theirs.startswith(mine + "/")):
            return f"{source} is mounted or used as swap"
    holders = Path(mine or "/nonexistent") / "holders"
    if holders.is_dir() and any(holders.iterdir()):
        names = ", ".join(sorted(p.name for p in holders.iterdir()))
        return f"it is held by {names}"
    return None


def check_path(target: str, destroy_data: bool) -> tuple[str, int]:
    """The checks before a real target is probed; returns its absolute path and its size."""
    if shutil.which("fio") is None:
        raise UsageError("fio is not installed: probing a device or file runs fio (apt-get install fio)")
    path = os.path.abspath(target)
    try:
        info = os.stat(path)
    except OSError as error:
        raise UsageError(f"{target}: cannot read it ({error.strerror})") from None
    block = stat.S_ISBLK(info.st_mode)
    if not block and not stat.S_ISREG(info.st_mode):
        raise UsageError(f"{target}: neither a block device nor a file")
    if not os.access(path, os.R_OK | os.W_OK):
        raise UsageError(f"{target}: cannot read and write it (permission denied)")
    if block and (why := in_use(path, info.st_rdev)):
        raise UsageError(f"{target}: refusing to write to a device in use ({why})")
    if not destroy_data:
        raise UsageError(f"{target}: probing overwrites its data; add --destroy-data to allow it")
    try:
        with open(path, "rb") as handle:
            size = handle.seek(0, os.SEEK_END)
    except OSError as error:
        raise UsageError(f"{target}: cannot read it ({error.strerror})") from None
    if size < 1 << 20:
        raise UsageError(f"{target}: {size} bytes is too small to probe (at least 1 MiB)")
    return path, size
