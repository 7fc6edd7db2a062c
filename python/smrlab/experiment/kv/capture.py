"""A peer store's (LevelDB's, RocksDB's) file I/O on the disk model: the cell's workload runs in
a child process under ``strace``, which records every system call that opens, reads, writes,
syncs, truncates, renames or deletes a file; the calls on the store's folder become file events
(``filelayout``), laid on the disk as a file system would and timed on the same disk preset as
SMRDB, one access after another. The driver marks each phase's start with an ``lseek`` on
``/dev/null`` to an offset of ``MARK`` plus the phase's index, which the trace shows in place.

Honesty guards: LevelDB is made to read its tables with pread (its mmap limit set to 0, as its
own test hook does), and a memory mapping of a store file in the trace is an error, since reads
through a mapping are invisible to strace.

Run as ``python -m smrlab.experiment.kv.capture SPEC OUT`` it is the traced child: SPEC is the
cell as JSON, OUT receives what the driver returned. Not here: the layout rule (``filelayout``).
"""

from __future__ import annotations

import array
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from smrlab import _core
from smrlab.errors import UsageError
from smrlab.experiment.kv import drive, stores
from smrlab.experiment.kv.filelayout import lay_out

MARK = 7_000_000_000
SYSCALLS = (
    "open,openat,creat,close,read,write,pread64,pwrite64,readv,writev,preadv,pwritev,preadv2,pwritev2,lseek,"
    "fsync,fdatasync,sync_file_range,ftruncate,unlink,unlinkat,rename,renameat,renameat2,mmap"
)

_COMPLETE = re.compile(r"^(\d+)\s+(\w+)\((.*)\)\s+=\s+(-?\d+)(?:<([^>]*)>)?")
_UNFINISHED = re.compile(r"^(\d+)\s+(\w+)\((.*?)\s*<unfinished \.\.\.>$")
_RESUMED = re.compile(r"^(\d+)\s+<\.\.\. (\w+) resumed>(.*)\)\s+=\s+(-?\d+)(?:<([^>]*)>)?")
_FD = re.compile(r"^(-?\d+|AT_FDCWD)<([^>]*)>")


# Where a traced store keeps its files: memory (tmpfs) where there is one, so that its syncs
# cost this machine nothing; the trace sees the same calls wherever the files are.
MEMORY_FOLDER = Path("/dev/shm")


def run_traced(system: str, folder: Path, trace: dict, params: dict, seed: int) -> dict:
    """Runs the cell in a traced child and returns its phases with their disk seconds, and the
    disk traffic, as ``drive.run`` returns them."""
    if MEMORY_FOLDER.is_dir() and os.access(MEMORY_FOLDER, os.W_OK):
        with tempfile.TemporaryDirectory(prefix="smrlab-kv-", dir=MEMORY_FOLDER) as memory:
            return _traced(system, Path(memory) / "store", trace, params, seed)
    return _traced(system, folder, trace, params, seed)


def _traced(system: str, folder: Path, trace: dict, params: dict, seed: int) -> dict:
    if shutil.which("strace") is None:
        raise UsageError("the modelled setting of a peer store needs strace (apt-get install strace)")
    with tempfile.TemporaryDirectory(prefix="smrlab-capture-") as scratch:
        spec, out, log = Path(scratch) / "cell.json", Path(scratch) / "out.json", Path(scratch) / "strace.log"
        spec.write_text(
            json.dumps({"system": system, "folder": str(folder), "trace": trace, "params": params, "seed": seed})
        )
        command = [
            "strace",
            "-f",
            "-qq",
            "-s",
            "0",
            "-y",
            "-e",
            f"trace={SYSCALLS}",
            "-e",
            "signal=none",
            "-o",
            str(log),
            sys.executable,
            "-m",
            "smrlab.experiment.kv.capture",
            str(spec),
            str(out),
        ]
        done = subprocess.run(command, capture_output=True, text=True)
        if done.returncode != 0:
            tail = (done.stderr.strip().splitlines() or ["(no message)"])[-1]
            raise UsageError(f"the traced {system} run failed: {tail}")
        result = json.loads(out.read_text())
        with open(log) as lines:
            events = file_events(lines, folder)
    disk = lay_out(events)
    preset = params.get("disk", "desktop7200")
    times = memoryview(
        _core.disk_service_times(preset, bytes(disk.writes), _u64(disk.offsets), _u64(disk.lengths))
    ).cast("Q")
    bounds = disk.phase_starts + [len(times)]
    for i, phase in enumerate(result["phases"]):
        phase["disk_s"] = sum(times[bounds[i] : bounds[i + 1]]) / 1e9
    reads = [n for w, n in zip(disk.writes, disk.lengths) if not w]
    result["store"].update(
        {
            "disk_reads": len(reads),
            "disk_read_bytes": sum(reads),
            "disk_writes": len(disk.writes) - len(reads),
            "disk_write_bytes": sum(disk.lengths) - sum(reads),
            "journal_commits": disk.journal_commits,
            "disk_s": sum(times) / 1e9,
        }
    )
    return result


def _u64(values: list[int]) -> bytes:
    return array.array("Q", values).tobytes()


def _args(text: str) -> list[str]:
    """A system call's arguments, split at top-level commas (strings and brackets kept whole)."""
    out, depth, quoted, current = [], 0, False, []
    i = 0
    while i < len(text):
        c = text[i]
        if quoted:
            if c == "\\":
                current.append(text[i : i + 2])
                i += 2
                continue
            quoted = c != '"'
        elif c == '"':
            quoted = True
        elif c in "[{(":
            depth += 1
        elif c in "]})":
            depth -= 1
        elif c == "," and depth == 0:
            out.append("".join(current).strip())
            current = []
            i += 1
            continue
        current.append(c)
        i += 1
    if current:
        out.append("".join(current).strip())
    return out


