"""Sweeps: many games of one policy, in chunks across numba threads.

Game i of a sweep with base seed S always uses `game_seed(S, i)`, so the
per-game records do not depend on the thread count, the chunk size or the
order of chunks. The runner grows the chunk size until a chunk takes about
`target_chunk_seconds`, reports progress after each chunk, and stops cleanly on
Ctrl-C or SIGTERM, keeping every finished chunk (the chunk playing is cancelled: `cancel.py`).

How the rows are kept (a sweep file, a sweep folder) is `fastsnake.snake.store`'s business;
this module plays the games and hands each finished chunk to a sink.
"""

from __future__ import annotations

import signal
import time
from dataclasses import dataclass, field

import numba
import numpy as np

from fastsnake import __version__
from fastsnake.errors import Terminated
from fastsnake.files import shown_value
from fastsnake.snake import record
from fastsnake.snake.board import GameConfig
from fastsnake.snake.cancel import call_kernel, stop_requests
from fastsnake.snake.policies import get_policy, resolve_options, resolved_name
from fastsnake.snake.rng import MAX_GAMES, game_seeds
from fastsnake.snake.stats import Summary, SummaryAccumulator
from fastsnake.snake.store.folder import SweepDataset, SweepSpec, check_folder_disk
from fastsnake.snake.store.sweepfile import (  # noqa: F401  (re-exported: their old home)
    PARQUET_META_KEY,
    READ_OPTIONS,
    RECORD_COLUMNS,
    RUN_META_KEY,
    SWEEP_FORMAT,
    WRITE_OPTIONS,
    ParquetStream,
    SweepError,
    SweepFileError,
    new_run_id,
    numpy_type,
    read_parquet,
    read_sweep_table,
    row_problem,
    rows_table,
    write_table_atomically,
)


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
    rows: np.ndarray  # int64 [games, record.width()]: the kernels' rows, one slot per record column
    seconds: float
    cpu_seconds: float
    interrupted: bool = False
    extra: dict = field(default_factory=dict)
    stats: SummaryAccumulator | None = None  # of every finished game (rows may not be kept)
    # One (games, moves, wall seconds, CPU seconds) per timed chunk: the spread of the speed.
    chunk_times: list = field(default_factory=list)
    run_id: str = field(default_factory=new_run_id)  # the `run_id` column of its rows

    def __getattr__(self, name):
        """A kernel column of the record by name (``run.outcome``: int8 codes 1 won, 2 died,
        3 stuck; ``run.moves``, ``run.apples`` ...), in its numpy type."""
        if name.startswith("_") or name == "rows":
            raise AttributeError(name)
        column = next((c for c in record.kernel_columns() if c.name == name), None)
        if column is None:
            raise AttributeError(f"'SweepRun' object has no attribute {name!r}")
        return self.rows[:, column.slot].astype(numpy_type(column))

    def columns(self) -> dict:
        """{name: array} of every kernel column of the record."""
        return {c.name: getattr(self, c.name) for c in record.kernel_columns()}

    @property
    def games(self) -> int:
        return int(self.rows.shape[0])

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
            "run_id": self.run_id,
            "version": __version__,
            "policy_resolved": resolved_name(self.policy),
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
        raise SweepError(f"games={shown_value(games)}: a sweep needs at least 1 game")
    if games > MAX_GAMES:
        raise SweepError(f"games={shown_value(games)} is more than the engine can index: game indices are "
                         f"int64, a sweep holds at most 2**62 = {MAX_GAMES:,} games")
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
    prepared=None,
) -> SweepRun:
    """Play games first_game .. first_game+games-1. `progress(done, total)` is called per chunk.

    With `chunk_size` fixed the chunks are exactly that big (tests use it to show
    the result does not depend on it); otherwise the size adapts to the speed.
    keep_rows=False keeps only the statistics (memory bounded by one chunk whatever
    `games` is); on_chunk(first game index, rows int64 [n, record.width()]) sees each finished chunk.
    `prepared` is what `prepare` returned for these arguments, when the caller has it already.
    """
    check_games(games)
    seed = check_seed(seed)
    threads = check_threads(threads)
    policy, resolved, params, cfg, nbr = prepared or prepare(policy_name, config, options)
    numba.set_num_threads(threads)

    out = np.zeros((games if keep_rows else min(games, chunk_size or MAX_CHUNK), record.width()), dtype=np.int64)
    stats = SummaryAccumulator()
    chunk_times = []
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
                t0, c0 = time.perf_counter(), time.process_time()
                nblocks = max(1, min(n, 4 * threads))
                rows = out[done : done + n] if keep_rows else out[:n]
                call_kernel(policy.sweep_kernel, cfg, nbr, params, np.uint64(seed), np.int64(first_game + done), rows,
                            nblocks)
                stats.add_rows(rows)
                if on_chunk is not None:
                    on_chunk(first_game + done, rows)
                done += n
                if progress is not None:
                    progress(done, games)
                # The whole iteration is timed, so that the chunks' times add up to the sweep's.
                chunk_wall = time.perf_counter() - t0
                chunk_times.append((n, int(rows[:, record.slot("moves")].sum()), chunk_wall,
                                    time.process_time() - c0))
                if chunk_size is None:
                    size = max(next_chunk_size(n, chunk_wall, target_chunk_seconds, threads), policy.batch_games)
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
        rows=rows.copy() if keep_rows else rows,
        seconds=seconds,
        cpu_seconds=cpu_seconds,
        interrupted=interrupted,
        extra={"compile_seconds": compile_seconds, "signal": _signal_name(stop_signal)},
        stats=stats,
        chunk_times=chunk_times,
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
        acc.add_rows(result.rows)
    summary = summary_dict(acc, result.policy, result.config, result.options, result.base_seed, result.threads,
                           result.seconds, result.cpu_seconds, games_requested=result.games_requested,
                           interrupted=result.interrupted, **result.extra)
    summary.update(speed_intervals(result.chunk_times, summary))
    return summary


