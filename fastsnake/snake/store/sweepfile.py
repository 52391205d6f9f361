"""One sweep file: the Parquet format a sweep's rows are kept in, its writer and its checked reader.

Every Parquet file written here carries page checksums, and every read verifies
them and the rows themselves (game indices in order, each seed the one its game
index derives), so a flipped bit is refused, never read back as other games.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil

import numpy as np

from fastsnake.errors import InputError
from fastsnake.files import (
    MAX_TEXT_CHARS,
    SHOWN_CHARS,
    NotRegularFile,
    fsync_path,
    parquet_footer_problem,
    printable,
    remove_stale_temps,
    shown_value,
    temp_name,
    written_atomically,
)
from fastsnake.signals import raise_if_received
from fastsnake.snake import record
from fastsnake.snake.board import MAX_SIDE, MIN_SIDE, TAIL_RULES
from fastsnake.snake.engine import DIED, OUTCOME_NAMES, STUCK, WON
from fastsnake.snake.rng import MAX_GAMES, game_seeds, seeds_of_games
from fastsnake.study.rows import canonical_json, new_run_id  # noqa: F401  (new_run_id: the store's too)

# The game record's columns (`fastsnake.snake.record`, their one declaration), as of import.
RECORD_COLUMNS = record.names()
PARQUET_META_KEY = b"fastsnake"
# The run that wrote a sweep file (timing, machine, version, date; `report.run_record`), for reports.
RUN_META_KEY = b"fastsnake_run"
# A compare file's runs: [{"parameters": ..., "run": ...}, ...], one per policy and board, in file order.
COMPARE_META_KEY = b"fastsnake_compare"
# A hash of the parameters' JSON, so that a flipped bit in the (unchecksummed) footer is caught.
PARQUET_META_HASH_KEY = b"fastsnake_sha256"
# The rows a file holds, noted by its writer when it closes: a flipped row count in the footer
# (which no page checksum covers) would otherwise read back as a shorter, valid-looking file.
ROWS_META_KEY = b"fastsnake_rows"
# /3: every identity column below; /2: the first five of them and the parameters' hash required;
# /1 files (none) still read, every reader filling the columns they lack (`conform`).
SWEEP_FORMAT = "fastsnake-sweep/3"
SWEEP_FORMATS = ("fastsnake-sweep/1", "fastsnake-sweep/2", SWEEP_FORMAT)
# The run's identity as columns (constant in a run; Parquet stores each as one dictionary entry and
# run lengths), so that DuckDB, polars or pandas read several sweeps as one table and group by them:
# the policy that played (an alias resolved: grove for strongest) and the name asked, its options
# as canonical JSON, the board, rules, move cap, base seed, the fastsnake version and a run id.
IDENTITY_COLUMNS = ("policy", "policy_asked", "options", "rows", "cols", "tail_rule", "start_length", "max_moves",
                    "base_seed", "fastsnake_version", "run_id")
# The identity columns format /2 required (a /2 file lacking one is damaged).
IDENTITY_COLUMNS_2 = ("policy", "rows", "cols", "tail_rule", "start_length")
# Rows read at once: every reader's memory is bounded by a few batches, whatever the file's size.
BATCH_ROWS = 1 << 18
# Bytes a column of a sweep file may take a row once inflated (its widest value is 8 bytes), and
# beyond that a column chunk (its dictionary: a policy name, options of at most MAX_TEXT_CHARS
# characters, levels and page headers): a footer declaring more is refused before a row is read.
MAX_ROW_BYTES = 64
MAX_CHUNK_EXTRA = 1 << 20
# Bytes pyarrow reads from the file at once (`SweepFile._tables`).
READ_BUFFER = 1 << 20
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
def arrow_type(column):
    """The Arrow type of a record column (`fastsnake.snake.record.Column`)."""
    import pyarrow as pa

    if column.arrow == "outcome":
        return pa.dictionary(pa.int32(), pa.string())
    return getattr(pa, column.arrow)()


def numpy_type(column):
    """The numpy type a record column's values are handled in (outcome codes: int8)."""
    return np.int8 if column.arrow == "outcome" else np.dtype(column.arrow)


def record_array(column, values):
    """The Arrow array of a record column from its kernel values (outcome codes become words)."""
    import pyarrow as pa

    if column.arrow == "outcome":
        codes = pa.array(np.asarray(values).astype(np.int32))
        return pa.DictionaryArray.from_arrays(codes, pa.array(OUTCOME_NAMES)).cast(arrow_type(column))
    return pa.array(np.asarray(values).astype(numpy_type(column)), arrow_type(column))


