"""A* through time for a moving body: search nodes carry where the body will be.

The search state is (cell, moves made); a node keeps its parent, so the snake's
own path is known and the body after the moves so far is "the original body
minus the cells the tail has left, plus the last cells of the path". A cell is
enterable at move t when it is not in that body (under the follow rule the
cell the tail leaves at move t counts as free). Nodes are deduplicated on
(cell, min(t, T), the move that entered the cell); paths that reach the same
such state with different own bodies keep only the first (A* order), which
may miss a path in rare cases (the exact state is the whole body).

Work is bounded: at most `budget` nodes are created per search. The result
says which way the search ended: a path length, NO_PATH (the reachable
states ran out) or OUT_OF_BUDGET.
"""

import numpy as np
from numba import njit

from fastsnake.search.astar import manhattan
from fastsnake.search.heap import heap_pop, heap_push

NO_PATH, OUT_OF_BUDGET = -1, -2
T_CELL, T_PARENT, T_TIME, T_SEEN, T_GEN, T_HEAP, T_PATH, T_BODY = range(8)
# Slots of buf[T_GEN]: the search generation (seen stamps) and the horizon of the duplicate check.
M_GEN, M_HORIZON = range(2)
_ID_BITS = 21
_ID_MASK = (1 << _ID_BITS) - 1
MAX_BUDGET = _ID_MASK


@njit(cache=True)
def timed_buffers(n, budget, horizon):
    """Buffers for boards of n cells, `budget` nodes, times deduplicated up to `horizon`."""
    meta = np.zeros(2, np.int64)  # M_GEN, M_HORIZON
    meta[M_HORIZON] = horizon
    return (
        np.empty(budget, np.int32),  # cell of node
        np.empty(budget, np.int32),  # parent node
        np.empty(budget, np.int32),  # moves made at node
        np.zeros(4 * n * (horizon + 1), np.int32),  # (cell, time, entering move) seen stamp
        meta,
        np.empty(4 * budget + 4, np.int64),  # heap of packed (f, h, node)
        np.empty(budget, np.int32),  # path found: cells after the start
        np.full(n, -1, np.int32),  # body index of each cell from the tail (-1 free)
    )


@njit(cache=True)
def timed_astar(buf, nbr, cols, body_cells, opens, start, goal, budget):
    """Shortest path start -> goal for a body (tail first, head = start) that moves along it.

    opens: 0 under the follow rule (the leaving tail cell may be entered), 1 blocked.
    Returns the path length with buf[T_PATH][:length] the cells entered, or
    NO_PATH / OUT_OF_BUDGET.
    """
    cell_of, parent, time_of, seen = buf[T_CELL], buf[T_PARENT], buf[T_TIME], buf[T_SEEN]
    heap, path, index = buf[T_HEAP], buf[T_PATH], buf[T_BODY]
    meta = buf[T_GEN]
    meta[M_GEN] += 1
    if meta[M_GEN] >= 2**31 - 1:
        seen[:] = 0
        meta[M_GEN] = 1
    gen = np.int32(meta[M_GEN])
    horizon = meta[M_HORIZON]
    length = body_cells.shape[0]
    for k in range(length):
        index[body_cells[k]] = k
    result = NO_PATH
    if start == goal:
        result = 0
    else:
        cell_of[0] = start
        parent[0] = -1
        time_of[0] = 0
        used = 1
        h0 = manhattan(cols, start, goal)
        size = heap_push(heap, 0, (np.int64(h0) << 42) | (np.int64(h0) << _ID_BITS))
        while size > 0:
            key, size = heap_pop(heap, size)
            node = np.int32(key & _ID_MASK)
            u = cell_of[node]
            if u == goal:
                result = time_of[node]
                v = node
                for k in range(result - 1, -1, -1):
                    path[k] = cell_of[v]
                    v = parent[v]
                break
            t = time_of[node] + 1
            for move in range(4):
                v = nbr[u * 4 + move]
                if v < 0:
                    continue
                k = index[v]
                if k >= 0 and k + opens >= t:
                    continue  # still the original body at move t
                slot = (v * (horizon + 1) + min(t, horizon)) * 4 + move
                if seen[slot] == gen:
                    continue
                # The path's own cells entered at moves j >= t - opens - length + 1 are body now.
                a = node
                hit = False
                while a > 0 and time_of[a] + length + opens > t:
                    if cell_of[a] == v:
                        hit = True
                        break
                    a = parent[a]
                if hit:
                    continue
                if used == budget:
                    result = OUT_OF_BUDGET
                    size = 0
                    break
                seen[slot] = gen
                cell_of[used] = v
                parent[used] = node
                time_of[used] = t
                h = manhattan(cols, v, goal)
                size = heap_push(heap, size, (np.int64(t + h) << 42) | (np.int64(h) << _ID_BITS) | used)
                used += 1
    for k in range(length):
        index[body_cells[k]] = -1
    return result
