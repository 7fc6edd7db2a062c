"""A paper command as a declaration (``PaperCommand``): the experiment files whose line-up it runs,
the table it prints (``views.Table``, ``views.Grid`` over two of the runs' values, several
``views.Tables``, or a command's own table object with the same ``show``), where its trace comes
from (or its ``Traces``, each with parameters of its own), and what it lacks of the files: the
parameters it sweeps (``Sweep``, an option listing values, by default a file's; a ``Choice``
of one), options made from declared parameters (``Declared``) or of its own, its own line-up or
shared parameters made from its options; ``register`` gives it its options and ``run`` is the
one body every such command shares (``execute`` its run alone, for ``smrlab demo``).

The body runs the line-up of the declared files (their systems, each label once; the first
file's shared parameters, replay, measures and paper figure) on the user's traces with the user's
overrides (``--param`` over the file's parameters, the swept values over both, the replay
options over its replay, ``--only`` some of its labels), through the experiment runner
(``--jobs``, ``--resume``, a results folder with its Parquet table, each run's result as
TRACE-LABEL.json beside it), prints the declared table, then the claims the paper makes on
those files that name no one trace, judged on this run by the scorecard's code. Not here: the
tables' columns (each command's declaration), the claims' rules (``smrlab.reproduce``).
"""

from __future__ import annotations

import argparse
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from smrlab import options, systems
from smrlab.cli import presets, views
from smrlab.cli.declared import add_declared
from smrlab.cli.experiments import add_fresh_argument
from smrlab.cli.sim import add_engine_arguments, add_trace_arguments, engine_keywords
from smrlab.errors import UsageError
from smrlab.experiment.spec import SystemRun, takes
from smrlab.tables import add_json_argument, note
from smrlab.trace import Trace


def trace_file(
    parser: argparse.ArgumentParser, params_help: str = "parameters for every run that declares them"
) -> Callable[[argparse.Namespace], Trace]:
    """The trace a command runs on by default: ``--trace FILE`` (with ``--format`` and its reader
    options), and ``--param`` for every run that declares it (``params_help`` its help); returns
    how to open it."""
    add_trace_arguments(parser)
    options.add_params_argument(parser, params_help)
    return lambda args: Trace.open(args.trace, args.format, args.trace_option)


@dataclass(frozen=True)
class Traces:
    """The traces a command runs on, by the names its tables give them, with the parameters
    each brings (``params``: a zone size scaled with a generated trace), over the files' and
    under the user's."""

    traces: dict[str, Trace]
    params: dict[str, dict[str, str]] = field(default_factory=dict)


def add_run_arguments(parser: argparse.ArgumentParser) -> None:
    """Where a line-up's runs go (``smrlab run``'s options)."""
    parser.add_argument(
        "--jobs",
        "-j",
        type=options.count,
        default=None,
        metavar="N",
        help="local worker processes (default: one per core; 1: run in this process)",
    )
    add_fresh_argument(parser, "runs")


def add_output_arguments(parser: argparse.ArgumentParser, out: str, out_help: str) -> None:
    """Where a paper command's results go and how they are printed: ``--out`` (default ``out``,
    meaning ``out_help``), ``smrlab run``'s options and ``--json``."""
    parser.add_argument("--out", default=out, help=out_help)
    add_run_arguments(parser)
    add_json_argument(parser)


def split_values(text: str) -> list[str]:
    """Comma-separated values, as written."""
    return text.split(",")


@dataclass(frozen=True)
class Sweep:
    """A parameter a paper command sweeps: ``option`` lists its values (read by ``type`` into a
    list, explained by ``help``), the default being the values of ``key`` in experiment ``file``
    (each read by ``from_file`` into the form the user writes); ``to_param`` makes a user's value
    the parameter's. It goes to ``system``'s own parameters, or with none to every run that
    declares it."""

    key: str
    option: str
    help: str
    file: str | Path
    type: Callable[[str], list] = split_values
    system: str | None = None
    to_param: Callable[[object], str] = str
    from_file: Callable[[str], object] = str

    @property
    def dest(self) -> str:
        return self.option.lstrip("-").replace("-", "_")

    def default(self) -> list:
        """The file's values, as the user writes them."""
        return [self.from_file(value) for value in presets.axis(self.file, self.key)]

    def values(self, args: argparse.Namespace) -> list:
        """The values the user gave, or the file's."""
        given = getattr(args, self.dest)
        return given if given is not None else self.default()


