"""What the server tests share: a `smrlab kv serve` process and a Debian redis-server process
on free loopback ports, and a reader of one raw RESP2 or RESP3 reply, byte for byte."""

from __future__ import annotations

import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import redis


def require(*tools: str) -> None:
    """The real peers these tests drive: missing is a failure, never a silent skip."""
    missing = [tool for tool in tools if shutil.which(tool) is None]
    assert not missing, (
        f"{', '.join(missing)} missing: `make test` installs them (Debian packages redis-tools, redis-server)"
    )


class SmrlabServer:
    """A `smrlab kv serve` process on a free port."""

    def __init__(self, path: Path, *extra: str):
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "smrlab",
                "kv",
                "serve",
                "--path",
                str(path),
                "--port",
                "0",
                "--band-size",
                "1MiB",
                "--capacity",
                "256MiB",
                *extra,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        line = self.proc.stdout.readline()
        match = re.search(r"listening on 127\.0\.0\.1:(\d+)", line)
        assert match, (line, self.proc.stderr.read() if self.proc.poll() is not None else "")
        self.port = int(match.group(1))

    def client(self, **options) -> redis.Redis:
        """A redis-py client; at its default protocol (RESP3 in redis-py 8) unless told."""
        return redis.Redis(port=self.port, socket_timeout=30, **options)

    def stop(self, sig=signal.SIGTERM) -> tuple[int, str]:
        self.proc.send_signal(sig)
        try:
            _, err = self.proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            raise
        return self.proc.returncode, err


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class RedisServer:
    """Debian's redis-server, in memory (no snapshots, no log), on a free port."""

    def __init__(self, folder: Path):
        self.port = free_port()
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--save", "", "--appendonly", "no", "--dir", str(folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                assert time.monotonic() < deadline and self.proc.poll() is None, "redis-server did not start"
                time.sleep(0.05)

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=60)


def command(*args: str | bytes | int) -> bytes:
    """A command as a client sends it: an array of bulk strings."""
    parts = [a if isinstance(a, bytes) else str(a).encode() for a in args]
    return b"*%d\r\n" % len(parts) + b"".join(b"$%d\r\n%s\r\n" % (len(p), p) for p in parts)


class Connection:
    """A raw connection that sends commands and returns each reply's bytes as they came."""

    def __init__(self, port: int):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=30)
        self.buf = b""

    def close(self) -> None:
        self.sock.close()

    def _line(self) -> bytes:
        while b"\r\n" not in self.buf:
            chunk = self.sock.recv(65536)
            assert chunk, "the server closed the connection"
            self.buf += chunk
        line, self.buf = self.buf.split(b"\r\n", 1)
        return line

    def _exactly(self, n: int) -> bytes:
        while len(self.buf) < n:
            chunk = self.sock.recv(65536)
            assert chunk, "the server closed the connection"
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def reply(self) -> bytes:
        """One whole reply (nested ones included), as raw bytes."""
        line = self._line()
        raw = line + b"\r\n"
        kind, rest = line[:1], line[1:]
        if kind in (b"$", b"=") and int(rest) >= 0:
            raw += self._exactly(int(rest) + 2)
        elif kind in (b"*", b"%", b"~", b">") and int(rest) >= 0:
            for _ in range(int(rest) * (2 if kind == b"%" else 1)):
                raw += self.reply()
        return raw

    def call(self, *args) -> bytes:
        self.sock.sendall(command(*args))
        return self.reply()
