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
    I_HEADER,
    L_HEAP,
    L_RNG,
    LEG_SLOTS,
    M_COLS,
    M_LEN,
    M_MOVES,
    M_OBENT,
    M_OBLK,
    M_OEDGE,
    M_OENT,
    M_OPEN_H,
    M_OPEN_V,
    M_OSIDE,
    M_OUNDO,
    M_PARAMS,
    M_POS,
    M_ROWS,
    M_STAMPED,
    M_TAIL,
    O_BLK,
    O_CELLS,
    O_DIST,
    O_END,
    O_LINKS,
    O_NBR2,
    O_SIDE,
    W_I,
    W_L,
    X_BACKOFF,
    X_BOWHICH,
    X_BUDGET,
    X_CBIT,
    X_CHAIN,
    X_CROW,
    X_DB,
    X_DCELL,
    X_DCH,
    X_DOWN,
    X_DX,
    X_END,
    X_HC,
    X_HEADER,
    X_HR,
    X_LASTB,
    X_LASTP,
    X_LASTX,
    X_LEG,
    X_LHEAP,
    X_LISTE,
    X_LISTP,
    X_MV,
    X_ONPATH,
    X_OPEND,
    X_OPENR,
    X_OUTLINE,
    X_PAR,
    X_PBIT,
    X_PWORD,
    X_Q2,
    X_REACH,
    X_RIGHT,
    X_ROWS,
    X_RROUNDS,
    X_SELFK,
    X_SNUG,
    X_SNUGCHAIN,
    X_SUFR,
    X_TIES,
    X_WROUNDS,
    segment,
    segment_starts,
)
from fastsnake.snake.celltree.params import (
    P_BACKOFF,
    P_BITS,
    P_BOWHICH,
    P_BUDGET,
    P_CHAIN,
    P_OUTLINE,
    P_ROWS,
    P_RROUNDS,
    P_SELFK,
    P_SNUG,
    P_SNUGCHAIN,
    P_TABLE,
    P_TIES,
    P_WROUNDS,
)
from fastsnake.snake.cycles import random_cells
from fastsnake.snake.engine import G_CFG, G_RNG, lay_body_random
from fastsnake.snake.rng import POLICY_STREAM, RNG_SEED, RNG_STATE, mix64


