"""`grove`: the cell-tree agent, choosing snug routes among those that keep a Hamiltonian escape.

`cell`'s search and guarantee: right-hand paths in 2×2 blocks; a plan is committed only if
it is legal move by move against the moving tail and the body it leaves when the apple is
eaten lies on the outline of some spanning tree of the blocks (a Hamiltonian cycle); else
a detour chain through the cut-off blocks; with no such plan the snake walks an outline.
`grove` only chooses differently among plans that pass the same tests:

- the snuggest shortest path: among shortest routes that pass, the one with the most sides
  against the border, the body still there at the apple (and, on small boards, itself):
  a branch and bound (`_enumerate`, ``budget`` nodes) on boards of at most 63 blocks, which
  also takes passing routes shorter than the detour chain; one A* (`_snug`) above;
- on boards of more than 63 blocks: snug legs in detour chains (``snug_chain``), 32 detour
  rounds (``detours``), the outline walk over the shortest of 13 spanning trees
  (``outline``), re-searched every 4th move (``research_every``; detour-chain plans every 8th);
- kernels: the outline test on row masks with per-search suffix tables, detour targets from
  a by-distance cell order, and an A* specialised to right-hand moves (`_fast_leg`).

Guarantee (both tail rules, any start length): `cell`'s; the game is won in fewer than N²/2
moves. Needs even rows and cols. With ``budget=0 detours=8 outline=0 research_every=8`` it plays
`cell`'s games move for move (tested). Options: ``detours``, ``research_every`` as for `cell`
(on boards of more than 63 blocks outline walks default to every 4th move); ``budget``,
``ties`` (0: only shorter than the detour chain, 1: that and the snuggest shortest path, 2:
only the latter), ``snug`` (0: branch and bound, 1: A*), ``snug_chain``, ``snug_self``,
``outline``; re-searches: ``backoff`` (wait twice as long after each re-search that found
nothing shorter, up to ``research_every × backoff`` moves), ``backoff_on``, ``research_detours``,
``research_rounds``, ``walk_rounds``. Defaults and measurements: the constants below and
docs/agents.md.
"""

import dataclasses

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros

from fastsnake.search.heap import heap_pop, heap_push
from fastsnake.snake.board import CFG_COLS, CFG_ROWS, TAIL_FOLLOW, BoardError
from fastsnake.snake.engine import G_BODY, play_recorded, sweep_chunk
from fastsnake.snake.policies import EnginePolicy, PolicyError
from fastsnake.snake.policies.cell import (
    BITS_BLOCKS,
    DETOUR_ROUNDS,
    DIST_TABLE_CELLS,
    L_AGEN,
    L_HEAP,
    M_APPLE,
    M_AVOID,
    M_BASE,
    M_COLS,
    M_DETOUR,
    M_DIRECT,
    M_LEN,
    M_MOVES,
    M_OBENT,
    M_OEDGE,
    M_OENT,
    M_OPEN_H,
    M_OPEN_V,
    M_PARAMS,
    M_POS,
    M_RESEARCH,
    M_ROWS,
    M_TAIL,
    O_ACLOSED,
    O_AG,
    O_AOPEN,
    O_APARENT,
    O_APATH,
    O_BITS,
    O_BLK,
    O_DIST,
    O_END,
    O_LINKS,
    O_NBR2,
    O_PLAN,
    O_QUEUE,
    O_SIDE,
    O_STAMP,
    O_TRY,
    O_VPATH,
    O_WIN,
    P_BITS,
    P_EVERY,
    P_ROUNDS,
    P_TABLE,
    RESEARCH_EVERY,
    W_I,
    W_L,
    WALK_START,
    _count_option,
    _distance,
    _distances_to,
    _has_table,
    _next_gen,
    _outline_plan,
    _passable,
    _seg,
    _set_edge,
    _stamp_head,
    _stamp_virtual,
    _to_moves,
    _undo_virtual,
    _walk_at_apple,
    on_some_outline,
    on_some_outline_bits,
    seed_tree,
)
from fastsnake.snake.policies.cell import (
    _alloc as _cell_alloc,
)
from fastsnake.snake.policies.cell import (
    _cells as _cell_cells,
)
from fastsnake.snake.policies.cell import (
    _reset as _cell_reset,
)

# Parameters (int64 array): cell's four (detour rounds, re-search interval, distance table,
# single-word bit masks), then the outline test on row masks for bigger boards.
(P_ROWS, P_BACKOFF, P_BUDGET, P_TIES, P_SNUG, P_CHAIN, P_OUTLINE, P_SNUGCHAIN, P_SELFK, P_RROUNDS, P_WROUNDS,
 P_BOWHICH) = range(P_BITS + 1, P_BITS + 13)
P_COUNT = P_BOWHICH + 1
# The workspace tuple: cell's I and L, then X and the by-distance order.
W_X, W_ORDER = W_L + 1, W_L + 2
# The third workspace array X (int64): header, then per row of blocks the masks of blocks with a
# right / lower neighbour, their copies with the passed-along edges cleared, and the reached blocks.
(X_ROWS, X_HR, X_HC, X_BACKOFF, X_NEXT, X_GAP, X_RIGHT, X_DOWN, X_OPENR, X_OPEND, X_REACH, X_PWORD, X_PBIT,
 X_SID, X_K, X_NLIST, X_LASTB, X_LASTX, X_LASTP, X_LISTE, X_LISTP, X_DB, X_DX, X_SUFR, X_BUDGET, X_ONPATH, X_DCELL,
 X_DCH, X_TIES, X_SNUG, X_CHAIN, X_MV, X_OUTLINE, X_PAR, X_Q2, X_LEG, X_LBASE, X_LHEAP, X_SNUGCHAIN, X_SELFK,
 X_RROUNDS, X_WROUNDS, X_BOWHICH, X_CROW, X_CBIT, X_TABLED, X_END) = range(47)
