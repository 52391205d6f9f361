"""One sweep file: the Parquet format a sweep's rows are kept in, its writer and its checked reader.

Every Parquet file written here carries page checksums, and every read verifies
them and the rows themselves (game indices in order, each seed the one its game
index derives), so a flipped bit is refused, never read back as other games.
"""

from __future__ import annotations

import hashlib
import json
import os

import numpy as np

from fastsnake.errors import InputError
from fastsnake.files import fsync_path, remove_stale_temps, temp_name, written_atomically
from fastsnake.snake.engine import OUTCOME_NAMES, ROW_APPLES, ROW_LENGTH, ROW_MOVES, ROW_OUTCOME
from fastsnake.snake.rng import game_seeds

RECORD_COLUMNS = ("game", "seed", "outcome", "moves", "apples", "length")
PARQUET_META_KEY = b"fastsnake"
# The run that wrote a sweep file (timing, machine, version, date; `report.run_record`), for reports.
RUN_META_KEY = b"fastsnake_run"
# A hash of the parameters' JSON, so that a flipped bit in the (unchecksummed) footer is caught.
PARQUET_META_HASH_KEY = b"fastsnake_sha256"
# The rows a file holds, noted by its writer when it closes: a flipped row count in the footer
# (which no page checksum covers) would otherwise read back as a shorter, valid-looking file.
ROWS_META_KEY = b"fastsnake_rows"
SWEEP_FORMAT = "fastsnake-sweep/1"
# Parquet page checksums: written by every writer, verified by every reader.
WRITE_OPTIONS = {"write_page_checksum": True}
READ_OPTIONS = {"page_checksum_verification": True}


class SweepError(InputError):
    """A sweep asked for something impossible (0 games, too many threads, …)."""


class SweepFileError(SweepError):
    """A sweep file that cannot be used; `reason` is the message's clause after the file's name."""

    def __init__(self, path, reason: str):
        super().__init__(f"{str(path)!r} {reason}")
        self.reason = reason
def rows_table(rows, first_game: int, base_seed: int, parameters: dict):
    """The Parquet/Arrow form of kernel rows (outcome, moves, apples, length) of games from `first_game`."""
    import pyarrow as pa

    count = rows.shape[0]
    outcome_type = pa.dictionary(pa.int32(), pa.string())
    outcome = pa.DictionaryArray.from_arrays(pa.array(rows[:, ROW_OUTCOME].astype(np.int32)), pa.array(OUTCOME_NAMES))
    table = pa.table(
        {
            "game": np.arange(first_game, first_game + count, dtype=np.int64),
            "seed": game_seeds(np.uint64(base_seed), np.int64(first_game), np.int64(count)),
            "outcome": outcome.cast(outcome_type),
            "moves": rows[:, ROW_MOVES].astype(np.int64),
            "apples": rows[:, ROW_APPLES].astype(np.int32),
            "length": rows[:, ROW_LENGTH].astype(np.int32),
        }
    )
    return with_parameters(table, parameters)


def with_parameters(table, parameters: dict):
    """`table` carrying the sweep's parameters (and their hash) in its schema metadata."""
    raw = json.dumps(parameters).encode()
    meta = dict(table.schema.metadata or {})
    meta[PARQUET_META_KEY] = raw
    meta[PARQUET_META_HASH_KEY] = hashlib.sha256(raw).hexdigest().encode()
    return table.replace_schema_metadata(meta)


def partial_name(path) -> str:
    """Where an interrupted sweep keeps its finished games: `big.partial.parquet` beside
    `big.parquet` (`big.partial-2.parquet` ... if that exists: an earlier run's games stay)."""
    text = str(path)
    stem = text[: -len(".parquet")] if text.endswith(".parquet") else text
    candidate, k = f"{stem}.partial.parquet", 2
    while os.path.lexists(candidate):
        candidate, k = f"{stem}.partial-{k}.parquet", k + 1
    return candidate


