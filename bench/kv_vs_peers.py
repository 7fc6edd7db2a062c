"""SMRDB (LOC and SOC) side by side with LevelDB (plyvel) and RocksDB (rocksdict): db_bench-like
runs through the Python API, on the same file system, then the same SMRDB runs on the thesis's
7200 rpm disk in simulated time.

Per value size (100 B, 1 KiB, 100 KiB; 16-byte keys): fillseq, readrandom, readseq; fillrandom,
readrandom, readseq; overwrite; each fill once without sync, and fillrandom again with a sync every
1, 100 and 1000 puts (on fewer operations for sync every 1). Every store is new for each fill.
Each figure: ops/s, MB/s (keys and values, 10^6 bytes/s), write amplification (bytes written to
the device or files per byte of keys and values, counted until background compaction has
settled), bytes read by compaction, space the store's files take. Values are incompressible.

readseq reads every pair through each store's fastest Python iteration: SMRDB's scan_batches
(lists of keys and values, a batch per call), plyvel's iterator and rocksdict's items() (a
pair of bytes per step).

How bytes are counted: SMRDB from its own counters (the device commands it issued); LevelDB and
RocksDB from /proc/self/io (wchar: bytes this process passed to write calls, all threads);
compaction reads from LevelDB's "leveldb.stats" (it reads tables through mmap, which rchar does
not see) and from rchar for RocksDB (it reads with pread).

Memtables: SMRDB's is one band; LevelDB's and RocksDB's write buffer is set to the same size
(the thesis levelled the field the same way, §3.3.2); the peers are opened as the key-value
experiments open them (``smrlab.experiment.kv.stores``: 8 MiB block cache, no compression). Quick mode: 4 MiB bands and buffers and a
few minutes in all; --big: 64 MiB and ten times the data.

    python bench/kv_vs_peers.py            # quick
    python bench/kv_vs_peers.py --big      # larger runs
    python bench/kv_vs_peers.py --only 1024 # one value size

Prints one JSON line per figure (bench/run.py tabulates them), then the target ratios.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

from smrlab.experiment.kv.stores import BLOCK_CACHE, LevelDbAdapter, RocksDbAdapter
from smrlab.kv import DB, SmrdbAdapter, folder_bytes, run_workload


def proc_io() -> dict[str, int]:
    with open("/proc/self/io") as f:
        return {k: int(v) for k, v in (line.split(":") for line in f)}


def leveldb_compaction_read(db) -> int:
    """Bytes LevelDB's compactions read, from its "leveldb.stats" property (it reads tables
    through mmap, which rchar does not see)."""
    stats = db.get_property(b"leveldb.stats").decode()
    rows = [line.split() for line in stats.splitlines() if re.match(r"\s*\d+\s", line)]
    return int(sum(float(row[4]) for row in rows) * 1048576)


class SmrdbStore:
    def __init__(self, path: Path, band: int, compaction: str, disk: str | None = None):
        self.db = DB(None if disk else path, band_size=band, compaction=compaction, disk=disk, background=disk is None)
        self.adapter = SmrdbAdapter(self.db)

    def close(self):
        self.db.close()


def settle(seconds_quiet: float = 0.3, limit: float = 60.0) -> None:
    """Waits until this process stops writing (a peer's background compaction finished)."""
    start = last_change = time.perf_counter()
    last = proc_io()["wchar"]
    while time.perf_counter() - start < limit:
        time.sleep(0.05)
        now = proc_io()["wchar"]
        if now != last:
            last, last_change = now, time.perf_counter()
        elif time.perf_counter() - last_change >= seconds_quiet:
            return


def emit(figure: dict) -> None:
    print(json.dumps(figure), flush=True)


def run_system(
    system: str, root: Path, value_size: int, count: int, band: int, fill: str, sync_every: int, figures: list
) -> None:
    path = root / f"{system}-{fill}-{value_size}-{sync_every}"
    if system.startswith("smrdb"):
        store = SmrdbStore(path, band, system.split("-")[1])
        adapter = store.adapter
    elif system == "leveldb":
        store = adapter = LevelDbAdapter(path, band, BLOCK_CACHE)
    else:
        store = adapter = RocksDbAdapter(path, band, BLOCK_CACHE)
    try:
        before_io = proc_io()
        before = store.db.stats() if system.startswith("smrdb") else None
        result = run_workload(adapter, fill, count, value_size, sync_every, seed=value_size)
        if system.startswith("smrdb"):
            store.db.wait_idle()
            after = store.db.stats()
            written = after["device_bytes_written"] - before["device_bytes_written"]
            compaction_read = after["compaction_bytes_read"] - before["compaction_bytes_read"]
        else:
            settle()
            after_io = proc_io()
            written = after_io["wchar"] - before_io["wchar"]
            # RocksDB reads with pread, which rchar counts.
            compaction_read = (
                leveldb_compaction_read(adapter.db) if system == "leveldb" else after_io["rchar"] - before_io["rchar"]
            )
        tag = f"kv/{system}/{fill}/{value_size}B/sync{sync_every or 'never'}"
        figure = {
            "bench": tag,
            "items": result.ops,
            "seconds": result.seconds,
            "per_second": result.ops_per_second,
            "mb_per_s": round(result.mb_per_second, 2),
            "write_amplification": round(written / result.user_bytes, 3),
            "compaction_read_bytes": compaction_read,
            "space_bytes": folder_bytes(path),
        }
        emit(figure)
        figures.append(figure)
        if sync_every == 0:
            follow = ["readrandom", "readseq"] + (["overwrite"] if fill == "fillrandom" else [])
            for name in follow:
                r = run_workload(adapter, name, count, value_size, 0, seed=value_size + 1)
                figure = {
                    "bench": f"kv/{system}/{name}-after-{fill}/{value_size}B",
                    "items": r.ops,
                    "seconds": r.seconds,
                    "per_second": r.ops_per_second,
                    # None for readseq, which counts pairs, not their bytes.
                    "mb_per_s": None if r.mb_per_second is None else round(r.mb_per_second, 2),
                }
                emit(figure)
                figures.append(figure)
    finally:
        store.close()
        shutil.rmtree(path, ignore_errors=True)


def run_simulated(band: int, value_size: int, count: int, figures: list) -> None:
    """SMRDB on the desktop7200 disk model in simulated time (inline compaction: the same
    device commands every run): disk time, and bytes compaction read and rewrote."""
    for fill in ("fillseq", "fillrandom"):
        for compaction in ("loc", "soc"):
            store = SmrdbStore(Path("."), band, compaction, disk="desktop7200")
            try:
                r = run_workload(store.adapter, fill, count, value_size, 0, seed=value_size)
                s = store.db.stats()
            finally:
                store.close()
            figure = {
                "bench": f"kv/sim-desktop7200/smrdb-{compaction}/{fill}/{value_size}B/band{band >> 20}MiB",
                "items": r.ops,
                "seconds": s["disk_busy_ns"] / 1e9,
                "per_second": r.ops / (s["disk_busy_ns"] / 1e9),
                "disk_seconds": round(s["disk_busy_ns"] / 1e9, 3),
                "compaction_read_bytes": s["compaction_bytes_read"],
                "compaction_written_bytes": s["compaction_bytes_written"],
                "write_amplification": round(s["write_amplification"], 3),
            }
            emit(figure)
            figures.append(figure)


def ratio(figures, a, b, field="per_second"):
    fa = next((f for f in figures if f["bench"] == a), None)
    fb = next((f for f in figures if f["bench"] == b), None)
    return None if fa is None or fb is None else fa[field] / fb[field]


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--big", action="store_true", help="64 MiB bands and buffers, ten times the data")
    parser.add_argument("--only", type=int, metavar="BYTES", help="one value size (100, 1024 or 102400)")
    parser.add_argument("--dir", help="folder for the stores (default: a temporary folder)")
    args = parser.parse_args(argv)
    scale = 10 if args.big else 1
    band = (64 if args.big else 4) << 20
    # Operations per value size: 50 to 100 MB of keys and values (ten times that with --big).
    counts = {100: 400_000, 1024: 100_000, 102400: 1_000}
    systems = ["smrdb-soc", "smrdb-loc", "leveldb", "rocksdb"]
    figures: list[dict] = []
    root = Path(tempfile.mkdtemp(prefix="kv-bench-", dir=args.dir))
    try:
        for value_size, count in counts.items():
            if args.only and value_size != args.only:
                continue
            count *= scale
            for fill in ("fillseq", "fillrandom"):
                for system in systems:
                    run_system(system, root, value_size, count, band, fill, 0, figures)
            for sync_every, sync_count in ((1, 1000), (100, count // 10), (1000, count)):
                for system in systems:
                    run_system(
                        system, root, value_size, min(count, sync_count), band, "fillrandom", sync_every, figures
                    )
            # Bands of half and twice the peers' buffer: the data spans tens of bands, so both
            # schemes compact, and the band size's effect shows (Fig. 3.15).
            for sim_band in (band // 2, 2 * band):
                run_simulated(sim_band, value_size, count, figures)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    targets = {
        "fillrandom 1 KiB no sync, SOC / LevelDB ops/s (target >= 1.1)": ratio(
            figures, "kv/smrdb-soc/fillrandom/1024B/syncnever", "kv/leveldb/fillrandom/1024B/syncnever"
        ),
        "write amplification SOC / LevelDB (target < 1)": ratio(
            figures,
            "kv/smrdb-soc/fillrandom/1024B/syncnever",
            "kv/leveldb/fillrandom/1024B/syncnever",
            "write_amplification",
        ),
        "write amplification SOC / RocksDB (target < 1)": ratio(
            figures,
            "kv/smrdb-soc/fillrandom/1024B/syncnever",
            "kv/rocksdb/fillrandom/1024B/syncnever",
            "write_amplification",
        ),
        "readrandom after fillrandom 1 KiB, SOC / LevelDB (target >= 1)": ratio(
            figures, "kv/smrdb-soc/readrandom-after-fillrandom/1024B", "kv/leveldb/readrandom-after-fillrandom/1024B"
        ),
        "readseq after fillrandom 1 KiB, SOC keys/s (target >= 1e6)": next(
            (f["per_second"] for f in figures if f["bench"] == "kv/smrdb-soc/readseq-after-fillrandom/1024B"), None
        ),
        "readseq after fillrandom 1 KiB, SOC / LevelDB keys/s": ratio(
            figures, "kv/smrdb-soc/readseq-after-fillrandom/1024B", "kv/leveldb/readseq-after-fillrandom/1024B"
        ),
        "readseq after fillrandom 1 KiB, SOC / RocksDB keys/s": ratio(
            figures, "kv/smrdb-soc/readseq-after-fillrandom/1024B", "kv/rocksdb/readseq-after-fillrandom/1024B"
        ),
    }
    for name, value in targets.items():
        print(f"# {name}: {'not run' if value is None else f'{value:.3g}'}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
