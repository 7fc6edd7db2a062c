"""The model's fingerprint: a digest of the code a cell's numbers come from, which a cell's key
holds (``smrlab.experiment.cells``) so that a stored result is reused only by the code that
made it, and which the scorecard shows beside each claim.

- A simulation: the digest of each system it builds, itself and those it stacks over
  (``below``), as the build computed them from the Rust source (crates/smrlab-fingerprint:
  the crates the simulator is built from, the system's own folder, the locked versions of the
  external crates; comments, formatting and tests left out).
- A key-value cell: the store's digest (SMRDB, its workloads and what they build on), the
  source of the Python modules that drive the stores and lay a peer's file I/O on the disk
  model (``smrlab.experiment.kv``) and of the two the cells call to open SMRDB and run its
  workloads (``smrlab.kv``, ``smrlab.workload``), and the versions of the peers' Python bindings.

Not here: the cell's key itself, or which parameters it holds (``experiment.cells``).
"""

from __future__ import annotations

import functools
import hashlib
from importlib import metadata
from pathlib import Path

from smrlab import _core, systems

# The packages whose versions a key-value cell's numbers may depend on (the peers' bindings).
PEER_PACKAGES = ("plyvel", "rocksdict")
# The Python modules that run a key-value cell (``smrlab.experiment.kv``), found by path: importing
# the package here would import this module again through its cells.
KV_MODULES = Path(__file__).parent / "experiment" / "kv"
# The modules outside it whose code a key-value cell runs: opening SMRDB, running a workload.
KV_DRIVERS = (Path(__file__).parent / "kv.py", Path(__file__).parent / "workload.py")


@functools.cache
def built() -> tuple[dict[str, str], str, dict[str, str]]:
    """What the build computed: each system's digest (by name and alias), the key-value store's,
    and each part's (a crate, a system folder, a lock closure)."""
    return _core.model_fingerprints()


def _short(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def of_system(system: str, given: dict[str, str]) -> str:
    """The digest of the code that runs ``system`` with the parameters ``given``: its own and
    that of each system it stacks over. A name the core does not know has none of its own
    (the run fails anyway)."""
    digests = built()[0]
    return _short(" ".join(f"{name}={digests.get(name, 'unknown')}" for name in systems.stack(system, given)))


@functools.cache
def of_key_value() -> str:
    """The digest of the code a key-value cell's numbers come from."""
    parts = [f"core={built()[1]}"]
    for path in [*sorted(KV_MODULES.glob("*.py")), *KV_DRIVERS]:
        parts.append(f"{path.name}={hashlib.sha256(path.read_bytes()).hexdigest()}")
    for package in PEER_PACKAGES:
        try:
            parts.append(f"{package}={metadata.version(package)}")
        except metadata.PackageNotFoundError:
            parts.append(f"{package}=absent")
    return _short(" ".join(parts))
