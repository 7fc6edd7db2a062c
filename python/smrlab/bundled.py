"""What smrlab ships as package data, each found in one place: the experiment files
(``smrlab/experiments``, which the repository's ``experiments/`` links to), and the sample traces
(``smrlab/data``, which the repository's ``data/`` links to; made by ``smrlab trace synth``, see
data/README.md), found by name whatever their format suffix; and the generated traces — the
full-size PORE traces, too large to bundle, and the other papers' table traces — made on first
use into smrlab's cache folder (``smrlab.cache``: ``$SMRLAB_CACHE``, else the platform's user
cache folder), never into the checkout or the installed package."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from pathlib import Path

from smrlab import _core, cache, outputs, provenance, recipes
from smrlab.errors import UsageError
from smrlab.options import quoted
from smrlab.tables import note

PACKAGE_DIR = Path(__file__).resolve().parent
DATA_DIR = PACKAGE_DIR / "data"


def experiments_root() -> Path:
    """The folder holding ``experiments/`` (a file per reproduced figure, ``experiments/NAME.toml``,
    and a claims file per paper, ``experiments/claims/PAPER.toml``): the package itself, which
    ships them as package data, so an installed wheel runs its line-ups as a checkout does."""
    return PACKAGE_DIR


def traces_folder(folder: str | Path | None = None) -> Path:
    """``folder``, or the generated traces' folder in the cache (made if missing)."""
    return cache.folder("traces") if folder is None else Path(folder)


# The four MSR-like traces the PORE paper evaluates in detail (§V-C).
DEMO_TRACES = ("wdev", "mds", "ts", "usr")


def table1_requests(name: str) -> int:
    """The requests PORE's Table I gives trace ``name``."""
    requests = {preset[0]: preset[1] for preset in _core.synth_presets()}
    if name not in requests:
        raise UsageError(f"{quoted(name)} is not a Table I preset ({', '.join(requests)})")
    return requests[name]


def bundled_trace(name: str, data_dir: Path = DATA_DIR) -> Path:
    """The bundled trace called ``name`` (``wdev`` finds ``data/wdev.csv.gz`` etc.)."""
    if not name.replace("-", "").replace("_", "").isalnum() or not name.isascii():
        raise UsageError(f"{quoted(name)} is not a bundled trace's name (letters, digits, '-' and '_')")
    matches = sorted(p for p in Path(data_dir).glob(f"{name}.*") if p.is_file() and p.suffix != ".md")
    if not matches:
        raise UsageError(f"{data_dir}: no bundled trace named {quoted(name)} (expected a file NAME.* there)")
    return matches[0]


# The full-size PORE traces: each Table I preset at its full request count, with the structure the
# paper's own numbers imply (data/README.md, "Full-size PORE traces"). The written range (Table I:
# the capacity of the touched bands) is a core where hot and cold writes land, and a sparse area
# that a few writes touch a block at a time; cold writes reach a window of the core at a time.
FULL_SPARSE_SHARE = 0.75  # of the written range
FULL_SPARSE_FRACTION = 0.02  # of the writes
FULL_COLD_WINDOW = 0.1  # of the core


def full_size_params(name: str, requests: int | None = None, seed: int = 0) -> list[str]:
    """Synthesizer parameters of the full-size PORE trace of Table I preset ``name``; with
    ``requests``, the same trace scaled to that many requests, its ranges by the same factor
    (band and zone sizes then scale by it too: ``geometry``); ``seed``: another draw of the same
    recipe."""
    presets = {preset[0]: preset for preset in _core.synth_presets()}
    if name not in presets:
        raise UsageError(f"{quoted(name)} is not a Table I preset ({', '.join(presets)})")
    _, full, _, written_gb, accessed_gb = presets[name]
    if requests is not None and not 0 < requests <= full:
        raise UsageError(f"{name}@{requests}: a scaled PORE trace has 1 to {full:,} requests")
    scale = 1.0 if requests is None else requests / full
    core = written_gb * (1 - FULL_SPARSE_SHARE)
    # Scaled after the sums the full-size trace was made with, so that it stays bit for bit.
    accessed = (core + accessed_gb - written_gb) * scale
    core *= scale
    return [
        f"preset={name}",
        f"seed={seed}",
        *([f"requests={requests}"] if requests is not None else []),
        f"cold_window={FULL_COLD_WINDOW}",
        f"sparse_fraction={FULL_SPARSE_FRACTION}",
        f"written_range={round(core * 1e9)}",
        f"accessed_range={round(accessed * 1e9)}",
        f"sparse_range={round(written_gb * FULL_SPARSE_SHARE * scale * 1e9)}",
    ]