def rows_table(rows, first_game: int, base_seed: int, parameters: dict, identity: bool = True):
    """The Parquet/Arrow form of kernel rows (one slot per `record.kernel_columns()`) of games from
    `first_game`; with `identity` (every file we write) the run's identity columns too (`parameters`
    carry the run's ``run_id`` and ``version`` in every file this version writes)."""
    import pyarrow as pa

    count = rows.shape[0]
    columns = {}
    for column in record.columns():
        if column.name == "game":
            columns["game"] = np.arange(first_game, first_game + count, dtype=np.int64)
        elif column.name == "seed":
            columns["seed"] = game_seeds(np.uint64(base_seed), np.int64(first_game), np.int64(count))
        else:
            columns[column.name] = record_array(column, rows[:, column.slot])
    if identity:
        columns.update(identity_columns(parameters, count))
    return with_parameters(pa.table(columns), parameters)


def with_absent_columns(table):
    """`table` with every record column it lacks (an optional one, from a file written before it
    existed) added as nulls, in the record's order before the other columns: absent, never 0."""
    import pyarrow as pa

    missing = [c for c in record.columns() if c.name not in table.column_names]
    if not missing:
        return table
    meta = table.schema.metadata
    for column in missing:
        at = record.names().index(column.name)
        table = table.add_column(min(at, table.num_columns), column.name,
                                 pa.nulls(table.num_rows, arrow_type(column)))
    return table.replace_schema_metadata(meta)


def canonical_options(options) -> str:
    """Options as canonical JSON (sorted keys, no spaces; none as ``{}``): equal options, equal
    text (`fastsnake.study.rows.canonical_json`)."""
    return canonical_json(options or {})


def derived_run_id(text) -> str:
    """A run id for a run that recorded none (files and folders written before run ids): a hash of
    its recorded parameters, so every read of it gives the same id."""
    raw = text if isinstance(text, bytes) else json.dumps(text, sort_keys=True).encode()
    return "h" + hashlib.sha256(raw).hexdigest()[:15]


def with_run(parameters: dict) -> dict:
    """`parameters` with the ``run_id`` (a new one unless they have one) and ``version`` of this run."""
    from fastsnake import __version__

    return dict(parameters, run_id=parameters.get("run_id") or new_run_id(), version=__version__)


def identity_values(parameters: dict, run_id: str | None = None, version: str | None = None) -> dict:
    """The value of each identity column for the rows of the run `parameters` describes (a file's
    or chunk's footer, or a manifest's sweep). `run_id` / `version` default to the parameters' own
    (``run_id``, ``version``), else an id derived from the parameters and "unknown". The policy that
    played is the parameters' ``policy_resolved`` (its writer knew it: `grove` for `strongest`), else,
    in files written before, the name asked (the store loads no policy to find out)."""
    asked = str(parameters["policy"])
    return {"policy": str(parameters.get("policy_resolved") or asked), "policy_asked": asked,
            "options": canonical_options(parameters.get("options")), "rows": int(parameters["rows"]),
            "cols": int(parameters["cols"]), "tail_rule": str(parameters["tail_rule"]),
            "start_length": int(parameters["start_length"]), "max_moves": int(parameters["max_moves"]),
            "base_seed": int(parameters["seed"]),
            "fastsnake_version": str(version or parameters.get("version") or "unknown"),
            "run_id": str(run_id or parameters.get("run_id") or derived_run_id(
                {k: v for k, v in parameters.items() if k not in ("code", "chunk_size", "format")}))}


def identity_types() -> dict:
    """The Arrow type of each identity column: words dictionary-encoded, numbers small integers."""
    import pyarrow as pa

    words = pa.dictionary(pa.int32(), pa.string())
    return {"policy": words, "policy_asked": words, "options": words, "rows": pa.int16(), "cols": pa.int16(),
            "tail_rule": words, "start_length": pa.int32(), "max_moves": pa.int64(), "base_seed": pa.uint64(),
            "fastsnake_version": words, "run_id": words}


