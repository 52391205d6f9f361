"""`cell`: the cell-tree agent: shortest paths that keep a Hamiltonian cycle possible.

Idea (twanvl/snake's cell tree agent, our own formulation): split the board
into 2×2 blocks and let the snake "drive on the right" inside each block, so
every cell has two moves: one within its block and one across its side into
the neighbouring block. The outline of any spanning tree of the blocks is then
a Hamiltonian cycle (`cycles.tree_outline_next`), and every right-hand walk is
a stretch of such an outline exactly when

    the block edges it crosses form a forest E1, and the block graph without
    the edges it passes along inside a block (E0) is still connected

(then E1 extends to a spanning tree avoiding E0, whose outline contains the
body as a contiguous segment). This test is exact and costs O(length + blocks).

Per apple the agent searches (shared A*, time-aware: a body cell is passable
once the tail has left it; heuristic: the right-hand distance on the empty
board) the shortest right-hand path to the apple that only enters blocks the
body will have left by then, or crosses back over an edge the body still uses.
The plan is accepted only if the body it leaves behind when it eats passes the
test above. If it cuts blocks off, the search detours through the nearest
cell of a cut-off block and tries the apple again, up to DETOUR_ROUNDS times.
Without an accepted plan the agent builds a spanning tree that contains the
body's crossings and walks its outline towards the apple. Detours and outline
walks are searched again every RESEARCH_EVERY moves and replaced only by a
shorter accepted plan; a shortest plan is kept to the apple.

Guarantee (both tail rules, any start length): every committed plan is a legal
sequence of moves (replayed against the moving tail) and ends in a position that
lies on a Hamiltonian cycle; from such a position the outline walk to the apple
is legal and ends in such a position again. The committed plan only gets
shorter, so each apple is eaten within N - L moves of appearing and the game is
won in fewer than N²/2 moves. Needs even rows and cols (blocks of 2×2); other
boards are refused. Options: ``detours`` (rounds per search, default 8) and
``research_every`` (default 8): fewer detours or rarer re-searches are faster
and a few moves longer.
"""

import numpy as np
from numba import njit

from fastsnake.search.astar import astar_within
from fastsnake.search.bfs import distances_to_every_cell
from fastsnake.snake.board import CFG_COLS, CFG_ROWS, CFG_TAIL_RULE, TAIL_FOLLOW, BoardError
from fastsnake.snake.cycles import random_cells, tree_outline_next
from fastsnake.snake.engine import G_BODY, G_CFG, G_RNG, lay_body_random, play_recorded, sweep_chunk
from fastsnake.snake.policies import EnginePolicy, PolicyError
from fastsnake.snake.rng import POLICY_STREAM, RNG_SEED, RNG_STATE, mix64

# The workspace is two flat arrays, (I int32, L int64): every array argument
# of a njit call costs an atomic incref and decref per call, and a tuple of
# 30 arrays made each move ~1000 cycles of reference counting. Segments of I
# (offsets from `_layout`): right-hand table, blocks, sides, stamps, plans,
# the virtual path, the A* buffers and the distance table. L holds the plan
# state, the parameters, the RNG, the A* generation and heap, then the entry
# times (see `_passable`) with the undo log of a search.
(O_NBR2, O_BLK, O_SIDE, O_WIN, O_STAMP, O_QUEUE, O_BITS, O_NXT, O_PLAN, O_CELLS, O_VPATH, O_TRY,
 O_AG, O_APARENT, O_AOPEN, O_ACLOSED, O_APATH, O_HROW, O_LINKS, O_DIST, O_END) = range(21)
# L: committed plan length, next plan index, its apple, the move number it expects, stamp generation,
# whether the plan may be re-searched, the last shortest path's length (even when refused), the detour
# rounds of the last search, board shape and tail rule, the time base and the cell to avoid of the
# current A*, the last move whose head was stamped, the undo log's length, offsets of the L segments
# (blocks, sides, cell entry times, block entry times, edge times, undo log), the block-edge masks
# of `on_some_outline_bits`; then parameters, RNG, A* generation, heap.
(M_LEN, M_POS, M_APPLE, M_MOVES, M_GEN, M_RESEARCH, M_DIRECT, M_DETOUR, M_ROWS, M_COLS, M_TAIL, M_BASE, M_AVOID,
 M_STAMPED, M_UNDO_N, M_OBLK, M_OSIDE, M_OENT, M_OBENT, M_OEDGE, M_OUNDO, M_OPEN_H, M_OPEN_V, M_PARAMS) = range(24)
