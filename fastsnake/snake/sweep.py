"""Sweeps: many games of one policy, in chunks across numba threads.

Game i of a sweep with base seed S always uses `game_seed(S, i)`, so the
per-game records do not depend on the thread count, the chunk size or the
order of chunks. The runner grows the chunk size until a chunk takes about
`target_chunk_seconds`, reports progress after each chunk, and stops cleanly on
Ctrl-C or SIGTERM, keeping every finished chunk (the chunk playing is cancelled: `cancel.py`).

Every Parquet file written here carries page checksums, and every read verifies
them and the rows themselves (game indices in order, each seed the one its game
index derives), so a flipped bit is refused, never read back as other games.
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import time
from dataclasses import dataclass, field

import numba
import numpy as np

from fastsnake.errors import InputError, Terminated
from fastsnake.files import fsync_path, remove_stale_temps, temp_name, written_atomically
from fastsnake.snake.board import GameConfig
from fastsnake.snake.cancel import call_kernel, stop_requests
from fastsnake.snake.engine import OUTCOME_NAMES, ROW_APPLES, ROW_LENGTH, ROW_MOVES, ROW_OUTCOME
from fastsnake.snake.policies import get_policy, resolve_options
from fastsnake.snake.rng import game_seeds
from fastsnake.snake.stats import Summary, SummaryAccumulator

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


@dataclass
class SweepRun:
    """The games one run of a policy's sweep kernel played, as arrays, with its timing; the public
    `fastsnake.SweepResult` (api.py) is built from it."""

    policy: str
    config: GameConfig
    options: dict
    base_seed: int
    first_game: int
    games_requested: int
    threads: int
    outcome: np.ndarray  # int8 codes: 1 won, 2 died, 3 stuck
    moves: np.ndarray
    apples: np.ndarray
    length: np.ndarray
    seconds: float
    cpu_seconds: float
    interrupted: bool = False
    extra: dict = field(default_factory=dict)
    stats: SummaryAccumulator | None = None  # of every finished game (rows may not be kept)

    @property
    def games(self) -> int:
        return int(self.outcome.shape[0])

    def game_indices(self) -> np.ndarray:
        return np.arange(self.first_game, self.first_game + self.games, dtype=np.int64)

    def seeds(self) -> np.ndarray:
        return game_seeds(np.uint64(self.base_seed), np.int64(self.first_game), np.int64(self.games))

    def parameters(self) -> dict:
        cfg = self.config
        return {
            "format": SWEEP_FORMAT,
            "policy": self.policy,
            "rows": cfg.rows,
            "cols": cfg.cols,
            "start_length": cfg.start_length,
            "tail_rule": cfg.tail_rule,
            "max_moves": cfg.move_cap,
            "seed": self.base_seed,
            "first_game": self.first_game,
            "options": self.options,
        }


def check_threads(threads: int | None) -> int:
    limit = numba.config.NUMBA_NUM_THREADS
    if threads is None:
        return limit
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)):
        raise SweepError(f"threads={threads!r} is not a whole number")
    if not (1 <= threads <= limit):
        raise SweepError(f"threads={threads}: this machine allows 1..{limit}")
    return threads


def check_games(games) -> int:
    if isinstance(games, bool) or not isinstance(games, (int, np.integer)):
        raise SweepError(f"games={games!r} is not a whole number")
    if games < 1:
        raise SweepError(f"games={games}: a sweep needs at least 1 game")
    return int(games)


def check_seed(seed: int) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise SweepError(f"seed={seed!r} is not a whole number")
    if not (0 <= int(seed) < 2**64):
        raise SweepError(f"seed {seed} must be between 0 and 2**64-1")
    return int(seed)


def prepare(policy_name: str, config: GameConfig, options: dict | None):
    """Look up the policy and build its kernel inputs (validates options and board)."""
    policy = get_policy(policy_name)
    resolved = resolve_options(policy, options, config)
    params = policy.make_params(config, resolved)
    cfg, nbr = config.arrays()
    return policy, resolved, params, cfg, nbr


MAX_CHUNK = 1 << 20
# The first chunk's games are chosen by work, cells x expected moves (a policy that fills the
# board plays about cells**2 / 4 moves), so that a big board's first chunk is a game or so per thread and
# a signal is answered at the next chunk boundary; later chunks follow the measured speed.
FIRST_CHUNK_WORK = 1 << 22
FIRST_CHUNK_MAX = 64


def first_chunk_size(cells: int, threads: int) -> int:
    return max(threads, min(FIRST_CHUNK_MAX, FIRST_CHUNK_WORK // max(1, cells ** 3 // 4)))


def next_chunk_size(size: int, seconds: float, target_seconds: float, threads: int) -> int:
    """The next chunk's games: about `target_seconds` at the speed just measured, growing at most
    twofold (and shrinking when a chunk took too long), never below one game per thread."""
    if seconds <= 0:
        return min(size * 2, MAX_CHUNK)
    return int(max(threads, min(size * 2, MAX_CHUNK, size * target_seconds / seconds)))


def run_sweep(
    policy_name: str,
    config: GameConfig,
    games: int,
    *,
    seed: int = 0,
    first_game: int = 0,
    threads: int | None = None,
    options: dict | None = None,
    chunk_size: int | None = None,
    target_chunk_seconds: float = 0.5,
    progress=None,
    keep_rows: bool = True,
    on_chunk=None,
) -> SweepRun:
    """Play games first_game .. first_game+games-1. `progress(done, total)` is called per chunk.

    With `chunk_size` fixed the chunks are exactly that big (tests use it to show
    the result does not depend on it); otherwise the size adapts to the speed.
    keep_rows=False keeps only the statistics (memory bounded by one chunk whatever
    `games` is); on_chunk(first game index, rows int64 [n, 4]) sees each finished chunk.
    """
    check_games(games)
    seed = check_seed(seed)
    threads = check_threads(threads)
    policy, resolved, params, cfg, nbr = prepare(policy_name, config, options)
    numba.set_num_threads(threads)

    out = np.zeros((games if keep_rows else min(games, chunk_size or MAX_CHUNK), 4), dtype=np.int64)
    stats = SummaryAccumulator()
    done = 0
    size = chunk_size or max(first_chunk_size(config.rows * config.cols, threads), policy.batch_games)
    interrupted = False
    compile_seconds = 0.0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    with stop_requests() as stop:
        try:
            # Compile (or load from cache) before the clock starts.
            call_kernel(policy.sweep_kernel, cfg, nbr, params, np.uint64(seed), np.int64(first_game), out[:0], 1)
            compile_seconds = time.perf_counter() - wall0
            wall0, cpu0 = time.perf_counter(), time.process_time()
            while done < games and not stop["stop"]:
                n = min(size, games - done, out.shape[0])
                t0 = time.perf_counter()
                nblocks = max(1, min(n, 4 * threads))
                rows = out[done : done + n] if keep_rows else out[:n]
                call_kernel(policy.sweep_kernel, cfg, nbr, params, np.uint64(seed), np.int64(first_game + done), rows,
                            nblocks)
                stats.add(rows[:, ROW_OUTCOME], rows[:, ROW_MOVES], rows[:, ROW_APPLES], rows[:, ROW_LENGTH])
                if on_chunk is not None:
                    on_chunk(first_game + done, rows)
                done += n
                if progress is not None:
                    progress(done, games)
                if chunk_size is None:
                    size = max(next_chunk_size(n, time.perf_counter() - t0, target_chunk_seconds, threads),
                               policy.batch_games)
        except KeyboardInterrupt:
            # A second signal, or a kernel cancelled (`cancel.Cancelled`): its chunk is dropped.
            interrupted = True
        interrupted = interrupted or stop["stop"]
        stop_signal = stop["signal"]
    seconds = time.perf_counter() - wall0
    cpu_seconds = time.process_time() - cpu0
    rows = out[:done] if keep_rows else out[:0]
    return SweepRun(
        policy=policy.name,
        config=config,
        options=resolved,
        base_seed=seed,
        first_game=first_game,
        games_requested=games,
        threads=threads,
        outcome=rows[:, ROW_OUTCOME].astype(np.int8),
        moves=rows[:, ROW_MOVES].copy(),
        apples=rows[:, ROW_APPLES].astype(np.int32),
        length=rows[:, ROW_LENGTH].astype(np.int32),
        seconds=seconds,
        cpu_seconds=cpu_seconds,
        interrupted=interrupted,
        extra={"compile_seconds": compile_seconds, "signal": _signal_name(stop_signal)},
        stats=stats,
    )


def _signal_name(signum) -> str | None:
    return None if signum is None else signal.Signals(signum).name


def raise_if_terminated(summary: dict, result) -> None:
    """A job stopped by SIGTERM does not return as if it had ended: `Terminated` (exit 143),
    carrying what it finished. Ctrl-C returns the finished part, marked interrupted."""
    if summary.get("signal") == "SIGTERM":
        raise Terminated(f"terminated (SIGTERM): kept the {summary.get('games', 0):,} finished games", result)


def summarize(result: SweepRun) -> dict:
    """The sweep's summary: the keys of the `--json` contract, plus a few more."""
    acc = result.stats
    if acc is None:
        acc = SummaryAccumulator()
        acc.add(result.outcome, result.moves, result.apples, result.length)
    return summary_dict(acc, result.policy, result.config, result.options, result.base_seed, result.threads,
                        result.seconds, result.cpu_seconds, games_requested=result.games_requested,
                        interrupted=result.interrupted, **result.extra)


