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
