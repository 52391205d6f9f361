"""`thesis-shortcut`: A* shortcuts in cycle order, planned once per apple (the thesis, ch. 5).

Idea: follow a Hamiltonian cycle, but whenever a new apple appears plan an A*
path from the head to it through cells that come later on the cycle, and walk
it if the snake keeps room to grow; otherwise follow the cycle to that apple.
Source: the thesis (Merkulov, "Snake AI", 2025), ch. 5 and code sample 5.1.
`thesis-shortcut-faithful` reproduces the thesis's rule: a step may only go to
a higher cycle *index* (or from the last index to 0), the search runs on the
dynamic graph of ch. 2.2 (a body cell opens once the tail has left it), and
"room to grow" means the next `room` cells after the apple on the cycle are
free on arrival. The thesis does not say how many; option ``room`` (default
8, or ``length`` for the snake's new length) sets it: 1 cell wins no 10x10
game, 8 win 74 % (the thesis: 72 %), 20 or ``length`` all of 10^4. It loses
because the index order is not the order behind the head: the path may jump
over body cells still lying ahead on the cycle (left there by earlier
shortcuts), or run past the tail's cycle cells once the tail has left them;
then the head is behind part of its own body on the cycle and following the
cycle walks into it. A short look past the apple cannot see that, a long one
mostly does (no proof). `thesis-shortcut` measures order from the head and
takes the path only while the snake covers at most half the board (later
holes cost more laps than the cut saves): every step goes further along the
cycle and stays before the tail. Then
every cell of the path is free now and stays free, the body stays in cycle
order, and under the follow rule the snake never loses (the cell ahead on the
cycle is free or the leaving tail). Under the blocked rule no shortcut is safe
(it leaves holes behind the head; see `phc`), so there it only cuts while one
cell long, eating from the apple's predecessor. Guarantee: `thesis-shortcut`
never loses; the faithful variant has none. Option ``cycle``: ``zigzag`` or
``random`` (a new random cycle per game).
"""

import numpy as np
from numba import njit

from fastsnake.search.astar import A_PATH, astar_buffers, astar_grid, move_between
from fastsnake.snake.board import CFG_COLS, CFG_TAIL_RULE, TAIL_FOLLOW
from fastsnake.snake.cycles import CYCLE_KINDS, check_cycle_board
from fastsnake.snake.engine import G_CFG, G_NBR, G_OCC, body_cell
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
from fastsnake.snake.policies.phc import ahead, tail_distance
from fastsnake.snake.policies.protocol import Option

# Our policies in this module, name -> attribute: the registry reads this literal without an import.
BUILTIN = {"thesis-shortcut": "THESIS_SHORTCUT", "thesis-shortcut-faithful": "THESIS_SHORTCUT_FAITHFUL"}

FIXED, FAITHFUL = 0, 1
# Workspace slots after the cycle's five.
W_ASTAR, W_PLAN, W_BODY_INDEX = 5, 6, 7
# plan: [path length, next step, apple it was planned for (-1 none)]
P_LEN, P_NEXT, P_APPLE = 0, 1, 2
# params: [cycle kind (cycle.PARAM_CYCLE), variant, room (cells to keep free after the apple; 0: the new length)]
PARAM_VARIANT, PARAM_ROOM = 1, 2
ROOM_OPTION = Option("room", int, 8, "cells after the apple on the cycle that must be free on arrival "
                     "('length': the snake's new length)", low=1, words=("length",))


@njit(cache=True)
def _alloc(cfg, nbr, params):
    """The cycle policy's workspace plus A* buffers, the plan and the body's index table."""
    ws = cycle_workspace_k(cfg, nbr, params)
    n = ws[W_ORDER].shape[0]
    return (ws[W_CELLS], ws[W_ORDER], ws[W_MOVE], ws[W_RNG], ws[W_PARAMS],
            astar_buffers(n), np.zeros(3, np.int64), np.zeros(n, np.int32))


@njit(cache=True, inline="always")
def _reset_on(reset_start_cycle, ws, g):
    """Forget the plan, then lay the body with `reset_start_cycle`."""
    plan = ws[W_PLAN]
    plan[P_LEN] = 0
    plan[P_NEXT] = 0
    plan[P_APPLE] = -1
    reset_start_cycle(ws, g)


@njit(cache=True, inline="always")
def ahead_of_head(ctx, frm, to, g):
    """Fixed rule: each step further along the cycle from the head, still before the tail."""
    order, n, origin, limit = ctx
    d_to = ahead(order, n, origin, to)
    return ahead(order, n, origin, frm) < d_to < limit


@njit(cache=True, inline="always")
def into_apple_from_predecessor(ctx, frm, to, g):
    """One-cell snake, blocked rule: anywhere, but the apple only from its cycle predecessor."""
    order, n, apple = ctx
    return to != apple or ahead(order, n, order[frm], apple) == 1