def identity_columns(parameters: dict, count: int, run_id: str | None = None, version: str | None = None) -> dict:
    """The identity columns of `count` rows of the run `parameters` describes (`identity_values`):
    constant in a run, so Parquet stores each as one dictionary entry and run lengths."""
    import pyarrow as pa

    values = identity_values(parameters, run_id, version)
    out = {}
    for name, kind in identity_types().items():
        if pa.types.is_dictionary(kind):
            out[name] = pa.DictionaryArray.from_arrays(pa.array(np.zeros(count, np.int32)), pa.array([values[name]]))
        else:
            out[name] = pa.array(np.full(count, values[name], kind.to_pandas_dtype()), kind)
    return out


def schema_names() -> tuple[str, ...]:
    """Every sweep, compare and folder file's columns, in order: the game record, then the identity."""
    return record.names() + IDENTITY_COLUMNS


def conform(table, identity: dict):
    """`table` in the one schema (`schema_names`, the types of `record_types` and `identity_types`):
    a record column it lacks is null (absent), an identity column it lacks is filled from
    `identity` (`identity_values` of its run), a string column becomes dictionary-encoded, and the
    columns are put in order. Rows written by this version pass through unchanged."""
    import pyarrow as pa

    meta = table.schema.metadata
    table = with_absent_columns(table)
    types = dict(record_types(), **identity_types())
    columns = []
    for name in schema_names():
        kind = types[name]
        if name in table.column_names:
            column = table.column(name)
            if column.type != kind:
                column = column.cast(kind)
        elif pa.types.is_dictionary(kind):
            column = pa.DictionaryArray.from_arrays(pa.array(np.zeros(table.num_rows, np.int32)),
                                                    pa.array([identity[name]]))
        else:
            column = pa.array(np.full(table.num_rows, identity[name], kind.to_pandas_dtype()), kind)
        columns.append(column)
    return pa.table(columns, names=list(schema_names())).replace_schema_metadata(meta)


def with_parameters(table, parameters: dict):
    """`table` carrying the sweep's parameters (and their hash) in its schema metadata."""
    raw = json.dumps(parameters).encode()
    meta = dict(table.schema.metadata or {})
    meta[PARQUET_META_KEY] = raw
    meta[PARQUET_META_HASH_KEY] = hashlib.sha256(raw).hexdigest().encode()
    return table.replace_schema_metadata(meta)


# A streamed file's size is estimated once it holds this many games (its first chunks).
DISK_ESTIMATE_ROWS = 4096


def check_disk(path, written: int, done: int, total: int) -> None:
    """After a sweep's first chunk: SweepError naming the size when the rest, estimated from the
    `written` bytes its first `done` games took, will not fit on the disk holding `path`."""
    if done <= 0 or total <= done:
        return
    folder = os.path.dirname(os.path.abspath(str(path)))
    need = written * (total - done) // done
    free = shutil.disk_usage(folder).free
    if need > free:
        raise SweepError(f"the sweep of {total:,} games needs about {human_bytes(written * total // done)} "
                         f"({written:,} bytes for its first {done:,}), and {folder!r} has {human_bytes(free)} "
                         "free: free some space, write elsewhere or sweep fewer games")


def human_bytes(n: int) -> str:
    for unit, size in (("TB", 10**12), ("GB", 10**9), ("MB", 10**6), ("kB", 10**3)):
        if n >= size:
            return f"{n / size:.1f} {unit}"
    return f"{n} bytes"


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
        self.parameters, self.base_seed = with_run(parameters), base_seed
        self.writer = None
        self.rows = 0
        self.disk_checked = False

    def write(self, first_game: int, rows) -> None:
        import pyarrow.parquet as pq

        table = rows_table(rows, first_game, self.base_seed, self.parameters)
        try:
            if self.writer is None:
                self.writer = pq.ParquetWriter(self.tmp, table.schema, **WRITE_OPTIONS)
            self.writer.write_table(table)
            self.rows += table.num_rows
            total = int(self.parameters.get("games", 0))
            if not self.disk_checked and self.rows >= min(total, DISK_ESTIMATE_ROWS):
                self.disk_checked = True  # once, from enough games that the file's fixed overhead is small
                check_disk(self.tmp, os.path.getsize(self.tmp), self.rows, total)
        except OSError as exc:
            self.abort()
            raise SweepError(f"cannot write {self.path!r}: {exc.strerror or exc}") from None
        except SweepError:
            self.abort()
            raise

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
                table = rows_table(np.zeros((0, record.width()), np.int64), 0, self.base_seed, self.parameters)
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
        writer, self.writer = self.writer, None  # a second abort (the caller's, after ours) does nothing
        try:
            if writer is not None:
                writer.close()
        except (OSError, ValueError):
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


