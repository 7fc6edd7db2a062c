"""``smrlab results``: what it shows by default (the experiment's measures and what identifies
a row, not every counter, named for people as ``sim`` names them), plain CSV, and pivots that
never average different systems' rows together."""

from __future__ import annotations

import csv
import io
import os
import subprocess
import sys

import pyarrow.parquet as pq
import pytest

EXPERIMENT = """
name = "results-cli"
metrics = ["r_wa", "band_cleanings"]
traces = ["bundled:wdev", "bundled:ts"]
[params]
buffer = ["1/256", "1/64"]
[[systems]]
label = "small-bands"
system = "dmsmr"
params = { band_size = "4MiB" }
[[systems]]
label = "large-bands"
system = "dmsmr"
params = { band_size = "16MiB" }
"""


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("results")
    (folder / "exp.toml").write_text(EXPERIMENT)
    proc = subprocess.run(
        [sys.executable, "-m", "smrlab", "run", "exp.toml", "--out", "results"],
        cwd=folder,
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if k != "COLUMNS"},  # its table as wide as it needs
    )
    assert proc.returncode == 0, proc.stderr
    (folder / "run.txt").write_text(proc.stdout)
    return folder


def results(folder, *args):
    env = {k: v for k, v in os.environ.items() if k != "COLUMNS"}
    proc = subprocess.run(
        [sys.executable, "-m", "smrlab", "results", "results", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    return proc


def test_a_pivot_keeps_what_tells_rows_apart_instead_of_averaging_them(folder):
    # Without a filter, trace:buffer:r_wa would mix the two disks: what tells them apart stays.
    proc = results(folder, "--pivot", "trace:buffer:r_wa", "--csv")
    assert "rows differ in label, band_size as well" in proc.stderr
    rows = list(csv.DictReader(io.StringIO(proc.stdout)))
    table = pq.read_table(next((folder / "results").glob("*/*.parquet"))).to_pandas()
    assert len(rows) == 4  # two traces x two labels
    for row in rows:
        for buffer in ("1/256", "1/64"):
            [value] = table.query(f"trace == '{row['trace']}' and label == '{row['label']}' and buffer == '{buffer}'")[
                "r_wa"
            ]
            assert float(row[buffer]) == pytest.approx(value, rel=1e-12)
    # With a filter, one row per trace and nothing kept.
    proc = results(folder, "--where", "label=small-bands", "--pivot", "trace:buffer:r_wa", "--csv")
    assert "differ" not in proc.stderr
    assert [row["trace"] for row in csv.DictReader(io.StringIO(proc.stdout))] == ["wdev", "ts"]


def test_a_measure_some_rows_lack_is_not_taken_for_what_ran():
    # The README's pivot of uCache rows kept read_response_mean_ns apart as if it were a setting:
    # rows of other tables without it made it a column of objects.
    import pandas as pd
    from smrlab.results import pivot

    frame = pd.DataFrame(
        {
            "label": ["ucache"] * 4,
            "trace": ["vm-local"] * 4,
            "run": ["a", "a", "a", "a"],
            "bucket": ["128KiB", "1MiB", "128KiB", "1MiB"],
            "promote": ["copy", "copy", "map", "map"],
            "read_response_mean_ns": [4.5e6, 4.3e6, None, 4.1e6],
            "hit": [0.96, 0.99, 0.95, 0.98],
        }
    )
    table, kept = pivot(frame, "trace:bucket:hit")
    assert kept == ["promote"] and len(table) == 2


def test_by_default_the_experiments_measures_and_keys_all_for_everything(folder):
    header = next(csv.reader(io.StringIO(results(folder, "--csv").stdout)))
    assert header == ["label", "trace", "buffer", "r_wa", "band_cleanings"]
    everything = next(csv.reader(io.StringIO(results(folder, "--all", "--csv").stdout)))
    assert len(everything) > 30 and set(header) < set(everything)


def test_csv_is_plain_and_the_terminal_table_is_not_squeezed(folder):
    text = results(folder, "--csv").stdout
    assert not text.startswith("#") and len(list(csv.reader(io.StringIO(text)))) == 1 + 8
    # Piped without COLUMNS: as wide as the table needs, every value whole (no "…").
    wide = results(folder, "--all").stdout
    assert "…" not in wide and "buffer_bytes_evicted" in wide


def test_run_and_results_name_their_measures_as_sim_does_and_keep_the_cores_names_for_machines(
    folder, capsys, monkeypatch
):
    from smrlab import tables
    from smrlab.cli import main

    monkeypatch.setattr(tables._console, "_width", tables.UNLIMITED)  # as piped without COLUMNS: headers whole

    # sim's names, from the one naming table (smrlab.sim_table), for the same two measures.
    people = ["SMR write amplification (R_wa)", "bands read, merged with their buffered blocks and rewritten whole"]
    assert main(["results", str(folder / "results")]) == 0  # in this process: a second less than another
    for printed in ((folder / "run.txt").read_text(), capsys.readouterr().out):
        header = " ".join(printed.split())
        assert all(name in header for name in people) and "band_cleanings" not in header and "r_wa" not in header
    # CSV, JSON and --all keep the table's own names (test_by_default_the_experiments_measures_and_keys_all_for_everything).
