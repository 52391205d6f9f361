"""Entry times: when the head entered each cell and block and last crossed each block edge.

From them `passable` answers whether a move may be made at a given move of a plan against the
moving tail, in O(1). Kept current O(1) a move (`stamp_head`), rebuilt after a gap
(`stamp_body`); a detour chain stamps its planned legs virtually (`stamp_virtual`) and the
search undoes them (`undo_virtual`).
"""

from numba import njit

from fastsnake.snake.celltree.layout import (
    L_AVOID,
    L_BLOCK_ENTRY_TIMES,
    L_BLOCK_OF,
    L_EDGE_TIMES,
    L_ENTRY_TIMES,
    L_SIDE_EDGE,
    L_STAMPED_MOVE,
    L_TIME_BASE,
    L_UNDO_LENGTH,
    L_UNDO_LOG,
    NEVER,
)


@njit(cache=True, inline="always")
def passable(L, frm, to, gm):
    """Free when entered, and no new block loop as far as the body goes.

    Times are move numbers at which the head entered (cells, blocks) or left
    across an edge. With base = (entry time of the tail) - slack, a body cell
    entered at t is free from move t - base on, a block once its last entered
    cell is, and an edge is still crossed by the body until move t - base - 1.
    """
    base = L[L_TIME_BASE] + gm
    if L[L[L_ENTRY_TIMES] + to] > base or to == L[L_AVOID]:
        return False
    ob = L[L_BLOCK_OF]
    bt = L[ob + to]
    if L[ob + frm] == bt or L[L[L_BLOCK_ENTRY_TIMES] + bt] <= base:
        return True
    # Crossing back over an edge the body still crosses adds no block edge.
    return L[L[L_EDGE_TIMES] + L[L[L_SIDE_EDGE] + frm]] > base


@njit(cache=True, inline="always")
def enter(L, prev, cell, t):
    """The head enters `cell` at move t, coming from `prev` (-1: not on the body)."""
    oblk = L[L_BLOCK_OF]
    L[L[L_ENTRY_TIMES] + cell] = t
    L[L[L_BLOCK_ENTRY_TIMES] + L[oblk + cell]] = t
    if prev >= 0 and L[oblk + prev] != L[oblk + cell]:
        L[L[L_EDGE_TIMES] + L[L[L_SIDE_EDGE] + prev]] = t - 1


@njit(cache=True)
def stamp_body(L, body, st):
    """Entry times of the whole body (tail first, the head entered at move st.moves)."""
    n = body.shape[0]
    nb = n // 4
    oent, obent, oedge = L[L_ENTRY_TIMES], L[L_BLOCK_ENTRY_TIMES], L[L_EDGE_TIMES]
    L[oent:oent + n] = NEVER
    L[obent:obent + nb] = NEVER
    L[oedge:oedge + 2 * nb] = NEVER
    t = st.moves - st.length + 1
    i = st.tail_i
    prev = -1
    for _ in range(st.length):
        cell = body[i]
        enter(L, prev, cell, t)
        prev = cell
        t += 1
        i += 1
        if i == n:
            i = 0
    L[L_STAMPED_MOVE] = st.moves


@njit(cache=True, inline="always")
def stamp_head(L, body, st):
    """Keep the entry times current: O(1) a move, the whole body after a gap."""
    if L[L_STAMPED_MOVE] + 1 != st.moves:
        stamp_body(L, body, st)
        return
    prev = -1
    if st.length > 1:
        i = st.head_i - 1
        if i < 0:
            i = body.shape[0] - 1
        prev = body[i]
    enter(L, prev, st.head, st.moves)
    L[L_STAMPED_MOVE] = st.moves


@njit(cache=True, inline="always")
def log_set(L, idx, value, u):
    """Set L[idx] = value, logging (idx, old value) at L[u]; returns the log's next free index."""
    L[u] = idx
    L[u + 1] = L[idx]
    L[idx] = value
    return u + 2


@njit(cache=True)
def stamp_virtual(L, path, steps, start, t0):
    """Entry times for a planned leg start -> path[:steps] entered at t0+1..; old values go to the undo log."""
    oblk, oside = L[L_BLOCK_OF], L[L_SIDE_EDGE]
    u = L[L_UNDO_LOG] + L[L_UNDO_LENGTH]
    prev = start
    for j in range(steps):
        cell = path[j]
        t = t0 + j + 1
        u = log_set(L, L[L_ENTRY_TIMES] + cell, t, u)
        b = L[oblk + cell]
        u = log_set(L, L[L_BLOCK_ENTRY_TIMES] + b, t, u)
        if L[oblk + prev] != b:
            u = log_set(L, L[L_EDGE_TIMES] + L[oside + prev], t - 1, u)
        prev = cell
    L[L_UNDO_LENGTH] = u - L[L_UNDO_LOG]


@njit(cache=True)
def undo_virtual(L):
    """Undo every virtual stamp of the undo log, latest first, and empty the log."""
    ou = L[L_UNDO_LOG]
    for k in range(L[L_UNDO_LENGTH] - 2, -1, -2):
        L[L[ou + k]] = L[ou + k + 1]
    L[L_UNDO_LENGTH] = 0
