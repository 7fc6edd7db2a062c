"""What the paper commands share once their experiment has run: its cells as one tidy frame (the
rows of its Parquet table), a table of declared columns read from that frame, and the paper's
claims on the command's experiment judged on it by the scorecard's own code
(``smrlab.reproduce.evaluation``: its ratios, means over traces and verdicts), on whatever
traces the command ran rather than the paper's trace set.

A paper command declares its table (``Table``: a row per run, columns of measures, ``Column``;
``Grid``: one measure over two of the runs' values, swept parameters, trace or label; either of
some of the runs; ``Tables``: several; each reads the runs as ``Ran``) and the experiment files
whose claims it prints; it computes no measure of its own. Not here: running the experiment
(``smrlab.cli.presets``), the claims' rules (``smrlab.reproduce``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Protocol

from smrlab import bundled, caveats
from smrlab.reproduce import claims, terminal
from smrlab.reproduce.evaluation import Evaluation, Row
from smrlab.result import RESPONSE_COLUMNS, tidy_row
from smrlab.tables import print_table

# What the claims printed by a command ran on: the user's traces, not the paper's recipes.
TRACES_KIND = "given"


def frame(runs: Iterable[tuple[str, str, dict, dict]]):
    """The tidy rows of a command's runs, each ``(label, trace name, given parameters, result)``,
    as a DataFrame: one row per run with its label, trace name, seed, given parameters and
    every measure (the rows of its experiment's Parquet table)."""
    import pandas as pd

    return pd.DataFrame([{**tidy_row(result, label, given), "trace": trace} for label, trace, given, result in runs])


def judged(
    paper: str, experiments: tuple[str, ...], rows, general: bool = False, axes: dict[str, list[str]] | None = None
) -> list[tuple[claims.Claim, Row]]:
    """Each claim of ``paper`` on one of ``experiments``, judged on ``rows`` (a frame of tidy rows)
    by the scorecard's evaluation, over the traces the rows hold (a claim's statistic over the
    paper's trace set is taken over these instead); with ``general``, only the claims that name
    no one trace (``general = true``, or no trace set), which a user's trace can judge; ``axes``:
    the values of each swept parameter in the order they were swept (a trend's order). A claim
    comparing a label the rows lack (a command run with ``--only``) is not judged."""
    stated = claims.load(claims.claims_path(paper, bundled.experiments_root()), paper).claims
    evaluation = Evaluation(rows, axes or {}, TRACES_KIND)
    labels = set(rows["label"]) if "label" in rows else set()
    return [
        (
            claim,
            evaluation.row(paper, dataclasses.replace(claim, traces=[]))
            if claim.labels() <= labels
            else evaluation.not_run(paper, claim, f"no run labelled {', '.join(sorted(claim.labels() - labels))}"),
        )
        for claim in stated
        if claim.experiment in experiments
        and claim.kind != "not-run"
        and not (general and claim.traces and not claim.general)
    ]


def print_claims(paper: str, experiments: tuple[str, ...], runs: Sequence[Ran], title: str) -> None:
    """The claims of ``paper`` on ``experiments`` that name no one trace, judged on a command's
    ``runs`` (a parameter given more than one value is swept in the order the runs give it) and
    printed as the scorecard prints a run's claims."""
    rows = frame((run.label, run.trace, run.given, run.result) for run in runs)
    values = {key: list(dict.fromkeys(str(run.given[key]) for run in runs if key in run.given)) for key in rows}
    axes = {key: found for key, found in values.items() if len(found) > 1}
    terminal.print_claims_of_run(title, [row for _, row in judged(paper, experiments, rows, True, axes)])


@dataclass(frozen=True)
class Column:
    """A column of a paper command's table: ``measure`` of each run's tidy row times ``scale``
    (1e-6: nanoseconds shown in milliseconds), blank where the run has none; a response time
    carries the saturated mark of its run (``smrlab.caveats``)."""

    header: str
    measure: str
    scale: float = 1.0

    def value(self, row: dict) -> object:
        value = row.get(self.measure)
        if value is None or value != value:  # absent, or NaN
            return None
        return caveats.response(value * self.scale, self.measure in RESPONSE_COLUMNS and bool(row.get("saturated")))


@dataclass(frozen=True)
class Ran:
    """One run of a paper command as its table reads it: its label, its values of the command's
    swept parameters (as the user writes them), its result, its trace's name and its
    parameters as given."""

    label: str
    swept: dict[str, object]
    result: dict
    trace: str = ""
    given: dict[str, str] = dataclasses.field(default_factory=dict)

    def get(self, key: str) -> object:
        """Its value of ``key``: a swept parameter's as the user writes it, ``trace``, ``label``,
        or a parameter as given."""
        if key in self.swept:
            return self.swept[key]
        return {"trace": self.trace, "label": self.label}.get(key, self.given.get(key))

    def matches(self, where: dict[str, str]) -> bool:
        """Whether it has each value ``where`` names (a table of some of the runs)."""
        return all(str(self.get(key)) == value for key, value in where.items())

    @property
    def name(self) -> str:
        """Its swept values (``128KiB``), or its label when it has none."""
        return " ".join(map(str, self.swept.values())) or self.label

    @property
    def noted(self) -> str:
        """How the table's notes name it: each swept parameter with its value, or its label."""
        return " ".join(f"{key} {value}" for key, value in self.swept.items()) or self.label


class Shows(Protocol):
    """What a paper command's table is: something that prints the command's runs, formatting its
    title with the command's fields."""

    def show(self, runs: Sequence[Ran], **fields) -> None: ...


@dataclass(frozen=True)
class Table:
    """A paper command's table: one row per run (of those with the values ``where`` names),
    named in its first column (``first`` its header) by its value of ``row`` (default: its
    swept values or its label), then ``columns``; ``title``, ``first`` and ``caption`` may name
    fields the command fills in."""

    title: str
    first: str
    columns: tuple[Column, ...]
    caption: str = ""
    names: dict[str, str] = dataclasses.field(default_factory=dict)
    row: str | None = None
    where: dict[str, str] = dataclasses.field(default_factory=dict)

    def show(self, runs: Sequence[Ran], **fields) -> None:
        """Prints a paper command's ``runs``, a row each named by its value of ``row``, its swept
        values or its label (``names``: a row's name, if another); nothing when none is kept."""
        runs = [run for run in runs if run.matches(self.where)]
        if not runs:
            return
        named = [str(run.get(self.row)) if self.row else run.name for run in runs]
        self.print(
            [(self.names.get(name, name), run.result) for name, run in zip(named, runs)],
            noted=[run.noted for run in runs],
            **fields,
        )

    def print(self, runs: Sequence[tuple[str, dict]], noted: Sequence[str] | None = None, **fields) -> None:
        """Prints ``runs`` (each its row's name and its result), with the notes of ``caveats``
        naming each run as ``noted`` does (default: its row's name)."""
        rows = [(name, *(column.value(tidy_row(result, name, {})) for column in self.columns)) for name, result in runs]
        named = noted or [name for name, _ in runs]
        print_table(
            self.title.format(**fields),
            [self.first.format(**fields), *(column.header for column in self.columns)],
            rows,
            caption=self.caption.format(**fields),
            notes=caveats.notes(dict(zip(named, (result for _, result in runs)))),
        )


@dataclass(frozen=True)
class Grid:
    """A paper command's table over two of its runs' values (``Ran.get``: swept parameters, the
    trace, the label): a row per value of ``rows`` (headed ``first``), a column per value of
    ``across`` (headed by ``header`` with the value, or its name in ``names``, in place of
    ``{}``), each cell the ``value`` of the run at both; of the runs with the values ``where``
    names, nothing printed when there is none. ``title`` and ``caption`` may name fields the
    command fills in."""

    title: str
    rows: str
    first: str
    across: str
    header: str
    value: Column
    caption: str = ""
    names: dict[str, str] = dataclasses.field(default_factory=dict)
    where: dict[str, str] = dataclasses.field(default_factory=dict)

    def show(self, runs: Sequence[Ran], **fields) -> None:
        runs = [run for run in runs if run.matches(self.where)]
        if not runs:
            return
        row_values = list(dict.fromkeys(run.get(self.rows) for run in runs))
        column_values = list(dict.fromkeys(run.get(self.across) for run in runs))
        at = {(run.get(self.rows), run.get(self.across)): run for run in runs}
        print_table(
            self.title.format(**fields),
            [self.first, *(self.header.format(self.names.get(value, value)) for value in column_values)],
            [
                (
                    row,
                    *(
                        self.value.value(tidy_row(at[row, column].result, at[row, column].label, {}))
                        for column in column_values
                    ),
                )
                for row in row_values
            ],
            caption=self.caption.format(**fields),
            notes=caveats.notes({run.noted: run.result for run in runs}),
        )


@dataclass(frozen=True)
class Tables:
    """Several tables of one command's runs, printed in turn."""

    parts: tuple[Shows, ...]

    def show(self, runs: Sequence[Ran], **fields) -> None:
        for part in self.parts:
            part.show(runs, **fields)
