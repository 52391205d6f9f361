"""The A* legs: shortest time-aware right-hand paths, and the snuggest of them.

A leg is searched against the moving tail (`times.passable`) with the right-hand distance on the
empty board as heuristic (Manhattan on boards without the distance table). `leg` is the plain
shortest path; `snug_astar` prefers cells with sides against the border and the body.
"""

import numpy as np
from numba import njit

from fastsnake.search.heap import heap_pop, heap_push
from fastsnake.snake.celltree.layout import (
    I_ASTAR_CLOSED,
    I_ASTAR_COST,
    I_ASTAR_OPENED,
    I_ASTAR_PARENT,
    I_DISTANCES,
    I_END,
    I_LEG_MOVES,
    I_LEG_PARENTS,
    I_LEG_PATH,
    I_LEG_STAMPS,
    I_MANHATTAN_ROW,
    I_RIGHT_HAND,
    L_ASTAR_GEN,
    L_AVOID,
    L_BLOCK_ENTRY_TIMES,
    L_COLS,
    L_EDGE_TIMES,
    L_ENTRY_TIMES,
    L_HEAP,
    L_ROWS,
    L_TIME_BASE,
    LEG_EDGE,
    LEG_OUT,
    LEG_OUTBLK,
    LEG_ROW,
    MOVES_ROW,
    X_LEG_BASE,
    X_LEG_HEAP,
    X_SNUG_MOVES,
    segment,
)
from fastsnake.snake.celltree.link import I32, I64, INT, symbol_call
from fastsnake.snake.celltree.times import passable
from fastsnake.snake.engine import compiled_only

# Heap keys: the legs' (f, h, cell) packed as `search.astar` packs them; the snug A*'s (cost + h, cell).
KEY_CELL_BITS = 21
KEY_CELL_MASK = (1 << KEY_CELL_BITS) - 1
KEY_F_SHIFT = 2 * KEY_CELL_BITS


@njit(cache=True, inline="always")
def has_table(I):
    """Does I keep the right-hand distance table (a non-empty last segment)?"""
    return I[I_END] > I[I_DISTANCES]


