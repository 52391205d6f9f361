"""Closed knight's tours in linear time: divide and conquer over small blocks.

Each side is cut into parts of 6, 8 or 10 squares (plus one odd part of 5, 7 or 9
when the side is odd), so every block has a closed tour of its own (Schwenk: both
sides >= 5, not both odd). Block tours come from our own closed Warnsdorff search,
once per block shape, and are stamped over the board as a 2-factor: each square
stores its two tour neighbours.

Neighbouring cycles X and Y are merged by swapping two edges: if a1-a2 is an edge
of X, b1-b2 an edge of Y, and a1-b1, a2-b2 are knight moves, then replacing the two
edges by the two moves leaves one cycle (X minus an edge is a path a1..a2, Y minus
an edge a path b1..b2). Merging along a spanning tree of the blocks (along each
block row, then down the first column) always joins two different cycles, so the
result is a single closed tour. The merge looks for its edge pair only in the two
squares nearest the shared border, so the whole construction is O(board).
This is the idea of Parberry's method (1997); instead of his hand-made "structured"
blocks we search each border for a usable pair, which the tests check for every
block combination.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np
from numba import njit

from fastsnake.errors import FastsnakeError

_ODD = (5, 7, 9)
_BLOCK_SIDES = (5, 6, 7, 8, 9, 10)


def can_construct(rows: int, cols: int) -> bool:
    return min(rows, cols) >= 5 and (rows % 2 == 0 or cols % 2 == 0)


def split_side(n: int) -> list[int]:
    """n = sum of parts from {6, 8, 10}, plus one part from {5, 7, 9} first if n is odd."""
    if n < 5:
        raise ValueError(f"side {n} is below 5")
    if n % 2 == 1:
        if n in _ODD:
            return [n]
        return [5] + split_side(n - 5)
    parts = []
    while n > 10:
        take = 8 if n - 8 >= 6 else 6
        parts.append(take)
        n -= take
    parts.append(n)
    return parts


@lru_cache(maxsize=None)
def block_tour(h: int, w: int) -> np.ndarray:
    """A closed knight's tour of an h x w block, as its cell order (int32)."""
    from fastsnake.tour.pieces import Piece
    from fastsnake.tour.search import FOUND, SearchState

    knight = Piece.leaper(1, 2)
    state = SearchState(h, w, knight.jumps, False, True)
    for seed in range(1000):
        state.reset(0)
        if state.run(200_000, seed) == FOUND:
            return state.path.copy()
    raise FastsnakeError(f"no closed knight's tour found for the {h}x{w} block")


@lru_cache(maxsize=None)
def _template_table():
    """All block tours: tmpl[t, cell, p] = (dr, dc) to tour neighbour p; index[h, w] = t."""
    shapes = [(h, w) for h in _BLOCK_SIDES for w in _BLOCK_SIDES if h % 2 == 0 or w % 2 == 0]
    index = np.full((11, 11), -1, dtype=np.int64)
    tmpl = np.zeros((len(shapes), 100, 2, 2), dtype=np.int64)
    for t, (h, w) in enumerate(shapes):
        order = block_tour(h, w).astype(np.int64)
        for p, other in enumerate((np.roll(order, 1), np.roll(order, -1))):
            tmpl[t, order, p, 0] = other // w - order // w
            tmpl[t, order, p, 1] = other % w - order % w
        index[h, w] = t
    return tmpl, index


@njit(cache=True, inline="always")
def _is_knight(a, b, cols):
    """Are cells `a` and `b` a knight's move apart on a board `cols` wide?"""
    ar = a // cols
    br = b // cols
    dr = abs(br - ar)
    dc = abs((b - br * cols) - (a - ar * cols))
    return (dr == 1 and dc == 2) or (dr == 2 and dc == 1)


@njit(cache=True, inline="always")
def _replace(nbr, v, old, new):
    """In the tour's two-neighbour table, replace `v`'s neighbour `old` by `new`."""
    if nbr[2 * v] == old:
        nbr[2 * v] = new
    else:
        nbr[2 * v + 1] = new


