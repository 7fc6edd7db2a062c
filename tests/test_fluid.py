"""FluidSMR (``--system fluid``) and its commands as a user runs them: generated workloads, one
simulation with its declared measures, bad parameters, the adaptive format's direction on the
four-phase workload, quantized migration's bound, and the sweeps' figures as JSON."""

from __future__ import annotations

import json

import pytest

from conftest import assert_parameter_errors


def generate(cli, *args: str) -> str:
    proc = cli("fluid-trace", *args, "--out", "traces", check=True)
    return proc.stdout.strip().splitlines()[-1]


def zone_option(cli, proc_args: tuple[str, ...]) -> str:
    proc = cli("fluid-trace", *proc_args, "--out", "traces", check=True)
    return proc.stderr.split("--zone-size")[-1].split()[0]


def sim(cli, trace: str, *params: str) -> dict:
    proc = cli("sim", "--system", "fluid", "--trace", trace, *params, "--json", check=True)
    return json.loads(proc.stdout)


@pytest.fixture
def hm_0(cli) -> tuple[str, str]:
    """A 20,000-request hm_0 of Table 1 and the zone size scaled with it."""
    args = ("hm_0", "--requests", "20000")
    return generate(cli, *args), zone_option(cli, args)


def test_a_run_reports_latency_zone_counts_and_memory_with_their_declarations(cli, hm_0):
    trace, zone = hm_0
    result = sim(cli, trace, "--scheme", "fluid-smr", "--zone-size", zone)
    derived, gauges, metrics = result["derived"], dict(result["report"]["gauges"]), result["metrics"]
    counters = result["report"]["counters"]
    assert derived["mean_latency_ns"] == pytest.approx(counters["service_ns"] / counters["requests"])
    assert counters["requests"] == 20000
    assert metrics["mean_latency_ns"]["unit"] == "ns" and metrics["cmr_zones"]["kind"] == "gauge"
    assert gauges["memory_bytes"] == gauges["zone_map_bytes"] + gauges["nsw_tracking_bytes"] + gauges["cache_map_quota_bytes"]
    assert gauges["cmr_zones"] + gauges["smr_zones"] == pytest.approx(-(-result["trace"]["footprint"]["max_end"] // int(zone)))
    again = sim(cli, trace, "--scheme", "fluid-smr", "--zone-size", zone)
    assert again["report"] == result["report"], "same trace, parameters and seed: the same numbers"


def test_bad_parameters_are_one_line_naming_the_option(cli, hm_0):
    trace, _ = hm_0
    assert_parameter_errors(cli, "fluid", trace, [
        ("--alpha=1", "alpha"), ("--alpha=0.8", "alpha"), ("--usage=0", "usage"), ("--usage=1.2", "usage"),
        ("--partition=10MiB", "partition"), ("--latency-bound=10", "latency_bound"), ("--scheme=nope", "scheme"),
    ])


def test_pure_cmr_and_swap_only_in_phase_one_run_the_same_disk(cli, hm_0):
    # At usage 0.6 every zone fits in CMR (2 CMR zones take 3 SMR zones' space: 0.67), so
    # swap-only never uses SMR and runs exactly as the ideal pure CMR partition does.
    trace, zone = hm_0
    proc = cli("fluid-sweep", "usage", "--trace", trace, "--usages", "0.6,0.95", "--schemes", "swap-only,pure-cmr",
               "-p", f"zone_size={zone}", "--json", check=True)
    rows = json.loads(proc.stdout)["tables"][0]["rows"]
    assert [r[0] for r in rows] == [0.6, 0.95]
    assert rows[0][1] == rows[0][2], "phase I: swap-only is pure CMR"
    assert rows[1][2] == rows[0][2], "pure CMR ignores the usage"
    assert rows[1][1] > rows[1][2], "at 95 % the SMR area costs swap-only"


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
        row = rows[f"{bound} ms"]
        assert row[-1] is True, f"{bound} ms: the repletion finished"
        assert 0 < row[2] <= bound, f"worst added latency {row[2]} ms within {bound} ms"
    assert rows["blocking"][2] > 100, "blocking repletion holds a request for the whole conversion"
    assert rows["60 ms"][3] >= rows["100 ms"][3], "a smaller bound takes longer"
    assert rows["no allocation"][4] == 0
