"""Snake core speed: moves/s of `cycle` and `greedy`, games/s of a sweep.

Each benchmark asserts its result is right (every cycle game won, the analytic
mean within bounds) and the pure-Python rules engine of the tests is measured in
the same run as the baseline, so speed is reported as a ratio too:

    pytest bench/bench_snake.py --benchmark-columns=mean,ops

`test_cycle_sweep_moves_per_cpu_second` (issue 20) plays a 10^6-game 10x10 `cycle` sweep
(FASTSNAKE_BENCH_GAMES to change) on one thread and prints moves per CPU-second with the
ratio to a same-run floor: the two dependent loads every move needs (the policy's move for
the head cell, then the neighbour table), with an apple test and a move counter, nothing else.
Run it with -s to see the line; docs/engine-speed.md has the cycles-per-move breakdown.
"""

import os
import sys
import time
from pathlib import Path

import numba
import numpy as np
import pytest
from numba import njit

from fastsnake.snake import record
from fastsnake.snake.board import GameConfig
from fastsnake.snake.engine import ix
from fastsnake.snake.sweep import prepare, run_sweep

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "snake"))
import snake_naive as naive  # noqa: E402

SIZE = (10, 10)
RESULTS = {}


def kernel_games(policy, games, threads=1, seed=0):
    config = GameConfig(*SIZE)
    pol, _, params, cfg, nbr = prepare(policy, config, {})
    numba.set_num_threads(threads)
    out = np.zeros((games, record.width()), np.int64)
    pol.sweep_kernel(cfg, nbr, params, np.uint64(seed), np.int64(0), out[:1], 1)  # compile / load
    return lambda: (pol.sweep_kernel(cfg, nbr, params, np.uint64(seed), np.int64(0), out, 4 * threads), out)[1]


def python_cycle_games(games):
    """Baseline: the reference engine following the zig-zag cycle, in plain Python."""
    rows, cols = SIZE
    cells = [r * cols + c for r in range(rows) for c in (range(1, cols) if r % 2 == 0 else range(cols - 1, 0, -1))]
    cells += [r * cols for r in range(rows - 1, -1, -1)]
    nxt = {cells[k]: cells[(k + 1) % len(cells)] for k in range(len(cells))}
    move_to = {(a, naive.neighbour(rows, cols, a, m)): m for a in range(rows * cols) for m in range(4)}
    total = 0
    for i in range(games):
        head = cells[i % len(cells)]
        k = cells.index(head)
        body = [cells[(k - 2 + j) % len(cells)] for j in range(3)]
        game = naive.Game(rows, cols, body, seed=i)
        while game.outcome == "running":
            h = game.body[-1]
            game.step(move_to[(h, nxt[h])])
        total += game.moves
    return total


def test_baseline_python_cycle(benchmark):
    moves = benchmark.pedantic(python_cycle_games, args=(3,), rounds=3, iterations=1)
    RESULTS["python"] = moves / benchmark.stats.stats.mean
    assert 3 * 1500 < moves < 3 * 3500


@pytest.mark.parametrize("threads", [1, 2])
def test_cycle_moves_per_second(benchmark, threads):
    if threads > numba.config.NUMBA_NUM_THREADS:
        pytest.skip("needs 2 cores")
    games = 20_000
    run = kernel_games("cycle", games, threads)
    cpu0 = time.process_time()
    out = benchmark.pedantic(run, rounds=5, iterations=1)
    cpu = (time.process_time() - cpu0) / 5
    moves = int(out[:, 1].sum())
    assert np.all(out[:, 0] == 1) and abs(moves / games - 2425) < 10
    rate = moves / benchmark.stats.stats.mean
    benchmark.extra_info.update(moves_per_second=rate, moves_per_cpu_second=moves / cpu, threads=threads,
                                vs_python=rate / RESULTS["python"] if "python" in RESULTS else None)


def test_greedy_moves_per_second(benchmark):
    games = 500
    run = kernel_games("greedy", games, 1)
    out = benchmark.pedantic(run, rounds=3, iterations=1)
    moves = int(out[:, 1].sum())
    assert np.all(out[:, 2] >= 0) and moves > games * 50
    benchmark.extra_info.update(moves_per_second=moves / benchmark.stats.stats.mean,
                                mean_apples=float(out[:, 2].mean()))


def test_sweep_games_per_second(benchmark):
    """The full runner (chunks, progress hook, result arrays) on 10x10 `cycle`."""
    config = GameConfig(*SIZE)
    run_sweep("cycle", config, 10)
    result = benchmark.pedantic(lambda: run_sweep("cycle", config, 100_000), rounds=3, iterations=1)
    assert result.games == 100_000 and np.all(result.outcome == 1)
    benchmark.extra_info.update(games_per_second=100_000 / benchmark.stats.stats.mean,
                                threads=numba.config.NUMBA_NUM_THREADS)


@njit(cache=True)
def chain_floor(nbr, move, head, apples_every, count):
    """The floor of a cycle move: head -> move[head] -> nbr[head*4 + move], an apple test and
    a counter; `count` moves in one dependency chain. Returns the moves made and the last head."""
    apple = -1
    moves = 0
    for _ in range(count):
        target = nbr[ix(head * 4 + move[ix(head)])]
        moves += 1
        if target == apple:
            apple = -1
        elif moves % apples_every == 0:
            apple = target
        head = target
    return moves, head


def test_cycle_sweep_moves_per_cpu_second(benchmark):
    """10x10 `cycle`, one thread: moves per CPU-second of a 10^6-game sweep, and its ratio to the
    same-run floor (`chain_floor`); target (issue 20) >= 200 M moves per CPU-second."""
    games = int(os.environ.get("FASTSNAKE_BENCH_GAMES", 1_000_000))
    config = GameConfig(*SIZE)
    pol, _, params, cfg, nbr = prepare("cycle", config, {})
    ws = pol.sweep_kernel  # compile / load outside the clock
    numba.set_num_threads(1)
    out = np.zeros((games, record.width()), np.int64)
    ws(cfg, nbr, params, np.uint64(0), np.int64(0), out[:1], 1)
    from fastsnake.snake.policies.cycle import W_MOVE, cycle_workspace

    move = cycle_workspace(cfg, nbr, params)[W_MOVE]
    chain_floor(nbr, move, np.int64(0), 25, 10)
    cpu = {}

    def run():
        c0 = time.process_time()
        ws(cfg, nbr, params, np.uint64(0), np.int64(0), out, 4)
        c1 = time.process_time()
        floor_moves, _ = chain_floor(nbr, move, np.int64(0), 25, 200_000_000)
        c2 = time.process_time()
        cpu.setdefault("sweep", []).append(c1 - c0)
        cpu.setdefault("floor", []).append((c2 - c1) / floor_moves)

    benchmark.pedantic(run, rounds=1, iterations=1)
    moves = int(out[:, 1].sum())
    assert np.all(out[:, 0] == 1) and abs(moves / games - 2425) < 10
    rate = moves / min(cpu["sweep"])
    floor = 1 / min(cpu["floor"])
    benchmark.extra_info.update(moves_per_cpu_second=rate, floor_moves_per_cpu_second=floor,
                                ratio_to_floor=rate / floor, games=games)
    print(f"\ncycle 10x10, 1 thread, {games:,} games: {rate / 1e6:.0f} M moves per CPU-second; "
          f"floor (two dependent loads a move) {floor / 1e6:.0f} M; ratio {rate / floor:.2f}")
