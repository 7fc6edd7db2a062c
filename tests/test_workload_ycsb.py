"""YCSB runs through the open-loop executor: against SMRDB embedded and over the Redis protocol
(`smrlab kv ycsb`), the per-request log (latency measured from the scheduled time), operation
mixes as issued, bad options."""

from __future__ import annotations

import csv
import json
import socket
import threading

import numpy as np
import pytest
from smrlab import workload
from smrlab.errors import ParameterError


def test_a_run_logs_every_request_from_its_scheduled_time(tmp_path):
    store = workload.WorkloadStore(path=tmp_path / "db", band_size=1 << 20, capacity=256 << 20)
    try:
        result = workload.run_ycsb(
            store,
            "b",
            {"recordcount": 2000},
            process="poisson",
            rate=2000,
            duration=2,
            threads=4,
            seed=3,
            log_path=tmp_path / "log.csv",
        )
    finally:
        store.close()
    s = result["summary"]
    assert s["requests"] == result["arrivals"] == len(workload.arrivals("poisson", 2000, 2, 3))
    assert s["failed"] == 0 and s["missed"] == 0
    rows = list(csv.DictReader(open(tmp_path / "log.csv")))
    assert len(rows) == s["requests"]
    scheduled = np.array([int(r["scheduled_ns"]) for r in rows])
    start = np.array([int(r["start_ns"]) for r in rows])
    end = np.array([int(r["end_ns"]) for r in rows])
    assert np.array_equal(scheduled, workload.arrivals("poisson", 2000, 2, 3)), (
        "requests are due when the arrival process says"
    )
    assert np.all(start >= scheduled) and np.all(end >= start)
    assert np.array_equal(result["latencies_ns"], end - scheduled), "latency counts from the scheduled time"
    reads = sum(r["op"] == "read" for r in rows) / len(rows)
    assert abs(reads - 0.95) < 0.02
    # The executor's own error is measured on the requests a free worker could start on time:
    # fewer than `threads` earlier requests still in flight at its scheduled time. How many
    # those are depends on the machine's load, so they are counted from the log, not assumed.
    free_on_time = sum(np.count_nonzero(end[:i] > scheduled[i]) < 4 for i in range(len(rows)))
    assert s["scheduling_error"]["count"] == free_on_time > 0


def test_kv_ycsb_against_the_server_and_embedded(cli, tmp_path):
    import re
    import signal
    import subprocess
    import sys

    proc = cli(
        "kv",
        "ycsb",
        "db",
        "--workload",
        "a",
        "--records",
        "500",
        "--arrival",
        "selfsimilar",
        "--bias",
        "0.65",
        "--rate",
        "1000",
        "--duration",
        "2",
        "--band-size",
        "1MiB",
        "--capacity",
        "128MiB",
        "--json",
        check=True,
    )
    out = json.loads(proc.stdout)
    assert out["summary"]["requests"] == 2000 and out["store"]["puts"] >= 500
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "smrlab",
            "kv",
            "serve",
            "--path",
            str(tmp_path / "srv"),
            "--port",
            "0",
            "--band-size",
            "1MiB",
            "--capacity",
            "128MiB",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        port = re.search(r":(\d+)", server.stdout.readline()).group(1)
        proc = cli(
            "kv",
            "ycsb",
            "--server",
            f"127.0.0.1:{port}",
            "--workload",
            "e",
            "--records",
            "300",
            "--arrival",
            "poisson",
            "--rate",
            "400",
            "--duration",
            "1",
            "--json",
            check=True,
        )
        summary = json.loads(proc.stdout)["summary"]
        assert summary["failed"] == 0 and {op for op, _ in summary["by_op"]} == {"scan", "insert"}
    finally:
        server.send_signal(signal.SIGTERM)
        server.communicate(timeout=60)


@pytest.mark.parametrize(
    "args, named",
    [
        (["kv", "ycsb", "db", "--workload", "g"], "--workload"),
        (["kv", "ycsb", "db", "-p", "readproportion=2"], "readproportion"),
        (["kv", "ycsb", "db", "-p", "nosuch=1"], "nosuch"),
        (["kv", "ycsb", "db", "-p", "novalue"], "-p"),
        (["kv", "ycsb", "db", "--threads", "0"], "--threads"),
        (["kv", "ycsb"], "--disk"),
        (["kv", "ycsb", "--server", "127.0.0.1:1", "--rate", "10", "--duration", "1"], "127.0.0.1:1"),
        (["kv", "ycsb", "db", "--disk", "desktop7200"], "--disk"),
        (["kv", "ycsb", "--disk", "nosuchdisk"], "nosuchdisk"),
        (["kv", "serve", "--path", "x", "--port", "70000"], "--port"),
        (["kv", "ycsb", "--server", "127.0.0.1:1", "--server-timeout", "0"], "--server-timeout"),
        (["kv", "ycsb", "db", "--server-timeout", "5"], "--server-timeout"),
    ],
)
def test_bad_ycsb_and_serve_options_exit_2(cli, args, named):
    proc = cli(*args)
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert named in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


@pytest.fixture
def bad_peer():
    """A loopback server that accepts connections and answers every arrival with the bytes it
    is given (nothing: it never answers); its address."""
    listener = socket.create_server(("127.0.0.1", 0))
    answer = {"bytes": b""}

    def serve():
        while True:
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=talk, args=(conn,), daemon=True).start()

    def talk(conn):
        with conn:
            while conn.recv(65536):
                if answer["bytes"]:
                    conn.sendall(answer["bytes"])

    threading.Thread(target=serve, daemon=True).start()
    yield answer, f"127.0.0.1:{listener.getsockname()[1]}"
    listener.close()


@pytest.mark.parametrize(
    "reply, problem", [(b"", "nothing within 0.3"), (b"?garbage\r\n", "Protocol error")], ids=["silent", "garbage"]
)
def test_ycsb_against_a_server_that_never_answers_or_answers_garbage_ends_with_an_error(cli, bad_peer, reply, problem):
    answer, address = bad_peer
    answer["bytes"] = reply
    run = ["kv", "ycsb", "--server", address, "--server-timeout", "0.3", "--records", "10", "--rate", "20"]
    proc = cli(*run, "--duration", "1")
    assert proc.returncode == 2 and problem in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    # Without the load phase, each worker gives its connection up once and its requests fail.
    proc = cli(*run, "--duration", "0.5", "--threads", "2", "--no-load", "--json")
    assert proc.returncode == 1, proc.stderr
    summary = json.loads(proc.stdout)["summary"]
    assert summary["failed"] == summary["requests"] > 0


def test_sync_against_a_server_is_refused_not_ignored():
    # A server syncs as it was started (kv serve --sync): the client's sync would do nothing.
    with pytest.raises(ParameterError, match="sync applies to a store endpoint only"):
        workload.run_ycsb("127.0.0.1:1", "a", {"recordcount": 1}, rate=10, duration=0.01, sync=True)