@dataclass(frozen=True)
class Choice:
    """An option (``option``, required, ``help``) choosing the one parameter a command sweeps:
    each choice a ``Sweep`` whose option is the one they share (``values``, ``values_help``).
    The chosen sweep's file leads the command's files: its replay, measures, paper figure,
    figure and claims are the run's."""

    option: str
    help: str
    sweeps: dict[str, Sweep]
    values: str
    values_help: str

    @property
    def dest(self) -> str:
        return self.option.lstrip("-").replace("-", "_")


@dataclass(frozen=True)
class Declared:
    """An option made from a system's declared parameter (``cli.declared.add_declared``), its
    value going to that system's own parameters; ``preset`` the command's default in place of
    the declaration's, ``meaning`` its help's opening."""

    system: str
    key: str
    preset: str | None = None
    meaning: str | None = None


@dataclass(frozen=True)
class PaperCommand:
    """A paper command: ``name`` and ``help`` on the command line (``group`` the command group it
    is in, if any), the line-up of ``files`` (experiment files by name, or paths to TOML files;
    or a function of the options giving them), its ``table`` (``views.Shows``: a ``views.Table``,
    a ``views.Grid`` or one of the command's own), its default results folder ``out``, and
    ``traces``: adds the options that name its trace and returns how to open it (a ``Trace``,
    or ``Traces``; default ``trace_file``).

    Optional: the parameters it ``sweeps`` (and the ``choice`` of one more), the options it
    makes from declared parameters (``declared``), its line-up made from its options
    (``systems``, in place of the files'), the shared parameters of its runs made from its
    options (``params``; default the first file's), the experiment file whose iodepth is the
    replay's default (``iodepth_file``), whether its results folder gets the first file's figure
    (``draws``), which runs of the line-up a trace calls for (``select``: given the options, the
    trace, its name and the line-up), the title of its claims (``claims``, a template like the
    table's; None: none printed), what it writes or says after its table (``after``: given
    the runs, the results folder and the fields the table's title is formatted with: the
    options, ``trace`` and ``name``), the options of its own its functions read
    (``options``: adds them to its parser) and the runs each file's claims are judged on
    (``judged_on``: by file name, the values of the runs, as a table's ``where``; default all)."""

    name: str
    help: str
    files: tuple[str | Path, ...] | Callable[[argparse.Namespace], tuple[str | Path, ...]]
    table: views.Shows
    out: str
    group: str = ""
    traces: Callable[[argparse.ArgumentParser], Callable[[argparse.Namespace], Trace | Traces]] = trace_file
    sweeps: tuple[Sweep, ...] = ()
    choice: Choice | None = None
    declared: tuple[Declared, ...] = ()
    systems: Callable[[argparse.Namespace], list[SystemRun]] | None = None
    params: Callable[[argparse.Namespace], dict] | None = None
    iodepth_file: str | None = None
    draws: bool = False
    select: Callable[[argparse.Namespace, Trace, str, list[SystemRun]], list[SystemRun]] | None = None
    claims: str | None = "{paper} claims on {name}"
    after: Callable[[list[views.Ran], Path, dict], None] | None = None
    options: Callable[[argparse.ArgumentParser], None] | None = None
    judged_on: dict[str, dict[str, str]] = field(default_factory=dict)

    @property
    def title(self) -> str:
        """The command as typed (``hwsr compare``)."""
        return f"{self.group} {self.name}".strip()

    def register(self, commands) -> argparse.ArgumentParser:
        """Adds the command to ``commands`` (the top level or its group) with its options; its
        --help says what its first file runs, where the command names the file."""
        named = (
            self.files[0] if isinstance(self.files, tuple) and self.files and isinstance(self.files[0], str) else None
        )
        first = presets.read(named) if named else None
        said = self.help + (
            "\n\n" + textwrap.fill(f"Its experiment file, experiments/{named}.toml: {first.description}", 100)
            if first and first.description
            else ""
        )
        parser = commands.add(self.name, help=self.help, description=said)
        trace_of = self.traces(parser)
        for sweep in self.sweeps:
            parser.add_argument(sweep.option, type=sweep.type, default=None, help=sweep.help)
        if self.choice:
            parser.add_argument(
                self.choice.option, choices=sorted(self.choice.sweeps), required=True, help=self.choice.help
            )
            parser.add_argument(self.choice.values, type=split_values, default=None, help=self.choice.values_help)
        for option in self.declared:
            add_declared(parser, option.system, option.key, preset=option.preset, meaning=option.meaning)
        if self.options:
            self.options(parser)
        iodepth = presets.read(self.iodepth_file).engine.get("iodepth", 1) if self.iodepth_file else 1
        # The replay --replay's help names: the first file's, where it declares one.
        replay = named if first and "mode" in first.engine else None
        add_engine_arguments(parser, replay, iodepth=iodepth)
        parser.add_argument(
            "--only", metavar="LABELS", help="comma-separated labels of the line-up to run (default all)"
        )
        add_output_arguments(parser, self.out, "folder for the JSON results and the line-up's results folder")
        parser.set_defaults(func=lambda args: run(self, args, trace_of))
        return parser

    def swept(self, args: argparse.Namespace) -> tuple[Sweep, ...]:
        """The parameters the command sweeps, the chosen one last."""
        return self.sweeps + ((self.choice.sweeps[getattr(args, self.choice.dest)],) if self.choice else ())

    def files_of(self, args: argparse.Namespace) -> tuple[str | Path, ...]:
        """The command's experiment files, the chosen sweep's first."""
        files = self.files(args) if callable(self.files) else self.files
        return ((self.choice.sweeps[getattr(args, self.choice.dest)].file,) if self.choice else ()) + files

    def whole_line_up(self, args: argparse.Namespace) -> list[SystemRun]:
        """The files' systems, or those the options build."""
        return self.systems(args) if self.systems else presets.line_up(*self.files_of(args))

    def line_up(self, args: argparse.Namespace) -> list[SystemRun]:
        """The files' systems, or those the options build (those ``--only`` names), with the
        declared options then the swept values in the own parameters of the system each belongs
        to, and each system's own replay settings at least the user's."""
        line_up = self.whole_line_up(args)
        labels = [entry.label for entry in line_up]
        only = getattr(args, "only", None)
        wanted = labels if only is None else only.split(",")
        unknown = [label for label in wanted if label not in labels]
        if unknown:
            raise UsageError(
                f"--only: {options.quoted(unknown[0])} is not a label of the line-up ({', '.join(labels)})"
            )
        own: dict[str, dict] = {}
        for option in self.declared:
            own.setdefault(option.system, {})[option.key] = getattr(args, option.key)
        for sweep in self.swept(args):
            if sweep.system:
                own.setdefault(sweep.system, {})[sweep.key] = [sweep.to_param(v) for v in sweep.values(args)]
        return [
            SystemRun(
                entry.label,
                entry.system,
                {**entry.params, **own.get(entry.system, {})},
                {key: at_least(value, getattr(args, key, None)) for key, value in entry.engine.items()},
            )
            for entry in line_up
            if entry.label in wanted
        ]

    def shared_params(self, args: argparse.Namespace, line_up: list[SystemRun], first) -> dict:
        """The runs' shared parameters: the first file's, or those the command makes from its
        options (``params``), each only where a run of ``line_up`` reads it (a cache's size
        when only disks without a cache run says nothing)."""
        if self.params is None:
            return first.params
        made = self.params(args)
        return {key: value for key, value in made.items() if any(takes(r.system, key, made) for r in line_up)}


