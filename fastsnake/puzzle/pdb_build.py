"""Building and ranking pattern databases: the compiled BFS over (placement, blank region)
and the compact rank of a partial permutation (no file I/O: `pdb_store` keeps the cache,
`pdb` puts both together). See `fastsnake.puzzle.pdb` for what a table holds."""

from __future__ import annotations

import math
import time

import numpy as np
from numba import njit

from fastsnake import grid

MAX_GROUP = 8
UNSEEN = 255


@njit(cache=True)
def popcount16_table():
    """Bits set in each 16-bit value: the table the ranking of partial permutations reads."""
    out = np.zeros(1 << 16, np.uint8)
    for i in range(1, 1 << 16):
        out[i] = out[i >> 1] + (i & 1)
    return out


@njit(cache=True, inline="always")
def _pop32(x, pop):
    """Bits set in x < 2**32 (boards of up to 25 cells), from the 16-bit table."""
    return pop[x & 0xFFFF] + pop[x >> 16]


@njit(cache=True, inline="always")
def group_rank(cells, off, m, n, pop):
    """Compact rank of the m distinct cells cells[off..off+m-1] (a partial permutation
    of n <= 32 cells): the table index of a group too big for the sparse layout."""
    r = np.int64(0)
    used = 0
    for i in range(m):
        p = cells[off + i]
        below = used & ((1 << p) - 1)
        r = r * (n - i) + (p - pop[below & 0xFFFF] - pop[below >> 16])
        used |= 1 << p
    return r


@njit(cache=True, inline="always")
def _unrank(r, cells, m, n):
    """Inverse of `group_rank`: fill cells[0..m-1]; returns their occupancy bitmask."""
    for i in range(m - 1, -1, -1):
        cells[i] = r % (n - i)  # the digit: how many free cells lie below this one
        r //= n - i
    used = 0
    for i in range(m):
        skip = cells[i]
        c = 0
        while True:
            if not (used >> c) & 1:
                if skip == 0:
                    break
                skip -= 1
            c += 1
        cells[i] = c
        used |= 1 << c
    return used


@njit(cache=True, inline="always")
def _flood(seed, free, cols, not_first, not_last):
    """The cells of `free` (a bitmask) connected to the seed cells."""
    comp = seed
    while True:
        grow = comp | ((comp << 1) & not_first) | ((comp >> 1) & not_last) | (comp << cols) | (comp >> cols)
        grow &= free
        if grow == comp:
            return comp
        comp = grow


@njit(cache=True)
def _board_masks(rows, cols):
    """Neighbour bitmask per cell, and the masks that stop shifts wrapping rows."""
    n = rows * cols
    full = (1 << n) - 1
    first_col = 0
    last_col = 0
    for r in range(rows):
        first_col |= 1 << (r * cols)
        last_col |= 1 << (r * cols + cols - 1)
    nb = np.zeros(n, np.int64)
    for c in range(n):
        r0, c0 = c // cols, c % cols
        if r0 > 0:
            nb[c] |= 1 << (c - cols)
        if r0 < rows - 1:
            nb[c] |= 1 << (c + cols)
        if c0 > 0:
            nb[c] |= 1 << (c - 1)
        if c0 < cols - 1:
            nb[c] |= 1 << (c + 1)
    # A left-shifted cell must not wrap into column 0, nor a right-shifted one into the last.
    return nb, full & ~first_col, full & ~last_col


@njit(cache=True)
def _regions_start(rows, cols, goal_cells, blank_cell, state, out):
    """Seed the BFS of `_regions_layer` with the goal placement."""
    n = rows * cols
    k = len(goal_cells)
    nb, not_first, not_last = _board_masks(rows, cols)
    pop = popcount16_table()
    cells = np.empty(k, np.int64)
    occ = 0
    for i in range(k):
        cells[i] = goal_cells[i]
        occ |= 1 << cells[i]
    free = ((1 << n) - 1) & ~occ
    comp = _flood(1 << blank_cell, free, cols, not_first, not_last)
    low = comp & -comp
    r0 = group_rank(cells, 0, k, n, pop)
    bit = 1 << _pop32(free & (low - 1), pop)
    state[r0, 0] = bit
    state[r0, 1] = bit
    out[r0] = 0


