"""The papers' workload generators in the core (crates/smr-trace/src/paper/) against what made
their traces before: numpy's streams (``default_rng`` seeding, ``integers``, ``permutation``),
``spread`` and the four-phase arrays drawn by numpy itself; the synthesizer parameters of the
Table 3 and Table 1 rows and the SHA-256 of five generated traces, as main's Python made them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from smrlab import _core, fluid_traces, hwsr_traces
from smrlab.errors import UsageError

GOLDEN = Path(__file__).resolve().parent / "golden"
BLOCK = 4096

# SHA-256 of generated traces, recorded from main at commit 487a810 with the Python generators of
# that time (hwsr_traces.trace; fluid_traces.table1_trace, whose spread went through numpy and a
# CSV file; fluid_traces.four_phase_trace, numpy arrays written as MSR lines): the scorecard's
# cells and the tests rest on these files, so the core must make them byte for byte.
TRACE_SHA256 = {
    "financial1@20000": "5fe4de834909af85c84a063132a6c14ae4be9a176fddddc191265f3a1cfcf274",
    "mds0@20000": "a42cc30ef0a3362c2a08a3e2ca0ad5cd25a903292ccc257198070bb592f337a5",
    "hm_0@20000/spread": "f4c8e29211bad0e26cc9b2b73cf0f3b5feeabf53b3082e31292e1dc12ccea4b4",
    "hm_0@20000/front": "40608755b51dd539b09e2f9db088a5e87c7b67690d2073c10f85f2d06894816d",
    "four-phase@40000": "7a97000852b00a137a6c23cbccf026ec019b81709de1657d0f08619288c00df8",
}


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_generated_traces_are_the_ones_main_made(tmp_path):
    made = {
        "financial1@20000": hwsr_traces.trace("financial1", 20000, folder=tmp_path),
        "mds0@20000": hwsr_traces.trace("mds0", 20000, folder=tmp_path),
        "hm_0@20000/spread": fluid_traces.table1_trace("hm_0", 20000, folder=tmp_path),
        "hm_0@20000/front": fluid_traces.table1_trace("hm_0", 20000, folder=tmp_path, placement="front"),
        "four-phase@40000": fluid_traces.four_phase_trace(
            40000, *fluid_traces.four_phase_shape(40000), folder=tmp_path
        ),
    }
    assert {key: sha256(path) for key, path in made.items()} == TRACE_SHA256
    assert made["financial1@20000"].suffix == ".spc" and made["mds0@20000"].suffix == ".smrbin"


def test_the_recipes_spell_every_number_as_main_did():
    golden = json.loads((GOLDEN / "paper_recipes.json").read_text())
    for key, params in golden["hwsr_table3"].items():
        name, requests = key.split("@")
        assert hwsr_traces.recipe(name, None if requests == "None" else int(requests), seed=3)["synth"] == params, key
    for key, params in golden["fluid_table1"].items():
        name, rest = key.split("@")
        requests, placement = rest.split("/")
        paper = {
            "name": name,
            "requests": None if requests == "None" else int(requests),
            "seed": 5,
            "placement": placement,
        }
        assert fluid_traces.recipe({"fluid_table1": paper})["synth"] == params, key


# Ranges that take each of numpy's paths: a single value (no draw), 32-bit Lemire, the full
# 32-bit range (raw draws), 64-bit Lemire; interleaved so that the 32-bit draws' kept halves
# carry from one call to the next.
RANGES = [
    (0, 5, 7),
    (0, 1, 3),
    (-3, 10, 5),
    (0, 2**32, 4),
    (0, 2**32 - 1, 3),
    (0, 2**32 + 1, 3),
    (0, 360 * 10**12, 5),
    (7, 2**62, 3),
    (0, 3, 1),
    (0, 1541, 9),
]


@pytest.mark.parametrize("seed", [0, 1, 7, 12345, 2**32 + 5, 2**64 - 1])
def test_integers_are_numpys(seed):
    rng = np.random.default_rng(seed)
    expected = [rng.integers(low, high, size=count).tolist() for low, high, count in RANGES]
    assert _core.numpy_integers(seed, RANGES) == expected


@pytest.mark.parametrize("seed", [0, 3, 99, 2**40 + 1])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 100, 70_000])
def test_permutations_are_numpys(seed, n):
    assert _core.numpy_permutation(seed, n) == np.random.default_rng(seed).permutation(n).tolist()


spans = st.one_of(st.integers(1, 16), st.integers(1, 2**32 + 16), st.integers(1, 2**62))


@settings(max_examples=60, deadline=None)
@given(
    seed=st.integers(0, 2**64 - 1),
    draws=st.lists(st.tuples(st.integers(-(2**40), 2**40), spans, st.integers(0, 12)), max_size=5),
    n=st.integers(0, 300),
)
def test_any_seed_and_range_draw_as_numpy_does(seed, draws, n):
    ranges = [(low, low + span, count) for low, span, count in draws]
    rng = np.random.default_rng(seed)
    assert _core.numpy_integers(seed, ranges) == [
        rng.integers(low, high, size=count).tolist() for low, high, count in ranges
    ]
    assert _core.numpy_permutation(seed, n) == np.random.default_rng(seed).permutation(n).tolist()


def numpy_spread(offsets, lengths, chunk, end, seed):
    """FluidSMR's spread rule written with numpy, as its first version was."""
    chunk64, block = np.uint64(chunk), np.uint64(BLOCK)
    whole = end // chunk
    order = np.random.default_rng(seed).permutation(whole).astype(np.uint64)
    index = offsets // chunk64
    inside = index < whole
    moved = offsets.copy()
    moved[inside] = order[index[inside]] * chunk64 + offsets[inside] % chunk64
    beyond = moved + lengths > np.uint64(end)
    room = np.uint64(end) - np.minimum(lengths[beyond], np.uint64(end))
    moved[beyond] = moved[beyond] % np.maximum(room, block) // block * block
    if moved.size:
        top = int(np.argmax(moved + lengths))
        moved[top] = end - min(int(lengths[top]), end)
    return moved


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32), chunks=st.integers(1, 40), tail=st.integers(0, 7), data=st.data())
def test_spread_moves_requests_as_numpy_did(seed, chunks, tail, data):
    chunk = 8 * BLOCK
    end = chunks * chunk + tail * BLOCK
    count = data.draw(st.integers(1, 60))
    offsets = np.array(data.draw(st.lists(st.integers(0, 2 * end), min_size=count, max_size=count)), dtype=np.uint64)
    lengths = np.array(data.draw(st.lists(st.integers(1, 3 * BLOCK), min_size=count, max_size=count)), dtype=np.uint64)
    assert (
        fluid_traces.spread(offsets, lengths, chunk, end, seed) == numpy_spread(offsets, lengths, chunk, end, seed)
    ).all()


