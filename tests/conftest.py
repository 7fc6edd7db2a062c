"""Shared fixtures: running the ``smrlab`` command as a user would, and small hand-made traces."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from smrlab.cli import main

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "data"

# A small experiment: 2 traces x 2 seeds x 2 systems x 2 buffer sizes, 16 cells.
SMALL = f"""
name = "small"
title = "a small grid"
metrics = ["total_io_s", "r_wa"]
traces = ["{DATA / "wdev.csv.gz"}", "bundled:ts"]
seeds = [0, 7]
[params]
buffer = ["1/512", "1/64"]
[[systems]]
system = "dmsmr"
[[systems]]
label = "lru-band"
system = "cache"
params = {{ policy = "lru-band", cache = "1%" }}
"""

# 100 ns ticks of Windows FILETIME, as in the MSR Cambridge traces.
MSR_T0 = 128166372000000000


def write(folder: Path, text: str, name: str = "exp.toml") -> Path:
    """``text`` written to ``folder/name`` (an experiment file, by default)."""
    path = folder / name
    path.write_text(text)
    return path


def msr_line(tick: int, op: str, offset: int, size: int) -> str:
    return f"{MSR_T0 + tick},host,0,{op},{offset},{size},100"


# Session fixtures long enough that two pytest workers should not each run them: the test files
# using one of them run on one worker, a worker of its own per fixture (the demo replays the four
# full-size PORE traces; the quick scorecard runs every paper's quick experiments). A file may use
# only one of them, or both would run on its worker.
SHARED_RUNS = ("quick_scorecard", "demo")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(items):
    """Groups the tests for pytest-xdist (``--dist loadgroup``): a test file's tests stay on one
    worker (its module fixtures run once), and the files that use one fixture of ``SHARED_RUNS``
    share one worker. First of the hooks: xdist reads the groups in a hook of its own, which
    pytest would otherwise call before this one (the groups came too late, and every worker ran
    the demo and the quick scorecard)."""
    shared: dict[str, str] = {}
    for item in items:
        for fixture in set(SHARED_RUNS) & set(item.fixturenames):
            module = item.module.__name__
            if shared.setdefault(module, fixture) != fixture:
                raise pytest.UsageError(f"{module} uses both {shared[module]} and {fixture}: split the file")
    for item in items:
        module = item.module.__name__
        group = f"shared-{shared[module]}" if module in shared else module
        item.add_marker(pytest.mark.xdist_group(group))


@pytest.fixture
def cli(tmp_path):
    """Runs ``smrlab ARGS...`` in a fresh folder; returns the CompletedProcess (text mode)."""

    def run(*args: str, check: bool = False) -> subprocess.CompletedProcess:
        proc = subprocess.run(
            [sys.executable, "-m", "smrlab", *map(str, args)],
            cwd=tmp_path,
            capture_output=True,
            text=True,
        )
        if check and proc.returncode != 0:
            raise AssertionError(f"smrlab {' '.join(map(str, args))} failed ({proc.returncode}):\n{proc.stderr}")
        return proc

    return run


@pytest.fixture(scope="session")
def demo(tmp_path_factory) -> tuple[str, Path]:
    """``smrlab demo`` run once for the whole session (it replays the full-size PORE traces):
    its standard output and its results folder."""
    folder = tmp_path_factory.mktemp("demo")
    proc = subprocess.run(
        [sys.executable, "-m", "smrlab", "demo", "--out", "results"], cwd=folder, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout, folder / "results"


@pytest.fixture(scope="session")
def quick_scorecard(tmp_path_factory) -> tuple[dict, Path]:
    """``smrlab reproduce --quick`` run once for the whole session: its scorecard (the JSON
    document) and the folder holding its results (``results/reproduce``, with the scorecard,
    and what it printed at a terminal's 100 columns in ``terminal.txt``). One seed: three would
    more than double its time (tests/test_reproduce_seeds.py runs seeds)."""
    folder = tmp_path_factory.mktemp("reproduce")
    results = folder / "results" / "reproduce"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "smrlab",
            "reproduce",
            "--quick",
            "--seeds",
            "1",
            "--jobs",
            "2",
            "--results",
            str(results),
            "-o",
            str(results / "scorecard-quick.json"),
            "-o",
            str(folder / "scorecard-quick.parquet"),
        ],
        cwd=folder,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "100"},
    )
    assert proc.returncode == 0, proc.stderr
    (results / "terminal.txt").write_text(proc.stdout)
    return json.loads((results / "scorecard-quick.json").read_text()), results


@pytest.fixture
def small_msr_trace(tmp_path) -> Path:
    """A 2,000-request MSR Cambridge CSV: random-ish 4-64 KiB reads and writes over 2 GiB."""
    lines = []
    state = 12345
    for index in range(2000):
        state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
        op = "Write" if (state >> 33) % 10 < 7 else "Read"
        offset = ((state >> 20) % (2 * 2**30 // 4096)) * 4096
        size = 4096 * (1 + (state >> 8) % 16)
        lines.append(msr_line(index * 10_000, op, offset, size))
    path = tmp_path / "small.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


def assert_parameter_errors(system, trace, cases):
    """Each (option, parameter name) in `cases` makes `smrlab sim` fail with exit code 2 and one
    clear line naming the parameter (run in this process: each is refused before the command
    has anything to do, and a process of its own costs about 0.7 s of start-up a case)."""
    for option, name in cases:
        stderr = io.StringIO()
        with contextlib.redirect_stderr(stderr), contextlib.redirect_stdout(io.StringIO()):
            code = main(["sim", "--system", system, "--trace", str(trace), option])
        lines = stderr.getvalue().strip().splitlines()
        assert code == 2 and len(lines) == 1 and name in lines[0], (option, lines)
