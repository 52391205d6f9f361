"""What the cancellation poll costs the engine: games per CPU-second, code before vs now, same run.

    git worktree add /tmp/before <commit before the poll>     # or: git archive <commit> | tar -x -C /tmp/before
    python bench/bench_cancel_poll.py --before /tmp/before [--rounds 7]

Each round runs one process on each checkout (which goes first alternates), each process sweeps
every case below on one thread after a warm-up, and the ratio now/before is taken round by
round, so that a machine whose speed drifts (other jobs on the cores) moves both sides alike.
Prints each case's median games per CPU-second on both sides and the median ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
# (policy, board side, games): about a CPU-second each on the project's machine.
CASES = [("cycle", 10, 200_000), ("cycle", 30, 3_000), ("greedy", 10, 8_000), ("greedy", 30, 150)]

_CHILD = """
import json, sys
import fastsnake
from fastsnake.snake.board import GameConfig
from fastsnake.snake.sweep import run_sweep, summarize
cases = json.loads(sys.argv[1])
found = {"module": fastsnake.__file__}
for policy, side, games in cases:
    run_sweep(policy, GameConfig(side, side), max(1, games // 20), seed=1, threads=1)  # load, warm
    summary = summarize(run_sweep(policy, GameConfig(side, side), games, seed=2, threads=1))
    found[f"{policy} {side}x{side}"] = summary["games_per_cpu_second"]
print(json.dumps(found))
"""


def measure(checkout: Path) -> dict:
    env = dict(os.environ, PYTHONPATH=str(checkout))
    out = subprocess.run([sys.executable, "-c", _CHILD, json.dumps(CASES)], env=env, check=True, cwd=checkout,
                         capture_output=True, text=True).stdout
    found = json.loads(out)
    module = Path(found.pop("module")).resolve()
    if checkout.resolve() not in module.parents:
        raise SystemExit(f"{checkout} did not provide fastsnake (imported {module})")
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", required=True, type=Path, help="a checkout of the code before the poll")
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    sides = {"now": HERE, "before": args.before}
    runs: dict = {"now": [], "before": []}
    for k in range(args.rounds):
        order = ("now", "before") if k % 2 == 0 else ("before", "now")
        for side in order:
            runs[side].append(measure(sides[side]))
        print(f"round {k + 1}/{args.rounds} done", file=sys.stderr)
    print(f"{'case':<14} {'before g/CPU-s':>15} {'now g/CPU-s':>15} {'now/before':>11}")
    for case in runs["now"][0]:
        before = [r[case] for r in runs["before"]]
        now = [r[case] for r in runs["now"]]
        ratios = [n / b for n, b in zip(now, before, strict=True)]
        print(f"{case:<14} {statistics.median(before):>15,.0f} {statistics.median(now):>15,.0f} "
              f"{statistics.median(ratios):>11.3f}  (ratios {min(ratios):.3f}..{max(ratios):.3f})")


if __name__ == "__main__":
    main()
