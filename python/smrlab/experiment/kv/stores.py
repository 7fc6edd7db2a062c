"""The stores a key-value cell runs, each behind one small adapter, so that a workload drives
SMRDB and its peers with the very same calls: SMRDB with either compaction scheme
(``smrdb-soc``, ``smrdb-loc``), LevelDB (``leveldb``, through plyvel) and RocksDB (``rocksdb``,
through rocksdict).

An adapter has ``put(key, value, sync)``, ``get(key)``, ``scan(start, count)`` (how many pairs
it read), ``readseq()`` (every pair in key order, through the store's fastest Python iteration),
``settle()`` (wait until background work is done), ``stats()`` and ``close()``.

Levelling the field as the thesis did (§3.3.2, §3.3.3): a peer's write buffer is SMRDB's band
size, every store's block cache 8 MiB (LevelDB's default, "the same default 8 MB cache" the
thesis gave SMRDB and LevelDB, §3.3.3; SMRDB's keeps the blocks its gets read), and nobody
compresses (SMRDB does not; the values are incompressible anyway).

Not here: what a workload does (``phases``, ``ycsb``), or how a peer's file I/O is put on the
disk model (``capture``, ``filelayout``).
"""

from __future__ import annotations

import ctypes
import glob
import os
import subprocess
import time
from pathlib import Path

from smrlab.errors import UsageError
from smrlab.experiment.kv import offload
from smrlab.kv import DB, size

SMRDB = ("smrdb-soc", "smrdb-loc")
PEERS = ("leveldb", "rocksdb")
# SMRDB's write-offloading variant (chapter 5): paced in real time, driven by arrivals (``offload``).
OFFLOAD = "smrdb-offload"
SYSTEMS = SMRDB + PEERS + (OFFLOAD,)

# SMRDB's options a cell may set (grid parameters of the same names).
SMRDB_TUNING = (
    "l0_compaction_trigger",
    "l0_slowdown_trigger",
    "l0_stop_trigger",
    "l0_max_inputs",
    "l1_overlap_trigger",
    "levels",
    "l1_bands",
    "level_ratio",
    "log_buffer",
    "block_size",
    "bloom_bits_per_key",
    "histogram_bytes",
    "slowdown_micros",
    "write_log",
)
# What every store takes: where it runs, the client threads, per-write sync, the band size
# (a peer's write buffer), the disk preset of the modelled setting, the block cache.
COMMON = ("setting", "threads", "sync", "band_size", "disk", "block_cache", "capacity")

BLOCK_CACHE = 8 << 20


def takes(system: str, key: str) -> bool:
    """Whether ``system`` reads the parameter ``key``."""
    if system == OFFLOAD:
        return key in offload.PARAMS
    return key in COMMON or (system in SMRDB and key in SMRDB_TUNING)


def open_store(system: str, folder: Path, params: dict, modelled: bool):
    """The adapter of a new ``system`` store in ``folder`` with ``params`` (text values).
    ``modelled``: SMRDB keeps its device in memory, times every device command on the disk
    preset and compacts inline (the same commands every run); a peer is unchanged (its I/O is
    captured from outside)."""
    if system in SMRDB:
        return SmrdbAdapter(folder, smrdb_arguments(system, params, modelled), modelled)
    band, cache = peer_sizes(params)
    if system == "leveldb":
        return LevelDbAdapter(folder, band, cache)
    if system == "rocksdb":
        return RocksDbAdapter(folder, band, cache)
    raise UsageError(f"system '{system}' is not a key-value store ({', '.join(SYSTEMS)})")


def smrdb_arguments(system: str, params: dict, modelled: bool) -> dict:
    """The keywords of ``smrlab.kv.DB`` that an SMRDB cell opens its store with (its folder
    apart): what ``check`` opens in memory before any cell runs, so that the store's own
    readers refuse a bad value first."""
    tuning = {}
    for key in SMRDB_TUNING:
        if key in params:
            tuning[key] = switch(params[key], key) if key == "write_log" else size(params[key], key)
    tuning["block_cache"] = size(params.get("block_cache", BLOCK_CACHE), "block_cache")
    return {
        "band_size": size(params.get("band_size", "4MiB"), "band_size"),
        "compaction": system.split("-")[1],
        "capacity": params.get("capacity"),  # None: SMRDB's 1024 bands
        # Modelled: every device command timed on the disk preset (no real sync to wait for).
        "disk": params.get("disk", "desktop7200") if modelled else None,
        "background": not modelled,
        **tuning,
    }


