"""Differential test: SMRDB and LevelDB (through plyvel) take the same random sequence of puts,
deletes, batches and reopens, and answer every get and scan alike."""

from __future__ import annotations

import random

import plyvel
import pytest
from smrlab.kv import DB

SMALL = dict(
    band_size="64KiB",
    capacity="8MiB",
    block_size=1024,
    log_buffer=4096,
    l0_compaction_trigger=2,
    l0_slowdown_trigger=3,
    l0_stop_trigger=4,
    l1_overlap_trigger=3,
)


def leveldb_scan(db, start, end):
    return list(db.iterator(start=start, stop=end))


@pytest.mark.parametrize("compaction,seed", [("soc", 1), ("loc", 2), ("soc", 3)])
def test_scans_and_gets_equal_leveldb_on_the_same_operations(tmp_path, compaction, seed):
    rng = random.Random(seed)
    level = plyvel.DB(str(tmp_path / "leveldb"), create_if_missing=True)
    smr = DB(tmp_path / "smrdb", compaction=compaction, **SMALL)
    key = lambda: b"k%04d" % rng.randrange(800)
    scans = 0
    try:
        for step in range(6000):
            roll = rng.random()
            if roll < 0.55:
                k, v = key(), rng.randbytes(rng.randrange(0, 700))
                level.put(k, v)
                smr.put(k, v)
            elif roll < 0.7:
                k = key()
                level.delete(k)
                smr.delete(k)
            elif roll < 0.78:
                ops = [
                    (key(), rng.choice([None, rng.randbytes(rng.randrange(50))])) for _ in range(rng.randrange(1, 10))
                ]
                with level.write_batch() as wb:
                    for k, v in ops:
                        wb.delete(k) if v is None else wb.put(k, v)
                smr.write_batch(ops)
            elif roll < 0.95:
                k = key()
                assert smr.get(k) == level.get(k), (step, k)
            elif roll < 0.999:
                a, b = sorted([key(), key()])
                assert list(smr.scan(a, b)) == leveldb_scan(level, a, b), step
                scans += 1
            else:
                smr.close()
                smr = DB(tmp_path / "smrdb")
        assert list(smr.scan()) == leveldb_scan(level, None, None)
        assert scans > 100 and len(smr.tables()) >= 3, "the data lies in bands, not only in the memtable"
    finally:
        smr.close()
        level.close()
