"""``smrlab kv``: put, get, delete, scan, stats and bench as a user runs them, and one line with
exit code 2 for every user error."""

from __future__ import annotations

import argparse
import json
import re

STORE = ["--band-size", "1MiB", "--capacity", "64MiB"]


def test_put_get_scan_delete_and_stats(cli):
    assert cli("kv", "put", "s", "apple", "red", *STORE).returncode == 0
    assert cli("kv", "put", "s", "banana", "yellow").returncode == 0, "recorded parameters need not be repeated"
    assert cli("kv", "put", "s", "cherry", "dark red").returncode == 0
    got = cli("kv", "get", "s", "banana")
    assert (got.returncode, got.stdout) == (0, "yellow\n")
    missing = cli("kv", "get", "s", "durian")
    assert missing.returncode == 1 and "not found" in missing.stderr and missing.stdout == ""
    scan = cli("kv", "scan", "s", "--start", "b")
    assert scan.stdout.splitlines() == ["banana\tyellow", "cherry\tdark red"]
    assert cli("kv", "delete", "s", "banana").returncode == 0
    assert cli("kv", "scan", "s", "--limit", "5").stdout.splitlines() == ["apple\tred", "cherry\tdark red"]
    assert cli("kv", "put", "s", "00ff", "c0ffee", "--hex").returncode == 0
    assert cli("kv", "get", "s", "00ff", "--hex").stdout == "c0ffee\n"
    stats = json.loads(cli("kv", "stats", "s", "--json", check=True).stdout)
    assert stats["band_size"] == 1 << 20 and stats["scheme"] == "soc"
    assert sum(level["tables"] for level in stats["levels"]) >= 1, "the logged writes were flushed at reopening"
    # Counts and bytes each under its own name: each of the five commands flushed a table of one
    # entry (banana's delete is one) when the next command opened the store, and a compaction
    # in the background may have merged some of them before that command closed it (how many
    # depends on the machine's timing), so the entries of all tables count the five at most;
    # the levels' tables and bytes are their tables'.
    tables = stats["tables"]
    assert all(t["entries"] >= 1 for t in tables) and sum(t["entries"] for t in tables) <= 5, tables
    assert {t["smallest_key_hex"] for t in tables} <= {
        key.hex() for key in (b"apple", b"banana", b"cherry", b"\x00\xff")
    }
    for level in stats["levels"]:
        mine = [t for t in tables if t["level"] == level["level"]]
        assert (level["tables"], level["bytes"]) == (len(mine), sum(t["bytes"] for t in mine)), stats


def test_bench_reports_rates_and_amplification(cli):
    proc = cli(
        "kv",
        "bench",
        "b",
        "--count",
        "3000",
        "--value-size",
        "512",
        "--json",
        "--workloads",
        "fillseq,readseq,readrandom",
        *STORE,
        check=True,
    )
    rows = {row["workload"]: row for row in json.loads(proc.stdout)}
    assert rows["fillseq"]["ops"] == 3000 and rows["readseq"]["ops"] == 3000
    assert rows["fillseq"]["write_amplification"] > 1, "the log and the tables both hold the data"
    assert rows["readrandom"]["ops_per_s"] > 0
    timed = json.loads(
        cli(
            "kv", "bench", "t", "--count", "2000", "--disk", "desktop7200", "--inline", "--json", *STORE, check=True
        ).stdout
    )
    assert timed[0]["disk_seconds"] > 0


def test_user_errors_are_one_line_with_exit_code_2(cli, tmp_path):
    assert cli("kv", "put", "s", "k", "v", *STORE).returncode == 0
    cases = [
        (("kv", "put", "s", "k", "v", "--band-size", "2MiB"), "band_size"),
        (("kv", "get", "s", "k", "--compaction", "loc"), "compaction"),
        (("kv", "put", "s", "k" * 2000, "v"), "max_key_len"),
        (("kv", "get", "s", "zz", "--hex"), "hexadecimal"),
        (("kv", "bench", "n", "--count", "0"), "--count"),
        (("kv", "bench", "n", "--value-size", "lots"), "value-size"),
        (("kv", "bench", "n", "--workloads", "fillsideways"), "fillsideways"),
        (("kv", "put", "f/x", "k", "v"), "f"),
    ]
    (tmp_path / "f").write_text("a file where a folder should be")
    for args, needle in cases:
        proc = cli(*args)
        assert proc.returncode == 2, (args, proc.stdout, proc.stderr)
        assert needle in proc.stderr and "Traceback" not in proc.stderr, (args, proc.stderr)
        assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert cli("kv", "get", "s", "k").stdout == "v\n", "nothing stored was lost"


def test_help_explains_units(cli):
    text = cli("kv", "bench", "--help").stdout
    assert "MB/s" in text and "powers of 1024" in text and "write amplification" in text


