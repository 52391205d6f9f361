"""Sweeps: many games of one policy, in chunks across numba threads.

Game i of a sweep with base seed S always uses `game_seed(S, i)`, so the
per-game records do not depend on the thread count, the chunk size or the
order of chunks. The runner grows the chunk size until a chunk takes about
`target_chunk_seconds`, reports progress after each chunk, and stops cleanly on
Ctrl-C, keeping every finished chunk.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field

import numba
import numpy as np

from fastsnake.errors import InputError
from fastsnake.snake.board import GameConfig
from fastsnake.snake.engine import OUTCOME_NAMES, WON, DIED, STUCK
from fastsnake.snake.policies import get_policy, resolve_options
from fastsnake.snake.rng import game_seed

RECORD_COLUMNS = ("game", "seed", "outcome", "moves", "apples", "length")
PARQUET_META_KEY = b"fastsnake"
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

    @property
    def games(self) -> int:
        return int(self.outcome.shape[0])

    def game_indices(self) -> np.ndarray:
        return np.arange(self.first_game, self.first_game + self.games, dtype=np.int64)

    def seeds(self) -> np.ndarray:
        idx = self.game_indices()
        return np.array([game_seed(np.uint64(self.base_seed), np.uint64(i)) for i in idx], dtype=np.uint64)

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
        raise SweepError(f"--threads {threads}: this machine allows 1..{limit}")
    return threads


def check_seed(seed: int) -> int:
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
) -> SweepResult:
    """Play games first_game .. first_game+games-1. `progress(done, total)` is called per chunk.

    With `chunk_size` fixed the chunks are exactly that big (tests use it to show
    the result does not depend on it); otherwise the size adapts to the speed.
    """
    if games < 1:
        raise SweepError(f"--games {games}: a sweep needs at least 1 game")
    seed = check_seed(seed)
    threads = check_threads(threads)
    policy, resolved, params, cfg, nbr = prepare(policy_name, config, options)
    numba.set_num_threads(threads)

    out = np.zeros((games, 4), dtype=np.int64)
    # Compile (or load from cache) before the clock starts.
    t_compile = time.perf_counter()
    policy.sweep_kernel(cfg, nbr, params, np.uint64(seed), np.int64(first_game), out[:0], 1)
    compile_seconds = time.perf_counter() - t_compile
    done = 0
    size = chunk_size or max(threads, 64)
    interrupted = False
    wall0, cpu0 = time.perf_counter(), time.process_time()
    try:
        while done < games:
            n = min(size, games - done)
            t0 = time.perf_counter()
            chunk = out[done : done + n]
            nblocks = max(1, min(n, 4 * threads))
            policy.sweep_kernel(cfg, nbr, params, np.uint64(seed), np.int64(first_game + done), chunk, nblocks)
            done += n
            if progress is not None:
                progress(done, games)
            elapsed = time.perf_counter() - t0
            if chunk_size is None and elapsed < target_chunk_seconds / 2:
                size = min(size * 2, 1 << 20)
    except KeyboardInterrupt:
        interrupted = True
    seconds = time.perf_counter() - wall0
    cpu_seconds = time.process_time() - cpu0
    rows = out[:done]
    return SweepResult(
        policy=policy.name,
        config=config,
        options=resolved,
        base_seed=seed,
        first_game=first_game,
        games_requested=games,
        threads=threads,
        outcome=rows[:, 0].astype(np.int8),
        moves=rows[:, 1].copy(),
        apples=rows[:, 2].astype(np.int32),
        length=rows[:, 3].astype(np.int32),
        seconds=seconds,
        cpu_seconds=cpu_seconds,
        interrupted=interrupted,
        extra={"compile_seconds": compile_seconds},
    )


def summarize(result: SweepResult) -> dict:
    """The sweep's summary: the keys of the `--json` contract, plus a few more."""
    games = result.games
    moves = result.moves.astype(np.float64)
    won = result.outcome == WON
    has = games > 0

    def stat(fn):
        return float(fn(moves)) if has else None

    q25, median, q75 = (np.quantile(moves, [0.25, 0.5, 0.75]).tolist() if has else (None, None, None))
    total_moves = int(result.moves.sum())
    secs = max(result.seconds, 1e-9)
    cpu = max(result.cpu_seconds, 1e-9)
    cfg = result.config
    return {
        "policy": result.policy,
        "rows": cfg.rows,
        "cols": cfg.cols,
        "games": games,
        "wins": int(won.sum()),
        "losses": int((result.outcome == DIED).sum()),
        "stuck": int((result.outcome == STUCK).sum()),
        "win_rate": float(won.mean()) if has else None,
        "moves_mean": stat(np.mean),
        "moves_std": float(moves.std(ddof=1)) if games > 1 else 0.0 if has else None,
        "moves_min": int(result.moves.min()) if has else None,
        "moves_q25": q25,
        "moves_median": median,
        "moves_q75": q75,
        "moves_max": int(result.moves.max()) if has else None,
        "apples_mean": float(result.apples.mean()) if has else None,
        "seconds": result.seconds,
        "games_per_second": games / secs,
        "moves_per_second": total_moves / secs,
        # Beyond the contract:
        "moves_mean_won": float(moves[won].mean()) if won.any() else None,
        "length_mean": float(result.length.mean()) if has else None,
        "total_moves": total_moves,
        "cpu_seconds": result.cpu_seconds,
        "games_per_cpu_second": games / cpu,
        "moves_per_cpu_second": total_moves / cpu,
        "threads": result.threads,
        "seed": result.base_seed,
        "start_length": cfg.start_length,
        "tail_rule": cfg.tail_rule,
        "max_moves": cfg.move_cap,
        "options": result.options,
        "games_requested": result.games_requested,
        "interrupted": result.interrupted,
        **result.extra,
    }


def records_table(result: SweepResult):
    import pyarrow as pa

    names = np.array(OUTCOME_NAMES)
    table = pa.table(
        {
            "game": result.game_indices(),
            "seed": result.seeds(),
            "outcome": pa.array(names[result.outcome.astype(np.int64)]).dictionary_encode(),
            "moves": result.moves,
            "apples": result.apples,
            "length": result.length,
        }
    )
    meta = dict(table.schema.metadata or {})
    meta[PARQUET_META_KEY] = json.dumps(result.parameters()).encode()
    return table.replace_schema_metadata(meta)


def write_parquet(result: SweepResult, path) -> None:
    import pyarrow.parquet as pq

    try:
        pq.write_table(records_table(result), str(path))
    except OSError as exc:
        raise SweepError(f"cannot write {str(path)!r}: {exc}") from None


def read_parquet(path):
    """(parameters dict, pyarrow table) of a sweep file; SweepError if it is not one."""
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(str(path))
    except FileNotFoundError:
        raise SweepError(f"sweep file {str(path)!r} does not exist") from None
    except (OSError, ValueError) as exc:
        raise SweepError(f"cannot read sweep file {str(path)!r}: {exc}") from None
    raw = (table.schema.metadata or {}).get(PARQUET_META_KEY)
    missing = [c for c in RECORD_COLUMNS if c not in table.column_names]
    if raw is None or missing:
        raise SweepError(f"{str(path)!r} is not a fastsnake sweep file (no sweep parameters or columns {missing})")
    try:
        params = json.loads(raw)
    except ValueError:
        raise SweepError(f"{str(path)!r}: sweep parameters are not valid JSON") from None
    return params, table
