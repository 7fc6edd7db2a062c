"""Client libraries against ``smrlab kv serve``, as their users call them: redis-py 8 at its
default protocol (it opens with HELLO 3) and at protocol 2, and go-redis v9 (the common Go
client, go-ycsb's) at both. Each runs a small workload (strings, a YCSB-style hash per record,
counters, expiry, SCAN, pipelines and MULTI/EXEC transactions) that must complete without an
error, with every reply checked.

The go-redis program (tests/goredis) is built from the Go module proxy on first use and kept
in a cache folder under the system's temporary folder; where Go is not installed its test is
skipped and says so."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
import redis
from redis_peers import SmrlabServer

GO_PROGRAM = Path(__file__).parent / "goredis"
GO_CACHE = Path(tempfile.gettempdir()) / "smrlab-test-goredis"


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    s = SmrlabServer(tmp_path_factory.mktemp("clients") / "db")
    yield s
    s.stop()


def ycsb_record(i: int) -> dict[str, bytes]:
    return {f"field{f}": bytes([65 + (i + f) % 26]) * 100 for f in range(10)}


@pytest.mark.parametrize("protocol", [None, 2], ids=["default-protocol", "protocol-2"])
def test_redis_py_completes_a_workload(server, protocol):
    options = {} if protocol is None else {"protocol": protocol}
    r = server.client(**options)
    prefix = f"py{protocol or 3}:"
    hello = r.execute_command("HELLO")
    fields = dict(zip(hello[::2], hello[1::2])) if protocol == 2 else hello
    assert fields[b"proto"] == (protocol or 3), "redis-py 8 asks for RESP3 unless told"
    info = r.info("server")
    assert info["redis_version"] and r.info("replication")["role"] == "master"
    assert r.client_setname("tester") and r.client_getname() in ("tester", b"tester")

    assert r.set(prefix + "s", "v") and r.get(prefix + "s") == b"v"
    assert r.get(prefix + "missing") is None
    assert r.set(prefix + "s", "w", nx=True) is None and r.set(prefix + "s", "w", xx=True, get=True) == b"v"
    assert r.incr(prefix + "n") == 1 and r.incrby(prefix + "n", 41) == 42 and r.decr(prefix + "n") == 41
    with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
        r.hget(prefix + "n", "f")

    # YCSB's Redis binding: a hash per record, read whole, updated a field at a time.
    with r.pipeline(transaction=False) as p:
        for i in range(200):
            p.hset(f"{prefix}user{i:04}", mapping=ycsb_record(i))
        assert p.execute() == [10] * 200
    assert r.hgetall(f"{prefix}user0007") == {k.encode(): v for k, v in ycsb_record(7).items()}
    assert r.hset(f"{prefix}user0007", "field3", b"new") == 0
    assert r.hmget(f"{prefix}user0007", ["field3", "nosuch"]) == [b"new", None]
    assert r.hdel(f"{prefix}user0007", "field3", "nosuch") == 1 and r.hlen(f"{prefix}user0007") == 9
    assert r.type(f"{prefix}user0007") in ("hash", b"hash")

    # A transaction: queued, then applied as one.
    with r.pipeline() as p:
        p.set(prefix + "t", 10).incrby(prefix + "t", 5).get(prefix + "t").hset(prefix + "t", "f", "v").exists(
            prefix + "t", prefix + "s"
        )
        with pytest.raises(redis.ResponseError, match="WRONGTYPE"):
            p.execute()
    with r.pipeline() as p:
        assert p.set(prefix + "t", 1).incr(prefix + "t").get(prefix + "t").execute() == [True, 2, b"2"]

    assert (
        r.expire(prefix + "s", 3600)
        and 3590 <= r.ttl(prefix + "s") <= 3600
        and r.persist(prefix + "s")
        and r.ttl(prefix + "s") == -1
    )
    assert r.exists(prefix + "s", prefix + "missing", prefix + "s") == 2
    assert sorted(r.keys(prefix + "[nst]")) == [(prefix + k).encode() for k in "nst"]
    assert len(set(r.scan_iter(match=prefix + "user*", count=33))) == 200
    assert r.delete(prefix + "s", prefix + "missing") == 1


def go_client() -> Path:
    """The go-redis program, built once into the cache folder (and again when its source changes)."""
    binary = GO_CACHE / "goredis-client"
    sources = [GO_PROGRAM / name for name in ("main.go", "go.mod", "go.sum")]
    if binary.exists() and all(binary.stat().st_mtime >= s.stat().st_mtime for s in sources):
        return binary
    env = {
        **os.environ,
        "GOMODCACHE": str(GO_CACHE / "mod"),
        "GOCACHE": str(GO_CACHE / "build"),
        "GOFLAGS": "-mod=readonly -buildvcs=false",
        "GOTOOLCHAIN": "local",
    }
    proc = subprocess.run(
        ["go", "build", "-o", str(binary), "."], cwd=GO_PROGRAM, env=env, capture_output=True, text=True, timeout=600
    )
    assert proc.returncode == 0, f"building the go-redis program failed:\n{proc.stderr}"
    return binary


@pytest.mark.parametrize("protocol", [3, 2])
def test_go_redis_completes_a_workload(server, protocol):
    if shutil.which("go") is None:
        pytest.skip("Go is not installed: the go-redis client was not run (install Go to run it)")
    proc = subprocess.run(
        [str(go_client()), "-addr", f"127.0.0.1:{server.port}", "-protocol", str(protocol), "-records", "300"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary == {"protocol": protocol, "scanned": 300, "pipelined": 300, "counter": 16, "name": "smrlab-test"}
