"""Choosing among plans that pass the outline test: the branch and bound over routes and the snug A*.

`enumerate_routes` looks for a passing route shorter than the detour chain's, or among shortest
routes the snuggest (`hug`: sides against the border, itself, the body still there at the apple);
`snug_route` finds the snuggest shortest route by one A* (`legs.snug_astar`).
"""

import numpy as np
from numba import njit

from fastsnake.snake.board import TAIL_FOLLOW
from fastsnake.snake.celltree.layout import (
    I_DETOUR_CELLS,
    I_LEG_PATH,
    I_RIGHT_HAND,
    I_ROUTE_CELLS,
    I_TRIAL_PLAN,
    I_WINDOW,
    L_AVOID,
    L_COLS,
    L_ENTRY_TIMES,
    L_TAIL_RULE,
    L_TIME_BASE,
    MOVES_ROW,
    X_ON_ROUTE,
    X_PARAMS,
    X_ROUTE_CHILDREN,
    segment,
)
from fastsnake.snake.celltree.legs import SNUG_ASTAR, call_snug_astar, distance, to_moves
from fastsnake.snake.celltree.link import I32, I64, INT, STATE, symbol_call
from fastsnake.snake.celltree.outline import BIG_BOARD_TEST, PLAN_TEST, apple_test, call_plan_test
from fastsnake.snake.celltree.params import P_BUDGET, P_SELFK, P_TIES, TIES_OFF
from fastsnake.snake.celltree.times import passable
from fastsnake.snake.engine import compiled_only


@compiled_only
def enumerate_routes(I, L, X, body, st, limit):
    """Shortest simple right-hand path head -> apple of at most `limit` moves, legal against the moving tail
    (`passable`, as the A* legs), whose body at the apple passes the outline test; with ties on, among
    paths of that length the snuggest (`hug`). Depth first, the child nearer the apple first, bound = best
    so far - 1 (with ties: best so far), at most the budget (`P_BUDGET`) nodes. Moves into segment
    I_TRIAL_PLAN; returns the length (0: none found, I_TRIAL_PLAN untouched)."""
    n = body.shape[0]
    cols = L[L_COLS]
    nbr2 = segment(I, I_RIGHT_HAND, MOVES_ROW * n)
    win = segment(I, I_WINDOW, 2 * n + 2)
    trial = segment(I, I_TRIAL_PLAN, 2 * n + 2)
    vpath = segment(I, I_DETOUR_CELLS, 2 * n + 2)
    onpath = X[X[X_ON_ROUTE]:X[X_ON_ROUTE] + n]
    # int32 cells, as every other caller passes its path to the outline test: an int64 route would make
    # numba compile the big-board tests (`big_board_test`, `suffix_test`) a second time.
    dcell = segment(I, I_ROUTE_CELLS, n + 2)
    dch = X[X[X_ROUTE_CHILDREN]:X[X_ROUTE_CHILDREN] + 2 * n + 4]
    slack = 1 if L[L_TAIL_RULE] == TAIL_FOLLOW else 2
    L[L_TIME_BASE] = st.moves - st.length + 1 - slack
    L[L_AVOID] = -1
    apple = st.apple
    head = st.head
    if distance(I, n, cols, head, apple) > limit:
        return 0
    best, best_score = 0, 0
    ties = X[X_PARAMS + P_TIES] != TIES_OFF
    budget = X[X_PARAMS + P_BUDGET]
    dcell[0] = head
    onpath[head] = 1
    children(I, nbr2, n, cols, head, apple, dch, 0)
    d = 0
    while d >= 0:
        u = dcell[d]
        # dch[2d], dch[2d+1]: the children still to try at depth d (-1: done)
        v = dch[2 * d]
        if v < 0:
            v = dch[2 * d + 1]
            if v < 0:
                onpath[u] = 0
                d -= 1
                continue
            dch[2 * d + 1] = -1
        else:
            dch[2 * d] = -1
        gm = d + 1
        if onpath[v] != 0 or gm + distance(I, n, cols, v, apple) > limit or not passable(L, u, v, gm):
            continue
        if v == apple:
            dcell[gm] = v
            path = dcell[1:gm + 1]
            ok = apple_test(I, L, X, body, st, vpath, np.int64(0), path, np.int64(gm), win)[0]
            if ok:
                score = hug(L, n, cols, onpath, path, gm) if ties else 0
                if best == 0 or gm < best or score > best_score:
                    best, best_score = gm, score
                    to_moves(nbr2, head, path, gm, trial, 0)
                limit = gm if ties else gm - 1
            continue
        budget -= 1
        if budget < 0:
            break
        d = gm
        dcell[d] = v
        onpath[v] = 1
        children(I, nbr2, n, cols, v, apple, dch, d)
    for j in range(d + 1):
        onpath[dcell[j]] = 0
    return best


