"""The outcome of one simulation as Python sees it (``Result``), and its tidy row: one flat
record per run — what ran (label, system, trace, seed, the parameters given) and what it
measured (requests, every derived value, counter and final gauge the core declares, response
times, and the gauges sampled over the run as list columns) — the row that DataFrames, Parquet
files and plots are made of.

The numbers are the core's; the one combined here is the mean response over reads and
writes, from the core's exact means and counts (its ``sum_ns`` stops at 2^64 - 1 ns, about
585 years, which a saturated open-loop replay's waiting passes). Not here: running (``smrlab.run``,
``smrlab.api``), many rows at once (``smrlab.experiment``).
"""

from __future__ import annotations

import copy
from typing import Any

from smrlab import caveats

# The columns that say what ran, before the measures; a given parameter whose key is one of
# these or a measure's name is prefixed with "param." in a row.
RUN_COLUMNS = ("label", "system", "trace", "seed")


def measures(result: dict) -> dict[str, Any]:
    """Requests measured, whether the run was saturated and what else makes its numbers say
    less than they seem to (``caveats``: ``smrlab.caveats.in_row``), then every derived value,
    counter and final gauge of a result dict."""
    report = result["report"]
    row: dict[str, Any] = {
        "requests": report["requests"],
        "cancelled": report.get("cancelled", False),
        "saturated": saturated(report),
        "caveats": caveats.in_row(result),
    }
    row.update(result["derived"])
    row.update(report["counters"])
    row.update(dict(report["gauges"]))
    row.update(response_times(report))
    row.update(service_times(report))
    return row


def saturated(report: dict) -> bool:
    """The core's verdict on an open-loop run: its queue grew for the whole replay, so its
    response times measure the trace's length rather than the system (never in closed loop)."""
    return bool((report.get("saturation") or {}).get("saturated", False))


# The columns of ``response_times``: what queueing changes, so what a saturated run's row cannot
# be compared on (its counts, R_wa and segments rewritten are as good as any run's).
RESPONSE_COLUMNS = ("response_mean_ns", "read_response_mean_ns", "write_response_mean_ns", "write_response_p99_ns")


def response_times(report: dict) -> dict[str, float]:
    """The core's response-time means and 99th percentiles of reads and of writes (ns, from the
    scheduled arrival), and their mean over both, weighted by count (the HWSR paper's "average
    response time")."""
    read, write = report["read"]["response"], report["write"]["response"]
    values = (
        mean_response_ns(report),
        read["mean_ns"] if read["count"] else None,
        write["mean_ns"] if write["count"] else None,
        write["p99_ns"] if write["count"] else None,
    )
    return dict(zip(RESPONSE_COLUMNS, values))


def service_times(report: dict) -> dict[str, float | None]:
    """The core's mean service time (ns: the disk's own time for a request, without waiting) of
    reads and of writes, None without either."""
    return {
        f"{op}_service_mean_ns": report[op]["service"]["mean_ns"] if report[op]["service"]["count"] else None
        for op in ("read", "write")
    }


def mean_response_ns(report: dict) -> float | None:
    """The mean response time over reads and writes, weighted by count, from the core's exact
    per-op means (never from ``sum_ns``, which is clamped at 2^64 - 1); None without either."""
    read, write = report["read"]["response"], report["write"]["response"]
    count = read["count"] + write["count"]
    if not count:
        return None
    return (read["mean_ns"] * read["count"] + write["mean_ns"] * write["count"]) / count


def tidy_row(result: dict, label: str, given: dict[str, str]) -> dict[str, Any]:
    """The flat row of a result dict: ``label``, system, trace name, seed, the ``given``
    parameters (as text, as they were given), then the measures."""
    taken = measures(result)
    row: dict[str, Any] = {
        "label": label,
        "system": result["config"]["system"],
        "trace": result["trace"]["name"],
        "seed": result["config"]["seed"],
    }
    for key, value in given.items():
        row[f"param.{key}" if key in RUN_COLUMNS or key in taken else key] = value
    row.update(taken)
    row.update(series_columns(result))
    return row


def series_columns(result: dict) -> dict[str, list[float]]:
    """The gauges sampled over the run (when the engine sampled them: ``gauge_samples``), each
    as a list column ``series.NAME`` beside ``series.trace_s``, the trace time of each sample."""
    series = result["report"].get("gauge_series") or {}
    samples = series.get("samples") or []
    if not samples:
        return {}
    columns = {"series.trace_s": [sample["trace_ns"] / 1e9 for sample in samples]}
    for index, name in enumerate(series["names"]):
        columns[f"series.{name}"] = [sample["values"][index] for sample in samples]
    return columns


class Result:
    """One simulation's outcome: its configuration, counters and derived values.

    >>> import smrlab
    >>> result = smrlab.simulate("dmsmr", "data/wdev.csv.gz", buffer="1/256")
    >>> result.counters["band_cleanings"] > 0
    True
    >>> bool(result.to_pandas()["total_io_s"][0] == result.derived["total_io_s"])
    True
    """

    def __init__(self, result: dict, label: str | None = None, given: dict[str, str] | None = None):
        self._result = result
        self.label = label or result["config"]["system"]
        self.given = dict(given or {})

    @property
    def config(self) -> dict:
        """System, every parameter read (given or default), engine and seed."""
        return copy.deepcopy(self._result["config"])

    @property
    def counters(self) -> dict[str, int]:
        """The system's counters (band cleanings, hits, GC cycles...), by name."""
        return dict(self._result["report"]["counters"])

    @property
    def derived(self) -> dict[str, float]:
        """Every value the core derives: ratios (R_wa, hit rates), I/O times in seconds."""
        return dict(self._result["derived"])

    @property
    def caveats(self) -> list[str]:
        """What makes the numbers say less than they seem to, as every front says it
        (``smrlab.caveats``): the core's warnings, each mechanism the run never exercised (a
        cache that never evicted), and whether it was saturated."""
        flagged = [caveats.SATURATED_NOTE.removeprefix(caveats.SATURATED_MARK).strip()]
        return caveats.reasons(self._result) + (flagged if saturated(self._result["report"]) else [])

    @property
    def warnings(self) -> list[str]:
        """What makes the numbers say less than they seem to (a disk of few bands), as the core
        gives it with the run; ``caveats`` holds these too."""
        return list(self._result["warnings"])

    @property
    def notes(self) -> list[str]:
        """What the run says of itself beside its numbers (the bands a disk had, and why)."""
        return list(self._result["notes"])

    @property
    def metrics(self) -> dict[str, dict]:
        """The core's declaration of each measure: kind, unit, meaning."""
        return copy.deepcopy(self._result["metrics"])

    def to_dict(self) -> dict:
        """The whole result, as ``smrlab sim`` writes it (with provenance)."""
        return copy.deepcopy(self._result)

    def row(self) -> dict[str, Any]:
        """The tidy row (see the module doc)."""
        return tidy_row(self._result, self.label, self.given)

    def to_pandas(self):
        """A one-row DataFrame of ``row()``."""
        import pandas as pd

        return pd.DataFrame([self.row()])

    def __repr__(self) -> str:
        d = self._result["derived"]
        return f"<Result {self.label} on {self._result['trace']['name']}: total I/O {d['total_io_s']:.4g} s>"
