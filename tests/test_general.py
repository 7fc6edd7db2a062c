"""``smrlab reproduce --traces DIR --general``: the claims that name no trace, judged on each of a
user's traces whatever its name and format. A folder of four small traces in four formats (MSR
Cambridge CSV and SPC written by ``smrlab trace convert`` from a bundled sample, vscsi and
blkparse text written here from the same requests, as smrlab writes neither) runs every general
claim on each trace; a file no reader takes is named and skipped; an empty folder is refused.
Formats are told from the content, or from a sidecar."""

from __future__ import annotations

import json
import struct

import pytest
from conftest import DATA, REPO
from smrlab.errors import UsageError
from smrlab.reproduce import claims, general, tracefolder
from smrlab.trace import Trace

REQUESTS = 1500
# SCSI WRITE(10) and READ(10) command codes, as vscsi records them.
SCSI = {0: 0x28, 1: 0x2A}


def write_vscsi(requests, path) -> None:
    """vscsi v1 records (sn, len, nSG, cmd, ver, lbn, ts)."""
    with open(path, "wb") as out:
        for index, r in enumerate(requests):
            out.write(
                struct.pack(
                    "<IIIHHQQ",
                    index,
                    int(r["len"]),
                    1,
                    SCSI[int(r["op"])],
                    1 << 8,
                    int(r["offset"]) // 512,
                    int(r["time_ns"]) // 1000,
                )
            )


def write_blkparse(requests, path) -> None:
    """blkparse's default text: one D (issued) event per request, and its summary lines."""
    lines = [
        f"  8,0    0 {i + 1:8d} {int(r['time_ns']) / 1e9:14.9f}  4242  D   {'W' if r['op'] == 1 else 'R'} "
        f"{int(r['offset']) // 512} + {int(r['len']) // 512} [app]"
        for i, r in enumerate(requests)
    ]
    path.write_text("\n".join(lines + ["CPU0 (8,0):", " Reads Queued:           0,        0KiB"]) + "\n")


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    """Four traces of the same requests in four formats, none named by its suffix, and a file
    no reader takes."""
    import subprocess
    import sys

    made = tmp_path_factory.mktemp("mine")
    for name, to in (("alpha.csv", "msr"), ("beta.spc", "spc")):
        subprocess.run(
            [
                sys.executable,
                "-m",
                "smrlab",
                "trace",
                "convert",
                DATA / "usr.csv.gz",
                made / name,
                "--to",
                to,
                "--head",
                str(REQUESTS),
            ],
            check=True,
            capture_output=True,
        )
    (made / "alpha.csv").rename(made / "alpha.log")
    (made / "beta.spc").rename(made / "beta.dat")
    requests = Trace.open(made / "alpha.log", "msr").to_numpy()
    write_vscsi(requests, made / "gamma.bin")
    write_blkparse(requests, made / "delta.txt")
    (made / "notes.md").write_text("# what these traces are\nfour copies of the same requests\n")
    return made


def test_formats_are_told_from_the_content_and_an_unreadable_file_is_named(folder):
    found, skipped = tracefolder.scan(folder)
    assert {t.name: t.format for t in found} == {"alpha": "msr", "beta": "spc", "gamma": "vscsi", "delta": "blkparse"}
    assert {len(t.open()) for t in found} == {REQUESTS}
    assert [s.path.name for s in skipped] == ["notes.md"] and "no trace format reads it" in skipped[0].reason


def test_a_sidecar_names_the_format_and_columns(tmp_path):
    (tmp_path / "web.log").write_text("0.5 W 1048576 4096\n1.0 R 0 8192\n")
    (tmp_path / "web.log.trace.toml").write_text(
        'format = "csv"\noptions = { time = 0, op = 1, offset = 2, len = 3, delimiter = "space", time_unit = "s" }\n'
    )
    (tmp_path / "odd.log").write_text("1 2 3\n")
    (tmp_path / "odd.log.trace.toml").write_text('format = "tarball"\n')
    found, skipped = tracefolder.scan(tmp_path)
    assert [(t.name, t.format, t.told_by) for t in found] == [("web", "csv", "sidecar")]
    assert len(found[0].open()) == 2
    assert [s.path.name for s in skipped] == ["odd.log"] and "format 'tarball'" in skipped[0].reason


def test_every_general_claim_runs_on_each_trace(cli, folder, tmp_path):
    out = tmp_path / "general.json"
    result = cli("reproduce", "--traces", folder, "--general", "--jobs", "1", "--results", tmp_path / "r", "-o", out)
    assert result.returncode == 0, result.stderr
    card = json.loads(out.read_text())
    assert {t["name"] for t in card["traces"]} == {"alpha", "beta", "gamma", "delta"}
    assert [s["file"] for s in card["skipped"]] == ["notes.md"]
    expected = {
        (f.paper, c.id)
        for f in map(claims.load, sorted(claims.claims_path("pore", REPO).parent.glob("*.toml")))
        for c in f.claims
        if c.general
    }
    assert expected and {(c["paper"], c["id"]) for c in card["claims"]} == expected
    for entry in card["claims"]:
        assert entry["traces"] == 4, entry
    assert "held on" in result.stdout and "notes.md" in result.stdout


def test_an_empty_folder_or_no_folder_is_refused(cli, tmp_path):
    (tmp_path / "empty").mkdir()
    for argv, said in (
        (["--traces", tmp_path / "empty", "--general"], "holds no trace file"),
        (["--general"], "--general needs --traces"),
    ):
        result = cli("reproduce", *argv, "--results", tmp_path / "r")
        assert result.returncode == 2 and said in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1
    with pytest.raises(UsageError, match="no such folder"):
        tracefolder.scan(tmp_path / "missing")


def test_the_geometry_follows_the_trace(tmp_path):
    pore = general.scaling_of(claims.claims_path("pore", REPO))
    assert pore.factor({"written_bytes": 4.71e9 / 10}) == pytest.approx(0.1)
    assert pore.factor({"written_bytes": 10e9}) == 1.0
    bad = tmp_path / "pore.toml"
    bad.write_text('[general]\nscaled = ["zone"]\nby = "colour"\nreference = 1\n')
    with pytest.raises(UsageError, match=str(bad)):
        general.scaling_of(bad)
