"""What makes a run's numbers say less than they seem to, worded once for every front (the
command line's tables and JSON, the API's ``Result.caveats``, the report):

- a saturated run (its queue grew for the whole replay): a mark beside each of its response
  times and one footnote saying what the mark means;
- the core's warnings with a run (a disk of few bands) and each mechanism it never exercised (a
  buffer that held every write, a cache that never evicted, no format conversion), one line per
  reason naming the runs it applies to;
- rows of one comparison whose numbers came out identical, which are then not ranked apart;
- runs of the write-offloading store (the SMRDB thesis's chapter 5) in which no compaction ran,
  so nothing was offloaded, and the NVRAM life such a run cannot bound;
- a store's open-loop run (YCSB requests at scheduled times) that fell behind its arrivals: its
  latencies carry the saturated mark, as a simulated run's do.

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


# The write-offloading store's runs (``smrlab workload fig5.8`` and ``table5.1``): offloading
# happens only while a compaction runs.
UNBOUNDED = "unbounded"
NVRAM_UNBOUNDED = (
    f"NVRAM life {UNBOUNDED}: no write reached the NVRAM, so its wear sets no limit in this run "
    "(Fig. 5.3 divides the NVRAM's endurance by the share of writes offloaded)"
)
NO_COMPACTION = (
    NOT_INFORMATIVE + "too short to measure: no compaction read or wrote a byte during it, so nothing was "
    "offloaded and the store's first level held every write (run longer: --duration, or --rate-scale)"
)


def offload_notes(runs: Mapping[str, dict]) -> list[str]:
    """What makes Fig. 5.8's two rows say less than they seem to: a run with offloading in which
    none ran offloaded nothing, and then both rows measured the same store; their latencies are
    wall-clock times on this machine, and the difference is the order they ran in (the first
    pays the warm-up) and whatever else it was doing."""
    store = runs["with offloading"]["store"]
    if store["offloaded_user_bytes"]:
        return []
    why = "no compaction ran" if not store["compactions"] else "no write arrived while a compaction ran"
    return [
        f"with offloading: {NOT_INFORMATIVE}{why}, so nothing was offloaded and both rows measured the same "
        "store; their difference is the order they ran in and the machine's load, not offloading "
        "(run longer: --duration)"
    ]


def offload_reasons(compacted_bytes: int, offloaded_bytes: int) -> list[str]:
    """Why one workload's row of Table 5.1 says less than it seems to: no compaction read or
    wrote anything while it ran (``compacted_bytes``; a compaction may finish in the next
    workload, so their count is not the test), and, whenever nothing was offloaded, the NVRAM
    life it cannot bound."""
    return [NO_COMPACTION] * (not compacted_bytes) + [NVRAM_UNBOUNDED] * (not offloaded_bytes)


# A store's open-loop run keeps up when it completes what its schedule issued about as fast as it
# was issued; the last requests' service and a burst at the end of a short run cost a little of
# that, so a run is taken to have fallen behind below nine tenths of the schedule's rate.
KEEP_UP = 0.9


def fell_behind(summary: Mapping[str, Any], duration_s: float) -> bool:
    """Whether a store's open-loop run (a YCSB run's ``summary``, over a schedule of
    ``duration_s`` seconds) completed requests slower than its schedule issued them."""
    offered = summary["requests"] / duration_s if duration_s > 0 else 0.0
    return offered > 0 and summary["throughput"] < KEEP_UP * offered


def behind(label: str, summary: Mapping[str, Any], duration_s: float, lower: str = "--rate") -> list[str]:
    """The note of a run that fell behind its arrivals (``fell_behind``), or none; ``lower``
    names the options that ask for fewer arrivals."""
    if not fell_behind(summary, duration_s):
        return []
    return [
        f"{label}: {SATURATED_MARK} it completed {summary['throughput']:,.0f} requests a second of the "
        f"{summary['requests'] / duration_s:,.0f} its schedule issued: the store fell behind, so its "
        f"latencies measure the backlog, not the arrivals (a lower {lower})"
    ]
