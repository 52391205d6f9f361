"""The vector env on 1 and 2 threads: wall microseconds a step of `Games.step` (with the grid
observations' copies) and of `envs.step`, over 200 steps of random legal actions.

Run: .venv/bin/python bench/env_threads.py [ENVS ...] [--rounds 7]     (default 4096; 10x10)

The two thread counts run in alternating rounds in one process (this machine's speed drifts by a
third over minutes; rounds side by side see the same drift), each round replaying the same actions
from `reset(seed=0)`, so both play the same games. Printed: best and median of the rounds, and the
ratio of threads=1's time to threads=2's (the wall speed-up) for both.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent / "speed"))
from legal_sampler import LegalSampler  # noqa: E402

from fastsnake.envs.vector_env import SnakeVectorEnv  # noqa: E402

STEPS, SIDE = 200, 10


def wall_per_step(env, step, actions) -> float:
    """Wall microseconds a step of `step` over `actions`, from `reset(seed=0)`."""
    env.reset(seed=0)
    t0 = time.perf_counter()
    for a in actions:
        step(a)
    return (time.perf_counter() - t0) / len(actions) * 1e6


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("envs", nargs="*", type=int, default=[4096])
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args(argv)
    for n in args.envs:
        envs = {threads: SnakeVectorEnv(n, size=SIDE, threads=threads) for threads in (1, 2)}
        sample = LegalSampler(n)
        first = envs[1]
        first.reset(seed=0)
        actions = []
        for _ in range(STEPS):
            actions.append(sample(first._games.masks))
            first.step(actions[-1])
        times: dict[tuple[str, int], list[float]] = {}
        for _ in range(args.rounds):
            for threads, env in envs.items():
                games = env._games
                times.setdefault(("Games.step", threads), []).append(
                    wall_per_step(env, lambda a, games=games: games.step(a, grids=True), actions))
                times.setdefault(("envs.step", threads), []).append(wall_per_step(env, env.step, actions))
        for what in ("Games.step", "envs.step"):
            one, two = times[(what, 1)], times[(what, 2)]
            print(f"{n:,} envs {SIDE}x{SIDE}, {what}: threads=1 {min(one):,.1f} us (median "
                  f"{statistics.median(one):,.1f}), threads=2 {min(two):,.1f} us "
                  f"(median {statistics.median(two):,.1f}); "
                  f"speed-up {min(one) / min(two):.2f}x best, {statistics.median(one) / statistics.median(two):.2f}x "
                  f"median ({args.rounds} rounds)", flush=True)
        for env in envs.values():
            env.close()


if __name__ == "__main__":
    main(sys.argv[1:])
