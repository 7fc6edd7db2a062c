"""``smrlab sim``'s tables of one run, for people: the headline (requests, I/O times, response
times, each device's busy time), then what the core derives (ratios such as R_wa, hit rates,
amplification), each named by its meaning as the core declares it (the paper's own name beside
it where the paper has one) with its unit; with ``--all`` also every counter and final gauge
under the core's names. A saturated run's response times carry the mark of ``smrlab.caveats``.

The same names head the columns of ``smrlab run``'s and ``smrlab results``' tables (``column``).
Not here: what a measure means or its unit (declared once, in the core, with the measure), the
run itself (``smrlab.cli.sim``).
"""

from __future__ import annotations

import re

from smrlab import caveats
from smrlab.result import saturated
from smrlab.tables import print_table

# The papers' own names for measures the core derives.
PAPER_NAMES = {"r_wa": "R_wa"}
# How a declared unit is shown beside a value (a ratio or a count needs none).
UNITS = {"seconds": "s", "milliseconds": "ms", "ratio": "", "fraction": "", "count": ""}
# The derived times the headline already shows.
IN_HEADLINE = ("total_io_s", "read_io_s", "write_io_s")
COLUMNS = ["measure", "value", "unit", "name"]
# The measures a run's tidy row adds to the core's declared ones (``smrlab.result``: requests,
# response and service times in ns), named for people and shown in the unit beside the name.
ROW_MEASURES = {
    "requests": ("requests measured", ""),
    "response_mean_ns": ("mean response", "ms"),
    "read_response_mean_ns": ("mean read response", "ms"),
    "write_response_mean_ns": ("mean write response", "ms"),
    "write_response_p99_ns": ("99th percentile write response", "ms"),
    "read_service_mean_ns": ("mean read service", "ms"),
    "write_service_mean_ns": ("mean write service", "ms"),
}


def headline(result: dict) -> list[tuple]:
    """Requests, I/O times, response times (marked when saturated), each device's busy time."""
    report, derived = result["report"], result["derived"]
    flagged = saturated(report)
    response = [
        (ROW_MEASURES["read_response_mean_ns"][0], report["read"]["response"]["mean_ns"]),
        (ROW_MEASURES["write_response_mean_ns"][0], report["write"]["response"]["mean_ns"]),
        (ROW_MEASURES["write_response_p99_ns"][0], report["write"]["response"]["p99_ns"]),
    ]
    rows = [
        (ROW_MEASURES["requests"][0], report["requests"], "", "requests"),
        ("total I/O time", derived["total_io_s"], "s", "total_io_s"),
        ("  of reads", derived["read_io_s"], "s", "read_io_s"),
        ("  of writes", derived["write_io_s"], "s", "write_io_s"),
        *((name, caveats.response(ns / 1e6, flagged), "ms", "") for name, ns in response),
    ]
    for channel in report["channels"]:
        rows.append((f"{channel['channel']} busy", (channel["read_ns"] + channel["write_ns"]) / 1e9, "s", ""))
    return rows


def named(key: str, declared: dict) -> str:
    """A measure's name for people: its declared meaning up to its first colon, without what it
    says in brackets, with the paper's name where it has one. A meaning led by the one word of its system ("FluidSMR:
    cached blocks ...") is named by what follows it, and a statistic of a gauge ("maximum of:
    live data ...") by the statistic and the gauge."""
    meaning = declared.get("meaning") or key.replace("_", " ")
    tag, colon, rest = meaning.partition(": ")
    if colon and " " not in tag:
        meaning = rest
    elif colon and tag.endswith(" of"):
        meaning = f"{tag} {rest}"
    short = _before_colon(meaning)
    while "(" in short and short != (bare := re.sub(r" ?\([^()]*\)", "", short)):
        short = bare
    return f"{short} ({PAPER_NAMES[key]})" if key in PAPER_NAMES else short


def column(key: str, declared: dict) -> tuple[str, float]:
    """A results table's column ``key`` for people, as ``sim`` names the measure: its name with
    its unit in brackets, and the factor its values are shown times (ns are shown in ms); a
    column that is no measure (label, trace, a parameter) as it is. ``declared``: the core's
    declarations of the run's measures (a result's ``metrics``)."""
    if key in ROW_MEASURES:
        name, unit = ROW_MEASURES[key]
        return (f"{name} ({unit})" if unit else name), 1e-6 if key.endswith("_ns") else 1.0
    if key not in declared:
        return key, 1.0
    unit, scale = declared[key].get("unit", ""), 1.0
    if unit == "ns":
        unit, scale = "milliseconds", 1e-6
    shown = UNITS.get(unit, unit)
    return (f"{named(key, declared[key])} ({shown})" if shown else named(key, declared[key])), scale


def _before_colon(meaning: str) -> str:
    """``meaning`` up to its first colon outside brackets ("segments rewritten / host requests
    (x 10,000: Fig. 14)" is all name, its colon inside the brackets)."""
    depth = 0
    for index, char in enumerate(meaning):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and meaning.startswith(": ", index):
            return meaning[:index]
    return meaning


def declared_rows(values: dict, metrics: dict, skip: tuple = ()) -> list[tuple]:
    """``values`` by name as rows: the name for people, the value, its unit, the core's name."""
    rows = []
    for key, value in values.items():
        if key in skip:
            continue
        declared = metrics.get(key, {})
        unit = declared.get("unit", "")
        if unit == "ns" and value is not None:
            # Shown in milliseconds, as the headline's response times are.
            value, unit = value / 1e6, "milliseconds"
        rows.append((named(key, declared), value, UNITS.get(unit, unit), key))
    return rows


def print_result(result: dict, title: str, everything: bool) -> None:
    """The run's tables: the headline and derived values; with ``everything`` also its counters
    and final gauges. The run's caveats go under the first table."""
    metrics, report = result["metrics"], result["report"]
    counters, gauges = report["counters"], dict(report["gauges"])
    rows = headline(result) + declared_rows(result["derived"], metrics, IN_HEADLINE)
    left = [f"{n} {what}" for n, what in ((len(counters), "counters"), (len(gauges), "gauges")) if n]
    hidden = [] if everything or not left else [f"{' and '.join(left)} not shown (--all shows them)"]
    print_table(title, COLUMNS, rows, notes=caveats.reasons(result) + hidden)
    if everything:
        print_table("counters", COLUMNS, declared_rows(counters, metrics))
        print_table("gauges at the end of the run", COLUMNS, declared_rows(gauges, metrics))
