"""What makes a run's numbers say less than they seem to, worded once for every front (the
command line's tables and JSON, the API's ``Result.caveats``, the report):

- a saturated run (its queue grew for the whole replay): a mark beside each of its response
  times and one footnote saying what the mark means;
- the core's warnings with a run (a disk of few bands) and each mechanism it never exercised (a
  buffer that held every write, a cache that never evicted, no format conversion), one line per
  reason naming the runs it applies to;
- rows of one comparison whose numbers came out identical, which are then not ranked apart.

The core decides every one of these (``smrlab.result.saturated``, a result's ``warnings`` and
``not_informative``); this module only words and places them. Not here: drawing the mark in a
figure (``smrlab.plots``), the tables themselves (``smrlab.tables``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

SATURATED_MARK = "‡"
SATURATED_NOTE = f"{SATURATED_MARK} saturated: the queue grew for the whole replay; response times not comparable"
NOT_INFORMATIVE = "not informative: "
ROW_SEPARATOR = "\n"
IDENTICAL = "identical numbers: what tells them apart never came into play"


@dataclass(frozen=True)
class Marked:
    """A table cell: ``value`` with ``mark`` after it (drawn as ``fmt(value) mark``; JSON and CSV
    keep the plain value, and the table's notes say what the mark means)."""

    value: Any
    mark: str = SATURATED_MARK


def response(value: Any, is_saturated: bool) -> Any:
    """A response time as a table shows it: marked when its run was saturated."""
    return Marked(value) if is_saturated and value is not None else value


def plain(value: Any) -> Any:
    """A cell without its mark."""
    return value.value if isinstance(value, Marked) else value


def marks(rows: Iterable[Sequence[Any]]) -> set[str]:
    """The marks the cells of ``rows`` carry."""
    return {cell.mark for row in rows for cell in row if isinstance(cell, Marked)}


def reasons(result: dict) -> list[str]:
    """Why one run's numbers say less than they seem to, in the core's words: its warnings, then
    each mechanism it never exercised."""
    return [*result.get("warnings", []), *(NOT_INFORMATIVE + reason for reason in result.get("not_informative", []))]


def in_row(result: dict) -> str:
    """A run's reasons as one cell of its tidy row (one value a row, so tables filter and pivot
    on it): one reason a line, empty when none."""
    return ROW_SEPARATOR.join(reasons(result))


def from_row(cell: Any) -> list[str]:
    """The reasons of a tidy row's cell (``in_row``)."""
    return [reason for reason in str(cell or "").split(ROW_SEPARATOR) if reason]


def identical(measured: Mapping[str, tuple]) -> list[list[str]]:
    """The labels whose ``measured`` numbers are the same, in groups of two or more."""
    groups: dict[tuple, list[str]] = {}
    for label, numbers in measured.items():
        groups.setdefault(numbers, []).append(label)
    return [labels for labels in groups.values() if len(labels) > 1]


def measured(result: dict) -> tuple:
    """What one run measured, to tell identical runs: every derived value and both mean
    response times."""
    report = result["report"]
    return (
        tuple(sorted(result["derived"].items())),
        report["read"]["response"]["mean_ns"],
        report["write"]["response"]["mean_ns"],
    )


def group(by_reason: Mapping[str, Sequence[str]]) -> list[str]:
    """One line per reason, after the runs it applies to."""
    return [f"{', '.join(labels)}: {reason}" for reason, labels in by_reason.items()]


def notes(results: Mapping[str, dict]) -> list[str]:
    """The notes of a table of ``results`` (by label): each run's reasons, one line per reason
    with the runs it applies to, then each group of runs that gave identical numbers."""
    by_reason: dict[str, list[str]] = {}
    for label, result in results.items():
        for reason in reasons(result):
            by_reason.setdefault(reason, []).append(label)
    same = identical({label: measured(result) for label, result in results.items()}) if len(results) > 1 else []
    return group(by_reason) + [f"{', '.join(labels)}: {IDENTICAL}" for labels in same]


def ranks(values: Mapping[str, float]) -> dict[str, int]:
    """Each label's rank by its value (1: the least); equal values share a rank."""
    ordered = sorted(set(values.values()))
    return {label: ordered.index(value) + 1 for label, value in values.items()}
