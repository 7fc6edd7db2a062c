"""FluidSMR (``--system fluid``) and its commands as a user runs them: generated workloads and
where their written data lies, one simulation with its declared measures, bad parameters and
bad workloads, every scheme on a tiny partition, the adaptive format's direction on the
four-phase workload, quantized migration's bound, the sweeps' figures as JSON, and the scaled
sizes a run reports (a published-format trace run by a sweep: tests/test_paper_command.py)."""

from __future__ import annotations

import json

import numpy as np
import pytest
from conftest import assert_parameter_errors
from smrlab import fluid_traces
from smrlab.errors import UsageError
from smrlab.run import simulate


def generate(cli, *args: str) -> str:
    proc = cli("fluid-trace", *args, "--out", "traces", check=True)
    return proc.stdout.strip().splitlines()[-1]


def zone_option(cli, proc_args: tuple[str, ...]) -> str:
    proc = cli("fluid-trace", *proc_args, "--out", "traces", check=True)
    return proc.stderr.split("--zone-size")[-1].split()[0]


def sim(cli, trace: str, *params: str) -> dict:
    proc = cli("sim", "--system", "fluid", "--trace", trace, *params, "--json", check=True)
    return json.loads(proc.stdout)


@pytest.fixture(scope="module")
def hm_0(tmp_path_factory) -> tuple[str, str]:
    """A 20,000-request hm_0 of Table 1 and the zone size scaled with it."""
    trace = fluid_traces.table1_trace("hm_0", 20000, folder=tmp_path_factory.mktemp("traces"))
    return str(trace), str(fluid_traces.zone_size("hm_0", 20000))


