"""Sweeps that scale: what each cell cost is on record (the provenance sidecar and ``smrlab
results --timing``) and stays out of the results and the cell keys; cells start longest first by
what earlier runs cost; a worker that dies mid-cell, locally or on a Dask cluster, costs its cell
one retry on another worker, then the cell is recorded as failed and the rest of the run
completes; a frozen Dask worker is left behind once the scheduler drops it; a trace travels to a
Dask worker at most once; a bad --jobs and a scheduler that is not there are one line and exit
code 2, and one that dies mid-run ends it keeping the cells that finished."""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from conftest import DATA, SMALL, write
from smrlab import experiment, orchestrator
from smrlab.errors import UsageError
from smrlab.experiment import executors, schedule
from smrlab.experiment.cells import Cell, run_cell, this_worker
from smrlab.experiment.cluster import Connecting
from smrlab.experiment.pending import Handed, Pending
from smrlab.experiment.stopwatch import Phases

# 8 cells: 2 traces x 2 systems x 2 buffer sizes.
GRID = SMALL.replace("seeds = [0, 7]", "seeds = [0]")


def sidecar_of(folder: Path) -> dict:
    [table] = sorted(folder.glob("*.parquet"))
    return json.loads(table.with_suffix(".json").read_text())


def run_folders(root: Path) -> list[Path]:
    return sorted((p.parent for p in root.glob("*/*.parquet")), key=lambda p: p.stat().st_mtime)


def test_every_cells_cost_is_on_record_and_out_of_the_results(cli, tmp_path):
    exp = write(tmp_path, GRID)
    cli("run", exp, "--jobs", "2", "--out", "two", check=True)
    [two] = run_folders(tmp_path / "two")
    record = sidecar_of(two)
    assert len(record["cells"]) == 8
    workers = set()
    for cell in record["cells"]:
        timing = cell["timing"]
        assert timing["wall_s"] > 0 and 0 < timing["cpu_s"] <= timing["wall_s"] * 1.05 + 0.01, timing
        assert timing["peak_rss_bytes"] > 10 << 20 and timing["wait_s"] >= 0 and timing["attempts"] == 1
        assert timing["requests"] == 100_000 and cell["reused"] is False and cell["expected_s"] > 0
        assert abs(timing["wait_s"] - (timing["started_at"] - timing["submitted_at"])) < 1e-9
        assert re.fullmatch(r".+:\d+", timing["worker"])
        workers.add(timing["worker"])
    assert len(workers) == 2, "two local workers took cells"
    # The parent's own work, by phase; its serial part is within the run's span.
    parent = record["parent"]
    assert {"keys", "order", "workers", "store", "assemble"} <= set(parent["phases_s"])
    assert 0 <= parent["serial_s"] <= parent["ended_at"] - parent["begun_at"]
    assert parent["cells_s"] == pytest.approx(sum(c["timing"]["wall_s"] for c in record["cells"]))
    # Nothing wall-clock in the table or the keys (the rows are the same however cells ran:
    # test_experiments.py).
    table = pq.read_table(next(two.glob("*.parquet"))).to_pandas()
    assert not [c for c in table.columns if c.startswith("timing") or c.endswith("_at")]
    assert (
        [c["key"] for c in record["cells"]]
        == [cell.key() for cell in experiment.load(exp).cells()]
        == list(table["cell"])
    )
    # `smrlab results --timing` gives each row its cell's record.
    columns = "cell,timing.wall_s,timing.worker,timing.peak_rss_bytes"
    shown = json.loads(cli("results", str(two), "--timing", "--columns", columns, "--json", check=True).stdout)[
        "tables"
    ][0]
    column = {name: index for index, name in enumerate(shown["columns"])}
    by_key = {c["key"]: c["timing"] for c in record["cells"]}
    for row in shown["rows"]:
        timing = by_key[row[column["cell"]]]
        assert row[column["timing.wall_s"]] == timing["wall_s"] and row[column["timing.worker"]] == timing["worker"]
        assert row[column["timing.peak_rss_bytes"]] == timing["peak_rss_bytes"]
    default = json.loads(cli("results", str(two), "--timing", "--json", check=True).stdout)["tables"][0]["columns"]
    assert {"label", "timing.wall_s", "timing.worker", "timing.wait_s"} <= set(default)
    # A resumed run keeps what each reused cell cost when it ran.
    next(two.glob("cells/*.json")).unlink()
    proc = cli("run", exp, "--jobs", "1", "--out", "two", "--resume", check=True)
    assert "1 cells run, 7 reused" in proc.stderr
    resumed = {c["key"]: c for c in sidecar_of(two)["cells"]}
    assert sum(c["reused"] for c in resumed.values()) == 7
    assert all(resumed[key]["timing"] == by_key[key] for key in resumed if resumed[key]["reused"])


