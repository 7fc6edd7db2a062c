"""A program's file I/O laid on a disk as a file system would, for replay through the disk model:
which disk bytes each read and write of a file reaches, and when written data actually goes to
the disk. The rule, after ext4 in its default ordered mode (documented in ``docs/smrdb.md``):

- **Placement.** Each file is one contiguous extent of its final size (rounded up to 4 KiB
  blocks), allocated first-fit from the start of the data area when the file is created, and
  freed when it is deleted (ext4's delayed allocation with its multi-block allocator gives a
  file written before writeback one extent near its directory's; never fragmenting a file is
  the most favourable case for the program).
- **Page cache.** A write only dirties the file's 4 KiB blocks; dirty blocks reach the disk when
  the file is synced (fsync, fdatasync, sync_file_range), when more than ``dirty_limit`` bytes
  are dirty (all of them, file by file, in block order), and at the end; a file deleted first
  never reaches the disk. A read of a dirty block is served from memory.
- **Read-ahead.** A read that continues the file's previous read (starting in the page where it
  ended, or the next) or starts the file, and misses is extended to ``READ_AHEAD`` bytes (Linux's default ``read_ahead_kb`` of 128), and the
  file's last read-ahead window stays in memory; every other read goes to the disk (no other
  clean page cache: SMRDB's device reads are all timed too, and it reads 256 KiB ahead itself
  when it iterates).
- **Journal.** A sync of a file whose size grew (or that is new) since its last sync also
  commits the file system's journal: 8 KiB (descriptor and inode blocks, commit block) written
  at the journal's head, a circular region of ``journal_bytes`` before the data area.

Not here: capturing the I/O (``capture``) or timing it (``smrlab._core.disk_service_times``).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field

BLOCK = 4096
JOURNAL_START = 1 << 20
JOURNAL_BYTES = 128 << 20
DATA_START = JOURNAL_START + JOURNAL_BYTES + (127 << 20)
JOURNAL_COMMIT = 8192
DIRTY_LIMIT = 256 << 20
READ_AHEAD = 128 << 10


@dataclass
class Disk:
    """What the layout produced: each disk access (write flag, offset, length) in order, and
    the index of the first access of each phase."""

    writes: list[int] = field(default_factory=list)
    offsets: list[int] = field(default_factory=list)
    lengths: list[int] = field(default_factory=list)
    phase_starts: list[int] = field(default_factory=list)
    journal_commits: int = 0

    def add(self, write: bool, offset: int, length: int) -> None:
        self.writes.append(int(write))
        self.offsets.append(offset)
        self.lengths.append(length)


class FreeSpace:
    """Free extents of the data area (start, length), kept sorted and merged."""

    def __init__(self):
        self.starts = [DATA_START]
        self.lengths = [1 << 62]

    def take(self, length: int) -> int:
        for i, free in enumerate(self.lengths):
            if free >= length:
                start = self.starts[i]
                self.starts[i] += length
                self.lengths[i] -= length
                return start
        raise ValueError("the modelled disk has no free extent left")

    def give(self, start: int, length: int) -> None:
        i = bisect.bisect(self.starts, start)
        self.starts.insert(i, start)
        self.lengths.insert(i, length)
        for j in (i, i - 1):
            if 0 <= j < len(self.starts) - 1 and self.starts[j] + self.lengths[j] == self.starts[j + 1]:
                self.lengths[j] += self.lengths.pop(j + 1)
                self.starts.pop(j + 1)


def final_sizes(events: list[tuple]) -> dict[int, int]:
    """Each file incarnation's largest size (bytes written up to)."""
    sizes: dict[int, int] = {}
    for event in events:
        if event[0] == "write":
            _, file, offset, length = event
            sizes[file] = max(sizes.get(file, 0), offset + length)
        elif event[0] == "create":
            sizes.setdefault(event[1], 0)
    return sizes


