"""The outline test: is a right-hand walk a stretch of the outline of some spanning tree of the blocks?

Exactly when the block edges it crosses form a forest and the block graph without the edges it
passes along inside a block is still connected (then the crossings extend to a spanning tree
avoiding those edges, whose outline -- a Hamiltonian cycle -- contains the walk). Three forms
of the connectivity part: a queue BFS over block links, single 64-bit masks (at most 63
blocks), one mask per row of blocks; and on big boards the body part of the test from
per-search suffix tables (`suffix_test`). `apple_test` picks the form for a plan.
"""

import numpy as np
from numba import config, njit, types
from numba.cpython.unsafe.numbers import trailing_zeros

if config.DISABLE_JIT:  # the interpreted tier (NUMBA_DISABLE_JIT=1): numba's intrinsic has no Python body

    def trailing_zeros(x):
        x = int(x)
        return (x & -x).bit_length() - 1

from fastsnake.snake.celltree.layout import (
    I_BLOCK_LINKS,
    I_BLOCK_OF,
    I_BLOCK_QUEUE,
    I_SIDE_EDGE,
    I_STAMPS,
    L_COLS,
    L_OPEN_DOWN_MASK,
    L_OPEN_RIGHT_MASK,
    L_STAMP_GEN,
    LINK_BLOCK,
    LINK_EDGE,
    LINK_PAIR,
    LINK_ROW,
    OPEN_DOWN_ROW,
    OPEN_RIGHT_ROW,
    OPEN_ROWS,
    POS_SPAN,
    STAMP_ROWS,
    STAMPS_CROSSED,
    STAMPS_PASSED,
    WALK_START,
    X_BLOCK_COLS,
    X_BLOCK_ROWS,
    X_DOWN_EDGES,
    X_LAST_BLOCK_POS,
    X_LAST_CROSS_POS,
    X_LAST_PASS_POS,
    X_OPEN_ROWS,
    X_PARAMS,
    X_PASSED_CELLS,
    X_PASSED_COUNT,
    X_PASSED_POS,
    X_REACHED,
    X_RIGHT_EDGES,
    X_SEARCH_ID,
    X_SIDE_BIT,
    X_SIDE_WORD,
    X_SUFFIX_BLOCKS,
    X_SUFFIX_CLOSED,
    X_SUFFIX_CROSSED,
    X_SUFFIX_MADE,
    X_SUFFIX_ROWS,
    segment,
)
from fastsnake.snake.celltree.link import BOOL, I32, I64, INT, INT32, STATE, symbol_call
from fastsnake.snake.celltree.params import P_ROWS, ROWS_SUFFIX
from fastsnake.snake.engine import compiled_only


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
    passed, crossing = STAMPS_PASSED * nb, STAMPS_CROSSED * nb
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
            if stamp[STAMPS_CROSSED * nb + e] != gen:
                stamp[STAMPS_CROSSED * nb + e] = gen
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
    forb = STAMPS_PASSED * nb
    mark = gen + 1
    stamp[start] = mark
    queue[0] = start
    head, tail = 0, 1
    while head < tail:
        b = queue[head]
        head += 1
        for k in range(LINK_ROW * b, LINK_ROW * (b + 1), LINK_PAIR):
            o = links[k + LINK_BLOCK]
            if o >= 0 and stamp[o] != mark and stamp[forb + links[k + LINK_EDGE]] != gen:
                stamp[o] = mark
                queue[tail] = o
                tail += 1
    return tail


@njit(cache=True, inline="always")
def row_fill(x, o, hc):
    """Blocks of one row reached from x (bit mask) over open right edges o (bit c: c joins c + 1)."""
    # Up (to higher bits) by one addition: a carry started at each bit of x runs through the bits of
    # m = x | (may be entered from c - 1); the bits it flips that may be entered are reached.
    m = o << 1
    a = x | m
    g = x | ((a ^ (a + x)) & m)
    p = o  # bit c may be entered from c + 1
    s = 1
    while s < hc:
        g |= p & (g >> s)
        p &= p >> s
        s <<= 1
    return g