@njit(cache=True, inline="always")
def thesis_step(ctx, frm, to, g):
    """The thesis's rule: a higher cycle index (or last -> 0), on the dynamic graph."""
    order, n, occ, body_index, opens_after = ctx
    of, ot = order[frm], order[to]
    if not (of <= ot or (of == n - 1 and ot == 0)):
        return False
    # A body cell k places from the tail is free once the tail has moved k + 1 times.
    return occ[to] == 0 or body_index[to] + opens_after < g


@njit(cache=True)
def plan_faithful(ws, g, st):
    """The thesis' A* to the apple against the moving body, refused without room to grow; its length or <= 0."""
    order, buf, body_index = ws[W_ORDER], ws[W_ASTAR], ws[W_BODY_INDEX]
    n = order.shape[0]
    nbr, occ = g[G_NBR], g[G_OCC]
    for k in range(st.length):
        body_index[body_cell(g, st, k)] = k
    opens_after = 0 if g[G_CFG][CFG_TAIL_RULE] == TAIL_FOLLOW else 1
    ctx = (order, n, occ, body_index, opens_after)
    length = astar_grid(buf, nbr, g[G_CFG][CFG_COLS], st.head, st.apple, thesis_step, ctx)
    if length <= 0:
        return length
    # Room to grow: the snake's new length of cycle cells after the apple must be free on arrival.
    path = buf[A_PATH]
    cell = st.apple
    room = ws[W_PARAMS][PARAM_ROOM]
    for _ in range(st.length + 1 if room == 0 else room):
        cell = nbr[cell * 4 + ws[W_MOVE][cell]]
        for k in range(length):
            if path[k] == cell:
                return -1
        if occ[cell] != 0 and body_index[cell] + opens_after >= length - 1:
            return -1
    return length


@njit(cache=True)
def plan_fixed(ws, g, st):
    """Our fixed rule's A* to the apple (ahead of the head, before the tail); its length or <= 0."""
    order, buf = ws[W_ORDER], ws[W_ASTAR]
    n = order.shape[0]
    cols = g[G_CFG][CFG_COLS]
    origin = order[st.head]
    if g[G_CFG][CFG_TAIL_RULE] == TAIL_FOLLOW:
        if 2 * st.length > n:
            return -1  # room to grow: holes left late in the game cost more laps than the cut saves
        ctx = (order, n, origin, tail_distance(order, n, st))
        return astar_grid(buf, g[G_NBR], cols, st.head, st.apple, ahead_of_head, ctx)
    if st.length == 1:
        return astar_grid(buf, g[G_NBR], cols, st.head, st.apple, into_apple_from_predecessor, (order, n, st.apple))
    return -1


@njit(cache=True, inline="always")
def _decide(ws, g, st):
    """The planned path's next step (planned once per apple), else the cycle's next move."""
    plan = ws[W_PLAN]
    head = st.head
    if plan[P_APPLE] != st.apple:
        order = ws[W_ORDER]
        n = order.shape[0]
        faithful = ws[W_PARAMS][PARAM_VARIANT] == FAITHFUL
        # The fixed rule can only reach an apple ahead of the head and before the tail;
        # an apple in a hole behind the head is planned for once the tail has passed it.
        if faithful or ahead(order, n, order[head], st.apple) < tail_distance(order, n, st):
            plan[P_APPLE] = st.apple
            plan[P_NEXT] = 0
            plan[P_LEN] = plan_faithful(ws, g, st) if faithful else plan_fixed(ws, g, st)
    if plan[P_APPLE] == st.apple and plan[P_NEXT] < plan[P_LEN]:
        cell = ws[W_ASTAR][A_PATH][plan[P_NEXT]]
        plan[P_NEXT] += 1
        return move_between(g[G_NBR], head, cell)
    return ws[W_MOVE][head]


KERNELS = cycle_kernels(_alloc, _decide, reset_on=_reset_on)


def _params(variant):
    def make(config, options) -> np.ndarray:
        check_cycle_board(config.rows, config.cols)
        room = options.get("room", ROOM_OPTION.default)
        cells = 0 if room == "length" else room
        return np.array([CYCLE_KINDS.index(options["cycle"]), variant, cells], dtype=np.int64)

    return make



THESIS_SHORTCUT = KERNELS.policy("thesis-shortcut", __doc__, _params(FIXED), guaranteed=True,
                                 options=(CYCLE_OPTION,), compile_cpu_range=(15.5, 16.2))
THESIS_SHORTCUT_FAITHFUL = KERNELS.policy("thesis-shortcut-faithful", __doc__, _params(FAITHFUL),
                                          options=(CYCLE_OPTION, ROOM_OPTION), compile_cpu_range=(18.3, 18.3))
