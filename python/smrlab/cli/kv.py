"""``smrlab kv``: the SMRDB key-value store from the command line — put, get, scan and stats on
a store folder, a db_bench-like benchmark, YCSB runs with realistic arrivals (``ycsb``) and a
Redis-protocol server (``serve``). Keys and values are text (UTF-8) unless --hex says they are
hexadecimal bytes."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import json
import sys
from pathlib import Path

from smrlab import _core, caveats, workload
from smrlab.arrival_names import named_as
from smrlab.cli.line_escape import escape_line
from smrlab.cli.workload import ARRIVAL_OPTIONS, add_arrival_arguments, arrival_options
from smrlab.errors import UsageError
from smrlab.kv import DB, KEY_BYTES, WORKLOADS, SmrdbAdapter, folder_bytes, run_workload, scanned_bytes, size
from smrlab.options import bounded_number, bounded_whole, count, quoted, seed, whole
from smrlab.outputs import check_room, output_file
from smrlab.tables import print_json, print_table

# The largest value a benchmark writes (a store's default maximum, max_value_len).
MAX_BENCH_VALUE = 16 << 20
# Executor workers of a YCSB run (the core's limit) and threads of the server's runtime.
YCSB_THREADS = bounded_whole(1, workload.MAX_THREADS)
SERVER_THREADS = bounded_whole(1, 256)

UNITS = """units: sizes are bytes, with optional suffixes KB/MB/GB (powers of 1000) or KiB/MiB/GiB
(powers of 1024), e.g. 64MiB; rates are operations per second and MB/s (10^6 bytes of keys and
values per second); write amplification is bytes written to the device per byte of keys and
values written; disk time is the simulated seconds the --disk preset took."""


def binary_size(count: int) -> str:
    """``count`` bytes in the largest power-of-1024 unit that divides it (64MiB, 1GiB)."""
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if count >= 1 << shift and count % (1 << shift) == 0:
            return f"{count >> shift}{unit}"
    return f"{count}B"


def add_geometry_arguments(parser: argparse.ArgumentParser, device: str, fits: str = "") -> None:
    """Adds the three options a new store records (--band-size, --capacity, --compaction), their
    defaults and limits the core's (``_core.KV_*``): an existing store keeps its own, so none
    has a default value here. ``device`` names the device in --capacity's help, ``fits`` what
    must fit in it."""
    band, bands = _core.KV_DEFAULT_BAND_SIZE, _core.KV_DEFAULT_BANDS
    parser.add_argument(
        "--band-size",
        metavar="SIZE",
        help=f"bytes per band of a new store, {binary_size(_core.KV_MIN_BAND_SIZE)} to "
        f"{binary_size(_core.KV_MAX_BAND_SIZE)} (default {binary_size(band)}; recorded in the store)",
    )
    parser.add_argument(
        "--capacity",
        metavar="SIZE",
        help=f"bytes of {device}, at most 2^{_core.KV_MAX_BANDS.bit_length() - 1} bands, fewer when bands are "
        "small (one band of metadata describes them all) "
        f"(default {bands} bands: {binary_size(band * bands)} at {binary_size(band)} bands; recorded){fits}",
    )
    parser.add_argument(
        "--compaction",
        choices=_core.KV_SCHEMES,
        help=f"SMR-friendly (soc) or LevelDB-style (loc) compaction of a new "
        f"store (default {_core.KV_SCHEMES[0]}; recorded)",
    )


def add_store_arguments(parser: argparse.ArgumentParser, creates: bool = True, keys: bool = True) -> None:
    """The store folder and a new store's geometry; ``keys``: the command reads or prints keys
    and values, so it takes --hex."""
    parser.add_argument("store", help="store folder (created if it holds no store)" if creates else "store folder")
    add_geometry_arguments(parser, "a new store's sparse device file")
    if keys:
        parser.add_argument("--hex", action="store_true", help="keys and values are hexadecimal bytes, not text")


def store_command(
    group, name: str, run, help: str, description: str | None = None, creates: bool = True, keys: bool = True
) -> argparse.ArgumentParser:
    """Adds the ``kv`` subcommand ``name`` on a store folder (``add_store_arguments``), run by
    ``run``, its --help ending with the units; ``keys``: it takes keys or values (--hex)."""
    parser = group.add(name, help=help, description=description)
    add_store_arguments(parser, creates=creates, keys=keys)
    parser.set_defaults(func=run)
    parser.epilog = UNITS
    return parser


def open_store(args: argparse.Namespace, create: bool = True, **extra) -> DB:
    """The store of a ``kv`` command; ``create``: a folder holding no store becomes one."""
    return DB(
        args.store, band_size=args.band_size, compaction=args.compaction, capacity=args.capacity, create=create, **extra
    )


def decode(text: str, args: argparse.Namespace, what: str) -> bytes:
    if not args.hex:
        return text.encode()
    try:
        return bytes.fromhex(text)
    except ValueError:
        raise UsageError(f"{what} {quoted(text)} is not hexadecimal bytes (drop --hex for text)") from None


def encode(data: bytes, args: argparse.Namespace) -> str:
    return data.hex() if args.hex else data.decode(errors="backslashreplace")


def one_line(data: bytes, args: argparse.Namespace) -> str:
    """``data`` as text for a key<TAB>value line, what would break the line or shift its columns
    escaped (cli/line_escape.py); with --hex, hexadecimal, which needs none."""
    return data.hex() if args.hex else escape_line(data)


def run_put(args: argparse.Namespace) -> int:
    with open_store(args) as db:
        db.put(decode(args.key, args, "key"), decode(args.value, args, "value"), sync=True)
    return 0


def run_get(args: argparse.Namespace) -> int:
    with open_store(args, create=False) as db:
        record = db.record(decode(args.key, args, "key"))
    if record is None:
        print(f"smrlab: key '{args.key}' not found", file=sys.stderr)
        return 1
    print(record.shown(lambda data: encode(data, args)))
    if record.deadline_ms is not None:
        print(f"smrlab: key '{args.key}' expires {record.expiry()}", file=sys.stderr)
    return 0


def run_delete(args: argparse.Namespace) -> int:
    with open_store(args, create=False) as db:
        db.delete(decode(args.key, args, "key"), sync=True)
    return 0


def run_scan(args: argparse.Namespace) -> int:
    start = decode(args.start, args, "start key") if args.start is not None else None
    end = decode(args.end, args, "end key") if args.end is not None else None
    with open_store(args, create=False) as db:
        for index, (key, record) in enumerate(db.records(start, end)):
            if args.limit is not None and index >= args.limit:
                break
            expires = f"\texpires {record.expiry()}" if record.deadline_ms is not None else ""
            # A hash's JSON object escapes its fields itself.
            value = one_line(record.value, args) if record.kind == "string" else record.shown(lambda d: encode(d, args))
            print(f"{one_line(key, args)}\t{value}{expires}")
    return 0


def run_stats(args: argparse.Namespace) -> int:
    with open_store(args, create=False, background=False) as db:
        stats = db.stats()
        tables = db.tables()
        kind = db.kind
    if args.json:
        # Each count and byte count under its own name (the core gives pairs and tuples).
        first = 1 if kind == "smrdb-offload" else 0  # the offloading store's level 0 is its units
        levels = [
            {"level": level, "tables": count, "bytes": byte_count}
            for level, (count, byte_count) in enumerate(stats["levels"], start=first)
        ]
        described = [
            {
                "level": level,
                "band": band,
                "bytes": length,
                "entries": entries,
                "smallest_key_hex": lo.hex(),
                "largest_key_hex": hi.hex(),
            }
            for level, band, length, entries, lo, hi in tables
        ]
        print_json({**stats, "levels": levels, "tables": described})
        return 0
    if kind == "smrdb-offload":
        print_offload_stats(args.store, stats)
        return 0
    rows = [(f"L{level}", count, byte_count) for level, (count, byte_count) in enumerate(stats["levels"])]
    print_table(
        f"SMRDB store {args.store} ({stats['scheme']}, bands of {stats['band_size']:,} bytes)",
        ["level", "tables (bands)", "bytes"],
        rows,
        caption=f"{stats['bands']:,} bands, {stats['free_bands']:,} free; live {stats['live_bytes']:,} bytes. "
        + device_file_size(args.store, stats),
    )
    return 0


def print_offload_stats(store: str, stats: dict) -> None:
    """The levels of a write-offloading store: level 0's unsorted units, then the sorted tables
    of levels 1 to 3."""
    rows = [("L0 (unsorted units)", stats["units"], stats["unsorted_user_bytes"])]
    rows += [(f"L{level}", count, byte_count) for level, (count, byte_count) in enumerate(stats["levels"], start=1)]
    print_table(
        f"Write-offloading store {store} (bands of {stats['band_size']:,} bytes)",
        ["level", "units or tables (bands)", "bytes"],
        rows,
        caption=f"Disk {stats['disk_capacity']:,} bytes, NVRAM device {stats['nvram_capacity']:,} bytes; "
        f"{stats['nvram_units']:,} of the units on the NVRAM device. Level 0's bytes are its keys' and values', "
        "levels 1 to 3's their tables'.",
    )


def check_bench_fits(db: DB, args: argparse.Namespace, workloads: list[str], value_size: int) -> None:
    """Refuses a benchmark whose fill workloads would write more keys and values than the
    store's device holds, or than its folder's file system has room for, before it starts."""
    fills = sum(1 for name in workloads if name.startswith("fill") or name == "overwrite")
    needed = fills * args.count * (KEY_BYTES + value_size)
    stats = db.stats()
    capacity = stats["bands"] * stats["band_size"]
    if needed > capacity:
        raise UsageError(
            f"--count {args.count:,}: {fills} fill workload(s) of {args.count:,} x {KEY_BYTES + value_size:,} bytes "
            f"write {needed:,} bytes, over the {capacity:,} the store's device holds (a larger --capacity, "
            "or fewer operations)"
        )
    check_room(args.store, needed, f"--count {args.count:,}")


def device_file_size(store: str, stats: dict) -> str:
    """The device file's length (the whole device: ``ls`` shows it) and what it takes on disk
    (it is sparse: only what was written)."""
    import os

    length = os.stat(os.path.join(store, "bands")).st_size
    return (
        f"Its device file is {length:,} bytes long (the whole device) but sparse: it takes "
        f"{stats['allocated_bytes'] or 0:,} bytes on disk"
    )


def run_bench(args: argparse.Namespace) -> int:
    value_size = size(args.value_size, "--value-size")
    if value_size > MAX_BENCH_VALUE:
        raise UsageError(f"--value-size {value_size:,} bytes is over the {MAX_BENCH_VALUE:,} a value may have")
    workloads = args.workloads.split(",")
    for name in workloads:
        if name not in WORKLOADS:
            raise UsageError(f"unknown workload {quoted(name)} (one of: {', '.join(WORKLOADS)})")
    rows = []
    with open_store(args, disk=args.disk, background=not args.inline) as db:
        if db.kind == "smrdb-offload":
            raise UsageError(
                f"{args.store} holds a write-offloading store; kv bench runs on SMRDB stores "
                "(kv ycsb --offload-store runs YCSB on the offloading store)"
            )
        check_bench_fits(db, args, workloads, value_size)
        adapter = SmrdbAdapter(db)
        for name in workloads:
            before = db.stats()
            result = run_workload(adapter, name, args.count, value_size, args.sync_every, args.seed)
            if result.user_bytes is None:  # readseq's pairs: their bytes, counted after the timed scan
                result = dataclasses.replace(result, user_bytes=scanned_bytes(db))
            if name.startswith("fill") or name == "overwrite":
                db.wait_idle()
            after = db.stats()

            def delta(key, after=after, before=before):
                return after.get(key, 0) - before.get(key, 0)

            written = delta("device_bytes_written")
            rows.append(
                (
                    name,
                    result.ops,
                    result.ops_per_second,
                    result.mb_per_second,
                    written / result.user_bytes if name.startswith("fill") or name == "overwrite" else None,
                    delta("compaction_bytes_read"),
                    delta("disk_busy_ns") / 1e9 if "disk_busy_ns" in after else None,
                )
            )
        space = folder_bytes(args.store)
    if args.json:
        print_json(
            [
                dict(
                    zip(
                        [
                            "workload",
                            "ops",
                            "ops_per_s",
                            "mb_per_s",
                            "write_amplification",
                            "compaction_read_bytes",
                            "disk_seconds",
                        ],
                        r,
                    )
                )
                for r in rows
            ]
        )
        return 0
    print_table(
        f"smrlab kv bench: {args.count:,} x {value_size:,}-byte values, 16-byte keys, {f'a sync every {args.sync_every:,} puts' if args.sync_every else 'no sync'}",
        ["workload", "ops", "ops/s", "MB/s", "write amp.", "compaction read (bytes)", "disk time (s)"],
        rows,
        caption=f"store {args.store} takes {space:,} bytes",
    )
    return 0


def property_pairs(texts: list[str]) -> dict:
    pairs = {}
    for text in texts:
        key, eq, value = text.partition("=")
        if not eq or not key:
            raise UsageError(f"-p takes a YCSB property as name=value, not {quoted(text)}")
        pairs[key] = value
    return pairs


def open_workload_store(args: argparse.Namespace) -> _core.WorkloadStore:
    """The store ``kv ycsb`` or ``kv serve`` runs on."""
    if args.store is None and args.disk is None:
        raise UsageError("give a store folder, or --disk PRESET for a store in memory on a paced disk model")
    if args.store is not None and args.disk is not None:
        raise UsageError("--disk runs a store in memory on a paced disk model: give no store folder with it")
    if args.no_offload and not args.offload_store:
        raise UsageError("--no-offload applies to --offload-store only")
    return workload.WorkloadStore(
        offload_store=args.offload_store,
        path=args.store,
        disk=args.disk,
        band_size=size(args.band_size, "--band-size"),
        capacity=size(args.capacity, "--capacity"),
        compaction=args.compaction,
        offload=not args.no_offload,
    )


def add_workload_store_arguments(parser: argparse.ArgumentParser, title: str):
    """The options of the store ``kv ycsb`` or ``kv serve`` makes or opens, in a group of their
    own named ``title``, which is returned."""
    group = parser.add_argument_group(title)
    add_geometry_arguments(
        group, "a new store's device", fits="; a load must fit it (and, in memory, this machine's free memory)"
    )
    group.add_argument(
        "--offload-store",
        action="store_true",
        help="the write-offloading variant of chapter 5 (unsorted first level, NVRAM device while compacting)",
    )
    group.add_argument(
        "--no-offload", action="store_true", help="with --offload-store: never offload (the variant's baseline)"
    )
    group.add_argument(
        "--disk",
        metavar="PRESET",
        help="a store in memory whose disk takes this HDD preset's time in real time (e.g. desktop7200); no folder then",
    )
    return group


# YCSB's record shape unless -p says otherwise: 10 fields of 100 bytes.
YCSB_FIELDS, YCSB_FIELD_BYTES = 10, 100


def loaded_bytes(properties: dict) -> tuple[int, int]:
    """The records a YCSB load writes and the bytes of each at least: its value (fieldcount x
    fieldlength) and a key of "user" and a digit. A property that is not a whole number counts
    as YCSB's default (the core refuses it by name)."""

    def whole(name: str, default: int) -> int:
        try:
            return max(0, int(properties.get(name, default)))
        except ValueError:
            return default

    return whole("recordcount", 0), whole("fieldcount", YCSB_FIELDS) * whole("fieldlength", YCSB_FIELD_BYTES) + 5