@njit(cache=True, inline="always")
def reach_all(X, b):
    """Blocks reached from block b over the open edges of the open rows (`open_rows`; into `reached`): all of them?

    Rows fill by a carry and shifts within a row; the open down edges carry the set on to the rows
    above and below. Rows that grew wait in a bit mask (lowest first) until their neighbours are
    looked at, so a row is filled again only when it gains blocks and the fill stops at the fixpoint.
    """
    hr, hc = X[X_BLOCK_ROWS], X[X_BLOCK_COLS]
    openr, opend = X[X_OPEN_ROWS] + OPEN_RIGHT_ROW * hr, X[X_OPEN_ROWS] + OPEN_DOWN_ROW * hr
    reach = X[X_REACHED]
    X[reach:reach + hr] = 0
    r0 = b // hc
    X[reach + r0] = row_fill(np.int64(1) << (b - r0 * hc), X[openr + r0], hc)
    pending = np.int64(1) << r0
    while pending != 0:
        r = trailing_zeros(pending)
        pending &= pending - 1
        g = X[reach + r]
        if r + 1 < hr:
            gain = g & X[opend + r] & ~X[reach + r + 1]
            if gain != 0:
                X[reach + r + 1] = row_fill(X[reach + r + 1] | gain, X[openr + r + 1], hc)
                pending |= np.int64(1) << (r + 1)
        if r > 0:
            gain = g & X[opend + r - 1] & ~X[reach + r - 1]
            if gain != 0:
                X[reach + r - 1] = row_fill(X[reach + r - 1] | gain, X[openr + r - 1], hc)
                pending |= np.int64(1) << (r - 1)
    full = (np.int64(1) << hc) - 1
    for r in range(hr):
        if X[reach + r] != full:
            return False
    return True


@njit(cache=True, inline="always")
def on_some_outline_rows(blk, side, stamp, gen, nb, X, win, m):
    """`on_some_outline` on one 64-bit mask per row of blocks; reached blocks go to X's REACH rows.

    Blocks seen and crossed edges use the stamps `gen`; passed-along edges clear
    bits of the open-edge rows; the reached set grows by row fills (shifts within
    a row) and by the open down edges, sweeping down and up until it stops changing.
    """
    hr = X[X_BLOCK_ROWS]
    words = X[X_OPEN_ROWS]  # the open rows' 2hr words, as `side_word` numbers them
    openr, opend = words + OPEN_RIGHT_ROW * hr, words + OPEN_DOWN_ROW * hr
    X[openr:openr + hr] = X[X[X_RIGHT_EDGES]:X[X_RIGHT_EDGES] + hr]
    X[opend:opend + hr] = X[X[X_DOWN_EDGES]:X[X_DOWN_EDGES] + hr]
    pword, pbit = X[X_SIDE_WORD], X[X_SIDE_BIT]
    b = blk[win[WALK_START]]
    stamp[b] = gen
    seen_blocks = 1
    crossed = 0
    for i in range(1, m):
        b2 = blk[win[i]]
        if b2 == b:
            c = win[i - 1]
            bit = X[pbit + c]
            if bit != 0:
                X[words + X[pword + c]] &= ~bit
        else:
            e = side[win[i - 1]]
            if stamp[b2] != gen:
                stamp[b2] = gen
                seen_blocks += 1
            if stamp[STAMPS_CROSSED * nb + e] != gen:
                stamp[STAMPS_CROSSED * nb + e] = gen
                crossed += 1
            b = b2
    everything = reach_all(X, b)  # also when the forest test fails: a detour needs the reached blocks
    return crossed == seen_blocks - 1 and everything


@compiled_only
def walk_at_apple(body, st, vpath, total, path, steps, win):
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


@compiled_only
def suffix_tables(X, blk, side, body, st):
    """Once per search, at its first test: what every tail-end cut of the body holds, for `suffix_test`.

    Walking the body from the head back, position p (0 = tail): DB[p] distinct
    blocks and DX[p] distinct crossed edges of body[p:]; LASTB / LASTX the last
    position of each block / crossing; LISTE the passed-along edges by last
    position, latest first (LISTP), so the edges body[f:] passes along are a
    prefix of that list. SUFR holds the open rows of the suffix cut so far (K
    list entries closed), starting from the empty suffix.
    """
    n = body.shape[0]
    hr = X[X_BLOCK_ROWS]
    X[X_SEARCH_ID] += 1
    base = X[X_SEARCH_ID] * POS_SPAN
    lastb = X[X_LAST_BLOCK_POS]
    lastx = X[X_LAST_CROSS_POS]
    lastp = X[X_LAST_PASS_POS]
    db = X[X_SUFFIX_BLOCKS]
    dx = X[X_SUFFIX_CROSSED]
    liste, listp = X[X_PASSED_CELLS], X[X_PASSED_POS]
    length = st.length
    blocks = 0
    crossed = 0
    k = 0
    i = st.tail_i + length - 1
    if i >= n:
        i -= n
    nxt = -1
    for p in range(length - 1, -1, -1):
        c = body[i]
        b = blk[c]
        if X[lastb + b] < base:
            X[lastb + b] = base + p
            blocks += 1
        if nxt >= 0:
            e = side[c]
            if blk[nxt] == b:
                if e >= 0 and X[lastp + e] < base:
                    X[lastp + e] = base + p
                    X[liste + k] = c  # the cell whose side is passed along: its row word and bit
                    X[listp + k] = p
                    k += 1
            elif X[lastx + e] < base:
                X[lastx + e] = base + p
                crossed += 1
        X[db + p] = blocks
        X[dx + p] = crossed
        nxt = c
        i -= 1
        if i < 0:
            i = n - 1
    X[X_PASSED_COUNT] = k
    X[X_SUFFIX_CLOSED] = 0
    sufr, sufd = X[X_SUFFIX_ROWS] + OPEN_RIGHT_ROW * hr, X[X_SUFFIX_ROWS] + OPEN_DOWN_ROW * hr
    X[sufr:sufr + hr] = X[X[X_RIGHT_EDGES]:X[X_RIGHT_EDGES] + hr]
    X[sufd:sufd + hr] = X[X[X_DOWN_EDGES]:X[X_DOWN_EDGES] + hr]


