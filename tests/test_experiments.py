"""Experiment files and ``smrlab run`` / ``smrlab results``: the same rows serially, on local
worker processes and on a Dask LocalCluster; rows equal to single runs; resuming, never
overwriting, failed cells recorded, bad files refused in one line, Ctrl-C leaving no table."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest
import smrlab
from conftest import DATA, SMALL, write


def tables(folder):
    return sorted(folder.glob("*/*.parquet"))


def test_serial_local_workers_and_dask_give_identical_rows(cli, tmp_path):
    distributed = pytest.importorskip("distributed")
    exp = write(tmp_path, SMALL)
    cli("run", exp, "--jobs", "1", "--out", "serial", check=True)
    cli("run", exp, "--jobs", "2", "--out", "local", check=True)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        cli("run", exp, "--cluster", cluster.scheduler_address, "--out", "dask", check=True)
    frames = {how: pq.read_table(tables(tmp_path / how)[0]).to_pandas() for how in ("serial", "local", "dask")}
    assert len(frames["serial"]) == 2 * 2 * 2 * 2  # traces x seeds x systems x buffers
    assert frames["serial"]["error"].isna().all()
    assert frames["serial"].equals(frames["local"]) and frames["serial"].equals(frames["dask"])
    # Each row is what a single run of the same configuration measures.
    row = frames["serial"].query("label == 'lru-band' and trace == 'ts' and seed == 7 and buffer == '1/64'").iloc[0]
    single = smrlab.simulate("cache", DATA / "ts.csv.gz", seed=7, buffer="1/64", policy="lru-band", cache="1%")
    assert row["total_io_s"] == single.derived["total_io_s"] and row["r_wa"] == single.derived["r_wa"]
    # Provenance: every cell with its resolved parameters, the trace checksums, version, commit, host.
    sidecar = json.loads(tables(tmp_path / "serial")[0].with_suffix(".json").read_text())
    assert len(sidecar["cells"]) == 16 and sidecar["smrlab"]["version"] == smrlab.__version__
    assert sidecar["cells"][0]["resolved_params"]["band_min"]  # a default, recorded though not given
    assert sidecar["traces"]["ts"]["checksum"].startswith("sha256:") and sidecar["host"]["name"]


def test_resume_skips_stored_cells_and_runs_never_overwrite(cli, tmp_path):
    exp = write(tmp_path, SMALL.replace("seeds = [0, 7]", "seeds = [0]"))
    first = cli("run", exp, "--jobs", "1", check=True)
    assert "8 cells run, 0 reused" in first.stderr
    [folder] = [p.parent for p in tables(tmp_path / "results")]
    stored = sorted(folder.glob("cells/*.json"))
    assert len(stored) == 8 and any("buffer=1_64" in p.name and "dmsmr-wdev" in p.name for p in stored)
    # A cell lost (say, the run was interrupted before it) is run again by the same command, the rest reused.
    stored[0].unlink()
    resumed = cli("run", exp, "--jobs", "1", check=True)
    assert "1 cells run, 7 reused" in resumed.stderr
    assert pq.read_table(tables(tmp_path / "results")[0]).num_rows == 8
    assert "0 cells run, 8 reused" in cli("run", exp, "--jobs", "1", "--resume", check=True).stderr
    assert [p.parent for p in tables(tmp_path / "results")] == [folder]
    # Only --fresh runs every cell again, into a new folder.
    assert "8 cells run, 0 reused" in cli("run", exp, "--jobs", "1", "--fresh", check=True).stderr
    assert len(tables(tmp_path / "results")) == 2


def test_failed_cell_is_recorded_and_the_rest_go_on(cli, tmp_path):
    exp = write(
        tmp_path,
        """