def _unquote(text: str) -> str:
    return text[1:-1] if text.startswith('"') else text


class _Files:
    """Which incarnation of a file each path names, the store's folder only."""

    def __init__(self, folder: Path):
        self.prefix = str(folder.resolve()) + os.sep
        self.current: dict[str, int] = {}
        self.count = 0

    def inside(self, path: str) -> bool:
        return path.startswith(self.prefix)

    def of(self, path: str, events: list) -> int:
        if path not in self.current:
            self.count += 1
            self.current[path] = self.count
            events.append(("create", self.count))
        return self.current[path]


def file_events(lines, folder: Path) -> list[tuple]:
    """The file events (``filelayout.lay_out``'s) of an strace log of the calls in
    ``SYSCALLS`` (``-f -y``), on files under ``folder``."""
    files = _Files(folder)
    events: list[tuple] = []
    position: dict[int, int] = {}
    append: set[int] = set()
    size: dict[int, int] = {}
    pending: dict[str, tuple[str, str]] = {}
    for line in lines:
        line = line.rstrip("\n")
        m = _COMPLETE.match(line)
        if m:
            pid, name, args, ret, ret_path = m.groups()
        else:
            u = _UNFINISHED.match(line)
            if u:
                pending[u.group(1)] = (u.group(2), u.group(3))
                continue
            r = _RESUMED.match(line)
            if not r or r.group(1) not in pending:
                continue
            pid, _, rest, ret, ret_path = r.groups()
            # The call's arguments are split between its two lines.
            name, first = pending.pop(pid)
            args = first.rstrip() + " " + rest
        _event(name, _args(args), int(ret), ret_path, files, events, position, append, size)
    return events


def _event(name, args, ret, ret_path, files, events, position, append, size) -> None:
    def fd_path(arg: str):
        m = _FD.match(arg)
        return (m.group(1), m.group(2)) if m else (None, None)

    if name == "lseek":
        fd, path = fd_path(args[0])
        if path == "/dev/null":
            offset = int(args[1]) if args[1].lstrip("-").isdigit() else 0
            if offset >= MARK:
                events.append(("phase", offset - MARK))
        elif path and files.inside(path) and ret >= 0:
            position[int(fd)] = ret
        return
    if ret < 0:
        return
    if name in ("open", "openat", "creat"):
        if not ret_path or not files.inside(ret_path):
            return
        flags = args[2] if name == "openat" else (args[1] if name == "open" else "O_CREAT|O_TRUNC")
        file = files.of(ret_path, events)
        if "O_TRUNC" in flags:
            size[file] = 0
        position[ret] = size.get(file, 0) if "O_APPEND" in flags else 0
        (append.add if "O_APPEND" in flags else append.discard)(ret)
        return
    if name in ("unlink", "unlinkat", "rename", "renameat", "renameat2"):
        paths = _paths(name, args, fd_path)
        if name.startswith("unlink"):
            _delete(paths[0], files, events)
        else:
            old, new = paths
            if files.inside(new) and new in files.current:
                _delete(new, files, events)
            if old in files.current:
                files.current[new] = files.current.pop(old)
        return
    fd, path = fd_path(args[0]) if args else (None, None)
    if path is None or not files.inside(path):
        return
    fd = int(fd)
    file = files.of(path, events)
    if name == "mmap":
        raise UsageError(f"the store maps {path} into memory: reads through a mapping cannot be captured")
    if name == "close":
        position.pop(fd, None)
        append.discard(fd)
    elif name in ("read", "readv"):
        events.append(("read", file, position.get(fd, 0), ret))
        position[fd] = position.get(fd, 0) + ret
    elif name in ("write", "writev"):
        at = size.get(file, 0) if fd in append else position.get(fd, 0)
        events.append(("write", file, at, ret))
        position[fd] = at + ret
        size[file] = max(size.get(file, 0), at + ret)
    elif name in ("pread64", "preadv", "preadv2"):
        events.append(("read", file, int(args[3]), ret))
    elif name in ("pwrite64", "pwritev", "pwritev2"):
        at = int(args[3])
        events.append(("write", file, at, ret))
        size[file] = max(size.get(file, 0), at + ret)
    elif name in ("fsync", "fdatasync", "sync_file_range"):
        events.append(("sync", file))
    elif name == "ftruncate":
        size[file] = int(args[1])


def _paths(name: str, args: list[str], fd_path) -> list[str]:
    """The absolute paths an unlink or rename names (relative ones resolved at their folder)."""
    if name in ("unlink", "rename"):
        return [_unquote(a) for a in args[: 2 if name == "rename" else 1]]
    pairs = [(args[0], args[1])] + ([(args[2], args[3])] if name.startswith("rename") else [])
    out = []
    for dir_arg, path_arg in pairs:
        path = _unquote(path_arg)
        if not path.startswith("/"):
            path = os.path.join(fd_path(dir_arg)[1] or "", path)
        out.append(path)
    return out


def _delete(path: str, files: _Files, events: list) -> None:
    if path in files.current:
        events.append(("delete", files.current.pop(path)))


def _child(spec_path: str, out_path: str) -> int:
    """The traced child: runs the cell, marking each phase's start for the trace."""
    spec = json.loads(Path(spec_path).read_text())
    if spec["system"] == "leveldb":
        stores.disable_leveldb_mmap()
    null = os.open(os.devnull, os.O_RDONLY)
    result = drive.run(
        spec["system"],
        Path(spec["folder"]),
        spec["trace"],
        spec["params"],
        spec["seed"],
        modelled=True,
        marker=lambda index: os.lseek(null, MARK + index, os.SEEK_SET),
    )
    Path(out_path).write_text(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(_child(*sys.argv[1:3]))
