"""A user's zig-zag follower (examples/fastsnake-zigzag) against the built-in `cycle --cycle zigzag`.

Both play the very same games (tested), so games per CPU-second compare the cost of
asking a user's numba ``decide(state, ws)`` through the engine's public state
against our own policy protocol. Baseline: `cycle`, measured in the same run, 1 thread.

Run: .venv/bin/pytest bench/bench_snake_user_policy.py --benchmark-only -s
"""

import sys
import time
from pathlib import Path

import pytest

import fastsnake

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "examples" / "fastsnake-zigzag"))
import fastsnake_zigzag  # noqa: E402

GAMES = 100_000
_rates = {}


def _games_per_cpu_second(policy, games):
    fastsnake.sweep(policy, 10, 10, threads=1)  # compile (or load) outside the clock
    best = 0.0
    for _ in range(3):
        c0 = time.process_time()
        result = fastsnake.sweep(policy, 10, games, threads=1)
        best = max(best, games / (time.process_time() - c0))
    assert result.summary["win_rate"] == 1.0
    return best


@pytest.mark.parametrize("policy", ["cycle", "user-zigzag", "user-zigzag-python"])
def test_user_policy_games_per_cpu_second(benchmark, policy):
    target = {"cycle": "cycle", "user-zigzag": fastsnake_zigzag.POLICY,
              "user-zigzag-python": fastsnake_zigzag.POLICY_PY}[policy]
    games = GAMES if policy != "user-zigzag-python" else 200
    rate = benchmark.pedantic(lambda: _games_per_cpu_second(target, games), rounds=1, iterations=1)
    _rates[policy] = rate
    benchmark.extra_info["games_per_cpu_second"] = rate
    if policy != "cycle" and "cycle" in _rates:
        ratio = rate / _rates["cycle"]
        benchmark.extra_info["ratio_to_cycle"] = ratio
        print(f"\n{policy}: {rate:,.0f} games/CPU-s, {ratio:.2f}x the built-in cycle ({_rates['cycle']:,.0f})")
