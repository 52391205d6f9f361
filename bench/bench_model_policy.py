"""model:PATH, batched, against the one-forward-pass-a-move agent of examples/rl/compare_agent.py.

Both play the shipped MaskablePPO agent (examples/rl/ppo6x6/policy.pt, MLP 128-128 over the planes)
on 6x6, seed 0, one thread, in one run: games per CPU-second of each (best of `ROUNDS`), their ratio,
and whether the games they share are the same games (game k of either is game k of the sweep).

    python bench/bench_model_policy.py            # or: pytest bench/bench_model_policy.py -s

Needs torch and the rl-train extra (pip install torch==2.13.0 'fastsnake[rl-train]').
"""

import os
import platform
import sys
import time
from pathlib import Path

import pytest

for _module in ("torch", "stable_baselines3", "sb3_contrib"):
    pytest.importorskip(_module)

import torch  # noqa: E402

import fastsnake  # noqa: E402
from fastsnake.envs import agent_policy  # noqa: E402
from fastsnake.envs.model_policy import load_agent  # noqa: E402
from fastsnake.envs.sb3 import model_agent  # noqa: E402

MODEL = Path(__file__).resolve().parents[1] / "examples" / "rl" / "ppo6x6" / "policy.pt"
SIZE = 6
OLD_GAMES = 100  # one forward pass a move: about 10-25 games a CPU-second
NEW_GAMES = 4096
ROUNDS = 2
ROW = ("outcome", "moves", "apples", "length")


def cpu_rate(policy, games):
    """(best games per CPU-second of `ROUNDS` sweeps, the last sweep's table)."""
    best, table = 0.0, None
    for _ in range(ROUNDS):
        t0 = time.process_time()
        table = fastsnake.sweep(policy, SIZE, games, seed=0, threads=1).table
        best = max(best, games / (time.process_time() - t0))
    return best, table


def measure() -> dict:
    torch.set_num_threads(1)
    name = f"model:{MODEL}"
    fastsnake.sweep(name, SIZE, 4, threads=1)  # load the model, compile the kernels: outside the timing
    old_policy = fastsnake.Policy(agent_policy(model_agent(load_agent(str(MODEL)).policy), masked=True, obs="planes"),
                                  name="one-pass-a-move")
    fastsnake.sweep(old_policy, SIZE, 2, threads=1)
    old, old_table = cpu_rate(old_policy, OLD_GAMES)
    new, new_table = cpu_rate(name, NEW_GAMES)
    same = all(new_table.column(k).to_pylist()[:OLD_GAMES] == old_table.column(k).to_pylist() for k in ROW)
    return {"old": old, "new": new, "ratio": new / old, "same_games": same, "compared": OLD_GAMES,
            "load": os.getloadavg()[0],
            "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cpus"}


def report(r: dict) -> str:
    return (f"6x6 ppo6x6 agent, 1 thread: one pass a move {r['old']:,.1f} games/CPU-s ({OLD_GAMES} games), "
            f"model:PATH batched {r['new']:,.0f} games/CPU-s ({NEW_GAMES} games): {r['ratio']:.1f}x; "
            f"first {r['compared']} games identical: {r['same_games']}; load average {r['load']:.1f}; {r['machine']}")


def test_batched_model_policy_speed():
    r = measure()
    print("\n" + report(r))
    assert r["same_games"]
    assert r["ratio"] > 1  # a sanity floor, not a timing test: the figure is the printed ratio


if __name__ == "__main__":
    result = measure()
    print(report(result))
    sys.exit(0 if result["same_games"] else 1)