def run_ycsb(args: argparse.Namespace) -> int:
    properties = {"recordcount": args.records, **property_pairs(args.property)}
    if args.disk is not None and not args.no_load:
        # The core refuses a load over the device's capacity; in memory, it must fit this machine too.
        workload.check_memory_store(*loaded_bytes(properties), None, "--records")
    if args.server_timeout is not None and args.server is None:
        raise UsageError("--server-timeout applies to --server only")
    if args.server is not None:
        # Every option of the store group would be accepted and do nothing against a server.
        given = [option for option, dest in args.store_options if getattr(args, dest) not in (None, False)]
        if args.store is not None or given:
            raise UsageError(
                f"--server runs against a server: give no {'store folder' if args.store is not None else given[0]} "
                "with it (the store's options apply to a store this command makes or opens)"
            )
        endpoint, store = args.server, None
    else:
        store = open_workload_store(args)
        endpoint = store
    try:
        with contextlib.ExitStack() as outputs:
            store_files = list(Path(args.store).glob("*")) if args.store is not None else []
            log_path = (
                outputs.enter_context(output_file(args.log, inputs=store_files)) if args.log is not None else None
            )
            with named_as(ARRIVAL_OPTIONS):
                result = workload.run_ycsb(
                    endpoint,
                    args.workload,
                    properties,
                    process=args.process,
                    rate=args.rate,
                    duration=args.duration,
                    threads=args.threads,
                    seed=args.seed,
                    load=not args.no_load,
                    log_path=log_path,
                    sync=args.sync,
                    progress=True,
                    server_timeout=args.server_timeout,
                    **arrival_options(args),
                )
        stats = json.loads(store.stats()) if store is not None else None
    finally:
        if store is not None:
            store.close()
    s = result["summary"]
    notes = caveats.behind("the run", s, args.duration)
    if args.json:
        print_json(
            {
                "summary": s,
                "arrivals": result["arrivals"],
                "load_seconds": result["load_seconds"],
                "store": stats,
                "notes": notes,
            }
        )
        return 0 if s["failed"] == 0 else 1
    behind = caveats.fell_behind(s, args.duration)

    def row(op: str, lat: dict) -> tuple:
        keys = ("mean_ns", "p50_ns", "p90_ns", "p99_ns", "p999_ns", "max_ns")
        return (op, lat["count"], *(caveats.response(f"{lat[key] / 1e6:,.3f}", behind) for key in keys))

    rows = [row("all", s["latency"])] + [row(op, lat) for op, lat in s["by_op"]]
    target = args.server or args.store or f"memory store on {args.disk}"
    print_table(
        f"YCSB workload {args.workload} on {target}: {args.process} arrivals, {args.rate:g}/s for {args.duration:g} s, {args.threads} threads",
        ["operation", "requests", "mean (ms)", "p50", "p90", "p99", "p99.9", "max"],
        rows,
        caption=(
            f"latency from each request's scheduled time; {s['throughput']:,.0f} requests/s achieved; {s['failed']} failed, "
            f"{s['missed']} reads missed, {s['waited_for_worker']} waited for a free worker; executor's scheduling error "
            f"p50 {s['scheduling_error']['p50_ns'] / 1e3:,.0f} us, p99 {s['scheduling_error']['p99_ns'] / 1e3:,.0f} us"
        ),
        notes=notes,
    )
    return 0 if s["failed"] == 0 else 1


