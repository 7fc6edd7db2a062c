"""An experiment's cells on a Dask cluster: any cluster a scheduler address reaches (a
LocalCluster, dask-ssh, dask-jobqueue on SLURM: docs/cluster.md), whose workers have smrlab
installed.

The parent hands out the cells itself, as workers can start them: each cell goes, in the
longest-first order, to the worker with the fewest cells per thread, bound to it, and a worker
is handed at most one cell more than it has threads (``pending.LOOKAHEAD``); so the order
holds, no long cell waits in a worker's queue behind many others, a worker starts its next
cell without waiting for the parent, and results stream back as cells finish. Dask carries the
cells, the traces and the outcomes.

A trace travels to a worker at most once, and leaves the parent at most once in a run: a
worker keeps each trace it receives in its cache folder (``smrlab.cache``, ``shipped``) under
the trace's checksum, where its later cells and later runs find it (the parent asks each
worker what it holds when it first sees it); a trace no worker holds is scattered to the
first worker that needs it, and a worker that needs it after that fetches it from one that
has it in memory (Dask moves a cell's inputs between workers), so the parent sends each
trace's bytes once however many workers run its cells; the bytes are dropped from the
workers' memory once the trace's last cell is done. The traces a round of cells needs are
sent one after another, each cell handed out as soon as its trace is sent (so the first cells
start after one trace's transfer, not after the round's), straight to their workers (a
scatter through the scheduler takes the bytes twice and, with the scheduler in the parent's
process, its time), or through the scheduler where the workers cannot be reached from here.
With ``share_paths`` (every worker sees the parent's files at the same paths) no trace
travels at all.

The scheduler is reached, and every worker it has greeted (``greet``: the worker loads what
running a cell needs, and says which traces it holds), in a background thread (``Connecting``)
begun before the parent loads and plans the experiment: importing dask.distributed alone takes
the parent about a second, and a fresh worker loads smrlab in half of one, none of which then
stands between the start of the run and its first cell.

A worker that leaves the cluster while running cells (it died, or its job ended) is noticed
within ``POLL_SECONDS``; each cell it was running is retried once on another worker, then
recorded as failed, and those only waiting there go back as they were (``pending``); a cell
that finished there but whose outcome had not come back yet runs again, and so does a cell
whose trace was in memory only there (the trace is sent again). A worker that stops
answering (frozen, or cut off) is one the scheduler removes once it has missed its
heartbeats for ``distributed.scheduler.worker-ttl`` (Dask's setting, on the scheduler): then
it has left. A scheduler that dies, or stops answering for longer than the client waits to
reconnect (``CONNECT_SECONDS``), ends the run with ``ClusterLost``; the cells that finished
were stored as they did. Not here: the order
of the cells (``schedule``), local processes (``local``).
"""

from __future__ import annotations

import logging
import os
import queue as queues
import threading
import time
import uuid
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path

from smrlab import cache, provenance
from smrlab.errors import ClusterLost, UsageError
from smrlab.experiment.cells import Cell, Outcome, failed, run_cell
from smrlab.experiment.pending import LOOKAHEAD, Handed, Pending, Task
from smrlab.experiment.stopwatch import Phases
from smrlab.trace import Trace

# Seconds to reach the scheduler before giving up (one line, exit code 2).
CONNECT_SECONDS = 3
# Seconds to wait for a worker when the cluster has none.
WORKERS_SECONDS = 600
# Seconds between two looks at the cluster's workers (joined, left) while cells run.
POLL_SECONDS = 1.0
SHIPPED = "shipped"
# The address schemes a scheduler is reached at from an address alone (tls:// needs the
# cluster's security settings, ucx:// its own library: a Client made with them is taken).
REACHED_SCHEMES = ("tcp://", "ws://", "wss://")


def connect(address: str):
    """A client of the scheduler at ``address``; one ``UsageError`` when there is none there
    (within ``CONNECT_SECONDS``), or something else answers."""
    try:
        from distributed import Client
    except ImportError:
        raise UsageError("--cluster needs dask.distributed (pip install 'dask[distributed]')") from None
    _probe(address)
    logging.getLogger("distributed.client").addFilter(_said_by_cluster_lost)
    try:
        return Client(address, timeout=f"{CONNECT_SECONDS}s", set_as_default=False)
    except Exception as error:  # it went away since the probe: whatever the reason, one line
        raise UsageError(f"cannot reach the Dask scheduler at {address} ({type(error).__name__}: {error})") from None