def test_cells_start_longest_first_by_what_earlier_runs_cost(tmp_path):
    exp = experiment.load(write(tmp_path, GRID))
    first = orchestrator.run(exp, out=tmp_path, jobs=1)
    second = orchestrator.run(exp, out=tmp_path, jobs=1, resume=False)
    walls = {c["key"]: c["timing"]["wall_s"] for c in sidecar_of(first.folder)["cells"]}
    cells = sidecar_of(second.folder)["cells"]
    assert all(c["expected_s"] == pytest.approx(walls[c["key"]]) for c in cells), (
        "each cell expected to cost what it did"
    )
    started = [c["key"] for c in sorted(cells, key=lambda c: c["timing"]["started_at"])]
    assert started == sorted(walls, key=walls.get, reverse=True)


def _sidecar(folder: Path, name: str, cells: list[dict]) -> None:
    folder.mkdir(parents=True)
    (folder / f"{folder.name}.json").write_text(json.dumps({"experiment": {"name": name}, "cells": cells}))


def _history(key, label, system, checksum, wall, requests):
    return {
        "key": key,
        "label": label,
        "system": system,
        "trace": {"checksum": checksum},
        "error": None,
        "timing": {"wall_s": wall, "requests": requests},
    }


def test_expected_costs_are_learnt_from_earlier_runs_of_the_same_experiment(tmp_path):
    from smrlab import Trace

    _sidecar(
        tmp_path / "exp-0123abcd",
        "exp",
        [
            _history("k1", "hwsr", "hwsr", "sha256:a", 4.0, 1000),
            _history("k2", "hwsr", "hwsr", "sha256:b", 2.0, 3000),
            _history("k3", "disk", "cmr", "sha256:a", 1.0, 1000),
        ],
    )
    _sidecar(tmp_path / "exp-0123abcd-2", "exp", [_history("k1", "hwsr", "hwsr", "sha256:a", 6.0, 1000)])
    _sidecar(tmp_path / "exp-other-0123abcd", "exp-other", [_history("k9", "x", "cmr", "sha256:z", 99.0, 1)])
    costs = schedule.learn(tmp_path, "exp")
    assert costs.seconds == {"k1": 5.0, "k2": 2.0, "k3": 1.0}, "a cell's own mean wall time"
    assert costs.per_request_label["hwsr"] == pytest.approx(12.0 / 5000) and costs.per_request_system[
        "cmr"
    ] == pytest.approx(1e-3)
    trace = Trace.open(DATA / "wdev.csv.gz")

    def cell(label, system, checksum, index=0):
        made = Cell(index, label, system, "t", trace, {}, 0, {})
        made.checksum = checksum
        return made

    assert schedule.expected_seconds(cell("hwsr", "hwsr", "sha256:a"), "k1", costs) == 5.0
    assert schedule.expected_seconds(cell("hwsr", "hwsr", "sha256:b"), "new", costs) == pytest.approx(
        3000 * 12.0 / 5000
    )
    assert schedule.expected_seconds(cell("other", "cmr", "sha256:a"), "new", costs) == pytest.approx(1000 * 1e-3)
    unseen = cell("other", "fluid", "sha256:unseen")
    median = (12.0 / 5000 + 1e-3) / 2  # of the two systems' costs per request
    guessed = trace.path.stat().st_size / schedule.BYTES_PER_TEXT_REQUEST_GUESS
    assert schedule.expected_seconds(unseen, "new", costs) == pytest.approx(guessed * median)
    ordered, expected = schedule.longest_first(
        [
            (cell("disk", "cmr", "sha256:a", 0), "k3"),
            (cell("hwsr", "hwsr", "sha256:a", 1), "k1"),
            (cell("hwsr", "hwsr", "sha256:b", 2), "k2"),
        ],
        costs,
    )
    assert [key for _, key in ordered] == ["k1", "k2", "k3"] and expected == {0: 1.0, 1: 5.0, 2: 2.0}


