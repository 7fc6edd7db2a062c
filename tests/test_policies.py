"""Cache policies written in Python (docs/policies.md): the page's two examples, copied out of
it, count exactly as the native ``lru`` and ``lru-band`` on the bundled traces, and a Python LRU
orders HWSR's SSD read cache and MEM buffer exactly as the native one; a policy file runs from
the command line and from an experiment file serially, on local workers and on a Dask cluster
with the same rows, its hash in the cell's key and in the result's provenance; and each kind of
bad policy stops the run with its own message (the policy, the hook, the request), the user's
traceback, and no result.

Not here: the kernel's checks on every wrong answer in Rust (``policy/own.rs``), the speed
(``bench/policy_vs_libcachesim.py``)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import smrlab
from conftest import DATA, msr_line, write
from smrlab import experiment, orchestrator, policy
from smrlab.errors import PolicyError

ROOT = Path(__file__).resolve().parents[1]
EXAMPLE = re.compile(r"<!-- example: (?P<name>\S+) -->\n```python\n(?P<body>.*?)```", re.S)
# The bundled traces of the PORE paper's caches.
CACHE_TRACES = ["wdev", "mds", "ts", "usr"]


@pytest.fixture(scope="module")
def examples(tmp_path_factory) -> Path:
    """The folder holding docs/policies.md's examples, each in the file the page names."""
    folder = tmp_path_factory.mktemp("examples")
    found = EXAMPLE.findall((ROOT / "docs" / "policies.md").read_text())
    assert [name for name, _ in found] == ["lru.py", "lru_band.py"], "the page's two examples"
    for name, body in found:
        assert len(body.splitlines()) < 40, f"{name} is under 40 lines"
        (folder / name).write_text(body)
    return folder


def _head(name: str, requests: int) -> smrlab.Trace:
    """The first requests of a bundled trace, in memory (the columns' way into the core)."""
    return smrlab.Trace.from_numpy(smrlab.Trace.open(DATA / f"{name}.csv.gz").to_numpy()[:requests])


def test_the_pages_examples_count_exactly_as_the_native_policies(examples):
    for name in CACHE_TRACES:
        trace = _head(name, 25_000)  # the first quarter of each
        for native, own in [("lru", "lru.py:Lru"), ("lru-band", "lru_band.py:LruBand")]:
            runs = [smrlab.simulate("cache", trace, policy=p, cache="1%") for p in (native, f"{examples}/{own}")]
            expected, got = (r.to_dict()["report"] for r in runs)
            assert expected["counters"]["evicted_dirty_blocks"] > 0 and expected["counters"]["band_cleanings"] > 0
            assert got["counters"] == expected["counters"], f"{own} on {name}"
            assert got["total_io_ns"] == expected["total_io_ns"], f"{own} on {name}"


def _trace(folder: Path, requests: int = 3000, spread: int = 1) -> Path:
    """MSR CSV of 4 KiB requests: the first 1200 write a new block each (request n + 1 puts
    block n in a cache), the others write and read blocks among those; blocks `spread` apart."""
    lines = []
    for n in range(requests):
        op = "Read" if n >= 1200 and n % 3 == 0 else "Write"
        block = n if n < 1200 else (n * 37) % 1200
        lines.append(msr_line(n * 1000, op, block * spread * 4096, 4096))
    path = folder / "t.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_python_lru_orders_hwsrs_caches_as_the_native_one(examples, tmp_path, monkeypatch):
    monkeypatch.syspath_prepend(str(examples))
    from lru import Lru  # the page's example, as a module

    trace = _head("wdev", 10_000)
    small = {"mem": "2MiB", "ssd": "2MiB"}
    for native, own in [({}, {"ssd_policy": Lru}), ({"policy": "lru-block"}, {"policy": Lru})]:
        expected = smrlab.simulate("hwsr", trace, **small, **native).to_dict()["report"]
        got = smrlab.simulate("hwsr", trace, **{**small, **native, **own}).to_dict()["report"]
        assert expected["counters"]["mem_evictions"] > 0 and expected["counters"]["ssd_hits"] > 0
        assert got["counters"] == expected["counters"] and got["total_io_ns"] == expected["total_io_ns"], own