@njit(cache=True)
def alloc_il(cfg, nbr, params):
    """I and L (their first four parameters: `params[:P_ROWS]`)."""
    rows, cols = cfg[CFG_ROWS], cfg[CFG_COLS]
    n = rows * cols
    nb = (rows // 2) * (cols // 2)
    # params: detour rounds, re-search interval, keep the distance table, test outlines on bit masks.
    o = segment_starts(n, nb, params[P_TABLE] != 0)
    I = np.zeros(o[O_END], np.int32)
    blk, side = block_tables(rows, cols)
    I[o[O_NBR2]:o[O_NBR2] + 4 * n] = right_hand_table(nbr, rows, cols)
    I[o[O_BLK]:o[O_BLK] + n] = blk
    I[o[O_SIDE]:o[O_SIDE] + n] = side
    I[o[O_LINKS]:o[O_LINKS] + 8 * nb] = block_links(rows, cols)
    I[:I_HEADER] = o
    if params[P_TABLE] != 0:
        distances_to_every_cell(I[o[O_NBR2]:o[O_NBR2] + 4 * n], I[o[O_DIST]:o[O_DIST] + n * n])
    at = L_HEAP + 4 * n + 4
    L = np.zeros(at + 3 * n + 3 * nb + 6 * (2 * n + 2), np.int64)
    for k, size in ((M_OBLK, n), (M_OSIDE, n), (M_OENT, n), (M_OBENT, nb), (M_OEDGE, 2 * nb), (M_OUNDO, 0)):
        L[k] = at
        at += size
    L[L[M_OBLK]:L[M_OBLK] + n] = blk
    L[M_OPEN_H] = -1  # no masks: the queue BFS
    if params[P_BITS] != 0:
        L[M_OPEN_H], L[M_OPEN_V] = block_edge_masks(rows, cols)
    L[L[M_OSIDE]:L[M_OSIDE] + n] = side
    L[M_ROWS] = rows
    L[M_COLS] = cols
    L[M_TAIL] = cfg[CFG_TAIL_RULE]
    L[M_PARAMS:M_PARAMS + params.shape[0]] = params
    return (I, L)


@njit(cache=True)
def alloc(cfg, nbr, params):
    """The workspace (I, L, X, order) of one thread's games."""
    I0, L = alloc_il(cfg, nbr, params[:P_ROWS])
    hr, hc = cfg[CFG_ROWS] // 2, cfg[CFG_COLS] // 2
    n = cfg[CFG_ROWS] * cfg[CFG_COLS]
    nb = hr * hc
    # I of `alloc_il`, then the legs' part (`leg`): the leg table, stamps and parents.
    I = np.zeros(I0.shape[0] + LEG_SLOTS * n + 2 * n, np.int32)
    I[:I0.shape[0]] = I0
    X = np.zeros(X_HEADER + 7 * hr + 15 * n + 11 * nb + 12, np.int64)
    X[X_LEG] = I0.shape[0]
    leg_table(I, n, I[X[X_LEG]:X[X_LEG] + LEG_SLOTS * n])
    X[X_SNUGCHAIN] = params[P_SNUGCHAIN]
    X[X_SELFK] = params[P_SELFK]
    X[X_OUTLINE] = params[P_OUTLINE]
    X[X_ROWS] = params[P_ROWS]
    X[X_BACKOFF] = params[P_BACKOFF]
    X[X_BUDGET] = params[P_BUDGET]
    X[X_TIES] = params[P_TIES]
    X[X_SNUG] = params[P_SNUG]
    X[X_CHAIN] = params[P_CHAIN]
    X[X_RROUNDS] = params[P_RROUNDS]
    X[X_WROUNDS] = params[P_WROUNDS]
    X[X_BOWHICH] = params[P_BOWHICH]
    X[X_HR] = hr
    X[X_HC] = hc
    at = X_HEADER
    for k, size in ((X_RIGHT, hr), (X_DOWN, hr), (X_OPENR, hr), (X_OPEND, hr), (X_REACH, hr), (X_PWORD, n),
                    (X_PBIT, n), (X_LASTB, nb), (X_LASTX, 2 * nb), (X_LASTP, 2 * nb), (X_LISTE, 2 * nb),
                    (X_LISTP, 2 * nb), (X_DB, n), (X_DX, n), (X_SUFR, 2 * hr), (X_ONPATH, n), (X_DCELL, n + 2),
                    (X_DCH, 2 * n + 4), (X_MV, n), (X_PAR, nb), (X_Q2, nb),
                    (X_LHEAP, 4 * n + 4), (X_CROW, n), (X_CBIT, n)):
        X[k] = at
        at += size
    X[X_END] = at
    table = I[O_END] > I[O_DIST]
    order = np.empty(n * n if table else 0, np.int16)
    if table:
        distance_order(I, n, cfg[CFG_COLS], order)
    if params[P_ROWS] != 0:
        full = (np.int64(1) << hc) - 1
        for r in range(hr):
            X[X[X_RIGHT] + r] = full >> 1
            X[X[X_DOWN] + r] = full if r + 1 < hr else 0
        # A move along the side of cell c closes one bit of the open rows (right edges, then down edges).
        side = I[I[O_SIDE]:I[O_SIDE] + n]
        blk = I[I[O_BLK]:I[O_BLK] + n]
        for c in range(n):
            # The row of blocks of cell c and its block's bit there (the detour scan reads REACH by them).
            X[X[X_CROW] + c] = blk[c] // hc
            X[X[X_CBIT] + c] = np.int64(1) << (blk[c] % hc)
            e = side[c]
            if e >= 0:
                eb = e >> 1
                X[X[X_PWORD] + c] = (e & 1) * hr + eb // hc
                X[X[X_PBIT] + c] = np.int64(1) << (eb % hc)
    return (I, L, X, order)


@njit(cache=True)
def reset(ws, g):
    """Start body on the outline of a random block tree (policy stream of the game)."""
    I, L = ws[W_I], ws[W_L]
    cfg = g[G_CFG]
    rows, cols = cfg[CFG_ROWS], cfg[CFG_COLS]
    rng = L[L_RNG:L_RNG + 1].view(np.uint64)
    rng[RNG_STATE] = mix64(g[G_RNG][RNG_SEED] ^ POLICY_STREAM)
    cells = segment(I, O_CELLS, rows * cols)
    random_cells(rows, cols, rng, cells)
    lay_body_random(g, cells, True)
    L[M_LEN] = 0
    L[M_POS] = 0
    L[M_MOVES] = -1
    L[M_STAMPED] = -2


@njit(cache=True)
def start_cells(ws):
    """The start cells `reset` laid the body on (the play kernel records them)."""
    I = ws[W_I]
    return I[I[O_CELLS]:I[O_CELLS + 1]]