class ParquetStream:
    """Rows written as they finish, one row group per chunk, to a temporary file that becomes
    `path` on `close()` when every game is played. An interrupted sweep keeps its finished games
    under `partial_name(path)` (`keep_partial()`), never under `path`, so a complete file there
    stays; a killed one leaves `path` as it was, and the dot-file it leaves beside it is removed
    by the next sweep to that name once its process is gone."""

    def __init__(self, path, parameters: dict, base_seed: int):
        self.path = str(path)
        folder, name = os.path.split(os.path.abspath(self.path))
        remove_stale_temps(folder, f".{name}.partial-")
        self.tmp = temp_name(self.path)
        self.parameters, self.base_seed = parameters, base_seed
        self.writer = None
        self.rows = 0

    def write(self, first_game: int, rows) -> None:
        import pyarrow.parquet as pq

        table = rows_table(rows, first_game, self.base_seed, self.parameters)
        try:
            if self.writer is None:
                self.writer = pq.ParquetWriter(self.tmp, table.schema, **WRITE_OPTIONS)
            self.writer.write_table(table)
            self.rows += table.num_rows
        except OSError as exc:
            self.abort()
            raise SweepError(f"cannot write {self.path!r}: {exc.strerror or exc}") from None

    def close(self, run: dict | None = None) -> str:
        """Every game is played: the file becomes `path`; returns `path`. `run` (timing, machine,
        date; `report.run_record`) goes into the footer for reports."""
        return self._finish(self.path, run)

    def keep_partial(self, run: dict | None = None) -> str:
        """The sweep stopped early: its finished games go to a name of their own (returned)."""
        return self._finish(partial_name(self.path), run)

    def _finish(self, final: str, run: dict | None = None) -> str:
        import pyarrow.parquet as pq

        try:
            if self.writer is None:  # no chunk finished: still a valid, empty sweep file
                table = rows_table(np.zeros((0, 4), np.int64), 0, self.base_seed, self.parameters)
                self.writer = pq.ParquetWriter(self.tmp, table.schema, **WRITE_OPTIONS)
                self.writer.write_table(table)
            footer = {ROWS_META_KEY: str(self.rows).encode()}
            if run is not None:
                footer[RUN_META_KEY] = json.dumps(run).encode()
            self.writer.add_key_value_metadata(footer)
            self.writer.close()
            fsync_path(self.tmp)
            os.replace(self.tmp, final)
            fsync_path(os.path.dirname(os.path.abspath(final)))
        except OSError as exc:
            self.abort()
            raise SweepError(f"cannot write {final!r}: {exc.strerror or exc}") from None
        return final

    def abort(self) -> None:
        try:
            if self.writer is not None:
                self.writer.close()
        except OSError:
            pass
        try:
            os.unlink(self.tmp)
        except OSError:
            pass


def write_table_atomically(table, path) -> None:
    """Write a Parquet file under a dot-name and rename it when complete: a failed or killed
    write never leaves a partial file under `path`."""
    import pyarrow.parquet as pq

    try:
        with written_atomically(path) as tmp, pq.ParquetWriter(tmp, table.schema, **WRITE_OPTIONS) as writer:
            writer.write_table(table)
            writer.add_key_value_metadata({ROWS_META_KEY: str(table.num_rows).encode()})
    except OSError as exc:
        raise SweepError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None


def read_parquet(path):
    """(parameters dict, pyarrow table) of a sweep file; SweepError if it is not one.

    A sweep folder is read by `fastsnake.snake.dataset.read_sweep` (file or folder), which
    sits above this module (the dataset code runs sweeps, so this one cannot import it).
    """
    if os.path.isdir(str(path)):
        raise SweepError(f"{str(path)!r} is a sweep folder, not a sweep file (read it with dataset.read_sweep)")
    if not os.path.lexists(str(path)):
        raise SweepError(f"sweep file {str(path)!r} does not exist")
    params, table = read_sweep_table(path)
    problem = row_problem(table, params)
    if problem:
        raise SweepError(f"sweep file {str(path)!r} is damaged ({problem}); it cannot be trusted: run the sweep again")
    return params, table