# The parameters (int64 array, copied to L from M_PARAMS on): detour rounds, re-search interval, keep the
# distance table, test outlines on single-word bit masks.
P_ROUNDS, P_EVERY, P_TABLE, P_BITS = range(4)
L_RNG = M_PARAMS + 4
L_AGEN = L_RNG + 1
L_HEAP = L_AGEN + 1
# The workspace tuple: the int32 array I and the int64 array L.
W_I, W_L = range(2)
# A walk's first cell (index into the walk arrays of the outline tests).
WALK_START = 0
# Entry time of a cell nobody entered this game.
NEVER = -(1 << 40)
# I starts with a header: I[k] is where segment k starts.
_HEADER = O_END + 1
# Boards up to this many cells keep every right-hand distance (n² int32: 25 MB at 2,500).
DIST_TABLE_CELLS = 2500
# Boards with at most this many blocks test connectivity on 64-bit masks.
BITS_BLOCKS = 63
# Chained detours per search, and how often a detour or outline walk is re-searched.
# 10x10, 2,000 games, mean moves / games per CPU-s: (rounds, every) = (4, 4) 1024 / 3,170,
# (4, 1) 1021 / 1,680, (4, 8) 1026 / 3,800, (8, 8) 1022 / 3,870, (8, 2) 1020 / 2,490.
DETOUR_ROUNDS = 8
RESEARCH_EVERY = 8


@njit(cache=True, inline="always")
def _layout(n, nb, table):
    """Start of each segment of I (index O_*), and O_END: its size."""
    sizes = (4 * n, n, n, 2 * n + 2, 5 * nb, nb, nb, n, 2 * n + 2, n, 2 * n + 2, 2 * n + 2,
             n, n, n, n, n, n, 8 * nb, n * n if table else 0)
    out = np.empty(O_END + 1, np.int64)
    at = _HEADER
    for k in range(O_END):
        out[k] = at
        at += sizes[k]
    out[O_END] = at
    return out


@njit(cache=True, inline="always")
def _seg(I, k, size):
    return I[I[k]:I[k] + size]


@njit(cache=True)
def right_hand_table(nbr, rows, cols):
    """nbr restricted to right-hand driving in 2×2 blocks (forbidden moves -1).

    Inside a block the cells turn counter-clockwise (top-left -> down ->
    bottom-left -> right -> bottom-right -> up -> top-right -> left); each cell may
    instead leave across its own side: TL left, BL down, BR right, TR up.
    """
    n = rows * cols
    out = np.full(n * 4, -1, np.int32)
    for cell in range(n):
        r, c = cell // cols, cell % cols
        pr, pc = r % 2, c % 2
        if pr == 0 and pc == 0:
            a, b = 3, 2
        elif pr == 1 and pc == 0:
            a, b = 2, 1
        elif pr == 1 and pc == 1:
            a, b = 1, 0
        else:
            a, b = 0, 3
        out[cell * 4 + a] = nbr[cell * 4 + a]
        out[cell * 4 + b] = nbr[cell * 4 + b]
    return out


@njit(cache=True)
def block_tables(rows, cols):
    """Block of each cell, and the block edge across the cell's own side (-1 on the border).

    Edge 2b joins block b to its right neighbour, edge 2b+1 to the block below.
    """
    n = rows * cols
    hr, hc = rows // 2, cols // 2
    blk = np.empty(n, np.int32)
    side = np.full(n, -1, np.int32)
    for cell in range(n):
        r, c = cell // cols, cell % cols
        br, bc = r // 2, c // 2
        b = br * hc + bc
        blk[cell] = b
        pr, pc = r % 2, c % 2
        if pr == 0 and pc == 0:
            if bc > 0:
                side[cell] = 2 * (b - 1)
        elif pr == 1 and pc == 0:
            if br < hr - 1:
                side[cell] = 2 * b + 1
        elif pr == 1 and pc == 1:
            if bc < hc - 1:
                side[cell] = 2 * b
        else:
            if br > 0:
                side[cell] = 2 * (b - hc) + 1
    return blk, side