def run_serve(args: argparse.Namespace) -> int:
    if args.path is not None:
        if args.store is not None:
            raise UsageError("give the store folder once: as STORE (--path is its older spelling)")
        args.store = args.path
    max_bulk = size(args.max_bulk, "--max-bulk")
    if max_bulk < 1:
        raise UsageError(f"--max-bulk {args.max_bulk}: a client must be able to send at least a 1-byte key or value")
    store = open_workload_store(args)
    report = json.loads(
        workload._core.serve(
            store,
            f"{args.host}:{args.port}",
            max_bulk=max_bulk,
            sync_writes=args.sync,
            threads=args.threads,
        )
    )
    print(
        f"smrlab kv serve: stopped by {report['stopped_by']} after {report['connections']:,} connections and "
        f"{report['commands']:,} commands; the store is synced and closed",
        file=sys.stderr,
    )
    return 0


# What ``kv serve`` speaks, for its --help.
SERVE_DESCRIPTION = (
    "Serves the store over the Redis protocol, RESP2 and RESP3 (after HELLO 3), as Redis 7 does: "
    "strings (GET, SET with NX/XX/GET/EX/PX/EXAT/PXAT/KEEPTTL, MGET, MSET, INCR, INCRBY, DECR, "
    "DECRBY), hashes (HSET, HMSET, HGET, HMGET, HGETALL, HDEL, HLEN, HEXISTS), keys (DEL, EXISTS, "
    "TYPE, EXPIRE, PEXPIRE, TTL, PTTL, PERSIST, KEYS, SCAN, DBSIZE, FLUSHDB), MULTI/EXEC/DISCARD "
    "transactions, HELLO, AUTH, CLIENT, INFO, PING, QUIT, and RANGE start end [COUNT n] (a range "
    "scan in key order). Prints the address once listening; on SIGTERM or SIGINT stops accepting, "
    "lets connections finish, syncs and closes the store."
)


