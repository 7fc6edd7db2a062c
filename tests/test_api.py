"""The Python API: simulate / compare / sweep against the command line and against each other,
in-memory traces against the same requests read from a file, Trace's views of a file, and typed
errors for bad input."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pyarrow as pa
import pytest
import smrlab
from conftest import DATA


@pytest.fixture(scope="module")
def wdev():
    return smrlab.Trace.open(DATA / "wdev.csv.gz")


def test_simulate_equals_the_command_line(cli, tmp_path):
    out = tmp_path / "r.json"
    cli(
        "sim",
        "--system",
        "cache",
        "--trace",
        DATA / "wdev.csv.gz",
        "--policy",
        "lru-band",
        "--cache",
        "1%",
        "--out",
        out,
        check=True,
    )
    from_cli = json.loads(out.read_text())
    result = smrlab.simulate("cache", DATA / "wdev.csv.gz", policy="lru-band", cache="1%")
    assert result.counters == from_cli["report"]["counters"]
    assert result.derived == from_cli["derived"]
    assert result.config["params"]["policy"] == "lru-band"
    row = result.to_pandas().iloc[0]
    assert row["cache"] == "1%" and row["write_hits"] == result.counters["write_hits"]
    assert result.to_dict()["trace"]["checksum"] == from_cli["trace"]["checksum"]


@pytest.mark.parametrize("form", ["numpy", "arrow", "pandas"])
def test_in_memory_trace_gives_the_file_numbers(wdev, form):
    requests = wdev.to_numpy()
    memory = {"numpy": requests, "arrow": wdev.to_arrow(), "pandas": pd.DataFrame(requests)}[form]
    from_file = smrlab.simulate("dmsmr", wdev, buffer="1/128")
    from_memory = smrlab.simulate("dmsmr", memory, buffer="1/128")
    assert from_memory.counters == from_file.counters and from_memory.derived == from_file.derived
    assert from_memory.to_dict()["trace"]["path"] == "<in-memory trace>"


def test_trace_views_agree_with_trace_stats(cli, wdev):
    stats = json.loads(cli("trace", "stats", DATA / "wdev.csv.gz", "--json", check=True).stdout)
    assert len(wdev) == stats["requests"] and wdev.stats() == stats
    table = wdev.to_arrow()
    assert table.num_rows == stats["requests"]
    writes = pa.compute.sum(pa.compute.equal(table["op"], smrlab.WRITE)).as_py()
    assert writes == stats["writes"]
    written = pa.compute.sum(pa.compute.if_else(pa.compute.equal(table["op"], smrlab.WRITE), table["len"], 0)).as_py()
    assert written == stats["bytes_written"]
    head = wdev.head(3)
    assert list(head["offset"]) == list(table["offset"][:3].to_pylist())
    assert set(head["op"]) <= {"read", "write", "trim"}
    assert smrlab.Trace.from_arrow(table).stats() == stats


def test_compare_and_sweep_rows(wdev):
    frame = smrlab.compare({"plain": "cmr", "smr": {"system": "dmsmr", "buffer": "1/64"}}, wdev)
    assert list(frame["label"]) == ["plain", "smr"]
    smr = smrlab.simulate("dmsmr", wdev, buffer="1/64")
    assert frame.set_index("label").loc["smr", "band_cleanings"] == smr.counters["band_cleanings"]
    sweep = smrlab.sweep("cache", wdev, vary={"cache": ["1%", "4%"], "policy": ["lru", "lru-band"]}, mode="wo")
    assert len(sweep) == 4 and sweep["error"].isna().all()
    # A bigger write-only cache absorbs more writes, whichever policy.
    for policy, rows in sweep.groupby("policy"):
        hits = rows.set_index("cache")["write_hit_rate"]
        assert hits["4%"] > hits["1%"], policy


def test_bad_input_raises_typed_errors(wdev):
    with pytest.raises(smrlab.ParameterError, match="bogus"):
        smrlab.simulate("cmr", wdev, bogus=1)
    requests = np.zeros(2, dtype=smrlab.REQUEST_DTYPE)
    requests["len"] = 4096
    requests["op"][1] = 7
    with pytest.raises(smrlab.TraceFormatError, match="op code 7"):
        smrlab.simulate("cmr", requests)
    with pytest.raises(smrlab.TraceFormatError, match="'len'"):
        smrlab.Trace.from_arrow(pa.table({"time_ns": [0], "op": [1], "offset": [0]}))
    with pytest.raises(smrlab.TraceFormatError, match="negative"):
        smrlab.Trace.from_columns([0], [1], [-4096], [4096])
    with pytest.raises(smrlab.TraceFormatError, match="float"):
        smrlab.Trace.from_columns([0.5], [1], [0], [4096])
    with pytest.raises(smrlab.TraceFormatError, match="no such trace"):
        smrlab.Trace.open("/nonexistent/trace.csv")
    # A failed run of a comparison is a row with its error; the others are measured.
    # A value the core can refuse without the trace stops the comparison before any run.
    with pytest.raises(smrlab.ParameterError, match="'no-such-disk' is not one of"):
        smrlab.compare({"ok": "cmr", "bad": {"system": "cmr", "disk": "no-such-disk"}}, wdev)
    # A failed run of a comparison is a row with its error; the others are measured.
    frame = smrlab.compare({"ok": "cmr", "bad": {"system": "cmr", "disk_cache": "huge"}}, wdev)
    assert frame.set_index("label")["error"].isna().to_dict() == {"ok": True, "bad": False}
    assert "huge" in frame.set_index("label").loc["bad", "error"]


def test_the_mean_response_is_exact_past_2_64_ns():
    # 60,000 requests of 4 GiB - 4 KiB all arriving at time 0, reads and writes alternating: each
    # waits for all before it (about 25 s of service each), so the reads' responses and the
    # writes' each add up to about 2 * 10^19 ns, past 2^64 - 1, where the core's sum_ns stops.
    # The mean over both must come from the exact per-op means: it lies between them, weighted
    # by their counts (the clamped sums gave a mean below both).
    count, length = 60_000, (1 << 32) - 4096
    requests = np.zeros(count, dtype=smrlab.REQUEST_DTYPE)
    requests["op"] = np.where(np.arange(count) % 2, smrlab.WRITE, smrlab.READ)
    requests["len"] = length
    result = smrlab.simulate("cmr", requests, engine={"mode": "open"})
    report = result.to_dict()["report"]
    read, write = report["read"]["response"], report["write"]["response"]
    assert read["mean_ns"] * read["count"] + write["mean_ns"] * write["count"] > 2**64
    assert read["sum_ns"] == write["sum_ns"] == 2**64 - 1, "the run reaches the clamp"
    mean = result.row()["response_mean_ns"]
    assert min(read["mean_ns"], write["mean_ns"]) <= mean <= max(read["mean_ns"], write["mean_ns"])
    assert mean == pytest.approx(
        (read["mean_ns"] * read["count"] + write["mean_ns"] * write["count"]) / count, rel=1e-12
    )


def test_sweep_from_a_plain_script_without_a_main_guard(tmp_path):
    # The README's sweep with jobs=None in a script that has no `if __name__ == "__main__":`:
    # the workers must not run the script again (which started workers of their own, without end).
    script = tmp_path / "script.py"
    script.write_text(
        "import smrlab\n"
        f"frame = smrlab.sweep('dmsmr', {str(DATA / 'wdev.csv.gz')!r}, vary={{'buffer': ['1/512', '1/256', '1/64']}}, jobs=None)\n"
        "print('rows', len(frame), list(frame['buffer']))\n"
    )
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.count("rows") == 1 and "rows 3 ['1/512', '1/256', '1/64']" in proc.stdout
    assert "Traceback" not in proc.stderr
