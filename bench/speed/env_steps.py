"""Vector-env steps per CPU-second: `gym.make_vec(..., vectorization_mode="vector_entry_point")`,
4,096 envs on 10x10, a random legal action per env from the masks each step, observations and
infos included (issue 38's measurement). Per observation kind on 1 thread (CPU time of the whole
loop, the sampler included, and of `env.step` alone), then 1 vs 2 threads (wall rate ratio).
Also a checksum of the games played (rewards, dones and final states), equal across builds that
play the same games.

Run: .venv/bin/python bench/speed/env_steps.py [--steps 400] [--rounds 5] [--obs grid,planes,features]
Old code in the same run: PYTHONPATH=<a checkout of the old commit> .venv/bin/python bench/speed/env_steps.py
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import gymnasium as gym
import numba

import fastsnake
import fastsnake.envs as E

sys.path.insert(0, str(Path(__file__).resolve().parent))
from legal_sampler import LegalSampler  # noqa: E402


def run(num_envs, size, obs, threads, steps, rounds):
    """(steps per CPU-second of the loop, of env.step alone, steps per wall second, checksum): best rounds."""
    envs = gym.make_vec(E.ENV_ID, num_envs=num_envs, vectorization_mode="vector_entry_point", size=size, obs=obs,
                        threads=threads)
    sample = LegalSampler(num_envs)
    _, info = envs.reset(seed=0)
    check = 0.0
    for _ in range(20):  # load, and leave the start positions
        _, reward, terminated, truncated, info = envs.step(sample(info["action_mask"]))
    best_cpu = best_step = best_wall = float("inf")
    for _ in range(rounds):
        inside = 0.0
        t0, c0 = time.perf_counter(), time.process_time()
        for _ in range(steps):
            actions = sample(info["action_mask"])
            s0 = time.process_time()
            _, reward, terminated, truncated, info = envs.step(actions)
            inside += time.process_time() - s0
            check += float(reward.sum()) + 2 * int(terminated.sum()) + 3 * int(truncated.sum())
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        best_cpu, best_step, best_wall = min(best_cpu, cpu), min(best_step, inside), min(best_wall, wall)
    check += float(info["moves"].sum()) + float(info["length"].sum())
    envs.close()
    n = num_envs * steps
    return n / best_cpu, n / best_step, n / best_wall, check


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--envs", type=int, default=4096)
    parser.add_argument("--size", type=int, default=10)
    parser.add_argument("--steps", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--obs", default="grid,planes,features")
    parser.add_argument("--threads", default="1,2", help="thread counts for the grid wall ratio")
    args = parser.parse_args()
    numba.set_num_threads(1)
    print(f"fastsnake from {fastsnake.__file__}; {args.envs} envs {args.size}x{args.size}, {args.steps} steps, "
          f"best of {args.rounds}")
    for obs in args.obs.split(","):
        cpu, step, wall, check = run(args.envs, args.size, obs, 1, args.steps, args.rounds)
        print(f"obs={obs:<9} threads=1: {cpu / 1e6:6.2f} M steps/CPU-s (loop), {step / 1e6:6.2f} M inside env.step, "
              f"{wall / 1e6:6.2f} M/wall-s, checksum {check:.0f}", flush=True)
    walls = {}
    for threads in (int(t) for t in args.threads.split(",")):
        cpu, step, wall, check = run(args.envs, args.size, "grid", threads, args.steps, args.rounds)
        walls[threads] = wall
        print(f"obs=grid      threads={threads}: {cpu / 1e6:6.2f} M steps/CPU-s, {wall / 1e6:6.2f} M/wall-s, "
              f"checksum {check:.0f}", flush=True)
    if 1 in walls and 2 in walls:
        print(f"threads=2 / threads=1, wall: {walls[2] / walls[1]:.2f}x")


if __name__ == "__main__":
    main()
