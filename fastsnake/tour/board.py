"""Move-graph kernels shared by the search, the checks and reach.

Boards go up to 4000x4000 (16M cells), where a (cells x jumps) move table would
cost 0.5 GB; every kernel therefore derives neighbours from (row, col) and the jump
arrays on the fly, which is a division and a few compares per step.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def init_degrees(rows, cols, jr, jc, deg):
    """deg[v] = number of jumps from v that stay on the board."""
    k = jr.shape[0]
    for r in range(rows):
        for c in range(cols):
            d = 0
            for j in range(k):
                nr = r + jr[j]
                nc = c + jc[j]
                if 0 <= nr < rows and 0 <= nc < cols:
                    d += 1
            deg[r * cols + c] = d


@njit(cache=True)
def jump_distances(rows, cols, jr, jc, start, layers, dist):
    """Breadth-first distances from `start` in the graph of (cell, step mod layers).

    layers=1 is plain BFS; layers=2 tracks the parity of the walk length, which is
    what "some walk of exactly n jumps ends here" needs on an undirected graph.
    `dist` (cells*layers, int32) must be -1 on entry. Returns the states reached.
    """
    k = jr.shape[0]
    queue = np.empty(dist.shape[0], dtype=np.int32)
    head = 0
    tail = 0
    dist[start * layers] = 0
    queue[tail] = start * layers
    tail += 1
    while head < tail:
        s = queue[head]
        head += 1
        v = s // layers
        p = s - v * layers
        q = p + 1
        if q == layers:
            q = 0
        r = v // cols
        c = v - r * cols
        d = dist[s] + 1
        for j in range(k):
            nr = r + jr[j]
            nc = c + jc[j]
            if 0 <= nr < rows and 0 <= nc < cols:
                t = (nr * cols + nc) * layers + q
                if dist[t] < 0:
                    dist[t] = d
                    queue[tail] = t
                    tail += 1
    return tail


@njit(cache=True)
def walk_step(rows, cols, jr, jc, cur, nxt):
    """nxt = cells one jump from some cell of cur (uint8 masks). Returns |nxt|."""
    k = jr.shape[0]
    nxt[:] = 0
    count = 0
    for v in range(cur.shape[0]):
        if cur[v]:
            r = v // cols
            c = v - r * cols
            for j in range(k):
                nr = r + jr[j]
                nc = c + jc[j]
                if 0 <= nr < rows and 0 <= nc < cols:
                    w = nr * cols + nc
                    if not nxt[w]:
                        nxt[w] = 1
                        count += 1
    return count


def jump_arrays(jumps: np.ndarray):
    """(jr, jc) as contiguous int64 arrays, the form every kernel takes."""
    jumps = np.asarray(jumps, dtype=np.int64).reshape(-1, 2)
    # always fresh writeable copies: a read-only array would be a second numba type
    return jumps[:, 0].copy(), jumps[:, 1].copy()


def distances(rows: int, cols: int, jumps: np.ndarray, start: int, *, reverse: bool = False) -> np.ndarray:
    """Shortest jump counts from `start` (or to it, with reverse=True); -1 = unreachable."""
    jr, jc = jump_arrays(jumps)
    if reverse:
        jr, jc = -jr, -jc
    dist = np.full(rows * cols, -1, dtype=np.int32)
    jump_distances(rows, cols, jr, jc, int(start), 1, dist)
    return dist


def degrees(rows: int, cols: int, jumps: np.ndarray) -> np.ndarray:
    jr, jc = jump_arrays(jumps)
    deg = np.empty(rows * cols, dtype=np.int16)
    init_degrees(rows, cols, jr, jc, deg)
    return deg