def peer_sizes(params: dict) -> tuple[int, int]:
    """A peer's write buffer (the band size) and block cache, in bytes."""
    return size(params.get("band_size", "4MiB"), "band_size"), size(
        params.get("block_cache", BLOCK_CACHE), "block_cache"
    )


class SmrdbAdapter:
    def __init__(self, folder: Path, arguments: dict, modelled: bool):
        self.modelled = modelled
        # Modelled: the device in memory (its time is the model's).
        self.db = DB(None if modelled else folder, **arguments)

    def put(self, key: bytes, value: bytes, sync: bool) -> None:
        self.db.put(key, value, sync)

    def get(self, key: bytes):
        return self.db.get(key)

    def scan(self, start: bytes, count: int) -> int:
        return len(self.db.scan(start).next_batch(count))

    def readseq(self) -> int:
        return sum(len(keys) for keys, _ in self.db.scan_batches())

    def settle(self) -> None:
        self.db.wait_idle()

    def disk_ns(self) -> int | None:
        return self.db.stats().get("disk_busy_ns")

    def stats(self) -> dict:
        """Compaction traffic, write amplification, bands per level and the tables a get
        searched."""
        s = self.db.stats()
        tables = self.db.tables()
        out = {
            "write_amplification": s["write_amplification"],
            "compaction_read_bytes": s["compaction_bytes_read"],
            "compaction_written_bytes": s["compaction_bytes_written"],
            "user_bytes": s["user_bytes"],
            "l0_bands": s["levels"][0][0],
            "l1_bands": s["levels"][1][0] if len(s["levels"]) > 1 else 0,
            "bands": sum(n for n, _ in s["levels"]),
            "bands_per_level": ",".join(str(n) for n, _ in s["levels"]),
            "l1_depth": overlap_depth([(t[4], t[5]) for t in tables if t[0] == 1]),
            "searched_per_get": s["get_tables_searched"] / s["table_gets"] if s["table_gets"] else None,
            "blocks_per_get": s["get_blocks_read"] / s["table_gets"] if s["table_gets"] else None,
            "block_cache_hit_rate": s["get_block_cache_hits"] / s["get_blocks_read"] if s["get_blocks_read"] else None,
        }
        if "disk_busy_ns" in s:
            out.update(
                {
                    "disk_reads": s["disk_reads"],
                    "disk_read_bytes": s["disk_read_bytes"],
                    "disk_writes": s["disk_writes"],
                    "disk_write_bytes": s["disk_write_bytes"],
                    "disk_s": s["disk_busy_ns"] / 1e9,
                }
            )
        return out

    def close(self) -> None:
        self.db.close()


def overlap_depth(ranges: list[tuple[bytes, bytes]]) -> int:
    """The most of these closed key ranges that hold one key (what a get may search)."""
    events = sorted([(lo, 0) for lo, _ in ranges] + [(hi, 1) for _, hi in ranges])
    depth = best = 0
    for _, kind in events:
        depth += 1 if kind == 0 else -1
        best = max(best, depth)
    return best


def switch(text, name: str) -> bool:
    """A cell's yes or no ``name`` (``sync``, ``write_log``): true, 1 or yes; false, 0 or no."""
    if isinstance(text, bool):
        return text
    if str(text).lower() in ("true", "1", "yes"):
        return True
    if str(text).lower() in ("false", "0", "no"):
        return False
    raise UsageError(f"{name}: '{text}' is not true or false")


def _quiet_folder(folder: Path, quiet: float = 0.5, limit: float = 120.0) -> None:
    """Waits until no file under ``folder`` changed size for ``quiet`` seconds (a peer's
    background compaction finished): the peers have no call that waits for it."""

    def sizes():
        out = {}
        for path in glob.glob(str(folder / "*")):
            try:
                out[path] = os.stat(path).st_size
            except FileNotFoundError:
                pass
        return out

    start = time.monotonic()
    last, changed = sizes(), time.monotonic()
    while time.monotonic() - start < limit:
        time.sleep(0.05)
        now = sizes()
        if now != last:
            last, changed = now, time.monotonic()
        elif time.monotonic() - changed >= quiet:
            return


