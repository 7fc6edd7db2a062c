"""The write-offloading store of chapter 5 from Python: offloading happens only when enabled and
while compactions run; its counters add up; the NVRAM lifetime of Fig. 5.3; the experiments'
commands run end to end (tiny runs: their numbers are in docs/workloads.md)."""

from __future__ import annotations

import json

import pytest
from smrlab import caveats, workload


def heavy_inserts(store) -> dict:
    props = {
        "recordcount": 1,
        "readproportion": 0,
        "updateproportion": 0,
        "insertproportion": 1,
        "fieldcount": 1,
        "fieldlength": 1000,
    }
    return workload.run_ycsb(store, "a", props, process="constant", rate=30000, duration=1, threads=4)


@pytest.mark.parametrize("offload", [False, True])
def test_offloading_only_when_enabled_and_counters_add_up(tmp_path, offload):
    store = workload.WorkloadStore(
        offload_store=True,
        path=tmp_path / "db",
        band_size=1 << 20,
        capacity=512 << 20,
        offload=offload,
        buffer_bands=(2, 2, 4),
        check_interval=0.05,
        quiet_interval=0.2,
    )
    try:
        result = heavy_inserts(store)
        stats = json.loads(store.stats())
    finally:
        store.close()
    assert result["summary"]["failed"] == 0
    assert stats["puts"] == 30001
    assert stats["user_bytes"] > 30000 * 1000
    assert stats["compactions"] > 0 and stats["compaction_bytes_written"] > 0
    if offload:
        assert 0 < stats["offloaded_user_bytes"] < stats["user_bytes"]
        assert stats["nvram_bytes_written"] >= stats["offloaded_user_bytes"]
    else:
        assert stats["offloaded_user_bytes"] == stats["nvram_bytes_written"] == 0
    assert stats["disk_log_bytes"] + stats["nvram_bytes_written"] >= stats["user_bytes"]
    reopened = workload.WorkloadStore(offload_store=True, path=tmp_path / "db", offload=offload)
    try:
        assert (
            json.loads(reopened.stats())["unsorted_user_bytes"]
            + sum(b for _, b in json.loads(reopened.stats())["levels"])
            > 30000 * 1000
        )
    finally:
        reopened.close()


def test_nvram_lifetime_follows_fig_5_3():
    tb = 1e12
    always = workload.nvram_lifetime(40e9, 8 * tb, 1.0, 3000)
    assert always["user_bytes"] == pytest.approx(120 * tb) and always["disk_overwrites"] == pytest.approx(15)
    partly = workload.nvram_lifetime(40e9, 8 * tb, 0.4, 3000)
    assert partly["user_bytes"] == pytest.approx(300 * tb) and partly["disk_overwrites"] == pytest.approx(37.5)
    assert workload.nvram_lifetime(40e9, 8 * tb, 0.0)["disk_overwrites"] == float("inf")


def test_table_5_1_runs_its_eight_workloads_in_order(cli):
    proc = cli(
        "workload",
        "table5.1",
        "--duration",
        "0.5",
        "--rate-scale",
        "0.2",
        "--band-size",
        "1MiB",
        "--capacity",
        "1GiB",
        "--buffer-bands",
        "2",
        "2",
        "4",
        "--quiet-interval",
        "0.2",
        "--check-interval",
        "0.05",
        "--disk",
        "none",
        "--json",
        check=True,
    )
    rows = json.loads(proc.stdout, parse_constant=refuse)
    assert [r["workload"] for r in rows] == [str(i) for i in range(1, 9)]
    for row in rows:
        # A row says when its numbers cannot show anything (no compaction, nothing offloaded).
        assert (caveats.NO_COMPACTION in row["caveats"]) == (row["read_pct"] == row["rewritten_pct"] == 0), row
        assert (caveats.NVRAM_UNBOUNDED in row["caveats"]) == (row["offloaded_pct"] == 0), row
        assert (row["nvram_lifetime_disk_overwrites"] is None) == (row["offloaded_pct"] == 0), row
    assert [r["process"] for r in rows] == ["selfsimilar"] * 4 + ["diurnal"] * 4
    assert all(r["failed"] == 0 for r in rows)
    assert rows[0]["written_mb"] == pytest.approx(0.5, rel=0.2), "500 1-KB inserts"
    assert rows[0]["rate"] == pytest.approx(1000) and rows[7]["modulation"] == pytest.approx(980)
    assert all(r["unissued_pct"] == 0 for r in rows), "in memory at full speed every request is issued"


