"""``smrlab compare-caches`` and ``smrlab cache-sweep``: the PORE paper's comparisons (Figs. 11-14)
and parameter sweeps (§V-E/F) of SSD caches over a drive-managed SMR disk.

compare-caches runs smr-only (no cache), cmr-only (no cache, plain disk), lru, lru-band and
pore with each scheme on one trace, and prints I/O time normalised to cmr-only, hit rates and
the SMR write amplification, then PORE-BL's factors against the others beside the paper's.
cache-sweep varies one parameter of one policy. Both are declarations (``PaperCommand``) run
by the paper commands' one body; their tables and the factors are here.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from smrlab import caveats, options, systems
from smrlab.cli import views
from smrlab.cli.declared import add_declared
from smrlab.cli.paper_command import Choice, Declared, PaperCommand, Sweep
from smrlab.cli.sim import (
    add_geometry_argument,
    add_trace_arguments,
    geometry_params,
)
from smrlab.errors import UsageError
from smrlab.experiment.spec import SystemRun
from smrlab.run import footprint
from smrlab.tables import note, print_table
from smrlab.trace import Trace

# The experiment files whose systems make the line-up in each mode (Figs. 11-14): Fig. 11's
# (read-write) or Fig. 13's (write-only), with Fig. 14's PORE schemes; the first one's figure
# and paper figure are the line-up's.
LINE_UP_FILES = {"rw": ("pore-fig11", "pore-fig14"), "wo": ("pore-fig13", "pore-fig14")}


def cache_params(args: argparse.Namespace) -> list[str]:
    """The cache's parameters from the options and ``--param`` (with ``--geometry-scale``)."""
    given = {"mode": args.mode, "cache": args.cache, "zone": args.zone, "period": args.period}
    return [f"{key}={value}" for key, value in given.items()] + geometry_params(args)


def lower_params(args: argparse.Namespace) -> list[str]:
    """The parameters for the SMR disk below the cache: those of the cache's it declares."""
    return systems.declared_by(cache_params(args), "dmsmr")


def disk_params(args: argparse.Namespace) -> list[str]:
    """The parameters a plain disk declares (the timing preset)."""
    return systems.declared_by(args.param, "cmr")


# The systems without an SSD cache, which run even when a write cache would have nothing to do.
CACHELESS = ("smr-only", "cmr-only")


def cacheless_without_writes(
    args: argparse.Namespace, trace: Trace, name: str, line_up: list[SystemRun]
) -> list[SystemRun]:
    """A write-only cache on a trace without writes has nothing to do: then only the disks
    without a cache run."""
    if args.mode == "wo" and footprint(trace)["written_bytes"] == 0:
        note(
            f"{name}: the trace has no writes: a write-only cache has nothing to do, so only {' and '.join(CACHELESS)} run"
        )
        return [entry for entry in line_up if entry.label in CACHELESS]
    return line_up


COLUMNS = [
    "system",
    "rank by time",
    "read time / cmr",
    "write time / cmr",
    "total / cmr",
    "read hits / block lookups",
    "write hits / block lookups",
    "R_wa",
    "band bytes / user byte",
    "band cleanings",
]
# Columns that say nothing when no run measured a read (a write-only line-up without reads), and
# those that say nothing when none wrote.
READ_COLUMNS = {"read time / cmr", "read hits / block lookups"}
WRITE_COLUMNS = {"write time / cmr", "write hits / block lookups", "R_wa", "band bytes / user byte", "band cleanings"}


def _ratio(value: float, base: float) -> float | None:
    return value / base if base else None


def comparison_table(results: dict[str, dict], mode: str) -> tuple[list[str], list[tuple]]:
    """The line-up's columns and rows: each I/O time divided by cmr-only's time of the same
    kind (read by read, write by write, total by total), the rank by the time the mode compares
    (`TIME_COMPARED`: write time in write-only mode, as the paper's; equal times share a rank),
    hit rates per cache-block
    lookup; the read (or write) columns only when some run measured reads (writes)."""
    base = results["cmr-only"]["derived"] if "cmr-only" in results else {}  # none with --only without it
    rank = caveats.ranks({label: result["derived"][TIME_COMPARED[mode]] for label, result in results.items()})
    rows = []
    for label, result in results.items():
        d, counters = result["derived"], result["report"]["counters"]
        rows.append(
            (
                label,
                rank[label],
                _ratio(d["read_io_s"], base.get("read_io_s")),
                _ratio(d["write_io_s"], base.get("write_io_s")),
                _ratio(d["total_io_s"], base.get("total_io_s")),
                d.get("read_hit_rate"),
                d.get("write_hit_rate"),
                d.get("r_wa"),
                d.get("band_bytes_per_user_byte"),
                counters.get("band_cleanings"),
            )
        )
    hidden = set()
    if not any(result["report"]["read"]["requests"] for result in results.values()):
        hidden |= READ_COLUMNS
    if not any(result["report"]["write"]["requests"] for result in results.values()):
        hidden |= WRITE_COLUMNS
    keep = [i for i, column in enumerate(COLUMNS) if column not in hidden]
    return [COLUMNS[i] for i in keep], [tuple(row[i] for i in keep) for row in rows]