# -- reading ----------------------------------------------------------------------------------------

def _whole(value, low: int, high: int) -> bool:
    return not isinstance(value, bool) and isinstance(value, int) and low <= value <= high


def parameters_problem(params) -> str | None:
    """Why `params` (a footer's or a manifest's JSON) cannot describe a sweep, or None: every value
    possible (a crafted seed of -1, 2**70 or NaN, options that are no object …), so no reader
    fails on them later with an overflow or a type error."""
    if not isinstance(params, dict):
        return f"its sweep parameters are {type(params).__name__}, not an object"
    checks = (
        ("policy", lambda v: isinstance(v, str) and 0 < len(v) <= 200, "a policy name"),
        ("rows", lambda v: _whole(v, MIN_SIDE, MAX_SIDE), f"a whole number {MIN_SIDE}..{MAX_SIDE}"),
        ("cols", lambda v: _whole(v, MIN_SIDE, MAX_SIDE), f"a whole number {MIN_SIDE}..{MAX_SIDE}"),
        ("tail_rule", lambda v: v in TAIL_RULES, f"one of {', '.join(TAIL_RULES)}"),
        ("max_moves", lambda v: _whole(v, 1, 2**62), "a whole number 1..2**62"),
        ("seed", lambda v: _whole(v, 0, 2**64 - 1), "a whole number 0..2**64-1"),
    )
    for name, ok, wanted in checks:
        if name not in params:
            return f"its sweep parameters have no {name!r}"
        if not ok(params[name]):
            return f"its parameter {name!r} is {short(params[name])}, not {wanted}"
    cells = params["rows"] * params["cols"]
    if not _whole(params.get("start_length"), 1, cells - 1):
        value = short(params.get("start_length"))
        return f"its parameter 'start_length' is {value}, not a whole number 1..{cells - 1}"
    for name in ("first_game", "games", "chunk_size"):
        if name in params and not _whole(params[name], 0 if name != "chunk_size" else 1, MAX_GAMES):
            return f"its parameter {name!r} is {short(params[name])}, not a whole number 0..2**62"
    if not isinstance(params.get("options", {}), dict):
        return f"its parameter 'options' is {short(params.get('options'))}, not an object"
    if len(canonical_options(params.get("options"))) > MAX_TEXT_CHARS:
        return (f"its parameter 'options' is {len(canonical_options(params.get('options'))):,} characters of JSON, "
                f"more than the {MAX_TEXT_CHARS:,} a sweep's options hold")
    if "format" in params and params["format"] not in SWEEP_FORMATS:
        return f"its format is {short(params['format'])}, not one of {', '.join(SWEEP_FORMATS)}"
    return None


def distinct_words(column) -> list:
    """The distinct values a dictionary-encoded column's rows use, each read once from its dictionary
    (never cast to one string a row: a long word times every row is no allocation we make)."""
    import pyarrow.compute as pc

    seen: list = []
    for chunk in column.chunks:
        for word in chunk.dictionary.take(pc.unique(chunk.indices).drop_null()).to_pylist():
            if word not in seen:
                seen.append(word)
    return seen


def text_problem(table) -> str | None:
    """Why a batch's text columns cannot be a sweep's (a word longer than `MAX_TEXT_CHARS`), or
    None; measured on the dictionaries, before any column is turned into one string a row."""
    import pyarrow as pa
    import pyarrow.compute as pc

    for name in table.column_names:
        column = table.column(name)
        for chunk in column.chunks:
            words = chunk.dictionary if pa.types.is_dictionary(column.type) else chunk
            if not (pa.types.is_string(words.type) or pa.types.is_binary(words.type)) or not len(words):
                continue
            longest = pc.max(pc.binary_length(words)).as_py() or 0
            if longest > MAX_TEXT_CHARS:
                return f"its {printable(name, SHOWN_CHARS)!r} column holds a value of {longest:,} bytes, " \
                       f"more than the {MAX_TEXT_CHARS:,} a sweep file's text holds"
    return None


