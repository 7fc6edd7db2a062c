"""The ``smrlab`` command line: one argparse tree, each command group in its own module.

A command module defines ``register(commands)`` and adds its subcommands with
``commands.add(name, help)`` (top level) or ``commands.group("trace").add(...)``; each
subcommand's ``func`` is called with the parsed arguments and returns an exit code. User errors
(``SmrlabError``) become one line on stderr and exit code 2; so do argparse's usage errors
(``OneLineParser``). Ctrl-C stops any command with one line and exit code 130 (output files are
written through ``smrlab.outputs``, which removes a partial one).
"""

from __future__ import annotations

import argparse
import importlib
import re
import sys

from smrlab import __version__, tables
from smrlab.errors import PolicyError, SmrlabError
from smrlab.startup import INTERRUPTED, raise_on_ctrl_c

# The longest usage error printed: argparse quotes a bad value whole (e.g. an unknown choice).
MESSAGE_MAX = 300

# Command modules, in the order ``smrlab --help`` lists them.
COMMAND_MODULES = [
    "smrlab.cli.sim",
    "smrlab.cli.caches",
    "smrlab.cli.ucache",
    "smrlab.cli.hwsr",
    "smrlab.cli.fluid",
    "smrlab.cli.trace",
    "smrlab.cli.synth",
    "smrlab.cli.estimate",
    "smrlab.cli.locality",
    "smrlab.cli.kv",
    "smrlab.cli.workload",
    "smrlab.cli.demo",
    "smrlab.cli.experiments",
    "smrlab.cli.reproduce",
    "smrlab.cli.report",
    "smrlab.cli.probe",
]


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line (no usage block), with the user's text
    cut short and non-printable characters escaped. It keeps the words it was given
    (``words``), so an action can look at the whole command line (``sim --system X --help``)."""

    def parse_known_args(self, args=None, namespace=None):
        self.words = list(sys.argv[1:] if args is None else args)
        return super().parse_known_args(args, namespace)

    def error(self, message: str):
        message = "".join(c if c.isprintable() else "?" for c in message)
        if len(message) > MESSAGE_MAX:
            message = message[:MESSAGE_MAX] + "..."
        self.exit(2, f"{self.prog}: error: {message} (see --help)\n")


def for_users(text: str) -> str:
    """A command's description as its --help shows it: a module's documentation without its
    reST quotes (````name````) and without what is written for the project's developers (a
    paragraph's sentences from "Not here:" on)."""
    text = re.sub(r"``([^`]*)``", r"\1", text)
    return re.sub(r"\s*Not here:[^\n]*(\n(?!\s*\n)[^\n]*)*", "", text).strip() + "\n"


class CommandGroup:
    """A level of subcommands (the top level, or a group such as ``trace``)."""

    def __init__(self, subparsers: argparse._SubParsersAction, registry: dict):
        self._subparsers = subparsers
        self._groups = registry
        self.names: list[str] = []

    def add(
        self, name: str, help: str, description: str | None = None, add_help: bool = True
    ) -> argparse.ArgumentParser:
        self.names.append(name)
        return self._subparsers.add_parser(
            name,
            help=help,
            description=for_users(description or help),
            formatter_class=argparse.RawDescriptionHelpFormatter,
            add_help=add_help,
        )

    def summarise(self, name: str, what: str) -> None:
        """Sets the one-line help of group ``name`` to ``what`` followed by its subcommands, in
        the order they were added (so the summary never omits one)."""
        group = self._groups[name]
        for choice in self._subparsers._choices_actions:
            if choice.dest == name:
                choice.help = f"{what}: {', '.join(group.names)}"

    def group(self, name: str, help: str = "") -> CommandGroup:
        if name not in self._groups:
            parser = self.add(name, help or f"{name} commands")
            sub = parser.add_subparsers(dest=f"{name}_command", metavar="COMMAND", required=True)
            self._groups[name] = CommandGroup(sub, {})
        return self._groups[name]


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="smrlab",
        description=(
            "smrlab replays block traces through SMR management schemes and reports I/O time, "
            "latency, hit rates and write amplification. Sizes accept B/KB/MB/GB (powers of 1000) "
            "and KiB/MiB/GiB (powers of 1024); times are reported in seconds unless a column says otherwise."
        ),
    )
    parser.add_argument("--version", action="version", version=f"smrlab {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    top = CommandGroup(sub, {})
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(top)
    return parser


def extra_params(tokens: list[str], parser: argparse.ArgumentParser) -> list[str]:
    """Turns leftover ``--key value`` / ``--key=value`` tokens into ``key=value`` parameters
    (dashes in keys become underscores), for commands that pass them on to a system."""
    params, index = [], 0
    while index < len(tokens):
        token = tokens[index]
        if not token.startswith("--") or len(token) == 2:
            parser.error(f"unrecognized argument: {token}")
        key, eq, value = token[2:].partition("=")
        if not eq:
            if index + 1 >= len(tokens) or tokens[index + 1].startswith("--"):
                parser.error(f"option --{key} needs a value")
            value = tokens[index + 1]
            index += 1
        params.append(f"{key.replace('-', '_')}={value}")
        index += 1
    return params


def main(argv: list[str] | None = None) -> int:
    try:
        return run_command(argv)
    except KeyboardInterrupt as interrupt:
        # A Python policy stopped by Ctrl-C says where it was.
        print(f"\nsmrlab: interrupted{f': {interrupt}' if str(interrupt) else ''}", file=sys.stderr)
        return INTERRUPTED


def run_command(argv: list[str] | None) -> int:
    """Parses ``argv`` and runs its command; user errors become one line and exit code 2."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra:
        if not getattr(args, "extra_params", False):
            parser.error(f"unrecognized arguments: {' '.join(extra)}")
        args.param = list(args.param) + extra_params(extra, parser)
    if getattr(args, "tables_json", False) and getattr(args, "tables_csv", False):
        parser.error("--json and --csv: give one")
    if getattr(args, "tables_json", False):
        tables.gather_json()
    if getattr(args, "tables_csv", False):
        tables.gather_csv()
    raise_on_ctrl_c()
    try:
        code = int(args.func(args) or 0)
        tables.flush()
        return code
    except SmrlabError as error:
        print(f"smrlab: error: {error}", file=sys.stderr)
        if isinstance(error, PolicyError):  # the user's own code: its traceback is theirs to read
            from smrlab import policy  # here, not at the top: inspect alone costs 6 ms of each start

            print(policy.user_traceback(error), end="", file=sys.stderr)
        return 2
    except argparse.ArgumentTypeError as error:
        print(f"smrlab: error: {error}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
