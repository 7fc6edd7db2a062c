"""A store filled through ``smrlab kv serve`` until its writes fail, SMRDB and the
write-offloading store alike, stopped cleanly or killed: it opens again (read-only, as its
device is full), every acknowledged key reads back, from Python and from ``smrlab kv``, and a
write is refused with a message that says so and never suggests deleting anything."""

from __future__ import annotations

import signal
import subprocess
import sys

import pytest
import redis
from redis_peers import SmrlabServer
from smrlab.kv import DB, KvWritesRefusedError

VALUE = b"v" * 300


def fill_until_refused(server: SmrlabServer) -> list[bytes]:
    """Sets new keys, 50 a pipeline, until a pipeline has one refused; the keys acknowledged,
    in order (a pipeline may arrive in parts, and a part after a refused one may be stored)."""
    client = server.client(protocol=2)
    acked: list[bytes] = []
    for first in range(0, 10**6, 50):
        keys = [b"key:%07d" % i for i in range(first, first + 50)]
        pipe = client.pipeline(transaction=False)
        for key in keys:
            pipe.set(key, VALUE)
        replies = pipe.execute(raise_on_error=False)
        refused = [reply for reply in replies if isinstance(reply, redis.ResponseError)]
        acked += [key for key, reply in zip(keys, replies) if reply is True]
        if refused:
            assert all("full" in str(reply) for reply in refused), refused
            return acked
    raise AssertionError("a store of 512 KiB took 10^6 keys")


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGKILL], ids=["stopped", "killed"])
@pytest.mark.parametrize("store", [[], ["--offload-store"]], ids=["smrdb", "offloading"])
def test_a_store_filled_until_writes_fail_opens_again_and_reads_in_full(tmp_path, store, stop):
    path = tmp_path / "full"
    # Six bands of 64 KiB: a few hundred keys fill it. Every write synced, so a kill loses none.
    server = SmrlabServer(path, "--band-size", "64KiB", "--capacity", "512KiB", "--sync", *store)
    acked = fill_until_refused(server)
    code, err = server.stop(stop)
    assert code == (0 if stop == signal.SIGTERM else -signal.SIGKILL), err
    assert len(acked) > 300
    with DB(path) as db:
        assert db.kind == ("smrdb-offload" if store else "smrdb")
        assert [key for key, _ in db.scan()] == acked
        assert all(value == VALUE for _, value in db.scan())
        with pytest.raises(KvWritesRefusedError, match="read-only") as refused:
            db.put(b"one more", b"v")
        assert "delete" not in str(refused.value) and "remove" not in str(refused.value)
    got = subprocess.run(
        [sys.executable, "-m", "smrlab", "kv", "get", str(path), acked[-1].decode()],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (got.returncode, got.stdout.strip()) == (0, VALUE.decode()), got.stderr
