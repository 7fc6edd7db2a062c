"""smrlab's cache folder: generated traces go where SMRLAB_CACHE says (by default the platform's
user cache folder, never under the installed package), a cache folder that cannot be made is
one line naming it, a trace two processes need at once is made once, a generated trace that is
no longer as it was made is made again, and a remembered trace checksum is never served for a
changed file."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import smrlab
from smrlab import bundled, cache, fluid_traces, hwsr_traces, provenance
from smrlab.errors import UsageError

PACKAGE = Path(smrlab.__file__).resolve().parent


def test_generated_traces_go_to_the_folder_smrlab_cache_names(tmp_path, monkeypatch):
    monkeypatch.setenv("SMRLAB_CACHE", str(tmp_path / "mine"))
    hwsr = hwsr_traces.trace("financial1", requests=2000)
    fluid = fluid_traces.table1_trace("hm_0", requests=2000)
    for made in (hwsr, fluid):
        assert made.parent == tmp_path / "mine" / "traces" and made.stat().st_size > 0
        assert PACKAGE not in made.parents
    # Made once: asking again finds the same file, not rewritten.
    stamp = hwsr.stat().st_mtime_ns
    assert hwsr_traces.trace("financial1", requests=2000) == hwsr and hwsr.stat().st_mtime_ns == stamp


def test_a_generated_trace_cut_short_or_changed_is_made_again_from_its_recipe(tmp_path, monkeypatch, capsys):
    # Its checksum as made is kept beside it: a file cut to half its length, one byte changed,
    # or a file with no checksum kept (made by an older smrlab) is made again, with a line
    # saying so, never used as it is.
    monkeypatch.setenv("SMRLAB_CACHE", str(tmp_path))
    path = hwsr_traces.trace("financial1", requests=2000)
    whole = path.read_bytes()
    checksum_file = path.with_name(path.name + ".sha256")
    for damage in (
        lambda: path.write_bytes(whole[: len(whole) // 2]),
        lambda: path.write_bytes(whole[:100] + bytes([whole[100] ^ 1]) + whole[101:]),
        checksum_file.unlink,
    ):
        damage()
        assert hwsr_traces.trace("financial1", requests=2000) == path
        assert path.read_bytes() == whole and "making it again" in capsys.readouterr().err
    assert checksum_file.read_text().strip() == provenance.trace_checksum(path)


def test_a_trace_two_users_need_at_once_is_made_once(tmp_path):
    # The second asks while the first is still making it: it waits for the first's file rather
    # than making its own beside it (the lock is on an open file, so two threads contend as two
    # processes would).
    made, second_asking = [], threading.Event()

    def make(path: Path) -> None:
        made.append(path)
        second_asking.wait(10)
        time.sleep(0.2)  # room for the second to reach the lock; no time is asserted
        path.write_bytes(b"trace")

    def ask() -> Path:
        return bundled.generated_trace({"recipe": 1}, "shared", tmp_path, make)

    first = threading.Thread(target=lambda: paths.append(ask()))
    paths: list[Path] = []
    first.start()
    while not made:
        time.sleep(0.01)
    second_asking.set()
    paths.append(ask())
    first.join()
    assert len(made) == 1 and paths[0] == paths[1] and paths[0].read_bytes() == b"trace"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the XDG cache folder is Linux's")
def test_the_default_is_the_platforms_user_cache_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("SMRLAB_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert cache.root() == tmp_path / "xdg" / "smrlab"
    monkeypatch.setenv("SMRLAB_CACHE", "  ")  # blank: as if unset
    assert cache.root() == tmp_path / "xdg" / "smrlab"
    assert (
        cache.folder("traces") == tmp_path / "xdg" / "smrlab" / "traces"
        and (tmp_path / "xdg" / "smrlab" / "traces").is_dir()
    )


def test_a_cache_folder_that_cannot_be_made_is_one_line_naming_it(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("SMRLAB_CACHE", str(blocker))
    with pytest.raises(UsageError, match="SMRLAB_CACHE"):
        cache.folder("traces")
    exp = tmp_path / "exp.toml"
    exp.write_text('name = "x"\ntraces = ["hwsr-table3:financial1"]\n[[systems]]\nsystem = "cmr"\n')
    proc = subprocess.run(
        [sys.executable, "-m", "smrlab", "run", str(exp)], cwd=tmp_path, capture_output=True, text=True
    )
    assert proc.returncode == 2 and str(blocker) in proc.stderr and "Traceback" not in proc.stderr, proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr


def test_a_remembered_checksum_is_never_served_for_a_changed_file(tmp_path, monkeypatch):
    monkeypatch.setenv("SMRLAB_CACHE", str(tmp_path / "cache"))
    trace = tmp_path / "big.bin"
    trace.write_bytes(b"\1" * provenance.REMEMBER_FROM)
    first = provenance.trace_checksum(trace)
    assert len(list((tmp_path / "cache" / "checksums").iterdir())) == 1
    # The same bytes changed in place, size and modification time set back as they were.
    stat = trace.stat()
    with open(trace, "r+b") as handle:
        handle.write(b"\2")
    os.utime(trace, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    changed = provenance.trace_checksum(trace)
    assert changed != first
    import hashlib

    assert changed == "sha256:" + hashlib.sha256(trace.read_bytes()).hexdigest()
    # A stored value that is not a checksum is made again, not trusted.
    cache._KEPT.clear()
    for stored in (tmp_path / "cache" / "checksums").iterdir():
        stored.write_text("garbage")
    assert provenance.trace_checksum(trace) == changed
