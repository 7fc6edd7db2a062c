"""The keys of a claims file (experiments/claims/PAPER.toml), declared once: for each table of the
file, every key it may hold, what its value is (a JSON Schema fragment) and what it means.
``claims`` reads files by these tables, and ``json_schema()`` builds from them the schema
published as ``docs/claims.schema.json`` (``python -m smrlab.reproduce.claims_schema``), which
editors use to check a file as it is typed (tests/test_reproduce_rules.py keeps the two equal).

A new key is one entry here and its reading in ``claims``. Not here: what a key's value must
mean beyond its type (``claims``), judging (``verdict``).
"""

from __future__ import annotations

from smrlab.experiment.schema import _object

TEXT = {"type": "string"}
NUMBER = {"type": "number"}
POSITIVE = {"type": "number", "exclusiveMinimum": 0}
NAMES = {"type": "array", "items": TEXT}
VALUE = {"type": ["string", "number", "boolean"]}
# A selector: a label, or a table of COLUMN = VALUE where a list of values is a subset of an axis.
SELECTOR = {
    "anyOf": [
        TEXT,
        {
            "type": "object",
            "minProperties": 1,
            "additionalProperties": {"anyOf": [VALUE, {"type": "array", "items": VALUE, "minItems": 1}]},
        },
    ]
}

KINDS = ("value", "ratio", "order", "trend", "not-run")
# How a claim's points (a trace, and a value of each axis its cells leave free) make one verdict.
PER = ("every", "each", "all", "mean", "median", "geomean", "max", "min")
DIRECTIONS = ("increasing", "decreasing", "valley", "peak")
EXPECT = ("below 1", "above 1")
# The paper's side of a value or ratio claim: exactly one of these.
TARGETS = ("paper_value", "range", "above", "below", "at_least", "at_most", "expect")

CLAIM = {
    "id": (
        {"type": "string", "pattern": "^[a-z0-9][a-z0-9-]{0,99}$"},
        "unique in the file: up to 100 lowercase letters, digits and '-'",
    ),
    "where": (TEXT, "the section, figure or table"),
    "quote": (TEXT, "the paper's sentence, as printed"),
    "claim": (TEXT, "what the claim says, short, in our words"),
    "kind": ({"enum": list(KINDS)}, "value (one cell), ratio (of / over), order, trend, or not-run"),
    "experiment": (TEXT, "the experiment file whose cells give our value (experiments/NAME.toml)"),
    "metric": (TEXT, "the column of the results compared (a measure the systems report)"),
    "of": (SELECTOR, "the cells: a label, or {label = ..., trace = ..., GRID-KEY = value or [values]}"),
    "over": (SELECTOR, "a ratio's denominator cells"),
    "paper_value": (POSITIVE, "the paper's number; holds within 'within' of it (never across 1 for a ratio)"),
    "within": (
        {"type": "number", "exclusiveMinimum": 1},
        "the tolerance factor around paper_value (default 2; above 1, finite)",
    ),
    "range": (
        {"type": "array", "items": NUMBER, "minItems": 2, "maxItems": 2},
        "[low, high]: the paper's range; each point must lie in it",
    ),
    "above": (NUMBER, "'more than X': ours > X"),
    "below": (NUMBER, "'less than X': ours < X"),
    "at_least": (NUMBER, "'X or more' (e.g. an order of magnitude: 10): ours >= X"),
    "at_most": (NUMBER, "'at most X': ours <= X"),
    "expect": ({"enum": list(EXPECT)}, "a ratio on this side of 1 (the same as below = 1 or above = 1)"),
    "per": (
        {"enum": list(PER)},
        "how its points (traces, and values of the axes its cells leave free) combine: every (each, all: "
        "the claim holds on every point), or the mean, median, geomean, max or min of their values",
    ),
    "share": (
        {"type": "array", "items": {"type": "integer", "minimum": 1}, "minItems": 2, "maxItems": 2},
        "[N, M]: the paper's 'N of M': holds on at least that share of the points (rounded to a whole point)",
    ),
    "traces": (NAMES, "the paper's trace set: every one must be run, or the claim is not run"),
    "floor": (
        {"type": "number", "minimum": 0, "exclusiveMaximum": 1},
        "the noise floor on a fixed trace: a relative difference below it is a tie (default 0.01)",
    ),
    "order": (
        {"type": "array", "minItems": 2, "items": {"anyOf": [SELECTOR, {"type": "array", "items": SELECTOR}]}},
        "ascending cells; a list inside is a tier whose order is free",
    ),
    "x": (TEXT, "a trend: the grid parameter it runs along"),
    "direction": ({"enum": list(DIRECTIONS)}, "a trend: increasing, decreasing, valley or peak"),
    "at": (VALUE, "a valley or peak: where its extreme must be"),
    "full_only": ({"type": "boolean"}, "a quick run does not judge it (it needs the full-size traces)"),
    "general": (
        {"type": "boolean"},
        "it names no one trace (an order, a direction, a trend): also judged on a user's traces "
        "(smrlab reproduce --traces DIR --general)",
    ),
    "reason": (
        TEXT,
        "why ours parts from the paper: the measured cause, with its doc anchor (docs/X.md#anchor); "
        "required for not-run",
    ),
    "note": (TEXT, "anything a reader needs beside the verdict"),
}