@dataclass(frozen=True)
class Comparison:
    """compare-caches' table (``comparison_table``), titled ``title`` (the fields it names are
    the command's)."""

    title: str

    def show(self, runs: list[views.Ran], **fields) -> None:
        results = {run.label: run.result for run in runs}
        mode = fields["mode"]
        columns, rows = comparison_table(results, mode)
        print_table(
            self.title.format(**fields),
            columns,
            rows,
            caption="each I/O time divided by cmr-only's of the same kind; rank 1 = the least "
            + ("write I/O time (the paper dismisses reads in write-only mode)" if mode == "wo" else "total I/O time")
            + "; hits per cache-block lookup (4 KiB by default), not per request"
            + "; R_wa = band bytes / bytes evicted from the SMR write buffer (PORE Figs. 11-14)",
            notes=caveats.notes(results),
        )


COMPARISON = Comparison("SSD caches over drive-managed SMR: {trace} ({mode}, cache {cache})")


# The competitors PORE-BL's factors are given against, and the experiments whose claims hold the
# paper's factors: I/O time over wdev, mds, ts and usr (Figs. 11 and 13 (a)), R_wa over all nine
# traces (Figs. 12 (c) and 13 (c)); the paper gives no R_wa for cmr-only, which has none.
COMPETITORS = ("smr-only", "cmr-only", "lru", "lru-band")
FACTOR_EXPERIMENTS = {"rw": ("pore-fig11", "pore-fig12"), "wo": ("pore-fig13",)}
FACTOR_COLUMNS = ["pore-bl vs", "time factor", "paper", "R_wa factor", "paper"]
# The time the paper compares: in its write-only experiments it dismisses the traces' reads
# (§V-C2), so its I/O times are write times; here reads bypass a write-only cache and their
# time is reported apart, so the factors use the write I/O time.
TIME_COMPARED = {"wo": "write_io_s", "rw": "total_io_s"}


def factor_rows(rows, mode: str) -> list[tuple]:
    """PORE-BL against each competitor, from the PORE claims of the mode's experiments
    (experiments/claims/pore.toml) judged on ``rows`` (the line-up's tidy rows, one trace or
    several) by the scorecard: the competitor's I/O time (`TIME_COMPARED`) and R_wa over
    PORE-BL's (above 1: PORE-BL is better), the claims' statistic over the traces run (the mean
    of the per-trace factors), beside the paper's number."""
    found = {
        (claim.of.get("label"), claim.metric): (row.ours, claim.paper_value)
        for claim, row in reversed(views.judged("pore", FACTOR_EXPERIMENTS[mode], rows))
        if claim.kind == "ratio" and claim.over == {"label": "pore-bl"}
    }
    table = []
    for label in COMPETITORS:
        time, r_wa = (found.get((label, metric), (None, None)) for metric in (TIME_COMPARED[mode], "r_wa"))
        table.append((label, time[0], time[1], r_wa[0], r_wa[1]))
    return table


def informative(per_trace: dict[str, dict[str, dict]], label: str) -> bool:
    """Whether PORE-BL's run and ``label``'s exercised what they compare on every trace (a cache
    that never evicted, a buffer that never cleaned a band, say nothing of their policies)."""
    return all(not caveats.reasons(results[name]) for results in per_trace.values() for name in (label, "pore-bl"))


def print_factors(per_trace: dict[str, dict[str, dict]], mode: str, traces: str) -> None:
    """The factors on the traces run (``per_trace``: each trace's results by label) beside the
    paper's, for each competitor run on every trace (``--only`` may leave some out); left out for
    one whose run, or PORE-BL's, was not informative (the table's notes say which), and not
    printed at all when none is left."""
    rows = views.frame(
        (label, trace, {}, result) for trace, results in per_trace.items() for label, result in results.items()
    )
    ran = [label for label in COMPETITORS if all(label in results for results in per_trace.values())]
    left_out = [label for label in ran if not informative(per_trace, label)]
    factors = [
        (label, None, paper_time, None, paper_r_wa)
        if label in left_out
        else (label, time, paper_time, r_wa, paper_r_wa)
        for label, time, paper_time, r_wa, paper_r_wa in factor_rows(rows, mode)
        if label in ran
    ]
    notes = (
        [f"{', '.join(left_out)}: no factor, as a run it needs was not informative (see the tables above)"]
        if left_out
        else []
    )
    if all(time is None and r_wa is None for _, time, _, r_wa, _ in factors):
        note(
            f"PORE-BL against the others on {traces}: no factor to set beside the paper's: {notes[0] if notes else 'no run measured one'}"
        )
        return
    print_table(
        f"PORE-BL against the others on {traces} ({mode}), beside the PORE paper's averages",
        FACTOR_COLUMNS,
        factors,
        caption="factor = the other's I/O time (or R_wa) / PORE-BL's; above 1: PORE-BL is better; "
        + ("write I/O times, as the paper dismisses reads in write-only mode" if mode == "wo" else "total I/O times"),
        notes=notes,
    )


