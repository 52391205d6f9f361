"""Games per CPU-second of a policy subset on 10x10, 1 thread, best of N rounds; the checksum
(sum of outcome, 2*moves, 3*apples, 4*length over the games) shows two builds play the same games.

Run: .venv/bin/python bench/speed/policies_quick.py cycle,phc,greedy,cell,dhcr 3
Same-run baseline: the same command with PYTHONPATH=<a `git archive` of the old commit>,
alternating old and new (docs/engine-speed.md).
"""

import sys
import time

import numba
import numpy as np

from fastsnake.snake.board import GameConfig
from fastsnake.snake.sweep import prepare

try:  # a row per game, as wide as the record (a build before the record was declared: 4)
    from fastsnake.snake.record import width

    WIDTH = width()
except ImportError:
    WIDTH = 4

CASES = {
    "cycle": (GameConfig(10, 10, 3, "follow"), 100_000),
    "phc": (GameConfig(10, 10, 3, "follow"), 20_000),
    "greedy": (GameConfig(10, 10, 3, "follow"), 5_000),
    "cell": (GameConfig(10, 10, 1, "blocked"), 1_000),
    "dhcr": (GameConfig(10, 10, 1, "blocked"), 1_000),
    "grove": (GameConfig(10, 10, 1, "blocked"), 500),
    # A case NAME@N plays policy NAME on NxN (the cell-tree presets' big-board kernels from 16x16 on).
    "cell@20": (GameConfig(20, 20, 1, "blocked"), 40),
    "grove@20": (GameConfig(20, 20, 1, "blocked"), 20),
}
numba.set_num_threads(1)
for name in sys.argv[1].split(","):
    config, games = CASES[name]
    pol, _, params, cfg, nbr = prepare(name.partition("@")[0], config, {})
    out = np.zeros((games, WIDTH), np.int64)
    pol.sweep_kernel(cfg, nbr, params, np.uint64(0), np.int64(0), out[:1], 1)
    best = 1e9
    for _ in range(int(sys.argv[2]) if len(sys.argv) > 2 else 3):
        c = time.process_time()
        pol.sweep_kernel(cfg, nbr, params, np.uint64(7), np.int64(0), out, 4)
        best = min(best, time.process_time() - c)
    print(
        f"{name} games/cpu-s {games / best:,.0f} moves/cpu-s {out[:, 1].sum() / best / 1e6:.2f}M "
        f"checksum {int((out * np.arange(1, 5)).sum())}",
        flush=True,
    )
