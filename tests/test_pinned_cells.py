"""A stored cell is reused only by the code that made it: a cell's key holds its parameters as
the core resolves them (defaults included) and the model's fingerprint (a digest of the code
behind each system it builds, computed when the bindings are built), so that after a change of
one system's code, or of one default, ``--resume`` runs that system's cells again and reuses
every other."""

from __future__ import annotations

import json

import pytest
from conftest import DATA
from smrlab import _core, fingerprint, orchestrator, systems
from smrlab.experiment.spec import Experiment, SystemRun
from smrlab.trace import Trace

LABELS = ("cmr", "dmsmr", "lru", "hwsr")


def small_experiment(trace) -> Experiment:
    """Four systems on a short trace: a plain disk, a drive-managed SMR disk, an SSD cache
    stacked over it, and HWSR."""
    return Experiment(
        name="pinned",
        traces={"t": Trace.open(trace)},
        systems=[
            SystemRun("cmr", "cmr"),
            SystemRun("dmsmr", "dmsmr"),
            SystemRun("lru", "cache", {"policy": "lru", "cache": "1%"}),
            SystemRun("hwsr", "hwsr"),
        ],
        metrics=["total_io_s"],
    )


@pytest.fixture(scope="module")
def trace(tmp_path_factory):
    """The first 4,000 requests of a bundled sample."""
    path = tmp_path_factory.mktemp("pinned") / "t.smrbin"
    _core.trace_write(json.dumps({"inputs": [{"path": str(DATA / "ts.csv.gz")}], "head": 4000}), str(path), None)
    return path


def test_a_key_holds_the_resolved_parameters_and_the_model(trace):
    (cache,) = [c for c in small_experiment(trace).cells() if c.label == "lru"]
    described = cache.describe()
    # The cache's own defaults and those of the disk it stacks over.
    assert described["params"]["block"] == systems.defaults("cache")["block"]
    assert described["params"]["band_min"] == systems.defaults("dmsmr")["band_min"]
    assert described["params"]["cache"] == "1%"
    assert described["model"] == fingerprint.of_system("cache", cache.given)
    assert systems.stack("cache", cache.given) == ["cache", "dmsmr"]
    # A default given explicitly is the same cell.
    cache.given["block"] = systems.defaults("cache")["block"]
    assert cache.key() == [c for c in small_experiment(trace).cells() if c.label == "lru"][0].key()
    # Stacked over another disk, it is another model.
    assert fingerprint.of_system("cache", {"below": "cmr"}) != fingerprint.of_system("cache", {})


def test_every_system_has_a_fingerprint_and_a_folders_systems_share_it():
    digests, key_value, parts = fingerprint.built()
    assert set(_core.system_names()) <= set(digests)
    assert digests["hwsr"] == digests["sblock"] and digests["ucache"] == digests["eregion"]
    assert len({digests[s] for s in ("cmr", "dmsmr", "cache", "ucache", "hwsr", "fluid")}) == 6
    assert key_value not in digests.values() and "smr-sim/fluid" in parts


def resumed(trace, out, before: set[str]) -> tuple[dict[str, int], set[str]]:
    """The experiment resumed in ``out``: how many cells of each label ran again (a key not
    stored ``before``), and the keys now."""
    summary = orchestrator.run(small_experiment(trace), out=out, jobs=1, resume=True)
    assert summary.failed == 0
    keys = {outcome.key for _, outcome in summary.outcomes}
    again = dict.fromkeys(LABELS, 0)
    for cell, outcome in summary.outcomes:
        again[cell.label] += outcome.key not in before
    assert summary.ran == sum(again.values()) and summary.reused == len(LABELS) - summary.ran
    return again, keys


def test_a_changed_system_or_default_runs_that_systems_cells_again_and_no_others(trace, tmp_path, monkeypatch):
    first, keys = resumed(trace, tmp_path, set())
    assert first == dict.fromkeys(LABELS, 1)
    assert resumed(trace, tmp_path, keys)[0] == dict.fromkeys(LABELS, 0), "nothing changed: all reused"

    # HWSR's code changes (its folder's digest): its cell alone runs again.
    digests, key_value, parts = fingerprint.built()
    monkeypatch.setattr(fingerprint, "built", lambda: ({**digests, "hwsr": "changed"}, key_value, parts))
    again, keys = resumed(trace, tmp_path, keys)
    assert again == {"cmr": 0, "dmsmr": 0, "lru": 0, "hwsr": 1}

    # The drive-managed disk's code: its cell and the cache's above it.
    changed = {**digests, "hwsr": "changed", "dmsmr": "changed"}
    monkeypatch.setattr(fingerprint, "built", lambda: (changed, key_value, parts))
    again, keys = resumed(trace, tmp_path, keys)
    assert again == {"cmr": 0, "dmsmr": 1, "lru": 1, "hwsr": 0}

    # A default of the plain disk (as a change of its declaration would give the core's
    # resolution): its cell alone.
    real = systems.resolved
    monkeypatch.setattr(
        systems, "resolved", lambda name, given: {**real(name, given), **({"disk": "another"} if name == "cmr" else {})}
    )
    again, _ = resumed(trace, tmp_path, keys)
    assert again == {"cmr": 1, "dmsmr": 0, "lru": 0, "hwsr": 0}


@pytest.mark.parametrize("driver", ["kv.py", "workload.py", "experiment/kv/offload.py"])
def test_the_key_value_digest_changes_with_each_module_a_key_value_cell_runs(driver, tmp_path, monkeypatch):
    """A key-value cell runs SMRDB through smrlab.kv and smrlab.workload as well as
    experiment/kv: a change of any of them is a change of the cell's code."""
    package = tmp_path / "smrlab"
    (package / "experiment" / "kv").mkdir(parents=True)
    for path in fingerprint.KV_MODULES.glob("*.py"):
        (package / "experiment" / "kv" / path.name).write_bytes(path.read_bytes())
    for path in fingerprint.KV_DRIVERS:
        (package / path.name).write_bytes(path.read_bytes())
    fingerprint.of_key_value.cache_clear()
    original = fingerprint.of_key_value()
    monkeypatch.setattr(fingerprint, "KV_MODULES", package / "experiment" / "kv")
    monkeypatch.setattr(fingerprint, "KV_DRIVERS", tuple(package / path.name for path in fingerprint.KV_DRIVERS))
    try:
        fingerprint.of_key_value.cache_clear()
        assert fingerprint.of_key_value() == original  # the copy is the same code
        with open(package / driver, "a") as changed:
            changed.write("\n# one more line\n")
        fingerprint.of_key_value.cache_clear()
        assert fingerprint.of_key_value() != original
    finally:
        fingerprint.of_key_value.cache_clear()
