"""Key-value experiments: cells whose system is a store (SMRDB with either compaction scheme,
LevelDB, RocksDB) and whose trace is a workload (db_bench-style phases, or YCSB's load and core
workloads), run by the experiment runner like simulation cells, one Parquet row each.

Modules: ``spec`` (the ``kind = "kv"`` file), ``cell`` (one cell, its settings and its row),
``stores`` (the stores behind one adapter), ``drive`` (a cell's phases in order), ``ycsb``
(YCSB's workloads, closed loop), ``capture`` and ``filelayout`` (a peer's file I/O, captured
with strace, laid on the disk model as a file system would).
"""