@njit(cache=True)
def _regions_layer(rows, cols, k, d, state, out):
    """One layer of the BFS over (placement of the k pattern tiles, blank region).

    Tracking single blank cells would need N!/(N-k-1)! states (4.15e9 for 8 tiles on
    4x4). Moves of other tiles cost 0, so every blank cell of one connected region of
    free cells is reached at once: a state is a placement and one region, named by
    the rank of the region's lowest cell among the free cells (about 2 regions per
    placement). `state[r]` holds bitmasks over those names for placement rank r:
    0 = seen, 1 and 2 = frontier of even and odd depths (one row per placement, so a
    generated state costs one cache miss); out[r] gets the depth at which placement
    r is first reached. Expands the states at depth d; returns how many there were
    (0: the BFS is over)."""
    n = rows * cols
    full = (1 << n) - 1
    nb, not_first, not_last = _board_masks(rows, cols)
    pop = popcount16_table()
    cells = np.empty(k, np.int64)
    child_r = np.empty(4 * k, np.int64)
    child_bit = np.empty(4 * k, np.int64)
    sink = np.zeros(1, np.int64)
    fr = 1 + (d & 1)
    to = 1 + ((d + 1) & 1)
    states = 0
    for r in range(len(out)):
        names = state[r, fr]
        if names == 0:
            continue
        state[r, fr] = 0
        occ = _unrank(r, cells, k, n)
        free = full & ~occ
        # Walk the free cells in order to turn region names back into cells.
        j = 0
        rest = free
        while rest:
            low = rest & -rest
            rest ^= low
            if not (names >> j) & 1:
                j += 1
                continue
            j += 1
            comp = _flood(low, free, cols, not_first, not_last)
            states += 1
            nm = 0
            for i in range(k):
                p = cells[i]
                adj = nb[p] & comp
                while adj:
                    bb = adj & -adj
                    adj ^= bb
                    b = 0
                    while (bb >> b) != 1:
                        b += 1
                    cells[i] = b
                    free2 = (free | (1 << p)) & ~bb
                    comp2 = _flood(1 << p, free2, cols, not_first, not_last)
                    low2 = comp2 & -comp2
                    child_r[nm] = group_rank(cells, 0, k, n, pop)
                    child_bit[nm] = 1 << _pop32(free2 & (low2 - 1), pop)
                    nm += 1
                cells[i] = p
            # The children's rows are random in a table far bigger than the caches:
            # load them all first (independent loads overlap), then test.
            touch = 0
            for q in range(nm):
                touch += state[child_r[q], 0]
            sink[0] = touch
            for q in range(nm):
                r2 = child_r[q]
                bit = child_bit[q]
                if not state[r2, 0] & bit:
                    state[r2, 0] |= bit
                    state[r2, to] |= bit
                    if out[r2] > d + 1:
                        out[r2] = d + 1
    return states


@njit(cache=True)
def convert_layout(sparse, compact, n, k, to_compact):
    """Copy between the sparse (cell_i * n**i) and compact (rank) layouts."""
    pop = popcount16_table()
    cells = np.empty(k, np.int64)
    for s in range(len(sparse)):
        v = s
        used = 0
        ok = True
        for i in range(k):
            c = v % n
            v //= n
            if used & (1 << c):
                ok = False
                break
            used |= 1 << c
            cells[i] = c
        if not ok:
            continue
        r = group_rank(cells, 0, k, n, pop)
        if to_compact:
            compact[r] = sparse[s]
        else:
            sparse[s] = compact[r]


@njit(cache=True)
def compact_to_sparse(compact, sparse, n, k):
    """sparse[sum(cell_i * n**i)] = compact[rank] for every placement, enumerated in rank
    order (ranks are lexicographic in the cells): one pass, no ranking (`convert_layout`
    decodes every sparse index instead: 10x slower on 6 tiles of 25 cells)."""
    cells = np.full(k, -1, np.int64)
    partial = np.zeros(k + 1, np.int64)
    pw = np.ones(k, np.int64)
    for i in range(1, k):
        pw[i] = pw[i - 1] * n
    used = 0
    r = 0
    i = 0
    while i >= 0:
        c = cells[i] + 1
        while c < n and (used >> c) & 1:
            c += 1
        if c >= n:
            cells[i] = -1
            i -= 1
            if i >= 0:
                used &= ~(1 << cells[i])
            continue
        cells[i] = c
        if i == k - 1:
            sparse[partial[i] + c * pw[i]] = compact[r]
            r += 1
        else:
            used |= 1 << c
            partial[i + 1] = partial[i] + c * pw[i]
            i += 1
    return r


def symmetries(rows: int, cols: int) -> list[np.ndarray]:
    """Cell maps of the board's symmetries (identity first; `fastsnake.grid`)."""
    n = rows * cols
    return [np.array([grid.image(cell, rows, cols, sym) for cell in range(n)], np.int64)
            for sym in grid.symmetries(rows, cols)]


def state_dtype(n: int, k: int):
    """The BFS rows' type: region names need one bit per free cell."""
    return np.uint8 if n - k <= 8 else np.uint16 if n - k <= 16 else np.uint32


def build_group(rows: int, cols: int, blank_cell: int, cells, progress=None,
                out: np.ndarray | None = None) -> tuple[np.ndarray, int]:
    """The compact table of one group by `_regions_layer` (into `out` if given) and
    its number of BFS states."""
    n = rows * cols
    k = len(cells)
    size = math.perm(n, k)
    # Region names need one bit per free cell.
    state = np.zeros((size, 3), state_dtype(n, k))
    if out is None:
        out = np.empty(size, np.uint8)
    out[:] = UNSEEN
    _regions_start(rows, cols, np.array(cells, np.int64), blank_cell, state, out)
    seen = 0
    depth = 0
    t0 = time.perf_counter()
    while True:
        layer = _regions_layer(rows, cols, k, depth, state, out)
        if layer == 0:
            break
        seen += layer
        if progress is not None and size > 10 ** 8:
            progress(f"pdb:   depth {depth}: {layer:,} states, {time.perf_counter() - t0:.0f} s")
        depth += 1
    del state
    for at in range(0, size, 1 << 24):  # in chunks: a mask of the whole table is 519 MB for 8 tiles
        part = out[at:at + (1 << 24)]
        part[part == UNSEEN] = 0  # placements that cannot occur are never looked up
    return out, int(seen)