def refuse(constant: str):
    raise AssertionError(f"{constant} is not JSON")


def test_table_5_1_says_a_run_too_short_to_measure_is_one(capsys):
    # The README's --duration 0.25 printed rows of zeros and an NVRAM life of "inf" without a word.
    from smrlab.cli import main

    options = ["--band-size", "1MiB", "--capacity", "1GiB", "--rate-scale", "0.1", "--disk", "none"]
    assert main(["workload", "table5.1", "--duration", "0.05", "--quiet-interval", "0.05", *options]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert "inf" not in printed.replace("informative", "")
    # The table's cells are the terminal's to fit (rich folds a narrow column); the notes under it
    # say what each row's numbers mean, and the JSON's cells are checked above.
    assert f"#1, #2, #3, #4, #5, #6, #7, #8: {caveats.NO_COMPACTION}" in printed
    assert f"#8: {caveats.NVRAM_UNBOUNDED}" in printed


def test_table_5_1_on_the_paced_disk_stops_each_workload_at_its_limit(cli):
    # Paced on the 7200 rpm model (the default), a workload issues nothing after --stop-after
    # seconds; the table says what share of its schedule it never issued.
    proc = cli(
        "workload",
        "table5.1",
        "--duration",
        "0.4",
        "--stop-after",
        "0.3",
        "--rate-scale",
        "0.2",
        "--band-size",
        "1MiB",
        "--capacity",
        "1GiB",
        "--buffer-bands",
        "2",
        "2",
        "4",
        "--quiet-interval",
        "0.2",
        "--check-interval",
        "0.05",
        "--json",
        check=True,
    )
    rows = json.loads(proc.stdout)
    assert len(rows) == 8 and all(r["failed"] == 0 for r in rows)
    # The b-model gives the last quarter of the schedule at least 0.35^2 of its requests.
    assert rows[0]["unissued_pct"] > 5, "a 0.4 s schedule stopped at 0.3 s leaves its last quarter unissued"
    assert all(0 <= r["unissued_pct"] <= 100 for r in rows)


def test_latency_experiments_run_end_to_end(cli):
    proc = cli(
        "workload",
        "fig5.8",
        "--duration",
        "1",
        "--calibration-requests",
        "3000",
        "--band-size",
        "1MiB",
        "--capacity",
        "1GiB",
        "--buffer-bands",
        "2",
        "2",
        "4",
        "--json",
        check=True,
    )
    out = json.loads(proc.stdout)
    assert set(out["runs"]) == {"without offloading", "with offloading"}
    assert out["runs"]["without offloading"]["store"]["offloaded_user_bytes"] == 0
    proc = cli(
        "workload",
        "fig4.10",
        "--duration",
        "1",
        "--calibration-requests",
        "3000",
        "--band-size",
        "1MiB",
        "--capacity",
        "1GiB",
        "--json",
        check=True,
    )
    out = json.loads(proc.stdout)
    assert set(out["runs"]) == {"constant", "poisson", "selfsimilar", "diurnal"}
    assert all(run["summary"]["failed"] == 0 for run in out["runs"].values())


BAD_STORES = {
    "numeric path": (dict(path=123), "path"),
    "empty path": (dict(path=""), "path"),
    "band_size past 2^64": (dict(band_size=2**64), "band_size"),
    "nvram_capacity past 2^64": (dict(offload_store=True, nvram_capacity=2**64), "nvram_capacity"),
    "zero buffer level": (dict(offload_store=True, buffer_bands=(0, 10, 100)), "buffer_bands"),
}


@pytest.mark.parametrize("options, named", BAD_STORES.values(), ids=BAD_STORES.keys())
def test_bad_store_options_are_typed_errors_naming_them(options, named):
    from smrlab.errors import SmrlabError

    with pytest.raises(SmrlabError, match=named):
        workload.WorkloadStore(**options).close()


def test_the_store_state_is_taken_after_the_inserts_before_the_reads(monkeypatch):
    """Fig. 5.5's table is "the system state after the inserts and before the sequential reads"
    (§5.4.2): a store whose compaction sorts data during the reads must show the state the
    inserts left, not the state at the end of the cell."""
    from smrlab.experiment.kv import offload

    class Store:
        steps_run = 0

        def __init__(self, **options):
            pass

        def stats(self):
            # Each step run sorts another quarter of the data.
            unsorted = 1000 - 250 * Store.steps_run
            keys = ("offloaded", "unsorted_nvram")
            counts = {f"{k}_user_bytes": 0 for k in keys}
            return json.dumps(
                {
                    "user_bytes": 1000,
                    "unsorted_user_bytes": unsorted,
                    "compaction_bytes_read": 0,
                    "compaction_bytes_written": 0,
                    "compactions": Store.steps_run,
                    "delayed_writes": 0,
                    **counts,
                }
            )

        def close(self):
            pass

    def run_ycsb(store, workload, properties, **options):
        Store.steps_run += 1
        latency = {"p99_ns": 1}
        summary = {"requests": 1, "failed": 0, "elapsed_s": 1, "latency": latency, "unissued": 0, "by_op": []}
        return {"summary": summary}

    monkeypatch.setattr(workload, "WorkloadStore", Store)
    monkeypatch.setattr(workload, "run_ycsb", run_ycsb)
    step = {"process": "constant", "rate": 1, "duration": 1}
    steps = [
        {"name": "insert", "workload": "insert", **step},
        {"name": "scan", "workload": "e", **step},
        {"name": "read", "workload": "c", **step},
    ]
    out = offload.run(steps, {"offload": "none"}, seed=1)
    assert Store.steps_run == 3
    assert out["store"]["unsorted_pct"] == 75.0, "the state after the one step that writes"
    assert out["store"]["compactions"] == 1


def test_a_count_step_issues_exactly_its_count_with_no_stop_and_a_duration_step_stops_at_three_times_it():
    """Fig. 5.5's table is measured after 2.5 million inserts (§5.4.2), the same for every store:
    a step given as a count issues every one of its operations however long they take, where a
    step given as a duration stops issuing after three times it."""
    from smrlab import _core
    from smrlab.experiment.kv import offload

    for count, rate in [(156_250, 500_000), (39_062, 1_000_000), (1, 3), (625_000, 7)]:
        length = offload.step_length({"count": count, "rate": rate})
        assert length["stop_after"] is None
        arrivals = _core.arrival_schedule(workload.arrival_params("constant", rate, length["duration"]), 1)
        assert len(arrivals) // 8 == count  # one u64 of nanoseconds each
    assert offload.step_length({"duration": 30, "rate": 5}) == {"duration": 30.0, "stop_after": 90.0}


@pytest.mark.parametrize(
    "change, named",
    [
        ({"count": 10, "duration": 1}, "not both"),
        ({}, "not neither"),
        ({"count": 2.5}, "whole number"),
        ({"count": 0}, "positive"),
        ({"count": 10, "process": "poisson"}, "constant process"),
    ],
)
def test_a_step_needs_a_duration_or_a_whole_count_of_constant_arrivals(change, named):
    from smrlab.errors import UsageError
    from smrlab.experiment.kv import offload

    step = {"name": "insert", "workload": "insert", "process": "constant", "rate": 10, **change}
    if not {"count", "duration"} & set(change):
        step.pop("duration", None)
    with pytest.raises(UsageError, match=named):
        offload.check_steps([step])
