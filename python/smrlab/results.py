"""Reading results tables back: a Parquet file written by ``smrlab run`` (or every one under a
folder), with what each cell cost from the provenance beside it when asked (``timing``),
filtered by column values and pivoted, as pandas DataFrames and table rows.

Each bad request (no table there, an unknown column, a filter or pivot that is not
``COLUMN=VALUE`` / ``INDEX:COLUMNS:VALUES``) is one ``UsageError``. Not here: writing tables
(``smrlab.experiment.store``).
"""

from __future__ import annotations

import json
from pathlib import Path

from smrlab.caveats import IDENTICAL, from_row, group, identical, response
from smrlab.errors import UsageError
from smrlab.experiment.files import parse
from smrlab.experiment.store import CELLS, TIMING_COLUMNS, timing_rows, to_pandas
from smrlab.options import quoted

# The columns that say what a row is (``smrlab run`` writes one value in each).
IDENTITY = ("cell", "label", "system", "trace", "seed", "error")
# The most cells a pivot makes (rows times columns).
MAX_PIVOT_CELLS = 1_000_000
# The most characters of the user's or a library's text an error quotes.
MESSAGE_QUOTE = 200


def tables_under(path: Path) -> list[Path]:
    """The results tables a path names: itself, or those in a folder and the folders in it, at
    any depth (the paper commands keep theirs a level down: results/compare-caches/...)."""
    if path.is_file():
        return [path]
    if path.is_dir():
        return sorted(path.rglob("*.parquet"), key=lambda table: (len(table.relative_to(path).parts), table))
    if path.exists():
        raise UsageError(f"{path}: not a file or folder (a device or pipe); give a results table or a folder")
    raise UsageError(f"{path}: no such file or folder")


def read(path: str | Path, timing: bool = False):
    """The rows of the table(s) at ``path``; several tables are joined with a ``run`` column
    (their folder's name). With ``timing``, each row also has what its cell cost
    (``timing.NAME`` columns, ``smrlab.experiment.store.timing_rows``), from the table's
    provenance sidecar."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    path = Path(path)
    found = tables_under(path)
    if not found:
        raise UsageError(f"{path}: holds no results table (.parquet)")
    frames = []
    for table in found:
        try:
            frame = to_pandas(pq.read_table(table))
        # Damaged bytes reach pyarrow and pandas as whatever their decoders raise: Arrow's own
        # errors, OSError, a UnicodeDecodeError (a ValueError) of the schema's metadata, ...
        except (OSError, ValueError, TypeError, KeyError, IndexError, pa.ArrowException) as error:
            raise UsageError(f"{table}: not a readable Parquet table ({quoted(str(error), MESSAGE_QUOTE)})") from None
        check_scalars(frame, IDENTITY, str(table))
        if timing:
            frame = _with_timing(frame, table)
        if len(found) > 1:
            frame.insert(0, "run", run_name(table, path))
        frames.append(frame)
    return pd.concat(frames, ignore_index=True) if len(frames) > 1 else frames[0]


def run_name(table: Path, path: Path) -> str:
    """A table's ``run`` when several are joined: its folder, from the folder asked for."""
    folder = table.parent.relative_to(path) if path.is_dir() else Path(table.parent.name)
    return folder.as_posix() if folder.parts else table.parent.name


def _with_timing(frame, table: Path):
    """``frame`` with the ``timing.NAME`` columns of its sidecar, matched on the cell's key."""
    import pandas as pd

    if "cell" not in frame.columns:
        raise UsageError(f"{table}: has no 'cell' column to match costs to (not a table of smrlab run)")
    costs = pd.DataFrame(
        timing_rows(provenance(table)), columns=["cell", *(f"timing.{name}" for name in TIMING_COLUMNS)]
    )
    return frame.merge(costs.drop_duplicates("cell"), on="cell", how="left")


def sidecar_path(table: str | Path) -> Path:
    """Where a table's provenance sidecar is."""
    return Path(table).with_suffix(".json")


# What the report reads of a sidecar: each key path and the types it may hold.
SIDECAR_FIELDS = {
    ("experiment", "text"): (str, type(None)),
    ("experiment", "file"): (str, type(None)),
    ("smrlab", "version"): (str,),
    ("smrlab", "git_commit"): (str,),
    ("host", "name"): (str,),
    ("cells",): (list,),
    ("failed",): (int,),
    ("traces",): (dict,),
}


def provenance(table: str | Path) -> dict:
    """The provenance sidecar written beside a table, checked to hold what the report reads."""
    sidecar = sidecar_path(table)
    try:
        document = json.loads(sidecar.read_text())
    except (OSError, ValueError, RecursionError) as error:
        raise UsageError(
            f"{sidecar}: no readable provenance beside the table ({quoted(str(error), MESSAGE_QUOTE)})"
        ) from None
    for keys, kinds in SIDECAR_FIELDS.items():
        value = document
        for key in keys:
            value = value.get(key, KeyError) if isinstance(value, dict) else KeyError
        if not isinstance(value, kinds) or isinstance(value, bool):
            raise UsageError(
                f"{sidecar}: not the provenance smrlab run writes ('{'.'.join(keys)}' is missing or of the wrong type)"
            )
    if not all(isinstance(t, dict) and isinstance(t.get("checksum"), str) for t in document["traces"].values()):
        raise UsageError(f"{sidecar}: not the provenance smrlab run writes (a trace without its checksum)")
    return document