@njit(cache=True, inline="always")
def distances_to(I, n, cols, goal):
    """Right-hand distance on the empty board from every cell to `goal` (Manhattan on boards without the table)."""
    if has_table(I):
        return I[I[I_DISTANCES] + goal * n:I[I_DISTANCES] + (goal + 1) * n]
    row = segment(I, I_MANHATTAN_ROW, n)
    gr, gc = goal // cols, goal % cols
    cell = 0
    for r in range(n // cols):
        for c in range(cols):
            row[cell] = abs(r - gr) + abs(c - gc)
            cell += 1
    return row


@njit(cache=True, inline="always")
def distance(I, n, cols, a, b):
    """Right-hand distance a -> b on the empty board (Manhattan without the table)."""
    if has_table(I):
        return I[I[I_DISTANCES] + b * n + a]
    return abs(a // cols - b // cols) + abs(a % cols - b % cols)


@compiled_only
def to_moves(nbr2, start, path, steps, plan, at):
    """plan[at:at + steps] = the moves (0..3) of the walk start -> path[:steps] on the right-hand table nbr2."""
    cell = start
    for k in range(steps):
        to = path[k]
        for move in range(4):
            if nbr2[MOVES_ROW * cell + move] == to:
                plan[at + k] = move
        cell = to


@compiled_only
def leg(I, L, X, start, goal, limit):
    """cell's `_leg` (the same length, 0: none, and the same path in segment I_LEG_PATH), specialised.

    The same A* (keys (f, h, cell), a cell closed when first popped, a queued cell improved only by a
    smaller g, `passable` at the move it is entered, nothing queued with f > limit, the heuristic the
    right-hand distance, Manhattan without the table), so the same cells are expanded in the same order.
    Faster: the two moves of a cell and what `passable` reads of them come from the leg table, the L
    offsets, time base and cell to avoid are read once; one stamp per cell (stamp - base: g of a queued
    cell, 0 once closed; only the start has g = 0 and it is expanded before anything is queued); the
    heap in X; and the smallest queued key is held out of the heap (`top`) while it is the smallest, so
    a search running down one line of ties pushes and pops nothing.
    """
    cols = L[L_COLS]
    n = L[L_ROWS] * cols
    if start == goal:
        return 0
    succ = segment(I, I_LEG_MOVES, LEG_ROW * n)
    stamp = segment(I, I_LEG_STAMPS, n)
    parent = segment(I, I_LEG_PARENTS, n)
    heap = X[X[X_LEG_HEAP]:X[X_LEG_HEAP] + 4 * n + 4]
    table = has_table(I)
    dist = I[I[I_DISTANCES] + goal * n:I[I_DISTANCES] + (goal + 1) * n] if table else I[0:0]
    gr, gc = goal // cols, goal % cols
    # Every g is below n, so the stamps of earlier searches are all below base.
    base = X[X_LEG_BASE] + n + 1
    if base >= 2**31 - 2 * n - 2:
        stamp[:] = 0
        base = n + 1
    X[X_LEG_BASE] = base
    tbase, avoid = L[L_TIME_BASE], L[L_AVOID]
    oent, obent, oedge = L[L_ENTRY_TIMES], L[L_BLOCK_ENTRY_TIMES], L[L_EDGE_TIMES]
    h0 = dist[start] if table else abs(start // cols - gr) + abs(start % cols - gc)
    if h0 > limit:
        return 0
    stamp[start] = base
    parent[start] = -1
    size = 0
    top = np.int64(-1)  # the smallest queued key while it is not in the heap (-1: none)
    u = start
    gu = 1
    while True:
        # Expand u: its moves enter at move gu (`passable` with times after tbase + gu).
        t = tbase + gu
        at = LEG_ROW * u
        for k in range(2):
            v = succ[at + k]
            if v < 0:
                continue
            x = stamp[v] - base
            if 0 <= x <= gu:  # closed, or queued with g no greater
                continue
            if L[oent + v] > t or v == avoid:
                continue
            if k == LEG_OUT and L[obent + succ[at + LEG_OUTBLK]] > t and L[oedge + succ[at + LEG_EDGE]] <= t:
                continue
            h = dist[v] if table else abs(v // cols - gr) + abs(v % cols - gc)
            if gu + h > limit:
                continue
            stamp[v] = base + gu
            parent[v] = u
            key = (np.int64(gu + h) << KEY_F_SHIFT) | (np.int64(h) << KEY_CELL_BITS) | v
            if top < 0:
                top = key
            elif key < top:
                size = heap_push(heap, size, top)
                top = key
            else:
                size = heap_push(heap, size, key)
        # Pop the smallest key whose g is still the cell's (a cell improved or closed since is skipped).
        while True:
            if top >= 0 and (size == 0 or top < heap[0]):
                key = top
                top = -1
            elif size > 0:
                key, size = heap_pop(heap, size)
            else:
                return 0
            u = np.int64(key & KEY_CELL_MASK)
            g = (key >> KEY_F_SHIFT) - ((key >> KEY_CELL_BITS) & KEY_CELL_MASK)
            if stamp[u] - base == g:
                break
        stamp[u] = base
        if u == goal:
            path = segment(I, I_LEG_PATH, n)
            v = u
            for j in range(g - 1, -1, -1):
                path[j] = v
                v = parent[v]
            return g
        gu = g + 1


@compiled_only
def snug_astar(I, L, X, start, goal, limit, until, selfk):
    """The snuggest time-aware right-hand path start -> goal of at most `limit` moves, with the times set in
    L (L_TIME_BASE, L_AVOID, virtual stamps): A* on the cost 5 - sides per cell entered, sides against the border
    or cells still occupied at move L[L_TIME_BASE]-relative `until` (entry time > until), and, with selfk > 0,
    against the route's own cells 3..selfk+1 moves back (its parent chain). Returns the number of moves (0:
    none); the cells entered are in segment I_LEG_PATH."""
    cols = L[L_COLS]
    n = L[L_ROWS] * cols
    rows = n // cols
    nbr2, path = segment(I, I_RIGHT_HAND, MOVES_ROW * n), segment(I, I_LEG_PATH, n)
    cost = segment(I, I_ASTAR_COST, n)
    parent = segment(I, I_ASTAR_PARENT, n)
    opened = segment(I, I_ASTAR_OPENED, n)
    closed = segment(I, I_ASTAR_CLOSED, n)
    moves = X[X[X_SNUG_MOVES]:X[X_SNUG_MOVES] + n]
    heap = segment(L, L_HEAP, 4 * n + 4)
    oent = L[L_ENTRY_TIMES]
    dist = distances_to(I, n, cols, goal)
    L[L_ASTAR_GEN] += 1
    if L[L_ASTAR_GEN] >= 2**31 - 1:
        opened[:] = 0
        closed[:] = 0
        L[L_ASTAR_GEN] = 1
    gen = np.int32(L[L_ASTAR_GEN])
    cost[start] = 0
    moves[start] = 0
    opened[start] = gen
    parent[start] = -1
    size = heap_push(heap, 0, (np.int64(dist[start]) << KEY_CELL_BITS) | start)
    steps = 0
    while size > 0:
        key, size = heap_pop(heap, size)
        u = np.int32(key & KEY_CELL_MASK)
        if closed[u] == gen:
            continue
        closed[u] = gen
        if u == goal:
            steps = moves[u]
            break
        t = moves[u] + 1
        for k in range(4):
            v = nbr2[MOVES_ROW * u + k]
            if v < 0 or closed[v] == gen or t + dist[v] > limit:
                continue
            r, q = v // cols, v - (v // cols) * cols
            sides = 0
            for dr, dq in ((-1, 0), (1, 0), (0, -1), (0, 1)):
                rr, qq = r + dr, q + dq
                if rr < 0 or rr >= rows or qq < 0 or qq >= cols or L[oent + rr * cols + qq] > until:
                    sides += 1
            if selfk > 0:
                a = parent[u]
                j = 0
                while a >= 0 and j < selfk:
                    ar, aq = a // cols, a - (a // cols) * cols
                    if abs(ar - r) + abs(aq - q) == 1:
                        sides += 1
                    a = parent[a]
                    j += 1
            c = cost[u] + 5 - min(sides, 4)
            if opened[v] == gen and cost[v] <= c:
                continue
            if not passable(L, u, v, t):
                continue
            opened[v] = gen
            cost[v] = c
            moves[v] = t
            parent[v] = u
            size = heap_push(heap, size, (np.int64(c + dist[v]) << KEY_CELL_BITS) | v)
    if steps == 0:
        return 0
    v = goal
    for k in range(steps - 1, -1, -1):
        path[k] = v
        v = parent[v]
    return steps


# The searches call the snug A* through this (`link`): compiled once a process, not again in every
# function that calls it. `leg`, called a few times a search, stays a direct call (docs/performance.md).
SNUG_ASTAR = ("fastsnake_celltree_snug_astar_v1", snug_astar, INT(I32, I64, I64, INT, INT, INT, INT, INT))
call_snug_astar = symbol_call(*SNUG_ASTAR)
