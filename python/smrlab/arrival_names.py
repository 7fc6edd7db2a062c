"""The arrival processes' parameters under the names their users give them: the keywords of
``smrlab.workload.arrivals`` (``bias``, ``cycle_minutes``...), or a command line's options
(``--bias``, ``--cycle``), where the core declares and checks them under the SMRDB thesis's
Table 4.1 names (``ss.bias``, ``diurnal.cyclelength``...).

The core's message about a bad arrival parameter names its Table 4.1 key; ``named_as`` re-raises
it naming the parameter as the caller spelt it, with its unit and range from the core's
declaration (``_core.arrival_params()``), so ``--bias 1.5`` is answered about ``--bias``.
``check_required`` asks the core, before a run, whether a process lacks a parameter it needs.

Not here: the parameters' ranges and which process needs which (the core's ``arrival::PARAMS``
and ``ArrivalSpec``), running the processes (``smrlab.workload``).
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator, Mapping

from smrlab import _core
from smrlab.errors import ParameterError
from smrlab.options import quoted

# Each keyword of ``smrlab.workload.arrival_params`` and the Table 4.1 key it gives.
KEYWORDS = {
    "process": "arrivalgenerator",
    "rate": "target",
    "duration": "duration",
    "bias": "ss.bias",
    "resolution": "ss.resolution",
    "modulation": "diurnal.modulation",
    "cycle_minutes": "diurnal.cyclelength",
    "distribution": "diurnal.distribution",
    "shape": "diurnal.distribution.shape",
}
# The command-line option that gives each keyword, where a command takes them all
# (smrlab.cli.workload's arrival options).
OPTIONS = {
    "process": "--process",
    "rate": "--rate",
    "duration": "--duration",
    "bias": "--bias",
    "resolution": "--resolution",
    "modulation": "--modulation",
    "cycle_minutes": "--cycle",
    "distribution": "--distribution",
    "shape": "--shape",
}
# How the core words a bad parameter (smr-workload's WorkloadError::Parameter).
_CORE_MESSAGE = re.compile(r"invalid parameter (?P<key>\S+): (?P<problem>.*)", re.DOTALL)
# How the core says a process lacks a parameter it needs.
_REQUIRED = "is required by"


def declared() -> dict[str, tuple[str, str]]:
    """Each Table 4.1 key's unit and meaning, as the core declares them, without the kind the
    unit ends with (", a number") or the process the meaning starts with ("selfsimilar: ")."""
    described = {}
    for key, _default, unit, meaning, *_ in _core.arrival_params():
        described[key] = (unit.removesuffix(", a number"), re.sub(r"^[a-z ]+: ", "", meaning))
    return described


class ArrivalParameterError(ParameterError):
    """A bad arrival parameter, named as its caller gave it; ``key`` is its Table 4.1 name and
    ``problem`` what the core found wrong, for a caller that spells it otherwise."""

    def __init__(self, key: str, problem: str, spelt: Mapping[str, str]):
        keyword = next(word for word, k in KEYWORDS.items() if k == key)
        unit, meaning = declared()[key]
        super().__init__(_respelt(f"{spelt.get(keyword, keyword)} ({meaning}; {unit}): {problem}", spelt))
        self.key, self.problem = key, problem


def _respelt(text: str, spelt: Mapping[str, str]) -> str:
    """``text`` with each Table 4.1 key other than its keyword (``target``) named as spelt."""
    for keyword, key in KEYWORDS.items():
        if key != keyword:
            text = re.sub(rf"(?<![\w.-]){re.escape(key)}(?![\w.])", spelt.get(keyword, keyword), text)
    return text


def _about_arrivals(error: ParameterError) -> tuple[str, str] | None:
    """The Table 4.1 key and the problem of an error about an arrival parameter, else None."""
    if isinstance(error, ArrivalParameterError):
        return error.key, error.problem
    found = _CORE_MESSAGE.fullmatch(str(error))
    if found is None or found["key"] not in KEYWORDS.values():
        return None
    return found["key"], found["problem"]


@contextlib.contextmanager
def named_as(spelt: Mapping[str, str] | None = None) -> Iterator[None]:
    """Re-raises an error about an arrival parameter naming it as ``spelt`` maps its keyword
    (a command line's option), or else by its keyword, with its unit and range."""
    try:
        yield
    except ParameterError as error:
        about = _about_arrivals(error)
        if about is None:
            raise
        raise ArrivalParameterError(*about, spelt or {}) from None


def check_required(process: str, options: Mapping[str, object]) -> None:
    """Refuses, naming it by its keyword, a parameter ``process`` needs and ``options`` (the
    keywords given, None for not given) lacks: the core resolves the process's parameters at
    one arrival. Whatever else it may find wrong at that rate is left to the run, which has the
    real one."""
    pairs = [(KEYWORDS["process"], process), (KEYWORDS["rate"], "1"), (KEYWORDS["duration"], "1")]
    pairs += [(KEYWORDS[word], str(value)) for word, value in options.items() if value is not None]
    try:
        _core.arrival_schedule(pairs, 1)
    except ParameterError as error:
        about = _about_arrivals(error)
        if about is not None and about[1].startswith(_REQUIRED):
            raise ArrivalParameterError(about[0], f"needed by process {quoted(process)}, and not given", {}) from None
