"""The sample traces bundled in the repository's ``data/`` folder (made by ``smrlab trace synth``;
see data/README.md), found by name whatever their format suffix."""

from __future__ import annotations

from pathlib import Path

from smrlab import _core
from smrlab.errors import UsageError

REPO_ROOT = Path(__file__).resolve().parents[2]
DATA_DIR = REPO_ROOT / "data"

# The four MSR-like traces the PORE paper evaluates in detail (§V-C).
DEMO_TRACES = ("wdev", "mds", "ts", "usr")

# Requests in each bundled preset sample (data/make-samples.sh).
SAMPLE_REQUESTS = 100_000


def sample_scale(name: str) -> float:
    """How much the bundled sample of Table I preset ``name`` is scaled down from the original
    trace (its requests over the original's), by which band and zone sizes scale with it."""
    requests = {preset[0]: preset[1] for preset in _core.synth_presets()}
    if name not in requests:
        raise UsageError(f"'{name}' is not a Table I preset ({', '.join(requests)})")
    return SAMPLE_REQUESTS / requests[name]


def bundled_trace(name: str, data_dir: Path = DATA_DIR) -> Path:
    """The bundled trace called ``name`` (``wdev`` finds ``data/wdev.csv.gz`` etc.)."""
    matches = sorted(p for p in Path(data_dir).glob(f"{name}.*") if p.is_file() and p.suffix != ".md")
    if not matches:
        raise UsageError(f"{data_dir}: no bundled trace named '{name}' (expected a file {name}.*)")
    return matches[0]