def at_least(value, given):
    """A replay setting raised to the one ``given`` where both are numbers (a run's own to the
    user's, the user's to the file's)."""
    numbers = all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (value, given))
    return max(value, given) if numbers else value


def run(
    command: PaperCommand, args: argparse.Namespace, trace_of: Callable[[argparse.Namespace], Trace | Traces]
) -> int:
    """Runs ``command`` on the traces ``trace_of`` opens, with the user's options, and prints what
    it declares (the module's doc says how)."""
    runs, traces = execute(command, args, lambda: trace_of(args))
    if isinstance(traces, Trace):
        fields = {**vars(args), "trace": traces.path.name if traces.path else traces.name, "name": traces.name}
    else:
        fields = {**vars(args), "trace": ", ".join(traces.traces), "name": ", ".join(traces.traces)}
    command.table.show(runs, **fields)
    paper = presets.read(command.files_of(args)[0]).reproduces.get("paper")
    if paper and command.claims:
        names = tuple(presets.read(file).name for file in command.files_of(args))
        names += tuple(dict.fromkeys(presets.read(sweep.file).name for sweep in command.swept(args)))
        # Each file's claims on the runs they are judged on (all, unless ``judged_on`` says).
        judged: dict[tuple, list[str]] = {}
        for name in dict.fromkeys(names):
            judged.setdefault(tuple(command.judged_on.get(name, {}).items()), []).append(name)
        for where, group in judged.items():
            on = [run for run in runs if run.matches(dict(where))]
            views.print_claims(paper, tuple(group), on, command.claims.format(paper=paper, **fields))
    if command.after:
        command.after(runs, Path(args.out), fields)
    note(f"results written to {args.out}/")
    return 0


