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
from fastsnake.snake.cycles import CYCLE_KINDS, RANDOM, check_cycle_board, cycle_tables, random_cells, zigzag_cells
from fastsnake.snake.engine import G_CFG, G_NBR, G_RNG, ix, lay_body_random, play_recorded, sweep_chunk
from fastsnake.snake.policies import EnginePolicy, Option
from fastsnake.snake.rng import POLICY_STREAM, RNG_SEED, RNG_STATE, mix64

# Workspace slots.
W_CELLS, W_ORDER, W_MOVE, W_RNG, W_PARAMS = range(5)
# Slot of the params array every cycle policy shares: the cycle kind (`cycles.CYCLE_KINDS`).
PARAM_CYCLE = 0


@njit(cache=True)
def cycle_workspace(cfg, nbr, params):
    """Cells/order/next-move tables of the cycle; zig-zag built once here."""
    rows, cols = cfg[CFG_ROWS], cfg[CFG_COLS]
    n = rows * cols
    cells = np.empty(n, np.int32)
    order = np.empty(n, np.int32)
    move = np.empty(n, np.uint8)
    if params[PARAM_CYCLE] != RANDOM:
        zigzag_cells(rows, cols, cells)
        cycle_tables(cells, order, move, nbr)
    return cells, order, move, np.zeros(1, np.uint64), params


@njit(cache=True)
def reset_cycle(ws, g):
    """New random cycle if asked (policy stream of this game), then lay the body on it."""
    if ws[W_PARAMS][PARAM_CYCLE] == RANDOM:
        rng = ws[W_RNG]
        rng[RNG_STATE] = mix64(g[G_RNG][RNG_SEED] ^ POLICY_STREAM)
        cfg = g[G_CFG]
        random_cells(cfg[CFG_ROWS], cfg[CFG_COLS], rng, ws[W_CELLS])
        cycle_tables(ws[W_CELLS], ws[W_ORDER], ws[W_MOVE], g[G_NBR])
    lay_body_random(g, ws[W_CELLS], True)


@njit(cache=True)
def reset_zigzag(ws, g):
    """`reset_cycle` for the zig-zag cycle alone: kernels built on it never compile the random
    cycle's builder (a few seconds of every cold start of the default option)."""
    lay_body_random(g, ws[W_CELLS], True)


@njit(cache=True)
def _alloc(cfg, nbr, params):
    return cycle_workspace(cfg, nbr, params)


@njit(cache=True, inline="always")
def _decide(ws, g, st):
    return ws[W_MOVE][ix(st.head)]


@njit(cache=True)
def cycle_order(ws):
    return ws[W_ORDER]


@njit(cache=True, parallel=True, nogil=True)
def _sweep(cfg, nbr, params, base_seed, first, out, nblocks):
    sweep_chunk(_alloc, reset_cycle, _decide, cfg, nbr, params, base_seed, first, out, nblocks)


@njit(cache=True, nogil=True)
def _play(cfg, nbr, params, seed):
    return play_recorded(_alloc, reset_cycle, _decide, cycle_order, cfg, nbr, params, seed)


@njit(cache=True, parallel=True, nogil=True)
def _sweep_zigzag(cfg, nbr, params, base_seed, first, out, nblocks):
    sweep_chunk(_alloc, reset_zigzag, _decide, cfg, nbr, params, base_seed, first, out, nblocks)


@njit(cache=True, nogil=True)
def _play_zigzag(cfg, nbr, params, seed):
    return play_recorded(_alloc, reset_zigzag, _decide, cycle_order, cfg, nbr, params, seed)


def by_cycle_kind(random_kernel, zigzag_kernel):
    """One kernel entry point that calls `random_kernel` for the random cycle and `zigzag_kernel`
    (built on `reset_zigzag`) otherwise: numba compiles a kernel on its first call, so a run of the
    default zig-zag cycle never compiles the random cycle's builder."""

    def kernel(cfg, nbr, params, *rest):
        chosen = random_kernel if params[PARAM_CYCLE] == RANDOM else zigzag_kernel
        return chosen(cfg, nbr, params, *rest)

    return kernel


_sweep_kernel = by_cycle_kind(_sweep, _sweep_zigzag)
_play_kernel = by_cycle_kind(_play, _play_zigzag)


# The option of every policy that follows a Hamiltonian cycle.
CYCLE_OPTION = Option("cycle", str, "zigzag", "the Hamiltonian cycle followed: rows swept in turn, or random",
                      words=CYCLE_KINDS)


def cycle_params(config, options) -> np.ndarray:
    check_cycle_board(config.rows, config.cols)
    return np.array([CYCLE_KINDS.index(options["cycle"])], dtype=np.int64)


POLICY = EnginePolicy(
    name="cycle",
    summary=__doc__,
    sweep_kernel=_sweep_kernel,
    play_kernel=_play_kernel,
    make_params=cycle_params,
    guaranteed=True,
    options=(CYCLE_OPTION,),
)
