"""Where an experiment's cells run: one after another in this process (``jobs=1``), in local
worker processes (the default: one per core), or on an existing Dask cluster
(``cluster="tcp://HOST:8786"``, workers with smrlab installed).

Every executor hands each finished cell to ``done(outcome)`` as it comes, in whatever order
cells finish; the caller orders rows by cell index, so the rows do not depend on where cells
ran. Traces go to a cluster by path when ``share_paths`` (workers see the same files) and are
otherwise shipped to the workers once each (files up to ``SHIP_MAX`` bytes). Ctrl-C stops the
local workers at once and cancels what a cluster has not finished. Not here: which cells to
run (``spec``) or what is kept of them (``store``).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import tempfile
from pathlib import Path
from typing import Callable, Iterable

from smrlab.errors import UsageError
from smrlab.experiment.cells import Cell, Outcome, run_cell
from smrlab.trace import Trace

# The largest trace file shipped to cluster workers instead of read from a shared path.
SHIP_MAX = 256 << 20


def default_jobs() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def execute(cells: list[tuple[Cell, str]], done: Callable[[Outcome], None], jobs: int | None = None,
            cluster: str | object | None = None, share_paths: bool = False, started: Callable[[int], None] | None = None) -> None:
    """Runs ``cells`` (each with its key); ``started(n)`` says how many run at once."""
    if not cells:
        return
    if cluster is not None:
        _on_dask(cells, done, cluster, share_paths, started)
        return
    jobs = default_jobs() if jobs is None else jobs
    if jobs < 1:
        raise UsageError(f"--jobs must be at least 1, got {jobs}")
    if jobs == 1 or len(cells) == 1:
        for cell, key in cells:
            if started:
                started(1)
            done(run_cell(cell, key))
        return
    _on_local_workers(cells, done, min(jobs, len(cells)), started)


def _ignore_interrupts() -> None:
    # The parent notices Ctrl-C and stops the workers; they must not print tracebacks of their own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_pair(pair: tuple[Cell, str]) -> Outcome:
    return run_cell(*pair)


@contextlib.contextmanager
def _caller_not_rerun():
    """While workers start, hides the file of a plain script that called us (``python
    script.py``: ``__main__`` has a ``__file__`` and no module spec), so that the spawned
    workers do not run it again as ``__mp_main__`` — which, without an ``if __name__ ==
    "__main__":`` guard, would start workers of their own without end. The workers need only
    smrlab's modules; a module run with ``-m`` and a notebook are started as they are."""
    main = sys.modules.get("__main__")
    path = getattr(main, "__file__", None)
    if main is None or path is None or getattr(main, "__spec__", None) is not None:
        yield
        return
    del main.__file__
    try:
        yield
    finally:
        main.__file__ = path


def _on_local_workers(cells, done, jobs, started) -> None:
    context = multiprocessing.get_context("spawn")
    with _caller_not_rerun():
        pool = context.Pool(jobs, initializer=_ignore_interrupts)
    try:
        if started:
            started(jobs)
        for outcome in pool.imap_unordered(_run_pair, cells):
            done(outcome)
        pool.close()
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()


def _shipped_file(name: str, checksum: str, data: bytes) -> str:
    """On a worker: the shipped trace written once into its temporary folder (named by its
    checksum, keeping the file name's suffixes for format detection)."""
    folder = Path(tempfile.gettempdir()) / "smrlab-traces"
    folder.mkdir(exist_ok=True)
    path = folder / f"{checksum.split(':')[-1][:16]}-{name}"
    if not path.exists():
        partial = path.with_name(f".{os.getpid()}-{path.name}")
        partial.write_bytes(data)
        os.replace(partial, path)
    return str(path)


def _run_shipped(cell: Cell, key: str, name: str, checksum: str, data: bytes | None) -> Outcome:
    if data is not None:
        cell.trace = Trace.open(_shipped_file(name, checksum, data), cell.trace.format, cell.trace.options)
    return run_cell(cell, key)


def _on_dask(cells, done, cluster, share_paths, started) -> None:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise UsageError("--cluster needs dask.distributed (pip install 'dask[distributed]')") from None
    try:
        client = cluster if isinstance(cluster, Client) else Client(cluster, timeout="20s")
    except (OSError, TimeoutError, ValueError) as error:
        raise UsageError(f"cannot reach the Dask cluster at {cluster}: {error}") from None
    try:
        shipped = {} if share_paths else _ship(client, (cell.trace for cell, _ in cells))
        futures = []
        for cell, key in cells:
            path = cell.trace.path
            name, checksum, data = (path.name, cell.trace.checksum(), shipped.get(path)) if path else (None, None, None)
            futures.append(client.submit(_run_shipped, cell, key, name, checksum, data, key=f"smrlab-{cell.index}-{key}", pure=False))
        if started:
            started(min(len(futures), max(1, len(client.scheduler_info().get("workers", {})))))
        try:
            for future in as_completed(futures):
                done(future.result())
        except BaseException:
            client.cancel(futures)
            raise
    finally:
        if client is not cluster:
            client.close()


def _ship(client, traces: Iterable[Trace]) -> dict:
    """Each small trace file's bytes, scattered to every worker once; larger files are read by
    path (the workers must share it)."""
    shipped = {}
    for trace in traces:
        path = trace.path
        if path is None or path in shipped:
            continue
        if path.stat().st_size <= SHIP_MAX:
            [shipped[path]] = client.scatter([path.read_bytes()], broadcast=True)
    return shipped
