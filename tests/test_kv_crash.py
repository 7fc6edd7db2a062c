"""SMRDB survives a crash at any point: a writer process is killed with SIGKILL at random
moments (while writing, syncing, flushing, compacting or recovering), then the store is reopened
and checked against the writer's own log of what it did.

What must hold after every kill: the store opens; its contents are exactly the state after some
prefix of the writer's operations that includes every operation acknowledged as synced (writes
not synced may be lost, but only from the end, and nothing torn or half-applied is visible: a
batch is all there or not at all); and no band is leaked (every band is a table, the log, or
free).

Kill points: 200 per run by default (about a minute on 2 cores), split between an SOC and a
LOC store. Set SMRLAB_KV_CRASH_POINTS for a longer run, e.g. SMRLAB_KV_CRASH_POINTS=5000.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time

import pytest
from smrlab.kv import DB

# Kills in all, half per compaction scheme: 120 in make test (about 30 s of one core), 2,000 in
# make test-long (SMRLAB_KV_CRASH_POINTS).
KILL_POINTS = int(os.environ.get("SMRLAB_KV_CRASH_POINTS", "120"))

# Small bands so that a short run flushes, compacts and moves bands many times.
STORE_OPTIONS = dict(
    band_size=64 * 1024,
    capacity=64 * 1024 * 100,
    histogram_bytes=128,
    max_key_len=64,
    max_value_len=8192,
    block_size=1024,
    log_buffer=4096,
    l1_overlap_trigger=4,
)

# The writer: derives its operations from a seed, and around each one appends a line to its
# journal: the operation before it starts, its number once the store acknowledged it.
WRITER = r"""
import json, os, random, sys
from smrlab.kv import DB
path, journal, seed, compaction, options = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], json.loads(sys.argv[5])
fd = os.open(journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
rng = random.Random(seed)
db = DB(path, compaction=compaction, **options)
os.write(fd, b'{"open": true}\n')
i = 0
while True:
    op = rng.choice(["put"] * 6 + ["delete", "batch"])
    sync = rng.random() < 0.3
    if op == "batch":
        entries = [[rng.randrange(400), rng.choice([None, rng.randrange(3000)])] for _ in range(rng.randrange(1, 12))]
    else:
        entries = [[rng.randrange(400), None if op == "delete" else rng.randrange(3000)]]
    os.write(fd, (json.dumps({"i": i, "op": op, "entries": entries, "sync": sync}) + "\n").encode())
    pairs = [(b"k%05d" % k, None if n is None else (b"%d:%d:" % (seed, i)) * 1 + b"v" * n) for k, n in entries]
    if op == "put":
        db.put(pairs[0][0], pairs[0][1], sync)
    elif op == "delete":
        db.delete(pairs[0][0], sync)
    else:
        db.write_batch(pairs, sync)
    os.write(fd, (json.dumps({"ack": i}) + "\n").encode())
    i += 1
"""


def value_of(seed: int, index: int, length: int) -> bytes:
    return b"%d:%d:" % (seed, index) + b"v" * length


def read_journal(path) -> tuple[list[dict], set[int]]:
    """The operations the writer started, in order, and the numbers it saw acknowledged. A
    last line cut short by the kill is ignored."""
    ops, acked = [], set()
    with open(path) as f:
        for line in f:
            try:
                entry = json.loads(line)
            except json.JSONDecodeError:
                continue
            if "op" in entry:
                ops.append(entry)
            elif "ack" in entry:
                acked.add(entry["ack"])
    return ops, acked


def apply(state: dict, seed: int, op: dict) -> list[bytes]:
    """Applies one operation to a model state; returns the keys it touched."""
    touched = []
    for k, n in op["entries"]:
        key = b"k%05d" % k
        if n is None:
            state.pop(key, None)
        else:
            state[key] = value_of(seed, op["i"], n)
        touched.append(key)
    return touched


def check_prefix(base: dict, seed: int, ops: list[dict], acked: set[int], found: dict) -> int:
    """The number of operations whose effect the store shows; fails unless the store equals
    the state after some prefix of ``ops`` that holds every synced acknowledged operation."""
    must = max((op["i"] + 1 for op in ops if op["sync"] and op["i"] in acked), default=0)
    state = dict(base)
    for op in ops[:must]:
        apply(state, seed, op)
    keys = set(state) | set(found)
    differ = {k for k in keys if state.get(k) != found.get(k)}
    applied = must
    while differ:
        if applied >= len(ops):
            sample = sorted(differ)[:5]
            details = [(k, state.get(k, b"<absent>")[:24], found.get(k, b"<absent>")[:24]) for k in sample]
            pytest.fail(
                f"after the kill the store matches no prefix of at least {must} operations "
                f"(of {len(ops)} started): {len(differ)} keys differ, e.g. {details}"
            )
        for key in apply(state, seed, ops[applied]):
            if state.get(key) == found.get(key):
                differ.discard(key)
            else:
                differ.add(key)
        applied += 1
    return applied


def reopen_and_check(path, compaction) -> dict:
    """Opens the store as recovery leaves it, checks no band is leaked, returns its contents."""
    with DB(path, compaction=compaction, background=False, **STORE_OPTIONS) as db:
        stats = db.stats()
        tables = sum(count for count, _ in stats["levels"])
        assert stats["free_bands"] + tables + 1 == stats["bands"], f"bands leaked: {stats}"
        found = {}
        it = db.scan()
        while batch := it.next_batch(1000):
            found.update(batch)
    return found


@pytest.mark.parametrize("compaction", ["soc", "loc"])
def test_sigkill_at_random_points_loses_no_synced_write(tmp_path, compaction):
    points = (KILL_POINTS + 1) // 2
    path = tmp_path / "store"
    rng = random.Random(f"kill-{compaction}")
    state: dict = {}
    options = json.dumps(STORE_OPTIONS)
    applied_total = synced_total = 0
    for point in range(points):
        journal = tmp_path / f"journal-{point}"
        seed = point + 1
        journal.touch()
        writer = subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), str(journal), str(seed), compaction, options],
            stderr=subprocess.PIPE,
        )
        # Some kills land while the writer starts or recovers, most while it writes.
        time.sleep(rng.choice([rng.uniform(0.0, 0.15), rng.uniform(0.15, 0.6)]))
        writer.send_signal(signal.SIGKILL)
        _, stderr = writer.communicate()
        assert writer.returncode == -signal.SIGKILL, f"the writer died by itself: {stderr.decode()[-2000:]}"
        ops, acked = read_journal(journal)
        found = reopen_and_check(path, compaction)
        applied = check_prefix(state, seed, ops, acked, found)
        state = found
        applied_total += applied
        synced_total += sum(1 for op in ops if op["sync"] and op["i"] in acked)
        journal.unlink()
    print(f"{compaction}: {points} kills, {applied_total} operations survived, {synced_total} acknowledged as synced")
    # The run must have exercised something: many writes survived, many of them synced.
    assert applied_total > points * 5 and synced_total > points, (applied_total, synced_total)