def read_sweep_table(path):
    """(parameters, table) of one sweep Parquet file, its page checksums and parameter hash
    verified; SweepError naming the file for anything unreadable or foreign."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(str(path), **READ_OPTIONS)
        # The footer (schema, names, lengths) has no page checksum: a flipped bit there can make
        # invalid UTF-8, an impossible type, or arrays that disagree; validation sees them all.
        table.validate(full=True)
        names = table.column_names
    except FileNotFoundError:
        raise SweepError(f"sweep file {str(path)!r} does not exist") from None
    except IsADirectoryError:
        raise SweepFileError(path, "is a folder, not a sweep file") from None
    except (OSError, ValueError, NotImplementedError, MemoryError, pa.ArrowException) as exc:
        # pyarrow's own text is a paragraph; the cause fits in a clause
        if "checksum" in str(exc).lower():
            raise SweepFileError(path, "is damaged (a page checksum does not match)") from None
        raise SweepFileError(path, "is not a readable Parquet file (cut short, damaged, or another format)") from None
    meta = table.schema.metadata or {}
    raw = meta.get(PARQUET_META_KEY)
    missing = [c for c in RECORD_COLUMNS if c not in names]
    if raw is None or missing:
        raise SweepFileError(path, f"is not a fastsnake sweep file (no sweep parameters or columns {missing})")
    for name, kind in _record_types().items():
        column = table.column(name)
        if column.type != kind or column.null_count:  # a flipped type or null flag in the footer
            raise SweepFileError(path, f"is damaged (column {name!r} is {column.type}"
                                       f"{' with nulls' if column.null_count else ''}, not {kind})")
    stored_rows = _stored_row_count(path)
    if stored_rows is not None and stored_rows != table.num_rows:
        raise SweepFileError(path, f"is damaged ({table.num_rows} rows where {stored_rows} were written)")
    digest = meta.get(PARQUET_META_HASH_KEY)
    if digest is not None and hashlib.sha256(raw).hexdigest().encode() != digest:
        raise SweepFileError(path, "is damaged (its sweep parameters do not match their hash)")
    try:
        params = json.loads(raw)
        if not isinstance(params, dict):
            raise ValueError
    except ValueError:
        raise SweepFileError(path, "is damaged (its sweep parameters are not valid JSON)") from None
    return params, table


def _record_types() -> dict:
    """The Arrow type of each record column, as `rows_table` writes it."""
    schema = rows_table(np.zeros((0, 4), np.int64), 0, 0, {}).schema
    return {name: schema.field(name).type for name in RECORD_COLUMNS}


def _stored_row_count(path) -> int | None:
    """The row count a writer noted in the file's key-value metadata (None for files without)."""
    import pyarrow.parquet as pq

    try:
        raw = (pq.read_metadata(str(path)).metadata or {}).get(ROWS_META_KEY)
        return None if raw is None else int(raw)
    except (OSError, ValueError, TypeError):
        return -1


def row_problem(table, params: dict, first: int | None = None) -> str | None:
    """Why the rows of `table` are not games first, first+1, ... of the sweep `params` describes
    (each with the seed its index derives), or None. Catches what a page checksum cannot: a
    file of another sweep, rows out of order, a damaged footer."""
    try:
        base_seed = int(params["seed"])
        first = int(params.get("first_game", 0)) if first is None else first
    except (KeyError, TypeError, ValueError):
        return "its sweep parameters have no valid seed"
    games = table.column("game").to_numpy(zero_copy_only=False)
    if games.shape[0] == 0:
        return None
    expected = np.arange(first, first + games.shape[0], dtype=np.int64)
    if not np.array_equal(games, expected):
        at = int(np.flatnonzero(games != expected)[0])
        return f"row {at} holds game {int(games[at])} where game {int(expected[at])} belongs"
    seeds = table.column("seed").to_numpy(zero_copy_only=False).astype(np.uint64)
    want = game_seeds(np.uint64(base_seed), np.int64(first), np.int64(games.shape[0]))
    if not np.array_equal(seeds, want):
        at = int(np.flatnonzero(seeds != want)[0])
        return f"game {int(games[at])} has seed {int(seeds[at])}, not the seed {int(want[at])} of seed {base_seed}"
    return None
