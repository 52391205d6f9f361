"""A study's rows as Parquet: one row per trial (an instance, a seed) and algorithm, written whole
or absent, poolable across runs.

Every rows file carries, in every row, the ``fastsnake_version`` that wrote it and the ``run_id``
of the run (16 hex digits, the convention of Snake's sweep files), and, in its footer, the study's
description under `META_KEY` (JSON: ``format``, ``kind``, ``run_id``, ``fastsnake_version`` and what
the problem adds). A file written by a newer fastsnake is read with a warning naming both versions
(`fastsnake.versions`); one of a format this version does not know is refused, saying which wrote it.
Several files of one folder read as one table: ``SELECT * FROM 'DIR/*.parquet'`` in DuckDB,
``polars.scan_parquet("DIR/*.parquet")``, ``pandas.read_parquet("DIR")``.
"""

from __future__ import annotations

import json
import os

from fastsnake.errors import InputError

STUDY_FORMAT = "fastsnake-study/1"
META_KEY = b"fastsnake.study"
# Parquet page checksums: written by every writer, verified by every reader (as Snake's files).
WRITE_OPTIONS = {"write_page_checksum": True}
READ_OPTIONS = {"page_checksum_verification": True}


class StudyFileError(InputError):
    """A file that is not a readable study rows file; the message names it."""


def new_run_id() -> str:
    """A fresh run id (16 hex digits): the trials of one run, whatever file they end up in."""
    import uuid

    return uuid.uuid4().hex[:16]


def canonical_json(value) -> str:
    """`value` as canonical JSON (sorted keys, no spaces): equal options, equal text."""
    return json.dumps(value if value is not None else {}, sort_keys=True, separators=(",", ":"))


def import_writer_behind():
    """Start importing what making and writing a rows file takes (pyarrow, its Parquet module, and
    pandas, which pyarrow imports at its first conversion when it is installed: about 0.3 CPU-s) on
    a thread of its own, and return the thread: a study run on workers calls it while they search
    (as `fastsnake.study.stats.import_scipy_stats_behind`). A failed import is left to the writer's
    own, which says why."""
    import threading

    def load():
        try:
            import pyarrow as pa
            import pyarrow.parquet  # noqa: F401

            pa.array([0], pa.int64())
        except Exception:  # noqa: BLE001 - the writer imports it again and reports the error
            pass

    thread = threading.Thread(target=load, name="fastsnake-import-arrow", daemon=True)
    thread.start()
    return thread


def rows_path(out: str, run_id: str) -> str:
    """The file `write_rows` writes for `out`: `out` itself, or ``<out>/<run_id>.parquet`` when
    `out` is a folder (or ends with a separator), so runs pool in one folder."""
    if os.path.isdir(out) or out.endswith(("/", os.sep)):
        return os.path.join(out, f"{run_id}.parquet")
    return out


def check_out(out: str) -> None:
    """Refuse, before any work, an `out` whose folder does not exist or that is not writable."""
    target = out if os.path.isdir(out) or out.endswith(("/", os.sep)) else os.path.dirname(os.path.abspath(out))
    if not os.path.isdir(target):
        raise StudyFileError(f"cannot write {out!r}: folder {target!r} does not exist")
    if not os.access(target, os.W_OK):
        raise StudyFileError(f"cannot write {out!r}: folder {target!r} is not writable")
    if os.path.exists(out) and not os.path.isdir(out) and not os.path.isfile(out):
        raise StudyFileError(f"cannot write {out!r}: it is not a regular file")


def write_rows(table, out: str, meta: dict) -> str:
    """Write the Arrow `table` to `rows_path(out, meta["run_id"])` whole or absent, with `meta`
    (plus ``format`` and a ``checksum`` over both, `fastsnake.study.checksum`) in the footer under
    `META_KEY`; returns the path written."""
    import pyarrow.parquet as pq

    from fastsnake import __version__
    from fastsnake.files import written_atomically
    from fastsnake.study.checksum import all_columns, table_checksum

    path = rows_path(out, meta["run_id"])
    meta = {"format": STUDY_FORMAT, "fastsnake_version": __version__,
            **{k: v for k, v in meta.items() if k not in ("checksum", "fastsnake_version")}}
    meta["checksum"] = table_checksum(meta, table, all_columns(table))
    footer = dict(table.schema.metadata or {})
    footer[META_KEY] = json.dumps(meta, sort_keys=True).encode()
    table = table.replace_schema_metadata(footer)
    with written_atomically(path) as tmp:
        pq.write_table(table, tmp, **WRITE_OPTIONS)
    return path


