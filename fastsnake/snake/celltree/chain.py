"""The detour chain: the shortest path to the apple, and while the body it leaves cuts blocks off,
a detour through the nearest cell of a cut-off block, then on to the apple again.
"""

import numpy as np
from numba import njit

from fastsnake.snake.board import TAIL_FOLLOW
from fastsnake.snake.celltree.blocks import mirror
from fastsnake.snake.celltree.layout import (
    I_DETOUR_CELLS,
    I_LEG_PATH,
    I_RIGHT_HAND,
    I_STAMPS,
    I_TRIAL_PLAN,
    I_WINDOW,
    L_AVOID,
    L_COLS,
    L_DETOUR_ROUNDS,
    L_OPEN_RIGHT_MASK,
    L_SHORTEST,
    L_TAIL_RULE,
    L_TIME_BASE,
    MOVES_ROW,
    STAMP_ROWS,
    X_CELL_BIT,
    X_CELL_ROW,
    X_PARAMS,
    X_REACHED,
    segment,
)
from fastsnake.snake.celltree.legs import SNUG_ASTAR, call_snug_astar, distance, leg, to_moves
from fastsnake.snake.celltree.link import I16, I32, I64, INT, STATE, symbol_call
from fastsnake.snake.celltree.outline import BIG_BOARD_TEST, PLAN_TEST, apple_test, call_plan_test
from fastsnake.snake.celltree.params import (
    P_ROWS,
    P_SELFK,
    P_SNUGCHAIN,
    SNUG_CHAIN_APPLE,
    SNUG_CHAIN_DETOUR,
    SNUG_CHAIN_LEG_END,
)
from fastsnake.snake.celltree.times import stamp_virtual
from fastsnake.snake.engine import compiled_only


@njit(cache=True, inline="always")
def cut_off(X, L, stamp, gen, hc, b, reached):
    """Is block b cut off from the walk's last block? (whichever outline test ran last)."""
    if L[L_OPEN_RIGHT_MASK] >= 0:
        return (reached >> b) & 1 == 0
    if X[X_PARAMS + P_ROWS] != 0:
        r = b // hc
        return (X[X[X_REACHED] + r] >> (b - r * hc)) & 1 == 0
    return stamp[b] != gen + 1


@njit(cache=True, inline="always")
def nearest_cut_off(order, L, X, stamp, gen, hc, n, cols, head, apple, reached):
    """The cell (not the apple, not the head) of a cut-off block nearest to the head by right-hand
    distance, ties to the smaller cell: what a scan over every cell finds (-1: none).

    With the distance table, `order` lists the cells by distance from the head (through the
    mirror: the row of mirror(head)), so the scan stops at the first cut-off cell.
    """
    cols2 = 2 * cols
    if order.shape[0] > 0 and X[X_PARAMS + P_ROWS] != 0 and L[L_OPEN_RIGHT_MASK] < 0:
        # Row masks: a cell's block is cut off when its bit is clear in its REACH row (per-cell row and bit,
        # no divisions).
        at = mirror(cols, head) * n
        reach, crow, cbit = X[X_REACHED], X[X_CELL_ROW], X[X_CELL_BIT]
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


@compiled_only
def snug_apple_leg(I, L, X, body, st, vpath, total, path, steps, win, head):
    """The snuggest of the shortest legs from the last detour target `head` to the apple (`snug_astar`),
    if the body it leaves passes the outline test too; its length (0: none)."""
    s2 = call_snug_astar(I, L, X, head, st.apple, steps, L[L_TIME_BASE] + steps, X[X_PARAMS + P_SELFK])
    if s2 > 0 and call_plan_test(I, L, X, body, st, vpath, total, path, np.int64(s2), win)[0]:
        return s2
    return 0


# grove's detour chain calls it through this (`link`): compiled once a process.
SNUG_APPLE_LEG = ("fastsnake_celltree_snug_apple_leg_v1", snug_apple_leg,
                  INT(I32, I64, I64, I32, STATE, I32, INT, I32, INT, I32, INT), (SNUG_ASTAR, PLAN_TEST))
call_snug_apple_leg = symbol_call(*SNUG_APPLE_LEG)


@compiled_only
def no_snug_leg(I, L, X, start, goal, limit, until, selfk):
    """The snug detour leg of a chain that never takes one (`P_SNUGCHAIN` 0, cell's): none found."""
    return 0


@compiled_only
def no_snug_apple_leg(I, L, X, body, st, vpath, total, path, steps, win, head):
    """The snug last leg of a chain that never takes one: none found."""
    return 0