def summary_dict(acc, policy, config, options, seed, threads, seconds, cpu_seconds, before=None, **extra) -> dict:
    """Summary of accumulated statistics `acc`; rates count only what was played in `seconds`,
    i.e. not the games of `before` (what a resumed sweep had already finished)."""
    stats = acc.as_dict()
    run = stats["games"] - (before.games if before is not None else 0)
    run_moves = stats["total_moves"] - (before.moves_sum if before is not None else 0)
    secs = max(seconds, 1e-9)
    cpu = max(cpu_seconds, 1e-9)
    summary = {"policy": policy, "rows": config.rows, "cols": config.cols}
    summary.update(stats)
    summary.update({
        "seconds": seconds,
        "games_per_second": run / secs,
        "moves_per_second": run_moves / secs,
        "cpu_seconds": cpu_seconds,
        "games_per_cpu_second": run / cpu,
        "moves_per_cpu_second": run_moves / cpu,
        "threads": threads,
        "seed": seed,
        "start_length": config.start_length,
        "tail_rule": config.tail_rule,
        "max_moves": config.move_cap,
        "options": options,
    })
    summary.update(extra)
    return Summary(summary)


def records_table(result: SweepRun):
    rows = np.stack([result.outcome, result.moves, result.apples, result.length], axis=1) if result.games else \
        np.zeros((0, 4), np.int64)
    return rows_table(rows, result.first_game, result.base_seed, result.parameters())


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


def write_parquet(result: SweepRun, path) -> None:
    write_table_atomically(records_table(result), path)


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
