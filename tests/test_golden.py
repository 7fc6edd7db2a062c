"""Golden results: what the demo line-ups and one run of every system on two bundled traces
measured when they were recorded, number for number.

A refactoring must leave every figure as it was. A change that alters results on purpose
re-records them (``SMRLAB_RECORD_GOLDEN=1 pytest tests/test_golden.py``) and says why in its
commit. The comparison is on a flat view of each result (``flatten``): every measured number
under a stable name, without provenance (version, commit, paths), so the result file's layout
may change while its numbers may not. Integers must be equal; floats (derived ratios and
means) equal to twelve significant digits, since moving a computation between Python and Rust
may reorder a sum.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
from conftest import DATA
from smrlab.bundled import DEMO_TRACES
from smrlab.run import footprint, simulate

GOLDEN = Path(__file__).resolve().parent / "golden"
RECORD = os.environ.get("SMRLAB_RECORD_GOLDEN") == "1"

# The uCache experiments' drive, sized for the bundled samples (tests/test_ucache_cli.py).
SMALL_DRIVE = ["zone_size=64MiB", "conventional=192MiB"]

# HWSR's and S-block's defaults before the drive queued commands and cached writes and the disk
# started empty: the runs that pin them must give what they gave then.
HWSR_BEFORE_QUEUEING = ["fill=full", "disk_write_cache=false", "disk_queue_depth=1"]

# (name, system, params, engine options) run on each of TRACES: every system, every cache
# policy and PORE scheme, both buffer placements, both promotions (and uCache replayed as its
# paper did, at iodepth 31 on a drive that queues), HWSR and S-block with MEM
# buffers small enough to evict (as before the drive queued, and overlapped at a queueing drive,
# with synchronous and background destaging), and the open loop.
RUNS = [
    ("cmr", "cmr", [], {}),
    ("dmsmr", "dmsmr", [], {}),
    ("dmsmr-ssd", "dmsmr", ["buffer_on=ssd", "band_size=4MiB"], {}),
    ("smr-estimate", "smr-estimate", [], {}),
    (
        "dmsmr-open-idle",
        "dmsmr",
        ["idle_clean=true", "idle_clean_above=0.25"],
        {"mode": "open", "speedup": 4.0, "warmup_requests": 1000},
    ),
    ("lru", "cache", ["policy=lru", "mode=rw"], {}),
    ("fifo", "cache", ["policy=fifo", "mode=rw"], {}),
    ("lru-band", "cache", ["policy=lru-band", "mode=wo"], {}),
    ("pore-cf", "cache", ["policy=pore", "scheme=cf", "zone=2MB"], {}),
    ("pore-pf", "cache", ["policy=pore", "scheme=pf", "zone=2MB"], {}),
    ("pore-bl", "cache", ["policy=pore", "scheme=bl", "zone=2MB", "mode=wo"], {}),
    ("pore-bl-fifo", "cache", ["policy=pore", "base=fifo", "zone=2MB", "period=500"], {}),
    ("lru-over-cmr", "cache", ["policy=lru", "below=cmr", "cache=1000blocks"], {}),
    ("ucache-copy", "ucache", [*SMALL_DRIVE], {}),
    ("ucache-map", "ucache", [*SMALL_DRIVE, "promote=map", "bucket=1MiB"], {}),
    ("ucache-queued", "ucache", [*SMALL_DRIVE], {"iodepth": 31}),
    ("eregion", "eregion", [*SMALL_DRIVE], {"gauge_samples": 50}),
    ("zonemap", "zonemap", ["zone_size=16MiB", "conventional=192MiB"], {}),
    ("hwsr", "hwsr", ["mem=4MiB", "ssd=8MiB", *HWSR_BEFORE_QUEUEING], {"mode": "open"}),
    ("hwsr-nocache", "hwsr", ["mem=none", "ssd=none", *HWSR_BEFORE_QUEUEING, "fill=empty"], {"mode": "closed"}),
    ("sblock", "sblock", ["mem=4MiB", "ssd=8MiB", *HWSR_BEFORE_QUEUEING], {"mode": "open"}),
    ("hwsr-queued", "hwsr", ["mem=4MiB", "ssd=8MiB"], {"mode": "open"}),
    ("hwsr-background", "hwsr", ["mem=4MiB", "ssd=8MiB", "destage=background"], {"mode": "open"}),
    ("sblock-queued", "sblock", ["mem=4MiB", "ssd=8MiB"], {"mode": "open"}),
    ("cmr-queued", "cmr", ["disk=desktop7200", "disk_queue_depth=32", "disk_write_cache=true"], {"mode": "open"}),
]
TRACES = ["wdev", "vm-local"]

# FluidSMR's three cache policies' schemes and its swap-only baseline, on a partition of 4 MiB
# zones sized for the samples (their few hundred MB would fill a single 256 MiB zone).
FLUID_RUNS = [
    (f"fluid-{scheme}", "fluid", [f"scheme={scheme}", "zone_size=4MiB"], {})
    for scheme in ("swap-only", "+cache-fix", "imprv-lru", "fifo", "fluid-smr")
]

# The demo's results: the SMR-versus-CMR table on the samples and the PORE line-up on the
# full-size traces (tests/conftest.py runs the demo once per session).
DEMO_RESULTS = [f"{name}-{system}" for name in DEMO_TRACES for system in ("cmr", "dmsmr")] + [
    f"{name}-{label}"
    for name in DEMO_TRACES
    for label in ("smr-only", "cmr-only", "lru", "lru-band", "pore-cf", "pore-pf", "pore-bl")
]


def flatten(result: dict) -> dict[str, float | int]:
    """Every measured number of a result under a stable dotted name."""
    report = result["report"]
    flat: dict[str, float | int] = {}

    def put(prefix: str, value) -> None:
        if isinstance(value, dict):
            for key, inner in value.items():
                put(f"{prefix}.{key}" if prefix else key, inner)
        elif isinstance(value, bool):
            flat[prefix] = int(value)
        elif isinstance(value, (int, float)):
            flat[prefix] = value

    for key in ("requests", "warmup_requests", "total_io_ns", "makespan_ns", "idle_work_ns", "cancelled"):
        put(key, report[key])
    for op in ("read", "write", "trim"):
        put(op, report[op])
    for channel in report["channels"]:
        put(f"channel.{channel['channel']}", {k: v for k, v in channel.items() if k not in ("channel", "device")})
    put("counter", report["counters"])
    put("gauge", dict(report["gauges"]))
    series = report["gauge_series"]
    for sample in series["samples"]:
        put(
            f"gauge_series.{sample['request']}",
            {
                "sim_ns": sample["sim_ns"],
                "trace_ns": sample["trace_ns"],
                **dict(zip(series["names"], sample["values"])),
            },
        )
    put("footprint", {k: v for k, v in result["trace"]["footprint"].items() if not k.endswith("extents")})
    put("derived", result["derived"])
    put("informative", result["informative"])
    return flat


def assert_same(name: str, expected: dict, actual: dict) -> None:
    missing = sorted(set(expected) - set(actual))
    extra = sorted(set(actual) - set(expected))
    assert not missing and not extra, f"{name}: figures missing {missing}, new {extra}"
    for key, want in expected.items():
        got = actual[key]
        if isinstance(want, float) or isinstance(got, float):
            assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-300), f"{name}: {key} was {want}, is {got}"
        else:
            assert got == want, f"{name}: {key} was {want}, is {got}"


def compare_or_record(file: str, results: dict[str, dict]) -> None:
    path = GOLDEN / file
    flat = {name: flatten(result) for name, result in results.items()}
    if RECORD:
        GOLDEN.mkdir(exist_ok=True)
        path.write_text(json.dumps(flat, indent=1, sort_keys=True) + "\n")
        return
    expected = json.loads(path.read_text())
    assert sorted(flat) == sorted(expected), "the golden runs changed: re-record on purpose"
    for name in expected:
        assert_same(name, expected[name], flat[name])


def run_all(runs: list, trace: str) -> dict[str, dict]:
    path = next(DATA.glob(f"{trace}.*"))
    fp = footprint(path)
    return {
        name: simulate(system, path, params, engine=engine, seed=7, footprint=fp)
        for name, system, params, engine in runs
    }


@pytest.mark.parametrize("trace", TRACES)
def test_every_system_reproduces_its_golden_results(trace):
    compare_or_record(f"systems-{trace}.json", run_all(RUNS, trace))


@pytest.mark.parametrize("trace", TRACES)
def test_fluidsmr_reproduces_its_golden_results(trace):
    compare_or_record(f"fluid-{trace}.json", run_all(FLUID_RUNS, trace))


def test_the_demo_reproduces_its_golden_results(demo):
    _, folder = demo
    results = {name: json.loads((folder / f"{name}.json").read_text()) for name in DEMO_RESULTS}
    compare_or_record("demo.json", results)
