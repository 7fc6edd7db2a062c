"""``smrlab reproduce --traces DIR --general``: which of the papers' claims hold on a user's own
traces. Every claim its claims file declares general (``general = true``: an order, a direction
or a trend that names no one trace) is judged on each trace found in DIR, whatever its name and
in any format the trace reader knows (``tracefolder``), and the card says per claim on how many
of the traces it held.

Each claim's experiment is run as written, but on one of the user's traces at a time, with the
paper's geometry scaled to that trace by the rule its claims file declares (``[general]``)::

    [general]
    scaled = ["band_min", "band_max", "zone"]   # sizes multiplied by F (given, or the default)
    by = "written_bytes"                        # F = min(1, this measure of the trace / reference)
    reference = 4.71e9                          # the paper's own trace's (say which, and where)

``by`` is ``requests``, ``written_bytes``, ``accessed_bytes`` or ``max_end``: F keeps a small
trace's ratio of geometry to trace as the paper had it, and a trace as large as the paper's or
larger keeps the paper's geometry. Cells are shared by the claims that name one experiment, and
stored and found again like the scorecard's (``--resume`` by key). Not here: the claims
(``claims``), how one is judged (``verdict``), the folder (``tracefolder``).
"""

from __future__ import annotations

import copy
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from smrlab import _core, experiment, orchestrator, provenance, results, systems, tomltext
from smrlab.errors import SmrlabError, UsageError
from smrlab.experiment.spec import Experiment
from smrlab.live import CellProgress
from smrlab.reproduce import claims as claims_files
from smrlab.reproduce import tracefolder
from smrlab.reproduce.evaluation import Evaluation, Point
from smrlab.reproduce.verdict import HOLDS, NOT_RUN, every
from smrlab.run import measure
from smrlab.tables import print_table

MEASURES = ("requests", "written_bytes", "accessed_bytes", "max_end")
# Scaled sizes are whole blocks of this many bytes, at least one.
BLOCK = 4096


@dataclass
class Scaling:
    """A paper's rule for giving a user's trace its geometry (``[general]`` of its claims file)."""

    scaled: list[str]
    by: str
    reference: float

    def factor(self, measured: dict[str, float]) -> float:
        return min(1.0, measured[self.by] / self.reference) if self.reference > 0 else 1.0


def scaling_of(path: Path) -> Scaling | None:
    """The ``[general]`` table of the claims file at ``path`` (None: the paper runs its traces
    at its own geometry); a wrong one is refused naming the file."""
    general = tomltext.loads(path.read_text(), path).get("general")
    if general is None:
        return None
    scaled, by, reference = general.get("scaled"), general.get("by"), general.get("reference")
    if (
        not isinstance(scaled, list)
        or not all(isinstance(s, str) for s in scaled)
        or by not in MEASURES
        or isinstance(reference, bool)
        or not isinstance(reference, (int, float))
        or not reference > 0
    ):
        raise UsageError(
            f"{path}: [general] needs scaled (a list of parameter names), by (one of {', '.join(MEASURES)}) "
            "and reference (a number above 0)"
        )
    return Scaling(scaled, by, float(reference))


@dataclass
class GeneralRow:
    """One general claim on one of the user's traces."""

    paper: str
    id: str
    claim: str
    trace: str
    verdict: str
    ours_text: str
    factor: float
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass
class GeneralCard:
    folder: Path
    traces: list[tracefolder.FolderTrace]
    skipped: list[tracefolder.Skipped]
    rows: list[GeneralRow]
    runs: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0

    def held(self) -> list[tuple[str, str, str, int, int]]:
        """Per claim: paper, id, claim, on how many traces it held, on how many it was judged."""
        found: dict[tuple[str, str], list[GeneralRow]] = {}
        for row in self.rows:
            found.setdefault((row.paper, row.id), []).append(row)
        return [
            (paper, claim_id, rows[0].claim, sum(r.verdict == HOLDS for r in rows), len(rows))
            for (paper, claim_id), rows in found.items()
        ]

    def as_dict(self) -> dict[str, Any]:
        return {
            "mode": "general",
            "folder": str(self.folder),
            "traces": [
                {"name": t.name, "file": t.path.name, "format": t.format, "told_by": t.told_by} for t in self.traces
            ],
            "skipped": [{"file": s.path.name, "reason": s.reason} for s in self.skipped],
            "rows": [r.as_dict() for r in self.rows],
            "claims": [{"paper": p, "id": i, "claim": c, "held": h, "traces": n} for p, i, c, h, n in self.held()],
            "runs": self.runs,
            "smrlab": provenance.stamp(),
            "wall_seconds": round(self.seconds, 1),
        }