name = "partly"
traces = ["bundled:wdev"]
[[systems]]
system = "cmr"
[[systems]]
label = "broken"
system = "dmsmr"
params = { band_size = ["8MiB", "1KiB"] }
""",
    )
    proc = cli("run", exp, "--jobs", "2")
    assert proc.returncode == 1 and "1 failed" in proc.stderr
    frame = pq.read_table(tables(tmp_path / "results")[0]).to_pandas()
    errors = frame.set_index("band_size")["error"] if "band_size" in frame else None
    assert frame["error"].notna().sum() == 1 and frame["total_io_s"].notna().sum() == 2
    assert errors is not None and "band_size" in errors["1KiB"]


@pytest.mark.parametrize(
    "text, named",
    [
        ("name = 'x'\ntraces = ['bundled:wdev']\n[[systems]]\nsystem = 'cmr'\nbogus = 1\n", "bogus"),
        ("name = 'x'\ntraces = ['bundled:wdev']\n[[systems]]\nsystem = 'nosuch'\n", "nosuch"),
        ("name = 'x'\ntraces = ['missing.csv']\n[[systems]]\nsystem = 'cmr'\n", "missing.csv"),
        (
            "name = 'x'\ntraces = ['bundled:wdev']\n[[systems]]\nsystem = 'cmr'\n[engine]\nmode = 'sideways'\n",
            "sideways",
        ),
        ("name = 'x\n", "TOML"),
    ],
)
def test_bad_experiment_files_fail_in_one_line(cli, tmp_path, text, named):
    proc = cli("run", write(tmp_path, text))
    assert proc.returncode == 2, proc.stderr
    assert named in proc.stderr and "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1


def test_results_filters_pivots_and_prints_csv(cli, tmp_path):
    exp = write(tmp_path, SMALL.replace("seeds = [0, 7]", "seeds = [0]"))
    cli("run", exp, "--jobs", "2", check=True)
    csv = cli(
        "results", "results", "--where", "buffer=1/64", "--columns", "label,trace,total_io_s", "--csv", check=True
    ).stdout
    lines = csv.strip().splitlines()
    assert lines[0] == "label,trace,total_io_s" and len(lines) == 1 + 4, "plain CSV: the header, then a row each"
    pivot = json.loads(
        cli(
            "results", "results", "--where", "buffer=1/64", "--pivot", "trace:label:total_io_s", "--json", check=True
        ).stdout
    )
    [table] = pivot["tables"]
    assert table["columns"] == ["trace", "dmsmr", "lru-band"] and len(table["rows"]) == 2
    by_trace = {row[0]: row for row in table["rows"]}
    frame = pq.read_table(tables(tmp_path / "results")[0]).to_pandas().query("buffer == '1/64'")
    assert by_trace["wdev"][1] == frame.query("trace == 'wdev' and label == 'dmsmr'")["total_io_s"].item()
    bad = cli("results", "results", "--columns", "nosuch")
    assert bad.returncode == 2 and "nosuch" in bad.stderr


def test_ctrl_c_stops_a_run_in_one_line_without_a_table(tmp_path):
    exp = write(tmp_path, SMALL.replace('["1/512", "1/64"]', '["1/512", "1/256", "1/128", "1/64", "1/32", "1/16"]'))
    proc = subprocess.Popen(
        [sys.executable, "-m", "smrlab", "run", str(exp), "--jobs", "2"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    # Interrupted once some cells are stored and others still run.
    while proc.poll() is None and not list((tmp_path / "results").glob("*/cells/*.json")):
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    rest = proc.stderr.read()
    assert proc.wait(timeout=60) == 130, rest
    [folder] = (tmp_path / "results").iterdir()
    assert rest.strip().splitlines()[-1] == (
        f"smrlab: interrupted: the cells that finished are kept in results/{folder.name}; "
        "the same command again goes on from them"
    )
    assert "Traceback" not in rest and not tables(tmp_path / "results")
    leftovers = [p for p in (tmp_path / "results").rglob("*") if p.is_file() and p.suffix != ".json"]
    assert not leftovers and all(json.loads(p.read_text())["result"] for p in (tmp_path / "results").rglob("*.json"))


def test_a_time_series_figure_draws_each_cells_sampled_gauge(cli, tmp_path):
    exp = write(
        tmp_path,
        """
name = "live"
traces = ["bundled:vm-local"]
[params]
zone_size = "64MiB"
conventional = "192MiB"
cache = ["96MiB", "128MiB"]
[[systems]]
system = "eregion"
engine = { gauge_samples = 40 }
[figure]
kind = "series"
y = "log_live_fraction"
""",
    )
    cli("run", exp, "--jobs", "1", check=True)
    [table] = tables(tmp_path / "results")
    columns = pq.read_table(table).to_pydict()
    times, live = columns["series.trace_s"], columns["series.log_live_fraction"]
    for cell in range(2):
        assert len(times[cell]) == len(live[cell]) >= 20 and times[cell] == sorted(times[cell])
        assert all(0 <= v <= 1 for v in live[cell])
        assert max(live[cell]) <= columns["log_live_fraction_max"][cell], (
            "the samples are some of the values the maximum is over"
        )
    from smrlab import experiment, plots, results

    figure = plots.figure(experiment.load(exp), results.read(table))
    lines = figure.axes[0].get_lines()
    assert [list(line.get_ydata()) for line in lines] == live and [list(line.get_xdata()) for line in lines] == times
    assert [line.get_label() for line in lines] == ["96MiB", "128MiB"], (
        "each line is named by what tells its cell apart"
    )


def test_a_table_trace_that_is_not_in_its_table_is_refused_in_one_line(cli, tmp_path):
    exp = write(tmp_path, 'name = "x"\ntraces = ["hwsr-table3:financial9"]\n[[systems]]\nsystem = "hwsr"\n')
    proc = cli("run", exp)
    assert proc.returncode == 2 and "financial9" in proc.stderr and "financial1" in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