def test_a_run_reports_latency_zone_counts_and_memory_with_their_declarations(cli, hm_0):
    trace, zone = hm_0
    result = sim(cli, trace, "--scheme", "fluid-smr", "--zone-size", zone)
    derived, gauges, metrics = result["derived"], dict(result["report"]["gauges"]), result["metrics"]
    counters = result["report"]["counters"]
    assert derived["mean_latency_ns"] == pytest.approx(counters["service_ns"] / counters["requests"])
    assert counters["requests"] == 20000
    assert metrics["mean_latency_ns"]["unit"] == "ns" and metrics["cmr_zones"]["kind"] == "gauge"
    assert (
        gauges["memory_bytes"]
        == gauges["zone_map_bytes"] + gauges["nsw_tracking_bytes"] + gauges["cache_map_quota_bytes"]
    )
    assert gauges["cmr_zones"] + gauges["smr_zones"] == pytest.approx(
        -(-result["trace"]["footprint"]["max_end"] // int(zone))
    )
    again = sim(cli, trace, "--scheme", "fluid-smr", "--zone-size", zone)
    assert again["report"] == result["report"], "same trace, parameters and seed: the same numbers"


def test_bad_parameters_are_one_line_naming_the_option(cli, hm_0):
    trace, _ = hm_0
    assert_parameter_errors(
        "fluid",
        trace,
        [
            ("--alpha=1", "alpha"),
            ("--alpha=0.8", "alpha"),
            ("--usage=0", "usage"),
            ("--usage=1.2", "usage"),
            ("--partition=10MiB", "partition"),
            ("--latency-bound=10", "latency_bound"),
            ("--scheme=nope", "scheme"),
            ("--occupancy=0", "occupancy"),
            ("--occupancy=1.5", "occupancy"),
            ("--occupancy=-0.1", "occupancy"),
            ("--cache-limit=0%", "cache_limit"),
            ("--map-quota=200%", "map_quota"),
            ("--map-entry=0", "map_entry"),
            ("--lru-placement=worst-fit", "lru_placement"),
            ("--cache-limit=50%", "cache_limit"),
        ],
    )


def test_pure_cmr_and_swap_only_in_phase_one_run_the_same_disk(cli, hm_0):
    # At usage 0.6 every zone fits in CMR (2 CMR zones take 3 SMR zones' space: 0.67), so
    # swap-only never uses SMR and runs exactly as the ideal pure CMR partition does.
    trace, zone = hm_0
    proc = cli(
        "fluid-sweep",
        "usage",
        "--trace",
        trace,
        "--usages",
        "0.6,0.95",
        "--schemes",
        "swap-only,pure-cmr",
        "-p",
        f"zone_size={zone}",
        "--json",
        check=True,
    )
    rows = json.loads(proc.stdout)["tables"][0]["rows"]
    assert [r[0] for r in rows] == [0.6, 0.95]
    assert rows[0][1] == rows[0][2], "phase I: swap-only is pure CMR"
    assert rows[1][2] == rows[0][2], "pure CMR ignores the usage"
    assert rows[1][1] > rows[1][2], "at 95 % the SMR area costs swap-only"


def test_format_adapt_swaps_by_nsw_frequency_wherever_cache_fix_does(tmp_path):
    # §7.1: format-adapt is "On top of +cache-fix", which is "In addition to swap": on each of
    # three Table 1 traces (20,000 requests, a week of trace time), where +cache-fix swaps zones by
    # NSW frequency, format-adapt does too.
    for name in ("hm_0", "ts_0", "web_0"):
        trace = fluid_traces.table1_trace(name, 20000, folder=tmp_path)
        zone = f"zone_size={fluid_traces.zone_size(name, 20000)}"
        counts = {
            scheme: simulate("fluid", trace, [f"scheme={scheme}", zone])["report"]["counters"]
            for scheme in ("+cache-fix", "format-adapt")
        }
        assert counts["+cache-fix"]["frequency_swaps"] > 0, name
        assert counts["format-adapt"]["frequency_swaps"] > 0, (name, counts["format-adapt"])
        assert counts["format-adapt"]["windows"] > 0, f"{name}: and Algorithm 1 ran"


CACHED_SCHEMES = (
    "+cache-fix",
    "format-adapt",
    "imprv-lru",
    "fifo",
    "loop-back",
    "fluid-smr",
    "fix-0.2",
    "fix-0.8",
    "adapt",
)


def test_every_cached_scheme_at_usage_0_99_has_a_cache_of_0_02_percent_of_its_smr_region(tmp_path):
    # §7.4: "The usage is set to 99 % ... and the Cache size is set to 0.02 % of the SMR region
    # size". The five Table 1 traces whose partitions at 0.99 have no CMR zone to spare for a
    # cache (20,000 requests, the paper's zone counts), with Fig. 18's settings; and every scheme
    # with a cache on stg_0, its format fixed so the SMR region stays the start's.
    runs = [
        (name, policy, ["swapping=none"])
        for name in ("proj_0", "prxy_0", "src1_2", "stg_0", "ts_0")
        for policy in ("imprv-lru", "fifo", "loop-back")
    ]
    runs += [("stg_0", scheme, []) for scheme in CACHED_SCHEMES]
    for name, scheme, extra in runs:
        trace = fluid_traces.table1_trace(name, 20000, folder=tmp_path)
        zone = f"zone_size={fluid_traces.zone_size(name, 20000)}"
        params = [f"scheme={scheme}", "usage=0.99", "adapt=off", "cache_limit=0.02%", zone, *extra]
        gauges = dict(simulate("fluid", trace, params)["report"]["gauges"])
        share = int(gauges["smr_area_bytes"] * 0.02 / 100) // 4096 * 4096
        assert gauges["cache_bytes"] == share > 0, (name, scheme, gauges["cache_bytes"], gauges["smr_area_bytes"])


def test_the_adaptive_format_follows_the_phases(cli):
    # Fig. 16 scaled to a million writes (154 zones, 32 of them in the CMR-favourable phases).
    trace = generate(cli, "four-phase", "--requests", "1000000")
    result = sim(cli, trace, "--scheme", "adapt", "--cache-policy", "fifo", "--gauge-samples", "400")
    series = result["report"]["gauge_series"]
    cmr, cache = series["names"].index("cmr_zones"), series["names"].index("cache_zones")

    def phase(index):
        return [s["values"] for s in series["samples"] if index * 100 <= s["trace_ns"] / 3.6e12 < (index + 1) * 100]

    first, second = phase(0), phase(1)
    assert first[-1][cmr] < first[0][cmr] and first[-1][cache] > first[0][cache], "phase 1: toward SMR + cache"
    assert second[-1][cmr] > min(v[cmr] for v in second), "phase 2: back toward CMR"
    assert result["report"]["counters"]["to_cmr_conversions"] > 0


def test_quantized_migration_keeps_every_request_within_its_bound(cli):
    proc = cli("fluid-sweep", "migration", "--requests", "100000", "--bounds", "60,100", "--json", check=True)
    rows = {row[0]: row for row in json.loads(proc.stdout)["tables"][0]["rows"]}
    for bound in (60, 100):
        row = rows[f"within {bound} ms"]
        assert row[-1] == 1, f"{bound} ms: the repletion finished"
        assert 0 < row[2] <= bound, f"worst added latency {row[2]} ms within {bound} ms"
    assert rows["blocking"][2] > 100, "blocking repletion holds a request for the whole conversion"
    assert rows["within 60 ms"][3] >= rows["within 100 ms"][3], "a smaller bound takes longer"
    assert rows["no allocation"][4] == 0


def test_no_scheme_panics_on_the_tiny_partition_of_issue_42(cli):
    # usr_0 at 2,000 requests: zones of 245,760 bytes (60 blocks) against 128 KiB writes. Before,
    # 7 of the 16 schemes panicked cleaning the cache ("cleaning a log that holds blocks"), and
    # so did this very sweep; now each runs, the old recipe's trace and the new one alike.
    schemes = ",".join(
        [
            "recency",
            "frequency",
            "swap-only",
            "+cache-fix",
            "format-adapt",
            "imprv-lru",
            "fifo",
            "loop-back",
            "fluid-smr",
            "fix-0.2",
            "fix-0.4",
            "fix-0.6",
            "fix-0.8",
            "adapt",
            "pure-cmr",
        ]
    )
    for placement in ("front", "spread"):
        proc = cli(
            "fluid-sweep",
            "schemes",
            "--traces",
            "usr_0",
            "--requests",
            "2000",
            "--placement",
            placement,
            "--schemes",
            schemes,
            "--json",
            check=True,
        )
        latencies = json.loads(proc.stdout)["tables"][0]["rows"][0][1:]
        assert len(latencies) == 15 and all(ms and ms > 0 for ms in latencies), (placement, latencies)
        assert "Traceback" not in proc.stderr and "panicked" not in proc.stderr


def test_spread_moves_whole_chunks_by_a_seeded_permutation_and_pins_the_range():
    chunk, end = 10 * 4096, 36 * 4096
    offsets = np.array([0, 5, 10, 19, 20, 29, 30, 33, 40], dtype=np.uint64) * 4096
    lengths = np.array([1, 1, 1, 1, 1, 1, 1, 2, 1], dtype=np.uint64) * 4096
    moved = fluid_traces.spread(offsets, lengths, chunk, end, seed=3)
    chunks = 3  # chunks 0-2; 30-35 is the last, partial one
    assert (moved[:6] % chunk == offsets[:6] % chunk).all(), "a request keeps its place in its chunk"
    assert sorted(set((moved[:6] // chunk).tolist())) == list(range(chunks)), (
        "whole chunks map onto whole chunks, one to one"
    )
    assert moved[6] == offsets[6], "the partial chunk stays"
    assert moved[8] < end - 4096 and moved[8] % 4096 == 0, (
        "a request past the range is folded back into it, in whole blocks"
    )
    assert moved[7] + lengths[7] == end, "the request ending highest ends at the range's end"
    assert (fluid_traces.spread(offsets, lengths, chunk, end, seed=3) == moved).all(), "seeded"
    assert any((fluid_traces.spread(offsets, lengths, chunk, end, seed=s) != moved).any() for s in range(4, 10)), (
        "another seed, another order"
    )


def test_the_spread_placement_keeps_the_footprint_and_takes_the_hot_data_out_of_the_cmr_zones(tmp_path, hm_0):
    front = fluid_traces.table1_trace("hm_0", 20000, folder=tmp_path, placement="front")
    spread, zone = hm_0
    runs = {
        name: simulate("fluid", path, ["scheme=swap-only", f"zone_size={zone}", "swapping=none"])
        for name, path in (("front", front), ("spread", spread))
    }
    fp = {name: r["trace"]["footprint"] for name, r in runs.items()}
    assert fp["spread"]["max_end"] == fluid_traces.max_offset("hm_0", 20000), "Table 1's range, exactly"
    assert abs(fp["front"]["max_end"] - fp["spread"]["max_end"]) < 0.03 * fp["spread"]["max_end"], (
        "the recipe before came near it"
    )
    written = {name: r["report"]["write"]["bytes"] for name, r in runs.items()}
    assert written["spread"] == pytest.approx(written["front"], rel=0.05), (
        "the same bytes written (fewer sparse single blocks)"
    )
    share = {name: r["derived"]["cmr_write_share"] for name, r in runs.items()}
    # Without swapping the layout is the start's: the lowest user zones (a third here) in CMR.
    # The front recipe's core lies there; spread, its hot ranges land anywhere.
    assert share["front"] > 0.5 and share["spread"] < share["front"] - 0.1, share


def test_a_placement_that_does_not_fit_is_one_line(cli):
    proc = cli("fluid-trace", "hm_0", "--requests", "2000", "--hot-ranges", "4096", "--out", "traces")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert "4096 hot ranges do not fit hm_0 at 2,000 requests" in proc.stderr, proc.stderr
    for hot_ranges in (0, -1, 5000):
        with pytest.raises(UsageError, match="--hot-ranges must be from 1 to 4096"):
            fluid_traces.chunk_bytes("hm_0", 2000, hot_ranges)
    with pytest.raises(UsageError, match="placement 'middle'"):
        fluid_traces.table1_trace("hm_0", 2000, placement="middle")


def test_an_extent_overflowing_the_address_space_is_one_line(cli, tmp_path):
    far = tmp_path / "far.csv"
    far.write_text("128166372000000000,h,0,Write,4611686018427387904,4096,0\n")  # 2^62: zones past any disk
    over = tmp_path / "over.csv"
    over.write_text(f"128166372000000000,h,0,Write,{2**63 - 4096},8192,0\n")  # ends past 2^63
    for trace, what in ((far, "partition spans"), (over, "2^63")):
        proc = cli("sim", "--system", "fluid", "--trace", trace)
        assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1 and what in proc.stderr, proc.stderr
    proc = cli("fluid-sweep", "schemes", "--trace", far, "--schemes", "fluid-smr")
    assert proc.returncode == 2 and len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_a_scaled_run_says_what_it_scaled_and_the_quota_is_25_mb_per_tb(cli, tmp_path):
    proc = cli(
        "fluid-sweep", "schemes", "--traces", "hm_0", "--requests", "20000", "--schemes", "fluid-smr", check=True
    )
    gauges = dict(
        json.loads((tmp_path / "results/fluid-sweep/schemes/hm_0-fluid-fluid-smr.json").read_text())["report"]["gauges"]
    )
    zone = fluid_traces.zone_size("hm_0", 20000)
    assert gauges["scale"] == zone / (256 << 20)
    zones = gauges["zone_map_bytes"] / 8  # §4.2: a zone number of 8 bytes per zone
    quota = int(zones * zone) * (25 << 20) // (1 << 40) // 20 * 20  # §6.1: 25 MB per TB, in 20-byte entries
    assert gauges["cache_map_quota_bytes"] == quota
    assert f"partition scaled to {gauges['scale']:.4g} of the paper's" in proc.stderr, proc.stderr
    assert f"mapping quota {quota:,} bytes" in proc.stderr, proc.stderr