def _said_by_cluster_lost(record: logging.LogRecord) -> bool:
    """Leaves out the client's log line of a scheduler it could not reconnect to: the run's
    ``ClusterLost`` says so, in the one line a user error gets."""
    return not record.getMessage().startswith("Failed to reconnect to scheduler")


def _probe(address: str) -> None:
    """Checks that a Dask scheduler answers at a ``tcp://`` address, each way of failing in one
    ``UsageError`` and within ``CONNECT_SECONDS``; before a ``Client`` is made, because a client
    that fails to start retries for its whole timeout, then takes ten seconds more to close and
    prints a traceback while it does."""
    import asyncio
    import socket

    from distributed.comm.addressing import parse_address, parse_host_port

    try:
        scheme, location = parse_address(address)
        host, port = parse_host_port(location)
    except ValueError as error:
        raise UsageError(
            f"--cluster {address!r} is not a scheduler address such as tcp://HOST:8786 ({error})"
        ) from None
    if f"{scheme}://" not in REACHED_SCHEMES:
        raise UsageError(
            f"--cluster {address!r}: smrlab reaches a scheduler at {', '.join(REACHED_SCHEMES)} addresses, not "
            f"{scheme}:// (for tls:// or ucx://, connect a distributed.Client with the cluster's settings and pass it: "
            "docs/cluster.md)"
        )
    if scheme != "tcp":
        return  # a websocket: the client checks it
    try:
        socket.create_connection((host, port), timeout=CONNECT_SECONDS).close()
    except OSError as error:
        raise UsageError(f"cannot reach the Dask scheduler at {address} ({error.strerror or error})") from None
    try:
        answer = asyncio.run(asyncio.wait_for(_identity(address), CONNECT_SECONDS))
    except Exception as error:
        raise UsageError(
            f"{address} does not answer as a Dask scheduler within {CONNECT_SECONDS} s ({type(error).__name__})"
        ) from None
    kind = answer.get("type") if isinstance(answer, dict) else None
    if kind != "Scheduler":
        raise UsageError(f"{address} is a Dask {kind or 'peer'}, not its scheduler: give the scheduler's address")


async def _identity(address: str):
    from distributed.comm import connect as open_comm

    comm = await open_comm(address, timeout=CONNECT_SECONDS)
    try:
        await comm.write({"op": "identity", "reply": True})
        return await comm.read()
    finally:
        comm.abort()


def _shipped_path(checksum: str, name: str) -> Path:
    # The trace's own name after its checksum keeps its suffixes, from which its format is known.
    return cache.folder(SHIPPED) / f"{checksum.split(':')[-1]}-{name}"


def greet() -> list[str]:
    """On a worker, when the parent first sees it (the call loads this module there, and with it
    what running a cell needs: smrlab's simulation and its compiled core, so that its first cell
    does not), gives the checksums of the traces in its cache folder; a file there whose bytes no
    longer have the checksum it is named by (cut short, changed) is removed, to be sent again."""
    held = []
    for path in cache.folder(SHIPPED).iterdir():
        if path.name.startswith("."):
            continue
        checksum = f"sha256:{path.name.split('-')[0]}"
        if provenance.trace_checksum(path) == checksum:
            held.append(checksum)
        else:
            path.unlink(missing_ok=True)
    return held


class Connecting:
    """A client of ``cluster`` (a scheduler address, or a ``distributed.Client`` already
    connected) made ready in a background thread from the moment this is made: connected
    (``connect``), and its workers greeted (``greeted``: worker -> what ``greet`` gave). The
    client, or the ``UsageError`` connecting gave, is what ``client()`` waits for;
    ``reached_s`` the seconds from this being made until it was ready (dask.distributed
    imported, connected, workers greeted). ``close`` closes a client this made (at once, or
    when the thread ends if it is still connecting), never one it was given."""

    def __init__(self, cluster):
        self._given = None if isinstance(cluster, str) else cluster
        self._address = cluster if isinstance(cluster, str) else None
        self._client = self._given
        self._error: BaseException | None = None
        self._closed = False
        self._lock = threading.Lock()
        self.greeted: dict[str, object] = {}
        self.reached_s: float | None = None
        self._begun = time.perf_counter()
        self._ready = threading.Thread(target=self._connect, name="smrlab-connect", daemon=True)
        self._ready.start()

    def _connect(self) -> None:
        try:
            if self._given is None:
                self._client = connect(self._address)
        except BaseException as error:
            self._error = error
            return
        try:
            self.greeted = self._client.run(greet, on_error="return")
        except Exception:
            self.greeted = {}
        self.reached_s = time.perf_counter() - self._begun
        with self._lock:
            if self._closed:
                self._close_own()

    @property
    def address(self) -> str:
        """The scheduler's address, as given or as the given client knows it."""
        if self._address is not None:
            return self._address
        return str(getattr(getattr(self._given, "scheduler", None), "address", "?"))

    def client(self):
        self._ready.join()
        if self._error is not None:
            raise self._error
        return self._client

    def _close_own(self) -> None:
        if self._given is None and self._client is not None:
            self._client.close()

    def close(self) -> None:
        with self._lock:
            if self._closed:
                return
            self._closed = True
            if not self._ready.is_alive():
                self._close_own()


