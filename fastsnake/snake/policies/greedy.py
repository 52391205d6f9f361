"""`greedy`: A* (Manhattan) from head to apple on the static board, first step.

Idea: the body as it is now blocks its cells (the static graph of the thesis,
Merkulov, "Snake AI", 2025, ch. 2-3); each move re-plans the shortest path to
the apple and takes its first step. When no path exists it takes the legal move
whose region (flood fill over free cells) is largest, to survive until the tail
opens a way. Source: the thesis, ch. 3. Guarantee: none; it seals itself in
regularly (the thesis: 0 % wins, mean score 28). The start body is laid on a
random stretch of the zig-zag Hamiltonian path (rows swept in turn), so any
board size works.
"""

import numpy as np
from numba import njit

from fastsnake.search.astar import A_PATH, astar_buffers, astar_grid, move_between
from fastsnake.search.bfs import bfs_buffers, flood_count
from fastsnake.snake.board import CFG_COLS, CFG_ROWS, CFG_TAIL_RULE, TAIL_FOLLOW
from fastsnake.snake.engine import (
    G_CFG,
    G_NBR,
    G_OCC,
    compiled_only,
    lay_body_random_k,
    start_path,
)
from fastsnake.snake.policies.kernels import engine_kernels

# Our policies in this module, name -> attribute: the registry reads this literal without an import.
BUILTIN = {"greedy": "POLICY"}

# Workspace slots: A* buffers, flood-fill buffers, the path the start body lies on, no cycle.
W_ASTAR, W_BFS, W_PATH0, W_NONE = range(4)

@njit(cache=True)
def _alloc(cfg, nbr, params):
    """greedy's workspace: A* and flood-fill buffers, the path the start body lies on, no cycle."""
    n = cfg[CFG_ROWS] * cfg[CFG_COLS]
    return astar_buffers(n), bfs_buffers(n), start_path(cfg[CFG_ROWS], cfg[CFG_COLS]), np.empty(0, np.int32)


@compiled_only
def _reset(ws, g):
    """Lay the start body on a random stretch of the row-by-row path."""
    lay_body_random_k(g, ws[W_PATH0], False)


@njit(cache=True, inline="always")
def free_cell(occ, frm, to, g):
    """A* passability: the cell is not body now (the static graph)."""
    return occ[to] == 0


@njit(cache=True)
def roomiest_move(bfs, g, st):
    """The legal move with the largest reachable free region (ties: lowest move code)."""
    nbr, occ = g[G_NBR], g[G_OCC]
    head, tail = st.head, st.tail
    follow = g[G_CFG][CFG_TAIL_RULE] == TAIL_FOLLOW
    best, best_area = 0, -1
    for move in range(4):
        v = nbr[head * 4 + move]
        if v < 0:
            continue
        if occ[v] != 0 and not (follow and v == tail and v != head):
            continue
        area = flood_count(bfs, nbr, occ, v)
        if area > best_area:
            best, best_area = move, area
    return best


@njit(cache=True)
def _decide(ws, g, st):
    """The first step of the shortest path to the apple, else the move into the largest free region."""
    nbr = g[G_NBR]
    length = astar_grid(ws[W_ASTAR], nbr, g[G_CFG][CFG_COLS], st.head, st.apple, free_cell, g[G_OCC])
    if length > 0:
        return move_between(nbr, st.head, ws[W_ASTAR][A_PATH][0])
    return roomiest_move(ws[W_BFS], g, st)


@compiled_only
def _no_cycle(ws):
    """No cycle to show in a replay (an empty array)."""
    return ws[W_NONE]


KERNELS = engine_kernels(_alloc, _reset, _decide, _no_cycle)


POLICY = KERNELS.policy("greedy", __doc__, compile_cpu_range=(12.4, 12.5))
