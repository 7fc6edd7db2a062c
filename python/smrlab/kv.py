"""SMRDB from Python: an embeddable key-value store on zoned (host-managed SMR) bands.

``DB(path)`` opens or creates a store in the folder ``path`` (a sparse file ``bands`` holding
the zoned device, and a lock file ``LOCK``); ``DB(None)`` keeps one in memory. Keys and values
are bytes (text is encoded as UTF-8), and a store reads as a mapping: ``db[key]``,
``db[key] = value``, ``del db[key]``, ``key in db``, iteration over its keys in order,
``items()``. Every call that may touch the device releases the GIL. The store itself, its formats
and its guarantees are described in ``docs/smrdb.md``; the Rust crate ``smrdb`` implements it.

    from smrlab.kv import DB
    with DB("mystore", compaction="soc", sync=False) as db:
        db.put(b"key", b"value")
        db.get(b"key")                      # b"value"
        db.write_batch([(b"a", b"1"), (b"key", None)])   # atomic: a put and a delete
        for key, value in db.scan(b"a", b"z"):           # start inclusive, end exclusive
            ...
        for keys, values in db.scan_batches():           # the same pairs, a batch of lists at a time
            ...
        for key, record in db.records():  # as kv serve's clients see them: record.fields of a hash
            ...
        db.stats()["write_amplification"]

Errors are ``KvError`` subclasses (themselves ``SmrlabError``): ``KvLimitError`` (key, value or
batch too large), ``KvDeviceFullError``, ``KvCorruptionError``, ``KvParameterError`` (bad option,
or one that differs from what the store was created with), ``KvLockedError`` (another process
has it open), ``KvClosedError``, ``KvWritesRefusedError`` (an earlier failure; reopen), and
``KvIOError``, ``KvNotFoundError`` (no store there, and ``create=False``). Each message names
the store and, for damage, the band and bytes. A folder that held a store and lost its data
file is a ``KvCorruptionError`` naming the file, never opened as a new, empty store.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from os import PathLike
from pathlib import PurePath

from smrlab import _core, kv_records
from smrlab._core import (
    KvClosedError,
    KvCorruptionError,
    KvDeviceFullError,
    KvError,
    KvIOError,
    KvLimitError,
    KvLockedError,
    KvNotFoundError,
    KvParameterError,
    KvWritesRefusedError,
)
from smrlab.kv_records import Record

__all__ = [
    "DB",
    "KvClosedError",
    "KvCorruptionError",
    "KvDeviceFullError",
    "KvError",
    "KvIOError",
    "KvLimitError",
    "KvNotFoundError",
    "KvLockedError",
    "KvParameterError",
    "KvWritesRefusedError",
    "Record",
    "SmrdbAdapter",
    "WORKLOADS",
    "folder_bytes",
    "run_workload",
    "scanned_bytes",
    "size",
]

# Pairs per batch of ``DB.scan_batches`` unless asked otherwise.
SCAN_BATCH = 1024
# The most bytes a size may say (the core counts bytes in 64 bits).
MAX_BYTES = 2**64 - 1
# Options given in bytes, which also accept size strings such as "64MiB".
SIZE_OPTIONS = ("max_value_len", "block_size", "block_cache", "histogram_bytes", "log_buffer")


def size(value: int | str | None, name: str) -> int | None:
    """Bytes from an int or a size string ("64MiB", "4k"; KB/MB are powers of 1000)."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise KvParameterError(f"{name} takes a size in bytes (e.g. 67108864 or '64MiB'), not {value!r}")
    if isinstance(value, str):
        try:
            return _core.parse_size(value)
        except _core.ParameterError as error:
            raise KvParameterError(f"{name}: {error}") from None
    if not 0 <= value <= MAX_BYTES:
        raise KvParameterError(f"{name} must be 0 to 2^64 - 1 bytes, not {value}")
    return value


