"""`reduce`: a (non-optimal) solution for any solvable board, row by row / column by column.

The standard reduction. While the unsolved region is larger than 3x3, take its
longer side and solve one edge line of the region (a row when the region has at
least as many rows as columns, else a column), on the side away from the goal's
blank cell, then shrink the region by that line. A line of m cells:

* the first m-2 tiles are walked to their cells one at a time: a BFS distance
  field from the target over the unlocked cells gives the tile's next cell (ties
  go to the cell nearest the blank), a BFS of the blank (never through the tile
  or a locked cell) brings the blank there, and one move slides the tile;
* the last two cells a, b (b at the end of the line) use the classic trick: the
  tile of b goes to a, the tile of a to the cell `a + inward` next to it (unless
  it is already in the 2x3 window of a, b and the two cells behind each), the
  blank into the window; then a BFS over (tile of a, tile of b, blank) cells of
  the window finishes (usually the classic two moves blank b -> a -> a + inward;
  it also frees the tile of a when it sits at b, where it cannot be fetched
  while a is held).

While one line is being solved the unlocked cells are the region minus the line's
placed cells: every cell of that shape has two disjoint ways around it, so the
blank's BFS never fails. Should it ever fail, a BFS over (tile cell, blank cell)
pairs in a small window around the tile, the target and the blank (widened to the
whole region if needed) takes over (`joint_searches` counts them; the tests
expect none).

The final block (at most 3x3, containing the goal's blank cell) is solved
optimally by the existing A* search in `solver.solve`. A post-pass over the whole
move list then cancels back-and-forth moves and cuts every loop: each state is
hashed (sum of tile x a random 64-bit key per cell), the path jumps from a state to
the last time the same hash appears, and the result is replayed and checked
against the goal (on a hash collision the loop-free cut is abandoned).

Kernels: `_reduce` (the reduction, numba), `_shorten` (the post-pass, numba);
`solve_reduce` is the Python driver.
"""

from __future__ import annotations

import re
import time
import warnings

import numpy as np
from numba import config, njit

from fastsnake.puzzle import board as B

if config.DISABLE_JIT:  # interpreted, the uint64 hash sums are numpy scalars: they wrap (as intended) and warn
    warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning, re.escape(__name__))

# Slots of the kernel state vector `st`.
ST_NMOVES, ST_STAMP, ST_STAMP2, ST_JOINT = range(4)
# Results of `_reduce`.
RED_OK, RED_STUCK = 0, 1
# Slots of the tuple `_reduce` returns: the status, then the final region's rows and columns.
RES_STATUS, RES_R0, RES_R1, RES_C0, RES_C1 = range(5)
BLANK = 0  # the blank's tile number: pos[BLANK] is the blank's cell
# Variant bits: which end of a line gets the two-tile trick, and the side tie rule.
V_LINE_REVERSED, V_SIDE_FAR = 1, 2
_FINAL = 3  # reduce until both sides of the region are at most this
_JOINT_MAX_STATES = 1 << 22


@njit(cache=True, inline="always")
def _delta(m):
    """(row step, column step) of blank move `m`: 0 U, 1 D, 2 L, 3 R (`board.MOVES`; the inverse is m ^ 1)."""
    if m == 0:
        return -1, 0
    if m == 1:
        return 1, 0
    if m == 2:
        return 0, -1
    return 0, 1


@njit(cache=True, inline="always")
def _step(board, pos, moves, st, cols, m):
    """The blank moves `m` (0 U, 1 D, 2 L, 3 R); recorded in `moves` while there is room."""
    b = pos[BLANK]
    dr, dc = _delta(m)
    c = b + dr * cols + dc
    t = board[c]
    board[b] = t
    pos[t] = b
    board[c] = 0
    pos[BLANK] = c
    k = st[ST_NMOVES]
    if k < moves.shape[0]:
        moves[k] = m
    st[ST_NMOVES] = k + 1


