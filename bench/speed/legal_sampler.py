"""The agent of every env-speed measurement (bench/speed/guard.py, bench/speed/env_steps.py,
bench/bench_envs.py): a uniform random legal move per env, from the (N, 4) action masks."""

from __future__ import annotations

import numpy as np


class LegalSampler:
    """A uniform random legal move per env from (N, 4) masks, in a few numpy operations: the mask's
    4-bit code indexes a table of the legal moves; no legal move -> up."""

    def __init__(self, num_envs, seed=0):
        self.rng = np.random.default_rng(seed)
        self.num_envs = num_envs
        self.table = np.zeros((16, 4), np.int64)
        self.count = np.ones(16, np.int64)
        for code in range(16):
            legal = [m for m in range(4) if code >> m & 1]
            if legal:
                self.table[code, : len(legal)] = legal
                self.count[code] = len(legal)

    def __call__(self, masks):
        code = masks[:, 0] + 2 * masks[:, 1] + 4 * masks[:, 2] + 8 * masks[:, 3]
        pick = self.rng.integers(0, 1 << 30, self.num_envs) % self.count[code]
        return self.table[code, pick]
