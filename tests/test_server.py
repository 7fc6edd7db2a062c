"""``smrlab kv serve`` with real clients over loopback: Debian's redis-benchmark (a bounded
SET/GET run) and redis-cli, the PyPI ``redis`` client, pipelining, data read back after a
restart (graceful, and after SIGKILL with --sync), and bad protocol input: truncated frames,
huge bulk lengths, binary garbage and a client that leaves mid-command get an error or a closed
connection, and the server keeps serving. Client libraries at both protocol versions:
test_server_clients.py; replies compared with Redis's: test_server_vs_redis.py."""

from __future__ import annotations

import os
import re
import signal
import socket
import subprocess
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from redis_peers import SmrlabServer as Server
from redis_peers import require


@pytest.fixture(autouse=True, scope="module")
def redis_tools():
    require("redis-benchmark", "redis-cli")


@pytest.fixture
def server(tmp_path):
    s = Server(tmp_path / "db")
    yield s
    if s.proc.poll() is None:
        s.stop()


def test_redis_benchmark_set_get_runs_without_errors(server):
    proc = subprocess.run(
        [
            "redis-benchmark",
            "-p",
            str(server.port),
            "-t",
            "set,get",
            "-n",
            "20000",
            "-c",
            "20",
            "-P",
            "16",
            "-r",
            "5000",
            "-d",
            "100",
            "-q",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout + proc.stderr
    assert re.search(r"SET: [\d.]+ requests per second", out) and re.search(r"GET: [\d.]+ requests per second", out), (
        out
    )
    assert "ERR" not in out and "error" not in out.lower(), out
    assert 0 < server.client().dbsize() <= 5000


def test_redis_cli_speaks_to_it(server):
    cli = lambda *a: subprocess.run(
        ["redis-cli", "-p", str(server.port), *a], capture_output=True, text=True, timeout=30
    )
    assert cli("PING").stdout.strip() == "PONG"
    assert cli("SET", "fruit:apple", "red").stdout.strip() == "OK"
    assert cli("MSET", "fruit:pear", "green", "veg:leek", "white").stdout.strip() == "OK"
    assert cli("GET", "fruit:apple").stdout.strip() == "red"
    assert cli("DBSIZE").stdout.strip() == "3"
    assert sorted(cli("--scan", "--pattern", "fruit:*").stdout.split()) == ["fruit:apple", "fruit:pear"]
    assert "total_commands_processed" in cli("INFO").stdout
    assert cli("DEL", "fruit:apple", "nosuch").stdout.strip() == "1"
    assert cli("HSET", "h", "f", "v", "g", "w").stdout.strip() == "2"
    assert cli("HGETALL", "h").stdout.split() == ["f", "v", "g", "w"]
    assert "unknown command" in cli("LPUSH", "l", "x").stdout


def test_the_redis_client_library_works_with_pipelines(server):
    r = server.client()
    assert r.ping()
    r.set("a", b"\x00\xffbinary\r\n")
    assert r.get("a") == b"\x00\xffbinary\r\n"
    assert r.set("a", "x", nx=True) is None
    r.mset({f"k{i:04}": str(i) for i in range(1000)})
    assert r.mget("k0000", "k0999", "nope") == [b"0", b"999", None]
    assert r.exists("k0001", "k0002", "nope") == 2
    pipe = r.pipeline(transaction=False)
    for i in range(500):
        pipe.set(f"p{i}", i)
        pipe.get(f"p{i}")
    replies = pipe.execute()
    assert replies[1::2] == [str(i).encode() for i in range(500)]
    assert len(set(r.scan_iter(match="k0*", count=37))) == 1000
    assert r.execute_command("RANGE", "k0010", "k0013") == [b"k0010", b"10", b"k0011", b"11", b"k0012", b"12"]
    assert r.dbsize() == 1501
    assert r.delete("a", "k0000") == 2
    r.flushdb()
    assert r.dbsize() == 0


def test_written_data_is_read_back_after_a_restart(tmp_path):
    s = Server(tmp_path / "db")
    r = s.client()
    pairs = {f"key:{i}": os.urandom(200) for i in range(3000)}
    r.mset(pairs)
    for k in list(pairs)[::3]:
        r.set(k, b"changed")
        pairs[k] = b"changed"
    code, err = s.stop()
    assert code == 0 and "stopped by SIGTERM" in err and "synced and closed" in err, err
    s = Server(tmp_path / "db")
    r = s.client()
    assert r.dbsize() == len(pairs)
    keys = list(pairs)
    assert r.mget(keys) == [pairs[k] for k in keys]
    s.stop()


@settings(max_examples=3, deadline=None)
@given(keys=st.lists(st.binary(min_size=1, max_size=40), min_size=1, max_size=60, unique=True))
def test_no_acknowledged_synced_write_is_lost_when_the_server_is_killed(tmp_path_factory, keys):
    path = tmp_path_factory.mktemp("killed") / "db"
    s = Server(path, "--sync")
    r = s.client()
    for k in keys:
        assert r.set(k, k[::-1])
    s.stop(signal.SIGKILL)
    s = Server(path)
    r = s.client()
    assert r.mget(keys) == [k[::-1] for k in keys]
    s.stop()


def raw(port: int, data: bytes, then_close: bool = True) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(data)
        if then_close:
            sock.shutdown(socket.SHUT_WR)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
        return b"".join(chunks)


def test_bad_protocol_gets_an_error_or_a_closed_connection(tmp_path):
    s = Server(tmp_path / "db", "--max-bulk", "4KiB")
    started = time.monotonic()
    # A bulk length over the limit is refused from its header alone, before its bytes.
    reply = raw(s.port, b"*3\r\n$3\r\nSET\r\n$1\r\nk\r\n$5000\r\n", then_close=False)
    assert reply.startswith(b"-ERR Protocol error: invalid bulk length 5000"), reply
    assert raw(s.port, b"*2\r\n$3\r\nGET\r\n$99999999999999999999\r\n").startswith(b"-ERR Protocol error")
    assert raw(s.port, os.urandom(64).replace(b"*", b"#") + b"\r\n" + b"*x\r\n").startswith(b"-ERR")
    assert raw(s.port, b"*1\r\n$4\r\nPI") == b"", "a truncated frame at the client's close is dropped"
    assert raw(s.port, b"*-3\r\n").startswith(b"-ERR Protocol error")
    for _ in range(5):
        with socket.create_connection(("127.0.0.1", s.port)) as sock:
            sock.sendall(b"*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$2000\r\nonly part of it")
    r = s.client()
    assert r.ping() and r.get("key") is None
    assert time.monotonic() - started < 60
    code, err = s.stop()
    assert code == 0, err


def stored_record(fields: list[tuple[bytes, bytes]] | None, payload: bytes = b"", deadline: int | None = None) -> bytes:
    """A value laid out as the server keeps a hash (``fields``) or a string (``payload``)."""
    head = bytes([0xFF, 1, ord("s" if fields is None else "h"), 0 if deadline is None else 1])
    head += b"" if deadline is None else deadline.to_bytes(8, "little")
    if fields is None:
        return head + payload
    body = len(fields).to_bytes(4, "little")
    for name, value in fields:
        body += len(name).to_bytes(4, "little") + name + len(value).to_bytes(4, "little") + value
    return head + body


def test_kv_scan_get_and_the_api_show_what_the_servers_clients_see(tmp_path, capsys):
    # Values stored raw, read back through the server (its own decoder) and through the
    # printing path's: well-formed headers and ones that are not, which both read as strings.
    from smrlab.cli import main
    from smrlab.kv import DB

    later = (int(time.time()) + 3600) * 1000
    hashed = stored_record([(b"name", b"ann"), (b"age", b"30"), (b"f x", b"v\ty")])
    stored = {
        b"hash": hashed,
        b"hash-ttl": stored_record([(b"f", b"v")], deadline=later),
        b"plain": b"hello",
        b"string-ttl": stored_record(None, b"soon", deadline=later),
        b"string-ff": stored_record(None, b"\xffraw"),
        b"expired": stored_record(None, b"gone", deadline=1000),
        b"bad-format": b"\xff\x02h\x00" + hashed[4:],
        b"bad-flags": b"\xff\x01h\x02" + hashed[4:],
        b"trailing": hashed + b"!",
        b"truncated": hashed[:-1],
        b"huge-count": b"\xff\x01h\x00\xff\xff\x00\x00",
    }
    with DB(tmp_path / "db", band_size="1MiB", capacity="256MiB") as db:
        for key, value in stored.items():
            db.put(key, value)
    server = Server(tmp_path / "db")
    try:
        client = server.client(protocol=2)
        served = {}
        for key in stored:
            kind = client.type(key).decode()
            served[key] = client.hgetall(key) if kind == "hash" else client.get(key)
    finally:
        server.stop()
    assert served[b"expired"] is None and served[b"hash"] == {b"name": b"ann", b"age": b"30", b"f x": b"v\ty"}
    assert served[b"bad-flags"] == stored[b"bad-flags"] and served[b"string-ff"] == b"\xffraw"

    with DB(tmp_path / "db", create=False) as db:
        records = dict(db.records())
        assert db.record(b"expired") is None and db.record(b"hash").fields == tuple(served[b"hash"].items())
    assert set(records) == {key for key, value in served.items() if value is not None}
    for key, record in records.items():
        seen = dict(record.fields) if record.kind == "hash" else record.value
        assert seen == served[key], key
    assert records[b"hash-ttl"].deadline_ms == later and records[b"plain"].deadline_ms is None

    assert main(["kv", "scan", str(tmp_path / "db"), "--start", "h", "--end", "i"]) == 0
    expiry = records[b"hash-ttl"].expiry()
    assert capsys.readouterr().out.splitlines() == [
        'hash\t{"name": "ann", "age": "30", "f x": "v\\ty"}',
        f'hash-ttl\t{{"f": "v"}}\texpires {expiry}',
        # as any string: a control character or a byte that is not UTF-8 as \xNN
        "huge-count\t" + "".join(chr(b) if 0x20 <= b < 0x7F else f"\\x{b:02x}" for b in stored[b"huge-count"]),
    ]
    assert main(["kv", "get", str(tmp_path / "db"), "string-ttl"]) == 0
    out, err = capsys.readouterr()
    assert out == "soon\n" and f"expires {expiry}" in err
    assert main(["kv", "get", str(tmp_path / "db"), "expired"]) == 1


@settings(max_examples=200, deadline=None)
@given(
    fields=st.none() | st.lists(st.tuples(st.binary(max_size=8), st.binary(max_size=8)), max_size=4),
    payload=st.binary(max_size=16),
    deadline=st.none() | st.integers(0, 2**64 - 1),
    cut=st.integers(0, 64),
)
def test_the_printing_path_reads_any_stored_bytes_and_every_record_the_server_writes(fields, payload, deadline, cut):
    from smrlab.kv_records import decode

    stored = stored_record(fields, payload, deadline)
    record = decode(stored)
    assert (record.fields, record.deadline_ms) == (None if fields is None else tuple(fields), deadline)
    assert record.value == (payload if fields is None else None)
    assert (record.expiry() is None) == (deadline is None) and isinstance(record.shown(repr), str)
    # Cut short, the bytes are a string as they are, or (cut inside a string's payload) a shorter string.
    short = decode(stored[:cut])
    assert short.value is not None or stored[:cut] == stored