def register(commands) -> None:
    group = commands.group("kv", help="SMRDB, the key-value store on zoned SMR bands: put, get, scan, stats, bench")
    put = store_command(group, "put", run_put, help="store a value under a key (synced before it returns)")
    put.add_argument("key")
    put.add_argument("value")

    get = store_command(
        group,
        "get",
        run_get,
        creates=False,
        help="print the value of a key (exit code 1 if it is not there)",
        description="Print the value of a key (exit code 1 if it is not there), as kv serve's clients see "
        "it: a hash (HSET) as a JSON object of its fields; a key with a time to live also says when it "
        "expires (on stderr), an expired key is not there.",
    )
    get.add_argument("key")

    delete = store_command(group, "delete", run_delete, creates=False, help="delete a key (synced before it returns)")
    delete.add_argument("key")

    scan = store_command(
        group,
        "scan",
        run_scan,
        creates=False,
        help="print key<TAB>value lines for keys from --start (inclusive) to --end (exclusive)",
        description="Print key<TAB>value lines for keys from --start (inclusive) to --end (exclusive), "
        "values as kv serve's clients see them: a hash (HSET) as a JSON object of its fields, a key "
        "with a time to live followed by <TAB>expires and the time (UTC), an expired key not at all. "
        "One line per key: in keys and values, a backslash, tab, newline and carriage return are "
        "written \\\\, \\t, \\n and \\r, other control characters and bytes that are not UTF-8 "
        "\\xNN, Unicode line separators \\uNNNN (--hex writes hexadecimal, which needs none).",
    )
    scan.add_argument("--start", help="first key (default: the smallest)")
    scan.add_argument("--end", help="stop before this key (default: after the largest)")
    scan.add_argument("--limit", type=whole, metavar="N", help="print at most N pairs")

    stats = store_command(
        group,
        "stats",
        run_stats,
        creates=False,
        keys=False,
        help="tables per level, bands in use and free, space the store takes",
    )
    stats.add_argument(
        "--json",
        action="store_true",
        help="print JSON: counters since opening, each level's tables and bytes, every table's level, band, "
        "bytes, entries and key range",
    )

    bench = store_command(
        group,
        "bench",
        run_bench,
        keys=False,
        help="db_bench-like workloads on a store: ops/s, MB/s, write amplification, disk time",
        description="Runs db_bench-like workloads, in order, on the store (use a new folder for a clean "
        "run): fillseq (keys in order), fillrandom and overwrite (uniformly random keys), "
        "readrandom (gets of random keys), readseq (the whole store in key order).",
    )
    bench.add_argument(
        "--workloads",
        default="fillrandom,readrandom,readseq",
        help=f"comma-separated, from: {', '.join(WORKLOADS)} (default fillrandom,readrandom,readseq)",
    )
    bench.add_argument(
        "--count",
        type=count,
        default=100_000,
        metavar="N",
        help="operations per workload, and the key space (default 100000); refused when the fill workloads "
        "would write more than the store's device holds or its file system has free",
    )
    bench.add_argument(
        "--value-size",
        default="1KiB",
        metavar="SIZE",
        help=f"bytes per value, at most {MAX_BENCH_VALUE >> 20}MiB (default 1KiB)",
    )
    bench.add_argument(
        "--sync-every", type=whole, default=0, metavar="K", help="sync every K-th put (default 0: never)"
    )
    bench.add_argument(
        "--disk",
        metavar="PRESET",
        help="also time every device command on this HDD preset (e.g. desktop7200, the thesis's 7200 rpm disk)",
    )
    bench.add_argument(
        "--inline",
        action="store_true",
        help="compact in the writing thread (deterministic device commands, for --disk)",
    )
    bench.add_argument("--seed", type=seed, default=1, help="seed of keys and values (default 1)")
    bench.add_argument("--json", action="store_true", help="print JSON")

    ycsb = group.add(
        "ycsb",
        help="run a YCSB core workload (a-f) with realistic arrivals against a store or a Redis-protocol server",
        description="Loads --records records, then issues one operation of YCSB workload --workload per arrival of "
        "the arrival process, open loop: a master issues each at its scheduled time to the first free "
        "of --threads workers, and latency counts from the scheduled time. Runs against a store folder "
        "(created if missing), a store in memory on a paced --disk model, or --server host:port.",
    )
    ycsb.add_argument("store", nargs="?", help="store folder (not with --server or --disk)")
    ycsb.add_argument("--server", metavar="HOST:PORT", help="run against this Redis-protocol server instead")
    ycsb.add_argument(
        "--server-timeout",
        type=bounded_number(0.001, workload._core.MAX_SERVER_TIMEOUT_S),
        metavar="SECONDS",
        help=f"with --server: seconds it may take to accept a connection, take a request or answer one, past "
        f"which the connection is given up (default {workload._core.SERVER_TIMEOUT_S:g}; 0.001 to "
        f"{workload._core.MAX_SERVER_TIMEOUT_S:g})",
    )
    ycsb.add_argument(
        "--workload", default="a", choices=["a", "b", "c", "d", "e", "f"], help="YCSB core workload (default a)"
    )
    ycsb.add_argument(
        "--records", type=count, default=1000, help="records loaded first, YCSB's recordcount (default 1000)"
    )
    ycsb.add_argument(
        "-p",
        "--property",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a YCSB property, e.g. -p requestdistribution=uniform (repeatable)",
    )
    ycsb.add_argument("--threads", type=YCSB_THREADS, default=8, help="executor workers (default 8)")
    ycsb.add_argument("--no-load", action="store_true", help="skip loading (the store holds the records already)")
    ycsb.add_argument("--log", metavar="FILE", help="write every request (scheduled, start, end ns; op; ok) as CSV")
    ycsb.add_argument("--json", action="store_true", help="print JSON")
    store_options = add_workload_store_arguments(ycsb, "the store the run makes or opens (not with --server)")
    store_options.add_argument("--sync", action="store_true", help="sync every write to the store")
    add_arrival_arguments(ycsb, rate_default=1000, duration_default=10)
    ycsb.set_defaults(
        func=run_ycsb,
        store_options=[(action.option_strings[0], action.dest) for action in store_options._group_actions],
    )

    serve = group.add(
        "serve",
        help="serve a store over the Redis protocol (RESP2, RESP3 after HELLO 3) until SIGTERM or SIGINT",
        description=SERVE_DESCRIPTION,
    )
    serve.add_argument("store", nargs="?", help="store folder (created if missing; not with --disk)")
    serve.add_argument("--path", dest="path", help=argparse.SUPPRESS)  # the older spelling of STORE
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument(
        "--port", type=bounded_whole(0, 65535), default=6379, help="port (default 6379; 0: any free port)"
    )
    serve.add_argument(
        "--max-bulk",
        default="16MiB",
        metavar="SIZE",
        help="largest key or value a client may send; larger is refused before it is read (default 16MiB)",
    )
    serve.add_argument("--sync", action="store_true", help="sync every write before replying")
    serve.add_argument(
        "--threads",
        type=SERVER_THREADS,
        default=2,
        help="threads of the server's runtime, which run the commands (default 2)",
    )
    add_workload_store_arguments(serve, "the store served")
    serve.set_defaults(func=run_serve)
    commands.summarise("kv", "SMRDB, the key-value store on zoned SMR bands")
