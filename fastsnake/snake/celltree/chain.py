"""The detour chain: the shortest path to the apple, and while the body it leaves cuts blocks off,
a detour through the nearest cell of a cut-off block, then on to the apple again.
"""

import numpy as np
from numba import njit

from fastsnake.snake.board import TAIL_FOLLOW
from fastsnake.snake.celltree.blocks import mirror
from fastsnake.snake.celltree.layout import (
    M_AVOID,
    M_BASE,
    M_COLS,
    M_DETOUR,
    M_DIRECT,
    M_OPEN_H,
    M_TAIL,
    O_APATH,
    O_NBR2,
    O_STAMP,
    O_TRY,
    O_VPATH,
    O_WIN,
    X_CBIT,
    X_CROW,
    X_REACH,
    X_ROWS,
    X_SELFK,
    X_SNUGCHAIN,
    segment,
)
from fastsnake.snake.celltree.legs import distance, leg, snug_astar, to_moves
from fastsnake.snake.celltree.outline import apple_test
from fastsnake.snake.celltree.params import SNUG_CHAIN_APPLE, SNUG_CHAIN_DETOUR, SNUG_CHAIN_LEG_END
from fastsnake.snake.celltree.times import stamp_virtual


@njit(cache=True, inline="always")
def cut_off(X, L, stamp, gen, hc, b, reached):
    """Is block b cut off from the walk's last block? (whichever outline test ran last)."""
    if L[M_OPEN_H] >= 0:
        return (reached >> b) & 1 == 0
    if X[X_ROWS] != 0:
        r = b // hc
        return (X[X[X_REACH] + r] >> (b - r * hc)) & 1 == 0
    return stamp[b] != gen + 1


@njit(cache=True, inline="always")
def nearest_cut_off(order, L, X, stamp, gen, hc, n, cols, head, apple, reached):
    """The cell (not the apple, not the head) of a cut-off block nearest to the head by right-hand
    distance, ties to the smaller cell: what a scan over every cell finds (-1: none).

    With the distance table, `order` lists the cells by distance from the head (through the
    mirror: the row of mirror(head)), so the scan stops at the first cut-off cell.
    """
    cols2 = 2 * cols
    if order.shape[0] > 0 and X[X_ROWS] != 0 and L[M_OPEN_H] < 0:
        # Row masks: a cell's block is cut off when its bit is clear in its REACH row (per-cell row and bit,
        # no divisions).
        at = mirror(cols, head) * n
        reach, crow, cbit = X[X_REACH], X[X_CROW], X[X_CBIT]
        for k in range(1, n):
            cell = np.int64(order[at + k])
            if X[reach + X[crow + cell]] & X[cbit + cell] == 0 and cell != apple:
                return cell
        return -1
    if order.shape[0] > 0:
        at = mirror(cols, head) * n
        for k in range(1, n):  # k = 0: the head itself
            cell = np.int64(order[at + k])
            r = cell // cols2
            b = r * hc + (cell - r * cols2) % cols // 2
            if cell != apple and cut_off(X, L, stamp, gen, hc, b, reached):
                return cell
        return -1
    best, best_d = -1, 1 << 30
    for b in range(n // 4):
        if not cut_off(X, L, stamp, gen, hc, b, reached):
            continue
        top = (b // hc) * cols2 + (b % hc) * 2
        for cell in (top, top + 1, top + cols, top + cols + 1):
            if cell != apple:
                d = abs(head // cols - cell // cols) + abs(head % cols - cell % cols)
                if d > 0 and (d < best_d or (d == best_d and cell < best)):
                    best, best_d = cell, d
    return best


@njit(cache=True, inline="always")
def chain_moves(nbr2, start, vpath, total, head, path, steps, trial):
    """The moves of a chain's plan into trial: the detour legs start -> vpath[:total], then head -> path[:steps]."""
    to_moves(nbr2, start, vpath, total, trial, 0)
    to_moves(nbr2, head, path, steps, trial, total)


@njit(cache=True)
def detour_chain(I, L, X, order, body, st, bound, rounds):
    """cell's `detour_chain`: the same plan, with the row-mask outline test and the detour scan over cut-off blocks.

    Moves are made only for the plan returned (`chain_moves`, from the cells in vpath and path).
    """
    n = body.shape[0]
    cols = L[M_COLS]
    hc = cols // 2
    nb = n // 4
    win, trial, vpath = segment(I, O_WIN, 2 * n + 2), segment(I, O_TRY, 2 * n + 2), segment(I, O_VPATH, 2 * n + 2)
    nbr2, stamp, path = segment(I, O_NBR2, 4 * n), segment(I, O_STAMP, 5 * nb), segment(I, O_APATH, n)
    slack = 1 if L[M_TAIL] == TAIL_FOLLOW else 2
    tail_time = st.moves - st.length + 1
    head = st.head
    total = 0
    for r in range(rounds + 1):
        L[M_DETOUR] = r
        # The tail has moved `total` cells along when this leg starts.
        L[M_BASE] = tail_time + total - slack
        L[M_AVOID] = -1
        steps = leg(I, L, X, head, st.apple, bound - total)
        if r == 0:
            L[M_DIRECT] = steps
        if steps == 0:
            return 0
        if st.length + 1 == n:
            chain_moves(nbr2, st.head, vpath, total, head, path, steps, trial)
            return total + steps
        ok, reached, gen = apple_test(I, L, X, body, st, vpath, total, path, steps, win)
        if ok:
            chain_moves(nbr2, st.head, vpath, total, head, path, steps, trial)
            if r > 0 and X[X_SNUGCHAIN] & SNUG_CHAIN_APPLE:
                # The snuggest of the shortest legs from the last detour target, if it passes too.
                s2 = snug_astar(I, L, X, head, st.apple, steps, L[M_BASE] + steps, X[X_SELFK])
                if s2 > 0 and apple_test(I, L, X, body, st, vpath, total, path, s2, win)[0]:
                    to_moves(nbr2, head, path, s2, trial, total)
                    return total + s2
            return total + steps
        if r == rounds:
            return 0
        # Detour: the free cell of a cut-off block nearest to the head (right-hand distance; ties to the
        # smaller cell, as a scan over all cells would find).
        best = nearest_cut_off(order, L, X, stamp, gen, hc, n, cols, head, st.apple, reached)
        if best < 0:
            return 0
        L[M_AVOID] = st.apple
        steps1 = leg(I, L, X, head, best, bound - total - distance(I, n, cols, best, st.apple))
        if steps1 == 0:
            return 0
        if X[X_SNUGCHAIN] & SNUG_CHAIN_DETOUR:
            ahead = 0 if X[X_SNUGCHAIN] & SNUG_CHAIN_LEG_END else distance(I, n, cols, best, st.apple)
            # With none found, the snug A* leaves O_APATH alone: the plain leg stays.
            s1 = snug_astar(I, L, X, head, best, steps1, L[M_BASE] + steps1 + ahead, X[X_SELFK])
            if s1 > 0:
                steps1 = s1
        stamp_virtual(L, path, steps1, head, st.moves + total)
        vpath[total:total + steps1] = path[:steps1]
        total += steps1
        head = best
    return 0
