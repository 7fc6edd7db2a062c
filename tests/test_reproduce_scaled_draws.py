"""A --full scorecard's seeds (issue 50, "seeds must not triple the wait"): the first seed runs
the experiment's full-size traces, the spread is drawn from its [quick] traces, and
``full_seeds`` runs every seed at full size. On a tiny experiment of its own (--root): its
"full" traces are small too, what matters is which recipe each seed reads."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest
from smrlab.reproduce import claims, scorecard, verdict
from smrlab.reproduce.evaluation import Evaluation

# prn0 has a quick recipe, mds1 none; the queue depth 4 runs at full size alone, 8 at the quick
# scale alone (a point the page has no full-size value of).
EXPERIMENT = """name = "tiny"
traces = ["hwsr-table3:prn0@4000", "hwsr-table3:mds1@3000"]
params = { disk_queue_depth = [1, 4] }
[quick]
traces = ["hwsr-table3:prn0@2000"]
params = { disk_queue_depth = [1, 8] }
[[systems]]
label = "cmr"
system = "cmr"
[[systems]]
label = "smr"
system = "dmsmr"
"""

CLAIM = """[[claim]]
id = "{id}"
where = "w"
quote = "q"
claim = "c"
kind = "ratio"
experiment = "tiny"
metric = "write_io_s"
of = "smr"
over = "cmr"
expect = "above 1"
traces = ["{trace}"]
"""


def make(tmp_path_factory, **settings):
    root = tmp_path_factory.mktemp("root")
    (root / "experiments" / "claims").mkdir(parents=True)
    (root / "experiments" / "tiny.toml").write_text(EXPERIMENT)
    claims = 'paper = "pore"\n' + CLAIM.format(id="scaled", trace="prn0") + CLAIM.format(id="alone", trace="mds1")
    (root / "experiments" / "claims" / "pore.toml").write_text(claims)
    given = scorecard.Settings(papers=["pore"], quick=False, jobs=1, out=root / "results", root=root, seeds=2)
    for key, value in settings.items():
        setattr(given, key, value)
    return scorecard.make(given), root


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    return make(tmp_path_factory)


def requests_read(root) -> dict[tuple[str, int], set[int]]:
    """Per trace and cell seed: the request counts of the traces its cells read (a generated
    trace's cached file is named NAME-REQUESTS-DIGEST)."""
    found: dict[tuple[str, int], set[int]] = {}
    for doc in (json.loads(p.read_text()) for p in (root / "results").glob("*/*.json")):
        for cell in doc["cells"]:
            name = cell["trace"]["name"]
            requests = int(Path(doc["traces"][name]["path"]).name.split("-")[1])
            found.setdefault((name, cell["seed"]), set()).add(requests)
    return found


def test_a_full_run_draws_its_spread_from_the_quick_traces(full):
    card, root = full
    scaled, alone = card.rows
    both, full_only = scaled.points
    assert (
        both.at == {"disk_queue_depth": "1"} and both.scales == ["full", "quick", "quick"] and both.seeds == [0, 0, 1]
    )
    assert "draws at the quick scale" in both.text and "quick scale does not run this point" in full_only.note
    read = requests_read(root)
    assert read[("prn0", 0)] == {4000, 2000} and read[("prn0", 1)] == {2000}, "seed 0 at both sizes, seed 1 scaled"
    assert read[("mds1", 0)] == {3000} and ("mds1", 1) not in read, "no quick recipe of mds1: no draw"
    assert card.cells_ran == 2 * 2 * 2 + 2 * 2, "full: 2 systems x 2 depths x 2 traces; quick: depth 1 on 2 seeds"
    assert all(p.seeds == [0] and "no scaled draw of this trace" in p.note for p in alone.points)


def test_the_json_says_each_seeds_scale(full):
    document = full[0].as_dict()
    row = next(r for r in document["rows"] if r["id"] == "scaled")
    assert row["points"][0]["scales"] == ["full", "quick", "quick"] and row["points"][0]["seeds"] == [0, 0, 1]
    assert row["points"][1]["scales"] == ["full"] and row["points"][1]["note"]
    assert "quick scale" in document["seed_scales"] and "--full-seeds" in document["scaled_draws"]


def test_full_seeds_runs_every_seed_at_full_size(tmp_path_factory):
    card, root = make(tmp_path_factory, full_seeds=True)
    scaled, alone = card.rows
    assert [p.scales for p in scaled.points] == [["full", "full"]] * 2 and scaled.points[0].seeds == [0, 1]
    assert [p.scales for p in alone.points] == [["full", "full"]] * 2, (
        "a generated trace with no quick recipe gets its seeds too"
    )
    assert requests_read(root) == {("prn0", 0): {4000}, ("prn0", 1): {4000}, ("mds1", 0): {3000}, ("mds1", 1): {3000}}
    assert "scaled_draws" not in card.as_dict()


def test_a_full_size_hold_with_a_scaled_draw_below_the_threshold_is_a_tie():
    head = 'paper = "pore"\n[[claim]]\nid = "x"\nwhere = "w"\nquote = "q"\nclaim = "c"\n'
    body = 'kind = "ratio"\nexperiment = "e"\nmetric = "m"\nof = "a"\nover = "b"\nexpect = "above 1"\n'
    claim = claims.parse(head + body, Path("pore.toml")).claims[0]

    def judged(scaled_ratios: list[float]):
        draws = [("full", 0, 2.0)] + [("quick", seed, r) for seed, r in enumerate(scaled_ratios)]
        rows = [
            {"label": label, "trace": "t", "scale": scale, "seed": seed, "m": r if label == "a" else 1.0}
            for scale, seed, r in draws
            for label in ("a", "b")
        ]
        table = pd.DataFrame([{**row, "saturated": False, "cell": f"k{i}"} for i, row in enumerate(rows)])
        return Evaluation(table, {}, "synthetic").row("p", claim)

    tied = judged([1.5, 0.8, 1.6])
    assert tied.verdict == verdict.TIE and tied.first_seed == verdict.HOLDS, "the full size clears, a draw does not"
    assert tied.ours == pytest.approx(2.0) and tied.ours_text == "2 [0.8-1.6 over 3 draws at the quick scale]"
    assert judged([1.5, 1.2, 1.6]).verdict == verdict.HOLDS, "every draw clears: it holds"
