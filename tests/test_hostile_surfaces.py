"""Generated hostile input for the surfaces added after the first reliability pass (issue 42):
the figure commands (``hwsr``, ``hwsr-sweep``, ``fluid-sweep``, ``fluid-trace``, ``workload
fig4.10 / fig5.8 / table5.1``), experiment files, the results tables and provenance that
``smrlab results`` and ``smrlab report`` read, and the key-value store's commands. Whatever the
value, a command runs or stops with exit code 2 and one line, within the memory and CPU bounds
of ``test_hostile_options.py`` (whose runner and checks these share).

A valid large count or duration is a long run, not a bad value: options whose valid values
make work in proportion (requests, records, seconds of arrivals) are given hostile text with
the large valid numbers swapped for small ones (``short``). Examples per test:
``SMRLAB_HYPOTHESIS_EXAMPLES`` (fresh ones each run), or a fixed few per family (the same ones
each run).
"""

from __future__ import annotations

import json
import math
import os
import shutil
import tempfile
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from smrlab import arrival_names
from smrlab.cli import main
from test_hostile_options import DERANDOMIZE, HOSTILE_TEXT, assert_clean, run

EXAMPLES = os.environ.get("SMRLAB_HYPOTHESIS_EXAMPLES")


def examples(default: int):
    """Settings of a family's test: ``default`` examples in ``make test``."""
    return settings(
        max_examples=int(EXAMPLES) if EXAMPLES else default,
        deadline=None,
        derandomize=DERANDOMIZE,
        suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
    )


def _small_if_large(text: str, most: float) -> str:
    """``text``, or a small number where it reads as a valid number above ``most``."""
    try:
        value = float(text)
    except ValueError:
        return text
    return str(int(most)) if math.isfinite(value) and value > most else text


def short(most: float) -> st.SearchStrategy[str]:
    """Hostile text whose valid numbers stay at or below ``most`` (negatives, zero, fractions,
    words and numbers past every limit stay)."""
    return HOSTILE_TEXT.map(
        lambda text: text if float_or_none(text) is None or float_or_none(text) > 1e20 else _small_if_large(text, most)
    )


