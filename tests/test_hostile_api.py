"""Hostile arguments to the Python API, generated from its signatures: every keyword of
``smrlab.simulate``, ``compare`` and ``sweep``, of ``Trace``'s constructors, of the stores
(``smrlab.kv.DB``, ``smrlab.workload.WorkloadStore``) and of ``smrlab.workload``'s runs
(``run_ycsb``, ``arrivals``) is given each hostile Python value, and the call either runs or raises a ``SmrlabError`` (a typed error of
``smrlab.errors``) — never Python's own TypeError, ValueError, OverflowError or AttributeError.
A keyword added to the API is covered without a case written for it. And a progress callback:
only False (or raising) cancels, and a cancelled run is never returned as a result.
"""

from __future__ import annotations

import inspect
import math
from pathlib import Path

import numpy as np
import pytest
import smrlab
from smrlab import workload
from smrlab.kv import DB, KvClosedError

# Python values no keyword should meet with anything but a typed error, and some it may take.
HOSTILE_VALUES = [
    None,
    True,
    0,
    -1,
    1.5,
    math.nan,
    math.inf,
    2**64,
    2**70,
    10**400,
    "",
    "x",
    "cmr",
    "1/0",
    b"cmr",
    [],
    [1.5],
    [2**70],
    ["cmr", 3],
    {},
    {"x": 1},
    {"system": 3},
    object(),
    print,
    Path(""),  # Path("."): to a store, the current folder, which it must not become
]


def requests(count: int = 300) -> np.ndarray:
    array = np.zeros(count, dtype=smrlab.REQUEST_DTYPE)
    array["op"] = smrlab.WRITE
    array["offset"] = np.arange(count) * 4096
    array["len"] = 4096
    return array


# Keywords a call is given unless the one under test.
DEFAULTS = {"run_ycsb": {"process": "poisson", "rate": 2000, "duration": 0.002, "threads": 2}}


def closed_store():
    """A store in memory, closed: ``run_ycsb`` checks every argument (in Python, then the core
    its properties and arrivals) before it uses the store, so each case ends there, as a typed
    error, without running (a run takes 25 ms however short)."""
    store = workload.WorkloadStore()
    store.close()
    return store


# Each API call with arguments that run, and the keyword given a hostile value in turn.
def _calls():
    trace = requests()
    return {
        "simulate": (smrlab.simulate, ("cmr", trace)),
        "compare": (smrlab.compare, (["cmr"], trace)),
        "sweep": (smrlab.sweep, ("dmsmr", trace, {"buffer": ["1/512"]})),
        "Trace.open": (smrlab.Trace.open, ("data/wdev.csv.gz",)),
        "Trace.from_numpy": (smrlab.Trace.from_numpy, (trace,)),
        "Trace.from_arrow": (smrlab.Trace.from_arrow, (smrlab.Trace.from_numpy(trace).to_arrow(),)),
        "Trace.from_columns": (smrlab.Trace.from_columns, tuple(trace[name] for name in trace.dtype.names)),
        # Stores in memory (a hostile path may make a store in the test's folder).
        "DB": (DB, (None,)),
        "WorkloadStore": (workload.WorkloadStore, (True,)),
        "run_ycsb": (workload.run_ycsb, (closed_store(), "a", {"recordcount": 20})),
        "arrivals": (workload.arrivals, ("poisson", 100, 1)),
    }


def _cases():
    cases = []
    for name, (function, _) in _calls().items():
        parameters = list(inspect.signature(function).parameters.values())
        for index, parameter in enumerate(parameters):
            if parameter.kind is inspect.Parameter.VAR_KEYWORD:
                continue  # the systems' own parameters: the core's declarations, tested in Rust
            cases.append((name, index, parameter.name, parameter.kind is inspect.Parameter.KEYWORD_ONLY))
    return cases


CASES = _cases()


def call_with(name: str, index: int, keyword: str, keyword_only: bool, value):
    function, args = _calls()[name]
    defaults = {k: v for k, v in DEFAULTS.get(name, {}).items() if k != keyword}
    if keyword_only or index >= len(args):
        made = function(*args, **defaults, **{keyword: value})
    else:
        made = function(*args[:index], value, *args[index + 1 :], **defaults)
    if isinstance(made, smrlab.Trace):  # read only when used
        smrlab.simulate("cmr", made)
    if hasattr(made, "close"):  # a store
        made.close()


def test_every_call_runs_as_the_hostile_cases_start_it():
    for name, (function, args) in _calls().items():
        if name == "run_ycsb":  # as far as its store, closed
            with pytest.raises(KvClosedError):
                function(*args, **DEFAULTS[name])
        else:
            function(*args, **DEFAULTS.get(name, {}))


