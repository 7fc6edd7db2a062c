"""A key-value experiment checked before its first cell runs, so that a value no cell can run
with stops the run at once, in one line naming the file, the store's label and the value,
instead of coming back as failed cells (or running other cells first):

- every distinct store of the cells (each combination of a grid's values) is opened as its
  cells open it, in memory, and closed at once: SMRDB's options, the offloading store's, the
  sizes, the disk preset and a peer's buffer and cache are refused by the readers the cells
  use (the core's declarations), with their messages; the client threads are held to the
  executor's limit (the core's);
- every step of arrivals is resolved by the core's arrival generator at the step's process and
  duration (at a rate that makes few arrivals, unless the step's own make more than the core
  allows, which it then refuses): a process that needs a parameter no step can give, or a
  step too long for a schedule, stops here.

Not here: the file's keys and types (``spec``, ``schema``), running a cell (``cell``).
"""

from __future__ import annotations

from smrlab import _core, workload
from smrlab.errors import SmrlabError, UsageError
from smrlab.experiment.kv import offload, stores
from smrlab.kv import DB

# Arrivals a step's process is resolved with: enough for any process, few enough to be instant.
PROBE_ARRIVALS = 1000


def parameters(experiment) -> None:
    """Refuses, naming the file and label, what a cell's store or steps would fail on."""
    where = f"{experiment.source}: " if experiment.source else ""
    seen = set()
    for cell in experiment.cells():
        asked = (cell.system, tuple(sorted(cell.given.items())))
        if asked in seen:
            continue
        seen.add(asked)
        try:
            _open_and_close(cell.system, cell.given, cell.setting == "model")
        except SmrlabError as error:
            raise UsageError(f"{where}systems.{cell.label}: {error}") from None
    for trace in experiment.traces.values():
        for step in trace.steps if trace.kind == "steps" else ():
            try:
                _resolve_arrivals(step)
            except SmrlabError as error:
                raise UsageError(f"{where}traces.{trace.name}: step '{step['name']}': {error}") from None


def _open_and_close(system: str, params: dict, modelled: bool) -> None:
    if system == stores.OFFLOAD:
        offload.value_size(params)
        workload.client_threads(params.get("threads", offload.DEFAULT_THREADS))
        workload.WorkloadStore(**offload.store_options(params)).close()
        return
    workload.client_threads(params.get("threads", 1))
    stores.switch(params.get("sync", False), "sync")
    if system in stores.SMRDB:
        DB(None, **{**stores.smrdb_arguments(system, params, modelled), "background": False}).close()
        return
    stores.peer_sizes(params)
    if modelled:  # the preset the captured I/O is laid on
        _core.disk_service_times(params.get("disk", "desktop7200"), b"", b"", b"")


def _resolve_arrivals(step: dict) -> None:
    rate, duration = float(step["rate"]), offload.step_length(step)["duration"]
    if rate * duration <= _core.MAX_ARRIVALS:
        rate = min(rate, PROBE_ARRIVALS / duration)
    _core.arrival_schedule(workload.arrival_params(step["process"], rate, duration), 1)
