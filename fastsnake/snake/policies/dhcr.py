"""`dhcr`: dynamic Hamiltonian cycle repair: shortcuts that re-route the cycle around them.

Idea (Brian Haidet / AlphaPhoenix, 2020; our own formulation): the snake keeps a
Hamiltonian cycle that holds its body as a contiguous stretch ending at the
head. A move from the head h to a free neighbour v other than its cycle
successor cuts out the stretch P = succ(h) .. pred(v) (all free cells). The cycle
is repaired locally by putting P back elsewhere:

- splice: a cycle edge x -> y outside the body with x, y next to the two ends of
  P becomes x -> P -> y (either direction of P);
- merge: when P's ends are neighbours, P closes into a loop, and a loop edge
  lying beside a parallel cycle edge outside the body (a 2×2 square) joins the
  two loops into one by swapping those two edges for the square's other sides.

Each move considers the shortcuts to both free non-cycle neighbours and takes the
one whose repaired cycle reaches the apple soonest, but only if that is strictly
sooner than following the current cycle (d(v) < d(h) - 1); otherwise it follows
the cycle. The published version loses games because a repair may fail after
the move is made and its A* can steer the snake round in loops; here the cycle
is repaired before the move is taken, and the cycle distance to the apple drops
by at least one every move.

Guarantee (both tail rules, any start length): the cycle always contains the
body as a contiguous stretch ending at the head, so the head's successor is a
free cell (or the apple) until the board is full: never dies. The cycle
distance to the apple decreases every move, so each apple is eaten within
N - L moves of appearing and the game is won in fewer than N²/2 moves. Needs a
Hamiltonian cycle (rows*cols even). Option ``cycle``: the starting cycle.
"""

import numpy as np
from numba import njit

from fastsnake.snake.board import CFG_COLS
from fastsnake.snake.engine import G_CFG, G_NBR, G_OCC, compiled_only
from fastsnake.snake.policies.cycle import (
    CYCLE_OPTION,
    W_CELLS,
    cycle_kernels,
    cycle_params,
    cycle_workspace_k,
)

# Our policies in this module, name -> attribute: the registry reads this literal without an import.
BUILTIN = {"dhcr": "POLICY"}

# Workspace slots: the cycle policy's workspace (start cycle), successor, position, scratch.
D_CYCLE, D_NXT, D_ORDER, D_SEG, D_BEST = range(5)
# Slots of ws[D_BEST]: the repair `_best_repair` found last (see there), then the one picked for the move.
BEST_SOURCE, BEST_TARGET, BEST_REVERSED, BEST_LOOP_EDGE = range(4)
PICK_SOURCE, PICK_TARGET, PICK_REVERSED, PICK_LOOP_EDGE = range(4, 8)


@njit(cache=True)
def _alloc(cfg, nbr, params):
    """dhcr's workspace: the cycle policy's (start cycle), successor and position tables, scratch, the repairs."""
    cws = cycle_workspace_k(cfg, nbr, params)
    n = cws[W_CELLS].shape[0]
    return cws, np.empty(n, np.int32), np.empty(n, np.int32), np.empty(n, np.int32), np.empty(8, np.int32)


@njit(cache=True, inline="always")
def _reset_on(reset_start_cycle, ws, g):
    """Lay the body with `reset_start_cycle` and index the start cycle (successor, position of each cell)."""
    reset_start_cycle(ws[D_CYCLE], g)
    cells, nxt, order = ws[D_CYCLE][W_CELLS], ws[D_NXT], ws[D_ORDER]
    n = cells.shape[0]
    for k in range(n):
        nxt[cells[k]] = cells[k + 1] if k + 1 < n else cells[0]
        order[cells[k]] = k


@njit(cache=True, inline="always")
def _ahead(order, h, c, n):
    """Cycle distance from h forward to c."""
    d = order[c] - order[h]
    return d + n if d < 0 else d


@njit(cache=True, inline="always")
def _adjacent(a, b, cols):
    """Are cells `a` and `b` grid neighbours on a board `cols` wide?"""
    ra, rb = a // cols, b // cols
    return abs(ra - rb) + abs((a - ra * cols) - (b - rb * cols)) == 1