def run_folder_kind(path) -> str | None:
    """The study kind (``"puzzle"``, ``"tour"``) of the run folder `path` (``--out DIR``), or None
    when it is none."""
    from fastsnake.runs import RunFolder, RunFolderError, is_run_folder

    if not os.path.isdir(path) or not is_run_folder(path):
        return None
    try:
        kind = RunFolder.open(path).identity.get("kind")
    except RunFolderError:
        return "damaged"
    return kind.removesuffix("-study") if isinstance(kind, str) else None


def folder_rows(path, *, partial: bool = False):
    """(the run folder's rows file, or None; the rows its chunks hold, in order): every chunk checked
    against the manifest (`StudyFileError` naming a damaged one); `partial` False: an unfinished
    folder is a `StudyFileError` too."""
    from fastsnake.runs import RunFolder, RunFolderError

    try:
        folder = RunFolder.open(path)
        results = folder.results(partial=partial)
    except RunFolderError as exc:
        raise StudyFileError(str(exc)) from None
    rows = [r for r in results if r is not None]
    rows_file = os.path.join(os.fspath(path), f"{folder.run_id}.parquet")
    return (rows_file if os.path.isfile(rows_file) else None), rows, folder


def read_study(path):
    """(meta, Arrow table) of a study: a rows file (`read_rows`), or a run folder (``--out DIR``) with
    every chunk checked, finished or not: its rows file when the run finished, else the rows its
    finished chunks hold (``meta["complete"]`` False). `StudyFileError` naming what is damaged."""
    import pyarrow as pa

    if not os.path.isdir(path):
        meta, table = read_rows(path)
        return dict(meta, complete=not meta.get("interrupted", False)), table
    rows_file, rows, folder = folder_rows(path, partial=True)
    if rows_file is not None:
        meta, table = read_rows(rows_file)
        _same_run(path, folder, meta, table)
        return dict(meta, complete=True, folder=os.fspath(path)), table
    kind = (folder.identity.get("kind") or "").removesuffix("-study")
    return ({"format": STUDY_FORMAT, "kind": kind, "run_id": folder.run_id, "complete": False,
             "folder": os.fspath(path), "identity": folder.identity}, pa.Table.from_pylist(rows))


def _same_run(path, folder, meta: dict, table) -> None:
    if meta.get("run_id") != folder.run_id or table.num_rows != folder.units:
        raise StudyFileError(f"run folder {os.fspath(path)!r}: its rows file is not its run's "
                             f"({table.num_rows} rows of run {meta.get('run_id')!r}, the folder has {folder.units} "
                             f"of run {folder.run_id!r})")


def read_rows(path: str, *, need_checksum: bool = False):
    """(meta, Arrow table) of a study rows file; `StudyFileError` naming the file otherwise: not
    Parquet, no study footer, another format, or a ``checksum`` that does not match its rows and
    footer (one is required when `need_checksum`: a baseline). A finished run folder (``--out DIR``)
    reads as its rows file once every chunk of it is checked."""
    import pyarrow.parquet as pq

    from fastsnake.files import loads_json
    from fastsnake.reading import check_parquet

    if os.path.isdir(path) and run_folder_kind(path) is not None:
        rows_file, _, folder = folder_rows(path)
        if rows_file is None:
            raise StudyFileError(f"run folder {os.fspath(path)!r} has no rows file: its run did not finish")
        meta, table = read_rows(rows_file, need_checksum=need_checksum)
        _same_run(path, folder, meta, table)
        return meta, table
    if not os.path.lexists(path):
        raise StudyFileError(f"study file {path!r} does not exist")
    try:  # bounded (`fastsnake.reading`): a regular file whose footer is at most PARQUET_FOOTER_MAX
        check_parquet(path, "study file", error=StudyFileError)
    except OSError as exc:
        raise StudyFileError(f"study file {path!r} cannot be read: {exc.strerror or exc}") from None
    try:
        table = pq.read_table(path, **READ_OPTIONS)
    except Exception as exc:  # noqa: BLE001 - any reader failure: not a readable file
        said = " ".join(str(exc).split())[:200]  # one line, however the reader words it
        raise StudyFileError(f"study file {path!r} is not a readable Parquet file: {said}") from None
    raw = (table.schema.metadata or {}).get(META_KEY)
    if raw is None:
        raise StudyFileError(f"{path!r} is not a fastsnake study file (no {META_KEY.decode()!r} footer)")
    try:
        meta = loads_json(raw)  # a footer nested 100,000 deep is a ValueError, not a RecursionError
    except ValueError:
        raise StudyFileError(f"study file {path!r}: its footer is not JSON") from None
    if not isinstance(meta, dict):
        raise StudyFileError(f"study file {path!r}: its footer is not a JSON object")
    from fastsnake.versions import newer_note, warn_if_newer

    version = _written_by(meta, table)
    if meta.get("format") != STUDY_FORMAT:
        raise StudyFileError(f"study file {path!r} has format {meta.get('format')!r}, not {STUDY_FORMAT!r}"
                             + newer_note(version))
    _check_sum(path, meta, table, need_checksum)
    warn_if_newer(f"study file {path!r}", version)
    return meta, table


