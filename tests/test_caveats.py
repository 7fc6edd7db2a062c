"""No number without its warning: a saturated run's response times carry a mark and a footnote,
and a run whose numbers are degenerate for a known reason (nothing evicted, no band cleaned,
rows identical by construction) says so once, in every front: the command line's tables and
their JSON, the API's ``Result.caveats``, the results tables and the report."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys

import smrlab
from conftest import DATA
from smrlab import caveats, results
from smrlab.caveats import SATURATED_MARK, SATURATED_NOTE
from smrlab.cli.report import default_title


def drawn(folder, *args) -> subprocess.CompletedProcess:
    """``smrlab ARGS...`` in ``folder`` with its tables drawn wide enough for every cell."""
    proc = subprocess.run(
        [sys.executable, "-m", "smrlab", *map(str, args)],
        cwd=folder,
        capture_output=True,
        text=True,
        env={**os.environ, "COLUMNS": "400"},
    )
    assert proc.returncode == 0, proc.stderr
    return proc


def rows_of(stdout: str) -> dict[str, str]:
    """A drawn table's rows by their first cell, as the text of the whole line."""
    found = {}
    for line in stdout.splitlines():
        cells = [cell.strip() for cell in line.strip("│").split("│")]
        if line.startswith("│") and cells[0]:
            found[cells[0]] = line
    return found


def test_the_readme_hwsr_comparison_marks_saturated_runs_and_says_why_rows_are_identical(tmp_path):
    proc = drawn(tmp_path, "hwsr", "compare", "--preset", "financial1", "--requests", "20000", "--out", "hw")
    rows = rows_of(proc.stdout)
    # Without a MEM buffer HWSR cannot keep up with Financial1's arrivals: its queue grew for the
    # whole replay, and each response time says so; the plain disk's do not.
    assert rows["hwsr no-cache"].count(SATURATED_MARK) == 4 and SATURATED_MARK not in rows["disk"]
    assert SATURATED_NOTE in " ".join(proc.stdout.split())
    # The MEM buffer never evicted, so HWSR's MEM policies cannot differ: said once, not ranked apart.
    text = " ".join(proc.stdout.split())
    assert text.count("nothing was evicted") == 1
    assert "hwsr, hwsr lru-block, hwsr lru-segment: identical numbers" in text


def test_compare_caches_ties_identical_caches_and_sets_no_factor_beside_the_paper(cli, tmp_path):
    sample = tmp_path / "wdev1k.csv"
    with gzip.open(DATA / "wdev.csv.gz", "rt") as whole:
        sample.write_text("".join(next(whole) for _ in range(1000)))
    proc = cli("compare-caches", "--trace", sample, "--cache", "100%", "--out", "cc", "--json", check=True)
    [table] = json.loads(proc.stdout)["tables"]  # no "PORE-BL vs paper" table that reads as a confirmation
    ranks = {row[0]: row[1] for row in table["rows"]}
    caches = ["lru", "lru-band", "pore-cf", "pore-pf", "pore-bl"]
    assert {ranks[label] for label in caches} == {1} and ranks["cmr-only"] == 2
    assert f"{', '.join(caches)}: identical numbers: what tells them apart never came into play" in table["notes"]
    assert sum("nothing was evicted" in line for line in table["notes"]) == 1
    assert "no factor to set beside the paper's" in proc.stderr


def test_the_api_result_carries_its_caveats():
    whole = smrlab.simulate("cache", DATA / "wdev.csv.gz", cache="100%")
    assert any("nothing was evicted" in caveat for caveat in whole.caveats)
    assert whole.row()["caveats"].split("\n") == whole.caveats
    busy = smrlab.simulate("dmsmr", DATA / "wdev.csv.gz", engine={"mode": "open", "speedup": 1000})
    assert SATURATED_NOTE.removeprefix(SATURATED_MARK).strip() in busy.caveats


SATURATING = """
name = "saturating"
metrics = ["total_io_s", "response_mean_ns"]
traces = ["bundled:wdev"]
[engine]
mode = "open"
speedup = 1000
[[systems]]
system = "dmsmr"
[[systems]]
label = "whole-cache"
system = "cache"
params = { cache = "100%" }
"""


