"""An experiment built in code (``compare-caches``, ``smrlab.compare``) written back as the
experiment file that would make it, so its provenance sidecar carries a file that can be run
again and the report reads every run alike. Only the value types experiment files hold
(text, numbers, booleans, lists, tables of them). Not here: reading files (``spec``)."""

from __future__ import annotations

import json
from typing import Any


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {_value(v)}" for k, v in value.items()) + " }"
    return json.dumps(str(value))


def _table(header: str, values: dict[str, Any]) -> list[str]:
    return [header] + [f"{json.dumps(str(k))} = {_value(v)}" for k, v in values.items()] + [""] if values else []


def render(experiment) -> str:
    """TOML text that ``files.parse`` reads back into ``experiment`` (traces by path)."""
    lines = [
        f"name = {_value(experiment.name)}",
        f"title = {_value(experiment.title)}",
        f"description = {_value(experiment.description)}",
        f"metrics = {_value(experiment.metrics)}",
        f"seeds = {_value(experiment.seeds)}",
        "traces = "
        + _value(
            [
                {"name": name, "path": str(t.path.resolve()), "format": t.format, "options": list(t.options)}
                if t.format
                else {"name": name, "path": str(t.path.resolve()), "options": list(t.options)}
                for name, t in experiment.traces.items()
                if t.path is not None
            ]
        ),
        "",
    ]
    lines += _table("[reproduces]", experiment.reproduces)
    lines += _table("[engine]", experiment.engine)
    lines += _table("[params]", experiment.params)
    for run in experiment.systems:
        lines += ["[[systems]]", f"label = {_value(run.label)}", f"system = {_value(run.system)}"]
        lines += [f"params = {_value(run.params)}"] if run.params else []
        lines += [f"engine = {_value(run.engine)}"] if run.engine else []
        lines.append("")
    lines += _table("[figure]", experiment.figure)
    return "\n".join(lines)