@njit(cache=True, inline="always")
def close_edge(X, rows, c, closing):
    """Close (or open again) the block edge along cell c's side in the row words at `rows`."""
    w = rows + X[X[X_SIDE_WORD] + c]
    if closing:
        X[w] &= ~X[X[X_SIDE_BIT] + c]
    else:
        X[w] |= X[X[X_SIDE_BIT] + c]


@compiled_only
def suffix_test(X, blk, side, stamp, gen, nb, body, st, vpath, total, path, steps):
    """`on_some_outline_rows` of the body at the apple, from `suffix_tables` (same answer, same REACH).

    The window is body[f:] ++ vpath[:total] ++ path[:steps] cut to its last length+1
    cells (f = total + steps - 1). The body part comes from the tables (O(1), and
    O(change of f) for its open rows); only the plan part is walked. The tables are made at the
    search's first test (X_SUFFIX_MADE; many searches test nothing: their first leg finds no path).
    """
    if X[X_SUFFIX_MADE] == 0:
        suffix_tables(X, blk, side, body, st)
        X[X_SUFFIX_MADE] = 1
    n = body.shape[0]
    hr = X[X_BLOCK_ROWS]
    length = st.length
    f = total + steps - 1
    base = X[X_SEARCH_ID] * POS_SPAN
    sufr = X[X_SUFFIX_ROWS]
    # Open rows of body[f:]: the passed-along edges of the list with last position >= f are closed.
    k = X[X_SUFFIX_CLOSED]
    listp, liste = X[X_PASSED_POS], X[X_PASSED_CELLS]
    while k < X[X_PASSED_COUNT] and X[listp + k] >= f:
        close_edge(X, sufr, X[liste + k], True)
        k += 1
    while k > 0 and X[listp + k - 1] < f:
        k -= 1
        close_edge(X, sufr, X[liste + k], False)
    X[X_SUFFIX_CLOSED] = k
    words = X[X_OPEN_ROWS]
    X[words:words + OPEN_ROWS * hr] = X[sufr:sufr + OPEN_ROWS * hr]
    if f < length:
        seen_blocks, crossed = X[X[X_SUFFIX_BLOCKS] + f], X[X[X_SUFFIX_CROSSED] + f]
        i = st.tail_i + length - 1
        if i >= n:
            i -= n
        prev = body[i]  # the head: its move into the plan is in the window
        q0 = length
    else:
        seen_blocks, crossed = 0, 0
        prev = -1
        q0 = f
    lastb, lastx = X[X_LAST_BLOCK_POS], X[X_LAST_CROSS_POS]
    floor = base + f
    for q in range(q0, length + total + steps):
        j = q - length
        c = vpath[j] if j < total else path[j - total]
        b = blk[c]
        if X[lastb + b] < floor and stamp[b] != gen:
            stamp[b] = gen
            seen_blocks += 1
        if prev >= 0:
            if blk[prev] == b:
                if X[X[X_SIDE_BIT] + prev] != 0:
                    close_edge(X, words, prev, True)
            else:
                e = side[prev]
                if X[lastx + e] < floor and stamp[STAMPS_CROSSED * nb + e] != gen:
                    stamp[STAMPS_CROSSED * nb + e] = gen
                    crossed += 1
        prev = c
    everything = reach_all(X, blk[prev])
    return crossed == seen_blocks - 1 and everything


