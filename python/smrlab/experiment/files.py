"""An experiment file of either kind, a line-up of simulated systems (``spec``) or a key-value
store experiment (``kind = "kv"``, ``kv.spec``): reading one by its kind, and the JSON Schema of
both that editors check a file against (``python -m smrlab.experiment.files >
docs/experiment.schema.json``). Here, above both kinds, so that neither imports the other.

Not here: what a file's keys are (``schema``, ``kv.schema``) or how each kind is read.
"""

from __future__ import annotations

from pathlib import Path

from smrlab.errors import UsageError
from smrlab.experiment import schema, spec
from smrlab.experiment.kv import schema as kv_schema
from smrlab.experiment.kv import spec as kv_spec


def parse(text: str, source: Path, with_traces: bool = True, quick: bool = False, trace_source=None, trace_seed=0):
    """The experiment in ``text`` (read from ``source``), of the kind the file names; without
    its traces (none opened or generated) when ``with_traces`` is false, to describe a stored
    run."""
    document = spec.read_toml(text, source)
    if document.get("kind") == "kv":
        return kv_spec.parse(document, source, quick)
    return spec.parse_document(document, source, with_traces, quick, trace_source, trace_seed)


def load(path: str | Path, quick: bool = False, trace_source=None, trace_seed: int = 0):
    """The experiment in the TOML file at ``path``; with ``quick``, its ``[quick]`` keys in place
    of its own. ``trace_source(scheme, name)`` may return a file to use for a generated trace
    (None: generate it); ``trace_seed`` generates the traces whose recipes take a seed with it."""
    source = Path(path)
    try:
        text = source.read_text()
    except FileNotFoundError:
        raise UsageError(f"{source}: no such experiment file") from None
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"{source}: cannot read it ({error})") from None
    return parse(text, source, quick=quick, trace_source=trace_source, trace_seed=trace_seed)


def json_schema() -> dict:
    """The JSON Schema (draft 2020-12) of an experiment file (TOML read as JSON); a file whose
    ``kind`` is ``"kv"`` is a key-value experiment (``smrlab.experiment.kv.schema``)."""
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "smrlab experiment file",
        "description": "One reproduced figure or table: traces x systems x parameters x seeds (experiments/*.toml).",
        "if": {"properties": {"kind": {"const": "kv"}}, "required": ["kind"]},
        "then": kv_schema.json_schema(),
        "else": schema.json_schema(),
    }


if __name__ == "__main__":
    import json

    print(json.dumps(json_schema(), indent=2))
