"""What relative=True costs: the vector env's step with obs="egocentric", absolute vs turned to the heading.

    python bench/env_relative.py [--envs 4096] [--view 11] [--steps 200] [--rounds 5]

One thread, 10x10, both envs stepped in the same run, rounds alternating (absolute, relative, ...),
with the moves a random legal walk would make (masks chosen from outside the timed step). Prints the
median microseconds a vector step (step + observations + info) of each and their ratio; the extra
work of relative=True is three small kernels (`kernels.absolute_moves`, `relative_masks`, the
headings for the turned window) and the turned window's strided reads.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from fastsnake.envs import SnakeVectorEnv


def rounds_of(env, steps: int, rng) -> float:
    """Microseconds a step, median over `steps` steps of legal random actions."""
    n = env.num_envs
    width = env.single_action_space.n
    times = []
    masks = env.action_masks()
    for _ in range(steps):
        noise = rng.random((n, width)) * masks
        actions = np.where(masks.any(axis=1), noise.argmax(axis=1), width // 2)
        t0 = time.perf_counter()
        _, _, _, _, info = env.step(actions)
        times.append(time.perf_counter() - t0)
        masks = info["action_mask"]
    return float(np.median(times)) * 1e6


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--envs", type=int, default=4096)
    p.add_argument("--view", type=int, default=11)
    p.add_argument("--steps", type=int, default=200)
    p.add_argument("--rounds", type=int, default=5)
    args = p.parse_args(argv)
    envs = {rel: SnakeVectorEnv(args.envs, size=10, obs="egocentric", view=args.view, relative=rel, threads=1)
            for rel in (False, True)}
    rng = np.random.default_rng(0)
    for env in envs.values():  # compile (or load) and warm up
        env.reset(seed=0)
        rounds_of(env, 5, rng)
    got = {False: [], True: []}
    for _ in range(args.rounds):
        for rel, env in envs.items():
            got[rel].append(rounds_of(env, args.steps, rng))
    absolute, relative = np.median(got[False]), np.median(got[True])
    print(f"{args.envs} envs, 10x10, view {args.view}, one thread, {platform.processor() or platform.machine()}")
    print(f"absolute egocentric: {absolute:,.0f} us a step; relative=True: {relative:,.0f} us a step; "
          f"ratio {relative / absolute:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