def float_or_none(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def check(capsys, monkeypatch, folder, argv: list[str]) -> str:
    """Runs ``smrlab ARGV`` in ``folder``, checks it ran or refused cleanly; its stderr."""
    code, err, growth, cpu = run(capsys, monkeypatch, folder, argv)
    assert_clean(code, err, growth, cpu, argv)
    return err


def assert_arrivals_named_as_given(err: str, argv: list[str]) -> None:
    """A refusal of an arrival parameter names the option given, never the core's Table 4.1 key."""
    assert not any(key in err for word, key in arrival_names.KEYWORDS.items() if key != word), (argv, err)


def fresh(tmp_path: Path) -> Path:
    """A new folder for one example (hypothesis runs every example of a test in one tmp_path)."""
    return Path(tempfile.mkdtemp(dir=tmp_path))


@pytest.fixture
def trace(tmp_path) -> str:
    """A 300-request MSR trace of writes and reads over 1 GB, a second apart."""
    from conftest import msr_line

    path = tmp_path / "t.csv"
    path.write_text(
        "".join(
            msr_line(i * 10_000_000, "Write" if i % 3 else "Read", (i * 7919 % 250_000) * 4096, 4096) + "\n"
            for i in range(300)
        )
    )
    return str(path)


# --- The figure commands -----------------------------------------------------------------------


def figure_runs(trace: str) -> dict[str, list[str]]:
    """Each figure command at a size that runs in a fraction of a second."""
    return {
        "hwsr traces": ["hwsr", "traces", "--preset", "wdev0", "--requests", "300", "--out", "tr"],
        "hwsr compare": ["hwsr", "compare", "--trace", trace, "--only", "hwsr", "--out", "res"],
        "hwsr-sweep": ["hwsr-sweep", "--trace", trace, "--blocks", "16", "--regions", "8", "--out", "res"],
        "fluid usage": [
            "fluid-sweep",
            "usage",
            "--trace",
            trace,
            "--schemes",
            "fluid-smr",
            "--usages",
            "0.9",
            "--out",
            "res",
        ],
        # A generated trace (into results/traces, as the figure makes them), whose zones are
        # scaled down with it, so the guard range fits; its data at the front, since 300
        # requests are too few to spread over hot ranges of at least 128 KiB.
        "fluid migration": [
            "fluid-sweep",
            "migration",
            "--traces",
            "proj_1",
            "--requests",
            "300",
            "--placement",
            "front",
            "--bounds",
            "60",
            "--out",
            "res",
        ],
        "fluid-trace": ["fluid-trace", "four-phase", "--requests", "300", "--phase-hours", "0.01", "--out", "tr"],
        "fluid-trace usr_0": ["fluid-trace", "usr_0", "--requests", "300", "--placement", "front", "--out", "tr"],
    }


FIGURE_OPTIONS = [
    ("hwsr traces", "--requests", short(2000)),
    ("hwsr traces", "--seed", HOSTILE_TEXT),
    ("hwsr traces", "--preset", HOSTILE_TEXT),
    ("hwsr compare", "--only", HOSTILE_TEXT),
    ("hwsr compare", "--requests", short(2000)),
    ("hwsr compare", "--preset", HOSTILE_TEXT),
    ("hwsr-sweep", "--blocks", HOSTILE_TEXT),
    ("hwsr-sweep", "--regions", HOSTILE_TEXT),
    ("fluid usage", "--usages", HOSTILE_TEXT),
    ("fluid usage", "--usage", HOSTILE_TEXT),
    ("fluid usage", "--schemes", HOSTILE_TEXT),
    ("fluid usage", "--traces", HOSTILE_TEXT),
    ("fluid migration", "--bounds", HOSTILE_TEXT),
    ("fluid migration", "--allocate-at", HOSTILE_TEXT),
    ("fluid migration", "--migration-usage", HOSTILE_TEXT),
    ("fluid-trace", "--requests", short(2000)),
    ("fluid-trace", "--phase-hours", HOSTILE_TEXT),
    ("fluid-trace", "--seed", HOSTILE_TEXT),
    ("fluid-trace usr_0", "--requests", short(2000)),
]


def test_every_command_runs_as_the_generated_cases_start_it(capsys, monkeypatch, tmp_path, trace):
    # A hostile value is tried on a command line that works without it, so what stops the
    # command is the value.
    runs = [*figure_runs(trace).values(), *WORKLOAD_RUNS.values(), *(kv_argv(command) for command in KV_COMMANDS)]
    for argv in runs:
        code, err, *_ = run(capsys, monkeypatch, fresh(tmp_path), argv)
        assert code == 0, (argv, err[-1000:])
    for document in kv_experiments().values():
        folder = fresh(tmp_path)
        (folder / "e.toml").write_text(experiment_text(document))
        code, err, *_ = run(capsys, monkeypatch, folder, ["run", "e.toml", "--jobs", "1", "--out", "results"])
        assert code == 0, (document["name"], err[-1000:])


@examples(40)
@given(case=st.sampled_from(range(len(FIGURE_OPTIONS))), data=st.data())
def test_figure_command_options(capsys, monkeypatch, tmp_path, trace, case, data):
    command, option, values = FIGURE_OPTIONS[case]
    argv = figure_runs(trace)[command] + [f"{option}={data.draw(values)}"]
    check(capsys, monkeypatch, fresh(tmp_path), argv)


# --- The thesis's workload experiments ---------------------------------------------------------

# Each at a size that runs in well under a second: stores in memory at full speed, runs of a few
# hundredths of a second.
WORKLOAD_RUNS = {
    "fig4.10": [
        "workload",
        "fig4.10",
        "--disk",
        "none",
        "--duration",
        "0.03",
        "--calibration-requests",
        "1000",
        "--records",
        "50",
        "--threads",
        "2",
        "--capacity",
        "64MiB",
        "--band-size",
        "1MiB",
        "--json",
    ],
    "fig5.8": [
        "workload",
        "fig5.8",
        "--disk",
        "none",
        "--duration",
        "0.03",
        "--calibration-requests",
        "1000",
        "--records",
        "50",
        "--threads",
        "2",
        "--capacity",
        "64MiB",
        "--band-size",
        "1MiB",
        "--json",
    ],
    "table5.1": [
        "workload",
        "table5.1",
        "--duration",
        "0.02",
        "--rate-scale",
        "0.02",
        "--threads",
        "2",
        "--capacity",
        "64MiB",
        "--band-size",
        "1MiB",
        "--json",
    ],
}
WORKLOAD_OPTIONS = [
    ("fig4.10", "--records", short(200)),
    ("fig4.10", "--calibration-requests", short(2000)),
    ("fig4.10", "--bias", HOSTILE_TEXT),
    ("fig4.10", "--shape", HOSTILE_TEXT),
    ("fig4.10", "--capacity", HOSTILE_TEXT),
    ("fig4.10", "--band-size", HOSTILE_TEXT),
    ("fig4.10", "--threads", HOSTILE_TEXT),
    ("fig4.10", "--seed", HOSTILE_TEXT),
    ("fig4.10", "--disk", HOSTILE_TEXT),
    ("fig4.10", "--load", short(2)),
    ("fig4.10", "--duration", short(0.05)),
    ("fig5.8", "--check-interval", HOSTILE_TEXT),
    ("fig5.8", "--quiet-interval", HOSTILE_TEXT),
    ("fig5.8", "--buffer-bands", HOSTILE_TEXT),
    ("fig5.8", "--rate", short(20_000)),
    ("table5.1", "--rate-scale", short(0.05)),
    ("table5.1", "--cycle", HOSTILE_TEXT),
    ("table5.1", "--write-cycles", HOSTILE_TEXT),
    ("table5.1", "--shape", HOSTILE_TEXT),
    ("table5.1", "--bias", HOSTILE_TEXT),
]


@examples(30)
@given(case=st.sampled_from(range(len(WORKLOAD_OPTIONS))), data=st.data())
def test_workload_experiment_options(capsys, monkeypatch, tmp_path, case, data):
    command, option, values = WORKLOAD_OPTIONS[case]
    value = data.draw(values)
    # Three bands for the three buffer levels, the one under test first.
    given_value = ["--buffer-bands", value, "2", "4"] if option == "--buffer-bands" else [f"{option}={value}"]
    argv = WORKLOAD_RUNS[command] + given_value
    assert_arrivals_named_as_given(check(capsys, monkeypatch, fresh(tmp_path), argv), argv)


# --- The key-value store's commands --------------------------------------------------------------

KV_OPTIONS = [
    ("put", "--band-size", HOSTILE_TEXT),
    ("put", "--capacity", HOSTILE_TEXT),
    ("get", "--band-size", HOSTILE_TEXT),
    ("scan", "--limit", HOSTILE_TEXT),
    ("scan", "--start", HOSTILE_TEXT),
    ("stats", "--capacity", HOSTILE_TEXT),
    ("bench", "--count", short(2000)),
    ("bench", "--value-size", HOSTILE_TEXT),
    ("bench", "--sync-every", HOSTILE_TEXT),
    ("bench", "--workloads", HOSTILE_TEXT),
    ("bench", "--seed", HOSTILE_TEXT),
    ("bench", "--capacity", HOSTILE_TEXT),
    ("bench", "--band-size", HOSTILE_TEXT),
    ("ycsb", "--records", short(500)),
    ("ycsb", "--threads", HOSTILE_TEXT),
    ("ycsb", "--rate", short(2000)),
    ("ycsb", "--duration", short(0.05)),
    ("ycsb", "--capacity", HOSTILE_TEXT),
    ("ycsb", "--band-size", HOSTILE_TEXT),
    ("ycsb", "--seed", HOSTILE_TEXT),
]
YCSB_PROPERTIES = [
    "recordcount",
    "fieldcount",
    "fieldlength",
    "readproportion",
    "insertproportion",
    "scanproportion",
    "requestdistribution",
    "zipfianconstant",
    "minscanlength",
    "maxscanlength",
    "hotspotdatafraction",
    "zeropadding",
]


KV_COMMANDS = ["put", "bench", "ycsb"]


def kv_argv(command: str) -> list[str]:
    """A ``kv`` command on the store ``st`` (made by a put first where it must hold one)."""
    return {
        "put": ["kv", "put", "st", "k", "v"],
        "get": ["kv", "get", "st", "k"],
        "scan": ["kv", "scan", "st"],
        "stats": ["kv", "stats", "st"],
        "bench": [
            "kv",
            "bench",
            "st",
            "--count",
            "200",
            "--value-size",
            "100",
            "--band-size",
            "1MiB",
            "--capacity",
            "64MiB",
            "--json",
        ],
        "ycsb": [
            "kv",
            "ycsb",
            "st",
            "--records",
            "50",
            "--rate",
            "500",
            "--duration",
            "0.05",
            "--threads",
            "2",
            "--band-size",
            "1MiB",
            "--capacity",
            "64MiB",
            "--json",
        ],
    }[command]


@examples(30)
@given(case=st.sampled_from(range(len(KV_OPTIONS))), data=st.data())
def test_kv_options(capsys, monkeypatch, tmp_path, case, data):
    command, option, values = KV_OPTIONS[case]
    folder = fresh(tmp_path)
    if command in ("get", "scan", "stats"):
        check(capsys, monkeypatch, folder, ["kv", "put", "st", "k", "v", "--band-size", "1MiB", "--capacity", "64MiB"])
    argv = kv_argv(command) + [f"{option}={data.draw(values)}"]
    assert_arrivals_named_as_given(check(capsys, monkeypatch, folder, argv), argv)


@examples(20)
@given(name=st.sampled_from(YCSB_PROPERTIES), value=short(500))
def test_ycsb_properties(capsys, monkeypatch, tmp_path, name, value):
    check(capsys, monkeypatch, fresh(tmp_path), kv_argv("ycsb") + ["-p", f"{name}={value}"])


# --- Experiment files -----------------------------------------------------------------------------


def toml_value(value) -> str:
    """``value`` written as TOML (strings as JSON writes them, which TOML reads alike)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return (
            repr(value)
            if not isinstance(value, float) or math.isfinite(value)
            else {math.inf: "inf", -math.inf: "-inf"}.get(value, "nan")
        )
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return "{" + ", ".join(f"{json.dumps(str(k))} = {toml_value(v)}" for k, v in value.items()) + "}"


TOML_SCALARS = st.one_of(
    st.integers(min_value=-(2**63), max_value=2**63 - 1),
    st.floats(),
    st.booleans(),
    HOSTILE_TEXT,
    st.sampled_from(
        [
            "cmr",
            "dmsmr",
            "bars",
            "lines",
            "series",
            "trace",
            "label",
            "total_io_s",
            "closed",
            "open",
            "t.csv",
            "bundled:nosuch",
            "fluid-table1:x",
        ]
    ),
)
TOML_VALUES = st.recursive(
    TOML_SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(st.sampled_from(["a", "label", "system", "path", "kind", "x", "value"]), inner, max_size=3),
    ),
    max_leaves=8,
)

# Where a hostile value goes in a working experiment (a key path; a number indexes a list).
EXPERIMENT_KEYS = [
    ("name",),
    ("title",),
    ("description",),
    ("seeds",),
    ("metrics",),
    ("traces",),
    ("traces", 0),
    ("traces", 0, "name"),
    ("traces", 0, "format"),
    ("traces", 0, "options"),
    ("reproduces",),
    ("reproduces", "paper"),
    ("engine",),
    ("engine", "mode"),
    ("engine", "speedup"),
    ("engine", "warmup_requests"),
    ("engine", "warmup_seconds"),
    ("engine", "gauge_samples"),
    ("engine", "series_interval_seconds"),
    ("engine", "idle_work"),
    ("params",),
    ("params", "buffer"),
    ("systems",),
    ("systems", 0),
    ("systems", 0, "label"),
    ("systems", 0, "system"),
    ("systems", 0, "params"),
    ("systems", 0, "params", "buffer"),
    ("systems", 0, "engine"),
    ("figure",),
    ("figure", "kind"),
    ("figure", "x"),
    ("figure", "y"),
    ("figure", "normalise"),
    ("figure", "logy"),
    ("figure", "also"),
    ("reproduces", "figure"),
    ("reproduces", "claims"),
    ("unknown",),
]


def working_experiment() -> dict:
    return {
        "name": "hostile",
        "title": "t",
        "metrics": ["total_io_s"],
        "traces": [{"path": "t.csv", "name": "t"}],
        "engine": {"mode": "closed"},
        "params": {},
        "systems": [
            {"label": "cmr", "system": "cmr"},
            {"label": "smr", "system": "dmsmr", "params": {"buffer": "1/64"}},
        ],
        "figure": {"kind": "bars", "y": "total_io_s", "normalise": "cmr"},
    }


def placed(document: dict, keys: tuple, value) -> dict:
    """``document`` with ``value`` at ``keys`` (made where missing)."""
    at = document
    for key in keys[:-1]:
        at = at[key] if isinstance(key, int) or key in at else at.setdefault(key, {})
    at[keys[-1]] = value
    return document


def experiment_text(document: dict) -> str:
    return "".join(f"{json.dumps(key)} = {toml_value(value)}\n" for key, value in document.items())


@examples(40)
@given(keys=st.sampled_from(EXPERIMENT_KEYS), value=TOML_VALUES, raw=st.one_of(st.none(), st.text(max_size=60)))
def test_experiment_files(capsys, monkeypatch, tmp_path, trace, keys, value, raw):
    folder = fresh(tmp_path)
    shutil.copy(trace, folder / "t.csv")
    text = raw if raw is not None else experiment_text(placed(working_experiment(), keys, value))
    (folder / "e.toml").write_text(text)
    argv = ["run", "e.toml", "--jobs", "1", "--out", "results"]
    code, err, growth, cpu = run(capsys, monkeypatch, folder, argv)
    # Whatever a cell would fail on is checked before the first runs: exit code 2 and no
    # results folder, never failed cells (exit code 1).
    assert_clean(code, err, growth, cpu, argv)
    assert code == 0 or not (folder / "results").exists(), err[-1000:]


def nested_text(depth: int, table: bool) -> str:
    """A TOML value nested ``depth`` levels deep (arrays, or inline tables), written without
    recursion."""
    return ("{ a = " * depth + "1" + " }" * depth) if table else ("[" * depth + "1" + "]" * depth)


@examples(8)
@given(
    keys=st.sampled_from(EXPERIMENT_KEYS),
    depth=st.integers(min_value=20, max_value=1200),
    table=st.booleans(),
    long_text=st.one_of(st.none(), st.text(min_size=300, max_size=300).map(lambda t: t * 17)),
)
def test_experiment_files_nested_deep_or_holding_long_text(
    capsys, monkeypatch, tmp_path, trace, keys, depth, table, long_text
):
    # A value hundreds of levels deep (Python's TOML reader recurses per level), or 5,100
    # characters of text (a label becomes part of a file's name), anywhere in a working file.
    folder = fresh(tmp_path)
    shutil.copy(trace, folder / "t.csv")
    document = placed(working_experiment(), keys, "@VALUE@")
    value = json.dumps(long_text) if long_text is not None else nested_text(depth, table)
    (folder / "e.toml").write_text(experiment_text(document).replace('"@VALUE@"', value))
    argv = ["run", "e.toml", "--jobs", "1", "--out", "results"]
    code, err, growth, cpu = run(capsys, monkeypatch, folder, argv)
    assert_clean(code, err, growth, cpu, argv)


def test_an_experiment_of_too_many_cells_is_refused_before_any_is_made(capsys, monkeypatch, tmp_path, trace):
    # 100 seeds of cmr, and of dmsmr over 118 buffer sizes: 11,900 cells.
    document = placed(working_experiment(), ("systems", 1, "params", "buffer"), [f"1/{n}" for n in range(2, 120)])
    document["seeds"] = list(range(100))
    (tmp_path / "e.toml").write_text(experiment_text(document))
    code, err, growth, cpu = run(capsys, monkeypatch, tmp_path, ["run", "e.toml", "--jobs", "1", "--out", "results"])
    assert code == 2 and "11,900 cells" in err and "10,000" in err, err
    assert not (tmp_path / "results").exists()


# --- Key-value experiment files ------------------------------------------------------------------


def kv_experiments() -> dict[str, dict]:
    """A working key-value experiment per kind of store: SMRDB on the disk model (200 puts), and
    the offloading store paced by a few arrivals."""
    from smrlab.experiment.kv import offload

    return {
        "smrdb-soc": {
            "kind": "kv",
            "name": "hostile-kv",
            "traces": [{"name": "random", "phases": ["fillrandom", "readseq"], "count": 200, "value_size": 100}],
            "params": {"band_size": "256KiB"},
            "systems": [{"label": "soc", "system": "smrdb-soc"}],
        },
        offload.SYSTEM: {
            "kind": "kv",
            "name": "hostile-offload",
            "traces": [
                {
                    "name": "few",
                    "steps": [
                        {"name": "insert", "workload": "insert", "process": "constant", "rate": 200, "duration": 0.02}
                    ],
                }
            ],
            "params": {"band_size": "1MiB", "capacity": "64MiB", "threads": 2},
            "systems": [{"label": "off", "system": offload.SYSTEM}],
        },
    }


def kv_parameters() -> list[tuple[str, str]]:
    """(store, key) of every parameter each store of ``kv_experiments`` takes, as the stores
    declare them: a parameter added to a store is covered without a case written for it."""
    from smrlab.experiment.kv import offload, stores

    return [("smrdb-soc", key) for key in stores.COMMON + stores.SMRDB_TUNING] + [
        (offload.SYSTEM, key) for key in offload.PARAMS
    ]


# Integers past 2^64 (TOML's reader takes them), and grid axes of values.
KV_VALUES = st.one_of(
    TOML_SCALARS,
    st.integers(min_value=2**63, max_value=2**70),
    st.lists(st.one_of(TOML_SCALARS, st.integers(min_value=0, max_value=2**70)), min_size=1, max_size=3),
)


@examples(8)
@given(store_key=st.sampled_from(kv_parameters()), value=KV_VALUES, shared=st.booleans())
def test_kv_experiment_parameters_are_checked_before_any_cell_runs(
    capsys, monkeypatch, tmp_path, store_key, value, shared
):
    # A value no cell can run with (past 2^64, zero threads, a zero trigger, an unknown offload
    # target, a bad value on a grid's axis) stops the run before its first cell: exit code 2 and
    # no results folder, never failed cells (exit code 1).
    store, key = store_key
    document = kv_experiments()[store]
    placed(document, ("params", key) if shared else ("systems", 0, "params", key), value)
    folder = fresh(tmp_path)
    (folder / "e.toml").write_text(experiment_text(document))
    argv = ["run", "e.toml", "--jobs", "1", "--out", "results"]
    code, err, growth, cpu = run(capsys, monkeypatch, folder, argv)
    assert_clean(code, err, growth, cpu, argv)
    assert code == 0 or not (folder / "results").exists(), err[-1000:]


# --- Results tables and their provenance --------------------------------------------------------


@pytest.fixture(scope="module")
def results_folder(tmp_path_factory) -> Path:
    """The results folder of one small experiment: two systems and a figure."""
    folder = tmp_path_factory.mktemp("results")
    from conftest import msr_line

    (folder / "t.csv").write_text(
        "".join(msr_line(i * 1000, "Write", (i * 7919 % 50_000) * 4096, 4096) + "\n" for i in range(300))
    )
    (folder / "e.toml").write_text(experiment_text(working_experiment()))
    assert main(["run", str(folder / "e.toml"), "--jobs", "1", "--out", str(folder / "results")]) == 0
    return folder / "results"


def results_copy(results_folder: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the results folder in a new folder, and its table."""
    copy = fresh(tmp_path) / "results"
    shutil.copytree(results_folder, copy)
    return copy, next(copy.glob("*/*.parquet"))


JSON_VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), HOSTILE_TEXT),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=8), inner, max_size=3)),
    max_leaves=6,
)
SIDECAR_KEYS = [
    ("experiment",),
    ("experiment", "text"),
    ("experiment", "file"),
    ("smrlab",),
    ("smrlab", "version"),
    ("host",),
    ("host", "name"),
    ("cells",),
    ("failed",),
    ("traces",),
    ("traces", "t"),
    ("traces", "t", "checksum"),
]


