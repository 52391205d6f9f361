"""The built-in policies' kernel template (`fastsnake.snake.policies.kernels`): one named, cached copy
per set of parts, found again by a new process, and one dispatcher for kernel variants."""

import os
import subprocess
import sys

import numpy as np
import pytest
from numba import njit

from fastsnake.snake import record
from fastsnake.snake.board import GameConfig
from fastsnake.snake.policies import OWN_DISTRIBUTION, all_policies, get_policy
from fastsnake.snake.policies.cycle import cycle_order, cycle_workspace, random_cycle, reset_cycle, reset_zigzag
from fastsnake.snake.policies.greedy import _alloc, _decide, _no_cycle, _reset
from fastsnake.snake.policies.kernels import ChosenKernel, Parts, compiled_kernels, engine_kernels, kernel_name
from fastsnake.snake.rng import game_seed
from fastsnake.snake.sweep import prepare


def _builtin():
    return [p for p in all_policies() if p.origin == OWN_DISTRIBUTION]


def test_each_set_of_parts_has_kernels_of_its_own_name():
    """numba files a copy's cache under its name: two policies sharing one would load each other's code."""
    owners = {}
    for policy in _builtin():
        for kernel in compiled_kernels(policy.sweep_kernel) + compiled_kernels(policy.play_kernel):
            owners.setdefault(kernel.py_func.__qualname__, set()).add(id(kernel))
    assert len(owners) >= 20
    assert all(len(ids) == 1 for ids in owners.values())  # a name, one dispatcher


def test_a_name_depends_on_the_parts_only():
    again = engine_kernels(_alloc, _reset, _decide, _no_cycle)
    greedy = get_policy("greedy")
    assert again.sweep.py_func.__qualname__ == greedy.sweep_kernel.py_func.__qualname__
    other = kernel_name(Parts(cycle_workspace, reset_cycle, _decide, cycle_order))
    assert other != again.sweep.py_func.__qualname__.removesuffix("_sweep")


def test_only_fastsnake_functions_become_built_in_kernels():
    @njit
    def mine(ws, g, st):
        return 0

    with pytest.raises(ValueError, match="fastsnake.Policy"):
        engine_kernels(_alloc, _reset, mine, _no_cycle)


def test_the_one_dispatcher_picks_by_params():
    cycle = get_policy("cycle")
    assert isinstance(cycle.sweep_kernel, ChosenKernel) and cycle.sweep_kernel.rule is random_cycle
    zigzag = cycle.params(GameConfig(4, 4), {"cycle": "zigzag"})
    randomly = cycle.params(GameConfig(4, 4), {"cycle": "random"})
    assert not random_cycle(zigzag) and random_cycle(randomly)
    kernels = cycle.sweep_kernel.kernels
    assert kernels[True] is not kernels[False]
    assert kernels[True].py_func.__globals__["reset"] is reset_cycle
    assert kernels[False].py_func.__globals__["reset"] is reset_zigzag


@pytest.mark.slow
def test_a_new_process_loads_the_copies_from_the_cache(tmp_path):
    """The pitfall a closure per policy falls into: its cache entry is never found again."""
    script = ("import numpy as np\n"
              "from fastsnake.snake.board import GameConfig\n"
              "from fastsnake.snake.sweep import prepare\n"
              "pol, _, params, cfg, nbr = prepare('greedy', GameConfig(6, 6), {})\n"
              "pol.play_kernel(cfg, nbr, params, np.uint64(3))\n"
              "s = pol.play_kernel.stats\n"
              "print(sum(s.cache_hits.values()), sum(s.cache_misses.values()))\n")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, check=True)
            for _ in range(2)]
    assert runs[0].stdout.split() == ["0", "1"]  # compiled
    assert runs[1].stdout.split() == ["1", "0"]  # loaded


def test_same_games_through_the_template_and_through_the_parts():
    """The template's kernel plays what the engine's loop over the same parts plays (greedy, 6x6)."""
    pol, _, params, cfg, nbr = prepare("greedy", GameConfig(6, 6), {})
    out = np.zeros((8, record.width()), np.int64)
    pol.sweep_kernel(cfg, nbr, params, np.uint64(1), np.int64(0), out, 2)
    for k in range(8):
        seed = np.uint64(game_seed(np.uint64(1), np.uint64(k)))  # a compiled call returns a Python int
        outcome, _body, moves, _apples, _cycle = pol.play_kernel(cfg, nbr, params, seed)
        assert (outcome, len(moves)) == (out[k, 0], out[k, 1])