def store_path(path, error: type[Exception] = KvParameterError) -> str:
    """A store folder's path as text: a str or path-like that names something (``None`` is
    the memory store, never an empty or numeric path), else ``error``. ``Path("")`` is
    ``Path(".")`` to Python, so a path object naming no part (the current folder, which ``""``
    would silently become) is refused too; the text ``"."`` names the current folder on purpose."""
    if isinstance(path, (bool, int, float)) or not isinstance(path, (str, PathLike)):
        raise error(f"a store path is a folder's name (str or path), or None for memory, not {path!r}")
    text = os.fspath(path)
    if not isinstance(text, str) or not text.strip():
        raise error(f"a store path names a folder, not {text!r} (None keeps the store in memory)")
    if isinstance(path, PurePath) and not path.parts:
        raise error(
            f"a store path names a folder, not {path!r}, which is what Path('') becomes: name the folder "
            "(Path.cwd() for the current one), or give None for a store in memory"
        )
    return text


def _bytes(value, what: str) -> bytes:
    """Bytes as they are; text encoded as UTF-8 (as plyvel, rocksdict and shelve users expect)."""
    if isinstance(value, bytes):
        return value
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, (bytearray, memoryview)):
        return bytes(value)
    raise KvParameterError(f"{what} must be bytes or str, not {type(value).__name__}")