def _written_by(meta: dict, table) -> str | None:
    """The fastsnake version that wrote a rows file: its footer's, else (files of 0.2.0's development,
    before the footer held it) the newest of its rows'."""
    from fastsnake.versions import release

    said = meta.get("fastsnake_version")
    if said is not None:
        return str(said)
    if "fastsnake_version" not in table.column_names:
        return None
    found = [str(v) for v in table.column("fastsnake_version").unique().to_pylist() if v is not None]
    known = [v for v in found if release(v) is not None]
    return max(known, key=release) if known else None


def read_baseline(path: str, kind: str, trial: str, identity, error=StudyFileError, check=None):
    """(identities by trial id, rows as dicts) of the checksummed rows file `path` of a study of
    `kind` (``"puzzle"``, ``"tour"``): each trial's identity is its first row's `identity` columns,
    its id the column `trial`; `error` (the problem's input error) when the file is of another kind.
    `check(rows, meta)` lists what in the rows contradicts themselves or the instances: any is a
    refusal (`fastsnake.study.baseline.refuse`, the baseline rule)."""
    meta, table = read_rows(path, need_checksum=True)
    if meta.get("kind") != kind:
        raise error(f"baseline {path!r} is a {meta.get('kind')!r} study, not a {kind} study")
    rows = table.to_pylist()
    if check is not None:
        from fastsnake.study.baseline import BaselineMismatch, refuse

        refuse(path, check(rows, meta), BaselineMismatch)
    ident: dict = {}
    for r in rows:
        ident.setdefault(r[trial], {k: r[k] for k in identity})
    return ident, rows


def study_kind(path) -> str | None:
    """The ``kind`` of the study rows file at `path` (``"puzzle"``, ``"tour"``), from its footer
    alone, or of the run folder at `path` (`run_folder_kind`), or None when it is neither (or its
    footer cannot be read)."""
    name = os.fspath(path)
    if os.path.isdir(name):
        return run_folder_kind(name)
    if not os.path.isfile(name):
        return None
    try:
        import pyarrow.parquet as pq

        raw = (pq.read_schema(name).metadata or {}).get(META_KEY)
        return None if raw is None else str(json.loads(raw).get("kind"))
    except Exception:  # noqa: BLE001 - an unreadable footer: not recognisably a study
        return None


def _check_sum(path: str, meta: dict, table, need: bool) -> None:
    from fastsnake.study.checksum import all_columns, table_checksum

    said = meta.get("checksum")
    if said is None and not need:
        return
    if not isinstance(said, str):
        raise StudyFileError(f"study file {path!r} has no checksum: save it again with this fastsnake")
    try:
        found = table_checksum(meta, table, all_columns(table))
    except Exception as exc:  # noqa: BLE001 - a column the checksum cannot read: damaged
        raise StudyFileError(f"study file {path!r}: its rows cannot be checksummed: {exc}") from None
    if found != said:
        raise StudyFileError(f"study file {path!r}: its checksum does not match its rows and footer "
                             "(the file was changed after it was written)")
