"""The Python API of SMRDB (``smrlab.kv.DB``): reads after writes, batches, scans, reopening,
compaction, statistics, simulated disk time, and the typed errors a user can cause."""

from __future__ import annotations

import random
import threading

import pytest
from smrlab.errors import SmrlabError
from smrlab.kv import (
    DB,
    KvClosedError,
    KvCorruptionError,
    KvLimitError,
    KvLockedError,
    KvParameterError,
    SmrdbAdapter,
    run_workload,
)

SMALL = dict(band_size="64KiB", capacity="8MiB", histogram_bytes=128, max_key_len=64, block_size=1024, log_buffer=4096)


def contents(db: DB, start=None, end=None) -> list[tuple[bytes, bytes]]:
    return list(db.scan(start, end))


@pytest.mark.parametrize("compaction", ["soc", "loc"])
def test_reads_match_a_dict_through_flushes_compactions_and_reopening(tmp_path, compaction):
    rng = random.Random(5)
    model: dict[bytes, bytes] = {}
    with DB(tmp_path / "s", compaction=compaction, **SMALL) as db:
        for _ in range(5000):
            key = b"key%05d" % rng.randrange(1200)
            if rng.random() < 0.1:
                db.delete(key)
                model.pop(key, None)
            else:
                value = rng.randbytes(rng.randrange(0, 400))
                db.put(key, value)
                model[key] = value
        db.write_batch([(b"key00001", b"batched"), (b"key00002", None), (b"zzz", b"last")])
        model.update({b"key00001": b"batched", b"zzz": b"last"})
        model.pop(b"key00002", None)
        db.wait_idle()
        stats = db.stats()
        assert stats["flushes"] > 5 and stats["compactions"] + stats["moves"] > 0, stats
        assert all(db.get(k) == v for k, v in model.items())
        assert db.get(b"absent") is None
        assert contents(db) == sorted(model.items())
        assert contents(db, b"key00100", b"key00200") == sorted(
            (k, v) for k, v in model.items() if b"key00100" <= k < b"key00200"
        )
    with DB(tmp_path / "s") as db:
        assert contents(db) == sorted(model.items()), "reopened without stating the recorded parameters"
        assert db.stats()["scheme"] == compaction


def test_a_scan_sees_the_store_as_it_was_when_it_began():
    with DB(None, **SMALL) as db:
        for i in range(3000):
            db.put(b"k%05d" % i, b"old")
        scan = db.scan()
        first = scan.next_batch(10)
        for i in range(3000):
            db.put(b"k%05d" % i, b"new" * 50)
        db.delete(b"k02999")
        db.compact()
        rest = first + [pair for pair in scan]
        assert len(rest) == 3000 and all(v == b"old" for _, v in rest)
        assert db.get(b"k00000") == b"new" * 50 and db.get(b"k02999") is None


def flattened(batches) -> list[tuple[bytes, bytes]]:
    pairs = []
    for keys, values in batches:
        assert keys and len(keys) == len(values), "a batch is never empty and pairs keys with values"
        pairs.extend(zip(keys, values))
    return pairs


# Small bands (many flushes) and 1 MiB bands with values up to 120 KB; either way a batch of 1024
# pairs ends early, at 256 KiB of keys and values. Small values average 600 bytes, so about
# 2.5 MB stay live in the 8 MiB store: with 1 KB on average it could fill while a background
# compaction still held its inputs (the store then refuses writes, as it should, but this test
# is about scans).
@pytest.mark.parametrize("compaction", ["soc", "loc"])
@pytest.mark.parametrize(
    "options, writes, largest",
    [(SMALL, 2500, 1200), (dict(band_size="1MiB", capacity="96MiB"), 300, 120_000)],
    ids=["small-values", "large-values"],
)
def test_batched_scans_return_exactly_the_pairs_of_pair_by_pair_scans(tmp_path, compaction, options, writes, largest):
    rng = random.Random(9)
    model: dict[bytes, bytes] = {}
    with DB(tmp_path / "s", compaction=compaction, **options) as db:
        for round in range(4):
            for _ in range(writes):
                key = b"k%05d" % rng.randrange(writes * 2)
                if rng.random() < 0.2:
                    db.delete(key)
                    model.pop(key, None)
                else:
                    model[key] = rng.randbytes(rng.randrange(largest))
                    db.put(key, model[key])
            bounds = [(None, None), (b"k00100", b"k00400"), (b"k%05d" % writes, None), (None, b"k"), (b"zzz", None)]
            for start, end in bounds:
                expected = sorted(
                    (k, v) for k, v in model.items() if (start is None or k >= start) and (end is None or k < end)
                )
                assert list(db.scan(start, end)) == expected, (round, start, end)
                for size in (1, 7, 1024):
                    assert flattened(db.scan_batches(start, end, size)) == expected, (round, start, end, size)
        assert db.stats()["flushes"] >= 3, "the writes crossed several flushes"
        # Values of 600 bytes on average and more: 256 KiB of them ends a batch before 1024 pairs.
        first_keys, _ = next(db.scan_batches(size=1024))
        assert len(first_keys) < min(1024, len(model))
        # next_batch(n), by contrast, returns n pairs wherever the scan goes on.
        assert db.scan().next_batch(1024) == sorted(model.items())[:1024]
        # A scan may mix the ways: pairs one at a time, then lists of pairs, then batches.
        it = db.scan()
        mixed = [next(it), next(it)] + it.next_batch(5)
        while True:
            keys, values = it.next_columns(3)
            if not keys:
                break
            assert len(keys) <= 3
            mixed.extend(zip(keys, values))
        assert mixed == sorted(model.items())
        with pytest.raises(KvParameterError):
            db.scan_batches(size=0)
        # Batches see the store as it was when scan_batches was called.
        batches = db.scan_batches(size=100)
        db.put(b"k", b"later")
        assert flattened(batches) == sorted(model.items())