class DB:
    """An open SMRDB store.

    path         folder of the store, or None for a store in memory
    create       make a new store where the folder holds none (default); False: refuse to
                 (KvNotFoundError)
    band_size    bytes per band (zone), default 64 MiB; recorded in the store
    compaction   "soc" (SMR-friendly, the default) or "loc" (LevelDB-style); recorded
    capacity     bytes of the (sparse) device, default 1024 bands (64 GiB); recorded
    sync         sync the log at every write unless a call says otherwise
    disk         an HDD preset ("desktop7200", the thesis's 7200 rpm disk) whose simulated
                 time every device command also takes; stats() then reports disk_busy_ns
    background   compact in a background thread (True) or inline after writes (False: the
                 same device commands every run, for simulated disk time)
    tuning       max_key_len, max_value_len, block_size, block_cache (bytes of data blocks gets
                 keep in memory, default 8 MiB, 0: none), bloom_bits_per_key, histogram_bytes,
                 log_buffer, l0_compaction_trigger, l0_slowdown_trigger, l0_stop_trigger,
                 slowdown_micros, l0_max_inputs, l1_overlap_trigger, levels, l1_bands,
                 level_ratio, write_log (False: no log, no synced writes; Fig. 3.10)

    Recorded parameters left as None are taken from an existing store; given, they must match.
    """

    def __init__(
        self,
        path: str | PathLike | None,
        band_size: int | str | None = None,
        compaction: str | None = None,
        sync: bool = False,
        *,
        create: bool = True,
        capacity: int | str | None = None,
        disk: str | None = None,
        background: bool = True,
        **tuning,
    ):
        for name in SIZE_OPTIONS:
            if name in tuning:
                tuning[name] = size(tuning[name], name)
        for name, value in (("compaction", compaction), ("disk", disk)):
            if value is not None and not isinstance(value, str):
                raise KvParameterError(f"{name} takes a name (str), not {value!r:.60}")
        tuning["background"] = bool(background)
        tuning["create_if_missing"] = bool(create)
        self.path = None if path is None else store_path(path)
        self._store = _core.KvStore(
            self.path,
            size(band_size, "band_size"),
            size(capacity, "capacity"),
            compaction,
            bool(sync),
            disk,
            tuning,
        )

    def get(self, key: bytes) -> bytes | None:
        return self._store.get(_bytes(key, "key"))

    def put(self, key: bytes, value: bytes, sync: bool | None = None) -> None:
        self._store.put(_bytes(key, "key"), _bytes(value, "value"), sync)

    def delete(self, key: bytes, sync: bool | None = None) -> None:
        self._store.delete(_bytes(key, "key"), sync)

    def write_batch(self, ops: Iterable[tuple[bytes, bytes | None]], sync: bool | None = None) -> None:
        """Applies ``(key, value)`` puts and ``(key, None)`` deletes atomically."""
        self._store.write_batch([(_bytes(k, "key"), None if v is None else _bytes(v, "value")) for k, v in ops], sync)

    def scan(self, start: bytes | None = None, end: bytes | None = None) -> Iterator[tuple[bytes, bytes]]:
        """``(key, value)`` pairs with ``start <= key < end`` in key order, as of this call
        (later writes are not seen). The iterator's ``next_batch(n)`` returns the next ``n`` pairs as a
        list, fewer only at the end."""
        return self._store.scan(
            None if start is None else _bytes(start, "start"), None if end is None else _bytes(end, "end")
        )

    def records(self, start: bytes | None = None, end: bytes | None = None) -> Iterator[tuple[bytes, Record]]:
        """The pairs of ``scan(start, end)`` as ``smrlab kv serve``'s clients see them: each value
        a ``Record`` (a string, or a hash's fields and values, with the key's expiry), the keys the
        server holds expired left out."""
        now = kv_records.now_ms()
        for key, value in self.scan(start, end):
            record = kv_records.decode(value)
            if not record.expired(now):
                yield key, record

    def record(self, key: bytes) -> Record | None:
        """The value of ``key`` as the server's clients see it (``records``), or ``None``."""
        value = self.get(key)
        record = None if value is None else kv_records.decode(value)
        return None if record is None or record.expired(kv_records.now_ms()) else record

    def scan_batches(
        self, start: bytes | None = None, end: bytes | None = None, size: int = SCAN_BATCH
    ) -> Iterator[tuple[list[bytes], list[bytes]]]:
        """The pairs of ``scan(start, end)``, as of this call, in batches: for each, a list of
        keys and the list of their values, in key order, at most ``size`` pairs (fewer once a
        batch holds 256 KiB of keys and values). The fastest way through a long scan: each
        batch is gathered with the GIL released and no tuple is made per pair."""
        if isinstance(size, bool) or not isinstance(size, int) or not 1 <= size <= MAX_BYTES:
            raise KvParameterError(f"a scan batch holds 1 to 2^64 - 1 pairs, not {size!r}")
        return _column_batches(self.scan(start, end), size)

    def stats(self) -> dict:
        """Counters since opening (bytes and counts), the level sizes, write amplification
        (device bytes written per user byte), and the simulated disk time if timed."""
        return self._store.stats()

    def tables(self) -> list[tuple[int, int, int, int, bytes, bytes]]:
        """``(level, band, bytes, entries, smallest key, largest key)`` of every table."""
        return self._store.tables()

    def compact(self) -> None:
        """Flushes the memtable and merges everything into one sorted run without overlaps."""
        self._store.compact()

    def sync(self) -> None:
        """Makes every write so far durable."""
        self._store.sync()

    def wait_idle(self) -> None:
        """Waits until no flush or compaction is due."""
        self._store.wait_idle()

    def close(self) -> None:
        self._store.close()

    @property
    def kind(self) -> str:
        """``"smrdb"``, or ``"smrdb-offload"`` where the folder held a write-offloading store
        (``smrlab kv serve --offload-store``): it opens as one, and has no ``compact()``."""
        return self._store.kind

    @property
    def closed(self) -> bool:
        return self._store.closed

    # A store reads as a mapping of bytes to bytes: db[key], db[key] = value, del db[key],
    # key in db, iteration over the keys in order, len() is not offered (it would scan).
    def __getitem__(self, key: bytes | str) -> bytes:
        value = self.get(key)
        if value is None:
            raise KeyError(key)
        return value

    def __setitem__(self, key: bytes | str, value: bytes | str) -> None:
        self.put(key, value)

    def __delitem__(self, key: bytes | str) -> None:
        if self.get(key) is None:
            raise KeyError(key)
        self.delete(key)

    def __contains__(self, key: bytes | str) -> bool:
        return self.get(key) is not None

    def __iter__(self) -> Iterator[bytes]:
        """The keys, in order, as of this call."""
        return (key for key, _ in self.scan())

    def keys(self) -> Iterator[bytes]:
        return iter(self)

    def items(self) -> Iterator[tuple[bytes, bytes]]:
        """``(key, value)`` pairs in key order, as of this call (``scan()``)."""
        return self.scan()

    def values(self) -> Iterator[bytes]:
        return (value for _, value in self.scan())

    def __enter__(self) -> DB:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        where = self.path or "memory"
        return f"<smrlab.kv.DB {where}{' (closed)' if self.closed else ''}>"


def _column_batches(it, size: int) -> Iterator[tuple[list[bytes], list[bytes]]]:
    while True:
        keys, values = it.next_columns(size)
        if not keys:
            return
        yield keys, values


# ---------------------------------------------------------------------------------------------
# db_bench-like workloads, for ``smrlab kv bench`` and bench/kv_vs_peers.py. A workload drives
# any store through a small adapter (put, get, readseq: every pair in key order through the
# store's fastest Python iteration, returning how many), so SMRDB and its peers run the very same
# key and value sequence.

