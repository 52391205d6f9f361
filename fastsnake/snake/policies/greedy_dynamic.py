"""`greedy-dynamic`: A* to the apple on the thesis's dynamic graph, with a node budget.

Idea: like `greedy`, head for the apple by a shortest path, but search the
dynamic graph of the thesis (Merkulov, "Snake AI", 2025), ch. 2.2: a search node carries the body as it will
be after the moves so far, so cells the tail frees in time can be used and the
snake's own path blocks what it should (shared kernel
`fastsnake.search.timed_astar`). A path is planned when an apple appears and
walked to it (the body's future is known until the apple is eaten). Bounded
work: a search creates at most ``budget`` nodes (option, default 16 per cell).
When the budget runs out, or no path exists, the snake takes the legal move
with the largest free region (the `greedy` fallback) and searches again on the
next move. Source: the thesis, ch. 2-3. Guarantee: none; like plain A* it seals
itself in (ch. 3.3, figs. 3.2 and 3.3). The start body lies on a random
stretch of the zig-zag Hamiltonian path, so any board size works.
"""

import numpy as np
from numba import njit

from fastsnake.search.astar import move_between
from fastsnake.search.bfs import bfs_buffers
from fastsnake.search.timed_astar import MAX_BUDGET, T_PATH, timed_astar, timed_buffers
from fastsnake.snake.board import CFG_COLS, CFG_ROWS, CFG_TAIL_RULE, TAIL_FOLLOW
from fastsnake.snake.engine import G_CFG, G_NBR, body_cell, compiled_only, lay_body_random_k, start_path
from fastsnake.snake.policies.greedy import roomiest_move
from fastsnake.snake.policies.kernels import engine_kernels
from fastsnake.snake.policies.protocol import BySize, Option

# Our policies in this module, name -> attribute: the registry reads this literal without an import.
BUILTIN = {"greedy-dynamic": "POLICY"}

W_SEARCH, W_BFS, W_PATH0, W_NONE, W_PLAN, W_BODY, W_PARAMS = range(7)
P_LEN, P_NEXT, P_APPLE = 0, 1, 2
PARAM_BUDGET = 0  # params: [node budget]
HORIZON = 64  # times told apart by the search's duplicate check (later ones merge)
SEEN_CELLS = 1 << 20  # cap on cells x times of that check (4 MB a move direction) on big boards
DEFAULT_BUDGET_PER_CELL = 16


@njit(cache=True)
def _alloc(cfg, nbr, params):
    """The workspace: the timed search's buffers, flood fill, start path, plan and body scratch, params."""
    n = cfg[CFG_ROWS] * cfg[CFG_COLS]
    return (
        timed_buffers(n, params[PARAM_BUDGET], max(1, min(n + 1, HORIZON, SEEN_CELLS // n))),
        bfs_buffers(n),
        start_path(cfg[CFG_ROWS], cfg[CFG_COLS]),
        np.empty(0, np.int32),
        np.full(3, -1, np.int64),
        np.empty(n, np.int32),
        params,
    )


@compiled_only
def _reset(ws, g):
    """Forget the plan and lay the start body on a random stretch of the row-by-row path."""
    ws[W_PLAN][:] = -1
    lay_body_random_k(g, ws[W_PATH0], False)


@njit(cache=True)
def plan_path(ws, g, st):
    """Search a path to the apple against the moving body (`timed_astar`); its length, or <= 0."""
    body = ws[W_BODY]
    for k in range(st.length):
        body[k] = body_cell(g, st, k)
    opens = 0 if g[G_CFG][CFG_TAIL_RULE] == TAIL_FOLLOW else 1
    return timed_astar(ws[W_SEARCH], g[G_NBR], g[G_CFG][CFG_COLS], body[: st.length], opens, st.head, st.apple,
                       ws[W_PARAMS][PARAM_BUDGET])


@njit(cache=True, inline="always")
def _decide(ws, g, st):
    """The planned path's next step (re-planned for each apple), else the move into the largest free region."""
    plan = ws[W_PLAN]
    if plan[P_APPLE] != st.apple:
        length = plan_path(ws, g, st)
        if length <= 0:
            return roomiest_move(ws[W_BFS], g, st)
        plan[P_APPLE] = st.apple
        plan[P_LEN] = length
        plan[P_NEXT] = 0
    cell = ws[W_SEARCH][T_PATH][plan[P_NEXT]]
    plan[P_NEXT] += 1
    return move_between(g[G_NBR], st.head, cell)


@compiled_only
def _no_cycle(ws):
    """No cycle to show in a replay (an empty array)."""
    return ws[W_NONE]


KERNELS = engine_kernels(_alloc, _reset, _decide, _no_cycle)


BUDGET_OPTION = Option(
    "budget", int, BySize(lambda config, values, given: min(DEFAULT_BUDGET_PER_CELL * config.cells, MAX_BUDGET),
                          f"{DEFAULT_BUDGET_PER_CELL} per cell, at most {MAX_BUDGET:,}"),
    "A* nodes expanded per move", low=1, high=MAX_BUDGET)


def _params(config, options) -> np.ndarray:
    return np.array([options["budget"]], dtype=np.int64)


POLICY = KERNELS.policy("greedy-dynamic", __doc__, _params, options=(BUDGET_OPTION,), compile_cpu_range=(14.2, 15.4))
