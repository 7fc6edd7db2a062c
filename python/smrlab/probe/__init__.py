"""``smrlab probe``: tell a drive-managed SMR disk from a conventional one by the latency of
requests alone, measure its media cache, bands and cleaning, and fit smrlab's ``dmsmr`` model to
it (docs/probe.md). The probes follow Skylight (Aghayev and Desnoyers, FAST 2015).

Modules: ``drive`` (a target as a device: requests in, latencies out; the budget and progress),
``simdrive`` and ``fio`` (the two kinds of target), ``target`` (which target a name means, and
the checks before anything is written), ``probes`` (each probe's requests and what it observed),
``fit`` (estimates with their uncertainty, the fitted parameters), ``card`` (the drive card, as
text and JSON, and read back by ``smrlab sim --preset-file``).

Not here: the command line (``smrlab.cli.probe``) or the disk model (the core's ``dmsmr``).
"""
