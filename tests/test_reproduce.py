"""The reproduction scorecard: claims files (every one in experiments/claims/ loads, names
experiment files and cells that exist), the verdict rules on hand-made results, the saturation
verdict of open-loop runs, bad input, and a quick scorecard held to docs/reproduction.md."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from conftest import DATA
from smrlab import experiment
from smrlab.errors import UsageError
from smrlab.reproduce import claims, output, verdict
from smrlab.reproduce.claims import Claim
from smrlab.reproduce.verdict import DIRECTION, FAILS, HOLDS, NOT_COMPARABLE, NOT_RUN, Evaluation

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = sorted((ROOT / "experiments" / "claims").glob("*.toml"))


def test_every_paper_has_a_claims_file():
    from smrlab.citations import PAPERS

    assert {path.stem for path in CLAIMS} == set(PAPERS), (
        "every paper of smrlab.citations has its claims file, and only they"
    )


@pytest.mark.parametrize("path", CLAIMS, ids=lambda p: p.stem)
def test_claims_name_experiments_and_cells_that_exist(path):
    loaded = claims.load(path)
    assert loaded.paper == path.stem
    for claim in loaded.claims:
        if claim.kind == "not-run":
            assert claim.reason, claim.id
            continue
        source = ROOT / "experiments" / f"{claim.experiment}.toml"
        exp = experiment.files.parse(source.read_text(), source, with_traces=False)
        labels = {s.label for s in exp.systems}
        selectors = [claim.of, claim.over] + [s for tier in claim.order for s in tier]
        for selector in filter(None, selectors):
            assert selector.get("label", next(iter(labels))) in labels, (claim.id, selector, labels)
        if claim.kind == "trend":
            assert claim.x in {k for k, v in exp.params.items() if isinstance(v, list)} | {
                k for s in exp.systems for k, v in s.params.items() if isinstance(v, list)
            }, claim.id
    for choice in loaded.open_choices:
        for name in choice.experiments:
            assert (ROOT / "experiments" / f"{name}.toml").is_file(), name


def claim(**given) -> Claim:
    base = dict(id="x", where="§1", quote="q", claim="c", kind="ratio", experiment="e", metric="m")
    return Claim(**{**base, **given})


def frame(rows):
    return pd.DataFrame([{"seed": 0, "cell": f"k{i}", "saturated": False, **row} for i, row in enumerate(rows)])


def test_a_ratio_within_the_factor_holds_on_the_same_side_is_direction_only_else_fails():
    c = claim(of={"label": "a"}, over={"label": "b"}, paper_value=4.0)
    for a, expected in ((3.0, HOLDS), (9.0, DIRECTION), (1.5, DIRECTION), (0.5, FAILS)):
        rows = Evaluation(
            frame([{"label": "a", "trace": "t", "m": a}, {"label": "b", "trace": "t", "m": 1.0}]), {}, "synthetic"
        ).rows("p", c)
        assert [r.verdict for r in rows] == [expected], a
        assert rows[0].ours == pytest.approx(a) and rows[0].ratio == pytest.approx(a / 4)


def test_a_range_and_an_expectation():
    assert verdict.decide(claim(kind="value", range=(3.65, 6.86)), 5.0) == HOLDS
    assert verdict.decide(claim(kind="value", range=(3.65, 6.86)), 7.0) == FAILS
    assert verdict.decide(claim(kind="ratio", range=(3.65, 6.86)), 8.0) == DIRECTION
    assert verdict.decide(claim(expect="below 1"), 0.99) == HOLDS
    assert verdict.decide(claim(expect="below 1"), 1.0) == FAILS


def test_ratios_pair_cells_on_trace_seed_and_shared_grid_values():
    rows = [{"label": "a", "trace": "t", "cache": c, "m": v} for c, v in (("1%", 2.0), ("2%", 8.0))]
    rows += [{"label": "b", "trace": "t", "cache": c, "m": v} for c, v in (("1%", 1.0), ("2%", 2.0))]
    c = claim(of={"label": "a"}, over={"label": "b"}, paper_value=3.0)
    (row,) = Evaluation(frame(rows), {"cache": ["1%", "2%"]}, "synthetic").rows("p", c)
    assert row.ours == pytest.approx((2 / 1 + 8 / 2) / 2)
    pinned = claim(of={"label": "a", "cache": "2%"}, over={"label": "b", "cache": "1%"}, paper_value=8.0)
    (row,) = Evaluation(frame(rows), {"cache": ["1%", "2%"]}, "synthetic").rows("p", pinned)
    assert row.ours == pytest.approx(8.0) and row.verdict == HOLDS


def test_per_trace_rows_and_aggregates():
    rows = [{"label": "a", "trace": t, "m": v} for t, v in (("t1", 1.0), ("t2", 3.0), ("t3", 8.0))]
    each = Evaluation(frame(rows), {}, "synthetic").rows(
        "p", claim(kind="value", of={"label": "a"}, paper_value=3.0, per="each")
    )
    assert [(r.trace, r.verdict) for r in each] == [("t1", FAILS), ("t2", HOLDS), ("t3", FAILS)]
    for per, expected in (("mean", 4.0), ("median", 3.0), ("max", 8.0), ("min", 1.0), ("geomean", 24 ** (1 / 3))):
        (row,) = Evaluation(frame(rows), {}, "synthetic").rows(
            "p", claim(kind="value", of={"label": "a"}, paper_value=3.0, per=per)
        )
        assert row.ours == pytest.approx(expected), per


def test_an_order_with_tiers_and_on_every_trace():
    rows = [
        {"label": label, "trace": t, "m": v}
        for t, values in (("t1", (1, 5, 3, 4)), ("t2", (1, 2, 3, 4)))
        for label, v in zip("abcd", values)
    ]
    c = claim(kind="order", order=[[{"label": "a"}], [{"label": "c"}, {"label": "b"}], [{"label": "d"}]], per="each")
    rows_out = Evaluation(frame(rows), {}, "synthetic").rows("p", c)
    assert [r.verdict for r in rows_out] == [FAILS, HOLDS]
    c.per = "all"
    (row,) = Evaluation(frame(rows), {}, "synthetic").rows("p", c)
    assert row.verdict == FAILS and row.ours_text == "holds on 1 of 2 traces"


def test_trends_follow_the_experiments_axis_order():
    zones = ["2MB", "5MB", "10MB", "20MB", "50MB"]
    valley = [5.0, 3.0, 2.0, 2.5, 4.0]
    rows = frame([{"label": "a", "trace": "t", "zone": z, "m": v} for z, v in zip(zones, valley)])
    judge = lambda **g: (
        Evaluation(rows, {"zone": zones}, "synthetic")
        .rows("p", claim(kind="trend", of={"label": "a"}, x="zone", **g))[0]
        .verdict
    )
    assert judge(direction="valley") == HOLDS
    assert judge(direction="valley", at="10MB") == HOLDS
    assert judge(direction="valley", at="20MB") == FAILS
    assert judge(direction="increasing") == FAILS
    # Sorted as text the axis would start 10MB, 20MB, 2MB...: the experiment's order is kept.
    rising = frame([{"label": "a", "trace": "t", "zone": z, "m": float(i)} for i, z in enumerate(zones)])
    assert (
        Evaluation(rising, {"zone": zones}, "synthetic")
        .rows("p", claim(kind="trend", of={"label": "a"}, x="zone", direction="increasing"))[0]
        .verdict
        == HOLDS
    )


def test_a_saturated_cell_makes_a_claim_not_comparable_and_missing_cells_not_run():
    rows = frame([{"label": "a", "trace": "t", "m": 3.0}, {"label": "b", "trace": "t", "m": 1.0}])
    rows.loc[1, "saturated"] = True
    c = claim(of={"label": "a"}, over={"label": "b"}, paper_value=3.0)
    assert Evaluation(rows, {}, "synthetic").rows("p", c)[0].verdict == NOT_COMPARABLE
    c.over = {"label": "nobody"}
    assert Evaluation(rows, {}, "synthetic").rows("p", c)[0].verdict == NOT_RUN


def test_open_loop_saturation_is_found_and_shown(tmp_path):
    import smrlab

    fast = smrlab.simulate("cmr", DATA / "wdev.csv.gz", engine={"mode": "open", "speedup": 1e6})
    slow = smrlab.simulate("cmr", DATA / "wdev.csv.gz", engine={"mode": "open", "speedup": 1.0})
    closed = smrlab.simulate("cmr", DATA / "wdev.csv.gz")
    assert fast.row()["saturated"] and not slow.row()["saturated"] and not closed.row()["saturated"]
    quarters = fast.to_dict()["report"]["saturation"]["wait_quarters_ns"]
    assert quarters == sorted(quarters) and quarters[3] > 2 * quarters[1]
    from smrlab import results

    table = pd.DataFrame([fast.row(), slow.row()])
    exp = experiment.Experiment(name="x", traces={}, systems=[], metrics=["write_response_mean_ns"])
    assert "saturated" in results.shown_columns(table, exp)
    assert "saturated" not in results.shown_columns(pd.DataFrame([slow.row()]), exp)


@pytest.mark.parametrize(
    "text, message",
    [
        ('paper = "nope"\n[[claim]]\nid="a"', "is none of"),
        ('paper = "pore"\nwho = 1\n[[claim]]\nid="a"', "unknown key 'who'"),
        (
            'paper = "pore"\n[[claim]]\nid="a"\nwhere="w"\nquote="q"\nclaim="c"\nkind="ratio"\nexperiment="e"\nmetric="m"\nof="x"\nover="y"',
            "needs exactly one of",
        ),
        (
            'paper = "pore"\n[[claim]]\nid="a"\nwhere="w"\nquote="q"\nclaim="c"\nkind="value"\nexperiment="e"\nmetric="m"\nof="x"\npaper_value=-1',
            "above 0",
        ),
        ('paper = "pore"\n[[claim]]\nid="a"\nwhere="w"\nquote="q"\nclaim="c"\nkind="guess"', "kind 'guess'"),
        (
            'paper = "pore"\ncalibration = "zz"\n[[claim]]\nid="a"\nwhere="w"\nquote="q"\nclaim="c"\nkind="not-run"\nreason="r"',
            "'zz' is not the id",
        ),
    ],
)
def test_a_bad_claims_file_is_one_error_naming_the_file(tmp_path, text, message):
    path = tmp_path / "pore.toml"
    path.write_text(text)
    with pytest.raises(UsageError, match=message) as error:
        claims.load(path)
    assert str(path) in str(error.value)


def test_bad_command_lines_are_one_line_and_exit_2(cli, tmp_path):
    for argv, message in (
        (["--paper", "nope"], "not one of"),
        (["--traces", str(tmp_path / "missing")], "no such folder"),
    ):
        result = cli("reproduce", *argv, "--results", str(tmp_path / "r"))
        assert result.returncode == 2, result.stderr
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
    (tmp_path / "experiments" / "claims").mkdir(parents=True)
    (tmp_path / "experiments" / "claims" / "pore.toml").write_text('paper = "pore"\nwho = 1\n')
    result = cli("reproduce", "--paper", "pore", "--root", str(tmp_path), "--results", str(tmp_path / "r"))
    assert (
        result.returncode == 2 and "unknown key 'who'" in result.stderr and len(result.stderr.strip().splitlines()) == 1
    )


def test_real_traces_are_found_by_name(tmp_path):
    from smrlab.reproduce.realtraces import RealTraces

    for name in ("Financial1.spc", "mds_0.csv.gz", "wdev_0.csv", "hm_0.csv", "notes.txt"):
        (tmp_path / name).write_text("")
    real = RealTraces(tmp_path)
    assert real.find("financial1").name == "Financial1.spc"
    assert real.find("mds0").name == "mds_0.csv.gz"
    assert real.find("wdev").name == "wdev_0.csv"
    assert real.find("hm_0").name == "hm_0.csv"
    assert real.find("usr") is None
    assert real.source("bundled", "wdev") is None


def test_the_quick_scorecard_judges_every_claim(quick_scorecard):
    document, results = quick_scorecard
    judged = {(row["paper"], row["id"]) for row in document["rows"]}
    for path in CLAIMS:
        loaded = claims.load(path)
        assert {(loaded.paper, c.id) for c in loaded.claims} <= judged, path.stem
    assert document["mode"] == "quick"
    assert sum(sum(c.values()) for c in document["counts"].values()) == len(document["rows"])
    # A claim left out of a quick run says so; none of the others is short of cells.
    for row in document["rows"]:
        if row["verdict"] == "not run":
            assert row["ours_text"] == verdict.FULL_ONLY or row["reason"], row
    assert (results / "scorecard-quick.json").is_file()


def test_the_committed_page_agrees_with_a_quick_run(quick_scorecard):
    """docs/reproduction.md (written by --full) against this quick run: every claim the quick run
    judges (not left out, not short of cells) has the committed verdict."""
    document, _ = quick_scorecard
    committed = output.committed_verdicts((ROOT / "docs" / "reproduction.md").read_text())
    assert committed, "docs/reproduction.md carries its verdicts"
    fields = verdict.Row.__dataclass_fields__
    quick = {
        output.row_key(verdict.Row(**{k: v for k, v in row.items() if k in fields})): row["verdict"]
        for row in document["rows"]
    }
    compared = {key: v for key, v in quick.items() if v != NOT_RUN and key in committed}
    assert compared, "the quick run judges some claims of the page"
    differing = {key: (committed[key], v) for key, v in compared.items() if committed[key] != v}
    assert not differing, (
        f"verdicts (committed, quick) that differ: {differing}; rerun smrlab reproduce --full -o docs/reproduction.md, or mark the claim full_only"
    )


def test_the_committed_page_is_not_older_than_the_model():
    """docs/reproduction.md records the model fingerprint of each system and of the key-value
    cells it was made with (every cell on it was made by that code: a cell's key holds it); when
    a system's code has changed since, the page describes a model that is gone."""
    from smrlab import fingerprint

    committed = output.committed_model((ROOT / "docs" / "reproduction.md").read_text())
    if not committed:
        pytest.skip("docs/reproduction.md predates model fingerprints: smrlab reproduce --full -o docs/reproduction.md")
    systems, _, _ = fingerprint.built()
    changed = sorted(name for name, digest in committed["systems"].items() if systems.get(name) != digest)
    if committed["key_value"] != fingerprint.of_key_value():
        changed.append("the key-value cells")
    assert not changed, (
        f"docs/reproduction.md is older than the model of {', '.join(changed)}: "
        "rerun smrlab reproduce --full -o docs/reproduction.md (stored cells of the other systems are reused)"
    )


def test_a_page_records_the_model_it_was_made_with():
    from smrlab.reproduce.scorecard import Scorecard, Settings

    card = Scorecard(Settings(papers=["pore"]), [], [], {}, {}, 1.0, 0, 0, {"k1": "m1"}, {"abc1234567890": 3})
    page = output.markdown(card)
    recorded = output.committed_model(page)
    from smrlab import fingerprint

    assert recorded["systems"] == dict(sorted(fingerprint.built()[0].items()))
    assert recorded["key_value"] == fingerprint.of_key_value()
    assert "commit abc1234567 (3)" in page


def test_figures_mark_saturated_runs():
    from smrlab import plots

    rows = frame([{"label": label, "trace": "t", "m": v} for label, v in (("a", 1.0), ("b", 2.0))])
    for kind, extra in (("bars", {}), ("lines", {"x": "zone"})):
        exp = experiment.Experiment(name="x", traces={}, systems=[], figure={"kind": kind, "y": "m", **extra})
        table = rows.assign(zone=["1", "2"]) if kind == "lines" else rows
        texts = lambda f: [t.get_text() for t in f.axes[0].texts] + [t.get_text() for t in f.texts]
        assert plots.SATURATED_MARK not in "".join(texts(plots.figure(exp, table))), kind
        marked = table.copy()
        marked.loc[1, "saturated"] = True
        found = texts(plots.figure(exp, marked))
        assert found.count(plots.SATURATED_MARK) == 1 and plots.SATURATED_NOTE in found, kind


def test_a_traces_folder_replaces_the_recipes_by_name(cli, tmp_path):
    """A user's copy of an MSR trace named as published (wdev_0.csv.gz) takes the place of the
    full-size wdev recipe; the write-only experiment gets its writes; rows say the traces were real."""
    import shutil

    traces = tmp_path / "traces"
    traces.mkdir()
    shutil.copy(DATA / "wdev.csv.gz", traces / "wdev_0.csv.gz")
    out = tmp_path / "card.json"
    result = cli(
        "reproduce",
        "--paper",
        "pore",
        "--quick",
        "--traces",
        str(traces),
        "--jobs",
        "1",
        "--results",
        str(tmp_path / "results"),
        "-o",
        str(out),
    )
    assert result.returncode == 0, result.stderr
    rows = [r for r in json.loads(out.read_text())["rows"] if r["verdict"] != NOT_RUN]
    # The quick tables of Figs. 14-16 run samples scaled to 1/32 (pore-full-writes:wdev@N), which a
    # full-size file does not replace; Figs. 11 and 13 run wdev whole.
    real = {r["experiment"]: r["traces_kind"] for r in rows}
    assert real["pore-fig11"] == real["pore-fig13"] == "real" and real["pore-fig16"] == "synthetic"
    provenance = [
        json.loads(p.read_text())
        for p in (tmp_path / "results").glob("*/*.json")
        if p.parent.name.startswith(("pore-fig11-", "pore-fig13-"))
    ]
    names = {name for doc in provenance for name in doc["traces"]}
    checksums = {t["checksum"] for doc in provenance for t in doc["traces"].values()}
    assert names == {"wdev"} and len(checksums) == 2, "the trace and its writes-only copy"