@pytest.mark.parametrize("jobs", ["0", "1025"])
def test_jobs_out_of_range_is_one_line(cli, tmp_path, jobs):
    proc = cli("run", write(tmp_path, GRID), "--jobs", jobs)
    assert proc.returncode == 2 and "--jobs" in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_jobs_out_of_range_is_a_usage_error_in_the_api(tmp_path):
    exp = experiment.load(write(tmp_path, GRID))
    for jobs in (0, 1025, True):
        with pytest.raises(UsageError, match="--jobs must be a whole number from 1 to 1024"):
            orchestrator.run(exp, out=tmp_path / "out", jobs=jobs)
    assert executors.checked_jobs(1024) == 1024
    assert not (tmp_path / "out").exists(), "nothing written for a refused run"


def _serve(answer: bytes | None) -> int:
    """A loopback TCP port that sends ``answer`` to each connection (None: says nothing)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()

    def serve():
        held = []
        while True:
            connection, _ = listener.accept()
            if answer is not None:
                connection.sendall(answer)
            held.append(connection)

    threading.Thread(target=serve, daemon=True).start()
    return listener.getsockname()[1]


def test_a_cluster_that_is_not_there_is_one_line_within_ten_seconds(tmp_path):
    refused = socket.socket()
    refused.bind(("127.0.0.1", 0))  # bound, not listening: connections are refused
    address = f"tcp://127.0.0.1:{refused.getsockname()[1]}"
    proc = subprocess.run(
        [sys.executable, "-m", "smrlab", "run", str(write(tmp_path, GRID)), "--cluster", address],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=10,
    )  # the bound the issue sets
    assert proc.returncode == 2 and address in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and not (tmp_path / "results").exists(), proc.stderr
    # What answers but is not a scheduler, or does not answer, or is no address: one UsageError each.
    from smrlab.experiment import cluster

    for address, named in (
        (f"tcp://127.0.0.1:{_serve(bytes(range(256)) * 4)}", "does not answer as a Dask scheduler"),
        (f"tcp://127.0.0.1:{_serve(None)}", f"within {cluster.CONNECT_SECONDS} s"),
        ("tcp://127.0.0.1", "not a scheduler address"),
        ("tcp://[::1", "not a scheduler address"),
        # Schemes an address alone cannot reach: refused before a client is made (a client
        # that fails to start printed a traceback as it was collected).
        ("foo://127.0.0.1:1", "not foo://"),
        ("http://127.0.0.1:1", "not http://"),
        ("tls://127.0.0.1:1", "not tls://"),
        ("ucx://127.0.0.1:1", "not ucx://"),
    ):
        with pytest.raises(UsageError, match=re.escape(named)) as refused_with:
            cluster.connect(address)
        assert address in str(refused_with.value) and "\n" not in str(refused_with.value)


def dying(cell, key, submitted_at, attempts, *where):
    """A cell runner whose worker dies under 'doomed' cells every time, and under 'flaky' ones
    the first time; it notes the worker of each death beside the test's markers."""
    marker = Path(os.environ["SMRLAB_TEST_MARKERS"]) / f"{cell.label}-{cell.index}-{attempts}"
    if cell.label == "doomed" or (cell.label == "flaky" and attempts == 1):
        marker.write_text(where[0] if where else this_worker())
        time.sleep(0.5)  # mid-cell
        os.kill(os.getpid(), signal.SIGKILL)
    return run_cell(cell, key, submitted_at, attempts, *where)


# Four plain-disk cells: one whose worker always dies, one whose worker dies the first time.
DYING = 'name = "dying"\ntraces = ["bundled:wdev"]\n' + "".join(
    f'[[systems]]\nlabel = "{label}"\nsystem = "cmr"\n' for label in ("cmr", "flaky", "doomed", "last")
)