def general_claims(files: list[claims_files.ClaimsFile]) -> list[tuple[claims_files.ClaimsFile, claims_files.Claim]]:
    """Every claim declared general, with its file."""
    return [(f, c) for f in files for c in f.claims if getattr(c, "general", False) and c.kind != "not-run"]


@dataclass
class OnTraces(Experiment):
    """An experiment on the user's traces, each cell's geometry scaled by its trace's factor
    (``factors``, by trace name) for the sizes ``scaled`` lists."""

    factors: dict[str, float] = field(default_factory=dict)
    scaled: tuple[str, ...] = ()

    def cells(self):
        cells = super().cells()
        for cell in cells:
            factor = self.factors.get(cell.trace_name, 1.0)
            if factor < 1:
                cell.given = scaled_params(cell.system, cell.given, self.scaled, factor)
        return cells


def on_traces(exp: Experiment, opened: dict, scaling: Scaling | None, factors: dict[str, float]) -> OnTraces:
    """``exp`` on the user's traces (``opened``, by name) in place of its own. A size the
    experiment sweeps is its claims' own variable (a zone-size trend names its values): it runs
    at the values written, and only the other sizes are scaled."""
    fields = {name: getattr(exp, name) for name in exp.__dataclass_fields__}
    fields.update(traces=dict(opened), name=f"{exp.name}-general")
    scaled = tuple(key for key in (scaling.scaled if scaling else ()) if key not in exp.axes())
    return OnTraces(**fields, factors=factors, scaled=scaled)