@st.composite
def table_damage(draw):
    """A way to damage a results table: its bytes, or its columns."""
    kind = draw(st.sampled_from(["truncate", "flip", "bytes", "drop", "retype", "list", "empty"]))
    return (
        kind,
        draw(st.integers(min_value=0, max_value=10**6)),
        draw(st.sampled_from(["label", "trace", "total_io_s", "cell", "error", "seed"])),
    )


def damage_table(table: Path, kind: str, number: int, column: str) -> None:
    data = table.read_bytes()
    if kind == "truncate":
        table.write_bytes(data[: number % len(data)])
    elif kind == "flip":
        at = number % len(data)
        table.write_bytes(data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :])
    elif kind == "bytes":
        table.write_bytes(number.to_bytes(8, "little") * (number % 50))
    else:
        frame = pq.read_table(table)
        if column in frame.column_names:
            index = frame.column_names.index(column)
            rows = frame.num_rows
            replacement = {
                "drop": None,
                "retype": pa.array([str(number)] * rows if number % 2 else [number] * rows),
                "list": pa.array([[1.0, 2.0]] * rows),
                "empty": pa.array([None] * rows),
            }[kind]
            frame = frame.remove_column(index) if replacement is None else frame.set_column(index, column, replacement)
        pq.write_table(frame, table)


