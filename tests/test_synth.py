"""`smrlab trace synth`: the Table I presets reproduce the paper's numbers at full size, seeds
make traces reproducible, and bad parameters are named."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import DATA
from smrlab import _core

PRESETS = _core.synth_presets()


@pytest.mark.parametrize("name,requests,write_percent,written_gb,accessed_gb", PRESETS, ids=[p[0] for p in PRESETS])
def test_presets_reproduce_table_one_at_full_size(cli, name, requests, write_percent, written_gb, accessed_gb):
    stats = json.loads(cli("trace", "synth", "--preset", name, "--stats", "--json", check=True).stdout)
    assert stats["requests"] == requests
    assert abs(stats["write_percent"] - write_percent) <= 2.0
    assert abs(stats["written_union_bytes"] / 1e9 / written_gb - 1) <= 0.10
    assert abs(stats["accessed_union_bytes"] / 1e9 / accessed_gb - 1) <= 0.10


def test_same_seed_same_trace_other_seed_other_trace(cli, tmp_path):
    for name, seed in (("a", 1), ("b", 1), ("c", 2)):
        cli(
            "trace",
            "synth",
            "--preset",
            "mds",
            "--requests",
            "5000",
            "--seed",
            seed,
            "--out",
            f"{name}.smrbin",
            check=True,
        )
    a, b, c = ((tmp_path / f"{n}.smrbin").read_bytes() for n in "abc")
    assert a == b and a != c


def test_explicit_parameters(cli):
    stats = json.loads(
        cli(
            "trace",
            "synth",
            "--requests",
            "50000",
            "-p",
            "write_ratio=0.25",
            "-p",
            "written_range=64MiB",
            "-p",
            "accessed_range=96MiB",
            "--stats",
            "--json",
            check=True,
        ).stdout
    )
    assert abs(stats["write_percent"] - 25) < 1.5
    assert abs(stats["written_union_bytes"] / (64 << 20) - 1) < 0.1


def test_bad_parameters(cli):
    for bad in ("write_ratio=2", "sizes=3k:1", "zipf=-1", "colour=red"):
        proc = cli("trace", "synth", "--requests", "10", "-p", bad, "--stats")
        assert proc.returncode == 2, bad
        assert bad.split("=")[0] in proc.stderr and "Traceback" not in proc.stderr
    proc = cli("trace", "synth", "--preset", "wdev", "--requests", "10")
    assert proc.returncode == 2 and "--out" in proc.stderr
    proc = cli("trace", "synth", "--requests", "0", "--stats")
    assert proc.returncode == 2 and "requests" in proc.stderr, "zero requests is refused, not read as the default"


def test_bundled_samples_are_what_make_samples_regenerates(tmp_path):
    """data/README.md promises `data/make-samples.sh` regenerates the samples; a generator
    change that alters them must come with regenerated files."""
    env = {**os.environ, "OUT": str(tmp_path), "SMRLAB": str(Path(sys.executable).parent / "smrlab")}
    subprocess.run(["bash", str(DATA / "make-samples.sh")], env=env, check=True, capture_output=True)
    made = sorted(p.name for p in tmp_path.glob("*.csv.gz"))
    assert made == sorted(p.name for p in DATA.glob("*.csv.gz"))
    for name in made:
        assert gzip.decompress((tmp_path / name).read_bytes()) == gzip.decompress((DATA / name).read_bytes()), name
