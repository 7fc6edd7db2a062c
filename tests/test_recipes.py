"""Trace recipes registered by name (``smrlab.recipes``): an experiment file names a recipe's trace
as RECIPE:NAME[@N] and gets the file the recipe makes; a name the recipe does not know, a count
for a recipe that is not scaled and a recipe registered twice are refused; the experiment code
names no recipe of its own."""

from __future__ import annotations

import pytest
from conftest import REPO, msr_line
from smrlab import recipes
from smrlab.errors import UsageError
from smrlab.experiment.files import parse


@pytest.fixture
def registry(monkeypatch):
    """The registry as loaded, restored after the test."""
    monkeypatch.setattr(recipes, "_RECIPES", dict(recipes.recipes()))
    return recipes


def experiment_text(trace: str) -> str:
    return f'name = "t"\ntraces = ["{trace}"]\n[[systems]]\nsystem = "cmr"\n'


def test_a_registered_recipe_makes_the_trace_an_experiment_names(registry, tmp_path):
    made = []

    def make(name: str, requests: int | None, seed: int):
        made.append((name, requests))
        path = tmp_path / f"{name}-{requests}-{seed}.csv"
        path.write_text("\n".join(msr_line(i, "Write", 4096 * i, 4096) for i in range(requests)) + "\n")
        return path

    registry.register("test-made", make, names=["small", "large"], source="the test's table")
    exp = parse(experiment_text("test-made:small@3"), tmp_path / "exp.toml")
    assert made == [("small", 3)] and exp.traces["small"].path == tmp_path / "small-3-0.csv"
    again = parse(experiment_text("test-made:small@3"), tmp_path / "exp.toml", trace_seed=2)
    assert again.traces["small"].path == tmp_path / "small-3-2.csv", "a seed draws the trace afresh"
    made.pop()
    with pytest.raises(UsageError, match="'medium' is not one of the test's table \\(small, large\\)"):
        parse(experiment_text("test-made:medium@3"), tmp_path / "exp.toml")
    assert made == [("small", 3)]
    with pytest.raises(ValueError, match="registered twice"):
        registry.register("test-made", make)


def test_each_papers_traces_are_registered_and_checked_before_anything_is_made(tmp_path):
    known = recipes.recipes()
    assert {"bundled", "pore-full", "pore-full-writes", "hwsr-table3", "fluid-table1", "fluid-phases"} <= set(known)
    assert "financial1" in known["hwsr-table3"].names and "hm_0" in known["fluid-table1"].names
    with pytest.raises(UsageError, match="'nope' is not one of HWSR's Table 3"):
        recipes.make("hwsr-table3", "nope", 10)
    with pytest.raises(UsageError, match="fixed files"):
        recipes.make("bundled", "wdev", None, seed=1)
    for text, message in (
        ("bundled:wdev@10", "bundled traces are not scaled"),
        ("pore-full:wdev@99999999", "1 to 2,654,824 requests"),
        ("fluid-phases:two-phase", "not one of FluidSMR's Fig. 16"),
        ("hwsr-table3:prn0@0", "request count above 0"),
    ):
        with pytest.raises(UsageError, match=message):
            parse(experiment_text(text), tmp_path / "exp.toml")
    assert recipes.generated_name("data/wdev.csv.gz") is None and recipes.generated_name("hwsr-table3:prn0@20") == (
        "hwsr-table3",
        "prn0",
        20,
    )


def test_the_experiment_code_names_no_papers_generators():
    # Its texts may show recipes as examples; its code reaches them only through the registry.
    sources = "\n".join(p.read_text() for p in (REPO / "python" / "smrlab" / "experiment").glob("*.py"))
    for named in ("hwsr_traces", "fluid_traces", "full_size_trace", "bundled_trace", "GENERATED"):
        assert named not in sources, named