def damage_sidecar(sidecar: Path, keys: tuple, value, raw: str | None) -> None:
    if raw is not None:
        sidecar.write_text(raw)
        return
    document = json.loads(sidecar.read_text())
    at = document
    for key in keys[:-1]:
        if not isinstance(at, dict) or key not in at:
            return
        at = at[key]
    if isinstance(at, dict):
        at[keys[-1]] = value
    sidecar.write_text(json.dumps(document))


RESULTS_OPTIONS = ["--where", "--pivot", "--columns"]
COLUMN_WORDS = st.sampled_from(
    ["label", "trace", "total_io_s", "cell", "seed", "buffer", "error", "nosuch", "", ":", "="]
)
RESULTS_VALUES = st.one_of(
    HOSTILE_TEXT,
    st.lists(COLUMN_WORDS, min_size=1, max_size=4).map(":".join),
    st.lists(COLUMN_WORDS, min_size=1, max_size=4).map(",".join),
    st.tuples(COLUMN_WORDS, HOSTILE_TEXT).map("=".join),
)


@examples(40)
@given(
    damage=st.one_of(st.none(), table_damage()),
    sidecar_keys=st.sampled_from(SIDECAR_KEYS),
    sidecar_value=st.one_of(st.none(), JSON_VALUES),
    raw_sidecar=st.one_of(st.none(), st.text(max_size=40)),
    option=st.sampled_from(RESULTS_OPTIONS),
    value=RESULTS_VALUES,
)
def test_results_and_report_inputs(
    capsys, monkeypatch, tmp_path, results_folder, damage, sidecar_keys, sidecar_value, raw_sidecar, option, value
):
    folder, table = results_copy(results_folder, tmp_path)
    if damage is not None:
        damage_table(table, *damage)
    if sidecar_value is not None or raw_sidecar is not None:
        damage_sidecar(table.with_suffix(".json"), sidecar_keys, sidecar_value, raw_sidecar)
    check(capsys, monkeypatch, folder.parent, ["results", str(folder), f"{option}={value}"])
    check(capsys, monkeypatch, folder.parent, ["report", str(folder), "-o", "report.html"])