@njit(cache=True, inline="always")
def chain_with(outline_test, snug_leg, apple_leg, I, L, X, order, body, st, bound, rounds):
    """The detour chain's plan into I's trial plan; its length (0: none). Plans pass `outline_test`
    (`outline.apple_test`). Legs are `leg`'s; where
    `P_SNUGCHAIN` asks for snug ones, detour legs are `snug_leg`'s (`snug_astar`) and the last leg
    `apple_leg`'s (`snug_apple_leg`). cell's chain passes functions that find none, so its kernels
    do not compile the snug A*.

    Moves are made only for the plan returned (`chain_moves`, from the cells in vpath and path).
    Inlined into `detour_chain` and `plain_chain` only (see `plan.replan_with`).
    """
    n = body.shape[0]
    cols = L[L_COLS]
    hc = cols // 2
    nb = n // 4
    win = segment(I, I_WINDOW, 2 * n + 2)
    trial = segment(I, I_TRIAL_PLAN, 2 * n + 2)
    vpath = segment(I, I_DETOUR_CELLS, 2 * n + 2)
    nbr2, stamp = segment(I, I_RIGHT_HAND, MOVES_ROW * n), segment(I, I_STAMPS, STAMP_ROWS * nb)
    path = segment(I, I_LEG_PATH, n)
    slack = 1 if L[L_TAIL_RULE] == TAIL_FOLLOW else 2
    tail_time = st.moves - st.length + 1
    head = st.head
    total = 0
    for r in range(rounds + 1):
        L[L_DETOUR_ROUNDS] = r
        # The tail has moved `total` cells along when this leg starts.
        L[L_TIME_BASE] = tail_time + total - slack
        L[L_AVOID] = -1
        steps = leg(I, L, X, head, st.apple, bound - total)
        if r == 0:
            L[L_SHORTEST] = steps
        if steps == 0:
            return 0
        if st.length + 1 == n:
            chain_moves(nbr2, st.head, vpath, total, head, path, steps, trial)
            return total + steps
        # int64 counts (not a literal 0): one specialisation of the tests it calls, shared with `plan_test`.
        ok, reached, gen = outline_test(I, L, X, body, st, vpath, np.int64(total), path, np.int64(steps), win)
        if ok:
            chain_moves(nbr2, st.head, vpath, total, head, path, steps, trial)
            if r > 0 and X[X_PARAMS + P_SNUGCHAIN] & SNUG_CHAIN_APPLE:
                s2 = apple_leg(I, L, X, body, st, vpath, np.int64(total), path, np.int64(steps), win, head)
                if s2 > 0:
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
        L[L_AVOID] = st.apple
        steps1 = leg(I, L, X, head, best, bound - total - distance(I, n, cols, best, st.apple))
        if steps1 == 0:
            return 0
        if X[X_PARAMS + P_SNUGCHAIN] & SNUG_CHAIN_DETOUR:
            ahead = 0 if X[X_PARAMS + P_SNUGCHAIN] & SNUG_CHAIN_LEG_END else distance(I, n, cols, best, st.apple)
            # With none found, the snug A* leaves I_LEG_PATH alone: the plain leg stays.
            s1 = snug_leg(I, L, X, head, best, steps1, L[L_TIME_BASE] + steps1 + ahead, X[X_PARAMS + P_SELFK])
            if s1 > 0:
                steps1 = s1
        stamp_virtual(L, path, steps1, head, st.moves + total)
        vpath[total:total + steps1] = path[:steps1]
        total += steps1
        head = best
    return 0


@compiled_only
def detour_chain(I, L, X, order, body, st, bound, rounds):
    """grove's detour chain (`chain_with`), with snug legs where `P_SNUGCHAIN` asks for them."""
    return chain_with(apple_test, call_snug_astar, call_snug_apple_leg, I, L, X, order, body, st, bound, rounds)


@njit(cache=True, inline="always")
def plain_chain(I, L, X, order, body, st, bound, rounds):
    """cell's detour chain (`chain_with`): no snug legs, so `snug_astar` is not compiled for it. Inlined
    in `plan.cell_replan` (through a name it cost cell 2-3 % of its speed and saved no compile time)."""
    return chain_with(apple_test, no_snug_leg, no_snug_apple_leg, I, L, X, order, body, st, bound, rounds)


# grove's search calls its chain through this (`link`): compiled once a process by itself, so the
# search's inlining does not process the chain's inlined layers again at every level above it.
DETOUR_CHAIN = ("fastsnake_celltree_detour_chain_v1", detour_chain, INT(I32, I64, I64, I16, I32, STATE, INT, INT),
                (SNUG_ASTAR, SNUG_APPLE_LEG, BIG_BOARD_TEST))
call_detour_chain = symbol_call(*DETOUR_CHAIN)
