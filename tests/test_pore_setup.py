"""What PORE's experiment files take from the paper's own text of its testbed: the disk that
times the emulator (§V-A, §V-B)."""

from __future__ import annotations

import numpy as np
import smrlab
from smrlab import bundled, systems
from smrlab.cli import presets

PORE_FILES = sorted(path.stem for path in (bundled.experiments_root() / "experiments").glob("pore-*.toml"))


def tiny_writes() -> np.ndarray:
    requests = np.zeros(64, dtype=smrlab.REQUEST_DTYPE)
    requests["op"] = smrlab.WRITE
    requests["offset"] = np.arange(64) * (1 << 20)
    requests["len"] = 4096
    return requests


def test_every_pore_experiment_is_timed_on_a_7200_rpm_500_gb_cmr_disk():
    # §V-B: every experiment but §V-G's ran on "a 7200RPM 500GB CMR disk", on which §V-A's
    # emulator keeps both the write buffer and the bands; the 5900 RPM archive drive is §V-G's.
    timed = [name for name in PORE_FILES if any(takes_a_disk(run) for run in presets.read(name).systems)]
    assert timed
    for name in timed:
        exp = presets.read(name)
        for run in filter(takes_a_disk, exp.systems):
            disk = run.params.get("disk", exp.params.get("disk"))
            assert disk is not None, f"{name}: {run.label} runs on the default disk"
            described = smrlab.simulate("cmr", tiny_writes(), disk=disk).to_dict()["devices"]["disk"]
            assert "(7200 RPM, 500000000000 bytes)" in described, (name, run.label, described)


def takes_a_disk(run) -> bool:
    return "disk" in systems.accepted(run.system, run.params)