OPEN_CHOICE = {
    "param": (TEXT, "a parameter the paper leaves open"),
    "values": (
        {"type": "array", "items": VALUE, "minItems": 2, "maxItems": 4},
        "two to four values, each re-run in the sensitivity table",
    ),
    "experiments": ({**NAMES, "minItems": 1}, "the experiments re-run at each value"),
}

CALIBRATION = {
    "what": (TEXT, "what was chosen, and to which value"),
    "params": ({**NAMES, "minItems": 1}, "the parameters (of a system or a trace recipe) it set"),
    "numbers": ({"type": "integer", "minimum": 1}, "how many numbers were fitted (default: one per parameter)"),
    "fitted_on": (NAMES, "the traces whose results were in view: points on them are in-sample"),
    "experiments": (NAMES, "the experiments whose generated traces carry it (default: every one of the paper)"),
    "claims": (NAMES, "claims whose own number was in view (a target): in-sample on every trace"),
    "reason": (TEXT, "how it was chosen, with its doc anchor"),
}

GENERAL = {
    "scaled": (NAMES, "the geometry parameters multiplied by F for a user's trace"),
    "by": (
        {"enum": ["requests", "written_bytes", "accessed_bytes", "max_end"]},
        "the measure of the trace F is taken from: F = min(1, the trace's / reference)",
    ),
    "reference": (POSITIVE, "that measure of the paper's own trace (say which, and where)"),
}

TOP = {
    "paper": (TEXT, "the paper: a key of smrlab.citations.PAPERS, and the file's own name"),
    "doc": (TEXT, "the page that says where and why the results part from the paper"),
    "claim": ({"type": "array", "minItems": 1, "items": None}, "the claims ([[claim]])"),
    "open_choice": ({"type": "array", "items": None}, "values the paper leaves open ([[open_choice]])"),
    "calibration": (
        {"type": "array", "items": None},
        "every parameter chosen with a result in view ([[calibration]])",
    ),
    "general": ({"type": "object"}, "how a user's trace gets the paper's geometry (smrlab reproduce --general)"),
}


def json_schema() -> dict:
    """The JSON Schema (draft 2020-12) of a claims file read as JSON."""
    top = _object(TOP, ("paper", "claim"))
    items = {
        "claim": _object(CLAIM, ("id", "where", "quote", "claim", "kind")),
        "open_choice": _object(OPEN_CHOICE, ("param", "values", "experiments")),
        "calibration": _object(CALIBRATION, ("what", "params", "reason")),
    }
    for key, item in items.items():
        top["properties"][key]["items"] = item
    top["properties"]["general"] = {
        **_object(GENERAL, ("scaled", "by", "reference")),
        "description": TOP["general"][1],
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "smrlab claims file",
        "description": "A paper's claims, each with the experiment cells and the rule that judge it "
        "(experiments/claims/PAPER.toml).",
        **top,
    }


if __name__ == "__main__":
    import json

    print(json.dumps(json_schema(), indent=2))