def test_every_keyword_of_the_api_is_a_case():
    # The family is made from the signatures: simulate's seed and engine, compare's systems...
    names = {(name, keyword) for name, _, keyword, _ in CASES}
    assert {("simulate", "seed"), ("compare", "systems"), ("sweep", "vary"), ("compare", "cluster")} <= names
    assert {("DB", "path"), ("DB", "band_size"), ("WorkloadStore", "buffer_bands"), ("run_ycsb", "seed")} <= names


@pytest.mark.parametrize("name,index,keyword,keyword_only", CASES, ids=[f"{c[0]}-{c[2]}" for c in CASES])
def test_a_hostile_argument_runs_or_raises_a_typed_error(name, index, keyword, keyword_only, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for value in HOSTILE_VALUES:
        try:
            call_with(name, index, keyword, keyword_only, value)
        except smrlab.SmrlabError as error:
            assert str(error) and "\n" not in str(error).strip(), (keyword, value, error)
        except Exception as error:
            pytest.fail(f"{name}({keyword}={value!r:.40}) raised {type(error).__name__}: {error}")
        assert not (tmp_path / "LOCK").exists(), f"{name}({keyword}={value!r:.40}) made a store of the current folder"


def test_values_that_would_run_wrongly_are_refused():
    trace = requests()
    for call in (
        lambda: smrlab.compare("cmr", trace),  # not the systems c, m and r
        lambda: smrlab.simulate("cmr", trace, seed=1.5),  # not seed 1
        lambda: smrlab.simulate("cmr", trace, seed=True),
        lambda: smrlab.compare(["cmr"], trace, seeds=[2.0]),
        lambda: smrlab.simulate("cmr", trace, engine={"speedup": "fast"}),
    ):
        with pytest.raises(smrlab.ParameterError):
            call()


def test_a_progress_callback_that_returns_nothing_lets_the_run_go_on():
    # 70,000 requests: the callback is called at 65,536.
    calls = []
    result = smrlab.simulate("cmr", requests(70_000), progress=lambda done, ns: calls.append(done))
    assert calls == [65_536] and result.row()["requests"] == 70_000 and not result.row()["cancelled"]


def test_a_run_its_callback_cancels_is_an_error_holding_what_it_measured():
    with pytest.raises(smrlab.RunCancelled, match="after 65,536 requests") as raised:
        smrlab.simulate("cmr", requests(70_000), progress=lambda done, ns: False)
    assert raised.value.result.row()["cancelled"] and raised.value.result.row()["requests"] == 65_536
    # Anything else falsy is not False: the run goes on.
    assert smrlab.simulate("cmr", requests(70_000), progress=lambda done, ns: 0).row()["requests"] == 70_000


# Out of range or of the wrong kind for a parameter of each declared kind (``_core.systems()``),
# and garbage any parameter meets.
OUT_OF_RANGE = {
    "whole": [-1, 2**64],
    "count": [0, 2**70],
    "size": [-1, 2**70, "1e400B"],
    "share": [1.5, -0.1],
    "fraction": [0, 1.5],
    "fraction-or": [-1, "most"],
    "scale": [0, math.inf],
    "ratio": [-1, "3/0"],
    "duration": [-1, "1e400s"],
    "bool": ["maybe", 2],
}
GARBAGE = [math.nan, "", "nosuch", [1], {"a": 1}, b"x"]
# The host-managed drive made small (its default is 5 TB) unless the value under test is its own.
SMALL_DRIVE = {"zone_size": "64MiB", "conventional": "192MiB"}


def declared_parameters() -> list[tuple[str, str, str]]:
    """(system, key, kind) of every parameter every system declares, from the bindings."""
    return [(name, key, kind) for name, _, params in smrlab._core.systems() for key, _, _, _, _, kind, _ in params]


def test_every_declared_parameter_takes_a_hostile_value_or_raises_a_typed_error():
    # Through smrlab.simulate, whose parameters are the core's declarations (ParamSpec): a
    # parameter added to a system is covered without a case written for it.
    found = declared_parameters()
    assert len({system for system, *_ in found}) >= 10 and len(found) >= 100
    trace = requests(50)
    refused = 0
    for system, key, kind in found:
        small = {k: v for k, v in SMALL_DRIVE.items() if k != key and any(f[:2] == (system, k) for f in found)}
        for value in OUT_OF_RANGE.get(kind, []) + GARBAGE:
            try:
                smrlab.simulate(system, trace, **small, **{key: value})
            except smrlab.SmrlabError as error:
                assert str(error) and "\n" not in str(error).strip(), (system, key, value, error)
                refused += 1
            except Exception as error:
                pytest.fail(f"simulate({system!r}, {key}={value!r:.40}) raised {type(error).__name__}: {error}")
    assert refused > len(found) * len(GARBAGE) / 2, "most of the values are refused, not ignored"
