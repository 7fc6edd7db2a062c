"""A translated trace replays on a real I/O engine: fio (installed by `make test`) accepts every
line of the iolog smrlab writes and issues exactly that many I/Os, against a sparse scratch file
standing in for the drive."""

from __future__ import annotations

import json
import shutil
import subprocess

from conftest import msr_line


def test_fio_replays_the_eregion_translated_trace(cli, tmp_path):
    assert shutil.which("fio"), "fio is missing: `make test` installs it (Debian package fio)"
    lines = []
    state = 99
    for index in range(1500):
        state = (state * 6364136223846793005 + 1442695040888963407) % 2**64
        op = "Write" if (state >> 40) % 10 < 7 else "Read"
        lines.append(
            msr_line(index * 1000, op, ((state >> 12) % (2**31 // 4096)) * 4096, 4096 * (1 + (state >> 5) % 16))
        )
    (tmp_path / "t.csv").write_text("\n".join(lines) + "\n")
    cli(
        "sim",
        "--system",
        "eregion",
        "--trace",
        "t.csv",
        "--iolog",
        "t.iolog",
        "--iolog-max-io",
        "512KiB",
        "--out",
        "r.json",
        check=True,
    )
    ios = json.loads((tmp_path / "r.json").read_text())["iolog"]["ios"]
    assert ios >= 1500
    scratch = tmp_path / "drive.img"
    with open(scratch, "wb") as handle:
        handle.truncate(40 * 2**30)
    proc = subprocess.run(
        [
            "fio",
            "--name=replay",
            "--read_iolog=t.iolog",
            f"--replay_redirect={scratch}",
            "--ioengine=psync",
            "--output-format=json",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    job = json.loads(proc.stdout)["jobs"][0]
    assert job["error"] == 0
    assert job["read"]["total_ios"] + job["write"]["total_ios"] == ios
