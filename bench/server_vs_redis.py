"""Throughput of `smrlab kv serve` beside a real Redis server's, with Debian's redis-benchmark
(-P 16, pipelined), in one run: both servers on loopback, the same SET and GET requests.

    python bench/server_vs_redis.py [--requests 200000] [--clients 50] [--pipeline 16] [--size 100]

Redis comes from Debian's redis-server package: if `redis-server` is missing the script installs
it with apt-get when it runs as root, and otherwise reports SMRDB alone and says why. Redis runs
without persistence (as an in-memory cache, its usual benchmark set-up) and SMRDB without
syncing each write, on a store in a temporary folder. Prints one JSON line per server and
operation, then the ratio. Not a test: numbers depend on the machine and what else runs on it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(port: int, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on port {port} after {timeout} s")


def benchmark(port: int, args: argparse.Namespace) -> dict[str, float]:
    proc = subprocess.run(["redis-benchmark", "-p", str(port), "-t", "set,get", "-n", str(args.requests), "-c", str(args.clients),
                           "-P", str(args.pipeline), "-d", str(args.size), "-r", "100000", "-q"], capture_output=True, text=True, timeout=600)
    rates = dict(re.findall(r"(SET|GET): ([\d.]+) requests per second", proc.stdout + proc.stderr))
    if proc.returncode != 0 or len(rates) != 2:
        raise RuntimeError(f"redis-benchmark failed ({proc.returncode}): {proc.stdout}{proc.stderr}")
    return {op: float(rate) for op, rate in rates.items()}


def redis_server() -> str | None:
    """The redis-server command, installed from Debian if missing and allowed; None and why not."""
    if shutil.which("redis-server"):
        return shutil.which("redis-server")
    if os.geteuid() != 0:
        print("# redis-server is not installed and this is not root: SMRDB alone", file=sys.stderr)
        return None
    subprocess.run(["apt-get", "update", "-qq"], check=False)
    subprocess.run(["apt-get", "install", "-y", "-qq", "--no-install-recommends", "redis-server"], check=False,
                   env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"})
    return shutil.which("redis-server")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=200_000)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--pipeline", type=int, default=16)
    parser.add_argument("--size", type=int, default=100, help="value bytes")
    args = parser.parse_args()
    if shutil.which("redis-benchmark") is None:
        print("redis-benchmark is missing: `make test` installs Debian's redis-tools", file=sys.stderr)
        return 2
    machine = {"machine": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version()}
    results = {}
    with tempfile.TemporaryDirectory() as folder:
        port = free_port()
        smrdb = subprocess.Popen([sys.executable, "-m", "smrlab", "kv", "serve", "--path", os.path.join(folder, "db"), "--port", str(port),
                                  "--band-size", "64MiB", "--capacity", "16GiB"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            wait_for(port)
            results["smrdb"] = benchmark(port, args)
        finally:
            smrdb.send_signal(signal.SIGTERM)
            smrdb.wait(timeout=120)
        command = redis_server()
        if command:
            port = free_port()
            real = subprocess.Popen([command, "--port", str(port), "--save", "", "--appendonly", "no", "--dir", folder],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            try:
                wait_for(port)
                version = subprocess.run([command, "--version"], capture_output=True, text=True).stdout.strip()
                results["redis"] = benchmark(port, args)
                machine["redis"] = version
            finally:
                real.terminate()
                real.wait(timeout=60)
    for server, rates in results.items():
        for op, rate in rates.items():
            print(json.dumps({"server": server, "op": op, "requests_per_s": rate, "requests": args.requests, "clients": args.clients,
                              "pipeline": args.pipeline, "value_bytes": args.size, **machine}))
    if "redis" in results:
        for op in ("SET", "GET"):
            print(f"# {op}: smrlab kv serve at {results['smrdb'][op] / results['redis'][op]:.2f} x Redis's rate")
    return 0


if __name__ == "__main__":
    sys.exit(main())