@examples(20)
@given(keys=st.sampled_from(EXPERIMENT_KEYS), value=TOML_VALUES)
def test_report_of_a_run_whose_experiment_text_is_hostile(capsys, monkeypatch, tmp_path, results_folder, keys, value):
    # The report reads the experiment back from the provenance, as written when the run began.
    folder, table = results_copy(results_folder, tmp_path)
    sidecar = table.with_suffix(".json")
    document = json.loads(sidecar.read_text())
    document["experiment"]["text"] = experiment_text(placed(working_experiment(), keys, value))
    sidecar.write_text(json.dumps(document))
    check(capsys, monkeypatch, folder.parent, ["report", str(folder), "-o", "report.html"])


@st.composite
def cell_damage(draw):
    """A way to damage a stored cell file: its bytes, or a value somewhere in its JSON."""
    kind = draw(st.sampled_from(["truncate", "flip", "bytes", "value"]))
    keys = draw(
        st.sampled_from(
            [
                ("key",),
                ("result",),
                ("timing",),
                ("cell",),
                ("result", "report"),
                ("result", "derived"),
                ("result", "report", "counters"),
                ("result", "report", "requests"),
                ("result", "report", "read"),
                ("result", "config"),
                ("result", "metrics"),
            ]
        )
    )
    return kind, draw(st.integers(min_value=0, max_value=10**6)), keys, draw(JSON_VALUES)


