"""Key-value experiment cells (``kind = "kv"``): the file layout rule worked by hand, the strace
parser on hand-written lines, YCSB's operation stream as the stores see it, SMRDB's modelled
cells bit for bit, the peers' traced runs, and bad files refused in one line."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest
from smrlab.errors import UsageError
from smrlab.experiment.kv import capture, ycsb
from smrlab.experiment.kv.filelayout import BLOCK, DATA_START, JOURNAL_COMMIT, JOURNAL_START, READ_AHEAD, lay_out
from smrlab.experiment.kv.spec import parse


def accesses(disk):
    return list(zip(disk.writes, disk.offsets, disk.lengths))


def test_files_are_placed_first_fit_and_written_back_at_sync_with_a_journal_commit():
    events = [
        ("create", 1),
        ("write", 1, 0, 10000),
        ("create", 2),
        ("write", 2, 0, 4096),
        ("sync", 1),  # file 1: 3 dirty blocks, and it grew: a journal commit
        ("write", 1, 10000, 100),
        ("sync", 1),  # the partial last block again; grew again
        ("sync", 1),  # nothing dirty, no growth: nothing
        ("delete", 2),  # never synced: never written, its extent freed
        ("create", 3),
        ("write", 3, 0, 4096),
        ("phase", 0),
    ]
    disk = lay_out(events)
    one, three = DATA_START, DATA_START + 3 * BLOCK  # file 1 takes 3 blocks (10100 bytes); 2's block is reused by 3
    assert accesses(disk) == [
        (1, one, 3 * BLOCK),
        (1, JOURNAL_START, JOURNAL_COMMIT),
        (1, one + 2 * BLOCK, BLOCK),
        (1, JOURNAL_START + JOURNAL_COMMIT, JOURNAL_COMMIT),
        (1, three, BLOCK),  # the end flushes what is still dirty
    ]
    assert disk.phase_starts == [4] and disk.journal_commits == 2


def test_reads_of_dirty_blocks_stay_in_memory_and_sequential_reads_read_ahead():
    size = 1 << 20
    events = [
        ("create", 1),
        ("write", 1, 0, size),
        ("sync", 1),
        ("write", 1, 0, BLOCK),  # block 0 dirty again
        ("read", 1, 0, BLOCK),  # from memory
        ("read", 1, BLOCK, BLOCK),  # continues the last read: a read-ahead window
        ("read", 1, 2 * BLOCK, BLOCK),  # inside the window: no access
        ("read", 1, 100 * BLOCK, BLOCK),
    ]  # a jump: just that block
    disk = lay_out(events)
    reads = [(o - DATA_START, n) for w, o, n in accesses(disk) if not w]
    assert reads == [(BLOCK, READ_AHEAD), (100 * BLOCK, BLOCK)]
    # Reads that are not page-aligned (a table's blocks plus their trailers) stay sequential:
    # each starts in the page where the last one ended.
    events = [("create", 1), ("write", 1, 0, size), ("sync", 1)] + [("read", 1, i * 4101, 4101) for i in range(64)]
    reads = [(o - DATA_START, n) for w, o, n in accesses(lay_out(events)) if not w]
    assert reads == [(0, READ_AHEAD), (READ_AHEAD, READ_AHEAD), (2 * READ_AHEAD, READ_AHEAD)]


def test_a_file_outgrowing_the_dirty_limit_is_written_back_in_block_order():
    events = [("create", 1), ("write", 1, 8 * BLOCK, BLOCK), ("write", 1, 0, 2 * BLOCK)]
    disk = lay_out(events, dirty_limit=2 * BLOCK)
    assert accesses(disk) == [(1, DATA_START, 2 * BLOCK), (1, DATA_START + 8 * BLOCK, BLOCK)]


STRACE = """\
10 openat(AT_FDCWD</w>, "/s/000003.log", O_WRONLY|O_CREAT|O_TRUNC, 0644) = 6</s/000003.log>
10 write(6</s/000003.log>, ""..., 4142) = 4142
10 lseek(3</dev/null>, 7000000001, SEEK_SET) = 0
11 pread64(7</s/000005.ldb>,  <unfinished ...>
10 write(6</s/000003.log>, ""..., 100) = 100
11 <... pread64 resumed>""..., 4096, 8192) = 4096
10 fdatasync(6</s/000003.log>) = 0
10 openat(AT_FDCWD</w>, "/s/LOG", O_WRONLY|O_APPEND|O_CREAT, 0644) = 8</s/LOG>
10 write(8</s/LOG>, ""..., 50) = 50
10 openat(AT_FDCWD</w>, "/elsewhere/x", O_RDONLY) = 9</elsewhere/x>
10 read(9</elsewhere/x>, ""..., 50) = 50
10 renameat(AT_FDCWD</w>, "/s/000003.log", 5</s>, "old.log") = 0
10 unlinkat(5</s>, "old.log", 0) = 0
10 pwrite64(7</s/000005.ldb>, ""..., 10, 20) = 10
"""


def test_strace_lines_become_file_events_of_the_store_folder_only():
    events = capture.file_events(STRACE.splitlines(True), Path("/s"))
    assert events == [
        ("create", 1),
        ("write", 1, 0, 4142),
        ("phase", 1),
        ("write", 1, 4142, 100),
        ("create", 2),
        ("read", 2, 8192, 4096),
        ("sync", 1),
        ("create", 3),
        ("write", 3, 0, 50),
        ("delete", 1),
        ("write", 2, 20, 10),
    ]


class Recorder:
    """A store that records what YCSB asks of it."""

    def __init__(self):
        self.data, self.calls = {}, []

    def put(self, key, value, sync):
        self.calls.append(("put", key))
        self.data[key] = value

    def get(self, key):
        self.calls.append(("get", key))
        return self.data.get(key)

    def scan(self, start, count):
        self.calls.append(("scan", start))
        return count


def test_ycsb_phases_issue_the_workloads_mix_on_loaded_records():
    state = ycsb.State({"records": 500, "operations": 2000, "value_size": 100}, seed=3)
    store = Recorder()
    assert ycsb.run_phase(store, state, "load", 1, False) == 500
    assert len(store.data) == 500 and all(len(v) == 100 for v in store.data.values())
    store.calls.clear()
    ycsb.run_phase(store, state, "a", 1, False)
    gets = sum(1 for c in store.calls if c[0] == "get")
    assert 900 < gets < 1100 and len(store.calls) == 2000  # A: 50 % reads, 50 % updates
    assert all(key in store.data for _, key in store.calls)  # only loaded records
    store.calls.clear()
    ycsb.run_phase(store, state, "d", 1, False)  # D inserts new records
    assert len(store.data) > 500 and state.loaded == len(store.data)
    # The same seed gives every store the same stream, whatever the threads.
    again = Recorder()
    twin = ycsb.State({"records": 500, "operations": 2000, "value_size": 100}, seed=3)
    ycsb.run_phase(again, twin, "load", 4, False)
    ycsb.run_phase(again, twin, "a", 4, False)
    first = Recorder()
    one = ycsb.State({"records": 500, "operations": 2000, "value_size": 100}, seed=3)
    ycsb.run_phase(first, one, "load", 1, False)
    ycsb.run_phase(first, one, "a", 1, False)
    assert sorted(again.calls) == sorted(first.calls)


KV = """
kind = "kv"
name = "tiny"
metrics = ["fillrandom_ops_per_s", "readseq_ops_per_s", "write_amplification"]
[[traces]]
name = "random"
phases = ["fillrandom", "readseq", "readrandom"]
count = 3000
value_size = 1024
[params]
band_size = "256KiB"
[[systems]]
label = "soc"
system = "smrdb-soc"
params = { l1_overlap_trigger = [2, 4] }
"""


def run_rows(text, tmp_path, jobs=1):
    from smrlab import orchestrator

    path = tmp_path / "kv.toml"
    path.write_text(text)
    summary = orchestrator.run(parse(tomllib.loads(text), path), out=tmp_path / "results", jobs=jobs)
    return summary.rows


def test_smrdb_modelled_cells_give_the_same_numbers_every_run(tmp_path):
    first, second = run_rows(KV, tmp_path), run_rows(KV, tmp_path)
    assert [r["error"] for r in first] == [None, None]
    assert first == [dict(r, cell=f["cell"]) for r, f in zip(second, first)]
    low, high = first
    # A lower level 1 trigger keeps level 1 shallower, so gets search fewer tables.
    assert low["l1_depth"] <= 1 < high["l1_depth"] <= 3
    assert low["searched_per_get"] < high["searched_per_get"]
    assert all(r["fillrandom_s"] > 0 and r["readseq_ops_per_s"] > 0 for r in first)


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed (apt-get install strace)")
@pytest.mark.parametrize("system", ["leveldb", "rocksdb"])
def test_a_traced_peer_writes_at_least_its_data_and_reads_through_system_calls(tmp_path, system):
    text = KV.replace('system = "smrdb-soc"', f'system = "{system}"').replace(
        "params = { l1_overlap_trigger = [2, 4] }", ""
    )
    text = text.replace("count = 3000", "count = 4000")
    [row] = run_rows(text, tmp_path)
    assert row["error"] is None
    user = 4000 * (16 + 1024)
    assert row["disk_write_bytes"] >= user, "every put reaches the disk at least once (its log)"
    assert row["disk_reads"] > 0, "reads of flushed tables are seen as system calls"
    # The random reads' disk time may be 0: 4,000 records of 1 KiB fit the peer's memtable and
    # 8 MiB block cache, so whether any read reaches the traced files depends on when the
    # peer's background thread flushed (it failed 2 of 3 runs on a loaded two-core machine).
    assert row["fillrandom_s"] > 0 and row["readrandom_s"] >= 0


@pytest.mark.parametrize(
    "change, message",
    [
        (('system = "smrdb-soc"', 'system = "lmdb"'), "system 'lmdb' is none of"),
        (('"readrandom"]', '"readrandom", "scanall"]'), "'scanall' is none of"),
        (("params = { l1_overlap_trigger", "params = { levels_x"), "takes no parameter 'levels_x'"),
        (('band_size = "256KiB"', 'setting = "cloud"'), "setting must be one of"),
        (("count = 3000", "count = -3"), "traces.count must be a whole number"),
    ],
)
def test_bad_kv_files_are_refused_naming_the_key(tmp_path, change, message):
    text = KV.replace(*change)
    with pytest.raises(UsageError, match=message):
        parse(tomllib.loads(text), tmp_path / "kv.toml")


def test_smrlab_run_refuses_a_bad_kv_file_in_one_line(cli, tmp_path):
    path = tmp_path / "kv.toml"
    path.write_text(KV.replace('system = "smrdb-soc"', 'system = "lmdb"'))
    done = cli("run", path, "--out", tmp_path / "r")
    assert done.returncode == 2 and "lmdb" in done.stderr and "Traceback" not in done.stderr


OFFLOAD = """
kind = "kv"
name = "offload"
[[traces]]
name = "poisson"
steps = [{ name = "insert", workload = "insert", process = "poisson", rate = 3000, duration = 1.5 },
         { name = "scan", workload = "e", process = "constant", rate = 1000000, duration = 0.3 }]
