"""One probe of one device from Python: the probes within a budget, then the fit. What the
command line runs, and what the tests call on simulated drives.

Not here: the card (``card``) or the checks of a real target (``target``).
"""

from __future__ import annotations

from . import fit, probes
from .drive import Budget, Device, Metered


def probe(
    device: Device, budget: Budget, seed: int = 0, idle_pause_s: float = 300.0, bands: int = 32, progress=None
) -> tuple[fit.Fit, Metered]:
    """The fit of ``device`` and what the probe spent (``Metered``: bytes, device time, what
    stopped it)."""
    drive = Metered(device, budget, progress)
    seen = probes.run_all(drive, seed, int(idle_pause_s * 1e9), bands)
    return fit.fit(seen, device.capacity, seed, drive.spent), drive
