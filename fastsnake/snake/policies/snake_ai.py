"""`snake-ai`: greedy one-step shortcuts on a Hamiltonian cycle (illayyy/snake_ai).

Idea: of the head's free neighbours, keep those that leave the body ordered on
the cycle (every body cell between the tail and the new head, going forward),
and take the one closest to the apple along the cycle; the cycle successor is
the default. No shortcuts once the snake fills 85 % of the board. Source:
the snake_ai project (github.com/illayyy/snake_ai: its README and main.py). `snake-ai` is a
faithful re-implementation: the tail counts as an obstacle whatever the tail
rule; when the cycle successor is the body it takes the first free neighbour
in the order up, down, left, right, in or out of order; and the distance of
the default move to the apple is not wrapped around the cycle, so whenever the
apple's cycle index is below the head's no shortcut can beat the default's
negative distance. Guarantee: none (it loses a few per cent of 10x10 games:
shortcuts leave holes in the body's stretch of cycle, the head catches up with
the tail, and the out-of-order escape move runs into the body).
`snake-ai-safe` wraps every distance, lets the head onto the tail's cell when
the tail rule allows it, and never leaves the order: it never loses. Under the
blocked rule no shortcut is safe (any hole lets a run of apples just ahead of
the head freeze the tail until the head has nowhere to go, see `phc`), so
there it shortcuts only while one cell long and then follows the cycle.
Option ``cycle``: ``zigzag`` or ``random`` (a new random cycle per game).
"""

import numpy as np
from numba import njit

from fastsnake.snake.engine import G_NBR, G_OCC, body_cell
from fastsnake.snake.policies.cycle import (
    CYCLE_OPTION,
    W_CELLS,
    W_MOVE,
    W_ORDER,
    W_PARAMS,
    W_RNG,
    cycle_kernels,
    cycle_workspace_k,
)
from fastsnake.snake.policies.phc import FAITHFUL, FOLLOW_SAFE, PARAM_MODE, ahead, safety_params, tail_distance

# Our policies in this module, name -> attribute: the registry reads this literal without an import.
BUILTIN = {"snake-ai": "SNAKE_AI", "snake-ai-safe": "SNAKE_AI_SAFE"}

W_DISORDERED = 5  # faithful only: 1 once an escape move has left the cycle order this game
FLAG = 0  # the one slot of ws[W_DISORDERED]
# The original scans the head's neighbours as up, down, left, right.
SCAN = (0, 2, 3, 1)


@njit(cache=True)
def _alloc(cfg, nbr, params):
    """The cycle policy's workspace plus the faithful variant's disorder flag."""
    ws = cycle_workspace_k(cfg, nbr, params)
    return ws[W_CELLS], ws[W_ORDER], ws[W_MOVE], ws[W_RNG], ws[W_PARAMS], np.zeros(1, np.int64)


@njit(cache=True, inline="always")
def _reset_on(reset_start_cycle, ws, g):
    """Clear the disorder flag, then lay the body with `reset_start_cycle`."""
    ws[W_DISORDERED][FLAG] = 0
    reset_start_cycle(ws, g)


@njit(cache=True)
def body_span(order, n, g, st):
    """Furthest track distance of any body cell from the tail (the body's stretch, O(length))."""
    origin = order[st.tail]
    span = 0
    for k in range(st.length):
        span = max(span, ahead(order, n, origin, body_cell(g, st, k)))
    return span


@njit(cache=True, inline="always")
def faithful_move(ws, g, st):
    """The original's move: escape off the cycle when blocked, then the nearest-to-apple shortcut it allows."""
    order, nbr, occ = ws[W_ORDER], g[G_NBR], g[G_OCC]
    n = order.shape[0]
    head, apple = st.head, st.apple
    best = ws[W_MOVE][head]
    target = nbr[head * 4 + best]
    if occ[target] != 0:
        for move in SCAN:
            v = nbr[head * 4 + move]
            if v >= 0 and occ[v] == 0:
                best, target = move, v
                ws[W_DISORDERED][FLAG] = 1
                break
    best_dist = order[apple] - order[target]  # the original's unwrapped distance
    if st.length * 100 >= 85 * n:
        return best
    # The body's stretch from the tail: the head's distance while the body is in order.
    tail_origin = order[st.tail]
    span = ahead(order, n, tail_origin, head) if ws[W_DISORDERED][FLAG] == 0 else body_span(order, n, g, st)
    for move in SCAN:
        v = nbr[head * 4 + move]
        if v < 0 or occ[v] != 0 or ahead(order, n, tail_origin, v) < span:
            continue
        dist = ahead(order, n, order[v], apple)
        if dist < best_dist:
            best, best_dist = move, dist
    return best


@njit(cache=True, inline="always")
def safe_move(ws, g, st):
    """The shortcut nearest the apple that stays ahead of the tail on the cycle (the tail rule's safe mode)."""
    order, nbr, occ = ws[W_ORDER], g[G_NBR], g[G_OCC]
    n = order.shape[0]
    head, apple = st.head, st.apple
    best = ws[W_MOVE][head]
    if st.length * 100 >= 85 * n:
        return best
    dist_apple = ahead(order, n, order[head], apple)
    if ws[W_PARAMS][PARAM_MODE] == FOLLOW_SAFE:
        dist_tail = tail_distance(order, n, st)
    elif st.length == 1:
        dist_tail = dist_apple  # blocked rule: cut freely, eat only from the apple's predecessor
    else:
        return best
    best_dist = dist_apple - 1
    for move in SCAN:
        v = nbr[head * 4 + move]
        if v < 0 or occ[v] != 0:
            continue
        d = ahead(order, n, order[head], v)
        if d >= dist_tail:
            continue
        dist = dist_apple - d if d <= dist_apple else n - d + dist_apple
        if dist < best_dist:
            best, best_dist = move, dist
    return best


@njit(cache=True, inline="always")
def _decide(ws, g, st):
    """`faithful_move` or `safe_move`, by the params' mode."""
    if ws[W_PARAMS][PARAM_MODE] == FAITHFUL:
        return faithful_move(ws, g, st)
    return safe_move(ws, g, st)


KERNELS = cycle_kernels(_alloc, _decide, reset_on=_reset_on)


SNAKE_AI, SNAKE_AI_SAFE = (
    KERNELS.policy(name, __doc__, safety_params(faithful), guaranteed=not faithful, options=(CYCLE_OPTION,),
                   compile_cpu_range=(13.2, 16.4))
    for name, faithful in (("snake-ai", True), ("snake-ai-safe", False))
)
