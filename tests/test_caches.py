"""SSD caches over drive-managed SMR: smrlab's LRU and FIFO against libCacheSim's (the
differential oracle), and the compare-caches / cache-sweep commands."""

from __future__ import annotations

import json

import libcachesim
import pandas as pd
import pytest
from conftest import DATA, assert_parameter_errors, msr_line
from smrlab import _core
from smrlab.bundled import DEMO_TRACES
from smrlab.cli.caches import factor_rows


def block_stream(cli, source, tmp_path, name):
    """Converts a trace to one 4 KiB block per line, and returns (path, [(is_write, block)])."""
    path = tmp_path / f"{name}.blocks"
    cli("trace", "convert", source, path, check=True)
    stream = [(op == "1", int(block)) for op, block in (line.split() for line in path.read_text().splitlines())]
    return path, stream


def libcachesim_hits(policy, stream, blocks):
    cache = {"lru": libcachesim.LRU, "fifo": libcachesim.FIFO}[policy](cache_size=blocks)
    hits = 0
    for _is_write, block in stream:
        request = libcachesim.Request()
        request.obj_id = block
        request.obj_size = 1
        hits += bool(cache.get(request))
    return hits


@pytest.mark.parametrize("policy", ["lru", "fifo"])
@pytest.mark.parametrize("trace", ["wdev", "usr"])
def test_hits_equal_libcachesim(cli, tmp_path, trace, policy):
    path, stream = block_stream(cli, DATA / f"{trace}.csv.gz", tmp_path, trace)
    stream_head = stream[:60_000]
    path.write_text("".join(f"{int(w)} {b}\n" for w, b in stream_head))
    for blocks in (64, 1000, 8000):
        out = tmp_path / f"{policy}-{blocks}.json"
        cli(
            "sim",
            "--system",
            "cache",
            "--trace",
            path,
            "--policy",
            policy,
            "--mode",
            "rw",
            "--below",
            "cmr",
            "--cache",
            f"{blocks}blocks",
            "--out",
            out,
            check=True,
        )
        counters = json.loads(out.read_text())["report"]["counters"]
        ours = counters["read_hits"] + counters["write_hits"]
        assert counters["read_lookups"] + counters["write_lookups"] == len(stream_head)
        assert ours == libcachesim_hits(policy, stream_head, blocks), f"{policy} on {trace}, {blocks} blocks"


def test_compare_caches_table_and_results(cli, tmp_path):
    # The sample's bands scaled with it (auto: mds's request count in Table I): unscaled, the
    # sample touches 5 bands, the runs are not informative and no factor is set beside the paper's.
    out = cli(
        "compare-caches", "--trace", DATA / "mds.csv.gz", "--geometry-scale", "auto", "--out", "cmp", check=True
    ).stdout
    assert "PORE-BL against the others" in out and "10.2" in out, "the paper's factors are printed beside ours"
    for label in ("smr-only", "cmr-only", "lru", "lru-band", "pore-cf", "pore-pf", "pore-bl"):
        assert label in out
        result = json.loads((tmp_path / "cmp" / f"mds-{label}.json").read_text())
        assert result["report"]["requests"] == 100_000
    lru = json.loads((tmp_path / "cmp" / "mds-lru.json").read_text())["derived"]
    band = json.loads((tmp_path / "cmp" / "mds-lru-band.json").read_text())["derived"]
    pore = json.loads((tmp_path / "cmp" / "mds-pore-bl.json").read_text())["derived"]
    # Grouping evictions by band or by open zone lowers write amplification below LRU's.
    assert band["r_wa"] < lru["r_wa"] and pore["r_wa"] < lru["r_wa"]
    # The cache absorbs writes: LRU sends fewer bytes to the SMR disk than no cache at all.
    # Exactly: what LRU sends is the written bytes that missed, less what is still dirty in the
    # cache at the end (at most the whole cache; a write-only cache holds only dirty blocks).
    reports = {
        label: json.loads((tmp_path / "cmp" / f"mds-{label}.json").read_text())["report"]
        for label in ("smr-only", "lru")
    }
    sent = {label: report["counters"]["buffer_bytes_written"] for label, report in reports.items()}
    missed = (1 - lru["write_hit_rate"]) * sent["smr-only"]
    cache_bytes = dict(reports["lru"]["gauges"])["cache_dirty_blocks"] * 4096
    assert abs(sent["lru"] - (missed - cache_bytes)) < 1e-6 * sent["smr-only"], (sent, missed, cache_bytes)
    assert lru["write_hit_rate"] > 0.1


def table_rows(out: str) -> dict[str, dict]:
    """The rows of the first table a command printed with --json (the claims judged on the run
    follow it), by their first cell, each as {column: value}."""
    table = json.loads(out)["tables"][0]
    return {row[0]: dict(zip(table["columns"], row)) for row in table["rows"]}