def speed_intervals(chunk_times, summary: dict) -> dict:
    """The speed intervals one run supports: none. The spread of its chunks is not the spread of
    runs (one run gave 26,812 ± 26,166 games per CPU-second, the next [46 k, 103 k]), so the
    ``*_ci95`` speed keys are None unless ``repeat`` times the games again (`api._add_repeats`:
    the bootstrap interval of the median over runs). ``timed_chunks`` still says how many chunks
    were timed."""
    return {
        "games_per_second_ci95": None,
        "games_per_cpu_second_ci95": None,
        "moves_per_cpu_second_ci95": None,
        "timed_chunks": len(chunk_times),
    }


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


def records_table(result: SweepRun, identity: bool = True):
    """The rows of `result` as a pyarrow table, with the identity columns every file has (so that
    tables of several sweeps concatenate into one that groups by policy and board)."""
    return rows_table(result.rows, result.first_game, result.base_seed, result.parameters(), identity=identity)


def write_parquet(result: SweepRun, path) -> None:
    write_table_atomically(records_table(result), path)


def compute_chunk(spec: dict, index: int, threads: int = 1):
    """Play chunk `index` of a sweep; returns (index, rows int64 [count, record.width()]). Runs on dask
    workers too."""
    spec = SweepSpec.from_json(spec)
    policy, _, params, cfg, nbr = prepare(spec.policy, spec.config, spec.options)
    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    first, count = spec.chunk_range(index)
    out = np.zeros((count, record.width()), dtype=np.int64)
    nblocks = max(1, min(count, 4 * numba.get_num_threads()))
    call_kernel(policy.sweep_kernel, cfg, nbr, params, np.uint64(spec.seed), np.int64(first), out, nblocks)
    return index, out


def run_dataset_sweep(dataset: SweepDataset, *, threads: int, progress=None, chunk_source=None):
    """Compute and write every missing chunk, holding the folder's writer lock; returns
    (statistics, seconds, cpu seconds, stopped): stopped is None when every chunk is done, else
    the signal's name ('SIGINT', 'SIGTERM') or True (interrupted without a signal of ours).

    chunk_source(indices) yields (index, rows) in any order, or None while it waits (a chance to
    stop on a signal); default: computed here, in order.
    """
    with dataset.writing():
        missing, acc = dataset.scan()
        check_folder_disk(dataset.path, dataset.spec, missing)
        dataset.upgrade_chunks()  # chunks of an earlier release: rewritten in the one schema
        total = dataset.spec.n_chunks
        done = total - len(missing)
        if progress is not None:
            progress(done, total)
        if chunk_source is None:
            def chunk_source(indices):
                for index in indices:
                    yield compute_chunk(dataset.spec.to_json(), index, threads)
        wall0, cpu0 = time.perf_counter(), time.process_time()
        interrupted = False
        with stop_requests() as stop:
            chunks = chunk_source(missing)
            try:
                for item in chunks:
                    if item is not None:
                        index, rows = item
                        acc.merge(dataset.write_chunk(index, rows))
                        done += 1
                        if progress is not None:
                            progress(done, total)
                    if stop["stop"]:
                        break
            except KeyboardInterrupt:
                interrupted = True
            finally:
                # Now, while a cluster's client is still open: cancels what it still has queued
                # (left to the garbage collector, that fails later with a traceback).
                chunks.close()
            stopped = None
            if stop["signal"] is not None:
                import signal

                stopped = signal.Signals(stop["signal"]).name
            elif interrupted or stop["stop"]:
                stopped = True
    return acc, time.perf_counter() - wall0, time.process_time() - cpu0, stopped