def _run_with_dying_workers(tmp_path, monkeypatch, **where):
    monkeypatch.setenv("SMRLAB_TEST_MARKERS", str(tmp_path))
    exp = experiment.load(write(tmp_path, DYING))
    cells = [(cell, cell.key()) for cell in exp.cells()]
    outcomes = {}
    with executors.started(len(cells), run=dying, **where) as executor:
        executor.run(
            Pending(cells), lambda outcome: outcomes.__setitem__(cells[outcome.index][0].label, outcome), Phases()
        )
    assert set(outcomes) == {"cmr", "flaky", "doomed", "last"}, "every cell has an outcome"
    assert outcomes["cmr"].result and outcomes["last"].result and outcomes["cmr"].timing.attempts == 1
    flaky = outcomes["flaky"]
    assert flaky.result and flaky.error is None and flaky.timing.attempts == 2
    assert flaky.timing.worker != (tmp_path / "flaky-1-1").read_text(), "retried on another worker"
    doomed = outcomes["doomed"]
    assert doomed.result is None and "died running it 2 times" in doomed.error and doomed.timing.attempts == 2
    assert not (tmp_path / "doomed-2-3").exists(), "not tried a third time"
    assert flaky.result["derived"] == outcomes["cmr"].result["derived"], (
        "a retried cell measures what any run of it does"
    )


def test_a_lost_worker_charges_only_the_cells_it_was_running(tmp_path):
    exp = experiment.load(write(tmp_path, GRID))
    cells = [(cell, cell.key()) for cell in exp.cells()]
    pending = Pending(cells)
    handed = Handed()
    for _ in range(3):
        handed.add("w1", pending.next())
    handed.add("w2", pending.next())
    assert handed.finished("w1", 0).cell.index == 0 and handed.count("w1") == 2
    # w1 dies running cell 1, with cell 2 waiting: 1 goes first with a second attempt, 2 as it was.
    assert handed.lost("w1", 1, "killed by SIGKILL", "w1", pending) == []
    again, waiting = pending.next(), pending.next()
    assert (again.cell.index, again.attempts, waiting.cell.index, waiting.attempts) == (1, 2, 2, 1)
    assert pending.next().cell.index == 4 and handed.workers() == ["w2"]
    # Its second worker dies too: given up, with the reason.
    handed.add("w3", again)
    [gave_up] = handed.lost("w3", 1, "killed by SIGKILL", "w3", pending)
    assert gave_up.index == 1 and gave_up.result is None and gave_up.timing.attempts == 2
    assert "died running it 2 times (last: killed by SIGKILL, worker w3)" in gave_up.error


def test_a_local_worker_that_dies_mid_cell_costs_one_retry_then_the_cell(tmp_path, monkeypatch):
    _run_with_dying_workers(tmp_path, monkeypatch, jobs=2)


def test_on_dask_traces_travel_once_and_a_dying_worker_costs_one_retry(tmp_path, monkeypatch):
    distributed = pytest.importorskip("distributed")
    monkeypatch.setenv("SMRLAB_CACHE", str(tmp_path / "cache"))  # the workers' too: they start after this
    monkeypatch.setenv("SMRLAB_TEST_MARKERS", str(tmp_path))
    exp = experiment.load(write(tmp_path, GRID))
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        # Reached in the background; each fresh worker greeted (smrlab's simulation loaded, no
        # trace held yet) before any cell runs; a client it made is closed with it.
        connecting = Connecting(cluster.scheduler_address)
        client = connecting.client()
        assert connecting.greeted == dict.fromkeys(cluster.scheduler_info["workers"], [])
        assert set(client.run(lambda: "smrlab.run" in sys.modules).values()) == {True}
        connecting.close()
        assert client.status == "closed"
        first = orchestrator.run(exp, out=tmp_path / "first", cluster=cluster.scheduler_address)
        again = orchestrator.run(exp, out=tmp_path / "again", cluster=cluster.scheduler_address)
        shared = orchestrator.run(exp, out=tmp_path / "shared", cluster=cluster.scheduler_address, share_paths=True)
        # Each trace left the parent once (a second worker that ran its cells fetched it from
        # the first), and is kept on each worker that ran its cells for later runs.
        assert first.parent["counts"]["traces_sent"] == len(exp.traces)
        assert first.parent["counts"]["trace_bytes_sent"] == sum(t.path.stat().st_size for t in exp.traces.values())
        assert again.parent["counts"].get("traces_sent", 0) == 0 and shared.parent["counts"].get("traces_sent", 0) == 0
        assert len(list((tmp_path / "cache" / "shipped").iterdir())) == 2
        assert first.rows == again.rows == shared.rows
        # How long the cluster took to reach is on record: before the first cell could start.
        first_start = min(o.timing.started_at for _, o in first.outcomes)
        assert 0 < first.parent["cluster_reached_s"] <= first_start - first.parent["begun_at"]
        assert {o.timing.worker for _, o in first.outcomes} == set(cluster.scheduler_info["workers"])
        with distributed.Client(cluster.scheduler_address) as client:
            _run_with_dying_workers(tmp_path, monkeypatch, cluster=client)


