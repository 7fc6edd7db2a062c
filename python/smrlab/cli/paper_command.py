"""A paper command as a declaration (``PaperCommand``): the experiment files whose line-up it runs,
the table it prints (``views.Table``) and where its trace comes from; ``register`` gives it its
options and ``run`` is the one body every such command shares.

The body runs the line-up of the declared files (their systems, each label once; the first
file's shared parameters, replay, measures and paper figure) on the user's trace with the user's
overrides (``--param`` over the file's parameters, the replay options over its replay, ``--only``
some of its labels), through the experiment runner (``--jobs``, ``--resume``, a results folder
with its Parquet table, each run's result as TRACE-LABEL.json beside it), prints the
declared table, then the claims the paper makes on those files that name no one trace, judged
on this run by the scorecard's code. Not here: the tables' columns (each command's declaration), the claims' rules
(``smrlab.reproduce``).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from smrlab import experiment, options, systems
from smrlab.cli import presets, views
from smrlab.cli.caches import add_output_arguments
from smrlab.cli.sim import add_engine_arguments, add_trace_arguments, engine_keywords
from smrlab.errors import UsageError
from smrlab.tables import note
from smrlab.trace import Trace


def trace_file(parser: argparse.ArgumentParser) -> Callable[[argparse.Namespace], Trace]:
    """The trace a command runs on by default: ``--trace FILE`` (with ``--format`` and its reader
    options), and ``--param`` for every run that declares it; returns how to open it."""
    add_trace_arguments(parser)
    options.add_params_argument(parser, "parameters for every run that declares them")
    return lambda args: Trace.open(args.trace, args.format, args.trace_option)


@dataclass(frozen=True)
class PaperCommand:
    """A paper command: ``name`` and ``help`` on the command line (``group`` the command group it
    is in, if any), the line-up of ``files`` (experiment files by name, or paths to TOML files),
    its ``table``, its default results folder ``out``, and ``traces``: adds the options that name
    its trace and returns how to open it (default ``trace_file``)."""

    name: str
    help: str
    files: tuple[str | Path, ...]
    table: views.Table
    out: str
    group: str = ""
    traces: Callable[[argparse.ArgumentParser], Callable[[argparse.Namespace], Trace]] = trace_file

    @property
    def title(self) -> str:
        """The command as typed (``hwsr compare``)."""
        return f"{self.group} {self.name}".strip()

    def register(self, commands) -> argparse.ArgumentParser:
        """Adds the command to ``commands`` (the top level or its group) with its options."""
        parser = commands.add(self.name, help=self.help)
        trace_of = self.traces(parser)
        add_engine_arguments(parser, self.files[0] if isinstance(self.files[0], str) else None)
        parser.add_argument(
            "--only", metavar="LABELS", help="comma-separated labels of the line-up to run (default all)"
        )
        add_output_arguments(parser, self.out, "folder for the JSON results and the line-up's results folder")
        parser.set_defaults(func=lambda args: run(self, args, trace_of))
        return parser


def run(command: PaperCommand, args: argparse.Namespace, trace_of: Callable[[argparse.Namespace], Trace]) -> int:
    """Runs ``command`` on the trace ``trace_of`` opens, with the user's options (the module's
    doc says how)."""
    first = presets.read(command.files[0])
    line_up = presets.line_up(*command.files)
    labels = [entry.label for entry in line_up]
    wanted = labels if args.only is None else args.only.split(",")
    unknown = [label for label in wanted if label not in labels]
    if unknown:
        raise UsageError(f"--only: {options.quoted(unknown[0])} is not a label of the line-up ({', '.join(labels)})")
    trace = trace_of(args)
    name = trace.name
    title = f"{command.title} on {name}"
    exp = experiment.Experiment(
        name=f"{command.title.replace(' ', '-')}-{name}",
        title=title,
        traces={name: trace},
        systems=[entry for entry in line_up if entry.label in wanted],
        params={**first.params, **systems.split(args.param)},
        seeds=[args.seed],
        engine={**first.engine, **engine_keywords(args)},  # the paper's replay unless told
        metrics=first.metrics,
        reproduces=first.reproduces,
    )
    out = Path(args.out)
    ran = presets.run(exp, args, out, name, title=title, unit="runs")
    command.table.print([(cell.label, result) for cell, result in ran], trace=trace.path.name if trace.path else name)
    paper = first.reproduces.get("paper")
    if paper:
        files = tuple(presets.read(file).name for file in command.files)
        views.print_claims(paper, files, ran, f"{paper} claims on {name}")
    note(f"results written to {out}/")
    return 0
