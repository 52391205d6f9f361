"""Allocation and per-game reset of the workspace (see `layout`).
"""

import numpy as np
from numba import njit

from fastsnake.search.bfs import distances_to_every_cell
from fastsnake.snake.board import CFG_COLS, CFG_ROWS, CFG_TAIL_RULE
from fastsnake.snake.celltree.blocks import (
    block_edge_masks,
    block_links,
    block_tables,
    distance_order,
    leg_table,
    right_hand_table,
)
from fastsnake.snake.celltree.layout import (
    I_BLOCK_LINKS,
    I_BLOCK_OF,
    I_COEFFICIENTS,
    I_DISTANCES,
    I_LEG_MOVES,
    I_RIGHT_HAND,
    I_SIDE_EDGE,
    I_START_CELLS,
    L_BLOCK_OF,
    L_COEFFICIENTS,
    L_COLS,
    L_HEAP,
    L_OPEN_DOWN_MASK,
    L_OPEN_RIGHT_MASK,
    L_PLAN_LENGTH,
    L_PLAN_MOVE,
    L_PLAN_POS,
    L_RNG,
    L_ROWS,
    L_SIDE_EDGE,
    L_STAMPED_MOVE,
    L_TAIL_RULE,
    LEG_ROW,
    MOVES_ROW,
    OPEN_DOWN_ROW,
    OPEN_RIGHT_ROW,
    W_I,
    W_L,
    X_BLOCK_COLS,
    X_BLOCK_ROWS,
    X_CELL_BIT,
    X_CELL_ROW,
    X_COEFFICIENTS,
    X_DOWN_EDGES,
    X_PARAMS,
    X_RIGHT_EDGES,
    X_SIDE_BIT,
    X_SIDE_WORD,
    copy_into,
    segment,
    segment_starts,
)
from fastsnake.snake.celltree.link import BUILD_SIG, NEW_START_SIG, link_kernels, symbol_call
from fastsnake.snake.celltree.params import P_BITS, P_ROWS, P_TABLE
from fastsnake.snake.cycles import random_cells
from fastsnake.snake.engine import G_CFG, G_RNG, compiled_only, lay_body_random_k
from fastsnake.snake.rng import POLICY_STREAM, RNG_SEED, RNG_STATE, mix64


