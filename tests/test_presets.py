"""The paper commands' line-ups read from experiments/*.toml (``smrlab.cli.presets``): files
merged in their own orders, each label once, the line-ups the commands print today, and every file
the commands name found in the package (what a wheel ships), not in the checkout around it."""

from __future__ import annotations

from pathlib import Path

import pytest
import smrlab
from smrlab import bundled
from smrlab.cli import presets
from smrlab.errors import UsageError


def systems(*labels: str) -> str:
    return "".join(f'[[systems]]\nlabel = "{label}"\nsystem = "cmr"\n' for label in labels)


def test_files_merge_in_their_own_orders_each_label_once(tmp_path, monkeypatch):
    monkeypatch.setattr(bundled, "experiments_root", lambda: tmp_path)
    (tmp_path / "experiments").mkdir()
    for name, labels in (("a", ("x", "y", "z")), ("b", ("p", "y", "q", "z", "r")), ("c", ("r", "s"))):
        (tmp_path / "experiments" / f"{name}.toml").write_text(
            f'name = "{name}"\ntraces = ["t.csv"]\n' + systems(*labels)
        )
    # p goes before y (b's next label already there), q before z, r at the end, s after it.
    assert [run.label for run in presets.line_up("a", "b", "c")] == ["x", "p", "y", "q", "z", "r", "s"]
    assert [run.label for run in presets.line_up("c", "a")] == ["r", "s", "x", "y", "z"]
    with pytest.raises(UsageError, match="nope.toml: no such experiment file"):
        presets.line_up("a", "nope")


def test_the_commands_line_ups_come_from_the_paper_figures_files():
    from smrlab.cli import caches, hwsr, ucache

    pore = ["smr-only", "cmr-only", "lru", "lru-band", "pore-cf", "pore-pf", "pore-bl"]
    line_up = {mode: presets.line_up(*files) for mode, files in caches.LINE_UP_FILES.items()}
    assert [run.label for run in line_up["wo"]] == [run.label for run in line_up["rw"]] == pore
    assert {run.label: run.params for run in line_up["wo"]}["pore-pf"] == {"policy": "pore", "scheme": "pf"}
    period = caches.SWEEP_COMMAND.choice.sweeps["period"]
    assert period.default() == ["0.1", "0.25", "0.5", "1", "2", "5", "10"]
    assert [run.label for run in presets.line_up(*hwsr.LINE_UP_FILES)] == [
        "disk",
        "hwsr no-cache",
        "sblock no-cache",
        "hwsr ssd-only",
        "sblock ssd-only",
        "hwsr",
        "sblock",
        "hwsr mem-only",
        "hwsr lru-block",
        "hwsr lru-segment",
    ]
    eregion = {run.label: run for run in presets.line_up(*ucache.LINE_UP_FILES)}["eregion"]
    assert [run.label for run in presets.line_up(*ucache.LINE_UP_FILES)] == ["ucache", "eregion", "cmr"]
    assert eregion.engine == {"gauge_samples": 200}


def fluid_sweep(*words: str):
    """The options of ``smrlab fluid-sweep WORDS``, and the figure's declaration."""
    import argparse

    from smrlab.cli import CommandGroup, fluid

    parser = argparse.ArgumentParser()
    fluid.register(CommandGroup(parser.add_subparsers(dest="command"), {}))
    args = parser.parse_args(["fluid-sweep", *words])
    return args, next(figure for figure in fluid.FIGURES if figure.name == words[0])


# Fig. 19's sizes, in bytes as the figure builds them, in MiB as its file writes them.
SIZES = {"allocate", "guard"}


def test_fluid_sweep_takes_its_defaults_from_each_figures_file():
    from smrlab import _core
    from smrlab.cli import fluid

    # §7.3: the ablation at usage 0.999 on three traces; §7.4: the policies alone at 0.99 with Fig. 18's settings.
    args, cache = fluid_sweep("cache")
    assert fluid.table1_names(args, cache.files[0], fluid.MOST_LISTED) == ["hm_0", "src2_2", "stg_0"]
    ablation, alone = cache.line_up(args)
    assert (ablation.label, alone.label) == ("fluid", fluid.ALONE)
    assert cache.shared_params(args, [ablation], None)["usage"] == 0.999
    assert alone.params == presets.read("fluidsmr-fig18").params and alone.params["usage"] == 0.99
    args, _ = fluid_sweep("cache", "--policy-usage", "0.95", "--usage", "0.9")
    assert (
        cache.line_up(args)[1].params["usage"] == "0.95"
        and cache.shared_params(args, [ablation], None)["usage"] == "0.9"
    )
    # Fig. 19 at full size: the line-up the figure builds is the file's, 60 and 100 ms, at 0.8.
    args, migration = fluid_sweep("migration")
    built, written = migration.line_up(args), presets.read("fluidsmr-fig19").systems
    assert [run.label for run in built] == [run.label for run in written]
    shared = presets.read("fluidsmr-fig19").params
    for ours, theirs in [*((o.params, t.params) for o, t in zip(built, written)), (migration.params(args), shared)]:
        assert ours.keys() == theirs.keys()
        assert {key: str(value) for key, value in ours.items() if key not in SIZES} == {
            key: str(value) for key, value in theirs.items() if key not in SIZES
        }
        assert all(_core.parse_size(ours[key]) == _core.parse_size(theirs[key]) for key in SIZES & ours.keys())
    # Fig. 13: its usages and its schemes, on prn_1.
    args, usage = fluid_sweep("usage")
    [usages, schemes] = usage.swept(args)
    assert fluid.table1_names(args, usage.files[0], 1) == ["prn_1"]
    assert usages.values(args) == [0.6, 0.7, 0.8, 0.9, 0.95]
    assert schemes.values(args) == ["swap-only", "+cache-fix", "format-adapt", "fluid-smr", "pure-cmr"]


def test_every_file_the_commands_name_is_package_data(tmp_path, monkeypatch):
    from smrlab.citations import PAPERS
    from smrlab.cli import caches, fluid, hwsr, ucache
    from smrlab.reproduce import claims

    # Away from the checkout: nothing may be found relative to the working folder or the repository.
    monkeypatch.chdir(tmp_path)
    package = Path(smrlab.__file__).resolve().parent
    # maturin copies the package's files into the wheel but not a linked folder's: the files live
    # in the package, and the repository's experiments/ is the link.
    assert not (package / "experiments").is_symlink()
    names = {
        *caches.LINE_UP_FILES["rw"],
        *caches.LINE_UP_FILES["wo"],
        *(sweep.file for sweep in caches.SWEEP_COMMAND.choice.sweeps.values()),
        *(name for names in caches.FACTOR_EXPERIMENTS.values() for name in names),
        *hwsr.LINE_UP_FILES,
        hwsr.SWEEP_FILE,
        *ucache.LINE_UP_FILES,
        ucache.SWEEP_FILE,
        *(file for figure in fluid.FIGURES for file in figure.files),
    }
    for paper in PAPERS:
        path = claims.claims_path(paper, bundled.experiments_root())
        assert path.resolve().is_relative_to(package), path
        names |= {claim.experiment for claim in claims.load(path).claims if claim.experiment}
    for name in sorted(names):
        path = presets.experiment_file(name)
        assert path.resolve().is_relative_to(package) and presets.read(name).name, name
