"""Drive-managed SMR end to end: the simulator and the §III-A estimate agree on the scale of
write amplification, SMR is slower than a plain disk for writes, and the demo shows it."""

from __future__ import annotations

import json

from conftest import DATA, assert_parameter_errors


def test_dmsmr_amplifies_and_is_slower_than_cmr(cli, tmp_path):
    trace = DATA / "wdev.csv.gz"
    cli("sim", "--system", "cmr", "--trace", trace, "--out", "cmr.json", check=True)
    cli("sim", "--system", "dmsmr", "--trace", trace, "--out", "smr.json", check=True)
    cmr = json.loads((tmp_path / "cmr.json").read_text())
    smr = json.loads((tmp_path / "smr.json").read_text())
    assert smr["derived"]["write_io_s"] > 2 * cmr["derived"]["write_io_s"]
    assert smr["derived"]["r_wa"] > 20
    # Bands are written by cleanings only, one whole-band write each: the counters agree with
    # what the disk's band channel carried (its reads also serve host reads of unbuffered data).
    counters = smr["report"]["counters"]
    band = next(ch for ch in smr["report"]["channels"] if ch["channel"] == "band")
    assert (band["writes"], band["bytes_written"]) == (counters["band_cleanings"], counters["band_bytes_written"])
    assert band["bytes_read"] > counters["band_bytes_read"]
    busy = {c["channel"]: c["read_ns"] + c["write_ns"] for c in smr["report"]["channels"]}
    assert set(busy) == {"write-buffer", "band"}
    assert sum(busy.values()) == smr["report"]["total_io_ns"], "one head: the channels' times add up to the I/O time"


def test_estimate_is_of_the_same_scale_as_the_simulation(cli, tmp_path):
    trace = DATA / "mds.csv.gz"
    estimate = json.loads(cli("trace", "smr-estimate", trace, "--json", check=True).stdout)
    cli("sim", "--system", "dmsmr", "--trace", trace, "--out", "smr.json", check=True)
    simulated = json.loads((tmp_path / "smr.json").read_text())["derived"]["r_wa"]
    assert 0.5 < estimate["r_wa"] / simulated < 2, (estimate["r_wa"], simulated)
    bigger = json.loads(cli("trace", "smr-estimate", trace, "--json", "-p", "buffer=1/64", check=True).stdout)
    assert bigger["r_wa"] < estimate["r_wa"], "a larger buffer gathers more blocks per band"


def test_buffer_on_ssd_is_faster(cli, tmp_path):
    trace = DATA / "ts.csv.gz"
    cli("sim", "--system", "dmsmr", "--trace", trace, "--out", "disk.json", check=True)
    cli("sim", "--system", "dmsmr", "--trace", trace, "--buffer-on", "ssd", "--out", "ssd.json", check=True)
    disk = json.loads((tmp_path / "disk.json").read_text())["derived"]
    ssd = json.loads((tmp_path / "ssd.json").read_text())["derived"]
    assert ssd["write_io_s"] < disk["write_io_s"]


def test_idle_cleaning_in_open_loop(cli, tmp_path):
    trace = DATA / "wdev.csv.gz"
    args = ("sim", "--system", "dmsmr", "--trace", trace, "--replay", "open")
    cli(*args, "--out", "plain.json", check=True)
    cli(*args, "--idle-clean", "true", "--idle-clean-above", "0.25", "--out", "idle.json", check=True)
    plain = json.loads((tmp_path / "plain.json").read_text())["report"]
    idle = json.loads((tmp_path / "idle.json").read_text())["report"]
    assert idle["counters"]["idle_cleanings"] > 0
    assert idle["idle_work_ns"] > 0
    # Cleaning moves out of the foreground: writes themselves get faster. (Responses may not:
    # a quantum that has started delays the next arrival, and cleaning earlier cleans more.)
    assert idle["write"]["service"]["mean_ns"] < plain["write"]["service"]["mean_ns"]


def test_bad_dmsmr_parameters(cli):
    assert_parameter_errors(
        "dmsmr",
        DATA / "wdev.csv.gz",
        (
            ("--buffer=0", "buffer"),
            ("--band-min=40MB", "band_min"),
            ("--buffer-on=tape", "buffer_on"),
            ("--buffer=6TB", "buffer"),
        ),
    )


def test_demo_prints_the_comparison(demo):
    out, results = demo
    assert "Drive-managed SMR vs plain disk" in out and "PORE-BL against the others" in out
    for trace in ("wdev", "mds", "ts", "usr"):
        assert trace in out
        result = {
            system: json.loads((results / f"{trace}-{system}.json").read_text())["derived"]
            for system in ("cmr", "dmsmr")
        }
        assert result["dmsmr"]["total_io_s"] > result["cmr"]["total_io_s"], trace
        assert result["dmsmr"]["r_wa"] > 1, trace


def test_translated_trace_as_fio_iolog(cli, tmp_path):
    trace = DATA / "usr.csv.gz"
    cli(
        "sim",
        "--system",
        "dmsmr",
        "--trace",
        trace,
        "--iolog",
        "t.iolog",
        "--iolog-max-io",
        "512KiB",
        "--out",
        "r.json",
        check=True,
    )
    lines = (tmp_path / "t.iolog").read_text().splitlines()
    assert lines[0] == "fio version 2 iolog"
    assert lines[1:3] == ["disk add", "disk open"] and lines[-1] == "disk close"
    ios = [line.split() for line in lines[3:-1]]
    assert all(verb in ("read", "write") and int(length) <= 512 * 1024 for _, verb, _, length in ios)
    result = json.loads((tmp_path / "r.json").read_text())
    assert result["iolog"]["ios"] == len(ios)
    written = sum(int(length) for _, verb, _, length in ios if verb == "write")
    channels = result["report"]["channels"]
    assert written == sum(c["bytes_written"] for c in channels)


def test_trace_larger_than_the_disk_is_refused(cli, tmp_path):
    from conftest import msr_line

    trace = tmp_path / "far.csv"
    trace.write_text(msr_line(0, "Write", 0, 4096) + "\n" + msr_line(1, "Write", 6 * 10**12, 4096) + "\n")
    proc = cli("sim", "--system", "cmr", "--trace", trace)
    assert proc.returncode == 2
    assert "disk" in proc.stderr and "Traceback" not in proc.stderr
