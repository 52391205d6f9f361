"""Breadth-first flood fill on grid graphs, with reusable stamp buffers."""

import numpy as np
from numba import njit

B_SEEN, B_GEN, B_QUEUE = range(3)
GEN_COUNT = 0  # the one slot of the generation counter buf[B_GEN]


@njit(cache=True)
def bfs_buffers(n):
    """The reusable buffers of `flood_count` on an `n`-cell board: seen stamps, stamp count, queue."""
    return (np.zeros(n, np.int32), np.zeros(1, np.int64), np.empty(n, np.int32))


@njit(cache=True, inline="always")
def flood_count(buf, nbr, blocked, start):
    """Number of cells reachable from `start` through cells with blocked[cell] == 0.

    `start` itself is counted whatever its mark (it is where the head would be).
    """
    seen, gen_arr, queue = buf[B_SEEN], buf[B_GEN], buf[B_QUEUE]
    gen_arr[GEN_COUNT] += 1
    if gen_arr[GEN_COUNT] >= 2**31 - 1:
        seen[:] = 0
        gen_arr[GEN_COUNT] = 1
    gen = np.int32(gen_arr[GEN_COUNT])
    seen[start] = gen
    queue[0] = start
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        for move in range(4):
            v = nbr[u * 4 + move]
            if v >= 0 and seen[v] != gen and blocked[v] == 0:
                seen[v] = gen
                queue[tail] = v
                tail += 1
    return tail


@njit(cache=True)
def distances_from(nbr, start, dist, queue):
    """Unit-cost distances from `start` along `nbr` (out-edges; -1: no edge) into dist (-1: unreachable)."""
    dist[:] = -1
    dist[start] = 0
    queue[0] = start
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        du = dist[u] + 1
        for move in range(4):
            v = nbr[u * 4 + move]
            if v >= 0 and dist[v] < 0:
                dist[v] = du
                queue[tail] = v
                tail += 1
    return tail


@njit(cache=True)
def reversed_table(nbr):
    """The neighbour table with every edge turned round: out[v*4+m] = u where nbr[u*4+m] = v."""
    out = np.full(nbr.shape[0], -1, np.int32)
    for u in range(nbr.shape[0] // 4):
        for move in range(4):
            v = nbr[u * 4 + move]
            if v >= 0:
                out[v * 4 + move] = u
    return out


@njit(cache=True)
def distances_to_every_cell(nbr, out):
    """out[t*n + v] = distance from v to t along the directed table nbr (-1: unreachable)."""
    n = nbr.shape[0] // 4
    rev = reversed_table(nbr)
    queue = np.empty(n, np.int32)
    for t in range(n):
        distances_from(rev, t, out[t * n:(t + 1) * n], queue)
