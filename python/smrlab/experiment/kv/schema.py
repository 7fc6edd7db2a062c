"""The keys of a key-value experiment file (``kind = "kv"``), declared once as the simulation
files' are in ``smrlab.experiment.schema``: ``spec`` reads files by these tables, and the
published JSON Schema takes a file whose ``kind`` is ``"kv"`` by them.

Not here: reading a file (``spec``) or what a store does with its parameters (``stores``).
"""

from __future__ import annotations

from smrlab.experiment.schema import PARAMS, REPRODUCES, TEXT, _file_keys, _object, figure_keys

WHOLE = {"type": "integer", "minimum": 1}
STEP = {
    "name": (TEXT, "the step's name: its metrics are NAME_ops_per_s, NAME_p99_ms, NAME_unissued"),
    "workload": (
        {"enum": ["insert", "a", "b", "c", "d", "e", "f"]},
        "insert (1 KB random inserts) or a YCSB core workload",
    ),
    "process": ({"enum": ["constant", "poisson", "selfsimilar", "diurnal"]}, "the arrival process"),
    "rate": ({"type": "number", "exclusiveMinimum": 0}, "arrivals per second"),
    "duration": (
        {"type": "number", "exclusiveMinimum": 0},
        "seconds of arrivals (or count); the step stops issuing after three times it",
    ),
    "count": (
        WHOLE,
        "operations to issue, all of them, however long they take (or duration): a measuring point after a "
        "number of operations, as db_bench's",
    ),
}
# Every key of a step but how long it runs, which is a duration or a count.
STEP_REQUIRED = ["name", "workload", "process", "rate"]
TRACE = {
    "name": (TEXT, "the workload's name in the results"),
    "phases": (
        {
            "type": "array",
            "minItems": 1,
            "items": {"enum": ["fillseq", "fillrandom", "overwrite", "readrandom", "readseq"]},
        },
        "db_bench-style phases, in order on one store",
    ),
    "count": (WHOLE, "phases: operations per phase, and the key space"),
    "value_size": (WHOLE, "bytes of each value"),
    "ycsb": (
        {"type": "array", "minItems": 1, "items": {"enum": ["load", "a", "b", "c", "d", "e", "f"]}},
        "YCSB's load and core workloads, in order on one store",
    ),
    "records": (WHOLE, "ycsb: records the load inserts"),
    "operations": (WHOLE, "ycsb: operations per workload"),
    "steps": (
        {
            "type": "array",
            "minItems": 1,
            "items": {
                **_object(STEP, required=STEP_REQUIRED),
                "oneOf": [{"required": ["duration"]}, {"required": ["count"]}],
            },
        },
        "arrival-driven YCSB steps in order on one smrdb-offload store, paced in real time",
    ),
}
SYSTEM = {
    "label": (TEXT, "its name in the results (default: the store's); unique in the file"),
    "system": ({"enum": ["smrdb-soc", "smrdb-loc", "leveldb", "rocksdb", "smrdb-offload"]}, "the store"),
    "params": (PARAMS, "this store's own parameters; a list is a grid axis of its own"),
}
# The keys a [quick] table may replace.
QUICK = ("traces", "params", "seeds", "systems", "description")


def top_keys() -> dict[str, tuple[dict, str]]:
    shared = _file_keys()
    keys = {
        "kind": ({"const": "kv"}, "kv: stores and workloads instead of simulated systems and block traces"),
        **{k: shared[k] for k in ("name", "title", "description", "seeds", "metrics")},
        "traces": (
            {"type": "array", "minItems": 1, "items": _object(TRACE)},
            "the workloads: phases, ycsb or steps, with their sizes",
        ),
        "reproduces": (_object(REPRODUCES), "the paper figure or table it reproduces"),
        "params": (
            PARAMS,
            "parameters for every store that takes them (setting, threads, sync, band_size, ...); a list is a grid axis",
        ),
        "systems": ({"type": "array", "minItems": 1, "items": _object(SYSTEM, required=["system"])}, "the stores"),
        "figure": (_object(figure_keys()), "the figure drawn from the results"),
    }
    keys["quick"] = (
        _object({k: keys[k] for k in QUICK}),
        "keys that replace the file's own in a quick run: smaller workloads",
    )
    return keys


def json_schema() -> dict:
    """The schema of a key-value experiment file."""
    return _object(top_keys(), required=["kind", "name", "traces", "systems"])
