"""Throughput of `smrlab kv serve` beside a real Redis server's, with Debian's redis-benchmark
(-P 16, pipelined): both servers on loopback, the same SET and GET requests, in alternating
rounds (smrlab then Redis, Redis then smrlab, ...), so a machine whose load drifts weighs on
both alike.

    python bench/server_vs_redis.py [--rounds 3] [--requests 200000] [--clients 50] [--pipeline 16] [--size 100]

Redis comes from Debian's redis-server package (`make bench-deps` installs it): if
`redis-server` is missing the script installs it with apt-get when it runs as root, and
otherwise reports smrlab alone and says why. Redis runs without persistence (as an in-memory
cache, its usual benchmark set-up) and smrlab without syncing each write, on a store in a
temporary folder. Prints one JSON line per round, server and operation (with the server's CPU
time per request, read from /proc: a measure the machine's load disturbs less than the rate),
then for each operation the median rate and CPU time of each server, and the rounds' ratios
smrlab / redis of the rates and redis / smrlab of the CPU times (above 1: smrlab is the faster),
with their median, minimum and maximum. Not a test: numbers depend on the machine and what
else runs on it.
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
import statistics
import subprocess
import sys
import tempfile
import time

OPS = ("SET", "GET")


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


def benchmark_command(port: int, op: str, args: argparse.Namespace) -> list[str]:
    return [
        "redis-benchmark",
        "-p",
        str(port),
        "-t",
        op.lower(),
        "-n",
        str(args.requests),
        "-c",
        str(args.clients),
        "-P",
        str(args.pipeline),
        "-d",
        str(args.size),
        "-r",
        "100000",
        "-q",
    ]


def cpu_seconds(pid: int) -> float:
    """User and system time a process (all its threads) has used so far."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def benchmark(port: int, pid: int, args: argparse.Namespace) -> dict[str, tuple[float, float]]:
    """Each operation's rate (requests/s) and the server's CPU time per request (us)."""
    results = {}
    for op in OPS:
        before = cpu_seconds(pid)
        proc = subprocess.run(benchmark_command(port, op, args), capture_output=True, text=True, timeout=600)
        cpu = cpu_seconds(pid) - before
        rate = re.findall(rf"{op}: ([\d.]+) requests per second", proc.stdout + proc.stderr)
        if proc.returncode != 0 or not rate:
            raise RuntimeError(f"redis-benchmark failed ({proc.returncode}): {proc.stdout}{proc.stderr}")
        results[op] = (float(rate[-1]), cpu / args.requests * 1e6)
    return results


def redis_server() -> str | None:
    """The redis-server command, installed from Debian if missing and allowed; None and why not."""
    if shutil.which("redis-server"):
        return shutil.which("redis-server")
    if os.geteuid() != 0:
        print("# redis-server is not installed and this is not root: smrlab alone", file=sys.stderr)
        return None
    subprocess.run(["apt-get", "update", "-qq"], check=False)
    subprocess.run(
        ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "redis-server"],
        check=False,
        env={**os.environ, "DEBIAN_FRONTEND": "noninteractive"},
    )
    return shutil.which("redis-server")


def stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=120)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=3, help="rounds of each server (default 3)")
    parser.add_argument(
        "--requests", type=int, default=200_000, help="requests per operation and round (default 200000)"
    )
    parser.add_argument("--clients", type=int, default=50, help="redis-benchmark's connections (default 50)")
    parser.add_argument("--pipeline", type=int, default=16, help="requests per pipeline (default 16)")
    parser.add_argument("--size", type=int, default=100, help="value bytes (default 100)")
    args = parser.parse_args()
    if shutil.which("redis-benchmark") is None:
        print("redis-benchmark is missing: `make test` installs Debian's redis-tools", file=sys.stderr)
        return 2
    machine = {"machine": platform.machine(), "cpus": os.cpu_count(), "python": platform.python_version()}
    servers: dict[str, subprocess.Popen] = {}
    ports: dict[str, int] = {}
    results: dict[str, list[dict[str, tuple[float, float]]]] = {}
    with tempfile.TemporaryDirectory() as folder:
        try:
            ports["smrlab"] = free_port()
            servers["smrlab"] = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "smrlab",
                    "kv",
                    "serve",
                    "--path",
                    os.path.join(folder, "db"),
                    "--port",
                    str(ports["smrlab"]),
                    "--band-size",
                    "64MiB",
                    "--capacity",
                    "16GiB",
                ],
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            wait_for(ports["smrlab"])
            command = redis_server()
            if command:
                ports["redis"] = free_port()
                servers["redis"] = subprocess.Popen(
                    [command, "--port", str(ports["redis"]), "--save", "", "--appendonly", "no", "--dir", folder],
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
                wait_for(ports["redis"])
                machine["redis"] = subprocess.run([command, "--version"], capture_output=True, text=True).stdout.strip()
            for round_ in range(args.rounds):
                order = list(servers) if round_ % 2 == 0 else list(reversed(servers))
                for server in order:
                    measured = benchmark(ports[server], servers[server].pid, args)
                    results.setdefault(server, []).append(measured)
                    for op, (rate, cpu_us) in measured.items():
                        print(
                            json.dumps(
                                {
                                    "round": round_,
                                    "server": server,
                                    "op": op,
                                    "requests_per_s": rate,
                                    "server_cpu_us_per_request": round(cpu_us, 3),
                                    "requests": args.requests,
                                    "clients": args.clients,
                                    "pipeline": args.pipeline,
                                    "value_bytes": args.size,
                                    "load_average": os.getloadavg()[0],
                                    **machine,
                                }
                            ),
                            flush=True,
                        )
        finally:
            for proc in servers.values():
                stop(proc)
    print("# " + " ".join(benchmark_command(0, "SET", args)).replace("-p 0", "-p PORT").replace("-t set", "-t set|get"))
    for op in OPS:
        medians = {server: statistics.median(r[op][0] for r in rounds) for server, rounds in results.items()}
        cpu = {server: statistics.median(r[op][1] for r in rounds) for server, rounds in results.items()}
        line = ", ".join(f"{server} {medians[server]:,.0f}/s ({cpu[server]:.2f} us CPU/request)" for server in results)
        if "redis" in results:
            for what, at, ratio in (
                ("rate", 0, lambda s, r: s / r),
                ("CPU per request, redis / smrlab", 1, lambda s, r: r / s),
            ):
                ratios = [ratio(s[op][at], r[op][at]) for s, r in zip(results["smrlab"], results["redis"])]
                line += (
                    f"; {what}: median {statistics.median(ratios):.2f}, min {min(ratios):.2f}, max {max(ratios):.2f}"
                    f" (rounds: {', '.join(f'{x:.2f}' for x in ratios)})"
                )
        print(f"# {op}: {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