@njit(cache=True)
def _best_repair(nbr, order, nxt, seg, h, v, apple, length, n, cols, best):
    """The best way to put P = succ(h)..pred(v) back; returns the repaired cycle distance v -> apple (or n).

    best[BEST_SOURCE] = source of the cycle edge P goes behind, best[BEST_TARGET] = its old target,
    best[BEST_REVERSED] = 0 P forward / 1 P reversed, best[BEST_LOOP_EDGE] = loop edge index cut (-1: splice).
    The loop (P closed by pred(v) -> succ(h)) is written to seg.
    """
    dv = _ahead(order, h, v, n)
    da = _ahead(order, h, apple, n)
    k = dv - 1
    last_free = n - length  # cells at distances dv..last_free from h are free and on the main loop
    a1 = nxt[h]
    c = a1
    for i in range(k):
        seg[i] = c
        c = nxt[c]
    a2 = seg[k - 1]
    result = n
    # Splice: a main edge x -> y with x next to one end of P and y next to the other.
    for end in range(2):
        first = a1 if end == 0 else a2
        other = a2 if end == 0 else a1
        for move in range(4):
            x = nbr[first * 4 + move]
            if x < 0:
                continue
            dx = _ahead(order, h, x, n)
            if dx < dv or dx > last_free:
                continue
            y = nxt[x]
            if not _adjacent(y, other, cols):
                continue
            d = da - dv if dx >= da else da - dv + k
            if d < result:
                result = d
                best[BEST_SOURCE], best[BEST_TARGET], best[BEST_REVERSED], best[BEST_LOOP_EDGE] = x, y, end, -1
                if d == da - dv:
                    return d
    if not _adjacent(a1, a2, cols):
        return result
    # Merge: loop edge p -> q beside a main edge (a 2×2 square).
    for j in range(k):
        p = seg[j]
        q = seg[j + 1] if j + 1 < k else seg[0]
        for move in range(4):
            x = nbr[p * 4 + move]
            if x < 0:
                continue
            y = nbr[q * 4 + move]
            if y < 0 or not _adjacent(x, p, cols) or x == q:
                continue
            # x beside p, y beside q; the main edge runs x -> y or y -> x.
            if nxt[x] == y:
                s, t, rev = x, y, 1  # x -> p, loop backwards to q, q -> y
            elif nxt[y] == x:
                s, t, rev = y, x, 0  # y -> q, loop forwards to p, p -> x
            else:
                continue
            ds = _ahead(order, h, s, n)
            if ds < dv or ds > last_free:
                continue
            d = da - dv if ds >= da else da - dv + k
            if d < result:
                result = d
                best[BEST_SOURCE], best[BEST_TARGET], best[BEST_REVERSED], best[BEST_LOOP_EDGE] = s, t, rev, j
                if d == da - dv:
                    return d
    return result


@njit(cache=True)
def _apply(order, nxt, seg, h, v, k, s, t, rev, j):
    """Re-route the cycle: h -> v, and P (seg[:k]) between s and t; then renumber from h."""
    nxt[h] = v
    if j < 0:
        if rev == 0:
            nxt[s] = seg[0]
            for i in range(k - 1):
                nxt[seg[i]] = seg[i + 1]
            nxt[seg[k - 1]] = t
        else:
            nxt[s] = seg[k - 1]
            for i in range(k - 1, 0, -1):
                nxt[seg[i]] = seg[i - 1]
            nxt[seg[0]] = t
    else:
        if rev == 0:
            # s -> q = seg[j+1], forwards round the loop to p = seg[j], p -> t.
            i = (j + 1) % k
            nxt[s] = seg[i]
            for _ in range(k - 1):
                i2 = i + 1 if i + 1 < k else 0
                nxt[seg[i]] = seg[i2]
                i = i2
            nxt[seg[j]] = t
        else:
            # s -> p = seg[j], backwards round the loop to q = seg[j+1], q -> t.
            i = j
            nxt[s] = seg[i]
            for _ in range(k - 1):
                i2 = i - 1 if i > 0 else k - 1
                nxt[seg[i]] = seg[i2]
                i = i2
            nxt[seg[(j + 1) % k]] = t
    c = h
    for i in range(order.shape[0]):
        order[c] = i
        c = nxt[c]


@njit(cache=True)
def _decide(ws, g, st):
    """Follow the cycle, or take the shortcut whose repaired cycle reaches the apple soonest (repaired here)."""
    nbr, occ, cols = g[G_NBR], g[G_OCC], g[G_CFG][CFG_COLS]
    nxt, order, seg, best = ws[D_NXT], ws[D_ORDER], ws[D_SEG], ws[D_BEST]
    n = nxt.shape[0]
    h, apple = st.head, st.apple
    succ = nxt[h]
    da = _ahead(order, h, apple, n)
    follow_move = 0
    pick, pick_d = -1, da - 1
    for move in range(4):
        v = nbr[h * 4 + move]
        if v < 0:
            continue
        if v == succ:
            follow_move = move
            continue
        if occ[v] != 0 or _ahead(order, h, v, n) > da:
            continue
        d = _best_repair(nbr, order, nxt, seg, h, v, apple, st.length, n, cols, best)
        if d < pick_d:
            pick, pick_d = move, d
            best[PICK_SOURCE], best[PICK_TARGET] = best[BEST_SOURCE], best[BEST_TARGET]
            best[PICK_REVERSED], best[PICK_LOOP_EDGE] = best[BEST_REVERSED], best[BEST_LOOP_EDGE]
    if pick < 0:
        return follow_move
    v = nbr[h * 4 + pick]
    k = _ahead(order, h, v, n) - 1
    _best_repair(nbr, order, nxt, seg, h, v, apple, st.length, n, cols, best)  # refill seg for v
    _apply(order, nxt, seg, h, v, k, best[PICK_SOURCE], best[PICK_TARGET], best[PICK_REVERSED], best[PICK_LOOP_EDGE])
    return pick


@compiled_only
def _cycle_cells(ws):
    """The start cycle a replay shows."""
    return ws[D_CYCLE][W_CELLS]


KERNELS = cycle_kernels(_alloc, _decide, _cycle_cells, reset_on=_reset_on)


POLICY = KERNELS.policy("dhcr", __doc__, cycle_params, guaranteed=True, options=(CYCLE_OPTION,),
                        compile_cpu_range=(13.2, 13.9))
