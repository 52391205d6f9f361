"""The cell-tree agents' working memory: three packed arrays and where each thing lives in them.

The workspace is the tuple (I int32, L int64, X int64, order int16): every array argument of
a njit call costs an atomic incref and decref per call, and a tuple of 30 arrays made each
move ~1000 cycles of reference counting, so the segments are packed into few arrays.
I starts with a header (I[k] is where segment k starts; `workspace.segment_starts`); L has
fixed slots (M_*) for the plan state and the offsets of its segments; X has fixed slots
(X_*) for the settings and search state and the offsets of its segments.
"""

import numpy as np
from numba import njit

# The workspace tuple: I, L, then X and the by-distance cell order.
W_I, W_L, W_X, W_ORDER = range(4)
# Segments of I (offsets in I's header): right-hand table, blocks, sides, stamps, plans,
# the virtual path, the A* buffers and the distance table.
(O_NBR2, O_BLK, O_SIDE, O_WIN, O_STAMP, O_QUEUE, O_BITS, O_NXT, O_PLAN, O_CELLS, O_VPATH, O_TRY,
 O_AG, O_APARENT, O_AOPEN, O_ACLOSED, O_APATH, O_HROW, O_LINKS, O_DIST, O_END) = range(21)
# I starts with a header: I[k] is where segment k starts.
I_HEADER = O_END + 1
# L: committed plan length, next plan index, its apple, the move number it expects, stamp generation,
# whether the plan may be re-searched, the last shortest path's length (even when refused), the detour
# rounds of the last search, board shape and tail rule, the time base and the cell to avoid of the
# current A*, the last move whose head was stamped, the undo log's length, offsets of the L segments
# (blocks, sides, cell entry times, block entry times, edge times, undo log), the block-edge masks
# of `on_some_outline_bits`; then parameters, RNG, A* generation, heap.
(M_LEN, M_POS, M_APPLE, M_MOVES, M_GEN, M_RESEARCH, M_DIRECT, M_DETOUR, M_ROWS, M_COLS, M_TAIL, M_BASE, M_AVOID,
 M_STAMPED, M_UNDO_N, M_OBLK, M_OSIDE, M_OENT, M_OBENT, M_OEDGE, M_OUNDO, M_OPEN_H, M_OPEN_V, M_PARAMS) = range(24)
# L holds the first four parameters (detour rounds, re-search interval, distance table, bit masks).
L_RNG = M_PARAMS + 4
L_AGEN = L_RNG + 1
L_HEAP = L_AGEN + 1
# The third workspace array X (int64): header, then per row of blocks the masks of blocks with a
# right / lower neighbour, their copies with the passed-along edges cleared, and the reached blocks.
(X_ROWS, X_HR, X_HC, X_BACKOFF, X_NEXT, X_GAP, X_RIGHT, X_DOWN, X_OPENR, X_OPEND, X_REACH, X_PWORD, X_PBIT,
 X_SID, X_K, X_NLIST, X_LASTB, X_LASTX, X_LASTP, X_LISTE, X_LISTP, X_DB, X_DX, X_SUFR, X_BUDGET, X_ONPATH, X_DCELL,
 X_DCH, X_TIES, X_SNUG, X_CHAIN, X_MV, X_OUTLINE, X_PAR, X_Q2, X_LEG, X_LBASE, X_LHEAP, X_SNUGCHAIN, X_SELFK,
 X_RROUNDS, X_WROUNDS, X_BOWHICH, X_CROW, X_CBIT, X_TABLED, X_END) = range(47)
X_HEADER = X_END + 1
# The leg table (`blocks.leg_table`, LEG_SLOTS a cell): the cell's move within its block, its move across its
# side (-1: the border), the block that move enters and the block edge it crosses.
LEG_IN, LEG_OUT, LEG_OUTBLK, LEG_EDGE = range(4)
LEG_SLOTS = LEG_EDGE + 1
# Body positions in the LAST* entries: search id * POS_SPAN + position (older searches compare smaller).
POS_SPAN = 1 << 21
# M_RESEARCH of an outline walk (a detour chain's plan has 1, a shortest path 0).
RESEARCH_WALK = 2
# A walk's first cell (index into the walk arrays of the outline tests).
WALK_START = 0
# Entry time of a cell nobody entered this game.
NEVER = -(1 << 40)


@njit(cache=True, inline="always")
def segment_starts(n, nb, table):
    """Start of each segment of I (index O_*), and O_END: its size."""
    sizes = (4 * n, n, n, 2 * n + 2, 5 * nb, nb, nb, n, 2 * n + 2, n, 2 * n + 2, 2 * n + 2,
             n, n, n, n, n, n, 8 * nb, n * n if table else 0)
    out = np.empty(O_END + 1, np.int64)
    at = I_HEADER
    for k in range(O_END):
        out[k] = at
        at += sizes[k]
    out[O_END] = at
    return out


@njit(cache=True, inline="always")
def segment(I, k, size):
    return I[I[k]:I[k] + size]


@njit(cache=True, inline="always")
def next_generation(L, stamp):
    L[M_GEN] += 2
    if L[M_GEN] >= 2**31 - 4:
        stamp[:] = 0
        L[M_GEN] = 2
    return np.int32(L[M_GEN])