def numpy_four_phase(requests, zone, zones, hot_zones, hours, seed):
    """Fig. 16's workload drawn with numpy, as its first version was: (time ns, offset, length) rows."""
    rng = np.random.default_rng(seed)
    size = max(BLOCK, (64 * 1024 * zone // (256 << 20)) // BLOCK * BLOCK)
    hot_zones = min(hot_zones, zones)
    phase_ns = int(hours * 3600e9)
    rows = []
    for phase in range(4):
        count = requests // 4 + (1 if phase < requests % 4 else 0)
        ratio, width = (20 / 256, zones) if phase % 2 == 0 else (240 / 256, hot_zones)
        window = max(size, int(zone * ratio) // BLOCK * BLOCK)
        starts = rng.integers(0, (zone - window) // BLOCK + 1, size=width) * BLOCK
        picked = rng.integers(0, width, size=count)
        within = rng.integers(0, (window - size) // BLOCK + 1, size=count) * BLOCK
        times = np.sort(rng.integers(0, phase_ns, size=count)) + phase * phase_ns
        rows.append(np.stack([times, picked * zone + starts[picked] + within, np.full(count, size)], axis=1))
    return np.concatenate(rows).tolist()


@pytest.mark.parametrize(
    "requests, zone, zones, hot_zones, hours, seed",
    [
        (4000, 256 << 20, 4, 1, 100.0, 0),
        (1001, 64 << 20, 7, 3, 0.5, 11),
        (3, 4096, 5, 9, 0.001, 2),
        (2500, 8 << 20, 30, 6, 1.0, 2**33),
    ],
)
def test_the_four_phase_workload_is_numpys(requests, zone, zones, hot_zones, hours, seed):
    paper = {
        "four_phase": {
            "requests": requests,
            "zone": zone,
            "zones": zones,
            "hot_zones": hot_zones,
            "hours": hours,
            "seed": seed,
        }
    }
    assert [list(row) for row in _core.four_phase_writes(json.dumps(paper))] == numpy_four_phase(
        requests, zone, zones, hot_zones, hours, seed
    )


def test_refusals_keep_their_sentences():
    with pytest.raises(UsageError, match=r"^'nope' is not a Table 3 trace \(financial1, financial2, mds0,"):
        hwsr_traces.trace("nope")
    with pytest.raises(UsageError, match=r"^requests must be from 1 to 1,000,000,000, got 0$"):
        hwsr_traces.trace("mds0", 0)
    with pytest.raises(UsageError, match=r"^'hm0' is not a Table 1 trace of the FluidSMR paper \(hm_0, prn_1,"):
        fluid_traces.table1_trace("hm0")
    with pytest.raises(UsageError, match=r"^--requests must be from 1 to 1,000,000,000, got -5$"):
        fluid_traces.scale_of("hm_0", -5)
    with pytest.raises(
        UsageError,
        match=r"^the four-phase workload has from 1 to 10,000,000 requests \(its full size\), not 10,000,001$",
    ):
        fluid_traces.four_phase_trace(10_000_001)
    with pytest.raises(UsageError, match=r"^a phase lasts from 0.001 to 100000 hours, not 0.0001$"):
        fluid_traces.four_phase_trace(100, hours=0.0001)
    with pytest.raises(UsageError, match=r"^the zone size must be a positive multiple of 4 KiB$"):
        fluid_traces.four_phase_trace(100, zone=5000)