[params]
band_size = "1MiB"
capacity = "1GiB"
buffer_bands = "2,2,4"
threads = 4
[[systems]]
label = "none"
system = "smrdb-offload"
params = { offload = "none" }
[[systems]]
label = "nvram"
system = "smrdb-offload"
params = { offload = "nvram" }
[[systems]]
label = "disk"
system = "smrdb-offload"
params = { offload = "disk", offload_delay_us = 10, value_size = 4096 }
"""


def test_offloading_cells_run_steps_of_arrivals_on_the_paced_disk(tmp_path):
    rows = {r["label"]: r for r in run_rows(OFFLOAD, tmp_path)}
    assert [r["error"] for r in rows.values()] == [None, None, None]
    assert rows["none"]["offloaded_pct"] == 0, "without offloading nothing reaches the NVRAM device"
    for r in rows.values():
        assert r["insert_ops_per_s"] > 0 and r["scan_ops_per_s"] > 0
        assert r["compaction_rewritten_pct"] > 0, "6 MB of inserts over 2-band buffer levels compact"
        assert r["insert_unissued"] >= 0 and r["insert_p99_ms"] > 0


@pytest.mark.parametrize(
    "change, message",
    [
        (('workload = "insert"', 'workload = "g"'), "workload 'g' is none of"),
        (("rate = 3000", "rate = -1"), "rate must be a positive number"),
        (('process = "poisson"', 'process = "bursty"'), "process 'bursty' is none of"),
        (('name = "scan", ', ""), "needs 'name'"),
        (
            ('system = "smrdb-offload"\nparams = { offload = "none" }', 'system = "smrdb-soc"'),
            "cannot run on smrdb-soc",
        ),
    ],
)
def test_bad_steps_are_refused_naming_the_key(tmp_path, change, message):
    with pytest.raises(UsageError, match=message):
        parse(tomllib.loads(OFFLOAD.replace(*change, 1)), tmp_path / "kv.toml")


@pytest.mark.parametrize(
    "params, message",
    [
        ('offload = "tape"', "offload 'tape' is none of nvram, disk, none"),
        ('offload = "nvram", offload_delay_us = -1', "offload_delay_us must be microseconds from 0 to 1,000,000"),
        ('offload = "nvram", offload_delay_us = "soon"', "offload_delay_us must be microseconds"),
        ('offload = "nvram", value_size = 0', "value_size must be 1 to 65,536 bytes"),
        ('offload = "nvram", buffer_bands = "2,0,4"', "buffer_bands: a buffer level holds 1 to"),
        ('offload = "nvram", buffer_bands = "2,2"', "buffer_bands must be 3 whole numbers"),
        ("threads = 0", "threads: '0' is not a whole number from 1 to"),
        ("threads = 18446744073709551616", "threads: '18446744073709551616' is not a whole number"),
    ],
)
def test_a_bad_offloading_parameter_is_refused_before_any_cell_runs(tmp_path, params, message):
    # The good store's cells would run first (a paced second and a half each): the bad one is
    # found by opening each store in memory before any cell starts.
    one = OFFLOAD.split("[[systems]]", 2)
    one = (
        one[0]
        + "[[systems]]"
        + one[1]
        + f'[[systems]]\nlabel = "bad"\nsystem = "smrdb-offload"\nparams = {{ {params} }}\n'
    )
    with pytest.raises(UsageError, match=f"kv.toml: systems.bad: .*{message}"):
        run_rows(one, tmp_path)
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    "change, message",
    [
        # Neither process can get its required parameters (bias; shape) from a step.
        # Named by the keyword and the process as the file spells it, never by Table 4.1's ss.bias.
        (
            ('process = "poisson"', 'process = "selfsimilar"'),
            r"step 'insert': bias \(the b-model's bias, .*; a share\): needed by process 'selfsimilar', and not given$",
        ),
        (('process = "poisson"', 'process = "diurnal"'), "step 'insert': shape .*: needed by process 'diurnal'"),
        (("rate = 3000", "rate = 1e12"), "step 'insert': .* is over 2e7 arrivals"),
    ],
)
def test_a_step_no_arrival_process_can_give_is_refused_before_any_cell_runs(tmp_path, change, message):
    with pytest.raises(UsageError, match=f"kv.toml: traces.poisson: {message}"):
        run_rows(OFFLOAD.replace(*change, 1), tmp_path)
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize(
    "params, message",
    [
        ("threads = 0", "threads: '0' is not a whole number"),
        ("capacity = 18446744073709551617", "capacity: '18446744073709551617' is out of range"),
        ("l0_compaction_trigger = [4, 0]", "l0_compaction_trigger: triggers 0"),
        ('sync = "maybe"', "sync: 'maybe' is not true or false"),
        ('disk = "floppy"', "unknown disk 'floppy'"),
    ],
)
def test_a_bad_store_parameter_is_refused_before_any_cell_runs(tmp_path, params, message):
    text = KV.replace('band_size = "256KiB"', f'band_size = "256KiB"\n{params}')
    with pytest.raises(UsageError, match=f"kv.toml: systems.soc: .*{message}"):
        run_rows(text, tmp_path)
    assert not (tmp_path / "results").exists()


@pytest.mark.parametrize("given, hits", [({}, 4), ({"block_cache": "0"}, 0)])
def test_smrdb_cells_keep_the_peers_block_cache(tmp_path, given, hits):
    # §3.3.3: SMRDB and LevelDB ran with "the same default 8 MB cache"; a cell gives SMRDB the
    # block cache it gives plyvel's lru_cache_size and rocksdict's block cache.
    from smrlab.experiment.kv.stores import BLOCK_CACHE, open_store

    assert BLOCK_CACHE == 8 << 20
    store = open_store("smrdb-soc", tmp_path, {"band_size": "256KiB", **given}, modelled=True)
    try:
        for i in range(400):
            store.put(b"key%05d" % i, bytes(2000), False)
        store.settle()
        for _ in range(5):
            assert store.get(b"key00123") == bytes(2000)
        assert store.stats()["block_cache_hit_rate"] == hits / 5
    finally:
        store.close()