KEY_BYTES = 16
WORKLOADS = ("fillseq", "fillrandom", "overwrite", "readrandom", "readseq")


def key_of(index: int) -> bytes:
    """The 16-byte key of record ``index`` (zero-padded decimal, so key order is index order)."""
    return b"%016d" % index


class ValueSource:
    """Incompressible values: slices of a seeded random pool (as db_bench's generator, without
    its compressibility: SMRDB does not compress, so neither may the peers gain from it)."""

    def __init__(self, value_size: int, seed: int):
        self.value_size = value_size
        self.pool = random.Random(seed).randbytes(max(1 << 20, 2 * value_size))
        self.at = 0

    def next(self) -> bytes:
        if self.at + self.value_size > len(self.pool):
            self.at = 0
        value = self.pool[self.at : self.at + self.value_size]
        self.at += 97
        return value


@dataclass
class WorkloadResult:
    """A workload's operations, its seconds, and the bytes of keys and values it wrote or read
    (``None``: not counted, readseq's)."""

    workload: str
    ops: int
    seconds: float
    user_bytes: int | None

    @property
    def ops_per_second(self) -> float:
        return self.ops / self.seconds if self.seconds > 0 else float("inf")

    @property
    def mb_per_second(self) -> float | None:
        """User bytes (keys and values) per second, in MB (10^6 bytes)."""
        if self.user_bytes is None:
            return None
        return self.user_bytes / self.seconds / 1e6 if self.seconds > 0 else float("inf")


class SmrdbAdapter:
    """The workload interface over an SMRDB ``DB``."""

    def __init__(self, db: DB):
        self.db = db

    def put(self, key: bytes, value: bytes, sync: bool) -> None:
        self.db.put(key, value, sync)

    def get(self, key: bytes) -> bytes | None:
        return self.db.get(key)

    def readseq(self) -> int:
        return sum(len(keys) for keys, _ in self.db.scan_batches())


def run_workload(
    store, workload: str, count: int, value_size: int = 1024, sync_every: int = 0, seed: int = 1
) -> WorkloadResult:
    """Runs one db_bench-style workload of ``count`` operations on ``store`` (an adapter):
    fillseq (keys in order), fillrandom and overwrite (uniformly random keys of [0, count)),
    readrandom (gets of random keys), readseq (the whole store in key order, each store's
    fastest way: SMRDB's in batches). The bytes it counts are those of the keys and values
    written or found; readseq counts pairs, its bytes are None (``scanned_bytes`` counts them
    untimed).
    ``sync_every`` k > 0 syncs every k-th put."""
    if workload not in WORKLOADS:
        raise KvParameterError(f"unknown workload {workload!r} (one of: {', '.join(WORKLOADS)})")
    rng = random.Random(seed)
    values = ValueSource(value_size, seed)
    user_bytes = ops = 0
    start = time.perf_counter()
    if workload in ("fillseq", "fillrandom", "overwrite"):
        for index in range(count):
            key = key_of(index if workload == "fillseq" else rng.randrange(count))
            store.put(key, values.next(), sync_every > 0 and (index + 1) % sync_every == 0)
        ops, user_bytes = count, count * (KEY_BYTES + value_size)
    elif workload == "readrandom":
        # The bytes of the pairs found (db_bench's count): a key not there reads none.
        for _ in range(count):
            value = store.get(key_of(rng.randrange(count)))
            user_bytes += KEY_BYTES + len(value) if value is not None else 0
        ops = count
    else:
        # Pairs only: counting their bytes would slow the timed scan by a quarter (SMRDB's), and
        # a count times value_size is not what a store of other values holds.
        ops = store.readseq()
        user_bytes = None
    return WorkloadResult(workload, ops, time.perf_counter() - start, user_bytes)


def scanned_bytes(db: DB) -> int:
    """Bytes of the keys and values ``db`` holds, counted by a scan of the whole store."""
    return sum(sum(map(len, keys)) + sum(map(len, values)) for keys, values in db.scan_batches())


def folder_bytes(path: str | PathLike) -> int:
    """Bytes of storage the files under ``path`` take (allocated blocks: sparse files count
    only what they hold)."""
    total = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                total += os.stat(os.path.join(root, name)).st_blocks * 512
            except FileNotFoundError:
                pass
    return total
