"""1 vs 2 threads on a 10x10 `cycle` sweep (the kernel the CLI runs), alternating, wall and CPU time.

Run: .venv/bin/python bench/speed/scale.py 1000000
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

games = int(sys.argv[1])
pol, _, params, cfg, nbr = prepare("cycle", GameConfig(10, 10), {})
out = np.zeros((games, WIDTH), np.int64)
pol.sweep_kernel(cfg, nbr, params, np.uint64(0), np.int64(0), out[:1], 1)
for threads in (1, 2, 1, 2):
    numba.set_num_threads(threads)
    w = time.perf_counter()
    c = time.process_time()
    pol.sweep_kernel(cfg, nbr, params, np.uint64(0), np.int64(0), out, 4 * threads)
    w = time.perf_counter() - w
    c = time.process_time() - c
    m = out[:, 1].sum()
    print(
        f"{threads} thread(s), {games:,} games: {w:.2f} s wall, {c:.2f} CPU-s, {m / w / 1e6:.0f} M moves/s wall, "
        f"{m / c / 1e6:.0f} M moves/CPU-s, checksum {int((out * np.arange(1, 5)).sum())}",
        flush=True,
    )
