"""`cycle`: follow a Hamiltonian cycle forever.

Idea: the snake's body always occupies consecutive cycle cells, so the cell
ahead is free or the apple, and every free cell is visited once per lap: the
game is won with certainty. Expected moves on an N-cell board from start length
L0: sum over L = L0..N-1 of (N - L + 1) / 2. Source: the thesis (Merkulov, "Snake AI", 2025),
ch. 4 (John Tapsell's method). Guarantee: wins every game, under both tail rules and any
start length. Option ``cycle``: ``zigzag`` (boustrophedon) or ``random`` (a new
random cycle per game, from the game's seed).
"""

import numpy as np
from numba import njit

from fastsnake.snake.board import CFG_COLS, CFG_ROWS
from fastsnake.snake.cycles import CYCLE_KINDS, RANDOM, check_cycle_board, cycle_tables, random_cells_k, zigzag_cells
from fastsnake.snake.engine import G_CFG, G_NBR, G_RNG, compiled_only, ix, kernel_copy, lay_body_random_k, zeros
from fastsnake.snake.policies.kernels import Kernels, by_params, engine_kernels, specialise, unique_name
from fastsnake.snake.policies.protocol import Option
from fastsnake.snake.rng import POLICY_STREAM, RNG_SEED, RNG_STATE, mix64

# Our policies in this module, name -> attribute: the registry reads this literal without an import.
BUILTIN = {"cycle": "POLICY"}

# Workspace slots.
W_CELLS, W_ORDER, W_MOVE, W_RNG, W_PARAMS = range(5)
# Slot of the params array every cycle policy shares: the cycle kind (`cycles.CYCLE_KINDS`).
PARAM_CYCLE = 0


@njit(cache=True)
def cycle_workspace(cfg, nbr, params):
    """Cells/order/next-move tables of the cycle; zig-zag built once here."""
    rows, cols = cfg[CFG_ROWS], cfg[CFG_COLS]
    n = rows * cols
    cells = zeros(n, np.int32)
    order = zeros(n, np.int32)
    move = zeros(n, np.uint8)
    if params[PARAM_CYCLE] != RANDOM:
        zigzag_cells(rows, cols, cells)
        cycle_tables(cells, order, move, nbr)
    return cells, order, move, zeros(1, np.uint64), params


@compiled_only
def reset_cycle(ws, g):
    """New random cycle if asked (policy stream of this game), then lay the body on it."""
    if ws[W_PARAMS][PARAM_CYCLE] == RANDOM:
        rng = ws[W_RNG]
        rng[RNG_STATE] = mix64(g[G_RNG][RNG_SEED] ^ POLICY_STREAM)
        cfg = g[G_CFG]
        random_cells_k(cfg[CFG_ROWS], cfg[CFG_COLS], rng, ws[W_CELLS])
        cycle_tables(ws[W_CELLS], ws[W_ORDER], ws[W_MOVE], g[G_NBR])
    lay_body_random_k(g, ws[W_CELLS], True)


@compiled_only
def reset_zigzag(ws, g):
    """`reset_cycle` for the zig-zag cycle alone: kernels built on it never compile the random
    cycle's builder (a few seconds of every cold start of the default option)."""
    lay_body_random_k(g, ws[W_CELLS], True)


@njit(cache=True, inline="always")
def _decide(ws, g, st):
    """The next move along the cycle: the head's slot of the next-move table."""
    return ws[W_MOVE][ix(st.head)]


@compiled_only
def cycle_order(ws):
    """The cycle a replay shows: its cells in order."""
    return ws[W_ORDER]


def random_cycle(params) -> bool:
    """Does a game with `params` follow a random cycle (else the zig-zag one)? The rule by which
    `cycle_kernels` picks its kernels."""
    return bool(params[PARAM_CYCLE] == RANDOM)


# The template's free name: each policy's copy of `_reset_random` and `_reset_zigzag` binds it.
reset_on = None


def _reset_random(ws, g):
    """The policy's `reset_on` over the cycle of the game's params (`reset_cycle`)."""
    reset_on(reset_cycle, ws, g)


def _reset_zigzag(ws, g):
    """The policy's `reset_on` over the zig-zag cycle only (`reset_zigzag`)."""
    reset_on(reset_zigzag, ws, g)


def cycle_kernels(alloc, decide, cycle_of=cycle_order, reset_on=None) -> Kernels:
    """The kernels of a policy that starts on a cycle (`kernels.engine_kernels`): one pair that lays the
    body with `reset_cycle` (any cycle kind) and one with `reset_zigzag`, so a run of the default
    zig-zag cycle never compiles the random cycle's builder (`by_params` picks by `random_cycle`).
    `reset_on(reset_start_cycle, ws, g)` (inlined) is what the policy does around laying the body
    (None: nothing, the workspace is the cycle's own)."""
    if reset_on is None:
        resets = (reset_cycle, reset_zigzag)
    else:
        name = unique_name([alloc, decide, reset_on])
        resets = tuple(specialise(template, f"{name}{template.__name__}", {"reset_on": reset_on},
                                  no_cpython_wrapper=True, no_cfunc_wrapper=True)  # only kernels call them
                       for template in (_reset_random, _reset_zigzag))
    return by_params(random_cycle, {True: engine_kernels(alloc, resets[0], decide, cycle_of),
                                    False: engine_kernels(alloc, resets[1], decide, cycle_of)})


# The kernels' copy of the workspace (bench scripts call `cycle_workspace` from Python).
cycle_workspace_k = kernel_copy(cycle_workspace)
KERNELS = cycle_kernels(cycle_workspace_k, _decide)


# The option of every policy that follows a Hamiltonian cycle.
CYCLE_OPTION = Option("cycle", str, "zigzag", "the Hamiltonian cycle followed: rows swept in turn, or random",
                      words=CYCLE_KINDS)


def cycle_params(config, options) -> np.ndarray:
    check_cycle_board(config.rows, config.cols)
    return np.array([CYCLE_KINDS.index(options["cycle"])], dtype=np.int64)


POLICY = KERNELS.policy("cycle", __doc__, cycle_params, guaranteed=True, options=(CYCLE_OPTION,),
                        compile_cpu_range=(8.1, 10.8))