def test_the_figure_warm_up_draws_in_every_format(monkeypatch):
    # `smrlab run` warms up drawing in a background thread that swallows errors (a missing
    # library fails again where the figure is drawn); a warm-up that broke silently left the
    # figure to be drawn cold after the last cell, as serial time.
    from smrlab import plots

    rendered = []
    real = plots.render
    monkeypatch.setattr(plots, "render", lambda fig, fmt: rendered.append(fmt) or real(fig, fmt))
    plots.warm_up()
    assert sorted(rendered) == sorted(plots.FORMATS)


def test_the_check_runs_beside_the_first_cells_and_one_that_fails_takes_no_outcome(tmp_path):
    # The parent checks the experiment (probes, footprints) while the workers run their first
    # cells; a check that fails stops the run with no outcome taken, so nothing is stored
    # (end to end: test_experiment_keys.py).
    exp = experiment.load(write(tmp_path, GRID))
    cells = [(cell, cell.key()) for cell in exp.cells()]
    pending, taken, handed_then = Pending(cells), [], []

    def failing_check():
        handed_then.append(len(cells) - len(pending))
        raise UsageError("the check failed")

    with pytest.raises(UsageError, match="the check failed"):
        with executors.started(len(cells), jobs=2) as executor:
            executor.run(pending, taken.append, Phases(), failing_check)
    assert handed_then == [4], "each of the two workers had a cell and one beyond when the check ran"
    assert taken == []


def test_a_traces_footprint_is_measured_once_for_every_worker_and_run(tmp_path, monkeypatch):
    # The footprint pass (a whole pass over a text trace) is kept in the cache folder by the
    # trace's checksum: another worker process, or a later run, reads it instead; a kept file
    # that is not a footprint is measured again. The results are the same either way.
    from smrlab import cache

    monkeypatch.setenv("SMRLAB_CACHE", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "_KEPT", {})
    [cell] = [c for c in experiment.load(write(tmp_path, GRID)).cells() if c.trace.path.name == "wdev.csv.gz"][:1]
    first = run_cell(cell)
    monkeypatch.setattr(cache, "_KEPT", {})  # as in another process
    again = run_cell(cell)
    assert first.timing.footprint_s > 0 and again.timing.footprint_s == 0
    [kept] = (tmp_path / "cache" / "footprints").iterdir()
    kept.write_text("not a footprint")
    monkeypatch.setattr(cache, "_KEPT", {})
    remade = run_cell(cell)
    from smrlab.run import footprint

    assert remade.timing.footprint_s > 0 and json.loads(kept.read_text()) == footprint(cell.trace)
    assert first.result["derived"] == again.result["derived"] == remade.result["derived"]