def test_compact_leaves_one_sorted_run_and_writes_amplify_as_counted():
    with DB(None, **SMALL) as db:
        rng = random.Random(1)
        for _ in range(4000):
            db.put(b"%08d" % rng.randrange(10**6), b"x" * 200)
        db.compact()
        tables = db.tables()
        assert {level for level, *_ in tables} == {1}
        ranges = sorted((lo, hi) for _, _, _, _, lo, hi in tables)
        assert all(a[1] < b[0] for a, b in zip(ranges, ranges[1:])), "no two bands overlap"
        stats = db.stats()
        assert stats["device_bytes_written"] == (
            stats["log_bytes_written"]
            + stats["flush_bytes_written"]
            + stats["compaction_bytes_written"]
            + stats["metadata_bytes_written"]
        )
        assert stats["write_amplification"] == pytest.approx(stats["device_bytes_written"] / stats["user_bytes"])
        assert stats["write_amplification"] > 2, "log, flush and the full compaction each wrote the data"


def test_simulated_disk_time_is_reported_and_repeatable():
    def run():
        with DB(None, disk="desktop7200", background=False, **SMALL) as db:
            run_workload(SmrdbAdapter(db), "fillrandom", 3000, 300, seed=4)
            return db.stats()

    a, b = run(), run()
    assert a["disk_busy_ns"] > 0 and a["disk_write_bytes"] >= a["device_bytes_written"] - a["metadata_bytes_written"]
    assert a["disk_busy_ns"] == b["disk_busy_ns"], "inline compaction on simulated time gives the same time every run"


def test_workloads_count_what_they_did():
    with DB(None, **SMALL) as db:
        store = SmrdbAdapter(db)
        fill = run_workload(store, "fillseq", 2000, 100)
        assert fill.ops == 2000 and fill.user_bytes == 2000 * 116
        seq = run_workload(store, "readseq", 2000)
        assert seq.ops == 2000
        reads = run_workload(store, "readrandom", 500, 100)
        assert reads.user_bytes == 500 * 116, "every key of fillseq is found"
    with pytest.raises(KvParameterError, match="unknown workload"):
        run_workload(None, "fillsideways", 1)