def test_results_tables_and_the_report_mark_saturated_runs_and_say_why(cli, tmp_path):
    (tmp_path / "saturating.toml").write_text(SATURATING)
    ran = drawn(tmp_path, "run", "saturating.toml", "--jobs", "1", "--out", "nested/deeper")
    assert SATURATED_MARK in rows_of(ran.stdout)["dmsmr"]
    shown = drawn(tmp_path, "results", "nested")
    assert SATURATED_MARK in rows_of(shown.stdout)["dmsmr"] and SATURATED_NOTE in " ".join(shown.stdout.split())
    assert "whole-cache on wdev: not informative" in " ".join(shown.stdout.split())
    # The report walks the nested folders, and a user's own experiment is titled as asked, or by its own name.
    cli("report", "nested", "-o", "r.html", "--title", "My caches", check=True)
    page = (tmp_path / "r.html").read_text()
    assert f"{SATURATED_MARK}</td>" in page and SATURATED_NOTE in page and "nothing was evicted" in page
    assert "<title>My caches</title>" in page and "<h1>My caches</h1>" in page
    assert default_title(results.tables_under(tmp_path / "nested"), []) == "saturating"


def test_fig_5_8_says_when_offloading_never_engaged():
    """The README's ``workload fig5.8 --duration 1`` showed "with offloading" three times faster at
    0 % offloaded: no compaction ran in a second, so both rows measured the same store and the
    gap was the order they ran in (run twice without offloading, the second was twice as fast)."""

    def run(compactions: int, offloaded: int) -> dict:
        return {"store": {"compactions": compactions, "offloaded_user_bytes": offloaded}}

    [line] = caveats.offload_notes({"without offloading": run(0, 0), "with offloading": run(0, 0)})
    assert line.startswith("with offloading: not informative: no compaction ran") and "not offloading" in line
    [busy] = caveats.offload_notes({"without offloading": run(4, 0), "with offloading": run(4, 0)})
    assert "no write arrived while a compaction ran" in busy
    assert caveats.offload_notes({"without offloading": run(4, 0), "with offloading": run(4, 1 << 20)}) == []


def ycsb_summary(requests: int, throughput: float) -> dict:
    """A YCSB run's summary as the core gives it, with every latency 1 ms."""
    latency = {"count": requests, **{f"{p}_ns": 1e6 for p in ("mean", "p50", "p90", "p99", "p999", "max")}}
    return {
        "requests": requests,
        "throughput": throughput,
        "latency": latency,
        "by_op": [("insert", latency)],
        "failed": 0,
        "missed": 0,
        "waited_for_worker": 0,
        "scheduling_error": {"p50_ns": 1e3, "p99_ns": 1e3},
    }


def test_a_store_run_that_fell_behind_its_arrivals_is_marked_saturated(monkeypatch, capsys):
    """The README's ``kv ycsb --server ... --rate 2000 --duration 2`` completed 1,398 requests a
    second of the 2,000 scheduled, and ``workload fig4.10 --duration 1`` about 16,000 of 25,600
    in all four runs: latencies of a growing backlog, printed without a mark."""
    from smrlab import workload
    from smrlab.cli import main
    from smrlab.workload_experiments import latency_row

    assert caveats.fell_behind(ycsb_summary(4001, 1398), 2.0)
    assert not caveats.fell_behind(ycsb_summary(10000, 4990), 2.0)
    assert not caveats.fell_behind(ycsb_summary(0, 0), 2.0)
    assert caveats.behind("a", ycsb_summary(10000, 4990), 2.0) == []
    marked, kept = latency_row("x", ycsb_summary(4001, 1398), 2.0), latency_row("y", ycsb_summary(4000, 2000), 2.0)
    assert all(isinstance(cell, caveats.Marked) for cell in marked[3:]) and caveats.marks([kept]) == set()

    result = {"summary": ycsb_summary(4001, 1398), "arrivals": 4001, "load_seconds": 0.0}
    monkeypatch.setattr(workload, "run_ycsb", lambda *args, **kwargs: result)
    assert main(["kv", "ycsb", "--server", "127.0.0.1:1", "--rate", "2000", "--duration", "2"]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "1.000 ‡" in printed and SATURATED_NOTE in printed and "1,398 requests a second of the 2,000" in printed
    assert main(["kv", "ycsb", "--server", "127.0.0.1:1", "--rate", "2000", "--duration", "2", "--json"]) == 0
    [line] = json.loads(capsys.readouterr().out)["notes"]
    assert "the store fell behind" in line
