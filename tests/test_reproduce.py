"""The reproduction scorecard end to end: ratios paired on hand-made results, the saturation mark
of open-loop runs, bad command lines and outputs, real traces by name, and a quick scorecard held
to docs/reproduction.md. The rules themselves, and the claims file's checks, are in
test_reproduce_rules.py."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from conftest import DATA
from smrlab import experiment
from smrlab.reproduce import claims, evaluation, output, verdict
from smrlab.reproduce.claims import Claim
from smrlab.reproduce.evaluation import Evaluation
from smrlab.reproduce.scorecard import SYNTHETIC
from smrlab.reproduce.verdict import NOT_RUN

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = sorted((ROOT / "experiments" / "claims").glob("*.toml"))


def test_every_paper_has_a_claims_file():
    from smrlab.citations import PAPERS

    assert {path.stem for path in CLAIMS} == set(PAPERS), (
        "every paper of smrlab.citations has its claims file, and only they"
    )


def frame(rows):
    return pd.DataFrame([{"seed": 0, "cell": f"k{i}", "saturated": False, **row} for i, row in enumerate(rows)])


def test_ratios_pair_cells_on_trace_seed_and_shared_grid_values():
    rows = [{"label": "a", "trace": "t", "cache": c, "m": v} for c, v in (("1%", 2.0), ("2%", 8.0))]
    rows += [{"label": "b", "trace": "t", "cache": c, "m": v} for c, v in (("1%", 1.0), ("2%", 2.0))]
    table = frame(rows)
    axes = {"cache": ["1%", "2%"]}
    mean = Claim(
        id="x",
        where="w",
        quote="q",
        claim="c",
        kind="ratio",
        experiment="e",
        metric="m",
        of={"label": "a"},
        over={"label": "b"},
        paper_value=3.0,
        per="mean",
    )
    row = Evaluation(table, axes, "synthetic").row("p", mean)
    assert row.ours == pytest.approx((2 / 1 + 8 / 2) / 2) and [p.at for p in row.points] == [
        {"cache": "1%"},
        {"cache": "2%"},
    ]
    pinned = Claim(
        id="x",
        where="w",
        quote="q",
        claim="c",
        kind="ratio",
        experiment="e",
        metric="m",
        of={"label": "a", "cache": "2%"},
        over={"label": "b", "cache": "1%"},
        paper_value=8.0,
    )
    row = Evaluation(table, axes, "synthetic").row("p", pinned)
    assert row.ours == pytest.approx(8.0) and row.verdict == verdict.HOLDS


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


def test_bad_command_lines_are_one_line_and_exit_2(cli, tmp_path):
    """Refused before anything runs: an unknown paper, a missing traces folder, a --root without
    claims, a claims file of another paper or with an unknown key, an output suffix the
    scorecard has no writer for, an output that would overwrite a results folder's file, and
    --full-seeds without --full."""
    results = tmp_path / "r"
    run_folder = results / "pore-fig11-0123abcd"
    (run_folder / "cells").mkdir(parents=True)
    (run_folder / "pore-fig11-0123abcd.json").write_text('{"cells": []}')
    empty = tmp_path / "empty"
    empty.mkdir()
    for argv, message in (
        (["--paper", "nope"], "not one of"),
        (["--traces", str(tmp_path / "missing")], "no such folder"),
        (["--root", str(empty)], "holds no claims file"),
        (["--paper", "ucache", "-o", str(tmp_path / "card.txt")], ".md, .json or .parquet"),
        (["--paper", "ucache", "-o", str(run_folder / "pore-fig11-0123abcd.json")], "inside a results folder"),
        (["--paper", "ucache", "--seeds", "0"], "--seeds"),
        (["--paper", "ucache", "--full-seeds"], "--full-seeds"),
    ):
        result = cli("reproduce", *argv, "--results", str(results))
        assert result.returncode == 2, (argv, result.stderr)
        assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert (run_folder / "pore-fig11-0123abcd.json").read_text() == '{"cells": []}'
    (tmp_path / "experiments" / "claims").mkdir(parents=True)
    for text, message in (
        ('paper = "pore"\nwho = 1\n', "unknown key 'who'"),
        (
            'paper = "hwsr"\n[[claim]]\nid = "a"\nwhere = "w"\nquote = "q"\nclaim = "c"\nkind = "not-run"\nreason = "r"\n',
            "hwsr.toml",
        ),
    ):
        (tmp_path / "experiments" / "claims" / "pore.toml").write_text(text)
        result = cli("reproduce", "--paper", "pore", "--root", str(tmp_path), "--results", str(results))
        assert result.returncode == 2 and message in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_the_general_cards_output_is_checked_before_the_claims_run(tmp_path, monkeypatch, capsys):
    from smrlab.cli import main
    from smrlab.reproduce import general

    monkeypatch.setattr(general, "make", lambda *_, **__: pytest.fail("the claims ran before -o was checked"))
    traces = tmp_path / "traces"
    traces.mkdir()
    (traces / "t.csv").write_text("".join(f"{i}000,h,0,Write,{i * 4096},4096,1\n" for i in range(50)))
    argv = ["reproduce", "--paper", "pore", "--general", "--traces", str(traces), "-o", str(tmp_path / "g.md")]
    assert main([*argv, "--results", str(tmp_path / "r")]) == 2
    assert "-o " in capsys.readouterr().err


def test_a_misspelt_measure_in_a_claim_stops_the_run(cli, tmp_path):
    """A claim's metric no system reports is found by the experiment's probe, before its cells
    run, and named with the nearest measure: not a silent "not run" row."""
    import shutil

    (tmp_path / "experiments" / "claims").mkdir(parents=True)
    shutil.copy(ROOT / "experiments" / "ucache-fig1.toml", tmp_path / "experiments")
    (tmp_path / "experiments" / "claims" / "ucache.toml").write_text(
        'paper = "ucache"\n[[claim]]\nid = "a"\nwhere = "w"\nquote = "q"\nclaim = "c"\nkind = "value"\n'
        'experiment = "ucache-fig1"\nmetric = "log_live_fraction_maen"\nof = "eregion"\nrange = [0.0, 1.0]\n'
    )
    result = cli(
        "reproduce", "--paper", "ucache", "--root", str(tmp_path), "--jobs", "1", "--results", str(tmp_path / "r")
    )
    assert result.returncode == 2, result.stderr
    assert "log_live_fraction_maen" in result.stderr and "log_live_fraction_mean" in result.stderr, result.stderr


def test_a_huge_sparse_file_in_the_traces_folder_is_refused_at_once(cli, tmp_path):
    """A file named as a trace whose first line cannot be read (100 GB of zeros, sparse) is
    refused by its first line, as smrlab sim refuses it, not read whole for its checksum."""
    traces = tmp_path / "traces"
    traces.mkdir()
    with open(traces / "wdev_0.csv", "wb") as handle:
        handle.truncate(100 * 10**9)
    result = cli("reproduce", "--paper", "pore", "--traces", str(traces), "--results", str(tmp_path / "r"))
    assert result.returncode == 2 and "wdev_0.csv:1" in result.stderr, result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


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
    judged = [(row["paper"], row["id"]) for row in document["rows"]]
    assert len(judged) == len(set(judged)), "one row per claim"
    for path in CLAIMS:
        loaded = claims.load(path)
        assert {(loaded.paper, c.id) for c in loaded.claims} <= set(judged), path.stem
    assert document["mode"] == "quick"
    for counts in (document["counts"], document["in_sample"]):
        assert sum(counts["all"].values()) == sum(sum(c.values()) for p, c in counts.items() if p != "all")
    assert sum(document["counts"]["all"].values()) + sum(document["in_sample"]["all"].values()) == len(judged)
    # A claim left out of a quick run says so; one that is not run says why.
    for row in document["rows"]:
        if row["verdict"] == NOT_RUN:
            assert row["ours_text"] == evaluation.FULL_ONLY or row["reason"], row
        for point in row["points"]:
            assert len(point["values"]) == len(point["seeds"]), row["id"]
    assert (results / "scorecard-quick.json").is_file()
    assert output.read_document(results / "scorecard-quick.json")["rows"]
    import pyarrow.parquet as pq

    # Written beside the results folder, whose Parquet files the report takes for results tables.
    assert pq.read_table(results.parent.parent / "scorecard-quick.parquet").num_rows == len(judged)


def test_the_terminal_shows_each_paper_in_80_lines(quick_scorecard):
    """At a terminal's 100 columns: each paper's table of claims by verdict, then every claim
    that fails, ties or cannot be compared with its text and why, the claims not run one
    paragraph per reason, in at most 80 lines a paper; the total time at the end."""
    from smrlab.citations import short
    from smrlab.reproduce import terminal

    document, results = quick_scorecard
    lines = (results / "terminal.txt").read_text().splitlines()
    assert all(len(line) <= 100 for line in lines), max(lines, key=len)
    starts = [i for i, line in enumerate(lines) if any(line.startswith(f"{short(p)}: ") for p in document["papers"])]
    ends = starts[1:] + [next(i for i, line in enumerate(lines) if line.startswith("Claims per paper"))]
    assert len(starts) == len(document["papers"])
    for start, end in zip(starts, ends):
        section = "\n".join(lines[start:end])
        flat = " ".join(line.strip() for line in lines[start:end])
        assert end - start <= terminal.PAPER_LINES, section
        paper = next(p for p in document["papers"] if lines[start].startswith(short(p)))
        rows = [r for r in document["rows"] if r["paper"] == paper]
        assert f"{len(rows)} claims" in lines[start]
        cut = "... and " in section
        for row in rows:
            if row["verdict"] in terminal.LISTED and not cut:
                assert f"{row['verdict']}: {row['id']}" in flat, row["id"]
                assert row["claim"][:40] in flat and (row["reason"] or "")[:40] in flat, row["id"]
        not_run = {r["reason"] or r["ours_text"] for r in rows if r["verdict"] == NOT_RUN}
        shown = section.count("not run (")
        assert shown <= len(not_run) if cut else shown == len(not_run), section
        assert not any(line.startswith("holds: ") for line in lines[start:end]), "holds are counted, not listed"
    assert "claims judged in" in lines[-1] and "minutes" in lines[-1]


def test_the_committed_page_agrees_with_a_quick_run(quick_scorecard):
    """docs/reproduction.md against this quick run: every claim and point the quick run judges
    (not left out, not short of traces) has the committed verdict; this run has one seed (to
    keep the test's time), so it is held to the page's verdicts on the first seed."""
    document, _ = quick_scorecard
    one_seed = document["seeds"] == 1
    committed = output.committed_verdicts((ROOT / "docs" / "reproduction.md").read_text(), first_seed=one_seed)
    assert committed, "docs/reproduction.md carries its verdicts"
    quick = output.verdict_keys(document)
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

    card = Scorecard(Settings(papers=["pore"]), [], [], [], {}, 1.0, 0, 0, {"k1": "m1"}, {"abc1234567890": 3})
    page = output.markdown(card)
    recorded = output.committed_model(page)
    from smrlab import fingerprint

    assert recorded["systems"] == dict(sorted(fingerprint.built()[0].items()))
    assert recorded["key_value"] == fingerprint.of_key_value()
    assert "commit abc1234567 (3)" in page


def test_json_gives_each_claim_its_values_seeds_and_the_model_of_each_cell(capsys):
    """``reproduce --json``: one row per claim with its verdict, its value on each seed and
    their range, whether it is in-sample, and the model fingerprint of each cell behind it; then
    the claims per paper by verdict."""
    from smrlab import tables
    from smrlab.reproduce import terminal
    from smrlab.reproduce.evaluation import Row
    from smrlab.reproduce.scorecard import Scorecard, Settings

    row = Row("pore", "c1", "§V", "PORE-BL below LRU", "", "below 1", 0.8, "0.8 [0.7-0.9]", 0.8, "tie")
    row.seeds, row.values, row.cells, row.in_sample = [0, 1, 2], [0.7, 0.8, 0.9], ["k1", "k2"], True
    card = Scorecard(Settings(papers=["pore"], seeds=3), [row], [], [], {}, 60.0, 2, 0, {"k1": "m1", "k2": "m2"})
    tables.gather_json()
    terminal.print_scorecard(card)
    tables.flush()
    found = json.loads(capsys.readouterr().out)["tables"]
    claims_table = next(t for t in found if t["title"] == "claims")
    claim = dict(zip(claims_table["columns"], claims_table["rows"][0]))
    assert claim["verdict"] == "tie" and claim["in-sample"] is True
    assert claim["seeds"] == [0, 1, 2] and claim["values"] == [0.7, 0.8, 0.9]
    assert (claim["low"], claim["high"]) == (0.7, 0.9)
    assert claim["cell models"] == {"k1": "m1", "k2": "m2"}
    in_sample = next(t for t in found if t["title"] == "in-sample claims")
    assert dict(zip(in_sample["columns"], in_sample["rows"][0]))["tie"] == 1


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
        fig, caption = plots.figure_and_caption(exp, marked)
        assert texts(fig).count(plots.SATURATED_MARK) == 1 and plots.SATURATED_NOTE in caption, kind
        assert plots.SATURATED_NOTE.split(":")[0] in texts(plots.figure(exp, marked))[-1], "drawn beneath"


def test_a_traces_folder_replaces_the_recipes_by_name(cli, tmp_path):
    """A user's copy of an MSR trace named as published (wdev_0.csv.gz) takes the place of the
    full-size wdev recipe; the write-only experiment gets its writes; rows say the traces were
    real, on the terminal too. The scorecard goes to a file of its own, never over the synthetic
    one, and a file far smaller than the paper's trace of its name (the bundled sample, under a
    twentieth of Table I's wdev) is warned of."""
    import shutil

    traces = tmp_path / "traces"
    traces.mkdir()
    shutil.copy(DATA / "wdev.csv.gz", traces / "wdev_0.csv.gz")
    results = tmp_path / "results"
    results.mkdir()
    synthetic = results / "scorecard-quick.json"
    synthetic.write_text(json.dumps({"rows": [], "counts": {}, "mode": "quick", "traces": SYNTHETIC}))
    argv = ["reproduce", "--paper", "pore", "--quick", "--traces", traces, "--jobs", "1", "--results", results]
    refused = cli(*argv, "-o", synthetic)
    assert refused.returncode == 2 and "holds the scorecard on synthetic traces" in refused.stderr, refused.stderr
    result = cli(*argv)
    assert result.returncode == 0, result.stderr
    assert json.loads(synthetic.read_text())["rows"] == [], "the synthetic scorecard is left as it was"
    card = json.loads((results / "scorecard-quick-traces.json").read_text())
    assert len(card["warnings"]) == 1 and "wdev_0.csv.gz has 100,000 requests" in card["warnings"][0]
    assert "wdev_0.csv.gz has 100,000 requests" in result.stderr
    real_claims = [r["id"] for r in card["rows"] if r["traces_kind"] == "real"]
    assert f"on real traces: {len(real_claims)} of {len(card['rows'])} claims" in result.stdout
    rows = [r for r in card["rows"] if r["traces_kind"]]
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