def test_a_result_records_the_policys_file_and_hash(examples, monkeypatch):
    monkeypatch.syspath_prepend(str(examples))
    from lru import Lru

    trace = _head("wdev", 10_000)
    result = smrlab.simulate("cache", trace, policy=Lru).to_dict()
    source = (examples / "lru.py").resolve()
    assert result["config"]["params"]["policy"] == "lru:Lru"
    sha = "sha256:" + hashlib.sha256(source.read_bytes()).hexdigest()
    assert result["config"]["policies"] == {"lru:Lru": {"source": str(source), "sha256": sha}}
    native = smrlab.simulate("cache", trace, policy="lru").to_dict()
    assert "policies" not in native["config"], "a run with native policies only is recorded as before"


GRID = """
name = "own"
traces = ["t.csv"]
metrics = ["total_io_s"]
[params]
cache = ["5%", "10%"]
[[systems]]
label = "mine"
system = "cache"
params = { policy = "lru.py:Lru" }
[[systems]]
label = "native"
system = "cache"
params = { policy = "lru" }
"""


def _rows(summary) -> list[dict]:
    return [{k: v for k, v in row.items() if k != "error"} for row in summary.rows]


def test_an_experiments_policy_file_runs_alike_serially_on_workers_and_on_dask(examples, tmp_path):
    distributed = pytest.importorskip("distributed")
    (tmp_path / "lru.py").write_text((examples / "lru.py").read_text())
    _trace(tmp_path)
    path = write(tmp_path, GRID)
    exp = experiment.load(path)
    serial = orchestrator.run(exp, out=tmp_path / "serial", jobs=1)
    assert serial.failed == 0 and len(serial.rows) == 4
    mine = [r for r in serial.rows if r["label"] == "mine"]
    native = [r for r in serial.rows if r["label"] == "native"]
    assert [r["evicted_dirty_blocks"] for r in mine] == [r["evicted_dirty_blocks"] for r in native]
    workers = orchestrator.run(exp, out=tmp_path / "workers", jobs=2)
    assert _rows(workers) == _rows(serial)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as c:
        on_dask = orchestrator.run(exp, out=tmp_path / "dask", cluster=c.scheduler_address)
    assert _rows(on_dask) == _rows(serial)
    source = (tmp_path / "lru.py").resolve()
    recorded = [o.result["config"].get("policies") for cell, o in on_dask.outcomes if cell.label == "mine"]
    sha = "sha256:" + hashlib.sha256(source.read_bytes()).hexdigest()
    assert recorded == [{f"{source}:Lru": {"source": str(source), "sha256": sha}}] * 2


def test_a_cells_key_follows_its_policys_text(examples, tmp_path):
    (tmp_path / "lru.py").write_text((examples / "lru.py").read_text())
    _trace(tmp_path)
    keys = lambda: [c.key() for c in experiment.load(write(tmp_path, GRID)).cells()]
    before = keys()
    assert keys() == before, "the same text, the same keys"
    (tmp_path / "lru.py").write_text((examples / "lru.py").read_text() + "\n# changed\n")
    after = keys()
    assert [b != a for b, a in zip(before, after)] == [True, True, False, False], "only the Python policy's cells"


BAD = """
from collections import OrderedDict


class Lru:
    def __init__(self, cache):
        self.order = OrderedDict()
        self.inserts = 0

    def inserted(self, slot, block, dirty):
        self.order[slot] = None
        self.inserts += 1

    def hit(self, slot, block, became_dirty):
        self.order.move_to_end(slot)

    def removed(self, slot, block, was_dirty):
        del self.order[slot]

    def victims(self, blocks):
        return [next(iter(self.order))]


class RaisesAt1000(Lru):
    def inserted(self, slot, block, dirty):
        super().inserted(slot, block, dirty)
        if self.inserts == 1000:
            raise ValueError("the thousandth block")


class None_(Lru):
    def victims(self, blocks):
        return []


class Twice(Lru):
    def victims(self, blocks):
        return [next(iter(self.order))] * 2


class OutOfRange(Lru):
    def victims(self, blocks):
        return [len(blocks) + 5]


class Empty(Lru):
    def victims(self, blocks):
        return [next(slot for slot in range(len(blocks)) if blocks[slot] is None)]


class TwoSegments(Lru):
    def victims(self, blocks):
        first = next(iter(self.order))
        other = next(s for s in self.order if blocks[s] // 32 != blocks[first] // 32)
        return [first, other]


class NoVictims:
    def __init__(self, cache):
        pass

    def inserted(self, slot, block, dirty):
        pass

    def hit(self, slot, block, became_dirty):
        pass

    def removed(self, slot, block, was_dirty):
        pass


class Loops(Lru):
    def hit(self, slot, block, became_dirty):
        open(__file__ + ".looping", "w").close()
        while True:
            pass
"""