@examples(8)
@given(damage=cell_damage())
def test_resume_over_a_damaged_cell_file(capsys, monkeypatch, tmp_path, results_folder, damage):
    # The damaged cell runs again; the others are reused; the table has every row.
    kind, number, keys, value = damage
    folder, table = results_copy(results_folder, tmp_path)
    cell = sorted(table.parent.glob("cells/*.json"))[number % 2]
    data = cell.read_bytes()
    if kind == "truncate":
        cell.write_bytes(data[: number % len(data)])
    elif kind == "flip":
        at = number % len(data)
        cell.write_bytes(data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :])
    elif kind == "bytes":
        cell.write_bytes(number.to_bytes(8, "little") * (number % 50))
    else:
        document = json.loads(data)
        at = document
        for key in keys[:-1]:
            at = at[key]
        at[keys[-1]] = value
        cell.write_text(json.dumps(document))
    # The same cells without the figure, whose drawing would take most of the test's time.
    (folder.parent / "e.toml").write_text(experiment_text({**working_experiment(), "figure": {}}))
    shutil.copy(results_folder.parent / "t.csv", folder.parent)
    argv = ["run", "e.toml", "--jobs", "1", "--out", "results", "--resume"]
    code, err, growth, cpu = run(capsys, monkeypatch, folder.parent, argv)
    assert_clean(code, err, growth, cpu, argv)
    assert code == 0 and pq.read_table(next(folder.glob("*/*.parquet"))).num_rows == 2, err[-1000:]
    assert " 1 reused" in err or " 2 reused" in err, err[-1000:]  # the cell left whole at least