def short(value) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def values_problem(table, params: dict) -> str | None:
    """Why the rows of `table` cannot be games played under `params`' rules, or None: moves
    between 0 and the cap, the length its start plus its apples and at most the board, a won game
    filling the board, an outcome that is one of won, died, stuck; identity columns, where present,
    those of the parameters."""
    import pyarrow as pa
    import pyarrow.compute as pc

    if table.num_rows == 0:
        return None
    cells = params["rows"] * params["cols"]
    outcome = table.column("outcome").combine_chunks()
    names = outcome.dictionary.to_pylist() if pa.types.is_dictionary(outcome.type) else None
    if names is None:
        return "its outcome column is not dictionary-encoded"
    known = {OUTCOME_NAMES[WON]: WON, OUTCOME_NAMES[DIED]: DIED, OUTCOME_NAMES[STUCK]: STUCK}
    lookup = np.array([known.get(w, -1) for w in names] or [-1], np.int64)
    indices = outcome.indices.to_numpy(zero_copy_only=False)
    if indices.size and (indices.min() < 0 or indices.max() >= len(lookup)):
        return "an outcome index is outside its dictionary"
    codes = lookup[indices]
    games = table.column("game").to_numpy()
    moves = table.column("moves").to_numpy()
    apples = table.column("apples").to_numpy().astype(np.int64)
    length = table.column("length").to_numpy().astype(np.int64)
    problems = (
        (codes < 0, "has an outcome that is not won, died or stuck"),
        ((moves < 0) | (moves > params["max_moves"]), f"has moves outside 0..{params['max_moves']}"),
        ((length < 1) | (length > cells), f"has a length outside 1..{cells}"),
        (length != params["start_length"] + apples, f"has a length that is not {params['start_length']} + its apples"),
        ((codes == WON) & (length != cells), f"was won with a length below {cells}"),
    )
    for bad, what in problems:
        if bad.any():
            at = int(np.flatnonzero(bad)[0])
            return (f"game {int(games[at])} {what} (moves {int(moves[at])}, apples {int(apples[at])}, "
                    f"length {int(length[at])}): not a possible game")
    identity = identity_values(params)
    for name in IDENTITY_COLUMNS:
        if name in table.column_names and (name not in ("run_id", "fastsnake_version") or
                                           {"run_id": "run_id", "fastsnake_version": "version"}[name] in params):
            column = table.column(name)
            values = distinct_words(column) if pa.types.is_dictionary(column.type) else \
                pc.unique(column).to_pylist()
            # (`policy` held the name asked before it held the policy that played: both are right)
            if values != [identity[name]] and not (name == "policy" and values == [identity["policy_asked"]]):
                return (f"its {name!r} column holds {short(values[:3])} where its parameters say "
                        f"{shown_value(identity[name])}")
    return None


