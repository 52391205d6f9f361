"""Sweeps: many games of one policy, in chunks across numba threads.

Game i of a sweep with base seed S always uses `game_seed(S, i)`, so the
per-game records do not depend on the thread count, the chunk size or the
order of chunks. The runner grows the chunk size until a chunk takes about
`target_chunk_seconds`, reports progress after each chunk, and stops cleanly on
Ctrl-C, keeping every finished chunk.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field

import numba
import numpy as np

from fastsnake.errors import InputError
from fastsnake.files import written_atomically
from fastsnake.snake.board import GameConfig
from fastsnake.snake.engine import OUTCOME_NAMES, ROW_APPLES, ROW_LENGTH, ROW_MOVES, ROW_OUTCOME
from fastsnake.snake.policies import get_policy, resolve_options
from fastsnake.snake.rng import game_seeds
from fastsnake.snake.stats import Summary, SummaryAccumulator

RECORD_COLUMNS = ("game", "seed", "outcome", "moves", "apples", "length")
PARQUET_META_KEY = b"fastsnake"
# The run that wrote a sweep file (timing, machine, version, date; `report.run_record`), for reports.
RUN_META_KEY = b"fastsnake_run"
SWEEP_FORMAT = "fastsnake-sweep/1"


class SweepError(InputError):
    """A sweep asked for something impossible (0 games, too many threads, …)."""


@dataclass
class SweepResult:
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
    resolved = resolve_options(policy, options)
    params = policy.make_params(config, resolved)
    cfg, nbr = config.arrays()
    return policy, resolved, params, cfg, nbr


MAX_CHUNK = 1 << 20


@contextmanager
def stop_requests():
    """SIGINT and SIGTERM ask the sweep to stop after the chunk it is playing (``flag["stop"]``),
    so a chunk is never half counted or half written; a second signal stops at once."""
    flag = {"stop": False}
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return

    def request(signum, frame):
        if flag["stop"]:
            raise KeyboardInterrupt
        flag["stop"] = True

    previous = {sig: signal.signal(sig, request) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield flag
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


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
) -> SweepResult:
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
    size = chunk_size or max(threads, 64)
    interrupted = False
    compile_seconds = 0.0
    wall0, cpu0 = time.perf_counter(), time.process_time()
    with stop_requests() as stop:
        try:
            # Compile (or load from cache) before the clock starts.
            policy.sweep_kernel(cfg, nbr, params, np.uint64(seed), np.int64(first_game), out[:0], 1)
            compile_seconds = time.perf_counter() - wall0
            wall0, cpu0 = time.perf_counter(), time.process_time()
            while done < games and not stop["stop"]:
                n = min(size, games - done, out.shape[0])
                t0 = time.perf_counter()
                nblocks = max(1, min(n, 4 * threads))
                rows = out[done : done + n] if keep_rows else out[:n]
                policy.sweep_kernel(cfg, nbr, params, np.uint64(seed), np.int64(first_game + done), rows, nblocks)
                stats.add(rows[:, ROW_OUTCOME], rows[:, ROW_MOVES], rows[:, ROW_APPLES], rows[:, ROW_LENGTH])
                if on_chunk is not None:
                    on_chunk(first_game + done, rows)
                done += n
                if progress is not None:
                    progress(done, games)
                if chunk_size is None and time.perf_counter() - t0 < target_chunk_seconds / 2:
                    size = min(size * 2, MAX_CHUNK)
        except KeyboardInterrupt:
            # Outside the main thread (no signal handler of ours) the interrupt arrives between calls.
            interrupted = True
        interrupted = interrupted or stop["stop"]
    seconds = time.perf_counter() - wall0
    cpu_seconds = time.process_time() - cpu0
    rows = out[:done] if keep_rows else out[:0]
    return SweepResult(
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
        extra={"compile_seconds": compile_seconds},
        stats=stats,
    )


def summarize(result: SweepResult) -> dict:
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


def records_table(result: SweepResult):
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
    meta = dict(table.schema.metadata or {})
    meta[PARQUET_META_KEY] = json.dumps(parameters).encode()
    return table.replace_schema_metadata(meta)


class ParquetStream:
    """Rows written as they finish, one row group per chunk, to a temporary file that becomes
    `path` on `close()`: an interrupted sweep leaves a valid file of exactly its finished
    games, and a killed one leaves `path` as it was (the dot-file beside it is not a result)."""

    def __init__(self, path, parameters: dict, base_seed: int):
        self.path = str(path)
        folder, name = os.path.split(os.path.abspath(self.path))
        self.tmp = os.path.join(folder, f".{name}.partial-{os.getpid()}")
        self.parameters, self.base_seed = parameters, base_seed
        self.writer = None

    def write(self, first_game: int, rows) -> None:
        import pyarrow.parquet as pq

        table = rows_table(rows, first_game, self.base_seed, self.parameters)
        try:
            if self.writer is None:
                self.writer = pq.ParquetWriter(self.tmp, table.schema)
            self.writer.write_table(table)
        except OSError as exc:
            self.abort()
            raise SweepError(f"cannot write {self.path!r}: {exc.strerror or exc}") from None

    def close(self, run: dict | None = None) -> None:
        """Finish the file; `run` (timing, machine, date) goes into its footer for reports."""
        import pyarrow.parquet as pq

        try:
            if self.writer is None:  # no chunk finished: still a valid, empty sweep file
                table = rows_table(np.zeros((0, 4), np.int64), 0, self.base_seed, self.parameters)
                pq.write_table(table, self.tmp)
            else:
                if run is not None and hasattr(self.writer, "add_key_value_metadata"):
                    self.writer.add_key_value_metadata({RUN_META_KEY: json.dumps(run).encode()})
                self.writer.close()
            with open(self.tmp, "rb") as fh:
                os.fsync(fh.fileno())
            os.replace(self.tmp, self.path)
        except OSError as exc:
            self.abort()
            raise SweepError(f"cannot write {self.path!r}: {exc.strerror or exc}") from None

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


def write_parquet(result: SweepResult, path) -> None:
    write_table_atomically(records_table(result), path)


def write_table_atomically(table, path) -> None:
    """Write a Parquet file under a dot-name and rename it when complete: a failed or killed
    write never leaves a partial file under `path`."""
    import pyarrow.parquet as pq

    try:
        with written_atomically(path) as tmp:
            pq.write_table(table, tmp)
    except OSError as exc:
        raise SweepError(f"cannot write {str(path)!r}: {exc.strerror or exc}") from None


def read_parquet(path):
    """(parameters dict, pyarrow table) of a sweep file; SweepError if it is not one.

    A sweep folder is read by `fastsnake.snake.dataset.read_sweep` (file or folder), which
    sits above this module (the dataset code runs sweeps, so this one cannot import it).
    """
    import pyarrow.parquet as pq

    if os.path.isdir(str(path)):
        raise SweepError(f"{str(path)!r} is a sweep folder, not a sweep file (read it with dataset.read_sweep)")
    try:
        table = pq.read_table(str(path))
    except FileNotFoundError:
        raise SweepError(f"sweep file {str(path)!r} does not exist") from None
    except IsADirectoryError:
        raise SweepError(f"{str(path)!r} is a folder, not a sweep file") from None
    except (OSError, ValueError):  # pyarrow's own text is a paragraph; the cause fits in a clause
        raise SweepError(f"{str(path)!r} is not a readable Parquet file (cut short, or another format)") from None
    raw = (table.schema.metadata or {}).get(PARQUET_META_KEY)
    missing = [c for c in RECORD_COLUMNS if c not in table.column_names]
    if raw is None or missing:
        raise SweepError(f"{str(path)!r} is not a fastsnake sweep file (no sweep parameters or columns {missing})")
    try:
        params = json.loads(raw)
    except ValueError:
        raise SweepError(f"{str(path)!r}: sweep parameters are not valid JSON") from None
    return params, table