def test_calls_from_threads_see_their_own_writes():
    with DB(None, **SMALL) as db:

        def writer(t):
            for i in range(500):
                db.put(b"t%d-%04d" % (t, i), b"%d" % i)
                assert db.get(b"t%d-%04d" % (t, i)) == b"%d" % i

        threads = [threading.Thread(target=writer, args=(t,)) for t in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert len(contents(db)) == 2000


def test_user_errors_are_typed_and_lose_nothing(tmp_path):
    path = tmp_path / "s"
    with DB(path, **SMALL) as db:
        db.put(b"kept", b"value", sync=True)
        with pytest.raises(KvLimitError, match="65 bytes.*max_key_len"):
            db.put(b"k" * 65, b"v")
        with pytest.raises(KvLimitError, match="max_value_len"):
            db.put(b"k", b"v" * 20000)
        with pytest.raises(KvLimitError):
            db.write_batch([(b"a", b"1"), (b"b", b"v" * 20000)])
        assert db.get(b"a") is None, "a refused batch stores nothing"
        with pytest.raises(KvLockedError, match="LOCK"):
            DB(path)
        with pytest.raises(KvParameterError, match="key must be bytes or str"):
            db.put(1, b"v")
    with pytest.raises(KvParameterError, match="band_size = 65536, not 131072"):
        DB(path, band_size="128KiB")
    with pytest.raises(KvParameterError, match="compaction = soc, not loc"):
        DB(path, compaction="loc")
    with pytest.raises(KvParameterError, match="not a scheme"):
        DB(tmp_path / "t", compaction="fifo")
    with pytest.raises(KvParameterError, match="band_size"):
        DB(tmp_path / "u", band_size="1000")
    with pytest.raises(KvParameterError, match="unknown option"):
        DB(tmp_path / "v", bloom_bits=3)
    with pytest.raises(KvParameterError, match="unknown disk"):
        DB(None, disk="floppy")
    db = DB(path)
    assert db.get(b"kept") == b"value"
    db.close()
    with pytest.raises(KvClosedError, match="closed"):
        db.get(b"kept")
    assert issubclass(KvClosedError, SmrlabError)


def test_damage_is_reported_by_band_and_the_rest_stays_readable(tmp_path):
    path = tmp_path / "s"
    with DB(path, **SMALL) as db:
        for i in range(3000):
            db.put(b"k%05d" % i, b"v" * 100)
        db.compact()
        band = db.tables()[0][1]
    # The device file: a 4 KiB header and two 4 KiB zone-state slots, then 64 KiB zones.
    with open(path / "bands", "r+b") as f:
        f.seek(3 * 4096 + band * 65536 + 1500)
        byte = f.read(1)
        f.seek(-1, 1)
        f.write(bytes([byte[0] ^ 0xFF]))
    errors, readable = [], 0
    with DB(path) as db:
        for i in range(3000):
            try:
                assert db.get(b"k%05d" % i) == b"v" * 100
                readable += 1
            except KvCorruptionError as error:
                errors.append(str(error))
    assert errors and f"band {band}" in errors[0] and "checksum" in errors[0]
    assert readable > 2900


def test_a_store_reads_as_a_mapping_with_text_keys_as_plyvel_and_shelve_users_expect(tmp_path):
    # The same operations on a dict and on the store, str keys and values encoded as UTF-8.
    model: dict[bytes, bytes] = {}
    with DB(tmp_path / "store", **SMALL) as db:
        for index in range(300):
            key, value = f"clé-{index % 97}", f"valeur-{index}"
            db[key] = value
            model[key.encode()] = value.encode()
            if index % 7 == 0:
                del db[f"clé-{index % 97}"]
                del model[f"clé-{index % 97}".encode()]
        assert all((f"clé-{i}" in db) == (f"clé-{i}".encode() in model) for i in range(97)) and "nothing" not in db
        assert b"cl\xc3\xa9-5" in db
        assert db["clé-5"] == model["clé-5".encode()]
        with pytest.raises(KeyError):
            db["nothing"]
        with pytest.raises(KeyError):
            del db["nothing"]
        assert list(db) == sorted(model) and list(db.keys()) == sorted(model)
        assert list(db.items()) == sorted(model.items()) and list(db.values()) == [model[k] for k in sorted(model)]
    assert db.closed
    with DB(tmp_path / "store", **SMALL) as db:
        assert dict(db.items()) == model


# Every way the API's arguments can be out of range or of the wrong type: each gives the typed
# error that names it, never an OverflowError, TypeError or ValueError from a conversion.
BAD_CALLS = {
    "numeric path": lambda: DB(123),
    "empty path": lambda: DB(""),
    "band_size past 2^64": lambda: DB(None, band_size=2**64),
    "capacity past 2^64": lambda: DB(None, capacity=2**64),
    "a value size past 2^64": lambda: DB(None, max_value_len=2**70),
    "slowdown of days": lambda: DB(None, slowdown_micros=10**12),
    "zero compaction trigger": lambda: DB(None, l0_compaction_trigger=0),
    "batch past 2^64": lambda: DB(None).scan().next_batch(2**64),
    "batch of a bool": lambda: DB(None).scan().next_columns(True),
    "column batch past 2^64": lambda: list(DB(None).scan_batches(size=2**64)),
    "integer key": lambda: DB(None).put(1, b"v"),
}


@pytest.mark.parametrize("call", BAD_CALLS.values(), ids=BAD_CALLS.keys())
def test_bad_arguments_are_kv_parameter_errors(call):
    with pytest.raises(KvParameterError):
        call()


def test_bench_bytes_are_the_keys_and_values_read_never_a_count_times_a_size():
    # Values of 1,000 and 0 bytes and a key of another length, read back by a benchmark told
    # values are 7 bytes: readrandom counts the keys found, and no byte for a key not there;
    # readseq counts pairs (its bytes are the store's, scanned_bytes, not pairs x 23).
    from smrlab.kv import key_of, scanned_bytes

    with DB(None, **SMALL) as db:
        db.put(key_of(0), b"x" * 1000)
        db.put(key_of(1), b"")
        db.put(b"other", b"y" * 10)
        adapter = SmrdbAdapter(db)
        scanned = run_workload(adapter, "readseq", 3, value_size=7)
        assert (scanned.ops, scanned.user_bytes, scanned.mb_per_second) == (3, None, None)
        assert scanned_bytes(db) == 16 + 1000 + 16 + 5 + 10
        assert run_workload(adapter, "readrandom", 1, value_size=7).user_bytes == 16 + 1000  # key 0
    with DB(None, **SMALL) as empty:
        assert run_workload(SmrdbAdapter(empty), "readrandom", 10).user_bytes == 0


def test_the_documented_smallest_band_makes_a_store():
    with DB(None, band_size="64KiB") as db:
        db.put(b"k", b"v")
        # 192 bands of which 2 hold the metadata: as many as a band of metadata describes.
        assert db.get(b"k") == b"v" and db.stats()["bands"] == 190