@njit(cache=True)
def _alloc(cfg, nbr, params):
    rows, cols = cfg[CFG_ROWS], cfg[CFG_COLS]
    n = rows * cols
    nb = (rows // 2) * (cols // 2)
    # params: detour rounds, re-search interval, keep the distance table, test outlines on bit masks.
    o = _layout(n, nb, params[P_TABLE] != 0)
    I = np.zeros(o[O_END], np.int32)
    blk, side = block_tables(rows, cols)
    I[o[O_NBR2]:o[O_NBR2] + 4 * n] = right_hand_table(nbr, rows, cols)
    I[o[O_BLK]:o[O_BLK] + n] = blk
    I[o[O_SIDE]:o[O_SIDE] + n] = side
    I[o[O_LINKS]:o[O_LINKS] + 8 * nb] = block_links(rows, cols)
    I[:_HEADER] = o
    if params[P_TABLE] != 0:
        distances_to_every_cell(I[o[O_NBR2]:o[O_NBR2] + 4 * n], I[o[O_DIST]:o[O_DIST] + n * n])
    at = L_HEAP + 4 * n + 4
    L = np.zeros(at + 3 * n + 3 * nb + 6 * (2 * n + 2), np.int64)
    for k, size in ((M_OBLK, n), (M_OSIDE, n), (M_OENT, n), (M_OBENT, nb), (M_OEDGE, 2 * nb), (M_OUNDO, 0)):
        L[k] = at
        at += size
    L[L[M_OBLK]:L[M_OBLK] + n] = blk
    L[M_OPEN_H] = -1  # no masks: the queue BFS
    if params[P_BITS] != 0:
        L[M_OPEN_H], L[M_OPEN_V] = block_edge_masks(rows, cols)
    L[L[M_OSIDE]:L[M_OSIDE] + n] = side
    L[M_ROWS] = rows
    L[M_COLS] = cols
    L[M_TAIL] = cfg[CFG_TAIL_RULE]
    L[M_PARAMS:M_PARAMS + params.shape[0]] = params
    return (I, L)


@njit(cache=True)
def _reset(ws, g):
    """Start body on the outline of a random block tree (policy stream of the game)."""
    I, L = ws
    cfg = g[G_CFG]
    rows, cols = cfg[CFG_ROWS], cfg[CFG_COLS]
    rng = L[L_RNG:L_RNG + 1].view(np.uint64)
    rng[RNG_STATE] = mix64(g[G_RNG][RNG_SEED] ^ POLICY_STREAM)
    cells = _seg(I, O_CELLS, rows * cols)
    random_cells(rows, cols, rng, cells)
    lay_body_random(g, cells, True)
    L[M_LEN] = 0
    L[M_POS] = 0
    L[M_MOVES] = -1
    L[M_STAMPED] = -2


@njit(cache=True)
def block_links(rows, cols):
    """links[8b + 2d] = the block next to block b in direction d (-1: none), links[8b + 2d + 1] = their edge."""
    hr, hc = rows // 2, cols // 2
    nb = hr * hc
    links = np.full(8 * nb, -1, np.int32)
    for b in range(nb):
        br, bc = b // hc, b % hc
        if br > 0:
            links[8 * b], links[8 * b + 1] = b - hc, 2 * (b - hc) + 1
        if bc + 1 < hc:
            links[8 * b + 2], links[8 * b + 3] = b + 1, 2 * b
        if br + 1 < hr:
            links[8 * b + 4], links[8 * b + 5] = b + hc, 2 * b + 1
        if bc > 0:
            links[8 * b + 6], links[8 * b + 7] = b - 1, 2 * (b - 1)
    return links


@njit(cache=True, inline="always")
def on_some_outline(blk, side, links, stamp, queue, gen, nb, win, m):
    """True if the right-hand walk win[:m] is a stretch of some spanning tree's outline.

    Uses stamps `gen` (blocks seen, crossed edges, edges passed along) and
    `gen + 1` (blocks reached from the walk's last block; the others are cut
    off); the caller advances its generation by 2.
    """
    seen_blocks = 1
    crossed = 0
    b = blk[win[WALK_START]]
    stamp[b] = gen
    passed, crossing = 3 * nb, nb
    for i in range(1, m):
        b2 = blk[win[i]]
        if b2 == b:
            e = side[win[i - 1]]
            if e >= 0:
                stamp[passed + e] = gen
        else:
            if stamp[b2] != gen:
                stamp[b2] = gen
                seen_blocks += 1
            e = side[win[i - 1]]
            if stamp[crossing + e] != gen:
                stamp[crossing + e] = gen
                crossed += 1
            b = b2
    reached = blocks_connected(links, stamp, queue, gen, nb, blk[win[m - 1]])
    # The crossed edges of a walk connect the blocks it visits: a forest iff a tree.
    return crossed == seen_blocks - 1 and reached == nb


@njit(cache=True)
def block_edge_masks(rows, cols):
    """Bit b set: block b has a right neighbour (first mask), a neighbour below (second)."""
    hr, hc = rows // 2, cols // 2
    right, down = 0, 0
    for b in range(hr * hc):
        if b % hc + 1 < hc:
            right |= 1 << b
        if b // hc + 1 < hr:
            down |= 1 << b
    return right, down


@njit(cache=True, inline="always")
def on_some_outline_bits(blk, side, stamp, gen, nb, hc, open_right, open_down, win, m):
    """`on_some_outline` for boards of at most 63 blocks; returns (answer, blocks reached as a bit mask).

    The block graph is two masks of open edges (right, down); a passed-along
    edge clears its bit, and the blocks reached from the last block grow by
    shifts until they stop changing. Crossed edges use the stamps `gen`.
    """
    b = blk[win[WALK_START]]
    seen = np.int64(1) << b
    seen_blocks = 1
    crossed = 0
    for i in range(1, m):
        b2 = blk[win[i]]
        e = side[win[i - 1]]
        if b2 == b:
            if e >= 0:
                if e & 1:
                    open_down &= ~(np.int64(1) << (e >> 1))
                else:
                    open_right &= ~(np.int64(1) << (e >> 1))
        else:
            bit = np.int64(1) << b2
            if seen & bit == 0:
                seen |= bit
                seen_blocks += 1
            if stamp[nb + e] != gen:
                stamp[nb + e] = gen
                crossed += 1
            b = b2
    reached = np.int64(1) << b
    while True:
        grown = (reached | ((reached & open_right) << 1) | ((reached >> 1) & open_right)
                 | ((reached & open_down) << hc) | ((reached >> hc) & open_down))
        if grown == reached:
            break
        reached = grown
    # The crossed edges of a walk connect the blocks it visits: a forest iff a tree.
    everything = (np.int64(1) << nb) - 1
    return crossed == seen_blocks - 1 and reached == everything, reached


@njit(cache=True, inline="always")
def blocks_connected(links, stamp, queue, gen, nb, start):
    """Blocks reached from `start` over edges not passed along (stamped `gen`); marks them gen+1."""
    forb = 3 * nb
    mark = gen + 1
    stamp[start] = mark
    queue[0] = start
    head, tail = 0, 1
    while head < tail:
        b = queue[head]
        head += 1
        for k in range(8 * b, 8 * b + 8, 2):
            o = links[k]
            if o >= 0 and stamp[o] != mark and stamp[forb + links[k + 1]] != gen:
                stamp[o] = mark
                queue[tail] = o
                tail += 1
    return tail


@njit(cache=True, inline="always")
def _passable(L, frm, to, gm):
    """Free when entered, and no new block loop as far as the body goes.

    Times are move numbers at which the head entered (cells, blocks) or left
    across an edge. With base = (entry time of the tail) - slack, a body cell
    entered at t is free from move t - base on, a block once its last entered
    cell is, and an edge is still crossed by the body until move t - base - 1.
    """
    base = L[M_BASE] + gm
    if L[L[M_OENT] + to] > base or to == L[M_AVOID]:
        return False
    ob = L[M_OBLK]
    bt = L[ob + to]
    if L[ob + frm] == bt or L[L[M_OBENT] + bt] <= base:
        return True
    # Crossing back over an edge the body still crosses adds no block edge.
    return L[L[M_OEDGE] + L[L[M_OSIDE] + frm]] > base


@njit(cache=True, inline="always")
def _enter(L, prev, cell, t):
    """The head enters `cell` at move t, coming from `prev` (-1: not on the body)."""
    oblk = L[M_OBLK]
    L[L[M_OENT] + cell] = t
    L[L[M_OBENT] + L[oblk + cell]] = t
    if prev >= 0 and L[oblk + prev] != L[oblk + cell]:
        L[L[M_OEDGE] + L[L[M_OSIDE] + prev]] = t - 1


@njit(cache=True)
def _stamp_body(L, body, st):
    """Entry times of the whole body (tail first, the head entered at move st.moves)."""
    n = body.shape[0]
    nb = n // 4
    oent, obent, oedge = L[M_OENT], L[M_OBENT], L[M_OEDGE]
    L[oent:oent + n] = NEVER
    L[obent:obent + nb] = NEVER
    L[oedge:oedge + 2 * nb] = NEVER
    t = st.moves - st.length + 1
    i = st.tail_i
    prev = -1
    for _ in range(st.length):
        cell = body[i]
        _enter(L, prev, cell, t)
        prev = cell
        t += 1
        i += 1
        if i == n:
            i = 0
    L[M_STAMPED] = st.moves


@njit(cache=True, inline="always")
def _stamp_head(L, body, st):
    """Keep the entry times current: O(1) a move, the whole body after a gap."""
    if L[M_STAMPED] + 1 != st.moves:
        _stamp_body(L, body, st)
        return
    prev = -1
    if st.length > 1:
        i = st.head_i - 1
        if i < 0:
            i = body.shape[0] - 1
        prev = body[i]
    _enter(L, prev, st.head, st.moves)
    L[M_STAMPED] = st.moves


@njit(cache=True, inline="always")
def _log_set(L, idx, value, u):
    L[u] = idx
    L[u + 1] = L[idx]
    L[idx] = value
    return u + 2


@njit(cache=True)
def _stamp_virtual(L, path, steps, start, t0):
    """Entry times for a planned leg start -> path[:steps] entered at t0+1..; old values go to the undo log."""
    oblk, oside = L[M_OBLK], L[M_OSIDE]
    u = L[M_OUNDO] + L[M_UNDO_N]
    prev = start
    for j in range(steps):
        cell = path[j]
        t = t0 + j + 1
        u = _log_set(L, L[M_OENT] + cell, t, u)
        b = L[oblk + cell]
        u = _log_set(L, L[M_OBENT] + b, t, u)
        if L[oblk + prev] != b:
            u = _log_set(L, L[M_OEDGE] + L[oside + prev], t - 1, u)
        prev = cell
    L[M_UNDO_N] = u - L[M_OUNDO]


@njit(cache=True)
def _undo_virtual(L):
    ou = L[M_OUNDO]
    for k in range(L[M_UNDO_N] - 2, -1, -2):
        L[L[ou + k]] = L[ou + k + 1]
    L[M_UNDO_N] = 0


@njit(cache=True, inline="always")
def _row_lookup(row, cell, goal):
    return row[cell]


@njit(cache=True, inline="always")
def _has_table(I):
    return I[O_END] > I[O_DIST]


@njit(cache=True, inline="always")
def _distances_to(I, n, cols, goal):
    """Right-hand distance on the empty board from every cell to `goal` (Manhattan on boards without the table)."""
    if _has_table(I):
        return I[I[O_DIST] + goal * n:I[O_DIST] + (goal + 1) * n]
    row = _seg(I, O_HROW, n)
    gr, gc = goal // cols, goal % cols
    cell = 0
    for r in range(n // cols):
        for c in range(cols):
            row[cell] = abs(r - gr) + abs(c - gc)
            cell += 1
    return row


@njit(cache=True, inline="always")
def _distance(I, n, cols, a, b):
    """Right-hand distance a -> b on the empty board (Manhattan without the table)."""
    if _has_table(I):
        return I[I[O_DIST] + b * n + a]
    return abs(a // cols - b // cols) + abs(a % cols - b % cols)


@njit(cache=True, inline="always")
def _next_gen(L, stamp):
    L[M_GEN] += 2
    if L[M_GEN] >= 2**31 - 4:
        stamp[:] = 0
        L[M_GEN] = 2
    return np.int32(L[M_GEN])


@njit(cache=True)
def _leg(I, L, start, goal, limit):
    """Time-aware right-hand A* from `start` to `goal` with the times set in L (M_BASE, M_AVOID).

    Paths longer than `limit` are not looked for. Returns the number of moves
    (0: none); the cells entered are in segment O_APATH.
    """
    cols = L[M_COLS]
    n = L[M_ROWS] * cols
    buf = (_seg(I, O_AG, n), _seg(I, O_APARENT, n), _seg(I, O_AOPEN, n), _seg(I, O_ACLOSED, n),
           L[L_AGEN:L_AGEN + 1], L[L_HEAP:L_HEAP + 4 * n + 4], _seg(I, O_APATH, n))
    steps = astar_within(buf, _seg(I, O_NBR2, 4 * n), start, goal, _passable, L, _row_lookup,
                         _distances_to(I, n, cols, goal), limit)
    return max(steps, 0)


@njit(cache=True)
def _walk_at_apple(body, st, vpath, total, path, steps, win):
    """win = the body when the apple is eaten: the last length+1 cells of body, vpath[:total], path[:steps]."""
    n = body.shape[0]
    m = st.length + 1
    first = total + steps - 1  # index into body ++ vpath ++ path
    k = 0
    if first < st.length:
        i = st.tail_i + first
        if i >= n:
            i -= n
        for _ in range(st.length - first):
            win[k] = body[i]
            k += 1
            i += 1
            if i == n:
                i = 0
    for j in range(max(first - st.length, 0), total):
        win[k] = vpath[j]
        k += 1
    for j in range(max(first - st.length - total, 0), steps):
        win[k] = path[j]
        k += 1
    return m


@njit(cache=True)
def _to_moves(nbr2, start, path, steps, plan, at):
    cell = start
    for k in range(steps):
        to = path[k]
        for move in range(4):
            if nbr2[cell * 4 + move] == to:
                plan[at + k] = move
        cell = to


@njit(cache=True)
def _search(I, L, body, st, bound):
    """A plan to the apple of at most `bound` (<= N) moves that ends on some outline, into segment O_TRY.

    First the shortest path; while the position it leaves cuts blocks off, a
    detour through the nearest cut-off cell, then on to the apple again.
    Returns the plan length (0: none).
    """
    steps = _chain(I, L, body, st, bound)
    _undo_virtual(L)
    return steps


@njit(cache=True)
def _chain(I, L, body, st, bound):
    n = body.shape[0]
    cols = L[M_COLS]
    nb = n // 4
    win, trial, vpath = _seg(I, O_WIN, 2 * n + 2), _seg(I, O_TRY, 2 * n + 2), _seg(I, O_VPATH, 2 * n + 2)
    nbr2, blk, side, stamp = _seg(I, O_NBR2, 4 * n), _seg(I, O_BLK, n), _seg(I, O_SIDE, n), _seg(I, O_STAMP, 5 * nb)
    queue, path, links = _seg(I, O_QUEUE, nb), _seg(I, O_APATH, n), _seg(I, O_LINKS, 8 * nb)
    slack = 1 if L[M_TAIL] == TAIL_FOLLOW else 2
    tail_time = st.moves - st.length + 1
    head = st.head
    total = 0
    rounds = L[M_PARAMS + P_ROUNDS]
    for r in range(rounds + 1):
        L[M_DETOUR] = r
        # The tail has moved `total` cells along when this leg starts.
        L[M_BASE] = tail_time + total - slack
        L[M_AVOID] = -1
        steps = _leg(I, L, head, st.apple, bound - total)
        if r == 0:
            L[M_DIRECT] = steps
        if steps == 0:
            return 0
        _to_moves(nbr2, head, path, steps, trial, total)
        if st.length + 1 == n:
            return total + steps
        m = _walk_at_apple(body, st, vpath, total, path, steps, win)
        gen = _next_gen(L, stamp)
        if L[M_OPEN_H] >= 0:
            ok, reached = on_some_outline_bits(blk, side, stamp, gen, nb, cols // 2, L[M_OPEN_H], L[M_OPEN_V], win, m)
            if not ok and r < rounds:
                for b in range(nb):
                    if (reached >> b) & 1:
                        stamp[b] = gen + 1
        else:
            ok = on_some_outline(blk, side, links, stamp, queue, gen, nb, win, m)
        if ok:
            return total + steps
        if r == rounds:
            return 0
        # Detour: the free cell of a cut-off block nearest to the head (right-hand distance).
        best, best_d = -1, 1 << 30
        for cell in range(n):
            if stamp[blk[cell]] != gen + 1 and cell != st.apple:
                d = _distance(I, n, cols, head, cell)
                if d < best_d and d > 0:
                    best, best_d = cell, d
        if best < 0:
            return 0
        L[M_AVOID] = st.apple
        steps1 = _leg(I, L, head, best, bound - total - _distance(I, n, cols, best, st.apple))
        if steps1 == 0:
            return 0
        _to_moves(nbr2, head, path, steps1, trial, total)
        _stamp_virtual(L, path, steps1, head, st.moves + total)
        vpath[total:total + steps1] = path[:steps1]
        total += steps1
        head = best
    return 0


@njit(cache=True)
def _outline_plan(I, L, body, st):
    """Commit to the outline of a spanning tree through the body's crossings, up to the apple.

    Blocks are attached breadth-first from the body's blocks, head first, so
    the outline leaves the head into free blocks nearby. Returns the plan length.
    """
    rows, cols = L[M_ROWS], L[M_COLS]
    hc = cols // 2
    n = body.shape[0]
    nb = n // 4
    blk, side, stamp, queue = _seg(I, O_BLK, n), _seg(I, O_SIDE, n), _seg(I, O_STAMP, 5 * nb), _seg(I, O_QUEUE, nb)
    bits, nxt = _seg(I, O_BITS, nb), _seg(I, O_NXT, n)
    gen = _next_gen(L, stamp)
    forb = 3 * nb
    tail, _src = seed_tree(body, st, blk, side, stamp, queue, bits, gen, nb, hc, 0)
    head = 0
    while head < tail:
        b = queue[head]
        head += 1
        bc = b % hc
        for d in range(4):
            if d == 0:
                if b < hc:
                    continue
                o, e = b - hc, 2 * (b - hc) + 1
            elif d == 1:
                if bc + 1 >= hc:
                    continue
                o, e = b + 1, 2 * b
            elif d == 2:
                if b + hc >= nb:
                    continue
                o, e = b + hc, 2 * b + 1
            else:
                if bc == 0:
                    continue
                o, e = b - 1, 2 * (b - 1)
            if stamp[o] == gen or stamp[forb + e] == gen:
                continue
            stamp[o] = gen
            queue[tail] = o
            tail += 1
            _set_edge(bits, e, hc)
    tree_outline_next(rows, cols, bits, nxt)
    plan = _seg(I, O_PLAN, 2 * n + 2)
    nbr2 = _seg(I, O_NBR2, 4 * n)
    cell = st.head
    steps = 0
    while cell != st.apple and steps < n:
        to = nxt[cell]
        for move in range(4):
            if nbr2[cell * 4 + move] == to:
                plan[steps] = move
        steps += 1
        cell = to
    return steps


@njit(cache=True, inline="always")
def seed_tree(body, st, blk, side, stamp, queue, bits, gen, nb, hc, nth):
    """Start a spanning tree of blocks from the body, walked head first: its blocks (stamped `gen`)
    go to `queue`, the block edges it crosses become tree edges in `bits` (cleared first), and the
    edges it passes along inside a block are forbidden (stamp[3 nb + e] = gen). Returns (blocks
    queued, the nth block queued or -1)."""
    n = body.shape[0]
    forb = 3 * nb
    bits[:] = 0
    tail = 0
    src = -1
    i = st.head_i
    prev = -1
    for _ in range(st.length):
        cell = body[i]
        i -= 1
        if i < 0:
            i = n - 1
        b = blk[cell]
        if stamp[b] != gen:
            stamp[b] = gen
            queue[tail] = b
            tail += 1
            if tail == nth:
                src = b
        if prev >= 0:
            e = side[cell]  # the move cell -> prev leaves across cell's side or stays in its block
            if e >= 0:
                if blk[prev] == b:
                    stamp[forb + e] = gen
                else:
                    _set_edge(bits, e, hc)
        prev = cell
    return tail, src


@njit(cache=True, inline="always")
def _set_edge(bits, e, hc):
    b = e >> 1
    if e & 1:
        bits[b] |= 4
        bits[b + hc] |= 1
    else:
        bits[b] |= 2
        bits[b + 1] |= 8


@njit(cache=True)
def _replan(I, L, body, st):
    """Search (maybe keep the committed plan), fall back on an outline; returns the move."""
    n = body.shape[0]
    plan = _seg(I, O_PLAN, 2 * n + 2)
    if L[M_MOVES] != st.moves or L[M_APPLE] != st.apple:
        L[M_LEN] = 0
        L[M_POS] = 0
    left = L[M_LEN] - L[M_POS]
    steps = 0
    if left == 0 or (L[M_POS] % L[M_PARAMS + P_EVERY] == 0 and L[M_DIRECT] < left):
        # A fresh plan may take as long as an outline walk could: N - L moves.
        steps = _search(I, L, body, st, left - 1 if left > 0 else n - st.length)
    if steps > 0 and (left == 0 or steps < left):
        plan[:steps] = _seg(I, O_TRY, steps)
        L[M_LEN] = steps
        L[M_POS] = 0
        # A shortest path stays shortest (the tail only frees cells later on
        # it); a detour may be beaten once the tail has moved on.
        L[M_RESEARCH] = 0 if L[M_DETOUR] == 0 else 1
    elif left == 0:
        L[M_LEN] = _outline_plan(I, L, body, st)
        L[M_POS] = 0
        L[M_RESEARCH] = 1
        if L[M_DIRECT] == 0:
            L[M_DIRECT] = -1
    # No plan can beat the walk once the shortest path is as long as what is left
    # of it: the shortest path shrinks by at most one a move, like the walk.
    if L[M_DIRECT] > 0:
        L[M_DIRECT] -= 1
    move = plan[L[M_POS]]
    L[M_POS] += 1
    L[M_MOVES] = st.moves + 1
    L[M_APPLE] = st.apple
    return move


@njit(cache=True, inline="always")
def _decide(ws, g, st):
    I, L, body = ws[W_I], ws[W_L], g[G_BODY]
    _stamp_head(L, body, st)
    # Fast path: the committed shortest plan stands until the apple (re-planning
    # it only finds something shorter when the A* tie-breaks differ: rare).
    pos = L[M_POS]
    if L[M_RESEARCH] == 0 and pos < L[M_LEN] and L[M_MOVES] == st.moves and L[M_APPLE] == st.apple:
        L[M_POS] = pos + 1
        L[M_MOVES] = st.moves + 1
        return I[I[O_PLAN] + pos]
    return _replan(I, L, body, st)


@njit(cache=True)
def _cells(ws):
    I = ws[W_I]
    return I[I[O_CELLS]:I[O_CELLS + 1]]


@njit(cache=True, parallel=True)
def _sweep(cfg, nbr, params, base_seed, first, out, nblocks):
    sweep_chunk(_alloc, _reset, _decide, cfg, nbr, params, base_seed, first, out, nblocks)


@njit(cache=True)
def _play(cfg, nbr, params, seed):
    return play_recorded(_alloc, _reset, _decide, _cells, cfg, nbr, params, seed)


def _count_option(options, key, default, low, high):
    value = options.get(key, default)
    try:
        count = int(value)
    except (TypeError, ValueError):
        count = low - 1
    if not (low <= count <= high):
        raise PolicyError(f"policy 'cell': {key}={value!r} is not a count in {low}..{high}")
    return count


def cell_params(config, options) -> np.ndarray:
    if config.rows % 2 or config.cols % 2:
        raise BoardError(
            f"policy 'cell' needs even rows and cols (2x2 blocks); board {config.rows}x{config.cols} has an odd side"
        )
    rounds = _count_option(options, "detours", DETOUR_ROUNDS, 0, 64)
    every = _count_option(options, "research_every", RESEARCH_EVERY, 1, 1 << 30)
    table = config.cells <= DIST_TABLE_CELLS
    bits = (config.rows // 2) * (config.cols // 2) <= BITS_BLOCKS
    return np.array([rounds, every, table, bits], dtype=np.int64)


POLICY = EnginePolicy(
    name="cell",
    summary=__doc__,
    sweep_kernel=_sweep,
    play_kernel=_play,
    make_params=cell_params,
    guaranteed=True,
    options={"detours": (DETOUR_ROUNDS, None), "research_every": (RESEARCH_EVERY, None)},
)
