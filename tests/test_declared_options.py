"""Options that set a simulated system's parameter come from the core's declaration: the
default is the system's own (or the preset the command names), the choices are the declared
words, the help states the unit and the default, and a value the parameter's kind cannot take
is refused by the parser (exit 2, one line naming the option)."""

from __future__ import annotations

import argparse
import functools

import pytest
from smrlab import _core, systems
from smrlab.cli import build_parser
from smrlab.cli.caches import PRESET_MODE

# (command, system, {option's dest: parameter key} of the options that set one, the presets it
# uses in place of the system's)
CACHE = {key: key for key in ("mode", "cache", "zone", "period")}
DECLARED = [
    ("compare-caches", "cache", CACHE, {"mode": PRESET_MODE}),
    ("cache-sweep", "cache", {**CACHE, "policy": "policy", "scheme": "scheme"}, {"mode": PRESET_MODE}),
    ("ucache-sweep", "ucache", {"promote": "promote"}, {}),
]


@functools.cache
def parser() -> argparse.ArgumentParser:
    return build_parser()


def option(command: str, dest: str) -> argparse.Action:
    [sub] = [a for a in parser()._actions if isinstance(a, argparse._SubParsersAction)]
    [found] = [a for a in sub.choices[command]._actions if a.dest == dest]
    return found


@pytest.mark.parametrize("command, system, keys, presets", DECLARED)
def test_options_take_default_and_choices_from_the_declaration(command, system, keys, presets):
    for dest, key in keys.items():
        declared, action = systems.parameters(system)[key], option(command, dest)
        assert action.default == presets.get(key, declared.default), (command, key)
        listed = declared.choices if declared.kind == "choice" else None  # a policy may be the user's
        assert (tuple(action.choices) if action.choices else None) == listed, (command, key)
        assert f"default {action.default}" in action.help.replace("default here", "default")
        if not listed:
            assert declared.unit.replace("%", "%%") in action.help, (command, key)


def test_the_cache_mode_preset_differs_from_the_system_and_says_so():
    # The commands run the write-only cache unless told; the system's own default is rw: both shown.
    action = option("compare-caches", "mode")
    assert systems.parameters("cache")["mode"].default != PRESET_MODE
    assert f"cache's own default {systems.parameters('cache')['mode'].default}" in action.help


@pytest.mark.parametrize(
    "words, named",
    [
        (["--zone", "0"], "--zone"),
        (["--zone", "20XB"], "--zone"),
        (["--mode", "ro"], "--mode"),
        (["--policy", "arc"], "--policy"),
    ],
)
def test_a_value_the_kind_refuses_is_a_usage_error(words, named, capsys):
    with pytest.raises(SystemExit) as stop:
        build_parser().parse_args(["cache-sweep", "--trace", "t", "--vary", "zone", *words])
    assert stop.value.code == 2
    [line] = capsys.readouterr().err.strip().splitlines()
    assert named in line


def test_the_runner_limits_come_from_the_core():
    gauge = option("sim", "gauge_samples")
    assert gauge.type(str(_core.MAX_GAUGE_SAMPLES)) == _core.MAX_GAUGE_SAMPLES
    with pytest.raises(argparse.ArgumentTypeError):
        gauge.type(str(_core.MAX_GAUGE_SAMPLES + 1))