@compiled_only
def snug_route(I, L, X, body, st, limit):
    """The snuggest right-hand path head -> apple of at most `limit` moves (`limit`: the shortest path's
    length), legal against the moving tail (`passable`, as the A* legs), whose body at the apple passes
    the outline test. A* on the cost 5 - sides per cell entered (sides against the border or the body
    still there when the apple is eaten, as `hug` counts them without the route itself), over moves
    that can still reach the apple within the limit (`snug_astar`). Moves into segment I_TRIAL_PLAN; returns the
    length (0: none, or it fails the outline test; I_TRIAL_PLAN untouched)."""
    n = body.shape[0]
    nbr2 = segment(I, I_RIGHT_HAND, MOVES_ROW * n)
    win = segment(I, I_WINDOW, 2 * n + 2)
    trial = segment(I, I_TRIAL_PLAN, 2 * n + 2)
    vpath = segment(I, I_DETOUR_CELLS, 2 * n + 2)
    path = segment(I, I_LEG_PATH, n)
    slack = 1 if L[L_TAIL_RULE] == TAIL_FOLLOW else 2
    L[L_TIME_BASE] = st.moves - st.length + 1 - slack
    L[L_AVOID] = -1
    head = st.head
    steps = call_snug_astar(I, L, X, head, st.apple, limit, L[L_TIME_BASE] + limit, X[X_PARAMS + P_SELFK])
    if steps == 0:
        return 0
    if not call_plan_test(I, L, X, body, st, vpath, np.int64(0), path, np.int64(steps), win)[0]:
        return 0
    to_moves(nbr2, head, path, steps, trial, 0)
    return steps


# The re-search calls these through names (`link`): compiled once a process, not again in every caller.
ENUMERATE_ROUTES = ("fastsnake_celltree_enumerate_routes_v1", enumerate_routes, INT(I32, I64, I64, I32, STATE, INT),
                    (BIG_BOARD_TEST,))
SNUG_ROUTE = ("fastsnake_celltree_snug_route_v1", snug_route, INT(I32, I64, I64, I32, STATE, INT),
              (SNUG_ASTAR, PLAN_TEST))
call_enumerate_routes = symbol_call(*ENUMERATE_ROUTES)
call_snug_route = symbol_call(*SNUG_ROUTE)


@njit(cache=True, inline="always")
def hug(L, n, cols, onpath, path, steps):
    """How snugly a plan lies: sides of its cells against the border, itself, or body still there when it eats."""
    rows = n // cols
    until = L[L_TIME_BASE] + steps
    oent = L[L_ENTRY_TIMES]
    score = 0
    for j in range(steps):
        c = path[j]
        r, q = c // cols, c - (c // cols) * cols
        for dr, dq in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, qq = r + dr, q + dq
            if rr < 0 or rr >= rows or qq < 0 or qq >= cols:
                score += 1
            else:
                o = rr * cols + qq
                if onpath[o] != 0 or L[oent + o] > until:
                    score += 1
    return score


@njit(cache=True, inline="always")
def children(I, nbr2, n, cols, u, apple, dch, d):
    """The two right-hand moves out of u, nearer to the apple first (-1: off the board)."""
    a, b = -1, -1
    for move in range(4):
        v = nbr2[MOVES_ROW * u + move]
        if v >= 0:
            if a < 0:
                a = v
            else:
                b = v
    if b >= 0 and distance(I, n, cols, b, apple) < distance(I, n, cols, a, apple):
        a, b = b, a
    dch[2 * d] = a
    dch[2 * d + 1] = b