def test_comparison_divides_like_by_like_and_shows_what_carries_information(cli, tmp_path):
    """Each time is divided by cmr-only's time of the same kind (so cmr-only reads 1 in each),
    systems are ranked by the time the mode compares, and a write-only line-up on a trace
    without reads has no read columns."""
    cli("trace", "convert", DATA / "wdev.csv.gz", "writes.smrbin", "--writes-only", check=True)
    for trace, has_reads in ((tmp_path / "writes.smrbin", False), (DATA / "wdev.csv.gz", True)):
        out = cli(
            "compare-caches",
            "--trace",
            trace,
            "--mode",
            "wo",
            "--geometry-scale",
            "0.0377",
            "--out",
            "cmp",
            "--json",
            check=True,
        ).stdout
        table = json.loads(out)["tables"][0]
        columns = table["columns"]
        assert ("read time / cmr" in columns) == has_reads and ("read hits / block lookups" in columns) == has_reads, (
            trace,
            columns,
        )
        rows = {row[0]: dict(zip(columns, row)) for row in table["rows"]}
        times = [c for c in columns if c.endswith("time / cmr") or c == "total / cmr"]
        assert all(rows["cmr-only"][c] == 1.0 for c in times), rows["cmr-only"]
        by_rank = sorted(rows.values(), key=lambda r: r["rank by time"])
        write_times = [r["write time / cmr"] for r in by_rank]
        assert write_times == sorted(write_times), "write-only mode ranks by write time"


def test_a_write_cache_with_nothing_to_cache_says_so(cli, tmp_path):
    trace = tmp_path / "reads.csv"
    trace.write_text("\n".join(msr_line(i * 10, "Read", i * 8192, 4096) for i in range(200)) + "\n")
    proc = cli("compare-caches", "--trace", trace, "--mode", "wo", "--out", "cmp", "--json")
    assert proc.returncode == 0, proc.stderr
    assert "has no writes" in proc.stderr
    rows = [row[0] for row in json.loads(proc.stdout)["tables"][0]["rows"]]
    assert rows == ["smr-only", "cmr-only"]


def test_a_line_up_run_without_cmr_only_has_no_ratio_to_it(cli, tmp_path):
    """--only some labels: the times have no cmr-only to be divided by, and PORE-BL's factors
    are set only against the competitors that ran (the claims on the others are not judged)."""
    trace = tmp_path / "writes.csv"
    trace.write_text("\n".join(msr_line(i * 10, "Write", (i * 7919 % 500) * 8192, 8192) for i in range(400)) + "\n")
    proc = cli("compare-caches", "--trace", trace, "--only", "lru,pore-bl", "--out", "cmp", "--json")
    assert proc.returncode == 0, proc.stderr
    table = json.loads(proc.stdout)["tables"][0]
    rows = {row[0]: dict(zip(table["columns"], row)) for row in table["rows"]}
    assert list(rows) == ["lru", "pore-bl"]
    assert all(row["write time / cmr"] is None and row["rank by time"] >= 1 for row in rows.values()), rows


def test_cache_sweep_over_zone_sizes(cli):
    """PORE §V-E: larger zones supply a period's victims from fewer open zones."""
    out = cli(
        "cache-sweep",
        "--trace",
        DATA / "ts.csv.gz",
        "--vary",
        "zone",
        "--values",
        "5MB,20MB,50MB",
        "--json",
        check=True,
    ).stdout
    rows = table_rows(out)
    assert list(rows) == ["5MB", "20MB", "50MB"]
    open_zones = [rows[zone]["avg open zones"] for zone in rows]
    assert open_zones[0] > open_zones[1] > open_zones[2] >= 1, open_zones
    assert all(row["R_wa"] > 1 for row in rows.values()), "every zone size amplifies writes"


def test_cache_sweep_runs_as_a_resumable_experiment(cli, tmp_path):
    """Its values are cells of an experiment: run on local workers, stored with a table, and on
    --resume only a lost cell runs again, with the same table printed."""
    sweep = (
        "cache-sweep",
        "--trace",
        DATA / "ts.csv.gz",
        "--vary",
        "cache",
        "--values",
        "1%,3%",
        "--out",
        "sweep",
        "--json",
    )
    first = table_rows(cli(*sweep, "--jobs", "2", check=True).stdout)
    assert list(first) == ["1%", "3%"] and first["1%"]["read hit"] < first["3%"]["read hit"]
    [table] = (tmp_path / "sweep").rglob("*.parquet")
    cells = sorted(table.parent.glob("cells/*.json"))
    assert len(cells) == 2 and "cache=3%" in cells[1].name
    mtime = cells[0].stat().st_mtime_ns
    cells[1].unlink()
    assert table_rows(cli(*sweep, "--jobs", "1", "--resume", check=True).stdout) == first
    assert cells[1].exists() and cells[0].stat().st_mtime_ns == mtime, "only the lost cell ran again"
    assert list((tmp_path / "sweep").rglob("*.parquet")) == [table]


def test_bad_cache_parameters(cli):
    assert_parameter_errors(
        "pore",
        DATA / "wdev.csv.gz",
        (
            ("--cache=0", "cache"),
            ("--cache=100GB", "cache"),
            ("--zone=0", "zone"),
            ("--period=0", "period"),
            ("--policy=arc", "policy"),
            ("--scheme=zz", "scheme"),
        ),
    )