# Body positions in the LAST* entries: search id * POS_SPAN + position (older searches compare smaller).
POS_SPAN = 1 << 21
_X_HEADER = X_END + 1
# Row masks hold one row of blocks in a 64-bit word (bit 63 stays clear: arithmetic shifts).
ROW_BLOCKS = 63
# P_ROWS: 0 no row masks, 1 row masks over a walk of the window (as cell walks), 2 the body part from
# per-search suffix tables (`_suffix_test`).
ROWS_WALKED, ROWS_SUFFIX = 1, 2
# The branch and bound (`_enumerate`): nodes per search, and what it looks for (P_TIES). TIES_OFF: only
# a plan shorter than the detour chain's; TIES_BOTH: that, and among shortest paths the snuggest
# (`_hug`); TIES_ONLY: only the snuggest shortest path (the detour chain's plan is kept). Defaults:
# boards of at most SMALL_BLOCKS blocks: BUDGET, TIES_BOTH (10x10, 2,000 games: 1021.9 -> 991.4);
# bigger boards: BUDGET_BIG, TIES_ONLY (shorter-than-the-chain plans made 20x20 and 30x30 longer:
# 30x30 40 games, budget 2,000: 48,202; TIES_ONLY: 45,406 against 46,317).
BUDGET, BUDGET_BIG = 2000, 10_000
SMALL_BLOCKS = BITS_BLOCKS
TIES_OFF, TIES_BOTH, TIES_ONLY = range(3)
# How the snuggest shortest path is looked for (P_SNUG): SNUG_ENUMERATE, the branch and bound; SNUG_ASTAR,
# one A* on the cost 5 - sides per cell (`_snug`).
SNUG_ENUMERATE, SNUG_ASTAR = range(2)
# The leg table (`_leg_table`, LEG_SLOTS a cell): the cell's move within its block, its move across its
# side (-1: the border), the block that move enters and the block edge it crosses.
LEG_IN, LEG_OUT, LEG_OUTBLK, LEG_EDGE = range(4)
LEG_SLOTS = LEG_EDGE + 1
# Heap keys: the legs' (f, h, cell) packed as cell's A* packs them; the snug A*'s (cost + h, cell).
KEY_CELL_BITS = 21
KEY_CELL_MASK = (1 << KEY_CELL_BITS) - 1
KEY_F_SHIFT = 2 * KEY_CELL_BITS
# M_RESEARCH of an outline walk (a detour chain's plan has 1, a shortest path 0).
RESEARCH_WALK = 2
# Detour rounds per search on boards of more than SMALL_BLOCKS blocks (smaller: cell's DETOUR_ROUNDS).
# 30x30, budget 10,000, seeds 0 / 1 (100 games): 8 rounds 45,769 / 46,162, 32 rounds 45,308 / 45,726
# (games per CPU-s 5.3 -> 4.0); 16: 45,564 (seed 0); 64: 45,652 (seed 0).
DETOUR_ROUNDS_BIG = 32
# The outline-walk fallback (P_OUTLINE, option ``outline``): OUTLINE_CELL cell's tree (`_outline_plan`);
# k >= 1: the shortest walk to the apple over 4(k+1) breadth-first trees (`_tree`: 4 direction orders, each
# also with a shortest path of free blocks to the apple's block from the 1st..k-th body block) and the
# tree grown while walking (`_tree_greedy`); 1000 + k: the first k of those and the greedy one.
# 30x30 (budget 10,000, 32 detour rounds): seeds 0 / 1 (100 games) / 2 (200 games): cell's tree
# 45,308 / 45,726 / -; 2: 45,303 / 45,309 / 45,165 (base, 8 rounds and cell's tree: 45,769 / 46,162 / 45,966).
OUTLINE_CELL, OUTLINE_BIG = 0, 2
# Snug legs in the detour chain (P_SNUGCHAIN, option ``snug_chain``, bits): SNUG_CHAIN_APPLE the final leg to
# the apple is the snuggest shortest one from the last detour target (`_snug_astar`, sides against the body
# still there when the apple is eaten), if it passes the outline test (else the plain leg); SNUG_CHAIN_DETOUR
# the legs to the detour targets are the snuggest shortest ones (sides against the body still there at the
# estimated apple time: the leg's end + right-hand distance to the apple).
# Default on boards of more than 63 blocks: both (smaller boards, or budget 0: off). 30x30 (budget 10,000), 100 games,
# seeds 0 / 1 / 2 / 3 / 4 / 5: off 45,094 / 45,639 / 45,442 / 45,423 / 45,153 / 45,396 (mean 45,358); 1: 45,020 /
# 45,423; 2: 45,211 / 45,406; 3: 44,931 / 45,172 / 44,916 / 45,172 / 44,737 / 44,993 (mean 44,987; games per
# CPU-s 5.8 -> 5.5); 7: 44,826 / 45,101 / 45,300 / 45,169. 10x10 (2,000 games, seed 0) with 3: 990.8 (off: 991.4).
# SNUG_CHAIN_LEG_END (with SNUG_CHAIN_DETOUR): the body still there at the detour leg's end instead.
SNUG_CHAIN_APPLE, SNUG_CHAIN_DETOUR, SNUG_CHAIN_LEG_END = 1, 2, 4
SNUG_CHAIN_BIG = 3
# Self contact in `_snug_astar` (P_SELFK, option ``snug_self``): sides against the route's own cells up to
# this many parent links back (0: off). 30x30 with snug_chain 3, seeds 0-5: 20: 45,083 / 44,716 / 44,954 / 45,200 /
# 44,957 / 44,547 (mean 44,910, 5.0 games per CPU-s); 4: 44,910 / 44,928 / 45,529 / 45,281 / 44,818 / 44,797 (mean
# 45,044); without snug_chain, 20: 45,294 / 45,278 (seeds 0 / 1). Within the noise: off.
SNUG_SELF_DEFAULT = 0
# Re-searches on boards of more than SMALL_BLOCKS blocks (options ``backoff``, ``walk_rounds``: detour
# rounds of a re-search of an outline walk, -1: as ``detours``; ``research_rounds``: of a detour chain's plan).
# Most of the time goes into re-searching outline walks. 30x30, seeds 0-9, 100 games each, mean (games per
# CPU-s): backoff 1, walk_rounds 32: 44,972 (7.1); backoff 2: 45,036 (10.1); backoff 4, walk_rounds 16:
# 45,200 (13.3). The strongest is the default; docs/agents.md has the rest of what was tried.
BACKOFF_BIG, WALK_ROUNDS_BIG, RESEARCH_ROUNDS_BIG = 1, -1, -1
# Outline walks are re-searched every WALK_EVERY_BIG moves on boards of more than SMALL_BLOCKS blocks (option
# ``research_every``; detour chains' plans stay at RESEARCH_EVERY, option ``research_detours``): a walk's
# re-search gains about 9 moves a search, a chain plan's well under 1. 30x30, seeds 0-9 and 10-19 (100
# games each): every 8: 44,972 / 45,047; every 4: 44,851 / 44,985 (games per CPU-s 8.4 -> 7.1). Fewer chain
# re-searches to pay for it (research_rounds=0: 45,351; backoff 4 on chain plans: 45,158, seeds 0-9) lose more.
WALK_EVERY_BIG = 4


@njit(cache=True)
def _alloc(cfg, nbr, params):
    I0, L = _cell_alloc(cfg, nbr, params[:P_ROWS])
    hr, hc = cfg[CFG_ROWS] // 2, cfg[CFG_COLS] // 2
    n = cfg[CFG_ROWS] * cfg[CFG_COLS]
    nb = hr * hc
    # cell's I, then the legs' part (`_fast_leg`): the leg table, stamps and parents.
    I = np.zeros(I0.shape[0] + LEG_SLOTS * n + 2 * n, np.int32)
    I[:I0.shape[0]] = I0
    X = np.zeros(_X_HEADER + 7 * hr + 15 * n + 11 * nb + 12, np.int64)
    X[X_LEG] = I0.shape[0]
    _leg_table(I, n, I[X[X_LEG]:X[X_LEG] + LEG_SLOTS * n])
    X[X_SNUGCHAIN] = params[P_SNUGCHAIN]
    X[X_SELFK] = params[P_SELFK]
    X[X_OUTLINE] = params[P_OUTLINE]
    X[X_ROWS] = params[P_ROWS]
    X[X_BACKOFF] = params[P_BACKOFF]
    X[X_BUDGET] = params[P_BUDGET]
    X[X_TIES] = params[P_TIES]
    X[X_SNUG] = params[P_SNUG]
    X[X_CHAIN] = params[P_CHAIN]
    X[X_RROUNDS] = params[P_RROUNDS]
    X[X_WROUNDS] = params[P_WROUNDS]
    X[X_BOWHICH] = params[P_BOWHICH]
    X[X_HR] = hr
    X[X_HC] = hc
    at = _X_HEADER
    for k, size in ((X_RIGHT, hr), (X_DOWN, hr), (X_OPENR, hr), (X_OPEND, hr), (X_REACH, hr), (X_PWORD, n),
                    (X_PBIT, n), (X_LASTB, nb), (X_LASTX, 2 * nb), (X_LASTP, 2 * nb), (X_LISTE, 2 * nb),
                    (X_LISTP, 2 * nb), (X_DB, n), (X_DX, n), (X_SUFR, 2 * hr), (X_ONPATH, n), (X_DCELL, n + 2),
                    (X_DCH, 2 * n + 4), (X_MV, n), (X_PAR, nb), (X_Q2, nb),
                    (X_LHEAP, 4 * n + 4), (X_CROW, n), (X_CBIT, n)):
        X[k] = at
        at += size
    X[X_END] = at
    table = I[O_END] > I[O_DIST]
    order = np.empty(n * n if table else 0, np.int16)
    if table:
        distance_order(I, n, cfg[CFG_COLS], order)
    if params[P_ROWS] != 0:
        full = (np.int64(1) << hc) - 1
        for r in range(hr):
            X[X[X_RIGHT] + r] = full >> 1
            X[X[X_DOWN] + r] = full if r + 1 < hr else 0
        # A move along the side of cell c closes one bit of the open rows (right edges, then down edges).
        side = I[I[O_SIDE]:I[O_SIDE] + n]
        blk = I[I[O_BLK]:I[O_BLK] + n]
        for c in range(n):
            # The row of blocks of cell c and its block's bit there (the detour scan reads REACH by them).
            X[X[X_CROW] + c] = blk[c] // hc
            X[X[X_CBIT] + c] = np.int64(1) << (blk[c] % hc)
            e = side[c]
            if e >= 0:
                eb = e >> 1
                X[X[X_PWORD] + c] = (e & 1) * hr + eb // hc
                X[X[X_PBIT] + c] = np.int64(1) << (eb % hc)
    return (I, L, X, order)