def execute(
    command: PaperCommand,
    args: argparse.Namespace,
    open_trace: Callable[[], Trace | Traces],
    name: str | None = None,
) -> tuple[list[views.Ran], Trace | Traces]:
    """Runs ``command``'s line-up on the trace ``open_trace`` opens (named ``name``, default the
    trace's own name), or on its ``Traces``, with the user's options, as one experiment into
    ``args.out``; returns the runs as the command's table reads them, and what was opened."""
    files = command.files_of(args)
    first = presets.read(files[0])
    line_up = command.line_up(args)
    opened = open_trace()
    if isinstance(opened, Trace):
        name = name or opened.name
        traces = Traces({name: opened})
    else:
        # Several traces are named together, up to three (the name names the results folder).
        traces, name = opened, "-".join(opened.traces) if len(opened.traces) <= 3 else f"{len(opened.traces)}-traces"
    if command.select:
        line_up = command.select(args, next(iter(traces.traces.values())), name, line_up)
    swept = command.swept(args)
    given = systems.split(args.param)
    shared = {sweep.key: [sweep.to_param(v) for v in sweep.values(args)] for sweep in swept if not sweep.system}
    title = f"{command.title} on {name}"
    user_replay = engine_keywords(args)
    # A part of the line-up may not report every measure the file names or draws: then the
    # results name none and draw no figure (a trace with no writes runs only the plain disks).
    whole = len(line_up) == len(command.whole_line_up(args))
    exp = presets.TraceParams(
        name=f"{command.title.replace(' ', '-')}-{name}",
        title=title,
        traces=traces.traces,
        systems=line_up,
        params={**command.shared_params(args, line_up, first), **given, **shared},
        seeds=[args.seed],
        # The paper's replay unless told; the user's numbers at least the file's (its figure's samples).
        engine={**first.engine, **{key: at_least(value, first.engine.get(key)) for key, value in user_replay.items()}},
        metrics=first.metrics if whole else [],
        # A figure drawn as smrlab run draws the file's, with the paper's numbers its claims give.
        reproduces={**first.reproduces, "claims": first.name} if command.draws else first.reproduces,
        figure=first.figure if command.draws and whole else {},
        of_trace=traces.params,
        kept=frozenset({*given, *shared}),
    )
    ran = presets.run(exp, args, Path(args.out), name, title=title, unit="runs")
    shown = {sweep.key: {sweep.to_param(value): value for value in sweep.values(args)} for sweep in swept}
    runs = [
        views.Ran(
            cell.label,
            {key: values[cell.given[key]] for key, values in shown.items() if key in cell.given},
            result,
            cell.trace_name,
            cell.given,
        )
        for cell, result in ran
    ]
    return runs, opened
