"""YCSB's load and core workloads A-F, closed loop, against any store adapter: the thesis's
Figs. 3.16-3.17 runs (stock YCSB through MapKeeper: client threads issuing back to back).

The operations are YCSB's own, drawn in Rust (``smr_workload::ycsb``: Zipfian, latest and
uniform keys, mixes, scan lengths) from the seed, so every store gets the very same stream.
A trace's workloads run in order on one store: ``load`` inserts ``records`` records, then each
workload letter issues ``operations`` operations over the records inserted so far (D and E
insert more). Threads share the stream as YCSB's do: each takes the next operation when its
last one is done, until the stream is spent.

Not here: arrival processes and latency (the open-loop executor, ``smr-workload``'s
``executor``), the stores (``stores``).
"""

from __future__ import annotations

import itertools
import random
import threading

from smrlab import _core
from smrlab.errors import UsageError

LETTERS = ("a", "b", "c", "d", "e", "f")
# YCSB's operation kinds, in the order smr_workload numbers them.
READ, UPDATE, INSERT, SCAN, READ_MODIFY_WRITE = range(5)
LOAD_BATCH = 1000


class State:
    """What a trace's workloads share: the record count (grown by inserts), value bytes, seed."""

    def __init__(self, trace: dict, seed: int):
        self.records = int(trace.get("records", 1000))
        self.operations = int(trace.get("operations", 1000))
        self.value_size = int(trace.get("value_size", 4096))
        self.seed = seed
        self.loaded = 0
        self.values = random.Random(seed).randbytes(max(1 << 20, 2 * self.value_size))
        self.phase = 0

    def properties(self, records: int, operations: int) -> list[tuple[str, str]]:
        # One field of value_size bytes: a record is one value (smr_workload's choice).
        return [
            ("recordcount", str(records)),
            ("operationcount", str(operations)),
            ("fieldcount", "1"),
            ("fieldlength", str(self.value_size)),
        ]

    def value(self, n: int) -> bytes:
        at = (n * 97) % (len(self.values) - self.value_size)
        return self.values[at : at + self.value_size]


def run_phase(store, state: State, name: str, threads: int, sync: bool) -> int:
    """Runs ``load`` or workload ``name`` (a-f); returns the operations done."""
    state.phase += 1
    if name == "load":
        return _load(store, state, sync)
    if name not in LETTERS:
        raise UsageError(f"YCSB phase '{name}' is none of load, {', '.join(LETTERS)}")
    if state.loaded == 0:
        raise UsageError(f"YCSB workload '{name}' needs a load phase before it")
    kinds, keys, lengths = _core.ycsb_operations(
        name, state.properties(state.loaded, state.operations), state.seed + state.phase
    )
    scan_lengths = memoryview(lengths).cast("I")
    next_index = itertools.count()
    errors: list[BaseException] = []

    def worker(offset: int) -> None:
        try:
            n = offset
            while (i := next(next_index)) < len(keys):
                _execute(store, kinds[i], keys[i], scan_lengths[i], state.value(n), sync)
                n += 1
        except BaseException as error:  # reported by the caller, after every thread stopped
            errors.append(error)

    if threads == 1:
        worker(0)
    else:
        pool = [threading.Thread(target=worker, args=(t * 7919,)) for t in range(threads)]
        for t in pool:
            t.start()
        for t in pool:
            t.join()
    if errors:
        raise errors[0]
    state.loaded += sum(1 for k in kinds if k == INSERT)
    return len(keys)


def _execute(store, kind: int, key: bytes, scan_length: int, value: bytes, sync: bool) -> None:
    if kind == READ:
        store.get(key)
    elif kind in (UPDATE, INSERT):
        store.put(key, value, sync)
    elif kind == SCAN:
        store.scan(key, scan_length)
    else:
        store.get(key)
        store.put(key, value, sync)


def _load(store, state: State, sync: bool) -> int:
    """Inserts records ``loaded..records`` (YCSB's load phase, one insert per record)."""
    start, end = state.loaded, state.records
    for first in range(start, end, LOAD_BATCH):
        last = min(end, first + LOAD_BATCH)
        for n, key in enumerate(_core.ycsb_keys("a", state.properties(end, 0), first, last), first):
            store.put(key, state.value(n), sync)
    state.loaded = max(state.loaded, end)
    return end - start