@njit(cache=True)
def _reset(ws, g):
    _cell_reset((ws[W_I], ws[W_L]), g)


@njit(cache=True)
def _cells(ws):
    return _cell_cells((ws[W_I], ws[W_L]))


@njit(cache=True, inline="always")
def _row_fill(x, o, hc):
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
def _reach_all(X, b):
    """Blocks reached from block b over the open edges of the OPENR/OPEND rows (into REACH): all of them?

    Rows fill by a carry and shifts within a row; the open down edges carry the set on to the rows
    above and below. Rows that grew wait in a bit mask (lowest first) until their neighbours are
    looked at, so a row is filled again only when it gains blocks and the fill stops at the fixpoint.
    """
    hr, hc = X[X_HR], X[X_HC]
    openr, opend, reach = X[X_OPENR], X[X_OPEND], X[X_REACH]
    X[reach:reach + hr] = 0
    r0 = b // hc
    X[reach + r0] = _row_fill(np.int64(1) << (b - r0 * hc), X[openr + r0], hc)
    pending = np.int64(1) << r0
    while pending != 0:
        r = trailing_zeros(pending)
        pending &= pending - 1
        g = X[reach + r]
        if r + 1 < hr:
            gain = g & X[opend + r] & ~X[reach + r + 1]
            if gain != 0:
                X[reach + r + 1] = _row_fill(X[reach + r + 1] | gain, X[openr + r + 1], hc)
                pending |= np.int64(1) << (r + 1)
        if r > 0:
            gain = g & X[opend + r - 1] & ~X[reach + r - 1]
            if gain != 0:
                X[reach + r - 1] = _row_fill(X[reach + r - 1] | gain, X[openr + r - 1], hc)
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
    hr = X[X_HR]
    openr, opend = X[X_OPENR], X[X_OPEND]
    X[openr:openr + hr] = X[X[X_RIGHT]:X[X_RIGHT] + hr]
    X[opend:opend + hr] = X[X[X_DOWN]:X[X_DOWN] + hr]
    pword, pbit = X[X_PWORD], X[X_PBIT]
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
                X[openr + X[pword + c]] &= ~bit  # opend follows openr
        else:
            e = side[win[i - 1]]
            if stamp[b2] != gen:
                stamp[b2] = gen
                seen_blocks += 1
            if stamp[nb + e] != gen:
                stamp[nb + e] = gen
                crossed += 1
            b = b2
    everything = _reach_all(X, b)  # also when the forest test fails: a detour needs the reached blocks
    return crossed == seen_blocks - 1 and everything


@njit(cache=True, inline="always")
def _mirror(cols, cell):
    """The cell mirrored left to right: right-hand distance a -> b equals mirror(b) -> mirror(a)."""
    r = cell // cols
    return r * cols + cols - 1 - (cell - r * cols)


@njit(cache=True, inline="always")
def _cut_off(X, L, stamp, gen, hc, b, reached):
    """Is block b cut off from the walk's last block? (whichever outline test ran last)."""
    if L[M_OPEN_H] >= 0:
        return (reached >> b) & 1 == 0
    if X[X_ROWS] != 0:
        r = b // hc
        return (X[X[X_REACH] + r] >> (b - r * hc)) & 1 == 0
    return stamp[b] != gen + 1