@compiled_only
def build(cfg, nbr, params):
    """The workspace (I, L, X, order) of one thread's games; the arrays as `layout` declares them
    (the kernels' `alloc` calls it through `link`).

    Parameters
    ----------
    cfg, nbr : int64[:], int32[:]
        The board (`GameConfig.arrays`): config vector and neighbour table.
    params : int64[:]
        The parameter vector (`params.P_*`).
    """
    rows, cols = cfg[CFG_ROWS], cfg[CFG_COLS]
    n = rows * cols
    hr, hc = rows // 2, cols // 2
    nb = hr * hc
    table = params[P_TABLE] != 0
    o = segment_starts(I_COEFFICIENTS, n, nb, hr, table)
    I = np.zeros(o[-1], np.int32)
    copy_into(I, I_RIGHT_HAND, o)
    blk, side = block_tables(rows, cols)
    copy_into(I, I[I_RIGHT_HAND], right_hand_table(nbr, rows, cols))
    copy_into(I, I[I_BLOCK_OF], blk)
    copy_into(I, I[I_SIDE_EDGE], side)
    copy_into(I, I[I_BLOCK_LINKS], block_links(rows, cols))
    if table:
        distances_to_every_cell(segment(I, I_RIGHT_HAND, MOVES_ROW * n), segment(I, I_DISTANCES, n * n))
    leg_table(I, n, segment(I, I_LEG_MOVES, LEG_ROW * n))

    o = segment_starts(L_COEFFICIENTS, n, nb, hr, table)
    L = np.zeros(o[-1], np.int64)
    copy_into(L, L_HEAP, o)
    copy_into(L, L[L_BLOCK_OF], blk)
    copy_into(L, L[L_SIDE_EDGE], side)
    L[L_OPEN_RIGHT_MASK] = -1  # no masks: the queue BFS
    if params[P_BITS] != 0:
        L[L_OPEN_RIGHT_MASK], L[L_OPEN_DOWN_MASK] = block_edge_masks(rows, cols)
    L[L_ROWS] = rows
    L[L_COLS] = cols
    L[L_TAIL_RULE] = cfg[CFG_TAIL_RULE]

    o = segment_starts(X_COEFFICIENTS, n, nb, hr, table)
    X = np.zeros(o[-1], np.int64)
    copy_into(X, X_RIGHT_EDGES, o)
    copy_into(X, X_PARAMS, params)
    X[X_BLOCK_ROWS] = hr
    X[X_BLOCK_COLS] = hc
    order = np.empty(n * n if table else 0, np.int16)
    if table:
        distance_order(I, n, cols, order)
    if params[P_ROWS] != 0:
        full = (np.int64(1) << hc) - 1
        for r in range(hr):
            X[X[X_RIGHT_EDGES] + r] = full >> 1
            X[X[X_DOWN_EDGES] + r] = full if r + 1 < hr else 0
        # A move along the side of cell c closes one bit of the open rows (right edges, then down edges).
        for c in range(n):
            # The row of blocks of cell c and its block's bit there (the detour scan reads `reached` by them).
            X[X[X_CELL_ROW] + c] = blk[c] // hc
            X[X[X_CELL_BIT] + c] = np.int64(1) << (blk[c] % hc)
            e = side[c]
            if e >= 0:
                eb = e >> 1
                X[X[X_SIDE_WORD] + c] = (OPEN_DOWN_ROW if e & 1 else OPEN_RIGHT_ROW) * hr + eb // hc
                X[X[X_SIDE_BIT] + c] = np.int64(1) << (eb % hc)
    return (I, L, X, order)


@compiled_only
def new_start(ws, g):
    """Start body on the outline of a random block tree (policy stream of the game); the kernels'
    `reset` calls it through `link`."""
    I, L = ws[W_I], ws[W_L]
    cfg = g[G_CFG]
    rows, cols = cfg[CFG_ROWS], cfg[CFG_COLS]
    rng = L[L_RNG:L_RNG + 1].view(np.uint64)
    rng[RNG_STATE] = mix64(g[G_RNG][RNG_SEED] ^ POLICY_STREAM)
    cells = segment(I, I_START_CELLS, rows * cols)
    random_cells(rows, cols, rng, cells)
    lay_body_random_k(g, cells, True)
    L[L_PLAN_LENGTH] = 0
    L[L_PLAN_POS] = 0
    L[L_PLAN_MOVE] = -1
    L[L_STAMPED_MOVE] = -2


# The kernels call the workspace's set-up through these (`link`): compiled once, not in every kernel.
BUILD_SYMBOL, NEW_START_SYMBOL = "fastsnake_celltree_build_v1", "fastsnake_celltree_new_start_v1"
call_build = symbol_call(BUILD_SYMBOL, build, BUILD_SIG)
call_new_start = symbol_call(NEW_START_SYMBOL, new_start, NEW_START_SIG)
WORKSPACE = ((BUILD_SYMBOL, build, BUILD_SIG), (NEW_START_SYMBOL, new_start, NEW_START_SIG))


@njit(cache=True, inline="always")
def alloc(cfg, nbr, params):
    """The workspace of one thread's games (`build`)."""
    return call_build(cfg, nbr, params)


@njit(cache=True, inline="always")
def reset(ws, g):
    """Lay the start body of game `g` (`new_start`)."""
    call_new_start(ws, g)


# Python may call `alloc` and `reset` too (tests): their own compiles bind the symbols first.
link_kernels((alloc, reset), WORKSPACE)


@njit(cache=True)
def start_cells(ws):
    """The start cells `reset` laid the body on (the play kernel records them)."""
    I, L = ws[W_I], ws[W_L]
    return segment(I, I_START_CELLS, L[L_ROWS] * L[L_COLS])