class SweepFile:
    """One sweep Parquet file opened for checked reading: its footer checked at once (page
    checksums on, the parameters' hash, every column's type, the row count its writer noted),
    its rows a batch at a time (`batches`), each checked as it is read (`row_problem`,
    `values_problem`). Memory is bounded by a batch whatever the file's size.

    Raises SweepFileError naming the file for anything unreadable, foreign or damaged; a
    MemoryError is never reported as damage."""

    def __init__(self, path):
        import pyarrow as pa
        import pyarrow.parquet as pq

        self.path = str(path)
        if os.path.isdir(self.path):
            raise SweepFileError(path, "is a folder, not a sweep file")
        try:
            problem = parquet_footer_problem(self.path)  # a FIFO or device: refused, never opened
        except FileNotFoundError:
            raise SweepError(f"sweep file {self.path!r} does not exist") from None
        except NotRegularFile as exc:
            raise SweepFileError(path, exc.reason) from None
        if problem:
            raise SweepFileError(path, f"is not a sweep file fastsnake reads ({problem})")
        try:
            self.file = pq.ParquetFile(self.path, **READ_OPTIONS)
            schema = self.file.schema_arrow
            self.num_rows = self.file.metadata.num_rows
            meta = self.file.metadata.metadata or {}
        except FileNotFoundError:
            raise SweepError(f"sweep file {self.path!r} does not exist") from None
        except MemoryError:
            raise
        except (OSError, ValueError, TypeError, NotImplementedError, pa.ArrowException):
            raise SweepFileError(path, "is not a readable Parquet file (cut short, damaged, or another format)") \
                from None
        problem = declared_size_problem(self.file.metadata)
        if problem:
            raise SweepFileError(path, f"is not a sweep file fastsnake reads ({problem})")
        self.metadata = meta
        raw = meta.get(PARQUET_META_KEY)
        names = schema.names
        missing = [c for c in record.required() if c not in names]
        if raw is None or missing:
            lacks = "sweep parameters" if raw is None else f"{missing[0]!r} column"
            raise SweepFileError(path, f"is not a fastsnake sweep file (no {lacks})")
        for name, kind in record_types().items():
            if name in names and schema.field(name).type != kind:  # a flipped type in the footer
                raise SweepFileError(path, f"is damaged (column {name!r} is {schema.field(name).type}, not {kind})")
        digest = meta.get(PARQUET_META_HASH_KEY)
        if digest is not None and hashlib.sha256(raw).hexdigest().encode() != digest:
            raise SweepFileError(path, "is damaged (its sweep parameters do not match their hash)")
        try:
            params = json.loads(raw)
        except (ValueError, RecursionError):
            raise SweepFileError(path, "is damaged (its sweep parameters are not valid JSON)") from None
        problem = parameters_problem(params)
        if problem:
            raise SweepFileError(path, f"is damaged ({problem})")
        if params.get("format") in SWEEP_FORMATS[1:]:
            if digest is None:
                raise SweepFileError(path, "is damaged (its sweep parameters have no hash)")
            wanted = IDENTITY_COLUMNS if params["format"] == SWEEP_FORMAT else IDENTITY_COLUMNS_2
            absent = [c for c in wanted if c not in names]
            if absent:
                raise SweepFileError(path, f"is damaged (no {absent[0]!r} column)")
        stored = _stored_row_count(meta)
        if stored is not None and stored != self.num_rows:
            raise SweepFileError(path, f"is damaged ({self.num_rows} rows where {stored} were written)")
        self.parameters = params
        try:
            self.run = json.loads(meta[RUN_META_KEY]) if RUN_META_KEY in meta else {}
        except ValueError:
            self.run = {}
        if not isinstance(self.run, dict):
            self.run = {}
        self.sections = self._sections(meta)
        # What fills the identity columns a file of an older format lacks (`conform`); a folder's
        # reader sets its manifest's instead.
        self.identity = identity_values(params, run_id=params.get("run_id") or derived_run_id(raw),
                                        version=params.get("version") or self.run.get("fastsnake"))

    def _sections(self, meta: dict) -> list[dict] | None:
        """A compare file's runs (their parameters, in file order), or None for a sweep file."""
        raw = meta.get(COMPARE_META_KEY)
        if raw is None:
            return None
        try:
            entries = json.loads(raw)
            sections = [dict(e["parameters"], run=e.get("run") or {}) for e in entries]
        except (ValueError, TypeError, KeyError, RecursionError):
            raise SweepFileError(self.path, "is damaged (its compare record is not valid JSON)") from None
        for section in sections:
            problem = parameters_problem({k: v for k, v in section.items() if k != "run"})
            if problem:
                raise SweepFileError(self.path, f"is damaged ({problem})")
        return sections

    @staticmethod
    def section_key(params: dict) -> tuple:
        """What tells a compare file's runs apart: (policy as asked, rows, cols)."""
        return str(params["policy"]), int(params["rows"]), int(params["cols"])

    def section_parts(self, table):
        """A compare file's rows cut into (section parameters, rows) runs, in order; SweepFileError
        for rows of no recorded run."""
        import pyarrow as pa

        name = "policy_asked" if "policy_asked" in table.column_names else "policy"
        words = table.column(name)
        words = (words.cast(pa.string()) if pa.types.is_dictionary(words.type) else words).to_pylist()
        first = self.sections[0]
        rows = table.column("rows").to_pylist() if "rows" in table.column_names else [first["rows"]] * len(words)
        cols = table.column("cols").to_pylist() if "cols" in table.column_names else [first["cols"]] * len(words)
        known = {self.section_key(s): s for s in self.sections}
        start = 0
        for k in range(1, len(words) + 1):
            if k == len(words) or (words[k], rows[k], cols[k]) != (words[start], rows[start], cols[start]):
                key = (words[start], rows[start], cols[start])
                if key not in known:
                    raise SweepFileError(self.path, f"is damaged (rows of {key[0]} {key[1]}x{key[2]}, a run its "
                                                    "compare record does not list)")
                yield known[key], table.slice(start, k - start)
                start = k

    def batches(self, first: int | None = None, *, check: bool = True, batch_rows: int = BATCH_ROWS):
        """The file's rows as pyarrow tables of at most `batch_rows` rows, in order; with `check`
        (default) each must hold games first, first+1, … (default: the parameters' first game)
        with their own seeds and possible values. SweepFileError at the first damaged batch.
        A compare file's rows are checked run by run, each against its own parameters."""
        if self.sections is not None:
            yield from self._compare_batches(check, batch_rows)
            return
        yield from self._sweep_batches(first, check, batch_rows)

    def _compare_batches(self, check: bool, batch_rows: int):
        import pyarrow as pa

        expected = {}
        for table in self._sweep_batches(None, False, batch_rows, raw=True):
            parts = []
            for section, part in self.section_parts(table):
                key = self.section_key(section)
                at = expected.get(key, int(section.get("first_game", 0)))
                if check:
                    problem = row_problem(part, section, at) or values_problem(part, section)
                    if problem:
                        raise SweepFileError(self.path, f"is damaged ({key[0]} {key[1]}x{key[2]}: {problem})")
                expected[key] = at + part.num_rows
                own = identity_values(section, run_id=section.get("run_id") or derived_run_id(section),
                                      version=section.get("version") or section["run"].get("fastsnake"))
                parts.append(conform(part, own))
            if parts:
                yield pa.concat_tables(parts)

    def _sweep_batches(self, first, check: bool, batch_rows: int, raw: bool = False):
        import pyarrow as pa

        params = self.parameters
        expected = int(params.get("first_game", 0)) if first is None else first
        rows = 0
        try:
            for table in self._tables(batch_rows):
                raise_if_received()  # a Ctrl-C that pyarrow's lazy import of pandas swallowed
                # The footer (names, lengths, null flags) has no page checksum: validation sees a flip.
                table.validate(full=True)
                problem = text_problem(table)
                if problem:
                    raise SweepFileError(self.path, f"is damaged ({problem})")
                for name in record.required():
                    if table.column(name).null_count:
                        raise SweepFileError(self.path, f"is damaged (column {name!r} has nulls)")
                if check:
                    problem = row_problem(table, params, expected) or values_problem(table, params)
                    if problem:
                        raise SweepFileError(self.path, f"is damaged ({problem})")
                expected += table.num_rows
                rows += table.num_rows
                yield table if raw else conform(table, self.identity)
        except MemoryError:
            raise
        except (OSError, ValueError, TypeError, NotImplementedError, pa.ArrowException) as exc:
            if isinstance(exc, SweepFileError):
                raise
            # pyarrow's own text is a paragraph; the cause fits in a clause
            if "checksum" in str(exc).lower():
                raise SweepFileError(self.path, "is damaged (a page checksum does not match)") from None
            raise SweepFileError(self.path, "is not a readable Parquet file (cut short, damaged, or another format)") \
                from None
        if rows != self.num_rows:
            raise SweepFileError(self.path, f"is damaged ({rows} rows read where its footer says {self.num_rows})")

    def _tables(self, batch_rows: int):
        """The rows in tables of at most `batch_rows` rows, read in slices of one row group at a time
        (`iter_batches` over a single row group, the file read through a buffer of `READ_BUFFER`
        bytes): memory stays that of a batch whatever size of row group the writer chose (a whole
        1 M-row group read at once took 2.7 GB in `verify`). Not `iter_batches` over the whole file,
        whose memory grows with the file (2 GB over a 10⁸-row file)."""
        import pyarrow as pa

        sliced = self._sliced()
        for group in range(sliced.num_row_groups):
            for batch in sliced.iter_batches(batch_size=batch_rows, row_groups=[group]):
                yield pa.Table.from_batches([batch])

    def _sliced(self):
        """The file opened for reading in slices: a bounded read buffer, no pre-buffering of whole
        column chunks."""
        import pyarrow.parquet as pq

        return pq.ParquetFile(self.path, buffer_size=READ_BUFFER, pre_buffer=False, **READ_OPTIONS)

    def read(self, first: int | None = None, *, check: bool = True):
        """Every row as one pyarrow table (memory: the whole file), checked as `batches` does."""
        import pyarrow as pa

        parts = list(self.batches(first, check=check))
        if not parts:
            return conform(self.file.schema_arrow.empty_table(), self.identity).replace_schema_metadata(self.metadata)
        return pa.concat_tables(parts).replace_schema_metadata(self.metadata)