def _runs(blocks: list[int]) -> list[tuple[int, int]]:
    """Sorted block numbers as (first, count) runs of consecutive blocks."""
    runs: list[tuple[int, int]] = []
    for b in blocks:
        if runs and runs[-1][0] + runs[-1][1] == b:
            runs[-1] = (runs[-1][0], runs[-1][1] + 1)
        else:
            runs.append((b, 1))
    return runs


def lay_out(events: list[tuple], dirty_limit: int = DIRTY_LIMIT) -> Disk:
    """The disk accesses of ``events``: ``("create", file)``, ``("write", file, offset,
    length)``, ``("read", file, offset, length)``, ``("sync", file)``, ``("delete", file)``,
    ``("phase", index)``, with ``file`` an incarnation number (a name reused after a delete is
    a new file)."""
    sizes = final_sizes(events)
    disk, free = Disk(), FreeSpace()
    extent: dict[int, tuple[int, int]] = {}
    dirty: dict[int, set[int]] = {}
    synced_size: dict[int, int] = {}
    size_now: dict[int, int] = {}
    dirty_bytes = 0
    journal_head = 0
    # Per file: the block after its last read, and its last read-ahead window.
    last_end: dict[int, int] = {}
    window_of: dict[int, set[int]] = {}

    def place(file: int) -> int:
        if file not in extent:
            length = max(BLOCK, -(-sizes.get(file, 0) // BLOCK) * BLOCK)
            extent[file] = (free.take(length), length)
            dirty[file] = set()
        return extent[file][0]

    def flush(file: int) -> None:
        nonlocal dirty_bytes
        blocks = sorted(dirty.get(file, ()))
        start = place(file)
        for first, count in _runs(blocks):
            disk.add(True, start + first * BLOCK, count * BLOCK)
        dirty_bytes -= len(blocks) * BLOCK
        if file in dirty:
            dirty[file].clear()

    for event in events:
        kind = event[0]
        if kind == "phase":
            disk.phase_starts.append(len(disk.writes))
        elif kind == "create":
            place(event[1])
        elif kind == "write":
            _, file, offset, length = event
            place(file)
            new = set(range(offset // BLOCK, -(-(offset + length) // BLOCK))) - dirty[file]
            dirty[file] |= new
            dirty_bytes += len(new) * BLOCK
            size_now[file] = max(size_now.get(file, 0), offset + length)
            if dirty_bytes > dirty_limit:
                for f in sorted(dirty):
                    flush(f)
        elif kind == "read":
            _, file, offset, length = event
            start = place(file)
            first, end = offset // BLOCK, -(-(offset + length) // BLOCK)
            window = window_of.get(file, set())
            missing = [b for b in range(first, end) if b not in dirty[file] and b not in window]
            if missing:
                previous = last_end.get(file)
                # Sequential as Linux judges it, by page: starting at the file's first page, or
                # at the page where the last read ended (a read that is not page-aligned shares it).
                if first == 0 or (previous is not None and previous - 1 <= first <= previous):
                    blocks = extent[file][1] // BLOCK
                    ahead = range(missing[0], min(blocks, max(end, missing[0] + READ_AHEAD // BLOCK)))
                    missing = [b for b in ahead if b not in dirty[file]]
                    window_of[file] = set(ahead)
                for run_first, count in _runs(missing):
                    disk.add(False, start + run_first * BLOCK, count * BLOCK)
            last_end[file] = end
        elif kind == "sync":
            file = event[1]
            flush(file)
            if size_now.get(file, 0) != synced_size.get(file):
                disk.add(True, JOURNAL_START + journal_head, JOURNAL_COMMIT)
                disk.journal_commits += 1
                journal_head = (journal_head + JOURNAL_COMMIT) % JOURNAL_BYTES
                synced_size[file] = size_now.get(file, 0)
        elif kind == "delete":
            file = event[1]
            if file in extent:
                dirty_bytes -= len(dirty.pop(file)) * BLOCK
                free.give(*extent.pop(file))
                window_of.pop(file, None)
                last_end.pop(file, None)
        else:
            raise ValueError(f"unknown file event {kind!r}")
    for f in sorted(dirty):
        flush(f)
    return disk