def test_factors_against_pore_bl_are_means_of_per_trace_ratios():
    def trace(name, pore_time, lru_time, pore_r_wa, lru_r_wa):
        """Tidy rows of one trace: write times as given; reads add 1 s to every system's total."""
        times = lambda write: {"write_io_s": write, "total_io_s": write + 1.0}
        measured = {label: {**times(1.0), "r_wa": 1.0} for label in ("smr-only", "lru-band")}
        measured["cmr-only"] = times(2 * pore_time)
        measured["lru"] = {**times(lru_time), "r_wa": lru_r_wa}
        measured["pore-bl"] = {**times(pore_time), "r_wa": pore_r_wa}
        return [{"label": label, "trace": name, "seed": 0, **values} for label, values in measured.items()]

    def factors(mode, *traces):
        rows = pd.DataFrame([row for rows in traces for row in rows])
        return {row[0]: row for row in factor_rows(rows, mode)}

    rows = factors("wo", trace("a", 1.0, 2.0, 10.0, 50.0), trace("b", 2.0, 8.0, 5.0, 5.0))
    # The paper's factors come from the PORE claims file (Fig. 13 (a) and (c); Figs. 11 and 12 (c)).
    assert factors("rw", trace("a", 1.0, 2.0, 10.0, 50.0))["smr-only"][2::2] == (11.83, 3.92)
    assert rows["lru"] == ("lru", (2.0 + 4.0) / 2, 4.60, (5.0 + 1.0) / 2, 6.75)
    assert rows["cmr-only"][1] == 2.0 and rows["cmr-only"][3] is None
    assert rows["lru-band"] == ("lru-band", (1.0 + 0.5) / 2, 2.02, (0.1 + 0.2) / 2, 2.83)
    read_write = factors("rw", trace("a", 1.0, 2.0, 10.0, 50.0))
    assert read_write["lru"][1] == 3.0 / 2.0  # total times in read-write mode
    quiet = trace("a", 1.0, 2.0, 10.0, 50.0)
    quiet[-1]["r_wa"] = None  # the SMR write buffer never had to evict
    assert factors("wo", quiet)["lru"][3] is None


def test_bad_geometry_scale(cli):
    proc = cli("compare-caches", "--trace", DATA / "mds.csv.gz", "--geometry-scale", "-1")
    assert proc.returncode == 2 and "geometry_scale" in proc.stderr and "Traceback" not in proc.stderr


PRESETS = _core.synth_presets()


def test_paper_order_on_the_full_size_traces(demo):
    """PORE §V-C/D on the demo's full-size wdev, mds, ts and usr with their reads dismissed, as
    in the paper's write-only experiments (write-only cache of 2 %): the traces have Table I's
    writes (requests x write percent) and written ranges (the capacity of the bands they write:
    256 write buffers), and the paper's orders of counts hold on each: R_wa(PORE-BL) <
    R_wa(LRU-band) < R_wa(LRU) (Fig. 13 (c)); of the three schemes (Fig. 14), CF and BL amplify
    less than PF, BL keeps more write hits than CF, and PF keeps the most on at least three of the
    four. The orders of time (Fig. 13 (a)) are the scorecard's to judge (c2-time-lru-band and its
    row-mates), not a test's: with this round's PORE model (issue 51 items 1-3), PORE-BL's
    total time on the ts recipe is above LRU-band's (4,972 s against 4,386 s)."""
    _, folder = demo
    table_one = {preset[0]: preset for preset in PRESETS}
    pf_best = 0
    for name in DEMO_TRACES:
        results = {
            label: json.loads((folder / f"{name}-{label}.json").read_text())
            for label in ("smr-only", "cmr-only", "lru", "lru-band", "pore-cf", "pore-pf", "pore-bl")
        }
        _, requests, write_percent, written_gb, _ = table_one[name]
        smr = results["smr-only"]["report"]
        assert abs(smr["requests"] / (requests * write_percent / 100) - 1) < 0.01, name
        assert smr["read"]["requests"] == 0, name
        written_range = dict(smr["gauges"])["buffer_blocks"] * 4096 * 256
        assert abs(written_range / 1e9 / written_gb - 1) < 0.1, (name, written_range)
        derived = {label: result["derived"] for label, result in results.items()}
        r_wa = {label: d.get("r_wa") for label, d in derived.items()}
        assert r_wa["pore-bl"] < r_wa["lru-band"] < r_wa["lru"], (name, r_wa)
        assert max(r_wa["pore-cf"], r_wa["pore-bl"]) < r_wa["pore-pf"], (name, r_wa)
        hits = {scheme: derived[f"pore-{scheme}"]["write_hit_rate"] for scheme in ("cf", "pf", "bl")}
        assert hits["bl"] > hits["cf"], (name, hits)
        pf_best += hits["pf"] == max(hits.values())
    assert pf_best >= 3