def test_traces_go_through_the_scheduler_where_the_workers_cannot_be_reached(tmp_path):
    # Traces are sent straight to the workers; a client that reaches only the scheduler (a
    # tunnel to it) gets them through the scheduler instead, from the first refusal on. The
    # cells are handed out as their traces are sent, one trace at a time. A trace already in
    # a worker's memory is not sent again for another worker (that one fetches it from the
    # first), unless every worker that had it left.
    from smrlab.experiment.cluster import OnCluster

    class Bytes:
        def __init__(self, worker):
            self.worker, self.status = worker, "finished"

    class SchedulerOnly:
        direct_to_workers = None

        def __init__(self):
            self.tries = []

        def scatter(self, data, workers, hash, direct):
            self.tries.append((workers[0], direct))
            if direct:
                raise OSError("Timed out trying to connect")
            return [Bytes(workers[0])]

    client = SchedulerOnly()
    cells = [(cell, cell.key()) for cell in experiment.load(write(tmp_path, GRID)).cells()]
    by_trace = {cell.trace_name: Pending([(cell, key)]).next() for cell, key in cells}
    first, second = by_trace.values()
    on = OnCluster(client)
    on.holds = {"w1": set(), "w2": {second.cell.trace_checksum()}}
    handed = []
    for worker, task, trace in on._arriving([("w2", second), ("w1", first), ("w1", second), ("w2", first)], Phases()):
        handed.append((worker, task.cell.trace_name, trace and trace.worker, list(client.tries)))
    # w2 holds the second trace: its cell goes first, before anything is sent; the first trace
    # goes to w1 (tried straight, then through the scheduler), and then both its cells; the
    # second trace, held by w2 but in no worker's memory, goes to w1, and then its cell.
    # Each comes with where its trace's bytes are (None: its worker holds the trace).
    assert handed == [
        ("w2", second.cell.trace_name, None, []),
        ("w1", first.cell.trace_name, "w1", [("w1", True), ("w1", False)]),
        ("w2", first.cell.trace_name, "w1", [("w1", True), ("w1", False)]),
        ("w1", second.cell.trace_name, "w1", [("w1", True), ("w1", False), ("w1", False)]),
    ]
    assert {checksum: bytes_.worker for checksum, bytes_ in on.scattered.items()} == {
        first.cell.trace_checksum(): "w1",
        second.cell.trace_checksum(): "w1",
    }
    assert not on.direct
    client.tries.clear()
    assert [(worker, trace.worker) for worker, _, trace in on._arriving([("w2", first)], Phases())] == [("w2", "w1")]
    assert client.tries == []
    on.scattered[first.cell.trace_checksum()].status = "cancelled"  # w1 left with it
    assert [(worker, trace.worker) for worker, _, trace in on._arriving([("w2", first)], Phases())] == [("w2", "w2")]
    assert client.tries == [("w2", False)]


def test_a_cell_cancelled_because_its_trace_left_with_a_worker_runs_again_uncharged(tmp_path):
    # A cell whose trace was only in the memory of a worker that left is cancelled by Dask
    # ("lost dependencies") before it runs: it goes back to be run (its trace sent again),
    # with no attempt charged; a cell cancelled for another reason is recorded as failed.
    distributed = pytest.importorskip("distributed")
    from smrlab.experiment.cluster import OnCluster

    class Cancelled:
        def result(self, timeout):
            raise distributed.CancelledError("lost dependencies")

    class Trace:
        def __init__(self, status):
            self.status = status

    class Client:
        direct_to_workers = None

        def nthreads(self):
            return {"w2": 1}

        def cancel(self, futures):
            pass

    [(cell, key)] = [(cell, cell.key()) for cell in experiment.load(write(tmp_path, GRID)).cells()][:1]
    on = OnCluster(Client())
    for trace, runs_again in ((Trace("cancelled"), True), (Trace("finished"), False)):
        pending, handed, done = Pending([(cell, key)]), Handed(), []
        task = pending.next()
        handed.add("w2", task)
        on._finished(Cancelled(), task, "w2", trace, handed, pending, done.append, Counter({cell.trace_checksum(): 1}))
        assert handed.count("w2") == 0
        if runs_again:
            assert done == [] and pending.next().attempts == 1
        else:
            [kept] = done
            assert not pending and kept.result is None and "cancelled" in kept.error and kept.timing.attempts == 1


class _Hook:
    """A run's progress that calls ``act`` once, when the first cell finishes."""

    def __init__(self, act):
        self.act, self.finished_cells = act, 0

    def begin(self, total, reused):
        pass

    def running(self, at_once):
        pass

    def finished(self, error, label):
        self.finished_cells += 1
        if self.finished_cells == 1:
            self.act()

    def end(self):
        pass


def _alarm(seconds: int):
    """Raises TimeoutError in the test after ``seconds`` (the hard bound: the run never hangs);
    returns the handler it replaced."""

    def expire(*_):
        raise TimeoutError(f"the run did not end within {seconds} s")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.alarm(seconds)
    return previous


