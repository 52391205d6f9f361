"""The vector env on 1 and 2 threads: wall microseconds a step of `Games.step` (with the grid
observations' copies) and of `envs.step`, best of 5 runs of 200 steps, threads 1, 2, 1, 2.

Run: .venv/bin/python bench/env_threads.py [ENVS ...]     (default 4096; 10x10, random legal actions)

Each run replays the same actions from the same start, so the two thread counts play the same games.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "speed"))
from legal_sampler import LegalSampler  # noqa: E402

from fastsnake.envs.vector_env import SnakeVectorEnv  # noqa: E402

STEPS, ROUNDS, SIDE = 200, 5, 10


def best_wall(env, step, actions) -> float:
    """Best wall seconds of ROUNDS runs of `step` over `actions`, each from `reset(seed=0)`."""
    best = float("inf")
    for _ in range(ROUNDS):
        env.reset(seed=0)
        t0 = time.perf_counter()
        for a in actions:
            step(a)
        best = min(best, time.perf_counter() - t0)
    return best


def main(argv: list[str]) -> None:
    for n in [int(a) for a in argv] or [4096]:
        for threads in (1, 2, 1, 2):
            env = SnakeVectorEnv(n, size=SIDE, threads=threads)
            sample = LegalSampler(n)
            env.reset(seed=0)
            actions = []
            for _ in range(STEPS):
                actions.append(sample(env._games.masks))
                env.step(actions[-1])
            games = best_wall(env, lambda a, env=env: env._games.step(a, grids=True), actions)
            whole = best_wall(env, env.step, actions)
            print(f"{n:,} envs {SIDE}x{SIDE}, threads={threads}: Games.step {games / STEPS * 1e6:,.1f} us, "
                  f"envs.step {whole / STEPS * 1e6:,.1f} us a step (wall, best of {ROUNDS})")
            env.close()


if __name__ == "__main__":
    main(sys.argv[1:])