def disable_leveldb_mmap() -> None:
    """Makes plyvel's LevelDB read tables with pread instead of mmap, as its own test hook
    (``EnvPosixTestHelper::SetReadOnlyMMapLimit(0)``) does: a traced run must see every read
    as a system call. Sets the library's ``g_mmap_limit`` before the first store opens (the
    limit is read once, when LevelDB's default environment is made); the symbol's offset comes
    from the library's own symbol table."""
    import plyvel

    libs = glob.glob(os.path.join(os.path.dirname(plyvel.__file__), "..", "plyvel.libs", "libleveldb*"))
    if not libs:
        raise UsageError("plyvel's bundled libleveldb was not found: cannot trace LevelDB's reads")
    library = os.path.realpath(libs[0])
    listing = subprocess.run(["nm", library], capture_output=True, text=True, check=True).stdout
    offset = next((int(line.split()[0], 16) for line in listing.splitlines() if "g_mmap_limit" in line), None)
    if offset is None:
        raise UsageError(f"{library} has no g_mmap_limit symbol: cannot make LevelDB read with pread")
    with open("/proc/self/maps") as maps:
        base = min(int(line.split("-")[0], 16) for line in maps if line.rstrip().endswith(library))
    ctypes.c_int.from_address(base + offset).value = 0


class PeerAdapter:
    """What LevelDB's and RocksDB's adapters share: waiting for their compactions, and no
    counters or disk time of their own (a traced run measures them from outside)."""

    folder: Path

    def settle(self) -> None:
        _quiet_folder(self.folder)

    def disk_ns(self) -> None:
        return None

    def stats(self) -> dict:
        return {}

    def readseq(self) -> int:
        """Reads the whole store in key order (the adapter's ``pairs``) in a plain loop."""
        n = 0
        for _ in self.pairs():
            n += 1
        return n

    def close(self) -> None:
        self.db.close()


class LevelDbAdapter(PeerAdapter):
    def __init__(self, folder: Path, buffer: int, cache: int):
        import plyvel

        self.folder = folder
        self.db = plyvel.DB(
            str(folder), create_if_missing=True, write_buffer_size=buffer, lru_cache_size=cache, compression=None
        )

    def put(self, key: bytes, value: bytes, sync: bool) -> None:
        self.db.put(key, value, sync=sync)

    def get(self, key: bytes):
        return self.db.get(key)

    def scan(self, start: bytes, count: int) -> int:
        n = 0
        with self.db.iterator(start=start) as it:
            for _ in it:
                n += 1
                if n == count:
                    break
        return n

    def pairs(self):
        # plyvel's fastest: its iterator (a pair of bytes per step).
        return self.db.iterator()


class RocksDbAdapter(PeerAdapter):
    def __init__(self, folder: Path, buffer: int, cache: int):
        from rocksdict import BlockBasedOptions, Cache, DBCompressionType, Options, Rdict, WriteOptions

        options = Options(raw_mode=True)
        options.create_if_missing(True)
        options.set_write_buffer_size(buffer)
        options.set_compression_type(DBCompressionType.none())
        table = BlockBasedOptions()
        table.set_block_cache(Cache(cache))
        options.set_block_based_table_factory(table)
        self.folder = folder
        self.db = Rdict(str(folder), options)
        self.synced, self.plain = WriteOptions(), WriteOptions()
        self.synced.sync = True

    def put(self, key: bytes, value: bytes, sync: bool) -> None:
        self.db.put(key, value, self.synced if sync else self.plain)

    def get(self, key: bytes):
        return self.db.get(key)

    def scan(self, start: bytes, count: int) -> int:
        it = self.db.iter()
        it.seek(start)
        n = 0
        while n < count and it.valid():
            it.key(), it.value()
            it.next()
            n += 1
        return n

    def pairs(self):
        # rocksdict's dict-like iteration: a (key, value) pair of bytes per step.
        return self.db.items()
