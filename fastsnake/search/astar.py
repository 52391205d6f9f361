"""A* on grid graphs given by a neighbour table, with reusable buffers.

`astar_grid` is shared by every Snake policy: the caller supplies the graph as
`nbr[cell * 4 + move]` and an njit predicate `passable(ctx, frm, to, g)` (g = the
number of moves at which `to` would be entered), so static graphs, cycle-order
constraints and time-dependent bodies all use the same kernel. The heuristic is
the Manhattan distance, admissible and consistent on the 4-neighbour grid.

Buffers are allocated once (`astar_buffers`) and invalidated per search by a
generation stamp, so a search costs only what it expands.
"""

import numpy as np
from numba import njit

from fastsnake.search.heap import heap_pop, heap_push

# Buffer slots.
A_G, A_PARENT, A_OPEN, A_CLOSED, A_GEN, A_HEAP, A_PATH = range(7)
# The one slot of a generation counter (buf[A_GEN], a one-element int64 array).
GEN_COUNT = 0

_CELL_BITS = 21
_CELL_MASK = (1 << _CELL_BITS) - 1


@njit(cache=True)
def astar_buffers(n):
    """The reusable buffers of `astar_grid` on an `n`-cell board (slots A_G .. A_PATH)."""
    return (
        np.zeros(n, np.int32),  # g
        np.zeros(n, np.int32),  # parent
        np.zeros(n, np.int32),  # open stamp: g[cell] valid in this search
        np.zeros(n, np.int32),  # closed stamp
        np.zeros(1, np.int64),  # current generation
        np.empty(4 * n + 4, np.int64),  # heap of packed (f, h, cell)
        np.empty(n, np.int32),  # path found: cells after the start, in order
    )


@njit(cache=True, inline="always")
def _next_generation(buf):
    """Start a search: bump the stamp that marks cells open/closed in this search (clearing on wrap)."""
    gen = buf[A_GEN]
    gen[GEN_COUNT] += 1
    if gen[GEN_COUNT] >= 2**31 - 1:
        buf[A_OPEN][:] = 0
        buf[A_CLOSED][:] = 0
        gen[GEN_COUNT] = 1
    return np.int32(gen[GEN_COUNT])


@njit(cache=True, inline="always")
def manhattan(cols, a, b):
    """Grid distance between cells `a` and `b` on a board `cols` wide."""
    ra = a // cols
    rb = b // cols
    return abs(ra - rb) + abs((a - ra * cols) - (b - rb * cols))


@njit(cache=True, inline="always")
def astar_grid(buf, nbr, cols, start, goal, passable, ctx):
    """Shortest path start -> goal; returns its length (moves) or -1.

    On success buf[A_PATH][:length] holds the cells entered, the last being goal.
    Ties in f are broken towards smaller h, then smaller cell index, so results
    are deterministic.
    """
    return astar_grid_within(buf, nbr, cols, start, goal, passable, ctx, 2**30)


@njit(cache=True, inline="always")
def astar_grid_within(buf, nbr, cols, start, goal, passable, ctx, limit):
    """`astar_grid` for paths of at most `limit` moves: -1 if there is none."""
    return astar_within(buf, nbr, start, goal, passable, ctx, manhattan, cols, limit)


@njit(cache=True, inline="always")
def astar_within(buf, nbr, start, goal, passable, ctx, heuristic, hctx, limit):
    """A* with an njit heuristic(hctx, cell, goal) (admissible and consistent), paths of at most `limit` moves.

    Nodes with f > limit are never queued. They could only be popped after
    every node with f <= limit, so a path within the limit, and which one is
    found, is the same as without it; a search that cannot succeed stops early.
    Returns the path length or -1, the path in buf[A_PATH] as in `astar_grid`.
    """
    g, parent, opened, closed = buf[A_G], buf[A_PARENT], buf[A_OPEN], buf[A_CLOSED]
    heap, path = buf[A_HEAP], buf[A_PATH]
    gen = _next_generation(buf)
    if start == goal:
        return 0
    g[start] = 0
    opened[start] = gen
    parent[start] = -1
    h0 = heuristic(hctx, start, goal)
    if h0 > limit:
        return -1
    size = heap_push(heap, 0, (np.int64(h0) << 42) | (np.int64(h0) << _CELL_BITS) | start)
    while size > 0:
        key, size = heap_pop(heap, size)
        u = np.int32(key & _CELL_MASK)
        if closed[u] == gen:
            continue
        closed[u] = gen
        if u == goal:
            length = g[u]
            v = u
            for k in range(length - 1, -1, -1):
                path[k] = v
                v = parent[v]
            return length
        gu = g[u] + 1
        for move in range(4):
            v = nbr[u * 4 + move]
            if v < 0 or closed[v] == gen:
                continue
            if opened[v] == gen and g[v] <= gu:
                continue
            if not passable(ctx, u, v, gu):
                continue
            h = heuristic(hctx, v, goal)
            if gu + h > limit:
                continue
            opened[v] = gen
            g[v] = gu
            parent[v] = u
            size = heap_push(heap, size, (np.int64(gu + h) << 42) | (np.int64(h) << _CELL_BITS) | v)
    return -1


@njit(cache=True, inline="always")
def move_between(nbr, a, b):
    """The move that leads from cell a to its neighbour b (-1 if not adjacent)."""
    for move in range(4):
        if nbr[a * 4 + move] == b:
            return move
    return -1
