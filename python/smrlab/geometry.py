"""The shingled disk's geometry — band sizes and PORE's zone — scaled with a trace that is a
sample of a larger one, and what a run says about the geometry it used.

A drive-managed SMR disk's write amplification depends on how many bands a trace's writes
spread over. The PORE paper's drive has bands of 17-36 MB (§V-A) under traces of millions of
requests; a sample of 100,000 requests of such a trace spans a few bands only, and its
figures then say more about those few bands than about the scheme. ``--geometry-scale F``
(``sim``, ``trace smr-estimate``, ``compare-caches``, ``cache-sweep``, ``demo``) multiplies the
band sizes (and a given PORE zone) by F, the sample's share of the original's requests, so the
sample keeps the original's ratio of band size to write buffer and cache (which are shares of
the trace already). Every run on a banded disk says which bands it had and why, and warns when
its footprint spans fewer than ``FEW_BANDS``.

Not here: the disk itself (``crates/smr-sim/src/dmsmr``).
"""

from __future__ import annotations

import math

from smrlab import _core, systems
from smrlab.errors import UsageError

# Below this many bands over its footprint a run's figures are dominated by the few bands it
# touches (one band's cleaning is then a few percent of all of them).
FEW_BANDS = 50
# The sizes --geometry-scale multiplies: band sizes at dmsmr's defaults unless given, a fixed
# band size and PORE's zone only when given (the write buffer and the cache are shares).
SCALED = ("band_min", "band_max", "band_size", "zone")


def defaults() -> dict[str, str | None]:
    band = systems.defaults("dmsmr")
    return {"band_min": band["band_min"], "band_max": band["band_max"], "band_size": None, "zone": None}


def scale(params: list[str], factor: float, accepted: set[str] | None = None) -> list[str]:
    """``params`` (``KEY=VALUE``) with band and zone sizes multiplied by ``factor`` — only those
    a system reads, when ``accepted`` (its keys, ``systems.accepted``) is given."""
    if factor == 1:
        return params
    if not (math.isfinite(factor) and factor > 0):
        raise UsageError(f"--geometry-scale must be a positive number, got {factor}")
    given = dict(p.split("=", 1) for p in params if "=" in p)
    sizes = {key: given.get(key, default) for key, default in defaults().items()}
    if "band_size" in given:
        sizes["band_min"] = sizes["band_max"] = None
    if accepted is not None:
        sizes = {key: value for key, value in sizes.items() if key in accepted}
    scaled = [
        f"{key}={max(4096, round(_core.parse_size(value) * factor))}"
        for key, value in sizes.items()
        if value is not None
    ]
    return [p for p in params if p.split("=", 1)[0] not in sizes] + scaled


def why(factor: float, given: list[str]) -> str:
    """Where the band sizes came from."""
    if factor != 1:
        return f"scaled by {factor:g} (--geometry-scale)"
    if any(p.split("=", 1)[0] in ("band_min", "band_max", "band_size") for p in given):
        return "as given"
    return "the PORE paper's drive (§V-A), unscaled"


def notes(result: dict, factor: float, given: list[str]) -> list[str]:
    """What a run's geometry was and why, and a warning when its footprint spans fewer than
    ``FEW_BANDS`` bands; nothing for a system without bands."""
    params = result["config"]["params"]
    band = {
        key.rsplit(".", 1)[-1]: value
        for key, value in params.items()
        if key.rsplit(".", 1)[-1] in ("band_min", "band_max", "band_size")
    }
    bands = dict(result["report"]["gauges"]).get("bands")
    if not band or bands is None:
        return []
    return describe(band, bands, "over the trace's footprint", factor, given)


def describe(band: dict[str, str], bands: float, over: str, factor: float, given: list[str]) -> list[str]:
    """The lines that say which bands (``band``: band_min, band_max or band_size) a run had
    and why, ``bands`` of them ``over`` its range, and warn when they are few."""
    shown = {key: f"{int(value):,} bytes" if str(value).isdigit() else str(value) for key, value in band.items()}
    fixed = band.get("band_size") not in (None, "", "none")
    sizes = shown["band_size"] if fixed else f"{shown.get('band_min')} to {shown.get('band_max')}"
    lines = [f"geometry: bands of {sizes} ({why(factor, given)}); {bands:,.0f} bands {over}"]
    if bands < FEW_BANDS:
        lines.append(
            f"geometry: only {bands:,.0f} bands: the figures are dominated by the few bands the trace touches. For a sample "
            "of a larger trace, scale the bands with it: --geometry-scale F, F = the sample's requests / the original's "
            "(the bundled samples are 100,000 requests: wdev 0.0377 of its 2,654,824)"
        )
    return lines