@njit(cache=True, inline="always")
def _dir(a, b, cols):
    """The move taking the blank from cell a to the adjacent cell b."""
    if b == a - cols:
        return 0
    if b == a + cols:
        return 1
    if b == a - 1:
        return 2
    return 3


@njit(cache=True, inline="always")
def _nbr(a, m, rows, cols):
    """The cell next to a in direction m, or -1 off the board."""
    dr, dc = _delta(m)
    r = a // cols + dr
    c = a % cols + dc
    return r * cols + c if 0 <= r < rows and 0 <= c < cols else -1


@njit(cache=True)
def _blank_to(board, pos, locked, moves, st, rows, cols, target, avoid, seen, parent, queue):
    """Walk the blank to `target` on a shortest path avoiding locked cells and `avoid`.
    Returns False (nothing moved) when the target cannot be reached."""
    src = pos[BLANK]
    if src == target:
        return True
    st[ST_STAMP] += 1
    stamp = st[ST_STAMP]
    seen[src] = stamp
    head = 0
    tail = 1
    queue[0] = src
    found = False
    while head < tail and not found:
        a = queue[head]
        head += 1
        for m in range(4):
            b = _nbr(a, m, rows, cols)
            if b < 0 or seen[b] == stamp or locked[b] or b == avoid:
                continue
            seen[b] = stamp
            parent[b] = a
            if b == target:
                found = True
                break
            queue[tail] = b
            tail += 1
    if not found:
        return False
    k = 0
    x = target
    while x != src:
        queue[k] = x
        x = parent[x]
        k += 1
    for i in range(k - 1, -1, -1):
        _step(board, pos, moves, st, cols, _dir(pos[BLANK], queue[i], cols))
    return True


