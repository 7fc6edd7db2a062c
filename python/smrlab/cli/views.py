"""What the paper commands share once their experiment has run: its cells as one tidy frame (the
rows of its Parquet table), a table of declared columns read from that frame, and the paper's
claims on the command's experiment judged on it by the scorecard's own code
(``smrlab.reproduce.evaluation``: its ratios, means over traces and verdicts), on whatever
traces the command ran rather than the paper's trace set.

A paper command names the experiment files whose claims it prints; it computes no measure of
its own. Not here: running the experiment
(``smrlab.experiment.presets``), the claims' rules (``smrlab.reproduce``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from smrlab import bundled
from smrlab.reproduce import claims
from smrlab.reproduce.evaluation import Evaluation, Row
from smrlab.result import tidy_row

# What the claims printed by a command ran on: the user's traces, not the paper's recipes.
TRACES_KIND = "given"


def frame(runs: Iterable[tuple[str, str, dict, dict]]):
    """The tidy rows of a command's runs, each ``(label, trace name, given parameters, result)``,
    as a DataFrame: one row per run with its label, trace name, seed, given parameters and
    every measure (the rows of its experiment's Parquet table)."""
    import pandas as pd

    return pd.DataFrame([{**tidy_row(result, label, given), "trace": trace} for label, trace, given, result in runs])


def judged(paper: str, experiments: tuple[str, ...], rows) -> list[tuple[claims.Claim, Row]]:
    """Each claim of ``paper`` on one of ``experiments``, judged on ``rows`` (a frame of tidy rows)
    by the scorecard's evaluation, over the traces the rows hold (a claim's statistic over the
    paper's trace set is taken over these instead)."""
    stated = claims.load(claims.claims_path(paper, bundled.experiments_root()), paper).claims
    evaluation = Evaluation(rows, {}, TRACES_KIND)
    return [
        (claim, evaluation.row(paper, dataclasses.replace(claim, traces=[])))
        for claim in stated
        if claim.experiment in experiments and claim.kind != "not-run"
    ]
