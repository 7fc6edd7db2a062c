"""Progress on stderr for every command that runs longer than a few seconds, one mechanism
(``smrlab.live``, on rich.progress) with one piped behaviour: plain lines at most every
SMRLAB_PROGRESS_SECONDS, naming every task in progress, printed by a clock even while no task
moves. The commands here were silent when piped (no total, or no progress at all)."""

from __future__ import annotations

import re

import pytest
from conftest import REPO


@pytest.fixture
def often(monkeypatch):
    """A line at every move of a task, and by the clock five times a second."""
    monkeypatch.setenv("SMRLAB_PROGRESS_SECONDS", "0")


def progress_lines(proc, needle: str) -> list[str]:
    assert proc.returncode == 0, proc.stderr
    return [line for line in proc.stderr.splitlines() if needle in line]


def test_a_fluid_sweep_shows_its_runs(cli, often):
    # Its runs are the cells of one experiment, shown as they start and end (in worker processes,
    # whose requests are not shown).
    proc = cli(
        "fluid-sweep", "usage", "--requests", "150000", "--usages", "0.9,0.95", "--schemes", "fluid-smr", "--out", "out"
    )
    lines = progress_lines(proc, "fluid-sweep usage on prn_1:")
    assert lines[-1] == "fluid-sweep usage on prn_1: 100 % of 2 runs" and all(
        " of 2 runs, " in line for line in lines[:-1]
    ), proc.stderr
    assert any("1 running" in line or "2 running" in line for line in lines), proc.stderr


def test_hwsr_compare_shows_its_line_up(cli, often):
    proc = cli(
        "hwsr", "compare", "--preset", "financial1", "--requests", "20000", "--only", "hwsr,sblock", "--out", "out"
    )
    lines = progress_lines(proc, "hwsr compare on")
    assert lines and any("of 2 runs" in line for line in lines), proc.stderr


def test_a_ycsb_run_shows_its_seconds(cli, often):
    proc = cli("kv", "ycsb", "store", "--duration", "2", "--rate", "200", "--records", "100")
    lines = progress_lines(proc, "YCSB workload a")
    assert len(lines) >= 3 and all(" of 2 s" in line for line in lines[:-1]), proc.stderr
    assert lines[-1].endswith("100 % of 2 s")


def test_cells_running_elsewhere_still_get_a_line_by_the_clock(cli, tmp_path, often):
    # One cell in a worker process: nothing moves in this process until it ends, and lines come all the same.
    (tmp_path / "exp.toml").write_text(
        'name = "one"\ntraces = ["bundled:wdev", "bundled:ts"]\n[[systems]]\nsystem = "dmsmr"\n'
    )
    proc = cli("run", "exp.toml", "--jobs", "2")
    lines = progress_lines(proc, "one: ")
    assert len(lines) >= 2 and any("running" in line for line in lines), proc.stderr


def test_one_progress_mechanism():
    assert not (REPO / "python" / "smrlab" / "progress.py").exists()
    sources = [p for p in (REPO / "python" / "smrlab").rglob("*.py") if p.name != "live.py"]
    # A string that starts with a carriage return, in a file that writes to standard error.
    returns = re.compile(r"[\"']\\r")
    assert not [p for p in sources if returns.search(p.read_text()) and "stderr" in p.read_text()], (
        "carriage-return progress outside live.py"
    )
