"""``smrlab probe``: the round trip on simulated drives with hidden, seeded parameters (every one
classified, its media cache and mean band recovered within 10 %), the fitted model's prediction
on held-out bundled traces, the fio path on a file, and bad input refused in one line with
nothing written. ``SMRLAB_PROBE_ALL=1`` (``make test-long``) probes all 25 drives; ``make test``
probes four of them.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from smrlab.cli import main
from smrlab.probe import api
from smrlab.probe.drive import Budget
from smrlab.probe.simdrive import SimDevice
from smrlab.run import simulate

DATA = Path(__file__).resolve().parent.parent / "data"
CAPACITY = 4 << 30
MB = 10**6
BUDGET = Budget(bytes=CAPACITY // 2, time_ns=3600 * 10**9)
PRESETS = ["st5000as0011", "desktop7200"]


def hidden_drives() -> list[tuple[str, list[str], dict]]:
    """20 drive-managed SMR disks and 5 conventional ones, their parameters drawn from one seed:
    (system, parameters, the truth the probe should find)."""
    rng = np.random.default_rng(2015)
    drives = []
    for i in range(20):
        buffer = int(rng.uniform(0.005, 0.04) * CAPACITY) // 4096 * 4096
        params = [f"buffer={buffer}", f"disk={PRESETS[i % 2]}"]
        if i % 3 == 0:
            band = int(rng.uniform(15, 40) * MB) // 4096 * 4096
            params.append(f"band_size={band}")
            mean = band
        else:
            low = int(rng.uniform(15, 28) * MB) // 4096 * 4096
            high = int(rng.uniform(low / MB + 5, 40) * MB) // 4096 * 4096
            params += [f"band_min={low}", f"band_max={high}"]
            mean = (low + high) / 2
        if i % 2:
            params += ["idle_clean=true", f"idle_clean_above={rng.uniform(0.3, 0.7):.2f}"]
        drives.append(("dmsmr", params, {"kind": "dm-smr", "cache": buffer, "band": mean}))
    for i in range(5):
        drives.append(("cmr", [f"disk={PRESETS[i % 2]}"], {"kind": "conventional"}))
    return drives


def chosen() -> list[int]:
    if os.environ.get("SMRLAB_PROBE_ALL"):
        return list(range(25))
    return [0, 1, 5, 20]  # fixed and ranged bands, idle cleaning on and off, both presets, a CMR disk


def probed(index: int):
    system, params, truth = hidden_drives()[index]
    device = SimDevice(system, params, CAPACITY, seed=index)
    result, spent = api.probe(device, BUDGET, seed=index + 100)
    return result, spent, truth


def test_probed_drives_are_classified_and_measured_within_ten_percent():
    misses = []
    for index in chosen():
        result, spent, truth = probed(index)
        assert result.kind == truth["kind"], (index, result.evidence)
        if truth["kind"] == "conventional":
            assert result.system == "cmr"
            assert result.estimate("media_cache").not_estimated
            continue
        cache = result.estimate("media_cache").value
        band = result.estimate("band_mean").value
        errors = (abs(cache - truth["cache"]) / truth["cache"], abs(band - truth["band"]) / truth["band"])
        if max(errors) > 0.10:
            misses.append((index, errors))
        assert result.params["disk"] in PRESETS
    dmsmr = [i for i in chosen() if i < 20]
    allowed = 2 if len(dmsmr) == 20 else 0
    assert len(misses) <= allowed, misses


def test_idle_cleaning_is_told_from_none():
    for index in (0, 1):
        result, _, _ = probed(index)
        system, params, _ = hidden_drives()[index]
        assert result.params["idle_clean"] == ("true" if "idle_clean=true" in params else "false"), result.estimates
        if "idle_clean=true" in params:
            level = float(next(p for p in params if p.startswith("idle_clean_above")).split("=")[1])
            est = result.estimate("idle_clean_level")
            assert abs(est.value - level) <= est.uncertainty + 0.02, (est, level)


def test_the_fitted_model_predicts_mean_write_latency_on_held_out_traces(tmp_path):
    params = ["buffer=16MiB", "band_min=15MB", "band_max=40MB", "disk=desktop7200"]
    device = SimDevice("dmsmr", params, CAPACITY, seed=7)
    result, _ = api.probe(device, Budget(bytes=int(0.4 * device.capacity), time_ns=7200 * 10**9), seed=7)
    card = tmp_path / "card.json"
    assert main(["probe", "sim:dmsmr", *sum((["-p", p] for p in params), []), "--seed", "7", "--out", str(card)]) == 0
    assert json.loads(card.read_text())["params"] == result.params
    for trace in ("vm-local.csv.gz", "mds.csv.gz"):
        truth = simulate("dmsmr", str(DATA / trace), params)["report"]["write"]["response"]["mean_ns"]
        out = tmp_path / f"{trace}.json"
        code = main(
            ["sim", "--system", "dmsmr", "--preset-file", str(card), "--trace", str(DATA / trace), "--out", str(out)]
        )
        assert code == 0
        predicted = json.loads(out.read_text())["report"]["write"]["response"]["mean_ns"]
        assert abs(predicted - truth) / truth < 0.05, (trace, predicted, truth)


def test_a_card_runs_only_the_system_it_fits(tmp_path, capsys):
    card = tmp_path / "card.json"
    assert main(["probe", "sim:cmr", "--capacity", "1GiB", "--out", str(card)]) == 0
    assert json.loads(card.read_text())["kind"] == "conventional"
    capsys.readouterr()
    assert main(["sim", "--system", "dmsmr", "--preset-file", str(card), "--trace", str(DATA / "wdev.csv.gz")]) == 2
    assert "the card fits cmr, not --system dmsmr" in capsys.readouterr().err


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def target(tmp_path) -> Path:
    path = tmp_path / "target.img"
    path.write_bytes(np.random.default_rng(1).integers(0, 256, 16 << 20, dtype=np.uint8).tobytes())
    return path


@pytest.mark.skipif(shutil.which("fio") is None, reason="fio is not installed")
def test_the_fio_path_probes_a_file_end_to_end(tmp_path, target):
    card = tmp_path / "file-card.json"
    assert main(["probe", str(target), "--destroy-data", "--budget", "8MiB,120s", "--out", str(card)]) == 0
    data = json.loads(card.read_text())
    assert data["kind"] == "conventional", data["evidence"]
    assert all(e.get("not_estimated") for e in data["estimates"] if e["name"] in ("media_cache", "band_mean"))
    jobs = sorted((tmp_path / "file-card.jobs").glob("*.fio"))
    assert [Path(j).name for j in data["jobs"] if j.endswith(".fio")] == [j.name for j in jobs]
    assert jobs[0].name == "001-reads.fio" and "ioengine=libaio" in jobs[0].read_text()
    assert "direct=1" in jobs[0].read_text()


def refused(capsys, argv: list[str], says: str) -> None:
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert says in err and "\n" not in err, err


def test_bad_input_is_one_line_and_writes_nothing(tmp_path, target, capsys, monkeypatch):
    before = digest(target)
    out = str(tmp_path / "card.json")
    refused(capsys, ["probe", str(tmp_path / "missing.img"), "--destroy-data", "--out", out], "cannot read it")
    refused(capsys, ["probe", str(target), "--out", out], "add --destroy-data")
    refused(
        capsys, ["probe", str(target), "--destroy-data", "--budget", "4KiB", "--out", out], "cannot see one cleaning"
    )
    refused(capsys, ["probe", "sim:dmsmr", "--budget", "1MiB", "--out", out], "cannot see one cleaning")
    refused(capsys, ["probe", "sim:dmsmr", "-p", "buffer=nonsense", "--out", out], "buffer")
    monkeypatch.setenv("PATH", str(tmp_path))
    refused(capsys, ["probe", str(target), "--destroy-data", "--out", out], "fio is not installed")
    assert digest(target) == before
    assert not Path(out).exists()


def test_a_mounted_device_is_refused(tmp_path, capsys):
    mounted = next(
        (
            w[0]
            for w in (line.split() for line in open("/proc/self/mounts"))
            if w[0].startswith("/dev/") and Path(w[0]).exists()
        ),
        None,
    )
    if mounted is None or shutil.which("fio") is None:
        pytest.skip("no mounted block device to try")
    # Without --destroy-data: even if the check failed, nothing could be written.
    refused(capsys, ["probe", mounted, "--out", str(tmp_path / "card.json")], "in use")
