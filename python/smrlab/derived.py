"""Ratios derived from a run report's counters: write amplification, hit rates, I/O time in seconds.

Systems report monotonic counters (so warm-up can be subtracted); every ratio a paper reports is
computed here, in one table, from those counters. A ratio whose denominator is zero is omitted
rather than reported as 0 or infinity. Not here: presentation (``smrlab.tables``).
"""

from __future__ import annotations

NS_PER_S = 1e9

# (name, numerator counter, denominator counter, meaning)
RATIOS = [
    ("r_wa", "band_bytes_written", "buffer_bytes_evicted",
     "SMR write amplification: bytes written to bands / bytes evicted from the write buffer (PORE §V-B)"),
    ("read_hit_rate", "read_hits", "read_lookups", "cache read hits / cache read lookups (4 KiB blocks)"),
    ("write_hit_rate", "write_hits", "write_lookups", "cache write hits / cache write lookups (4 KiB blocks)"),
    ("bucket_write_hit_ratio", "bucket_write_hits", "bucket_writes", "uCache: bucket writes that found the bucket cached / bucket writes (Table III)"),
    ("gc_buckets_per_cycle", "gc_buckets", "gc_cycles", "uCache: cached buckets gathered per GC cycle (Fig. 8)"),
    ("pore_avg_open_zones", "pore_open_zones_total", "pore_periods", "PORE: average number of open zones per region division"),
]


def derive(report: dict) -> dict:
    """Seconds of I/O time and every ratio of ``RATIOS`` whose counters are present."""
    counters = report.get("counters", {})
    derived = {
        "total_io_s": report["total_io_ns"] / NS_PER_S,
        "read_io_s": report["read"]["io_ns"] / NS_PER_S,
        "write_io_s": report["write"]["io_ns"] / NS_PER_S,
        "makespan_s": report["makespan_ns"] / NS_PER_S,
        "channel_busy_s": {
            channel["channel"]: (channel["read_ns"] + channel["write_ns"]) / NS_PER_S
            for channel in report.get("channels", [])
        },
    }
    for name, numerator, denominator, _meaning in RATIOS:
        if numerator in counters and counters.get(denominator, 0) > 0:
            derived[name] = counters[numerator] / counters[denominator]
    derived.update(io_amplification(report))
    derived.update(gauge_summaries(report.get("gauge_series", {})))
    promote = next((c for c in report.get("channels", []) if c["channel"] == "promote"), None)
    if promote and counters.get("promotions", 0) > 0 and promote["read_ns"] + promote["write_ns"] > 0:
        # uCache Fig. 10: media time spent promoting, per promotion (by copy: read + write; by map
        # the promotion is the host write itself and has no time of its own).
        derived["mean_promotion_ms"] = (promote["read_ns"] + promote["write_ns"]) / counters["promotions"] / 1e6
    return derived


def io_amplification(report: dict) -> dict:
    """Media operations and bytes per host operation and byte (uCache Fig. 9), over all channels."""
    channels = report.get("channels", [])
    host_ops = sum(report[op]["requests"] for op in ("read", "write"))
    host_bytes = sum(report[op]["bytes"] for op in ("read", "write"))
    media_ops = sum(c["reads"] + c["writes"] for c in channels)
    media_bytes = sum(c["bytes_read"] + c["bytes_written"] for c in channels)
    if host_ops == 0 or host_bytes == 0:
        return {}
    return {
        "io_amplification_ops": media_ops / host_ops,
        "io_amplification_bytes": media_bytes / host_bytes,
        "seeks": sum(c["seeks"] for c in channels),
    }


def gauge_summaries(series: dict) -> dict:
    """Each sampled gauge's mean over trace time and its maximum (uCache Fig. 1: the mean live
    fraction of the E-region log). A sample's value stands for the trace time since the sample
    before it; if the trace has no time (all timestamps equal), samples weigh equally."""
    samples = series.get("samples", [])
    if not samples:
        return {}
    previous = [0] + [s["trace_ns"] for s in samples[:-1]]
    weights = [s["trace_ns"] - before for s, before in zip(samples, previous)]
    if sum(weights) <= 0:
        weights = [1] * len(samples)
    out = {}
    for i, name in enumerate(series["names"]):
        values = [s["values"][i] for s in samples]
        out[f"{name}_mean"] = sum(v * w for v, w in zip(values, weights)) / sum(weights)
        out[f"{name}_max"] = max(values)
    return out