def test_each_wrong_answer_stops_the_run_with_its_message(tmp_path):
    bad = tmp_path / "bad.py"
    bad.write_text(BAD)
    trace = _trace(tmp_path)
    cases = [
        ("RaisesAt1000", "inserted() at request #1000: raised ValueError: the thousandth block"),
        ("None_", "victims() at request #101: named no slot, but the SSD cache needs a victim (100 of its 100"),
        ("Twice", "victims() at request #101: named slot 0 twice"),
        ("OutOfRange", "victims() at request #101: named slot 105, but the SSD cache has 100 slots (0 to 99)"),
    ]
    for name, expected in cases:
        with pytest.raises(PolicyError) as caught:
            smrlab.simulate("cache", trace, policy=f"{bad}:{name}", cache="100blocks")
        assert str(caught.value).startswith(f"policy {bad}:{name}: {expected}"), caught.value
    # the user's exception is the cause, with its own traceback
    with pytest.raises(PolicyError) as caught:
        smrlab.simulate("cache", trace, policy=f"{bad}:RaisesAt1000", cache="100blocks")
    assert isinstance(caught.value.__cause__, ValueError)
    assert "raise ValueError" in policy.user_traceback(caught.value)
    with pytest.raises(PolicyError, match="has no method victims()"):
        smrlab.simulate("cache", trace, policy=f"{bad}:NoVictims")
    with pytest.raises(PolicyError, match="a class of the script or notebook that started the run"):
        policy.load("__main__:NotGivenHere")
    hwsr = {"mem": "1MiB", "ssd": "none"}
    spread = _trace(tmp_path, 2000, spread=64)
    with pytest.raises(PolicyError, match="named slots .* HWSR's MEM buffer evicts the blocks of one segment"):
        smrlab.simulate("hwsr", spread, **hwsr, policy=f"{bad}:TwoSegments")
    # A flusher asks for victims before the buffer is full: an empty slot may be named.
    flusher = {"destage": "background", "destage_high": "50%", "destage_low": "25%"}
    with pytest.raises(PolicyError, match=r"victims\(\) at request #\d+: named slot \d+, which holds no block"):
        smrlab.simulate("hwsr", spread, **hwsr, **flusher, policy=f"{bad}:Empty")


def test_a_policy_on_the_command_line_and_a_bad_one_its_message_traceback_and_no_result(cli, tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    (tmp_path / "broken.py").write_text("class Lru:\n    def hit(self, slot\n")
    _trace(tmp_path)
    good = ["sim", "--system", "cache", "--trace", "t.csv", "-p", "policy=./bad.py:Lru", "--out", "ok.json"]
    cli(*good, check=True)
    recorded = json.loads((tmp_path / "ok.json").read_text())["config"]["policies"]["./bad.py:Lru"]
    assert recorded == {
        "source": str((tmp_path / "bad.py").resolve()),
        "sha256": "sha256:" + hashlib.sha256(BAD.encode()).hexdigest(),
    }
    for reference, message, shown in [
        (
            "./bad.py:RaisesAt1000",
            "inserted() at request #1000: raised ValueError",
            'raise ValueError("the thousandth block")',
        ),
        ("./broken.py:Lru", "broken.py, line 2:", "def hit(self, slot"),
    ]:
        proc = cli("sim", "--system", "cache", "--trace", "t.csv", "-p", f"policy={reference}", "-p", "cache=100blocks")
        assert proc.returncode == 2, proc.stderr
        first, *rest = proc.stderr.splitlines()
        assert first.startswith(f"smrlab: error: policy {reference}: ") and message in first, proc.stderr
        assert shown in "\n".join(rest), proc.stderr
        assert "smrlab/" not in "\n".join(rest), "only the user's own frames"
        assert not (tmp_path / "results").exists(), "no result is written"


def test_ctrl_c_stops_a_hook_that_never_returns(tmp_path):
    (tmp_path / "bad.py").write_text(BAD)
    _trace(tmp_path)
    proc = subprocess.Popen(
        [sys.executable, "-m", "smrlab", "sim", "--system", "cache", "--trace", "t.csv", "-p", "policy=bad.py:Loops"],
        cwd=tmp_path,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 30
    while not (tmp_path / "bad.py.looping").exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    os.kill(proc.pid, signal.SIGINT)
    _, stderr = proc.communicate(timeout=30)
    assert proc.returncode == 130, stderr
    assert "interrupted: policy bad.py:Loops: hit() at request #" in stderr, stderr
    assert not (tmp_path / "results").exists(), "no result is written"
