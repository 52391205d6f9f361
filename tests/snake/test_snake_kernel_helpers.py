"""Helpers built for compiled callers only (issue 44's cold compile): `engine.zeros` and the kernels'
copies of the once-a-game helpers (`engine.kernel_copy`) compute what the originals compute, and a
sweep through them plays the games the interpreted engine plays."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import config, njit

from fastsnake.snake.board import GameConfig
from fastsnake.snake.engine import (
    begin_game,
    begin_game_k,
    kernel_copy,
    lay_body_random,
    lay_body_random_k,
    new_game,
    new_game_k,
    start_state,
    start_state_k,
    zeros,
)
from fastsnake.snake.policies.cycle import cycle_workspace, cycle_workspace_k

compiled = pytest.mark.skipif(config.DISABLE_JIT, reason="compiled code only")


@njit
def _zeros_of_each(n):
    return zeros(n, np.int32), zeros(n, np.uint8), zeros(n, np.uint64), zeros(n, np.int64)


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 300))
def test_zeros_is_np_zeros(n):
    for got, dtype in zip(_zeros_of_each(n), (np.int32, np.uint8, np.uint64, np.int64), strict=True):
        assert got.dtype == dtype and got.shape == (n,) and got.flags.c_contiguous and got.flags.writeable
        assert not got.any()
        got[:] = 7  # memory of its own, writable to the end
        assert (got == 7).all()


@njit
def _start_through_copies(cfg, nbr, seed, cells):
    g = new_game_k(cfg, nbr)
    begin_game_k(g, seed)
    lay_body_random_k(g, cells, True)
    return g, start_state_k(g, 3, True)


@compiled
@pytest.mark.parametrize("seed", [0, 1, 12345, 2**63 + 5])
def test_kernel_copies_start_the_game_the_originals_start(seed):
    cfg, nbr = GameConfig(6, 8, 3).arrays()
    params = np.zeros(1, np.int64)  # the zig-zag cycle
    cells = cycle_workspace(cfg, nbr, params)[0]
    g, st = _start_through_copies(cfg, nbr, np.uint64(seed), cells)
    h = new_game(cfg, nbr)
    begin_game(h, np.uint64(seed))
    lay_body_random(h, cells, True)
    assert tuple(start_state(h, 3, True)) == tuple(st)
    for mine, theirs in zip(g[2:], h[2:], strict=True):
        assert np.array_equal(mine, theirs)


@compiled
def test_a_kernel_copy_is_a_compiled_only_function_of_its_own_name():
    for original, copy in ((new_game, new_game_k), (start_state, start_state_k), (cycle_workspace, cycle_workspace_k)):
        assert copy is not original
        assert copy.py_func.__qualname__ == original.py_func.__qualname__ + "_k"
        assert copy.targetoptions["no_cpython_wrapper"] and not original.targetoptions.get("no_cpython_wrapper")
    assert kernel_copy(new_game.py_func) is new_game.py_func  # a plain function (the JIT off) stays itself


_SWEEP = """
import json, sys
from fastsnake.snake.board import GameConfig
from fastsnake.snake.sweep import run_sweep
rows, cols, kind = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
run = run_sweep("cycle", GameConfig(rows, cols, 2), 6, seed=11, threads=1, options={"cycle": kind})
print(json.dumps(run.rows.tolist()))
"""


@compiled
@pytest.mark.slow
@pytest.mark.parametrize("rows,cols,kind", [(6, 6, "zigzag"), (5, 6, "zigzag"), (6, 5, "random")])
def test_cycle_sweeps_play_the_interpreted_engines_games(rows, cols, kind):
    """The compiled sweep (the kernels' copies, `zeros`, the zig-zag builder without recursion) gives
    the rows of the same sweep with numba's JIT off (the engine's plain Python), odd sides included."""
    out = {}
    for jit_off in ("0", "1"):
        env = dict(os.environ, NUMBA_DISABLE_JIT=jit_off)
        proc = subprocess.run([sys.executable, "-c", _SWEEP, str(rows), str(cols), kind], env=env,
                              capture_output=True, text=True, check=True, timeout=600)
        out[jit_off] = json.loads(proc.stdout)
    assert out["0"] == out["1"] and len(out["0"]) == 6