def test_a_new_stores_geometry_is_the_cores_default_and_its_help_says_so(cli, tmp_path):
    # The defaults and limits the help states are the core's (written once, in smrdb's options);
    # a store made with none of the three options has exactly them.
    from smrlab import _core
    from smrlab.cli.kv import binary_size

    band, bands, schemes = _core.KV_DEFAULT_BAND_SIZE, _core.KV_DEFAULT_BANDS, _core.KV_SCHEMES
    assert cli("kv", "put", "d", "k", "v").returncode == 0
    stats = json.loads(cli("kv", "stats", "d", "--json", check=True).stdout)
    device = (tmp_path / "d" / "bands").stat().st_size  # every band, metadata ones too
    assert (stats["band_size"], device // stats["band_size"], stats["scheme"]) == (band, bands, schemes[0])
    for command in ("get", "ycsb"):
        text = " ".join(cli("kv", command, "--help").stdout.split())
        assert (
            f"default {binary_size(band)}" in text
            and f"default {bands} bands" in text
            and f"default {schemes[0]}" in text
        ), text
        assert f"{binary_size(_core.KV_MIN_BAND_SIZE)} to {binary_size(_core.KV_MAX_BAND_SIZE)}" in text
    small = cli("kv", "put", "tiny", "k", "v", "--band-size", str(_core.KV_MIN_BAND_SIZE - 4096))
    assert small.returncode == 2 and "band_size" in small.stderr and "64 KiB" in small.stderr


def test_stats_says_the_device_file_is_sparse_and_what_it_takes(cli, tmp_path):
    # A store of one key: its device file is as long as the whole default device (64 GiB), which
    # `ls` shows; kv stats says so and gives the bytes it takes on disk, a few blocks.
    cli("kv", "put", "one", "apple", "red", check=True)
    length = (tmp_path / "one" / "bands").stat().st_size
    on_disk = (tmp_path / "one" / "bands").stat().st_blocks * 512
    shown = " ".join(cli("kv", "stats", "one", check=True).stdout.split())
    assert length // (64 * 2**20) == 1024 and on_disk < 2**20
    assert f"Its device file is {length:,} bytes long (the whole device) but sparse" in shown
    taken = int(re.search(r"it takes ([0-9,]+) bytes on disk", shown).group(1).replace(",", ""))
    assert 0 < taken < 2**20


# --- --hex where it applies, and one line per record in scan --------------------------------------


def run_kv(capsys, argv: list[str]) -> tuple[int, str, str]:
    """``smrlab ARGV`` in this process: exit code, stdout, stderr."""
    from smrlab.cli import main

    capsys.readouterr()
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def kv_subcommands() -> dict[str, argparse.ArgumentParser]:
    """The parser of each ``kv`` command, from the command line's tree."""
    from smrlab.cli import build_parser

    def subcommands(parser):
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                return action.choices
        return {}

    return {name: sub for name, sub in subcommands(subcommands(build_parser())["kv"]).items()}


def kv_commands_with_hex() -> set[str]:
    """The kv commands that take --hex: a command added with it must show here what it does
    with it."""
    return {
        name
        for name, sub in kv_subcommands().items()
        if any("--hex" in action.option_strings for action in sub._actions)
    }


def test_every_kv_command_refuses_an_empty_store_path_and_makes_nothing(capsys, tmp_path, monkeypatch):
    # Walked from the parser: each kv command with a store folder (STORE, or serve's older
    # --path) given '' and whatever else it requires; exit 2 naming it, the current folder left
    # as it was.
    monkeypatch.chdir(tmp_path)
    commands = kv_subcommands()
    assert {"put", "get", "scan", "stats", "bench", "ycsb", "serve"} <= set(commands)
    for name, parser in commands.items():
        positionals = [a for a in parser._actions if not a.option_strings and a.dest != "store"]
        others = ["x" for a in positionals if a.nargs is None]
        forms = [["kv", name, "", *others]] + ([["kv", name, "--path", ""]] if name == "serve" else [])
        for argv in forms:
            code, _, err = run_kv(capsys, argv)
            assert code == 2 and "names a folder, not ''" in err and len(err.strip().splitlines()) == 1, (argv, err)
            assert list(tmp_path.iterdir()) == [], (argv, list(tmp_path.iterdir()))


def test_hex_is_taken_only_where_it_changes_what_the_command_reads_or_prints(capsys, tmp_path, monkeypatch):
    # The text key '6b' and the byte key b'k' (hexadecimal 6b): each command that takes --hex
    # reaches the other key with it. stats and bench read no keys: they refuse the option.
    from smrlab.kv import DB

    monkeypatch.chdir(tmp_path)
    with DB("st", band_size="1MiB", capacity="64MiB") as db:
        db.put(b"6b", b"text")
        db.put(b"k", b"hex")
    assert run_kv(capsys, ["kv", "get", "st", "6b"])[1] == "text\n"
    assert run_kv(capsys, ["kv", "get", "st", "6b", "--hex"])[1] == b"hex".hex() + "\n"
    assert run_kv(capsys, ["kv", "scan", "st"])[1] == "6b\ttext\nk\thex\n"
    assert run_kv(capsys, ["kv", "scan", "st", "--hex"])[1] == f"{b'6b'.hex()}\t{b'text'.hex()}\n6b\t{b'hex'.hex()}\n"
    assert run_kv(capsys, ["kv", "put", "st", "6b", "00", "--hex"])[0] == 0
    assert run_kv(capsys, ["kv", "delete", "st", "6b", "--hex"])[0] == 0
    with DB("st", create=False) as db:
        assert (db.get(b"6b"), db.get(b"k")) == (b"text", None), "put then deleted the byte key, not the text one"
    assert kv_commands_with_hex() == {"put", "get", "delete", "scan"}
    for command in ("stats", "bench"):
        code, _, err = run_kv(capsys, ["kv", command, "st", "--hex"])
        assert code == 2 and "unrecognized arguments: --hex" in err, (command, err)


def unescaped(text: str) -> bytes:
    """The bytes ``kv scan`` wrote as ``text`` (its --help's escapes undone)."""
    out, at = bytearray(), 0
    for found in re.finditer(r"\\(\\|t|n|r|x[0-9a-f]{2}|u[0-9a-f]{4})", text):
        out += text[at : found.start()].encode()
        escape = found.group(1)
        if escape[0] == "x":
            out.append(int(escape[1:], 16))  # an ASCII control byte, or one that is not UTF-8
        elif escape[0] == "u":
            out += chr(int(escape[1:], 16)).encode()
        else:
            out += {"\\": b"\\", "t": b"\t", "n": b"\n", "r": b"\r"}[escape]
        at = found.end()
    return bytes(out + text[at:].encode())


def test_scan_prints_each_record_on_one_line_of_two_columns_that_read_back(capsys, tmp_path, monkeypatch):
    # Every byte, tabs, newlines, backslashes, Unicode line separators and bytes that are not
    # UTF-8 in keys and values: one line per key, key<TAB>value, and the escapes give back the
    # stored bytes (values start with "v": a first byte 0xFF would be a server record's header).
    from smrlab.kv import DB

    monkeypatch.chdir(tmp_path)
    hostile = [b"a\tb\nc\\d\re", "\u2028\u0085\u00e9".encode(), b"\\x41", b"\xe2\x80", b"\\t"]
    pairs = {bytes([byte]) + b"k": b"v" + bytes([byte]) for byte in range(256)}
    pairs |= {b"k" + text: b"v" + text for text in hostile}
    with DB("st", band_size="1MiB", capacity="64MiB") as db:
        for key, value in pairs.items():
            db.put(key, value)
    code, out, _ = run_kv(capsys, ["kv", "scan", "st"])
    lines = out.split("\n")
    assert code == 0 and lines[-1] == "" and len(lines) - 1 == len(pairs), out
    read = [line.split("\t") for line in lines[:-1]]
    assert all(len(columns) == 2 for columns in read), out
    assert {unescaped(k): unescaped(v) for k, v in read} == pairs


def test_bench_readseq_megabytes_are_the_bytes_the_store_holds(capsys, tmp_path, monkeypatch):
    # A store of 1,000-byte values benchmarked as if its values were 10 bytes: readseq's MB/s is
    # the bytes it read per second, not its pairs times 26.
    from smrlab.kv import DB

    monkeypatch.chdir(tmp_path)
    with DB("st", band_size="1MiB", capacity="64MiB") as db:
        for index in range(50):
            db.put(b"%016d" % index, bytes(1000))
    argv = ["kv", "bench", "st", "--workloads", "readseq", "--value-size", "10", "--count", "50", "--json"]
    code, out, _ = run_kv(capsys, argv)
    (row,) = json.loads(out)
    read = row["mb_per_s"] * 1e6 * row["ops"] / row["ops_per_s"]
    assert code == 0 and row["ops"] == 50 and abs(read - 50 * 1016) < 1, row


def test_every_store_option_of_kv_ycsb_is_refused_against_a_server(capsys, tmp_path, monkeypatch):
    # Walked from the parser's group of ycsb's store options: each would be accepted and do
    # nothing against a server; each is refused before any connection (the port is closed).
    (group,) = [g for g in kv_subcommands()["ycsb"]._action_groups if "not with --server" in (g.title or "")]
    options = [action for action in group._group_actions]
    assert {"--sync", "--band-size", "--offload-store", "--disk"} <= {a.option_strings[0] for a in options}
    monkeypatch.chdir(tmp_path)
    for action in options:
        given = [action.option_strings[0]] + (
            [] if action.nargs == 0 else [action.choices[0] if action.choices else "1MiB"]
        )
        code, _, err = run_kv(capsys, ["kv", "ycsb", "--server", "127.0.0.1:1", *given, "--duration", "0.01"])
        assert code == 2 and f"give no {action.option_strings[0]} with it" in err, (given, err)
    code, _, err = run_kv(capsys, ["kv", "ycsb", "st", "--server", "127.0.0.1:1"])
    assert code == 2 and "give no store folder" in err and list(tmp_path.iterdir()) == []
