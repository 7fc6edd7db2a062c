"""A reproduced figure's numbers beside the paper's. The paper's numbers live in one place, its
claims file (experiments/claims/PAPER.toml, beside the experiment files): the claims that name
an experiment are its paper numbers, judged on its rows as the reproduction scorecard judges
them (``smrlab.reproduce.verdict``), for the report's table and the figure's markers.

Not here: running, plotting, HTML, the scorecard of every claim (``smrlab.reproduce``).
"""

from __future__ import annotations

from pathlib import Path

from smrlab.bundled import experiments_root
from smrlab.citations import short
from smrlab.reproduce.claims import load
from smrlab.reproduce.evaluation import Evaluation

# "why": what explains a verdict other than holds, with the docs section it names (a link in the report).
COLUMNS = ["claim", "where", "trace", "paper's", "ours", "ours / paper", "verdict", "why"]


def claims_file(experiment) -> Path | None:
    """The claims file of the paper ``experiment`` reproduces: ``claims/PAPER.toml`` beside the
    experiment's file, else smrlab's own (for an experiment made in code, or read back from a
    results folder); None for a paper without claims."""
    paper = experiment.reproduces.get("paper")
    if not paper:
        return None
    folders = [Path(experiment.source).parent] if experiment.source is not None else []
    folders.append(experiments_root() / "experiments")
    return next((f / "claims" / f"{paper}.toml" for f in folders if (f / "claims" / f"{paper}.toml").is_file()), None)


def claims_of(experiment) -> list:
    """The paper's claims judged on ``experiment``'s rows: those that name it (or the experiment
    its ``[reproduces] claims`` names), can run, and compare only labels of its line-up (a
    line-up run without some of its systems skips the claims on them)."""
    path = claims_file(experiment)
    if path is None:
        return []
    name = experiment.reproduces.get("claims", experiment.name)
    labels = {run.label for run in experiment.systems}
    return [c for c in load(path).claims if c.experiment == name and c.kind != "not-run" and c.labels() <= labels]


def comparison_rows(experiment, frame) -> list[tuple]:
    """(claim, where, trace, paper's, ours, ours / paper, verdict, why) for each of the
    experiment's claims, judged on ``frame``."""
    path = claims_file(experiment)
    if path is None:
        return []
    loaded = load(path)
    name = experiment.reproduces.get("claims", experiment.name)
    evaluation = Evaluation(frame, experiment.axes(), "", loaded.in_sample_traces(name), loaded.targets())
    rows = []
    for claim in claims_of(experiment):
        row = evaluation.row(experiment.reproduces["paper"], claim)
        rows.append(
            (
                f"{row.id}: {row.claim}" + (" (in-sample)" if row.in_sample else ""),
                row.where,
                row.trace,
                row.paper_value,
                row.ours_text,
                None if row.ratio is None else round(row.ratio, 3),
                row.verdict,
                row.reason,
            )
        )
    return rows


def caption(experiment) -> str:
    reproduces = experiment.reproduces
    return f"{short(reproduces.get('paper', ''))}, {reproduces.get('figure', '')}".strip(", ")