def check_columns(frame, columns: list[str]) -> None:
    unknown = [c for c in columns if c not in frame.columns]
    if unknown:
        known = ", ".join(map(str, frame.columns))
        raise UsageError(f"no column {quoted(unknown[0])} (columns: {quoted(known, MESSAGE_QUOTE)})")


def select(frame, where: list[str]):
    """The rows where every ``COLUMN=VALUE`` holds (compared as text)."""
    for condition in where:
        column, eq, value = condition.partition("=")
        if not eq:
            raise UsageError(f"--where {quoted(condition)} is not COLUMN=VALUE")
        check_columns(frame, [column])
        frame = frame[frame[column].astype(str) == value]
    return frame


def key_columns(frame) -> list[str]:
    """The columns that say what a row ran (label, system, trace, seed, the run's folder, the
    given parameters: text columns), as opposed to what it measured (numbers); a row's
    ``caveats`` is text about what it measured (``smrlab.caveats``), not what it ran."""
    return [
        c
        for c in frame.columns
        if c not in ("cell", "error", "caveats")
        and not str(c).startswith("series.")
        and (c in ("seed", "run") or not _numbers(frame[c]))
    ]


def _numbers(column) -> bool:
    """Whether a column holds numbers only, missing values aside: a measure some rows lack (a
    response time a run did not measure) is still a measure, though pandas keeps it as objects."""
    from numbers import Number

    from pandas.api.types import is_numeric_dtype

    if is_numeric_dtype(column):
        return True
    given = column.dropna()
    return len(given) > 0 and bool(given.map(lambda v: isinstance(v, Number)).all())


def pivot(frame, spec: str) -> tuple[object, list[str]]:
    """``INDEX:COLUMNS:VALUES`` (INDEX may be several columns, ``a,b``): one row per INDEX
    value, one column per COLUMNS value, at most ``MAX_PIVOT_CELLS`` cells. Rows are never
    averaged together: a column that says what ran (``key_columns``) and differs between rows
    that would share a cell is kept in the index, and returned, so the caller can say so."""
    parts = spec.split(":")
    if len(parts) != 3 or not all(parts):
        raise UsageError(
            f"--pivot {quoted(spec, MESSAGE_QUOTE)} is not INDEX:COLUMNS:VALUES (e.g. trace:label:total_io_s)"
        )
    index, columns, values = parts[0].split(","), parts[1], parts[2]
    if len({*index, columns, values}) != len(index) + 2:
        raise UsageError(f"--pivot {quoted(spec, MESSAGE_QUOTE)}: INDEX, COLUMNS and VALUES name different columns")
    check_columns(frame, [*index, columns, values])
    check_scalars(frame, key_columns(frame) + [columns], "--pivot")
    kept = [
        c
        for c in key_columns(frame)
        if c not in (*index, columns)
        and (frame.groupby([*index, columns], sort=False, dropna=False)[c].nunique(dropna=False) > 1).any()
    ]
    cells = len(frame.drop_duplicates([*index, *kept])) * frame[columns].nunique(dropna=False)
    if cells > MAX_PIVOT_CELLS:
        raise UsageError(f"--pivot {quoted(spec, MESSAGE_QUOTE)} would make {cells:,} cells, over {MAX_PIVOT_CELLS:,}")
    # A parameter some systems do not take is missing from their rows: shown as "-", not dropped.
    frame = frame.assign(**{c: frame[c].astype(object).where(frame[c].notna(), "-") for c in [*index, *kept, columns]})
    table = frame.pivot_table(index=[*index, *kept], columns=columns, values=values, aggfunc="first", sort=False)
    table.columns = [str(c) for c in table.columns]
    return table.reset_index(), kept


def _hashable(value) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def _plain(value):
    """A cell as a plain Python value: None for missing, a list for a series (a gauge sampled
    over the run is a list in its cell)."""
    import pandas as pd

    if hasattr(value, "tolist") and getattr(value, "ndim", 0) > 0:
        return value.tolist()
    if isinstance(value, (str, list, dict)):
        return value
    if pd.isna(value):
        return None
    return value.item() if hasattr(value, "item") else value


def table_rows(frame, columns: list[str]) -> list[tuple]:
    """Rows of ``columns`` as plain Python values (None for missing), a saturated run's response
    times marked (``smrlab.caveats.response``)."""
    flags = frame["saturated"].fillna(False).astype(bool).tolist() if "saturated" in frame else [False] * len(frame)
    responses = [index for index, column in enumerate(columns) if "response" in column]
    return [
        tuple(response(_plain(v), flag) if i in responses else _plain(v) for i, v in enumerate(record))
        for record, flag in zip(frame[columns].itertuples(index=False), flags)
    ]


