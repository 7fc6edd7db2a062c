"""The drive card: what ``smrlab probe`` found, as JSON (for tools and for ``smrlab sim
--preset-file``) and as text (for people). It holds the verdict with its evidence, each
estimate with its uncertainty or the reason it was not estimated, the fitted model (system and
parameters), the budget and what was spent, and the fio job files a real target was probed with.

Not here: how the numbers were found (``fit``).
"""

from __future__ import annotations

import json
from pathlib import Path

from smrlab.errors import UsageError

from .fit import Fit

FORMAT = "smrlab-drive-card/1"


def card(target: str, capacity: int, result: Fit, budget: dict, jobs: list[str]) -> dict:
    not_estimated = [f"{e.name}: {e.not_estimated}" for e in result.estimates if e.not_estimated]
    return {
        "format": FORMAT,
        "target": target,
        "capacity": capacity,
        "kind": result.kind,
        "evidence": result.evidence,
        "estimates": [e.as_json() for e in result.estimates],
        "not_estimated": not_estimated,
        "system": result.system,
        "params": result.params,
        "budget": budget,
        "jobs": jobs,
    }


def _quantity(estimate: dict) -> str:
    if "not_estimated" in estimate:
        return f"not estimated ({estimate['not_estimated']})"
    value, plus = estimate["value"], estimate["uncertainty"]
    if estimate["unit"] == "bytes":
        return f"{value / 2**20:,.2f} MiB ± {plus / 2**20:,.2f} MiB"
    if estimate["unit"] == "preset":
        return f"{value}"
    return f"{value:.3f} ± {plus:.3f} ({estimate['unit']})"


def text(data: dict) -> str:
    kinds = {"dm-smr": "drive-managed SMR", "conventional": "conventional", "undetermined": "undetermined"}
    lines = [f"drive card: {data['target']} ({data['capacity'] / 2**30:,.2f} GiB)", f"kind: {kinds[data['kind']]}"]
    lines += [f"  - {line}" for line in data["evidence"]]
    lines.append("estimates:")
    for estimate in data["estimates"]:
        lines.append(f"  {estimate['name']}: {_quantity(estimate)}")
        if estimate.get("how") and "not_estimated" not in estimate:
            lines.append(f"      {estimate['how']}")
    if data["system"]:
        params = " ".join(f"-p {k}={v}" for k, v in data["params"].items())
        lines.append(f"model: smrlab sim --system {data['system']} {params}".rstrip())
    else:
        lines.append("model: none fitted (the drive was not classified)")
    spent = data["budget"]
    lines.append(
        f"budget: {spent['written_bytes'] / 2**20:,.0f} of {spent['bytes'] / 2**20:,.0f} MiB written, "
        f"{spent['device_seconds']:,.1f} of {spent['seconds']:,.0f} s of device time"
        + (f"; stopped by {spent['stopped_by']}" if spent.get("stopped_by") else "")
    )
    if data["jobs"]:
        lines.append(f"fio job files: {len(data['jobs'])} (from {data['jobs'][0]})")
    return "\n".join(lines)


def card_params(path: str, system: str) -> list[str]:
    """The ``key=value`` parameters of the card at ``path`` for ``smrlab sim --system SYSTEM``."""
    try:
        data = json.loads(Path(path).read_text())
    except OSError as error:
        raise UsageError(f"{path}: cannot read the drive card ({error.strerror})") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        raise UsageError(f"{path}: not a drive card (not JSON: {error})") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT or not isinstance(data.get("params"), dict):
        raise UsageError(f"{path}: not a drive card written by smrlab probe (format {FORMAT})")
    if data.get("system") != system:
        fitted = data.get("system") or "no model (the drive was not classified)"
        raise UsageError(f"{path}: the card fits {fitted}, not --system {system}")
    return [f"{key}={value}" for key, value in data["params"].items()]
