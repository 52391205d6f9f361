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

Each move the agent searches (shared A*, time-aware: a body cell is passable
once the tail has left it) the shortest right-hand path to the apple that only
enters blocks the body will have left by then, or crosses back over an edge the
body still uses. The plan is accepted only if the body it leaves behind when it
eats passes the test above; it replaces the committed plan only if shorter.
Without an accepted plan the agent builds a spanning tree that contains the
body's crossings (preferring tree edges towards the apple), and commits to
walking that tree's outline to the apple.

Guarantee (both tail rules, any start length): every committed plan is a legal
sequence of moves (replayed against the moving tail) and ends in a position that
lies on a Hamiltonian cycle; from such a position the outline walk to the apple
is legal and ends in such a position again. The committed plan only gets
shorter, so each apple is eaten within N - L moves of appearing and the game is
won in fewer than N²/2 moves. Needs even rows and cols (blocks of 2×2); other
boards are refused.
"""

import numpy as np
from numba import njit

from fastsnake.search.astar import A_PATH, astar_buffers, astar_grid
from fastsnake.snake.board import CFG_COLS, CFG_ROWS, CFG_TAIL_RULE, TAIL_FOLLOW, BoardError
from fastsnake.snake.cycles import random_cells, tree_outline_next
from fastsnake.snake.engine import G_BODY, G_CFG, G_RNG, lay_body_random, play_recorded, sweep_chunk
from fastsnake.snake.policies import Policy, register
from fastsnake.snake.rng import POLICY_STREAM, mix64

# Workspace slots.
(W_NBR2, W_BLK, W_SIDE, W_PATHS, W_FREE_AT, W_BLK_FREE, W_EDGE_UNTIL, W_WIN, W_STAMP, W_QUEUE, W_BITS,
 W_NXT, W_PLAN, W_META, W_RNG, W_CELLS, W_SEQ, W_SEQ2, W_TRY, W_PARAMS) = range(20)
# W_META: committed plan length, next plan index, its apple, the move number it expects, stamp generation.
M_LEN, M_POS, M_APPLE, M_MOVES, M_GEN, M_OUTLINE, M_SEARCHES, M_OUTLINES = range(8)


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
    blk, side = block_tables(rows, cols)
    return (
        right_hand_table(nbr, rows, cols),
        blk,
        side,
        astar_buffers(n),
        np.zeros(n, np.int32),  # free_at: first move number at which a body cell may be entered
        np.zeros(nb, np.int32),  # first move number at which a block holds no body cell
        np.zeros(2 * nb, np.int32),  # move number until which the body still crosses an edge
        np.empty(2 * n + 2, np.int32),  # window: the body left after a plan
        np.zeros(5 * nb, np.int32),  # stamps: blocks [0, nb), crossed edges [nb, 3nb), edges passed along [3nb, 5nb)
        np.empty(nb, np.int32),  # BFS queue over blocks
        np.zeros(nb, np.uint8),  # spanning tree edge bits (1 up, 2 right, 4 down, 8 left)
        np.empty(n, np.int32),  # outline successor
        np.empty(2 * n + 2, np.uint8),  # committed plan (moves)
        np.zeros(8, np.int64),  # plan state; the last two count searches and outline plans
        np.zeros(1, np.uint64),
        np.empty(n, np.int32),
        np.empty(n, np.int32),  # the body, tail first
        np.empty(n, np.int32),  # the body after a detour's first leg
        np.empty(2 * n + 2, np.uint8),  # plan under test (moves)
        params,
    )


@njit(cache=True)
def _reset(ws, g):
    """Start body on the outline of a random block tree (policy stream of the game)."""
    cfg = g[G_CFG]
    rng = ws[W_RNG]
    rng[0] = mix64(g[G_RNG][1] ^ POLICY_STREAM)
    random_cells(cfg[CFG_ROWS], cfg[CFG_COLS], rng, ws[W_CELLS])
    lay_body_random(g, ws[W_CELLS], True)
    ws[W_META][M_LEN] = 0
    ws[W_META][M_POS] = 0
    ws[W_META][M_MOVES] = -1


@njit(cache=True)
def on_some_outline(blk, side, stamp, queue, gen, nb, hc, win, m):
    """True if the right-hand walk win[:m] is a stretch of some spanning tree's outline.

    Uses stamps `gen` (blocks seen, crossed edges, edges passed along) and
    `gen + 1` (blocks reached from the walk's last block; the others are cut
    off); the caller advances its generation by 2.
    """
    seen_blocks = 0
    crossed = 0
    for i in range(m):
        b = blk[win[i]]
        if stamp[b] != gen:
            stamp[b] = gen
            seen_blocks += 1
        if i + 1 < m:
            e = side[win[i]]
            if e >= 0:
                if blk[win[i + 1]] == b:
                    stamp[3 * nb + e] = gen
                elif stamp[nb + e] != gen:
                    stamp[nb + e] = gen
                    crossed += 1
    reached = blocks_connected(stamp, queue, gen, nb, hc, blk[win[m - 1]])
    # The crossed edges of a walk connect the blocks it visits: a forest iff a tree.
    return crossed == seen_blocks - 1 and reached == nb


@njit(cache=True)
def blocks_connected(stamp, queue, gen, nb, hc, start):
    """Blocks reached from `start` over edges not passed along (stamped `gen`); marks them gen+1."""
    forb = 3 * nb
    mark = gen + 1
    stamp[start] = mark
    queue[0] = start
    head, tail = 0, 1
    while head < tail:
        b = queue[head]
        head += 1
        bc = b % hc
        if bc + 1 < hc and stamp[forb + 2 * b] != gen and stamp[b + 1] != mark:
            stamp[b + 1] = mark
            queue[tail] = b + 1
            tail += 1
        if bc > 0 and stamp[forb + 2 * (b - 1)] != gen and stamp[b - 1] != mark:
            stamp[b - 1] = mark
            queue[tail] = b - 1
            tail += 1
        if b + hc < nb and stamp[forb + 2 * b + 1] != gen and stamp[b + hc] != mark:
            stamp[b + hc] = mark
            queue[tail] = b + hc
            tail += 1
        if b >= hc and stamp[forb + 2 * (b - hc) + 1] != gen and stamp[b - hc] != mark:
            stamp[b - hc] = mark
            queue[tail] = b - hc
            tail += 1
    return tail


@njit(cache=True, inline="always")
def _passable(ctx, frm, to, gm):
    """Free when entered (time-aware), and no new block loop as far as the body goes."""
    free_at, blk, blk_free, side, edge_until = ctx
    if gm < free_at[to]:
        return False
    bt = blk[to]
    if blk[frm] == bt or blk_free[bt] <= gm:
        return True
    # Crossing back over an edge the body still crosses adds no block edge.
    return edge_until[side[frm]] >= gm


@njit(cache=True)
def _next_gen(meta, stamp):
    meta[M_GEN] += 2
    if meta[M_GEN] >= 2**31 - 4:
        stamp[:] = 0
        meta[M_GEN] = 2
    return np.int32(meta[M_GEN])


@njit(cache=True)
def _leg(ws, cfg, seq, length, goal, avoid):
    """Time-aware right-hand A* from the head of body seq[:length] (tail first) to `goal`.

    `avoid` (a cell or -1) is never entered. Returns the number of moves (0: none);
    the cells entered are in the A* buffer's path.
    """
    blk, side = ws[W_BLK], ws[W_SIDE]
    free_at, blk_free, edge_until = ws[W_FREE_AT], ws[W_BLK_FREE], ws[W_EDGE_UNTIL]
    slack = 1 if cfg[CFG_TAIL_RULE] == TAIL_FOLLOW else 2
    free_at[:] = 0
    blk_free[:] = 0
    edge_until[:] = 0
    prev = -1
    for k in range(length):
        cell = seq[k]
        fa = k + slack
        free_at[cell] = fa
        b = blk[cell]
        if blk_free[b] < fa:
            blk_free[b] = fa
        if prev >= 0 and blk[prev] != b:
            e = side[prev]
            if edge_until[e] < fa - 1:
                edge_until[e] = fa - 1
        prev = cell
    if avoid >= 0:
        free_at[avoid] = 2**30
    steps = astar_grid(ws[W_PATHS], ws[W_NBR2], cfg[CFG_COLS], seq[length - 1], goal, _passable,
                       (free_at, blk, blk_free, side, edge_until))
    return max(steps, 0)


@njit(cache=True)
def _advance(seq, length, path, steps, keep, out):
    """out[:keep] = the last `keep` cells of seq[:length] + path[:steps]; returns keep."""
    m = 0
    first = length + steps - keep
    for k in range(first, length):
        out[m] = seq[k]
        m += 1
    for k in range(max(first - length, 0), steps):
        out[m] = path[k]
        m += 1
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
def _search(ws, g, st):
    """A plan to the apple that ends on some outline, into W_TRY; returns its length (0: none).

    First the shortest path; if the position it leaves cuts blocks off, a
    detour through the nearest cut-off cell, then on to the apple.
    """
    cfg = g[G_CFG]
    body = g[G_BODY]
    n = body.shape[0]
    seq, seq2, win, trial = ws[W_SEQ], ws[W_SEQ2], ws[W_WIN], ws[W_TRY]
    nbr2, blk, side, stamp = ws[W_NBR2], ws[W_BLK], ws[W_SIDE], ws[W_STAMP]
    path = ws[W_PATHS][A_PATH]
    length = st.length
    i = st.tail_i
    for k in range(length):
        seq[k] = body[i]
        i += 1
        if i == n:
            i = 0
    steps = _leg(ws, cfg, seq, length, st.apple, -1)
    if steps == 0:
        return 0
    _to_moves(nbr2, st.head, path, steps, trial, 0)
    if length + 1 == n:
        return steps
    cols = cfg[CFG_COLS]
    hc = cols // 2
    nb = (cfg[CFG_ROWS] // 2) * hc
    m = _advance(seq, length, path, steps, length + 1, win)
    gen = _next_gen(ws[W_META], stamp)
    if on_some_outline(blk, side, stamp, ws[W_QUEUE], gen, nb, hc, win, m):
        return steps
    if ws[W_PARAMS][1] == 0:
        return 0
    # Detour: the free cell of a cut-off block nearest to the head (Manhattan).
    best, best_d = -1, 1 << 30
    hr_, hc_ = st.head // cols, st.head % cols
    for cell in range(n):
        if stamp[blk[cell]] == gen + 1 or cell == st.apple:
            continue
        d = abs(cell // cols - hr_) + abs(cell % cols - hc_)
        if d < best_d and d > 0:
            best, best_d = cell, d
    if best < 0:
        return 0
    steps1 = _leg(ws, cfg, seq, length, best, st.apple)
    if steps1 == 0:
        return 0
    _to_moves(nbr2, st.head, path, steps1, trial, 0)
    _advance(seq, length, path, steps1, length, seq2)
    steps2 = _leg(ws, cfg, seq2, length, st.apple, -1)
    if steps2 == 0:
        return 0
    _to_moves(nbr2, best, path, steps2, trial, steps1)
    m = _advance(seq2, length, path, steps2, length + 1, win)
    gen = _next_gen(ws[W_META], stamp)
    if on_some_outline(blk, side, stamp, ws[W_QUEUE], gen, nb, hc, win, m):
        return steps1 + steps2
    return 0


@njit(cache=True)
def _outline_plan(ws, g, st):
    """Commit to the outline of a spanning tree through the body's crossings, up to the apple.

    Blocks are attached breadth-first from the body's blocks, head first, so
    the outline leaves the head into free blocks nearby. Returns the plan length.
    """
    cfg = g[G_CFG]
    rows, cols = cfg[CFG_ROWS], cfg[CFG_COLS]
    hc = cols // 2
    nb = (rows // 2) * hc
    blk, side, stamp, queue, bits, nxt = ws[W_BLK], ws[W_SIDE], ws[W_STAMP], ws[W_QUEUE], ws[W_BITS], ws[W_NXT]
    body = g[G_BODY]
    n = body.shape[0]
    gen = _next_gen(ws[W_META], stamp)
    bits[:] = 0
    forb = 3 * nb
    tail = 0
    # Walk the body head first: its blocks seed the search, its crossings are tree edges.
    i = st.head_i
    prev = -1
    for k in range(st.length):
        cell = body[i]
        i -= 1
        if i < 0:
            i = n - 1
        b = blk[cell]
        if stamp[b] != gen:
            stamp[b] = gen
            queue[tail] = b
            tail += 1
        if prev >= 0:
            e = side[cell]  # the move cell -> prev leaves across cell's side or stays in its block
            if e >= 0:
                if blk[prev] == b:
                    stamp[forb + e] = gen
                else:
                    _set_edge(bits, e, hc)
        prev = cell
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
    plan = ws[W_PLAN]
    nbr2 = ws[W_NBR2]
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
def _set_edge(bits, e, hc):
    b = e >> 1
    if e & 1:
        bits[b] |= np.uint8(4)
        bits[b + hc] |= np.uint8(1)
    else:
        bits[b] |= np.uint8(2)
        bits[b + 1] |= np.uint8(8)


@njit(cache=True)
def _replan(ws, g, st):
    """Search (maybe keep the committed plan), fall back on an outline; returns the move."""
    meta, plan = ws[W_META], ws[W_PLAN]
    if meta[M_MOVES] != st.moves or meta[M_APPLE] != st.apple:
        meta[M_LEN] = 0
        meta[M_POS] = 0
    left = meta[M_LEN] - meta[M_POS]
    steps = 0
    if left == 0 or meta[M_POS] % ws[W_PARAMS][2] == 0:
        steps = _search(ws, g, st)
        meta[M_SEARCHES] += 1
    if steps > 0 and (left == 0 or steps < left):
        plan[:steps] = ws[W_TRY][:steps]
        meta[M_LEN] = steps
        meta[M_POS] = 0
        meta[M_OUTLINE] = ws[W_PARAMS][0]
    elif left == 0:
        meta[M_LEN] = _outline_plan(ws, g, st)
        meta[M_POS] = 0
        meta[M_OUTLINE] = 1
        meta[M_OUTLINES] += 1
    move = plan[meta[M_POS]]
    meta[M_POS] += 1
    meta[M_MOVES] = st.moves + 1
    meta[M_APPLE] = st.apple
    return move


@njit(cache=True, inline="always")
def _decide(ws, g, st):
    # Fast path: the committed shortest plan stands until the apple (re-planning
    # it only finds something shorter when the A* tie-breaks differ: rare).
    meta = ws[W_META]
    pos = meta[M_POS]
    if meta[M_OUTLINE] == 0 and pos < meta[M_LEN] and meta[M_MOVES] == st.moves and meta[M_APPLE] == st.apple:
        meta[M_POS] = pos + 1
        meta[M_MOVES] = st.moves + 1
        return ws[W_PLAN][pos]
    return _replan(ws, g, st)


@njit(cache=True)
def _cells(ws):
    return ws[W_CELLS]


@njit(cache=True, parallel=True)
def _sweep(cfg, nbr, params, base_seed, first, out, nblocks):
    sweep_chunk(_alloc, _reset, _decide, cfg, nbr, params, base_seed, first, out, nblocks)


@njit(cache=True)
def _play(cfg, nbr, params, seed):
    return play_recorded(_alloc, _reset, _decide, _cells, cfg, nbr, params, seed)


def cell_params(config, options) -> np.ndarray:
    if config.rows % 2 or config.cols % 2:
        raise BoardError(
            f"policy 'cell' needs even rows and cols (2x2 blocks); board {config.rows}x{config.cols} has an odd side"
        )
    # [re-plan every move, try detours, re-search every k-th move of an outline plan]
    return np.array([0, 1, 1], dtype=np.int64)


register(
    Policy(
        name="cell",
        summary=__doc__,
        sweep_kernel=_sweep,
        play_kernel=_play,
        make_params=cell_params,
        guaranteed=True,
    )
)