@njit(cache=True, inline="always")
def _nearest_cut_off(order, L, X, stamp, gen, hc, n, cols, head, apple, reached):
    """The cell (not the apple, not the head) of a cut-off block nearest to the head by right-hand
    distance, ties to the smaller cell: what a scan over every cell finds (-1: none).

    With the distance table, `order` lists the cells by distance from the head (through the
    mirror: the row of mirror(head)), so the scan stops at the first cut-off cell.
    """
    cols2 = 2 * cols
    if order.shape[0] > 0 and X[X_ROWS] != 0 and L[M_OPEN_H] < 0:
        # Row masks: a cell's block is cut off when its bit is clear in its REACH row (per-cell row and bit,
        # no divisions).
        at = _mirror(cols, head) * n
        reach, crow, cbit = X[X_REACH], X[X_CROW], X[X_CBIT]
        for k in range(1, n):
            cell = np.int64(order[at + k])
            if X[reach + X[crow + cell]] & X[cbit + cell] == 0 and cell != apple:
                return cell
        return -1
    if order.shape[0] > 0:
        at = _mirror(cols, head) * n
        for k in range(1, n):  # k = 0: the head itself
            cell = np.int64(order[at + k])
            r = cell // cols2
            b = r * hc + (cell - r * cols2) % cols // 2
            if cell != apple and _cut_off(X, L, stamp, gen, hc, b, reached):
                return cell
        return -1
    best, best_d = -1, 1 << 30
    for b in range(n // 4):
        if not _cut_off(X, L, stamp, gen, hc, b, reached):
            continue
        top = (b // hc) * cols2 + (b % hc) * 2
        for cell in (top, top + 1, top + cols, top + cols + 1):
            if cell != apple:
                d = abs(head // cols - cell // cols) + abs(head % cols - cell % cols)
                if d > 0 and (d < best_d or (d == best_d and cell < best)):
                    best, best_d = cell, d
    return best


@njit(cache=True)
def distance_order(I, n, cols, out):
    """out[g*n:(g+1)*n]: the cells x in order of (right-hand distance mirror(g) -> x, x).

    Row g of the distance table holds distances to g; distance a -> b equals
    mirror(b) -> mirror(a), so sorting row g by (distance, mirror(cell)) and
    mirroring the cells lists them by distance from mirror(g).
    """
    keys = np.empty(n, np.int64)
    for g in range(n):
        row = I[I[O_DIST] + g * n:I[O_DIST] + (g + 1) * n]
        for c in range(n):
            keys[c] = np.int64(row[c]) * n + _mirror(cols, c)
        order = np.argsort(keys)
        for k in range(n):
            out[g * n + k] = _mirror(cols, order[k])


@njit(cache=True)
def _suffix_tables(X, blk, side, body, st):
    """Once per search, at its first test: what every tail-end cut of the body holds, for `_suffix_test`.

    Walking the body from the head back, position p (0 = tail): DB[p] distinct
    blocks and DX[p] distinct crossed edges of body[p:]; LASTB / LASTX the last
    position of each block / crossing; LISTE the passed-along edges by last
    position, latest first (LISTP), so the edges body[f:] passes along are a
    prefix of that list. SUFR holds the open rows of the suffix cut so far (K
    list entries closed), starting from the empty suffix.
    """
    n = body.shape[0]
    hr = X[X_HR]
    X[X_SID] += 1
    base = X[X_SID] * POS_SPAN
    lastb, lastx, lastp, db, dx = X[X_LASTB], X[X_LASTX], X[X_LASTP], X[X_DB], X[X_DX]
    liste, listp = X[X_LISTE], X[X_LISTP]
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
    X[X_NLIST] = k
    X[X_K] = 0
    X[X[X_SUFR]:X[X_SUFR] + hr] = X[X[X_RIGHT]:X[X_RIGHT] + hr]
    X[X[X_SUFR] + hr:X[X_SUFR] + 2 * hr] = X[X[X_DOWN]:X[X_DOWN] + hr]


@njit(cache=True, inline="always")
def _close(X, rows, c, closing):
    """Close (or open again) the block edge along cell c's side in the row words at `rows`."""
    w = rows + X[X[X_PWORD] + c]
    if closing:
        X[w] &= ~X[X[X_PBIT] + c]
    else:
        X[w] |= X[X[X_PBIT] + c]


@njit(cache=True)
def _suffix_test(X, blk, side, stamp, gen, nb, body, st, vpath, total, path, steps):
    """`on_some_outline_rows` of the body at the apple, from `_suffix_tables` (same answer, same REACH).

    The window is body[f:] ++ vpath[:total] ++ path[:steps] cut to its last length+1
    cells (f = total + steps - 1). The body part comes from the tables (O(1), and
    O(change of f) for its open rows); only the plan part is walked. The tables are made at the
    search's first test (X_TABLED; many searches test nothing: their first leg finds no path).
    """
    if X[X_TABLED] == 0:
        _suffix_tables(X, blk, side, body, st)
        X[X_TABLED] = 1
    n = body.shape[0]
    hr = X[X_HR]
    length = st.length
    f = total + steps - 1
    base = X[X_SID] * POS_SPAN
    sufr = X[X_SUFR]
    # Open rows of body[f:]: the passed-along edges of the list with last position >= f are closed.
    k = X[X_K]
    listp, liste = X[X_LISTP], X[X_LISTE]
    while k < X[X_NLIST] and X[listp + k] >= f:
        _close(X, sufr, X[liste + k], True)
        k += 1
    while k > 0 and X[listp + k - 1] < f:
        k -= 1
        _close(X, sufr, X[liste + k], False)
    X[X_K] = k
    openr = X[X_OPENR]
    X[openr:openr + 2 * hr] = X[sufr:sufr + 2 * hr]  # OPEND follows OPENR
    if f < length:
        seen_blocks, crossed = X[X[X_DB] + f], X[X[X_DX] + f]
        i = st.tail_i + length - 1
        if i >= n:
            i -= n
        prev = body[i]  # the head: its move into the plan is in the window
        q0 = length
    else:
        seen_blocks, crossed = 0, 0
        prev = -1
        q0 = f
    lastb, lastx = X[X_LASTB], X[X_LASTX]
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
                if X[X[X_PBIT] + prev] != 0:
                    _close(X, openr, prev, True)
            else:
                e = side[prev]
                if X[lastx + e] < floor and stamp[nb + e] != gen:
                    stamp[nb + e] = gen
                    crossed += 1
        prev = c
    everything = _reach_all(X, blk[prev])
    return crossed == seen_blocks - 1 and everything


@njit(cache=True, inline="always")
def _apple_test(I, L, X, body, st, vpath, total, path, steps, win):
    """The outline test of the body at the apple (body ++ vpath[:total] ++ path[:steps]): from the suffix
    tables (`_suffix_test`), else by walking the window (cell's way; the row masks on big boards).
    Returns (passes, the reached blocks of the single-word masks, the stamp generation)."""
    n = body.shape[0]
    nb = n // 4
    blk, side, stamp = _seg(I, O_BLK, n), _seg(I, O_SIDE, n), _seg(I, O_STAMP, 5 * nb)
    gen = _next_gen(L, stamp)
    reached = np.int64(0)
    if X[X_ROWS] == ROWS_SUFFIX:
        return _suffix_test(X, blk, side, stamp, gen, nb, body, st, vpath, total, path, steps), reached, gen
    m = _walk_at_apple(body, st, vpath, total, path, steps, win)
    if L[M_OPEN_H] >= 0:
        ok, reached = on_some_outline_bits(blk, side, stamp, gen, nb, L[M_COLS] // 2, L[M_OPEN_H], L[M_OPEN_V],
                                           win, m)
    elif X[X_ROWS] != 0:
        ok = on_some_outline_rows(blk, side, stamp, gen, nb, X, win, m)
    else:
        ok = on_some_outline(blk, side, _seg(I, O_LINKS, 8 * nb), stamp, _seg(I, O_QUEUE, nb), gen, nb, win, m)
    return ok, reached, gen


@njit(cache=True)
def _leg_table(I, n, out):
    """The two right-hand moves of every cell, with what `_passable` reads of a move across a side."""
    nbr2, blk, side = _seg(I, O_NBR2, 4 * n), _seg(I, O_BLK, n), _seg(I, O_SIDE, n)
    for u in range(n):
        at = LEG_SLOTS * u
        out[at + LEG_IN] = -1
        out[at + LEG_OUT] = -1
        out[at + LEG_OUTBLK] = -1
        out[at + LEG_EDGE] = -1
        for move in range(4):
            v = nbr2[4 * u + move]
            if v < 0:
                continue
            if blk[v] == blk[u]:
                out[at + LEG_IN] = v
            else:
                out[at + LEG_OUT] = v
                out[at + LEG_OUTBLK] = blk[v]
                out[at + LEG_EDGE] = side[u]


@njit(cache=True)
def _fast_leg(I, L, X, start, goal, limit):
    """cell's `_leg` (the same length, 0: none, and the same path in segment O_APATH), specialised.

    The same A* (keys (f, h, cell), a cell closed when first popped, a queued cell improved only by a
    smaller g, `_passable` at the move it is entered, nothing queued with f > limit, the heuristic the
    right-hand distance, Manhattan without the table), so the same cells are expanded in the same order.
    Faster: the two moves of a cell and what `_passable` reads of them come from the leg table, the L
    offsets, time base and cell to avoid are read once; one stamp per cell (stamp - base: g of a queued
    cell, 0 once closed; only the start has g = 0 and it is expanded before anything is queued); the
    heap in X; and the smallest queued key is held out of the heap (`top`) while it is the smallest, so
    a search running down one line of ties pushes and pops nothing.
    """
    cols = L[M_COLS]
    n = L[M_ROWS] * cols
    if start == goal:
        return 0
    legs = I[X[X_LEG]:X[X_LEG] + LEG_SLOTS * n + 2 * n]
    succ = legs[:LEG_SLOTS * n]
    stamp = legs[LEG_SLOTS * n:LEG_SLOTS * n + n]
    parent = legs[LEG_SLOTS * n + n:]
    heap = X[X[X_LHEAP]:X[X_LHEAP] + 4 * n + 4]
    table = _has_table(I)
    dist = I[I[O_DIST] + goal * n:I[O_DIST] + (goal + 1) * n] if table else I[0:0]
    gr, gc = goal // cols, goal % cols
    # Every g is below n, so the stamps of earlier searches are all below base.
    base = X[X_LBASE] + n + 1
    if base >= 2**31 - 2 * n - 2:
        stamp[:] = 0
        base = n + 1
    X[X_LBASE] = base
    tbase, avoid = L[M_BASE], L[M_AVOID]
    oent, obent, oedge = L[M_OENT], L[M_OBENT], L[M_OEDGE]
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
        # Expand u: its moves enter at move gu (`_passable` with times after tbase + gu).
        t = tbase + gu
        at = LEG_SLOTS * u
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
            path = _seg(I, O_APATH, n)
            v = u
            for j in range(g - 1, -1, -1):
                path[j] = v
                v = parent[v]
            return g
        gu = g + 1


@njit(cache=True, inline="always")
def _chain_moves(nbr2, start, vpath, total, head, path, steps, trial):
    """The moves of a chain's plan into trial: the detour legs start -> vpath[:total], then head -> path[:steps]."""
    _to_moves(nbr2, start, vpath, total, trial, 0)
    _to_moves(nbr2, head, path, steps, trial, total)


@njit(cache=True)
def _chain(I, L, X, order, body, st, bound, rounds):
    """cell's `_chain`: the same plan, with the row-mask outline test and the detour scan over cut-off blocks.

    Moves are made only for the plan returned (`_chain_moves`, from the cells in vpath and path).
    """
    n = body.shape[0]
    cols = L[M_COLS]
    hc = cols // 2
    nb = n // 4
    win, trial, vpath = _seg(I, O_WIN, 2 * n + 2), _seg(I, O_TRY, 2 * n + 2), _seg(I, O_VPATH, 2 * n + 2)
    nbr2, stamp, path = _seg(I, O_NBR2, 4 * n), _seg(I, O_STAMP, 5 * nb), _seg(I, O_APATH, n)
    slack = 1 if L[M_TAIL] == TAIL_FOLLOW else 2
    tail_time = st.moves - st.length + 1
    head = st.head
    total = 0
    for r in range(rounds + 1):
        L[M_DETOUR] = r
        # The tail has moved `total` cells along when this leg starts.
        L[M_BASE] = tail_time + total - slack
        L[M_AVOID] = -1
        steps = _fast_leg(I, L, X, head, st.apple, bound - total)
        if r == 0:
            L[M_DIRECT] = steps
        if steps == 0:
            return 0
        if st.length + 1 == n:
            _chain_moves(nbr2, st.head, vpath, total, head, path, steps, trial)
            return total + steps
        ok, reached, gen = _apple_test(I, L, X, body, st, vpath, total, path, steps, win)
        if ok:
            _chain_moves(nbr2, st.head, vpath, total, head, path, steps, trial)
            if r > 0 and X[X_SNUGCHAIN] & SNUG_CHAIN_APPLE:
                # The snuggest of the shortest legs from the last detour target, if it passes too.
                s2 = _snug_astar(I, L, X, head, st.apple, steps, L[M_BASE] + steps, X[X_SELFK])
                if s2 > 0 and _apple_test(I, L, X, body, st, vpath, total, path, s2, win)[0]:
                    _to_moves(nbr2, head, path, s2, trial, total)
                    return total + s2
            return total + steps
        if r == rounds:
            return 0
        # Detour: the free cell of a cut-off block nearest to the head (right-hand distance; ties to the
        # smaller cell, as a scan over all cells would find).
        best = _nearest_cut_off(order, L, X, stamp, gen, hc, n, cols, head, st.apple, reached)
        if best < 0:
            return 0
        L[M_AVOID] = st.apple
        steps1 = _fast_leg(I, L, X, head, best, bound - total - _distance(I, n, cols, best, st.apple))
        if steps1 == 0:
            return 0
        if X[X_SNUGCHAIN] & SNUG_CHAIN_DETOUR:
            ahead = 0 if X[X_SNUGCHAIN] & SNUG_CHAIN_LEG_END else _distance(I, n, cols, best, st.apple)
            # With none found, the snug A* leaves O_APATH alone: the plain leg stays.
            s1 = _snug_astar(I, L, X, head, best, steps1, L[M_BASE] + steps1 + ahead, X[X_SELFK])
            if s1 > 0:
                steps1 = s1
        _stamp_virtual(L, path, steps1, head, st.moves + total)
        vpath[total:total + steps1] = path[:steps1]
        total += steps1
        head = best
    return 0


@njit(cache=True)
def _search(I, L, X, order, body, st, bound, rounds):
    """cell's plan (shortest path, else the detour chain), then the branch and bound (`_enumerate`): when
    the chain detoured, a shorter plan that also ends on an outline (not with TIES_ONLY); when the shortest
    path passed, the snuggest shortest path that passes (TIES_BOTH, TIES_ONLY). A plan replaces the
    chain's only if it passes the same outline test, so the guarantee is cell's."""
    X[X_TABLED] = 0  # the suffix tables are made at the first `_suffix_test`
    steps = _chain(I, L, X, order, body, st, bound, rounds)
    _undo_virtual(L)
    if X[X_BUDGET] > 0 and L[M_DIRECT] > 0 and st.length + 1 < body.shape[0]:
        if (steps == 0 or L[M_DETOUR] > 0) and X[X_TIES] != TIES_ONLY:
            limit = steps - 1 if steps > 0 else bound
            found = _enumerate(I, L, X, body, st, limit)
            if found > 0:
                steps = found
                L[M_DETOUR] = 1  # may still be beaten once the tail has moved on
        elif X[X_TIES] != TIES_OFF and L[M_DETOUR] == 0:
            if X[X_SNUG] == SNUG_ASTAR:
                found = _snug(I, L, X, body, st, steps)
            else:
                found = _enumerate(I, L, X, body, st, steps)
            if found > 0:
                steps = found
    return steps


@njit(cache=True)
def _enumerate(I, L, X, body, st, limit):
    """Shortest simple right-hand path head -> apple of at most `limit` moves, legal against the moving tail
    (`_passable`, as the A* legs), whose body at the apple passes the outline test; with ties on, among
    paths of that length the snuggest (`_hug`). Depth first, the child nearer the apple first, bound = best
    so far - 1 (with ties: best so far), at most X[X_BUDGET] nodes. Moves into segment O_TRY; returns the
    length (0: none found, O_TRY untouched)."""
    n = body.shape[0]
    cols = L[M_COLS]
    nbr2 = _seg(I, O_NBR2, 4 * n)
    win, trial, vpath = _seg(I, O_WIN, 2 * n + 2), _seg(I, O_TRY, 2 * n + 2), _seg(I, O_VPATH, 2 * n + 2)
    onpath = X[X[X_ONPATH]:X[X_ONPATH] + n]
    dcell = X[X[X_DCELL]:X[X_DCELL] + n + 2]
    dch = X[X[X_DCH]:X[X_DCH] + 2 * n + 4]
    slack = 1 if L[M_TAIL] == TAIL_FOLLOW else 2
    L[M_BASE] = st.moves - st.length + 1 - slack
    L[M_AVOID] = -1
    apple = st.apple
    head = st.head
    if _distance(I, n, cols, head, apple) > limit:
        return 0
    best, best_score = 0, 0
    ties = X[X_TIES] != TIES_OFF
    budget = X[X_BUDGET]
    dcell[0] = head
    onpath[head] = 1
    _children(I, nbr2, n, cols, head, apple, dch, 0)
    d = 0
    while d >= 0:
        u = dcell[d]
        # dch[2d], dch[2d+1]: the children still to try at depth d (-1: done)
        v = dch[2 * d]
        if v < 0:
            v = dch[2 * d + 1]
            if v < 0:
                onpath[u] = 0
                d -= 1
                continue
            dch[2 * d + 1] = -1
        else:
            dch[2 * d] = -1
        gm = d + 1
        if onpath[v] != 0 or gm + _distance(I, n, cols, v, apple) > limit or not _passable(L, u, v, gm):
            continue
        if v == apple:
            dcell[gm] = v
            path = dcell[1:gm + 1]
            ok = _apple_test(I, L, X, body, st, vpath, 0, path, gm, win)[0]
            if ok:
                score = _hug(L, n, cols, onpath, path, gm) if ties else 0
                if best == 0 or gm < best or score > best_score:
                    best, best_score = gm, score
                    _to_moves(nbr2, head, path, gm, trial, 0)
                limit = gm if ties else gm - 1
            continue
        budget -= 1
        if budget < 0:
            break
        d = gm
        dcell[d] = v
        onpath[v] = 1
        _children(I, nbr2, n, cols, v, apple, dch, d)
    for j in range(d + 1):
        onpath[dcell[j]] = 0
    return best


@njit(cache=True)
def _snug_astar(I, L, X, start, goal, limit, until, selfk):
    """The snuggest time-aware right-hand path start -> goal of at most `limit` moves, with the times set in
    L (M_BASE, M_AVOID, virtual stamps): A* on the cost 5 - sides per cell entered, sides against the border
    or cells still occupied at move L[M_BASE]-relative `until` (entry time > until), and, with selfk > 0,
    against the route's own cells 3..selfk+1 moves back (its parent chain). Returns the number of moves (0:
    none); the cells entered are in segment O_APATH."""
    cols = L[M_COLS]
    n = L[M_ROWS] * cols
    rows = n // cols
    nbr2, path = _seg(I, O_NBR2, 4 * n), _seg(I, O_APATH, n)
    cost, parent, opened, closed = _seg(I, O_AG, n), _seg(I, O_APARENT, n), _seg(I, O_AOPEN, n), _seg(I, O_ACLOSED, n)
    moves = X[X[X_MV]:X[X_MV] + n]
    heap = L[L_HEAP:L_HEAP + 4 * n + 4]
    oent = L[M_OENT]
    dist = _distances_to(I, n, cols, goal)
    L[L_AGEN] += 1
    if L[L_AGEN] >= 2**31 - 1:
        opened[:] = 0
        closed[:] = 0
        L[L_AGEN] = 1
    gen = np.int32(L[L_AGEN])
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
            v = nbr2[u * 4 + k]
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
            if not _passable(L, u, v, t):
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


@njit(cache=True)
def _snug(I, L, X, body, st, limit):
    """The snuggest right-hand path head -> apple of at most `limit` moves (`limit`: the shortest path's
    length), legal against the moving tail (`_passable`, as the A* legs), whose body at the apple passes
    the outline test. A* on the cost 5 - sides per cell entered (sides against the border or the body
    still there when the apple is eaten, as `_hug` counts them without the route itself), over moves
    that can still reach the apple within the limit (`_snug_astar`). Moves into segment O_TRY; returns the
    length (0: none, or it fails the outline test; O_TRY untouched)."""
    n = body.shape[0]
    nbr2 = _seg(I, O_NBR2, 4 * n)
    win, trial, vpath, path = _seg(I, O_WIN, 2 * n + 2), _seg(I, O_TRY, 2 * n + 2), _seg(I, O_VPATH, 2 * n + 2), \
        _seg(I, O_APATH, n)
    slack = 1 if L[M_TAIL] == TAIL_FOLLOW else 2
    L[M_BASE] = st.moves - st.length + 1 - slack
    L[M_AVOID] = -1
    head = st.head
    steps = _snug_astar(I, L, X, head, st.apple, limit, L[M_BASE] + limit, X[X_SELFK])
    if steps == 0:
        return 0
    if not _apple_test(I, L, X, body, st, vpath, 0, path, steps, win)[0]:
        return 0
    _to_moves(nbr2, head, path, steps, trial, 0)
    return steps


@njit(cache=True, inline="always")
def _hug(L, n, cols, onpath, path, steps):
    """How snugly a plan lies: sides of its cells against the border, itself, or body still there when it eats."""
    rows = n // cols
    until = L[M_BASE] + steps
    oent = L[M_OENT]
    score = 0
    for j in range(steps):
        c = path[j]
        r, q = c // cols, c - (c // cols) * cols
        for dr, dq in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, qq = r + dr, q + dq
            if rr < 0 or rr >= rows or qq < 0 or qq >= cols:
                score += 1
            else:
                o = rr * cols + qq
                if onpath[o] != 0 or L[oent + o] > until:
                    score += 1
    return score


@njit(cache=True, inline="always")
def _children(I, nbr2, n, cols, u, apple, dch, d):
    """The two right-hand moves out of u, nearer to the apple first (-1: off the board)."""
    a, b = -1, -1
    for move in range(4):
        v = nbr2[u * 4 + move]
        if v >= 0:
            if a < 0:
                a = v
            else:
                b = v
    if b >= 0 and _distance(I, n, cols, b, apple) < _distance(I, n, cols, a, apple):
        a, b = b, a
    dch[2 * d] = a
    dch[2 * d + 1] = b


@njit(cache=True, inline="always")
def _every(L, X):
    """Moves between re-searches of the committed plan: an outline walk's, or a detour chain's."""
    return L[M_PARAMS + P_EVERY] if L[M_RESEARCH] == RESEARCH_WALK else X[X_CHAIN]


@njit(cache=True, inline="always")
def _nbr_block(b, d, hc, nb):
    """The block next to b in direction d (0 up, 1 right, 2 down, 3 left) and their edge; (-1, -1): none."""
    if d == 0:
        if b < hc:
            return -1, -1
        return b - hc, 2 * (b - hc) + 1
    if d == 1:
        if (b % hc) + 1 >= hc:
            return -1, -1
        return b + 1, 2 * b
    if d == 2:
        if b + hc >= nb:
            return -1, -1
        return b + hc, 2 * b + 1
    if b % hc == 0:
        return -1, -1
    return b - 1, 2 * (b - 1)


@njit(cache=True, inline="always")
def _outline_step(cols, hc, bits, cell):
    """The successor of `cell` on the outline of the tree `bits` (as `tree_outline_next`)."""
    r, c = cell // cols, cell % cols
    b = bits[(r // 2) * hc + c // 2]
    pr, pc = r % 2, c % 2
    if pr == 0 and pc == 0:
        return cell - 1 if b & 8 else cell + cols
    if pr == 1 and pc == 0:
        return cell + cols if b & 4 else cell + 1
    if pr == 1 and pc == 1:
        return cell + 1 if b & 2 else cell - cols
    return cell - cols if b & 1 else cell - 1


@njit(cache=True)
def _tree(I, L, X, body, st, variant):
    """A spanning tree of blocks through the body's crossings into O_BITS (as cell's `_outline_plan`).

    variant & 3 rotates the order of directions of the breadth-first growth; variant >> 2 = k > 0
    first joins the apple's block by a shortest path of blocks without body from the k-th block
    of the body (head first), if there is one.
    """
    cols = L[M_COLS]
    hc = cols // 2
    n = body.shape[0]
    nb = n // 4
    blk, side, stamp, queue = _seg(I, O_BLK, n), _seg(I, O_SIDE, n), _seg(I, O_STAMP, 5 * nb), _seg(I, O_QUEUE, nb)
    bits = _seg(I, O_BITS, nb)
    par = X[X[X_PAR]:X[X_PAR] + nb]
    gen = _next_gen(L, stamp)
    forb = 3 * nb
    rot = variant & 3
    tail, src = seed_tree(body, st, blk, side, stamp, queue, bits, gen, nb, hc, variant >> 2)
    ab = blk[st.apple]
    if src >= 0 and stamp[ab] != gen:
        # Breadth first from src over blocks without body (stamp gen + 1 marks them seen).
        mark = gen + 1
        par[ab] = -1
        q0 = tail
        qt = tail
        queue[qt] = src
        qt += 1
        found = False
        while q0 < qt and not found:
            b = queue[q0]
            q0 += 1
            for dd in range(4):
                o, e = _nbr_block(b, (dd + rot) & 3, hc, nb)
                if o < 0 or stamp[o] == gen or stamp[o] == mark or stamp[forb + e] == gen:
                    continue
                stamp[o] = mark
                par[o] = e
                queue[qt] = o
                qt += 1
                if o == ab:
                    found = True
                    break
        # Undo the marks, then join the path.
        for k in range(tail, qt):
            if stamp[queue[k]] == mark:
                stamp[queue[k]] = 0
        if found:
            b = ab
            while b != src:
                e = par[b]
                _set_edge(bits, e, hc)
                stamp[b] = gen
                queue[tail] = b
                tail += 1
                o1 = e >> 1
                o2 = o1 + (hc if e & 1 else 1)
                b = o1 if b == o2 else o2
    head = 0
    while head < tail:
        b = queue[head]
        head += 1
        for dd in range(4):
            o, e = _nbr_block(b, (dd + rot) & 3, hc, nb)
            if o < 0 or stamp[o] == gen or stamp[forb + e] == gen:
                continue
            stamp[o] = gen
            queue[tail] = o
            tail += 1
            _set_edge(bits, e, hc)


@njit(cache=True)
def _tree_greedy(I, L, X, body, st):
    """A spanning tree through the body's crossings built while walking its outline from the head: a free
    block is joined across the side the walk passes when it is nearer the apple's block (block distance over
    edges the body does not pass along), else that side stays closed; once at the apple the tree is
    completed breadth first (the closed sides last). Into O_BITS."""
    cols = L[M_COLS]
    hc = cols // 2
    n = body.shape[0]
    nb = n // 4
    blk, side, stamp, queue = _seg(I, O_BLK, n), _seg(I, O_SIDE, n), _seg(I, O_STAMP, 5 * nb), _seg(I, O_QUEUE, nb)
    bits = _seg(I, O_BITS, nb)
    dist = X[X[X_PAR]:X[X_PAR] + nb]
    gen = _next_gen(L, stamp)
    forb = 3 * nb
    decl = nb
    tail, _src = seed_tree(body, st, blk, side, stamp, queue, bits, gen, nb, hc, 0)
    # Block distances to the apple's block over edges not passed along (queue after the body's blocks).
    q2 = X[X[X_Q2]:X[X_Q2] + nb]
    dist[:] = nb + 1
    ab = blk[st.apple]
    dist[ab] = 0
    q0 = 0
    qt = 0
    q2[qt] = ab
    qt += 1
    while q0 < qt:
        b = q2[q0]
        q0 += 1
        for dd in range(4):
            o, e = _nbr_block(b, dd, hc, nb)
            if o < 0 or dist[o] <= nb or stamp[forb + e] == gen:
                continue
            dist[o] = dist[b] + 1
            q2[qt] = o
            qt += 1
    # Walk from the head, joining blocks nearer the apple.
    cell = st.head
    steps = 0
    while cell != st.apple and steps < n:
        e = side[cell]
        if e >= 0 and stamp[forb + e] != gen and stamp[decl + e] != gen:
            b = blk[cell]
            o1 = e >> 1
            o = o1 + (hc if e & 1 else 1)
            if o == b:
                o = o1
            if stamp[o] != gen:
                if dist[o] < dist[b]:
                    stamp[o] = gen
                    queue[tail] = o
                    tail += 1
                    _set_edge(bits, e, hc)
                else:
                    stamp[decl + e] = gen
        cell = _outline_step(cols, hc, bits, cell)
        steps += 1
    # Complete: breadth first without the closed sides, then with them.
    for rnd in range(2):
        head = 0
        while head < tail:
            b = queue[head]
            head += 1
            for dd in range(4):
                o, e = _nbr_block(b, dd, hc, nb)
                if o < 0 or stamp[o] == gen or stamp[forb + e] == gen or (rnd == 0 and stamp[decl + e] == gen):
                    continue
                stamp[o] = gen
                queue[tail] = o
                tail += 1
                _set_edge(bits, e, hc)
        if tail == nb:
            break


@njit(cache=True)
def _outline_best(I, L, X, body, st):
    """cell's outline walk over the best of a few spanning trees (`_tree` variants): the shortest walk to the apple."""
    cols = L[M_COLS]
    hc = cols // 2
    n = body.shape[0]
    nb = n // 4
    bits = _seg(I, O_BITS, nb)
    mode = X[X_OUTLINE]
    nvar = mode - 1000 if mode >= 1000 else 4 * (mode + 1)
    best, best_len = 0, n + 1
    for v in range(nvar + 1):
        if v == nvar:
            _tree_greedy(I, L, X, body, st)
        else:
            _tree(I, L, X, body, st, v)
        cell = st.head
        steps = 0
        while cell != st.apple and steps < best_len:
            cell = _outline_step(cols, hc, bits, cell)
            steps += 1
        if steps < best_len:
            best, best_len = v, steps
    if best == nvar:
        _tree_greedy(I, L, X, body, st)
    else:
        _tree(I, L, X, body, st, best)
    plan = _seg(I, O_PLAN, 2 * n + 2)
    nbr2 = _seg(I, O_NBR2, 4 * n)
    cell = st.head
    steps = 0
    while cell != st.apple and steps < n:
        to = _outline_step(cols, hc, bits, cell)
        for move in range(4):
            if nbr2[cell * 4 + move] == to:
                plan[steps] = move
        steps += 1
        cell = to
    return steps


@njit(cache=True, inline="always")
def _due(L, X, pos, every):
    """Is the committed plan due for a re-search at its move `pos`? (every `every` moves, or at the
    backoff's next move when backoff applies to this kind of plan)."""
    walk = L[M_RESEARCH] == RESEARCH_WALK
    if X[X_BACKOFF] > 1 and (X[X_BOWHICH] >> (1 if walk else 0)) & 1 != 0:
        return pos >= X[X_NEXT]
    return pos % every == 0


@njit(cache=True)
def _replan(I, L, X, order, body, st):
    """cell's `_replan` over this module's search."""
    n = body.shape[0]
    plan = _seg(I, O_PLAN, 2 * n + 2)
    if L[M_MOVES] != st.moves or L[M_APPLE] != st.apple:
        L[M_LEN] = 0
        L[M_POS] = 0
    left = L[M_LEN] - L[M_POS]
    steps = 0
    every = _every(L, X)
    searched = left == 0 or (_due(L, X, L[M_POS], every) and L[M_DIRECT] < left)
    if searched:
        # Re-searches may use fewer (or more) detour rounds: RROUNDS for a chain's plan, WROUNDS for a walk.
        rounds = L[M_PARAMS + P_ROUNDS]
        if left > 0:
            again = X[X_WROUNDS] if L[M_RESEARCH] == RESEARCH_WALK else X[X_RROUNDS]
            if again >= 0:
                rounds = again
        steps = _search(I, L, X, order, body, st, left - 1 if left > 0 else n - st.length, rounds)
    if left == 0 or (searched and 0 < steps < left):
        X[X_GAP] = every
        X[X_NEXT] = every
    elif searched:  # a re-search found nothing shorter: wait longer for the next one
        X[X_GAP] = min(2 * X[X_GAP], every * X[X_BACKOFF])
        X[X_NEXT] = L[M_POS] + X[X_GAP]
    if steps > 0 and (left == 0 or steps < left):
        plan[:steps] = _seg(I, O_TRY, steps)
        L[M_LEN] = steps
        L[M_POS] = 0
        L[M_RESEARCH] = 0 if L[M_DETOUR] == 0 else 1
    elif left == 0:
        L[M_LEN] = _outline_plan(I, L, body, st) if X[X_OUTLINE] == 0 else _outline_best(I, L, X, body, st)
        L[M_POS] = 0
        L[M_RESEARCH] = RESEARCH_WALK
        if L[M_DIRECT] == 0:
            L[M_DIRECT] = -1
    if L[M_DIRECT] > 0:
        L[M_DIRECT] -= 1
    move = plan[L[M_POS]]
    L[M_POS] += 1
    L[M_MOVES] = st.moves + 1
    L[M_APPLE] = st.apple
    return move


@njit(cache=True, inline="always")
def _decide(ws, g, st):
    I, L, X, order, body = ws[W_I], ws[W_L], ws[W_X], ws[W_ORDER], g[G_BODY]
    _stamp_head(L, body, st)
    pos = L[M_POS]
    if pos < L[M_LEN] and L[M_MOVES] == st.moves and L[M_APPLE] == st.apple:
        if L[M_RESEARCH] == 0:
            L[M_POS] = pos + 1
            L[M_MOVES] = st.moves + 1
            return I[I[O_PLAN] + pos]
        # A plan that may be re-searched, between re-searches: what `_replan` does then, without the call.
        if not (_due(L, X, pos, _every(L, X)) and L[M_DIRECT] < L[M_LEN] - pos):
            if L[M_DIRECT] > 0:
                L[M_DIRECT] -= 1
            L[M_POS] = pos + 1
            L[M_MOVES] = st.moves + 1
            return I[I[O_PLAN] + pos]
    return _replan(I, L, X, order, body, st)


@njit(cache=True, parallel=True)
def _sweep(cfg, nbr, params, base_seed, first, out, nblocks):
    sweep_chunk(_alloc, _reset, _decide, cfg, nbr, params, base_seed, first, out, nblocks)


@njit(cache=True)
def _play(cfg, nbr, params, seed):
    return play_recorded(_alloc, _reset, _decide, _cells, cfg, nbr, params, seed)


def _grove_option(options, key, default, low, high):
    try:
        return _count_option(options, key, default, low, high)
    except PolicyError as exc:
        raise PolicyError(str(exc).replace("policy 'cell'", "policy 'grove'")) from None


def _count_or_default(options, key, high):
    """A count 1..high, or -1 for the default (0 is refused: it is not a count of moves)."""
    value = _grove_option(options, key, -1, -1, high)
    if value == 0:
        raise PolicyError(f"policy 'grove': {key}=0 is not a count in 1..{high} (or -1: the default)")
    return value


def grove_params(config, options) -> np.ndarray:
    if config.rows % 2 or config.cols % 2:
        raise BoardError(
            f"policy 'grove' needs even rows and cols (2x2 blocks); board {config.rows}x{config.cols} has an odd side"
        )
    params = np.zeros(P_COUNT, np.int64)
    blocks = (config.rows // 2) * (config.cols // 2)
    big = blocks > SMALL_BLOCKS
    rounds = _grove_option(options, "detours", -1, -1, 64)
    params[P_ROUNDS] = (DETOUR_ROUNDS_BIG if big else DETOUR_ROUNDS) if rounds < 0 else rounds
    every = _count_or_default(options, "research_every", 1 << 30)
    params[P_EVERY] = (WALK_EVERY_BIG if big else RESEARCH_EVERY) if every < 0 else every
    params[P_TABLE] = config.cells <= DIST_TABLE_CELLS
    params[P_BITS] = blocks <= BITS_BLOCKS
    params[P_ROWS] = ROWS_SUFFIX if not params[P_BITS] and config.cols // 2 <= ROW_BLOCKS else 0
    backoff = _count_or_default(options, "backoff", 1 << 20)
    params[P_BACKOFF] = (BACKOFF_BIG if big else 1) if backoff < 0 else backoff
    chain = _count_or_default(options, "research_detours", 1 << 30)
    # A detour chain's plan: every `research_every` moves when that is given, else every RESEARCH_EVERY.
    params[P_CHAIN] = (RESEARCH_EVERY if every < 0 else every) if chain < 0 else chain
    budget = _grove_option(options, "budget", -1, -1, 1 << 30)
    params[P_BUDGET] = (BUDGET if blocks <= SMALL_BLOCKS else BUDGET_BIG) if budget < 0 else budget
    ties = _grove_option(options, "ties", -1, -1, TIES_ONLY)
    params[P_TIES] = (TIES_BOTH if blocks <= SMALL_BLOCKS else TIES_ONLY) if ties < 0 else ties
    snug = _grove_option(options, "snug", -1, -1, SNUG_ASTAR)
    params[P_SNUG] = (SNUG_ENUMERATE if blocks <= SMALL_BLOCKS else SNUG_ASTAR) if snug < 0 else snug
    outline = _grove_option(options, "outline", -1, -1, 1 << 20)
    params[P_OUTLINE] = (OUTLINE_BIG if big else OUTLINE_CELL) if outline < 0 else outline
    snug_chain = _grove_option(options, "snug_chain", -1, -1, 7)
    params[P_SNUGCHAIN] = (SNUG_CHAIN_BIG if big and params[P_BUDGET] > 0 else 0) if snug_chain < 0 else snug_chain
    params[P_SELFK] = _grove_option(options, "snug_self", SNUG_SELF_DEFAULT, 0, 1 << 20)
    rrounds = _grove_option(options, "research_rounds", -1, -1, 64)
    params[P_RROUNDS] = (RESEARCH_ROUNDS_BIG if big else -1) if rrounds < 0 else rrounds
    wrounds = _grove_option(options, "walk_rounds", -1, -1, 64)
    params[P_WROUNDS] = (WALK_ROUNDS_BIG if big else -1) if wrounds < 0 else wrounds
    params[P_BOWHICH] = _grove_option(options, "backoff_on", 3, 0, 3)
    return params


POLICY = EnginePolicy(
    name="grove",
    summary=__doc__,
    sweep_kernel=_sweep,
    play_kernel=_play,
    make_params=grove_params,
    guaranteed=True,
    options={"detours": (-1, None), "research_every": (-1, None), "backoff": (-1, None),
             "budget": (-1, None), "ties": (-1, None), "snug": (-1, None), "research_detours": (-1, None),
             "outline": (-1, None), "snug_chain": (-1, None), "snug_self": (SNUG_SELF_DEFAULT, None),
             "research_rounds": (-1, None), "walk_rounds": (-1, None), "backoff_on": (3, None)},
)

# The strongest guaranteed agent we have: `grove` (the lowest mean moves of our agents).
STRONGEST = dataclasses.replace(
    POLICY, name="strongest",
    summary="Alias of `grove`: the strongest guaranteed agent (cell-tree games, fastest kernels).\n\n" + __doc__,
)