@njit(cache=True, inline="always")
def apple_test_with(big_board_test, I, L, X, body, st, vpath, total, path, steps, win):
    """The outline test of the body at the apple (body ++ vpath[:total] ++ path[:steps]): on single-word
    masks by walking the window (cell's way, boards of at most BITS_BLOCKS blocks), else
    `big_board_test`.
    Returns (passes, the reached blocks of the single-word masks, the stamp generation).

    Inlined where it runs per search node or leg (`snug.enumerate_routes`, the detour chain); the snug
    legs and routes, which run it once a plan, call `plan_test`."""
    n = body.shape[0]
    nb = n // 4
    blk, side, stamp = segment(I, I_BLOCK_OF, n), segment(I, I_SIDE_EDGE, n), segment(I, I_STAMPS, STAMP_ROWS * nb)
    gen = next_generation(L, stamp)
    reached = np.int64(0)
    if X[X_PARAMS + P_ROWS] != ROWS_SUFFIX and L[L_OPEN_RIGHT_MASK] >= 0:
        m = walk_at_apple(body, st, vpath, total, path, steps, win)
        ok, reached = on_some_outline_bits(blk, side, stamp, gen, nb, L[L_COLS] // 2, L[L_OPEN_RIGHT_MASK],
                                           L[L_OPEN_DOWN_MASK], win, m)
        return ok, reached, gen
    return big_board_test(I, X, blk, side, stamp, gen, nb, body, st, vpath, total, path, steps, win), reached, gen


@compiled_only
def big_board_test(I, X, blk, side, stamp, gen, nb, body, st, vpath, total, path, steps, win):
    """The forms of the test without single-word masks: from the suffix tables (`suffix_test`), else
    walking the window on row masks (`on_some_outline_rows`) or by the queue BFS (`on_some_outline`).

    A compiled call, not inlined: `apple_test_with` is inlined in three places of grove's kernels (the
    detour chain, the branch and bound, `plan_test`), and each inlined copy of these three tests was
    typed, lowered and optimised again (grove's play kernel -14 % cold, docs/performance.md)."""
    if X[X_PARAMS + P_ROWS] == ROWS_SUFFIX:
        return suffix_test(X, blk, side, stamp, gen, nb, body, st, vpath, total, path, steps)
    m = walk_at_apple(body, st, vpath, total, path, steps, win)
    if X[X_PARAMS + P_ROWS] != 0:
        return on_some_outline_rows(blk, side, stamp, gen, nb, X, win, m)
    links, queue = segment(I, I_BLOCK_LINKS, LINK_ROW * nb), segment(I, I_BLOCK_QUEUE, nb)
    return on_some_outline(blk, side, links, stamp, queue, gen, nb, win, m)


# The searches call the big-board test through this (`link`): compiled once a process, not linked into
# (and optimised again in) every function that tests a plan.
BIG_BOARD_TEST = ("fastsnake_celltree_big_board_test_v1", big_board_test,
                  BOOL(I32, I64, I32, I32, I32, INT32, INT, I32, STATE, I32, INT, I32, INT, I32))
call_big_board_test = symbol_call(*BIG_BOARD_TEST)


@njit(cache=True, inline="always")
def apple_test(I, L, X, body, st, vpath, total, path, steps, win):
    """`apple_test_with` every form of the test."""
    return apple_test_with(call_big_board_test, I, L, X, body, st, vpath, total, path, steps, win)


@compiled_only
def plan_test(I, L, X, body, st, vpath, total, path, steps, win):
    """`apple_test` as a compiled call, for the callers that run it once a plan: inlined, its three
    outline tests are typed again at each call site (seconds of every cold compile). Callers pass
    the counts as int64 (a literal 0 would make another specialisation)."""
    return apple_test(I, L, X, body, st, vpath, total, path, steps, win)


PLAN_TEST = ("fastsnake_celltree_plan_test_v1", plan_test,
             types.Tuple((BOOL, INT, INT32))(I32, I64, I64, I32, STATE, I32, INT, I32, INT, I32), (BIG_BOARD_TEST,))
call_plan_test = symbol_call(*PLAN_TEST)


@njit(cache=True, inline="always")
def next_generation(L, stamp):
    """The next stamp generation of I's stamps segment (two a search; wraps by clearing them)."""
    L[L_STAMP_GEN] += 2
    if L[L_STAMP_GEN] >= 2**31 - 4:
        stamp[:] = 0
        L[L_STAMP_GEN] = 2
    return np.int32(L[L_STAMP_GEN])