def test_a_frozen_worker_is_left_behind_and_a_dead_scheduler_ends_the_run_keeping_its_cells(tmp_path, monkeypatch):
    # Dask's own heartbeat decides when a frozen worker has left: the scheduler drops a worker
    # that missed its heartbeats for distributed.scheduler.worker-ttl (set short here; at least
    # ten heartbeats, 5 s), and its cells run on another. The traces are read where they are
    # (shared paths): one being sent to the frozen worker would wait for Dask's comm timeouts
    # (distributed.comm.timeouts, 30 s by default) before it is given up. A scheduler killed
    # mid-run ends the run with ClusterLost (one line on the command line) within the client's
    # reconnect wait, the cells that finished stored, and a run of the same cells reuses them.
    pytest.importorskip("distributed")
    from smrlab.errors import ClusterLost
    from smrlab.experiment.store import RunFolder

    env = {**os.environ, "SMRLAB_CACHE": str(tmp_path / "cache"), "DASK_DISTRIBUTED__SCHEDULER__WORKER_TTL": "1s"}
    env["PYTHONPATH"] = os.pathsep.join(sys.path)
    started = []

    def start(*argv):
        started.append(subprocess.Popen([sys.executable, "-m", *argv], env=env, stderr=subprocess.DEVNULL))
        return started[-1]

    exp = experiment.load(write(tmp_path, GRID))
    previous = _alarm(40)
    try:
        scheduler = start(
            "distributed.cli.dask_scheduler",
            "--host",
            "127.0.0.1",
            "--port",
            "0",
            "--no-dashboard",
            "--scheduler-file",
            str(tmp_path / "s.json"),
        )
        while not (tmp_path / "s.json").exists():
            time.sleep(0.1)
        address = json.loads((tmp_path / "s.json").read_text())["address"]
        frozen, _ = (
            start("distributed.cli.dask_worker", address, "--no-nanny", "--nthreads", "1", "--no-dashboard")
            for _ in range(2)
        )
        first = orchestrator.run(
            exp,
            out=tmp_path / "r",
            cluster=address,
            share_paths=True,
            progress=_Hook(lambda: os.kill(frozen.pid, signal.SIGSTOP)),
        )
        assert first.ran == len(first.rows) == 8 and first.failed == 0
        with pytest.raises(ClusterLost, match="went away mid-run.*the cells that finished are kept in"):
            orchestrator.run(
                exp,
                out=tmp_path / "again",
                cluster=address,
                resume=False,
                progress=_Hook(lambda: (scheduler.kill(), scheduler.wait())),
            )
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
        for process in started:
            process.kill()
            process.wait()
    [folder] = (tmp_path / "again").iterdir()
    kept = RunFolder(folder, "").stored()
    assert 1 <= len(kept) < 8
    assert orchestrator.run(exp, out=tmp_path / "again", jobs=1).reused == len(kept)


def test_a_worker_dropped_while_its_trace_is_sent_gets_its_cells_put_back(tmp_path):
    # The scheduler dropped the worker (a frozen one, say) between the cell being handed to it
    # and its trace being sent: the scatter fails, and the cell goes back as it was, uncharged,
    # where the run stopped with the scheduler's KeyError.
    import queue

    from smrlab.experiment.cluster import OnCluster

    class Client:
        direct_to_workers = False

        def run(self, *args, **kwargs):
            return {}

        def nthreads(self):
            return {"w2": 1}  # w1 has left

        def scatter(self, *args, **kwargs):
            raise KeyError("w1")

        def submit(self, *args, **kwargs):
            raise AssertionError("nothing is handed to a worker that left")

    exp = experiment.load(write(tmp_path, GRID))
    cells = [(cell, cell.key()) for cell in exp.cells()]
    executor = OnCluster(Client())
    executor.threads, executor.holds = {"w1": 1}, {"w1": set()}
    pending, handed, futures = Pending(cells[:1]), Handed(), {}
    executor._hand_out(pending, handed, futures, queue.Queue(), Phases())
    assert not futures and handed.count("w1") == 0
    again = pending.next()
    assert again.cell.index == cells[0][0].index and again.attempts == 1