def factors_after(runs: list[views.Ran], out: Path, fields: dict) -> None:
    """Under the comparison, PORE-BL's factors against the others beside the paper's."""
    results = {run.label: run.result for run in runs}
    if "pore-bl" in results:
        print_factors({fields["trace"]: results}, fields["mode"], fields["trace"])


# The sweep's table: a row per value of the swept parameter (PORE §V-E/F, Figs. 15-16).
SWEEP = views.Table(
    "{policy}-{scheme}: varying {vary} on {trace}",
    "{vary}",
    (
        views.Column("total I/O s", "total_io_s"),
        views.Column("read hit", "read_hit_rate"),
        views.Column("write hit", "write_hit_rate"),
        views.Column("R_wa", "r_wa"),
        views.Column("avg open zones", "pore_avg_open_zones"),
    ),
)


def _period_multiple(text: str) -> float:
    """A swept period, as a positive multiple of the SMR write buffer."""
    try:
        multiple = float(text)
    except ValueError:
        multiple = math.nan
    if not (math.isfinite(multiple) and multiple > 0):
        raise UsageError(f"--values: period '{text}' is not a positive multiple of the SMR write buffer (e.g. 0.5)")
    return multiple


# The cache mode these commands run unless told: the write-only cache of PORE's Fig. 13, their
# documented default since they were written (the cache system's own default is rw, Figs. 11-12).
PRESET_MODE = "wo"


def add_cache_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("cache")
    add_declared(group, "cache", "mode", preset=PRESET_MODE)
    for key in ("cache", "zone", "period"):
        add_declared(group, "cache", key)
    options.add_params_argument(
        group, "further parameters of the cache or of the SMR disk below (e.g. buffer=1/256, band_size=18MiB)"
    )
    add_geometry_argument(group)


def cache_options(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], Trace]:
    """A cache command's trace and cache options; returns how to open its trace."""
    add_trace_arguments(parser)
    add_cache_arguments(parser)
    return lambda args: Trace.open(args.trace, args.format, args.trace_option)


SWEEP_COMMAND = PaperCommand(
    "cache-sweep",
    "vary zone size, period or cache size of one policy (PORE §V-E/F)",
    (),
    SWEEP,
    "results/cache-sweep",
    traces=cache_options,
    # The experiment file of each sweep: its values of the swept parameter are the default range,
    # its paper figure the one the sweep reproduces.
    choice=Choice(
        "--vary",
        "zone (bytes), period (multiples of the SMR write buffer) or cache (percent)",
        {
            "zone": Sweep("zone", "--values", "", "pore-fig15-zone", system="cache"),
            # Periods are swept as multiples of the SMR write buffer, which the core resolves ("0.5x").
            "period": Sweep(
                "period",
                "--values",
                "",
                "pore-fig15-period",
                system="cache",
                to_param=lambda value: f"{_period_multiple(value)}x",
                from_file=lambda value: value.removesuffix("x"),
            ),
            "cache": Sweep("cache", "--values", "", "pore-fig16", system="cache"),
        },
        "--values",
        "comma-separated values (default: the paper's range)",
    ),
    declared=(Declared("cache", "policy", meaning="the cache policy swept"), Declared("cache", "scheme")),
    systems=lambda args: [SystemRun(f"{args.policy}-{args.scheme}", "cache", {})],
    params=lambda args: systems.split(cache_params(args)),
    draws=True,
    claims="PORE claims on {name}",
)


COMPARE_COMMAND = PaperCommand(
    "compare-caches",
    "smr-only, cmr-only, lru, lru-band and pore-{cf,pf,bl} on one trace (PORE Figs. 11-14)",
    lambda args: LINE_UP_FILES[args.mode],
    COMPARISON,
    "results/compare-caches",
    traces=cache_options,
    params=lambda args: systems.split(cache_params(args)),
    draws=True,
    select=cacheless_without_writes,
    # The paper's factors follow the table (factors_after), judged on the claims of its files.
    claims=None,
    after=factors_after,
)


def register(commands) -> None:
    COMPARE_COMMAND.register(commands)
    SWEEP_COMMAND.register(commands)