def read_parquet(path):
    """(parameters dict, pyarrow table) of a sweep file, every row checked; SweepError if it is not
    one or is damaged. A sweep folder (or either) is read by `fastsnake.snake.store.read_sweep`."""
    if os.path.isdir(str(path)):
        raise SweepError(f"{str(path)!r} is a sweep folder, not a sweep file (read it with store.read_sweep)")
    if not os.path.lexists(str(path)):
        raise SweepError(f"sweep file {str(path)!r} does not exist")
    sweep = SweepFile(path)
    try:
        return sweep.parameters, sweep.read()
    except SweepFileError as exc:
        if not exc.reason.startswith("is damaged"):
            raise
        raise SweepError(f"sweep file {str(path)!r} {exc.reason}; it cannot be trusted: run the sweep again") \
            from None


def read_sweep_table(path):
    """(parameters, table) of one sweep Parquet file, its footer and page checksums verified but
    not its rows (`read_parquet` checks those too); SweepError naming the file."""
    sweep = SweepFile(path)
    return sweep.parameters, sweep.read(check=False)


def readable_problem(path) -> str | None:
    """Why the Parquet file `path` is not read at all (its clause after the path), or None: no
    regular file (a FIFO, a device), a footer or a column declaring more than a sweep file holds
    (`parquet_footer_problem`, `declared_size_problem`). FileNotFoundError passes through; a file
    pyarrow cannot parse is left for the caller to word."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        problem = parquet_footer_problem(path)
    except NotRegularFile as exc:
        return exc.reason
    if problem:
        return f"is not a sweep file fastsnake reads ({problem})"
    try:
        metadata = pq.ParquetFile(path).metadata
    except FileNotFoundError:
        raise
    except (OSError, ValueError, TypeError, NotImplementedError, pa.ArrowException):
        return None
    problem = declared_size_problem(metadata)
    return f"is not a sweep file fastsnake reads ({problem})" if problem else None


def declared_size_problem(metadata) -> str | None:
    """Why a Parquet file whose footer `metadata` (pyarrow's FileMetaData) declares these sizes
    cannot be a sweep file we read in bounded memory, or None. Checked from the footer alone, before
    any row is read: the row groups' rows add up to the file's, and no row group inflates to more
    than `MAX_ROW_BYTES` a row plus `MAX_CHUNK_EXTRA` a column (a sweep's columns hold a few bytes a
    row; the text of its identity columns is one dictionary entry of at most `MAX_TEXT_CHARS` characters):
    50 MB of options in the options column is refused here, not met as a 100 GB allocation."""
    total = 0
    for group in range(metadata.num_row_groups):
        part = metadata.row_group(group)
        rows = part.num_rows
        if rows < 0:
            return f"row group {group} declares {rows} rows"
        total += rows
        # (the row group's own total: pyarrow aborts the process on some damaged column records)
        size, columns = part.total_byte_size, max(1, metadata.num_columns)
        if size > columns * (rows * MAX_ROW_BYTES + MAX_CHUNK_EXTRA):
            return (f"row group {group} declares {size:,} bytes for {rows:,} rows of {columns} columns, more than "
                    "a sweep file's columns hold")
    if total != metadata.num_rows:
        return f"its row groups hold {total:,} rows where its footer says {metadata.num_rows:,}"
    return None


def record_types() -> dict:
    """The Arrow type of each record column, as `rows_table` writes it."""
    return {column.name: arrow_type(column) for column in record.columns()}


def _stored_row_count(meta: dict) -> int | None:
    """The row count a writer noted in the file's key-value metadata (None for files without)."""
    raw = meta.get(ROWS_META_KEY)
    try:
        return None if raw is None else int(raw)
    except ValueError:
        return -1


def row_problem(table, params: dict, first: int | None = None) -> str | None:
    """Why the rows of `table` are not games first, first+1, ... of the sweep `params` describes
    (each with the seed its index derives), or None. Catches what a page checksum cannot: a
    file of another sweep, rows out of order, a damaged footer."""
    try:
        base_seed = int(params["seed"])
        first = int(params.get("first_game", 0)) if first is None else first
        if not (0 <= base_seed < 2**64 and 0 <= first < 2**62):
            raise ValueError
    except (KeyError, TypeError, ValueError, OverflowError):
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


def valid_games(table, base_seed: int, first: int, games: int) -> np.ndarray:
    """The game indices of `table`'s rows that are games of the sweep (inside first .. first+games-1
    and with the seed their index derives), sorted: what `verify` counts as found."""
    index = table.column("game").to_numpy(zero_copy_only=False).astype(np.int64)
    seeds = table.column("seed").to_numpy(zero_copy_only=False).astype(np.uint64)
    inside = (index >= first) & (index < first + games)
    index, seeds = index[inside], seeds[inside]
    good = seeds == seeds_of_games(np.uint64(base_seed), index)
    return np.sort(index[good])
