"""10x10 games per CPU-second of the cell-tree and dhcr agents, with `cycle` as the same-run baseline.

Rules of the published comparison: start length 1, tail blocked, cap (R*C)^2.
Run: .venv/bin/pytest bench/bench_snake_agents.py --benchmark-only
"""

import time

import numpy as np
import pytest

from fastsnake.snake.board import GameConfig
from fastsnake.snake.engine import WON
from fastsnake.snake.sweep import run_sweep

CONFIG = GameConfig(10, 10, 1, "blocked")
GAMES = {"cycle": 20_000, "cell": 2_000, "dhcr": 4_000}
# 10x10 games per CPU-second of the published C++ suite (twanvl/snake) on this kind of machine, same rules.
PUBLISHED = {"cycle": 40_000, "cell": 442, "dhcr": 543}


@pytest.mark.parametrize("name", ["cycle", "cell", "dhcr"])
def test_games_per_cpu_second(benchmark, name):
    run_sweep(name, CONFIG, 8, threads=1)  # compile outside the timing
    cpu = []

    def sweep():
        t0 = time.process_time()
        result = run_sweep(name, CONFIG, GAMES[name], seed=1, threads=1)
        cpu.append(time.process_time() - t0)
        return result

    result = benchmark.pedantic(sweep, rounds=3, iterations=1)
    assert np.all(result.outcome == WON)
    rate = GAMES[name] / min(cpu)
    benchmark.extra_info["games_per_cpu_second"] = rate
    benchmark.extra_info["mean_moves"] = float(result.moves.mean())
    benchmark.extra_info["ratio_to_published"] = rate / PUBLISHED[name]
    print(f"\n{name}: {rate:,.0f} games per CPU-second ({rate / PUBLISHED[name]:.1f}x the published suite's "
          f"{PUBLISHED[name]:,}), mean {result.moves.mean():.1f} moves")


BIG = GameConfig(30, 30, 1, "blocked")
# grove options that give cell's games (its own kernels only).
CELLS_SEARCH = {"budget": 0, "detours": 8, "outline": 0, "research_every": 8}
# grove's faster re-search setting for big sweeps (30x30, 1,000 games: +0.9 % moves, 2.7x the games per CPU-s).
FAST = {"research_every": 8, "research_detours": 32, "backoff": 4, "walk_rounds": 16}
BIG_GAMES = 12


def _cpu_rate(name, config, games, rounds=2, options=None):
    """Best games per CPU-second over `rounds` one-thread sweeps (kernel compiled first)."""
    run_sweep(name, GameConfig(4, 4, 1, "blocked"), 1, threads=1, options=options)
    best = 0.0
    for _ in range(rounds):
        t0 = time.process_time()
        result = run_sweep(name, config, games, seed=1, threads=1, options=options)
        best = max(best, games / (time.process_time() - t0))
        assert np.all(result.outcome == WON)
    return best, result


@pytest.mark.parametrize("config,games", [(BIG, BIG_GAMES), (CONFIG, 2_000)], ids=["30x30", "10x10"])
def test_grove_against_cell_same_run(benchmark, config, games):
    """grove (alias strongest) against cell in the same run: its default games and, with cell's search
    (budget=0, 8 detour rounds, cell's outline tree, re-searches every 8th move: cell's games move for
    move), its kernels alone; ratios to cell printed."""
    cell_rate, cell = _cpu_rate("cell", config, games)
    kernels_rate, kernels = _cpu_rate("grove", config, games, options=CELLS_SEARCH)
    assert np.array_equal(kernels.moves, cell.moves)  # the same games
    rates = []

    def sweep():
        rate, result = _cpu_rate("grove", config, games, rounds=1)
        rates.append(rate)
        return result

    grove = benchmark.pedantic(sweep, rounds=2, iterations=1)
    fast_rate, fast = _cpu_rate("grove", config, games, options=FAST)
    rate = max(rates)
    benchmark.extra_info["games_per_cpu_second"] = rate
    benchmark.extra_info["cell_games_per_cpu_second"] = cell_rate
    benchmark.extra_info["ratio_to_cell"] = rate / cell_rate
    benchmark.extra_info["kernels_ratio_to_cell"] = kernels_rate / cell_rate
    benchmark.extra_info["fast_ratio_to_cell"] = fast_rate / cell_rate
    print(f"\n{config.rows}x{config.cols}: grove {rate:,.1f} games per CPU-second (mean {grove.moves.mean():.1f} "
          f"moves), cell {cell_rate:,.1f} (mean {cell.moves.mean():.1f}): ratio {rate / cell_rate:.2f}x; "
          f"grove with cell's search (cell's games) {kernels_rate:,.1f}: ratio {kernels_rate / cell_rate:.2f}x; "
          f"grove {FAST} {fast_rate:,.1f} (mean {fast.moves.mean():.1f}): ratio {fast_rate / cell_rate:.2f}x")
