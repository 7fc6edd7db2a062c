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


def test_fluid_sweep_takes_its_defaults_from_each_figures_file():
    import argparse

    from smrlab.cli import fluid

    unset = dict(
        traces=None,
        usage=None,
        usages=None,
        schemes=None,
        policy_usage=None,
        migration_scheme=None,
        migration_usage=None,
        bounds=None,
    )
    cache = argparse.Namespace(figure="cache", **unset)
    fluid.paper_defaults(cache)
    # §7.3: the ablation at usage 0.999 on three traces; §7.4: the policies alone at 0.99; Fig. 19: 60 and 100 ms at 0.8.
    assert (cache.traces, cache.usage, cache.policy_usage) == ("hm_0,src2_2,stg_0", 0.999, 0.99)
    assert (cache.migration_scheme, cache.migration_usage, cache.bounds) == ("fluid-smr", 0.8, [60.0, 100.0])
    usage = argparse.Namespace(figure="usage", **{**unset, "usage": 0.5})
    fluid.paper_defaults(usage)
    assert (usage.traces, usage.usage, usage.usages) == ("prn_1", 0.5, [0.6, 0.7, 0.8, 0.9, 0.95])
    assert usage.schemes == "swap-only,+cache-fix,format-adapt,fluid-smr,pure-cmr"
    phases = argparse.Namespace(figure="phases", **unset)
    fluid.paper_defaults(phases)
    assert phases.traces == "" and phases.usage == 0.9


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
        *fluid.FIGURE_FILES.values(),
        fluid.POLICIES_FILE,
    }
    for paper in PAPERS:
        path = claims.claims_path(paper, bundled.experiments_root())
        assert path.resolve().is_relative_to(package), path
        names |= {claim.experiment for claim in claims.load(path).claims if claim.experiment}
    for name in sorted(names):
        path = presets.experiment_file(name)
        assert path.resolve().is_relative_to(package) and presets.read(name).name, name