def run_on_worker(
    cell: Cell,
    key: str,
    submitted_at: float,
    attempts: int,
    ship: bool,
    data: bytes | None,
    run: Callable[..., Outcome] = run_cell,
) -> Outcome:
    """On a worker: the cell's trace made local (written from ``data``, or found in the cache
    folder) when it was shipped, then the cell run (by ``run``)."""
    from distributed import get_worker

    start = time.perf_counter()
    if ship and cell.trace.path is not None:
        path = _shipped_path(cell.trace_checksum(), cell.trace.path.name)
        if not path.exists() and data is not None:
            partial = path.with_name(f".{os.getpid()}-{uuid.uuid4().hex}-{path.name}")
            partial.write_bytes(data)
            os.replace(partial, path)
        cell.trace = Trace.open(path, cell.trace.format, cell.trace.options)
    return run(cell, key, submitted_at, attempts, get_worker().address, time.perf_counter() - start)


class _WorkerLeft(Exception):
    """A worker the scheduler dropped while a trace was being sent to it."""


def _in_memory(trace) -> bool:
    """Whether ``trace``, the future of a trace's bytes scattered to the workers, is still in
    some worker's memory (it is lost, and cancelled, once every worker that had it left)."""
    return trace is not None and trace.status == "finished"


class OnCluster:
    """Runs cells on the cluster of ``client`` (a scheduler address or a ``distributed.Client``)
    with ``run(cell, key, submitted_at, attempts, worker, fetch_s)``."""

    def __init__(self, client, share_paths: bool = False, run: Callable[..., Outcome] = run_cell):
        self._run = run
        # A connection begun by the caller is this executor's to close, as one it begins itself.
        self._connecting = client if isinstance(client, Connecting) else Connecting(client)
        self.ship = not share_paths
        self.threads: dict[str, int] = {}  # worker -> its threads
        self.holds: dict[str, set[str]] = {}  # worker -> checksums of the traces it holds
        self.scattered: dict[str, object] = {}  # checksum -> future of the trace's bytes, on the workers that have them
        self._direct: bool | None = None
        self._looked = 0.0

    @property
    def client(self):
        """The client, once connected (the wait for it is the run's "workers" phase)."""
        return self._connecting.client()

    @property
    def direct(self) -> bool:
        """Whether traces go straight to the workers: unless the client says otherwise, or
        they cannot be reached."""
        if self._direct is None:
            self._direct = self.client.direct_to_workers is not False
        return self._direct

    @direct.setter
    def direct(self, value: bool) -> None:
        self._direct = value

    @property
    def at_once(self) -> int:
        return sum(self.client.nthreads().values())

    @property
    def reached_s(self) -> float | None:
        """Seconds from the connection's start until the cluster was ready (``Connecting``)."""
        return self._connecting.reached_s

    def _look(
        self, handed: Handed, futures: dict, pending: Pending, done: Callable[[Outcome], None], force: bool = False
    ) -> None:
        """Takes in the workers that joined, and retries the cells of those that left."""
        if not force and time.monotonic() - self._looked < POLL_SECONDS:
            return
        self._looked = time.monotonic()
        workers = self.client.nthreads()
        for worker in set(self.threads) - set(workers):
            lost = [future for future, (_, where, _) in futures.items() if where == worker]
            self.client.cancel(lost)
            for future in lost:
                task, _, _ = futures.pop(future)
                if future.status == "finished":  # its outcome went with the worker: not its fault
                    handed.finished(worker, task.cell.index)
                    pending.put_back(task)
            for gave_up in handed.lost(worker, self.threads.pop(worker), "it left the cluster", worker, pending):
                done(gave_up)
            del self.holds[worker]
        joined = [worker for worker in workers if worker not in self.threads]
        # Each greeting from connecting is used once: a worker that leaves and comes back is greeted again.
        held = {worker: self._connecting.greeted.pop(worker) for worker in joined if worker in self._connecting.greeted}
        if unknown := [worker for worker in joined if worker not in held]:
            held.update(self.client.run(greet, workers=unknown, on_error="return"))
        for worker in joined:
            self.threads[worker] = workers[worker]
            self.holds[worker] = set(held[worker]) if isinstance(held.get(worker), list) else set()

    def _lacked(self, worker: str, cell: Cell) -> str | None:
        """The checksum of the cell's trace when it must reach ``worker``, which does not hold it."""
        if not self.ship or cell.trace.path is None or cell.trace_checksum() in self.holds[worker]:
            return None
        return cell.trace_checksum()

    def _arriving(self, assigned: list[tuple[str, Task]], phases: Phases) -> Iterator[tuple[str, Task, object]]:
        """The cells of ``assigned`` as they can be handed out, each with the future of its
        trace's bytes for its worker to fetch (None when its worker holds the trace): at once
        those whose trace needs no sending (their worker holds it, or some worker has it in
        memory), then trace by trace, in the order of the cells that need them, each trace sent
        to the first worker that needs it (the others fetch it from there) and then its cells.
        One trace at a time, so that the first cells start after one trace's transfer, not
        after a whole round's."""
        waiting: dict[str, list[tuple[str, Task]]] = {}
        for worker, task in assigned:
            checksum = self._lacked(worker, task.cell)
            if checksum is None:
                yield worker, task, None
            elif _in_memory(self.scattered.get(checksum)):
                yield worker, task, self.scattered[checksum]
            else:
                waiting.setdefault(checksum, []).append((worker, task))
        for checksum, cells in waiting.items():
            worker, task = cells[0]
            self._send(worker, checksum, task.cell.trace.path, phases)
            for worker, task in cells:
                yield worker, task, self.scattered[checksum]

    def _send(self, worker: str, checksum: str, path: Path, phases: Phases) -> None:
        """Sends the trace at ``path`` to ``worker``: straight to it (not through the
        scheduler), or through the scheduler from the first time the worker cannot be reached
        from here."""
        with phases("transfer"):
            data = path.read_bytes()
            sent = None
            if self.direct:
                try:
                    sent = self.client.scatter([data], workers=[worker], hash=False, direct=True)[0]
                except OSError:  # the worker is not reachable from here: through the scheduler
                    self.direct = False
            try:
                if sent is None:
                    sent = self.client.scatter([data], workers=[worker], hash=False, direct=False)[0]
            except Exception:
                if worker not in self.client.nthreads():  # the scheduler dropped it meanwhile
                    raise _WorkerLeft(worker) from None
                raise
        self.scattered[checksum] = sent
        phases.counts["traces_sent"] += 1
        phases.counts["trace_bytes_sent"] += len(data)

    def _least_handed(self, handed: Handed, beyond: int) -> str | None:
        """The worker with the fewest cells handed per thread, if it has fewer than its threads
        and ``beyond``."""
        if not self.threads:
            return None
        worker = min(self.threads, key=lambda w: handed.count(w) / self.threads[w])
        return worker if handed.count(worker) < self.threads[worker] + beyond else None

    def _hand_out(
        self, pending: Pending, handed: Handed, futures: dict, finished: queues.Queue, phases: Phases
    ) -> None:
        """Hands cells to the workers with room: first those they can start at once, then those
        they wait with (``LOOKAHEAD``), so that the traces of the first are sent, and the cells
        start, before the traces of the others travel; each cell as soon as its trace is sent."""
        for beyond in (0, LOOKAHEAD):
            assigned = []
            while pending and (worker := self._least_handed(handed, beyond)) is not None:
                task = pending.next()
                handed.add(worker, task)
                assigned.append((worker, task))
            submitted: set[int] = set()
            try:
                self._submit(self._arriving(assigned, phases), futures, finished, submitted)
            except _WorkerLeft:
                # Those not handed to a worker yet go back as they were; the worker's own are
                # retried when it is seen to have left (``_look``).
                for worker, task in assigned:
                    if task.cell.index not in submitted:
                        handed.finished(worker, task.cell.index)
                        pending.put_back(task)
                return

    def _submit(self, arriving, futures: dict, finished: queues.Queue, submitted: set[int]) -> None:
        """Hands each cell of ``arriving`` to its worker, noting it in ``submitted``."""
        for worker, task, trace in arriving:
            future = self.client.submit(
                run_on_worker,
                task.cell,
                task.key,
                task.submitted_at,
                task.attempts,
                self.ship,
                trace,
                self._run,
                key=f"smrlab-{task.key}-{uuid.uuid4().hex[:8]}",
                workers=[worker],
                allow_other_workers=False,
                pure=False,
            )
            future.add_done_callback(finished.put)
            futures[future] = (task, worker, trace)
            submitted.add(task.cell.index)

    def run(
        self,
        pending: Pending,
        done: Callable[[Outcome], None],
        phases: Phases,
        handed_out: Callable[[], None] | None = None,
    ) -> None:
        """Runs every cell of ``pending``, handing each outcome to ``done`` as it comes
        (``handed_out``: ``executors``)."""
        finished: queues.Queue = queues.Queue()
        handed = Handed()
        futures: dict[object, tuple[Task, str, object]] = {}
        left = Counter(
            task.cell.trace_checksum() for task in pending.tasks() if self.ship and task.cell.trace.path is not None
        )
        try:
            while pending or handed:
                self._look(handed, futures, pending, done)
                if not self.threads and not handed:
                    self._wait_for_a_worker()
                    self._look(handed, futures, pending, done, force=True)
                self._hand_out(pending, handed, futures, finished, phases)
                if handed_out:
                    handed_out()
                    handed_out = None
                try:
                    ready = [finished.get(timeout=POLL_SECONDS)]
                except queues.Empty:
                    continue
                while not finished.empty():
                    ready.append(finished.get())
                for future in ready:
                    if future in futures:  # else a cell of a worker that left, retried already
                        self._finished(future, *futures.pop(future), handed, pending, done, left)
        except Exception as error:
            if self.client.status != "running":  # its scheduler is gone: nothing can be cancelled
                raise ClusterLost(
                    f"the Dask scheduler at {self._connecting.address} went away mid-run ({type(error).__name__}: "
                    f"{str(error).splitlines()[0] if str(error) else 'no message'})"
                ) from None
            self.client.cancel(list(futures))
            raise
        except BaseException:
            if self.client.status == "running":
                self.client.cancel(list(futures))
            raise

    def _finished(
        self,
        future,
        task: Task,
        worker: str,
        trace,
        handed: Handed,
        pending: Pending,
        done: Callable[[Outcome], None],
        left: Counter,
    ) -> None:
        handed.finished(worker, task.cell.index)
        outcome = self._outcome(future, task, worker, trace)
        if outcome is None:  # its worker left before the outcome came back, or its trace went with another
            self.client.cancel([future])
            pending.put_back(task)
            return
        shipped = self.ship and task.cell.trace.path is not None
        if shipped and worker in self.holds:
            self.holds[worker].add(task.cell.trace_checksum())
        done(outcome)
        if shipped:
            self._release_if_last(task.cell.trace_checksum(), left)

    def _outcome(self, future, task: Task, worker: str, trace) -> Outcome | None:
        """The outcome of a finished future, fetched from its worker; None when the worker left
        before it could be (the outcome is lost with it), or when the cell was cancelled because
        the workers that had its trace (``trace``, the future of its bytes) left before it
        reached this one (it never ran)."""
        from distributed import CancelledError

        while True:
            try:
                return future.result(timeout=POLL_SECONDS)
            except TimeoutError:
                if worker not in self.client.nthreads():
                    return None
            except CancelledError:
                if worker not in self.client.nthreads() or (trace is not None and not _in_memory(trace)):
                    return None
                return self._failed(task, worker, "cancelled")
            except Exception as error:
                return self._failed(task, worker, f"{type(error).__name__}: {error}")

    @staticmethod
    def _failed(task: Task, worker: str, why: str) -> Outcome:
        return failed(
            task.cell, task.key, f"the cluster could not run it: {why}", task.submitted_at, task.attempts, worker
        )

    def _release_if_last(self, checksum: str, left: Counter) -> None:
        left[checksum] -= 1
        if left[checksum] <= 0 and checksum in self.scattered:
            self.scattered.pop(checksum).release()

    def _wait_for_a_worker(self) -> None:
        try:
            self.client.wait_for_workers(1, timeout=WORKERS_SECONDS)
        except (TimeoutError, OSError) as error:
            raise UsageError(
                f"the Dask cluster at {self.client.scheduler.address} had no worker for {WORKERS_SECONDS} s ({error})"
            ) from None

    def close(self, interrupted: bool = False) -> None:
        for future in self.scattered.values():
            future.release()
        self.scattered.clear()
        self._connecting.close()
