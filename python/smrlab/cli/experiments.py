"""``smrlab run FILE.toml`` and ``smrlab results PATH``: run an experiment file into a results
folder (Parquet table, provenance, figure), and print a results table back, filtered or
pivoted.

Not here: what an experiment is (``smrlab.experiment``), the figures (``smrlab.plots``), the
report (``cli/report.py``).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from smrlab import caveats, experiment, live, options, orchestrator, results, sim_table
from smrlab.citations import short
from smrlab.errors import UsageError
from smrlab.experiment.executors import MAX_JOBS, reaching
from smrlab.experiment.stopwatch import Phases
from smrlab.tables import add_json_argument, machine_readable, note, print_table


def run(args: argparse.Namespace) -> int:

    phases = Phases()
    with reaching(args.cluster) as cluster:  # reached while the experiment loads
        with phases("load"):  # generates the experiment's traces on first use
            exp = experiment.load(args.file)
        show = live.CellProgress(exp.name)
        summary = orchestrator.run(
            exp,
            out=args.out,
            jobs=args.jobs,
            cluster=cluster,
            resume=args.resume,
            share_paths=args.shared_paths,
            progress=show,
            figures=True,
            phases=phases,
        )
    frame = results.read(summary.table)
    columns = results.shown_columns(frame, exp)
    print_table(
        exp.title or exp.name,
        *_for_people(summary.table, columns, results.table_rows(frame, columns)),
        caption=_caption(exp),
        notes=results.notes(frame, columns, exp.metrics or results.DEFAULT_METRICS),
    )
    for path in summary.figures:
        note(f"figure written to {path}")
    note(f"{summary.ran} cells run, {summary.reused} reused, {summary.failed} failed; table: {summary.table}")
    return 1 if summary.failed else 0


def _caption(exp: experiment.Experiment) -> str | None:
    if not exp.reproduces:
        return None

    return f"reproduces {short(exp.reproduces.get('paper', ''))} {exp.reproduces.get('figure', '')}".strip()


def show_results(args: argparse.Namespace) -> int:
    frame = results.select(results.read(args.path, timing=args.timing), args.where)
    if args.pivot:
        frame, kept = results.pivot(frame, args.pivot)
        columns = list(frame.columns)
        if kept:
            note(
                f"pivot: rows differ in {', '.join(kept)} as well, so the table keeps {'it' if len(kept) == 1 else 'them'} "
                f"as part of each row instead of averaging them (pick one with --where {kept[0]}=VALUE)"
            )
    else:
        if args.columns and args.all:
            raise UsageError("--columns and --all: give one")
        if args.columns:
            columns = args.columns.split(",")
        else:
            columns = list(frame.columns) if args.all else results.default_columns(args.path, frame)
            if args.timing and not args.all:
                columns += [
                    f"timing.{name}" for name in ("wall_s", "cpu_s", "peak_rss_bytes", "worker", "wait_s", "attempts")
                ]
        results.check_columns(frame, columns)
    notes = [] if args.pivot else results.notes(frame, columns, results.metrics_of(args.path))
    rows = results.table_rows(frame, columns)
    if not (args.pivot or args.columns or args.all):
        columns, rows = _for_people(args.path, columns, rows)
    print_table(str(args.path), columns, rows, notes=notes)
    return 0


def _for_people(path, columns: list[str], rows: list[tuple]) -> tuple[list[str], list[tuple]]:
    """A drawn table's measures named as ``smrlab sim`` names them, with their units, times in
    ms (``smrlab.sim_table.column``); JSON and CSV keep the core's names and values, as do
    ``--all`` and ``--columns``, which name the columns as the table holds them."""
    if machine_readable():
        return columns, rows
    declared = results.declared(path, columns)
    shown = [sim_table.column(column, declared) for column in columns]

    def times(cell, scale: float):
        value = caveats.plain(cell)
        if scale == 1 or not isinstance(value, (int, float)) or isinstance(value, bool):
            return cell
        return caveats.Marked(value * scale, cell.mark) if isinstance(cell, caveats.Marked) else value * scale

    return [name for name, _ in shown], [tuple(times(c, s) for c, (_, s) in zip(row, shown)) for row in rows]


def add_execution_arguments(parser: argparse.ArgumentParser) -> None:
    """Where an experiment's cells run: local worker processes or a Dask cluster."""
    parser.add_argument(
        "--jobs",
        "-j",
        type=options.bounded_whole(1, MAX_JOBS),
        default=None,
        metavar="N",
        help=f"local worker processes, 1 to {MAX_JOBS} (default: one per core; 1: run in this process)",
    )
    parser.add_argument(
        "--cluster",
        metavar="ADDRESS",
        help="run on this Dask scheduler (tcp://HOST:8786) instead; its workers need smrlab installed "
        "(docs/cluster.md)",
    )
    parser.add_argument(
        "--shared-paths",
        action="store_true",
        help="with --cluster: the workers read traces at the paths the parent sees (a shared file "
        "system) and no trace is sent; otherwise each worker is sent each trace it needs once "
        "and keeps it in its cache folder (SMRLAB_CACHE)",
    )