# Bytes of one request in smrlab's binary trace format.
SMRBIN_RECORD = 24


def generated_trace(
    recipe: dict, stem: str, folder: Path | None, make: Callable[[Path], None], needed: int = 0, suffix: str = "smrbin"
) -> Path:
    """A generated trace (by default in smrlab's binary format), made by ``make(path)`` into
    ``folder`` (default: the cache's, ``traces_folder``) on first use, under a name that carries
    a digest of ``recipe``, so a changed recipe never reuses an old file. Refused before it
    starts when the folder's file system has less than ``needed`` bytes free."""
    digest = hashlib.sha256(json.dumps(recipe, sort_keys=True).encode()).hexdigest()[:12]
    folder = traces_folder(folder)
    path = folder / f"{stem}-{digest}.{suffix}"
    if _intact(path):
        return path
    # Two commands (or two workers of one sweep) that need the same trace at once: the first
    # makes it, the second waits for it rather than making it again beside it.
    with outputs.held_lock(path):
        if not _intact(path):
            if path.exists():
                note(f"{path}: not the generated trace as it was made (cut short, changed, or older); making it again")
            outputs.check_room(folder, needed, f"the generated trace {stem}")
            with outputs.output_file(path) as temporary:
                make(temporary)
            outputs.write_text(_checksum_path(path), provenance.trace_checksum(path) + "\n")
    return path


def _checksum_path(path: Path) -> Path:
    """Where the checksum of generated trace ``path`` is kept, as it was made."""
    return path.with_name(path.name + ".sha256")


def _intact(path: Path) -> bool:
    """Whether the generated trace ``path`` is there with the checksum it had when it was made
    (a file cut short, changed, or made before checksums were kept is not)."""
    try:
        kept = _checksum_path(path).read_text().strip()
        return path.is_file() and provenance.trace_checksum(path) == kept
    except OSError:
        return False


def full_size_trace(
    name: str, folder: Path | None = None, writes_only: bool = False, requests: int | None = None, seed: int = 0
) -> Path:
    """The full-size PORE trace of preset ``name`` (or it scaled to ``requests``:
    ``full_size_params``; ``seed``: another draw of it) in smrlab's binary format, generated on
    first use (``generated_trace``). ``writes_only`` drops the reads, as the paper does for its
    write-only cache experiments (§V-C2)."""
    pipeline = {"synth": full_size_params(name, requests, seed), "writes_only": writes_only}
    stem = f"{name}-{'full' if requests is None else requests}{'-writes' if writes_only else ''}"
    stem += f"-seed{seed}" if seed else ""
    requests = requests or table1_requests(name)
    return generated_trace(
        pipeline,
        stem,
        folder,
        lambda path: _core.trace_write(json.dumps(pipeline), str(path), None),
        needed=requests * SMRBIN_RECORD,
    )


recipes.register(
    "bundled",
    lambda name, requests, seed: bundled_trace(name),
    source="smrlab's bundled traces",
    scalable=False,
    seeded=False,
)
recipes.register(
    "pore-full",
    lambda name, requests, seed: full_size_trace(name, requests=requests, seed=seed),
    source="PORE's Table I",
    paper_requests=table1_requests,
)
recipes.register(
    "pore-full-writes",
    lambda name, requests, seed: full_size_trace(name, writes_only=True, requests=requests, seed=seed),
    source="PORE's Table I",
    paper_requests=table1_requests,
)