def notes(frame, columns: list[str], metrics: list[str]) -> list[str]:
    """The notes of a results table shown as ``columns`` (``smrlab.caveats``): each reason a row
    gave (its ``caveats``), with the rows it applies to ("LABEL on TRACE"), then the rows that
    measured the same ``metrics`` as another of the same trace and other shown columns."""
    named = [f"{row.get('label')} on {row.get('trace')}" for row in frame.to_dict("records")]
    by_reason: dict[str, list[str]] = {}
    if "caveats" in frame:
        for name, cell in zip(named, frame["caveats"]):
            for reason in from_row(_plain(cell)):
                by_reason.setdefault(reason, []).append(name)
    measures = [m for m in metrics if m in frame]
    kept = [c for c in columns if c not in measures and c != "label" and c in frame and c != "error"]
    lines = group(by_reason)
    if measures and "label" in frame:
        for _, rows in frame.groupby(kept, dropna=False, sort=False) if kept else [(None, frame)]:
            numbers = {
                str(label): tuple(map(_plain, row))
                for label, row in zip(rows["label"], rows[measures].itertuples(index=False))
            }
            on = f" on {rows['trace'].iloc[0]}" if "trace" in rows else ""
            lines += [f"{', '.join(labels)}{on}: {IDENTICAL}" for labels in identical(numbers)]
    return lines


def check_scalars(frame, columns, what: str) -> None:
    """Refuses ``columns`` of ``frame`` that hold lists where ``what`` needs one value a row."""
    for column in columns:
        if column in frame and not frame[column].map(_hashable).all():
            raise UsageError(f"{what}: column {quoted(str(column))} holds lists, not one value a row")


# Measures shown when an experiment names none.
DEFAULT_METRICS = ["total_io_s"]


def any_saturated(frame) -> bool:
    """Whether a row of ``frame`` is of a saturated run (its queue grew for the whole replay:
    ``smrlab.result.saturated``)."""
    return "saturated" in frame and bool(frame["saturated"].fillna(False).astype(bool).any())


def saturation_columns(frame) -> list[str]:
    """``["saturated"]`` when a row of ``frame`` is of a saturated run: every table that shows
    such a row shows the mark beside its numbers."""
    return ["saturated"] if any_saturated(frame) else []


def shown_columns(frame, experiment) -> list[str]:
    """The columns an experiment's table shows: what identifies a row (label, trace, seed when
    several, the swept parameters), the experiment's measures, the saturation mark when a row
    has it, and the error when a cell failed."""
    columns = ["label", "trace"] + (["seed"] if len(experiment.seeds) > 1 else []) + experiment.swept()
    columns += experiment.metrics or DEFAULT_METRICS
    columns += saturation_columns(frame)
    if "error" in frame and frame["error"].notna().any():
        columns.append("error")
    return [c for c in dict.fromkeys(columns) if c in frame.columns]


def declared(path: str | Path, columns: list[str]) -> dict[str, dict]:
    """The core's declarations (meaning, unit) of those of ``columns`` that are measures of the
    runs stored under ``path``, as their cells' results hold them (the table keeps only the
    numbers): one stored cell of each system of each table (a system declares the same measures
    in every cell), found by its key in the table's provenance, until every column is found."""
    found: dict[str, dict] = {}
    for table in tables_under(Path(path)):
        try:
            cells = provenance(table).get("cells") or []
        except UsageError:
            continue  # a table without its sidecar: its columns keep their names
        first: dict[str, str] = {}
        for entry in cells:
            if not entry.get("error") and entry.get("key"):
                first.setdefault(str(entry.get("system")), str(entry["key"]))
        for key in first.values():
            if all(c in found for c in columns):
                return found
            for cell in (table.parent / CELLS).glob(f"*-{key}.json"):
                try:
                    stored = json.loads(cell.read_text())
                except (OSError, ValueError, RecursionError):
                    continue  # a damaged cell file: its table's other systems still name theirs
                result = stored.get("result") if isinstance(stored, dict) else None
                metrics = result.get("metrics") if isinstance(result, dict) else None
                found.update(metrics if isinstance(metrics, dict) else {})
    return found


def experiment_of(table: Path):
    """The experiment a results table was run from, read back from its provenance sidecar
    (without opening its traces)."""
    sidecar = provenance(table)
    return parse(sidecar["experiment"]["text"] or "", Path(sidecar["experiment"]["file"] or table), with_traces=False)


def metrics_of(path: str | Path) -> list[str]:
    """The measures the experiments of the tables at ``path`` name."""
    found = [m for table in tables_under(Path(path)) for m in experiment_of(table).metrics or DEFAULT_METRICS]
    return list(dict.fromkeys(found))


def default_columns(path: str | Path, frame) -> list[str]:
    """What ``smrlab results`` shows unless asked for more: each table's identifying columns
    and the measures its experiment names (``shown_columns``), after ``run`` when several
    tables are joined."""
    found = tables_under(Path(path))
    columns = ["run"] if len(found) > 1 else []
    for table in found:
        columns += shown_columns(frame, experiment_of(table))
    return [c for c in dict.fromkeys(columns) if c in frame.columns]