def add_fresh_argument(parser: argparse.ArgumentParser, unit: str) -> None:
    """``--fresh``; without it, a command goes on in the latest results folder of the same
    ``unit`` (``--resume``, the default, says so)."""
    chosen = parser.add_mutually_exclusive_group()
    chosen.add_argument(
        "--resume",
        dest="resume",
        action="store_true",
        default=True,
        help=f"the default: go on in the latest results folder of the same {unit}, reusing those stored "
        "(an interrupted run goes on where it stopped) and replacing its table",
    )
    chosen.add_argument(
        "--fresh",
        dest="resume",
        action="store_false",
        help=f"run every one of the {unit} again, into a new results folder (NAME-DIGEST-2, -3...) beside the earlier",
    )


def register(commands) -> None:
    parser = commands.add(
        "run",
        help="run an experiment file (grid of traces x systems x parameters x seeds) into a results folder",
        description="Run the cells of an experiment file (experiments/*.toml) in local worker processes (one per core "
        "by default) or on a Dask cluster, keep each as it finishes, and write one Parquet row per cell "
        "with a JSON provenance sidecar (and the figure, if the file asks for one) into the folder "
        "RESULTS/NAME-DIGEST of these cells: run again, it reuses the cells stored there (or goes on "
        "where an interrupted run stopped) and replaces the table; --fresh runs every cell again "
        "into a new folder.",
    )
    parser.add_argument("file", help="experiment TOML file")
    add_execution_arguments(parser)
    add_fresh_argument(parser, "cells")
    parser.add_argument(
        "--out", type=Path, default=Path("results"), help="folder for results folders (default results/)"
    )
    add_json_argument(parser)
    parser.set_defaults(func=run)

    show = commands.add(
        "results",
        help="print a results table (Parquet) back, filtered or pivoted",
        description="Print the rows of a results table: a .parquet file, or a folder holding results "
        "folders (their tables are joined, with the folder's name as 'run').",
    )
    show.add_argument("path", type=Path, help="a .parquet file or a folder")
    show.add_argument(
        "--where",
        action="append",
        default=[],
        metavar="COLUMN=VALUE",
        help="keep rows whose COLUMN is VALUE (repeatable; all must hold)",
    )
    show.add_argument(
        "--columns",
        metavar="A,B,...",
        help="the columns to print (default: what identifies a row — label, trace, swept parameters — "
        "and the measures the experiment file names in 'metrics')",
    )
    show.add_argument(
        "--all",
        action="store_true",
        help="print every column (every counter and measure of every row) under the table's own names "
        "(by default the measures are named as smrlab sim names them, with their units; --csv and --json "
        "keep the table's names)",
    )
    show.add_argument(
        "--pivot",
        metavar="INDEX:COLUMNS:VALUES",
        help="one row per INDEX value, one column per COLUMNS value, cells from VALUES (e.g. trace:label:total_io_s)",
    )
    show.add_argument(
        "--timing",
        action="store_true",
        help="add what each cell cost, from the provenance beside each table: timing.wall_s and "
        "timing.cpu_s (seconds), timing.peak_rss_bytes, timing.worker, timing.wait_s (seconds from "
        "submission to start), timing.attempts and more; wall-clock, never part of the results",
    )
    add_json_argument(show)
    show.set_defaults(func=show_results)