@njit(cache=True)
def _join(nbr, cols, sr0, sr1, sc0, sc1, br0, br1, bc0, bc1):
    """Merge the cycle through strip [sr0,sr1)x[sc0,sc1) with the one through block
    [br0,br1)x[bc0,bc1) by one edge swap. Returns False if no pair was found."""
    for a1r in range(sr0, sr1):
        for a1c in range(sc0, sc1):
            a1 = a1r * cols + a1c
            for dr, dc in ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)):
                r = a1r + dr
                c = a1c + dc
                if br0 <= r < br1 and bc0 <= c < bc1:
                    b1 = r * cols + c
                    for p in range(2):
                        a2 = nbr[2 * a1 + p]
                        for q in range(2):
                            b2 = nbr[2 * b1 + q]
                            if _is_knight(a2, b2, cols):
                                _replace(nbr, a1, a2, b1)
                                _replace(nbr, a2, a1, b2)
                                _replace(nbr, b1, b2, a1)
                                _replace(nbr, b2, b1, a2)
                                return True
    return False


@njit(cache=True)
def _assemble(cols, row_parts, col_parts, tmpl, index, nbr):
    """Stamp block tours and merge them; returns the number of failed merges."""
    nbr_r = row_parts.shape[0]
    nbc = col_parts.shape[0]
    r_off = np.zeros(nbr_r + 1, dtype=np.int64)
    c_off = np.zeros(nbc + 1, dtype=np.int64)
    for i in range(nbr_r):
        r_off[i + 1] = r_off[i] + row_parts[i]
    for j in range(nbc):
        c_off[j + 1] = c_off[j] + col_parts[j]
    # a template stores each square's two tour neighbours as (dr, dc) offsets;
    # writing board row by board row keeps the 2 x 4 bytes per square sequential
    for i in range(nbr_r):
        h = row_parts[i]
        for lr in range(h):
            g = (r_off[i] + lr) * cols
            for j in range(nbc):
                w = col_parts[j]
                t = index[h, w]
                base = lr * w
                for lc in range(w):
                    for p in range(2):
                        nbr[2 * g + p] = g + tmpl[t, base + lc, p, 0] * cols + tmpl[t, base + lc, p, 1]
                    g += 1
    failed = 0
    for i in range(nbr_r):
        for j in range(1, nbc):
            if not _join(nbr, cols, r_off[i], r_off[i + 1], c_off[j] - 2, c_off[j],
                         r_off[i], r_off[i + 1], c_off[j], c_off[j + 1]):
                failed += 1
    for i in range(1, nbr_r):
        if not _join(nbr, cols, r_off[i] - 2, r_off[i], c_off[0], c_off[1],
                     r_off[i], r_off[i + 1], c_off[0], c_off[1]):
            failed += 1
    return failed


@njit(cache=True)
def _cycle_path(nbr, start, path):
    """Follow the 2-factor from `start`; returns the squares seen before returning."""
    n = path.shape[0]
    prev = -1
    cur = start
    for i in range(n):
        path[i] = cur
        a = nbr[2 * cur]
        nxt = a if a != prev else nbr[2 * cur + 1]
        prev = cur
        cur = nxt
        if cur == start:
            return i + 1
    return n + 1


def closed_knight_tour(rows: int, cols: int, start: int = 0) -> np.ndarray:
    """A closed knight's tour of the board as a cell order beginning at `start`."""
    if not can_construct(rows, cols):
        raise ValueError(f"no construction for {rows}x{cols}")
    tmpl, index = _template_table()
    nbr = np.empty(2 * rows * cols, dtype=np.int32)
    row_parts = np.array(split_side(rows), dtype=np.int64)
    col_parts = np.array(split_side(cols), dtype=np.int64)
    failed = _assemble(cols, row_parts, col_parts, tmpl, index, nbr)
    if failed:
        raise FastsnakeError(f"construction of a {rows}x{cols} closed tour left {failed} blocks unmerged")
    path = np.empty(rows * cols, dtype=np.int32)
    length = _cycle_path(nbr, int(start), path)
    if length != rows * cols:
        raise FastsnakeError(f"construction of a {rows}x{cols} closed tour produced a cycle of {length} squares")
    return path