@njit(cache=True)
def _joint(board, pos, locked, moves, st, rows, cols, t, target, r0, r1, c0, c1, margin):
    """Move tile t to `target` by a BFS over (tile cell, blank cell) within a window of
    the region [r0..r1]x[c0..c1]: the box around tile, target and blank widened by
    `margin`. Returns False when the window holds no way (or is too large)."""
    tc = pos[t]
    bc = pos[BLANK]
    wr0 = min(tc // cols, target // cols, bc // cols) - margin
    wr1 = max(tc // cols, target // cols, bc // cols) + margin
    wc0 = min(tc % cols, target % cols, bc % cols) - margin
    wc1 = max(tc % cols, target % cols, bc % cols) + margin
    wr0 = max(wr0, r0)
    wr1 = min(wr1, r1)
    wc0 = max(wc0, c0)
    wc1 = min(wc1, c1)
    wh = wr1 - wr0 + 1
    ww = wc1 - wc0 + 1
    w = wh * ww
    if w * w > _JOINT_MAX_STATES:
        return False
    st[ST_JOINT] += 1
    seen = np.zeros(w * w, np.uint8)
    parent = np.empty(w * w, np.int32)
    pmove = np.empty(w * w, np.int8)
    queue = np.empty(w * w, np.int32)
    # local index of a board cell inside the window
    lt = (tc // cols - wr0) * ww + (tc % cols - wc0)
    lb = (bc // cols - wr0) * ww + (bc % cols - wc0)
    lg = (target // cols - wr0) * ww + (target % cols - wc0)
    s0 = lt * w + lb
    seen[s0] = 1
    queue[0] = s0
    head = 0
    tail = 1
    goal_state = -1
    while head < tail and goal_state < 0:
        s = queue[head]
        head += 1
        ltile = s // w
        lblank = s - ltile * w
        br = lblank // ww
        bcol = lblank - br * ww
        for m in range(4):
            dr, dc = _delta(m)
            nr = br + dr
            nc = bcol + dc
            if nr < 0 or nr >= wh or nc < 0 or nc >= ww:
                continue
            if locked[(nr + wr0) * cols + nc + wc0]:
                continue
            nb = nr * ww + nc
            ntile = lblank if nb == ltile else ltile
            ns = ntile * w + nb
            if seen[ns]:
                continue
            seen[ns] = 1
            parent[ns] = s
            pmove[ns] = m
            if ntile == lg:
                goal_state = ns
                break
            queue[tail] = ns
            tail += 1
    if goal_state < 0:
        return False
    k = 0
    s = goal_state
    while s != s0:
        queue[k] = pmove[s]
        s = parent[s]
        k += 1
    for i in range(k - 1, -1, -1):
        _step(board, pos, moves, st, cols, queue[i])
    return True


@njit(cache=True)
def _place(board, pos, locked, moves, st, rows, cols, t, target, r0, r1, c0, c1,
           seen, parent, queue, seen2, dist):
    """Bring tile t to `target` without touching locked cells. False = no way found."""
    if pos[t] == target:
        return True
    # BFS distance to the target over the unlocked cells.
    st[ST_STAMP2] += 1
    stamp = st[ST_STAMP2]
    seen2[target] = stamp
    dist[target] = 0
    queue[0] = target
    head = 0
    tail = 1
    while head < tail:
        a = queue[head]
        head += 1
        for m in range(4):
            b = _nbr(a, m, rows, cols)
            if b < 0 or seen2[b] == stamp or locked[b]:
                continue
            seen2[b] = stamp
            dist[b] = dist[a] + 1
            queue[tail] = b
            tail += 1
    if seen2[pos[t]] != stamp:
        return False
    while pos[t] != target:
        tc = pos[t]
        d = dist[tc]
        blank = pos[BLANK]
        brow = blank // cols
        bcol = blank % cols
        best = -1
        best_score = 1 << 30
        for m in range(4):
            b = _nbr(tc, m, rows, cols)
            if b < 0 or locked[b] or seen2[b] != stamp or dist[b] != d - 1:
                continue
            score = abs(b // cols - brow) + abs(b % cols - bcol)
            if score < best_score:
                best_score = score
                best = b
        if not _blank_to(board, pos, locked, moves, st, rows, cols, best, tc, seen, parent, queue):
            for margin in (2, rows + cols):
                if _joint(board, pos, locked, moves, st, rows, cols, t, target, r0, r1, c0, c1, margin):
                    return True
            return False
        _step(board, pos, moves, st, cols, _dir(pos[BLANK], tc, cols))
    return True


@njit(cache=True)
def _pair(board, pos, moves, st, cols, win, x, y, a, b):
    """Bring tiles x, y to cells a, b by a BFS over (x cell, y cell, blank cell) inside
    the 6-cell window `win` (x, y and the blank must all be in it; the other tiles of
    the window move freely). In a 2x3 window every arrangement of x, y and the blank
    is reachable, so this never fails."""
    k = win.shape[0]
    loc = np.full(k * k * k, -1, np.int32)  # parent state
    mv = np.zeros(k * k * k, np.int8)  # window index the blank moved to
    queue = np.empty(k * k * k, np.int32)
    ix = iy = ib = ia_ = ibb = -1
    for i in range(k):
        if win[i] == pos[x]:
            ix = i
        if win[i] == pos[y]:
            iy = i
        if win[i] == pos[BLANK]:
            ib = i
        if win[i] == a:
            ia_ = i
        if win[i] == b:
            ibb = i
    if ix < 0 or iy < 0 or ib < 0:
        return False
    s0 = (ix * k + iy) * k + ib
    loc[s0] = s0
    queue[0] = s0
    head = 0
    tail = 1
    found = -1
    if ix == ia_ and iy == ibb:
        found = s0
    while head < tail and found < 0:
        s = queue[head]
        head += 1
        sx = s // (k * k)
        sy = (s // k) % k
        sb = s % k
        for j in range(k):
            d = abs(win[j] // cols - win[sb] // cols) + abs(win[j] % cols - win[sb] % cols)
            if d != 1:
                continue
            nx = sb if j == sx else sx
            ny = sb if j == sy else sy
            ns = (nx * k + ny) * k + j
            if loc[ns] >= 0:
                continue
            loc[ns] = s
            mv[ns] = j
            if nx == ia_ and ny == ibb:
                found = ns
                break
            queue[tail] = ns
            tail += 1
    if found < 0:
        return False
    n = 0
    s = found
    while s != s0:
        queue[n] = mv[s]
        s = loc[s]
        n += 1
    for i in range(n - 1, -1, -1):
        _step(board, pos, moves, st, cols, _dir(pos[BLANK], win[queue[i]], cols))
    return True


@njit(cache=True)
def _solve_line(board, goal, pos, locked, moves, st, rows, cols, line, m, inward, r0, r1, c0, c1,
                seen, parent, queue, seen2, dist):
    """Place the goal tiles of line[0..m-1] (an edge of the region) and lock them."""
    for i in range(m - 2):
        if not _place(board, pos, locked, moves, st, rows, cols, goal[line[i]], line[i],
                      r0, r1, c0, c1, seen, parent, queue, seen2, dist):
            return False
        locked[line[i]] = 1
    a = line[m - 2]
    b = line[m - 1]
    x = goal[a]
    y = goal[b]
    # The last two: y to a, then x next to it (a + inward) unless x is already in the
    # 2x3 window at the end of the line; then x, y and the blank are finished inside
    # the window (normally the classic two moves: blank b -> a -> a + inward).
    win = np.empty(6, np.int64)
    for d in range(3):
        win[2 * d] = a + d * inward
        win[2 * d + 1] = b + d * inward
    if not (board[a] == x and board[b] == y):
        if not _place(board, pos, locked, moves, st, rows, cols, y, a, r0, r1, c0, c1,
                      seen, parent, queue, seen2, dist):
            return False
        locked[a] = 1
        inside = False
        for i in range(6):
            if win[i] == pos[x]:
                inside = True
        if not inside:
            if not _place(board, pos, locked, moves, st, rows, cols, x, a + inward, r0, r1, c0, c1,
                          seen, parent, queue, seen2, dist):
                return False
        blank_in = False
        for i in range(6):
            if win[i] == pos[BLANK]:
                blank_in = True
        if not blank_in:
            # into the window, around x (the cells behind b are reached from inside)
            target = -1
            for i in range(2, 6):
                if target < 0 and win[i] != pos[x]:
                    target = win[i]
            if not _blank_to(board, pos, locked, moves, st, rows, cols, target, pos[x],
                             seen, parent, queue):
                return False
        locked[a] = 0
        if not _pair(board, pos, moves, st, cols, win, x, y, a, b):
            return False
    locked[a] = 1
    locked[b] = 1
    return True


@njit(cache=True, nogil=True)
def _reduce(board, goal, rows, cols, moves, st, variant):
    """Solve edge lines until the region is at most 3x3; `board` ends in the reduced state.

    Returns (status, r0, r1, c0, c1): RED_OK and the final region, or RED_STUCK."""
    n = rows * cols
    pos = np.empty(n, np.int32)
    goalpos = np.empty(n, np.int32)
    for c in range(n):
        pos[board[c]] = c
        goalpos[goal[c]] = c
    locked = np.zeros(n, np.uint8)
    seen = np.zeros(n, np.int64)
    seen2 = np.zeros(n, np.int64)
    parent = np.empty(n, np.int32)
    queue = np.empty(n, np.int32)
    dist = np.empty(n, np.int32)
    line = np.empty(max(rows, cols), np.int64)
    r0, r1, c0, c1 = 0, rows - 1, 0, cols - 1
    gr = goalpos[BLANK] // cols
    gc = goalpos[BLANK] % cols
    far = (variant & V_SIDE_FAR) != 0
    rev = (variant & V_LINE_REVERSED) != 0
    while r1 - r0 + 1 > _FINAL or c1 - c0 + 1 > _FINAL:
        h = r1 - r0 + 1
        w = c1 - c0 + 1
        if h >= w:
            top = (gr - r0 > r1 - gr) or (gr - r0 == r1 - gr and not far)
            r = r0 if top else r1
            inward = cols if top else -cols
            m = w
            for i in range(w):
                j = (w - 1 - i) if rev else i
                line[i] = r * cols + c0 + j
            lr0, lr1, lc0, lc1 = r0, r1, c0, c1
            if top:
                r0 += 1
            else:
                r1 -= 1
        else:
            left = (gc - c0 > c1 - gc) or (gc - c0 == c1 - gc and not far)
            c = c0 if left else c1
            inward = 1 if left else -1
            m = h
            for i in range(h):
                j = (h - 1 - i) if rev else i
                line[i] = (r0 + j) * cols + c
            lr0, lr1, lc0, lc1 = r0, r1, c0, c1
            if left:
                c0 += 1
            else:
                c1 -= 1
        if not _solve_line(board, goal, pos, locked, moves, st, rows, cols, line, m, inward,
                           lr0, lr1, lc0, lc1, seen, parent, queue, seen2, dist):
            return RED_STUCK, r0, r1, c0, c1
    return RED_OK, r0, r1, c0, c1


@njit(cache=True, nogil=True)
def _shorten(start, moves, cols, keys):
    """Cancel back-and-forth moves, then cut every loop (jump to the last visit of each
    state). Returns the shorter move list; the loop cut is checked by replaying it and
    dropped (keeping the cancelled list) if a hash collision led it astray."""
    nm = moves.shape[0]
    n = start.shape[0]
    out = np.empty(nm, np.int8)
    k = 0
    for i in range(nm):
        m = moves[i]
        if k > 0 and out[k - 1] == (m ^ 1):
            k -= 1
        else:
            out[k] = m
            k += 1
    board = start.copy()
    blank = 0
    h = np.uint64(0)
    for c in range(n):
        if board[c] == 0:
            blank = c
        h += np.uint64(board[c]) * keys[c]
    hs = np.empty(k + 1, np.uint64)
    hs[0] = h
    for i in range(k):
        dr, dc = _delta(out[i])
        c = blank + dr * cols + dc
        t = np.uint64(board[c])
        h = h + t * keys[blank] - t * keys[c]
        board[blank] = board[c]
        board[c] = 0
        blank = c
        hs[i + 1] = h
    end = board.copy()
    order = np.argsort(hs, kind="mergesort")
    last = np.empty(k + 1, np.int64)
    i = 0
    while i <= k:
        j = i
        while j + 1 <= k and hs[order[j + 1]] == hs[order[i]]:
            j += 1
        for q in range(i, j + 1):
            last[order[q]] = order[j]
        i = j + 1
    cut = np.empty(k, np.int8)
    kc = 0
    i = last[0]
    while i < k:
        cut[kc] = out[i]
        kc += 1
        i = last[i + 1]
    # Replay the cut list.
    board = start.copy()
    for c in range(n):
        if board[c] == 0:
            blank = c
    for i in range(kc):
        m = cut[i]
        dr, dc = _delta(m)
        c = blank + dr * cols + dc
        if c < 0 or c >= n or (m >= 2 and c // cols != blank // cols):
            return out[:k].copy()
        board[blank] = board[c]
        board[c] = 0
        blank = c
    for c in range(n):
        if board[c] != end[c]:
            return out[:k].copy()
    return cut[:kc].copy()


def _keys(n: int) -> np.ndarray:
    return np.random.default_rng(0x5EED).integers(0, 2**63, n, dtype=np.int64).astype(np.uint64) * 2 + 1


def _line_walk(start, goal, rows, cols) -> str:
    """On a 1-wide board the tiles keep their order; the blank walks straight to its goal."""
    bs = int(np.flatnonzero(start == 0)[0])
    bg = int(np.flatnonzero(goal == 0)[0])
    if rows == 1:
        return ("R" if bg > bs else "L") * abs(bg - bs)
    return ("D" if bg > bs else "U") * abs(bg - bs)


def _final_block(board, goal, rows, cols, r0, r1, c0, c1, solve_block):
    """Solve the region [r0..r1]x[c0..c1] optimally with `solve_block` after relabelling."""
    cells = np.array([r * cols + c for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)])
    sub_start = board[cells].astype(np.int64)
    sub_goal = goal[cells].astype(np.int64)
    labels = {int(t): i for i, t in enumerate(sorted(sub_goal.tolist()))}  # blank 0 stays 0
    h, w = r1 - r0 + 1, c1 - c0 + 1
    s = np.array([labels[int(t)] for t in sub_start], np.int8)
    g = np.array([labels[int(t)] for t in sub_goal], np.int8)
    return solve_block(s, g, h, w)


def reduce_moves(start, goal, rows: int, cols: int, variant: int, solve_block):
    """(moves as int8 codes, info dict) of the reduction + final block + post-pass.

    `solve_block(start, goal, rows, cols)` solves the final block (at most 3x3) optimally and
    returns a `SolveResult`; the solver passes it in, so this module stays below the solver.
    """
    info = {"nodes_generated": 0, "nodes_expanded": 0}
    if rows == 1 or cols == 1:
        text = _line_walk(np.asarray(start), np.asarray(goal), rows, cols)
        info.update(final_block=f"{rows}x{cols}", reduction_moves=0, moves_before_postpass=len(text),
                    joint_searches=0)
        return np.array([B.MOVES.index(ch) for ch in text], np.int8), info
    start32 = np.asarray(start, dtype=np.int32)
    goal32 = np.asarray(goal, dtype=np.int32)
    n = rows * cols
    cap = max(1024, n * (4 * (rows + cols) + 32))
    while True:
        board = start32.copy()
        moves = np.empty(cap, np.int8)
        st = np.zeros(4, np.int64)
        res = _reduce(board, goal32, rows, cols, moves, st, variant)
        if int(st[ST_NMOVES]) <= cap:
            break
        cap = int(st[ST_NMOVES]) + 1024
    if res[RES_STATUS] != RED_OK:
        raise AssertionError(f"reduce: no way found on a {rows}x{cols} board (a bug of ours)")
    nred = int(st[ST_NMOVES])
    r0, r1, c0, c1 = (int(res[k]) for k in (RES_R0, RES_R1, RES_C0, RES_C1))
    final = _final_block(board, goal32, rows, cols, r0, r1, c0, c1, solve_block)
    if final.status != "solved":
        raise AssertionError(f"reduce: the final block was not solved ({final.status})")
    tail = np.array([B.MOVES.index(ch) for ch in final.moves], np.int8)
    allm = np.concatenate([moves[:nred], tail])
    short = _shorten(start32, allm, cols, _keys(n))
    info.update(final_block=f"{r1 - r0 + 1}x{c1 - c0 + 1}", reduction_moves=nred,
                moves_before_postpass=int(len(allm)), joint_searches=int(st[ST_JOINT]),
                nodes_generated=final.nodes_generated, nodes_expanded=final.nodes_expanded)
    return short, info


def solve_reduce(start, goal, rows: int, cols: int, solve_block, variants=None):
    """(move string, info) for validated, solvable flat boards; the shortest over variants.

    `solve_block`: see `reduce_moves`.

    Default variants: all four on boards up to 64 cells (cheap), one above."""
    if variants is None:
        variants = range(4) if rows * cols <= 64 else (0,)
    codes = info = v = None
    t0 = time.perf_counter()
    for variant in variants:
        tried, tried_info = reduce_moves(start, goal, rows, cols, variant, solve_block)
        if codes is None or len(tried) < len(codes):
            codes, info, v = tried, tried_info, variant
    info["variant"] = v
    info["variants_tried"] = len(list(variants))
    info["reduce_seconds"] = time.perf_counter() - t0
    return "".join(B.MOVES[m] for m in codes), info
