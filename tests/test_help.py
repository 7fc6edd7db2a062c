"""``--help`` says what the command does: the defaults it states are the ones it uses (a replay
not asked for is each system's own, or a paper command's experiment file's), every option
has a line, no developer's notes, ``sim --system NAME --help`` only that system's parameters,
and the ``kv`` summary every ``kv`` command."""

from __future__ import annotations

import argparse
import json
import re

import pytest
from smrlab import _core, systems
from smrlab.cli import build_parser


def parsers(parser=None, path=("smrlab",)):
    """Every (command path, parser) of the command line."""
    parser = parser or build_parser()
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from parsers(sub, (*path, name))


def options(parser):
    return [
        a
        for a in parser._actions
        if a.option_strings
        and a.help != argparse.SUPPRESS
        and not isinstance(a, (argparse._HelpAction, argparse._VersionAction))
    ]


@pytest.mark.parametrize(
    "command, said",
    [
        (("sim",), "the system's own"),
        (("hwsr", "compare"), "experiments/hwsr-fig15-19.toml"),
        (("hwsr-sweep",), "experiments/hwsr-fig20.toml"),
        (("compare-caches",), "the system's own"),
        (("fluid-sweep", "schemes"), "the system's own"),
    ],
)
def test_the_replay_default_shown_is_the_one_used(command, said):
    found = dict(parsers())[("smrlab", *command)]
    [replay] = [a for a in found._actions if "--replay" in a.option_strings]
    assert replay.default is None, "a replay not asked for is the system's, or the experiment file's"
    # Compared without white space: the help wraps lines at spaces and after hyphens.
    assert f"(default:{said}".replace(" ", "") in "".join(found.format_help().split())


def test_each_system_is_replayed_as_its_declaration_says():
    declared = systems.replays()
    assert {name for name, replay in declared.items() if replay != "closed"} == {"hwsr", "sblock"}
    for name, replay in declared.items():
        assert json.loads(_core.resolve_engine(name, "{}"))["mode"]["kind"] == replay


def test_every_default_a_help_states_is_the_default():
    # A number stated as the default is the option's default; so is a choice named as it (an
    # option left None is decided further on, by the core or the store).
    wrong = []
    for path, parser in parsers():
        for action in options(parser):
            for stated in re.findall(r"\(default:? ([^);,]+)", action.help or ""):
                word = stated.split(" ")[0]
                number = word.replace(",", "").replace("_", "")
                if (
                    isinstance(action.default, (int, float))
                    and not isinstance(action.default, bool)
                    and re.fullmatch(r"[0-9.]+", number)
                ):
                    ok = float(number) == float(action.default)
                elif action.choices and word in action.choices and action.default is not None:
                    ok = word == action.default
                else:
                    continue
                if not ok:
                    wrong.append((" ".join(path), action.option_strings[0], stated, action.default))
    assert not wrong, wrong


def test_every_option_says_what_it_does():
    missing = [
        (" ".join(path), a.option_strings[0])
        for path, parser in parsers()
        for a in options(parser)
        if not (a.help or "").strip()
    ]
    assert not missing, missing


def test_no_help_carries_notes_for_developers():
    for path, parser in parsers():
        text = parser.format_help()
        assert "``" not in text and "Not here" not in text and "crates/" not in text, " ".join(path)


def sim_help(capsys, *words: str) -> str:
    """What ``smrlab sim WORDS`` prints (in this process: a help is argparse alone)."""
    with pytest.raises(SystemExit):
        build_parser().parse_args(["sim", *words])
    return capsys.readouterr().out


def test_sim_help_for_one_system_lists_only_its_parameters(capsys):
    every = sim_help(capsys, "--help", "--all")
    fluid = sim_help(capsys, "--system", "fluid", "--help")
    after = sim_help(capsys, "--help", "--system", "fluid")
    assert fluid == after and len(fluid.splitlines()) < len(every.splitlines()) // 2
    assert "  fluid: " in fluid and "  dmsmr: " not in fluid and "  dmsmr: " in every
    assert "scheme [" in fluid and "--iolog-max-io" in fluid
    alias = sim_help(capsys, "--help", "--system", "pore")
    assert "  cache: " in alias and "zone [" in alias and "  fluid: " not in alias


def test_sim_help_is_short_and_says_how_to_see_more(cli, capsys):
    short = cli("sim", "--help").stdout
    every = sim_help(capsys, "--help", "--all")
    assert len(short.splitlines()) <= 60 < len(every.splitlines()), (len(short.splitlines()), len(every.splitlines()))
    for option in ("--system", "--trace", "--param", "--geometry-scale", "--replay", "--seed", "--json"):
        assert option in short, option
    assert "--iolog-max-io" not in short and "--iolog-max-io" in every
    for name, _summary, params in _core.systems():
        assert f"  {name}: " in short, name
        assert f"{params[0][0]} [" not in short and f"{params[0][0]} [" in every, name
    said = " ".join(short.split())
    assert "smrlab sim --help --system NAME" in said and "smrlab sim --help --all" in said


def test_the_kv_summary_names_every_kv_command():
    parser = build_parser()
    [top] = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    [kv_help] = [c.help for c in top._choices_actions if c.dest == "kv"]
    [kv_commands] = [a for a in top.choices["kv"]._actions if isinstance(a, argparse._SubParsersAction)]
    assert list(kv_commands.choices) == re.findall(r"[a-z]+", kv_help.split(":", 1)[1])
    assert {"delete", "ycsb", "serve"} <= set(kv_commands.choices)


def test_kv_serve_takes_the_store_as_every_kv_command_does():
    parser = build_parser()
    assert parser.parse_args(["kv", "serve", "mystore"]).store == "mystore"
    assert parser.parse_args(["kv", "get", "mystore", "k"]).store == "mystore"
