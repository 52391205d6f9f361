"""The interpreted tier changes no answer: every built-in policy's games, a sweep, the puzzle
solvers and the tours give the same results with numba's JIT off (a subprocess with
NUMBA_DISABLE_JIT=1) as compiled (this process)."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import fastsnake
from fastsnake.snake.policies import OWN_DISTRIBUTION

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interpreted_cases import results  # noqa: E402

CASES_SCRIPT = Path(__file__).resolve().parent / "interpreted_cases.py"


def interpreted(cases) -> list:
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    done = subprocess.run([sys.executable, str(CASES_SCRIPT)], input=json.dumps(cases), env=env,
                          capture_output=True, text=True, timeout=900)
    assert done.returncode == 0, done.stderr
    assert "RuntimeWarning" not in done.stderr  # the intended uint64 wrapping is silent
    return json.loads(done.stdout)


def assert_same(cases):
    compiled = results(cases)
    errors = [r["error"] for r in compiled if isinstance(r, dict) and "error" in r]
    assert not errors, errors
    for case, slow, fast in zip(cases, interpreted(cases), compiled, strict=True):
        assert slow == fast, case


def builtin_policies() -> list[str]:
    return [name for name, info in fastsnake.policies(details=True).items() if info["origin"] == OWN_DISTRIBUTION]


def test_cycle_games_and_a_sweep_are_the_same_interpreted():
    assert_same([["game", ["cycle", 6, seed, 0, tail]] for seed in (0, 5) for tail in ("follow", "blocked")]
                + [["sweep", ["cycle", "4x6", 6, 3, "follow"]]])


def test_tours_are_the_same_interpreted():
    assert_same([["tour", [8, 8, 0, True, "auto"]], ["tour", [6, 6, 0, False, "search"]],
                 ["tour", [5, 5, 0, False, "auto"]], ["tour", [8, 8, 0, True, "search"]],
                 ["tour", [6, 6, 3, False, "search", (2, 3)]], ["count", [5, 5, 0, False]],
                 ["reach", [8, 8, 0, 3, False]], ["reach", [8, 8, 0, 3, True]]])


@pytest.mark.slow
@pytest.mark.parametrize("policy", builtin_policies())
def test_every_policy_plays_the_same_games_interpreted(policy):
    # 16x16 boards take the block-mask outline test (trailing_zeros), not taken below 64 blocks.
    cases = [["game", [policy, size, seed, 0, tail]] for size in (6, "6x8") for seed in (0, 1, 2)
             for tail in ("follow", "blocked")]
    cases += [["game", [policy, 16, 0, 0, "follow"]], ["sweep", [policy, 6, 4, 9, "blocked"]]]
    assert_same(cases)


@pytest.mark.slow
def test_puzzle_solvers_are_the_same_interpreted():
    three = [8, 6, 7, 2, 5, 4, 3, 0, 1]
    four = [2, 12, 7, 10, 14, 4, 5, 8, 0, 9, 1, 13, 11, 6, 3, 15]
    assert_same([["solve", [three, 3, 3, algorithm]] for algorithm in ("astar", "idastar", "reduce", "auto")]
                + [["solve", [four, 4, 4, "reduce"]], ["solve", [list(range(1, 25)) + [0], 5, 5, "reduce"]]])