def scaled_params(system: str, given: dict[str, str], keys: tuple[str, ...], factor: float) -> dict[str, str]:
    """``given`` with each size of ``keys`` the system reads (given, or its default) multiplied
    by ``factor``, in whole 4 KiB blocks; values that are not sizes ("none", a share) are kept."""
    resolved = systems.resolved(system, given)
    out = dict(given)
    for key in keys:
        if key not in resolved:
            continue
        try:
            size = _core.parse_size(resolved[key])
        except (ValueError, SmrlabError):
            continue
        out[key] = str(max(BLOCK, round(size * factor) // BLOCK * BLOCK))
    return out


def make(
    folder: Path,
    papers: list[str],
    root: Path,
    out: Path,
    jobs: int | None = None,
    cluster: str | None = None,
    share_paths: bool = False,
    announce: Callable[[str], None] = lambda _: None,
) -> GeneralCard:
    """Every general claim of ``papers`` judged on each trace of ``folder``."""
    started = time.monotonic()
    traces, skipped = tracefolder.scan(folder)
    for gone in skipped:
        announce(f"skipped {gone.path.name}: {gone.reason}")
    paths = {p: claims_files.claims_path(p, root) for p in papers}
    files = [claims_files.load(path) for path in paths.values()]
    scalings = {f.paper: scaling_of(paths[f.paper]) for f in files}
    chosen = general_claims(files)
    card = GeneralCard(folder, traces, skipped, [])
    if not chosen:
        return card
    measured: dict[str, dict[str, float]] = {}
    opened = {}
    for trace in list(traces):
        try:
            opened[trace.name] = trace.open()
            footprint, requests = measure(opened[trace.name])
        except (SmrlabError, OSError, ValueError) as error:  # fails further in: skipped, named
            skipped.append(tracefolder.Skipped(trace.path, str(error)))
            traces.remove(trace)
            announce(f"skipped {trace.path.name}: {error}")
            continue
        measured[trace.name] = {**{k: float(footprint[k]) for k in MEASURES[1:]}, "requests": float(requests)}
    by_experiment: dict[tuple[str, str], list[claims_files.Claim]] = {}
    for paper_claims, claim in chosen:
        by_experiment.setdefault((paper_claims.paper, claim.experiment), []).append(claim)
    for (paper, name), claims in by_experiment.items():
        path = root / "experiments" / f"{name}.toml"
        if not path.is_file():
            raise UsageError(f"no experiment file {path} (named by a claim)")
        # Read without its own traces (none generated): the user's take their place.
        base = experiment.files.parse(path.read_text(), path, with_traces=False)
        scaling = scalings[paper]
        factors = {t.name: scaling.factor(measured[t.name]) if scaling else 1.0 for t in traces}
        # All traces in one run; where the sizes of one trace make the experiment refuse to
        # start, each trace alone, so that one trace's refusal leaves the others' verdicts.
        groups = [traces]
        while groups:
            group = groups.pop(0)
            exp = on_traces(base, {t.name: opened[t.name] for t in group}, scaling, factors)
            announce(f"running {name} on {len(group)} of your traces ({len(exp.cells())} cells)")
            try:
                summary = orchestrator.run(
                    exp,
                    out=out,
                    jobs=jobs,
                    cluster=cluster,
                    share_paths=share_paths,
                    resume=True,
                    progress=CellProgress(exp.name),
                )
            except UsageError as error:
                if len(group) > 1:
                    groups += [[t] for t in group]
                    continue
                card.rows += [
                    GeneralRow(paper, c.id, c.claim, group[0].name, NOT_RUN, "", factors[group[0].name], str(error))
                    for c in claims
                ]
                continue
            card.runs[f"{exp.name}:{','.join(t.name for t in group)}"] = str(summary.folder)
            evaluation = Evaluation(results.read(summary.table), exp.axes(), "yours")
            for claim in claims:
                one = copy.copy(claim)
                one.traces, one.per, one.share = [], "every", None
                judged = evaluation.row(paper, one)
                for trace in group:
                    points = [p for p in judged.points if p.trace == trace.name]
                    card.rows.append(_row(paper, claim, points, trace.name, factors[trace.name], summary))
    card.seconds = time.monotonic() - started
    return card


def _row(paper: str, claim, points: list[Point], trace: str, factor: float, summary) -> GeneralRow:
    """The claim's row on ``trace``, from its points there (each value of an axis its cells leave
    free): it holds where every point does. The claims file's reasons are about the paper's
    traces and are not repeated here; where the claim is not run, the first error of a cell on
    the trace says why, or else that its cells give no value (a count of zero under a ratio, say)."""
    verdict = every([p.verdict for p in points]) if points else NOT_RUN
    text = "; ".join((f"{p.name()}: " if p.at else "") + p.text for p in points)
    reason = ""
    if verdict == NOT_RUN:
        failed = [o.error for cell, o in summary.outcomes if o.error and cell.trace_name == trace]
        reason = failed[0] if failed else f"its cells give no value on this trace ({text or 'no cell matched'})"
    return GeneralRow(paper, claim.id, claim.claim, trace, verdict, text, factor, reason)


def print_card(card: GeneralCard) -> None:

    print_table(
        f"Your traces ({len(card.traces)} read, {len(card.skipped)} skipped) in {card.folder}",
        ["trace", "file", "format", "told by"],
        [(t.name, t.path.name, t.format, t.told_by) for t in card.traces],
    )
    if card.skipped:
        print_table("Skipped", ["file", "why"], [(s.path.name, s.reason) for s in card.skipped])
    print_table(
        "General claims: on how many of your traces each held",
        ["paper", "claim", "held on", "claim text"],
        [(p, i, f"{h} of {n}", c) for p, i, c, h, n in card.held()],
    )
    print_table(
        "Per trace",
        ["claim", "trace", "ours", "verdict", "geometry x"],
        [
            (r.id, r.trace, r.ours_text, r.verdict, None if math.isnan(r.factor) else round(r.factor, 4))
            for r in card.rows
        ],
    )
