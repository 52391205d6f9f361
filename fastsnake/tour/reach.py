"""Squares a piece reaches in n jumps.

Default: squares whose shortest jump distance from the start is exactly n.
`walk=True` (the seed's semantics: a BFS by levels where a square may reappear at
every level): squares where some walk of exactly n jumps, revisits allowed, ends.
For a symmetric piece a walk can bounce back and forth, so a square is reachable in
exactly n jumps iff its shortest walk of the same parity as n is at most n (given
one jump to bounce on, which only an isolated start lacks): one BFS
over (square, parity) answers every n. A one-way piece has no such shortcut and is
stepped level by level, stopping early once the level sets repeat.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass

import numpy as np

from fastsnake.tour.board import jump_arrays, jump_distances, walk_step
from fastsnake.tour.pieces import Piece, TourInputError
from fastsnake.tour.tour import resolve, warm_up

MAX_JUMPS_N = 1_000_000


@dataclass
class ReachResult:
    cells: np.ndarray
    n: int
    walk: bool
    rows: int
    cols: int
    start: int
    piece: Piece
    seconds: float
    compile_seconds: float = 0.0  # loading the kernels; not part of `seconds`

    @property
    def count(self) -> int:
        return int(self.cells.shape[0])

    def to_json(self, include_cells: bool = True) -> dict:
        return {
            "count": self.count,
            "cells": self.cells.tolist() if include_cells else None,
            "n": self.n,
            "walk": self.walk,
            "rows": self.rows,
            "cols": self.cols,
            "start": self.start,
            "piece": {"name": self.piece.name, "jumps": [list(j) for j in self.piece.jump_list],
                      "directed": self.piece.directed},
            "seconds": round(self.seconds, 6),
            "compile_seconds": round(self.compile_seconds, 6),
        }


def reach(piece, rows, cols=None, start=0, n=None, *, walk: bool = False) -> ReachResult:
    """Cells (sorted indices) reached in exactly n jumps, by shortest distance or by walks.

    Parameters
    ----------
    piece : Piece, str or (int, int)
        The jumping piece (see `parse_piece`).
    rows, cols : int
        Board size; or `rows` alone as "RxC", N or (rows, cols).
    start : int, str or (int, int)
        Start square: cell index, "R,C" or chess notation "a1".
    n : int
        Number of jumps (required).
    walk : bool, optional
        False: cells whose shortest distance is exactly `n`; True: cells some walk of
        exactly `n` jumps (squares may repeat) ends on.

    Returns
    -------
    ReachResult
        ``cells`` (sorted int64 cell indices), ``count`` and the query.

    Raises
    ------
    TourInputError
        A bad board, start square or jump count.

    Examples
    --------
    >>> from fastsnake.tour import parse_piece
    >>> r = reach(parse_piece("1,2"), 8, 8, 0, 2)
    >>> r.count, r.cells[:5].tolist()
    (9, [2, 4, 11, 16, 20])
    >>> reach(parse_piece("1,2"), 8, 8, 0, 2, walk=True).count
    10
    """
    piece, rows, cols, start = resolve(piece, rows, cols, 0 if start is None else start)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 0 <= n <= MAX_JUMPS_N:
        raise TourInputError(f"number of jumps {n!r} is not an integer in 0..{MAX_JUMPS_N}")
    n = int(n)
    compile_seconds = warm_up()
    t0 = time.perf_counter()
    jr, jc = jump_arrays(piece.jumps)
    cells_n = rows * cols
    if not walk:
        dist = np.full(cells_n, -1, dtype=np.int32)
        jump_distances(rows, cols, jr, jc, int(start), 1, dist)
        cells = np.flatnonzero(dist == n)
    elif not piece.directed:
        dist = np.full(2 * cells_n, -1, dtype=np.int32)
        jump_distances(rows, cols, jr, jc, int(start), 2, dist)
        best = dist.reshape(cells_n, 2)[:, n % 2]
        cells = np.flatnonzero((best >= 0) & (best <= n))
        if n > 0 and int(np.count_nonzero(dist >= 0)) == 1:
            cells = cells[:0]  # a start without any jump cannot bounce: no walk at all
    else:
        cells = _directed_walk(rows, cols, jr, jc, int(start), n)
    return ReachResult(cells.astype(np.int64), n, walk, rows, cols, int(start), piece, time.perf_counter() - t0,
                       compile_seconds)


def _directed_walk(rows, cols, jr, jc, start, n):
    cur = np.zeros(rows * cols, dtype=np.uint8)
    nxt = np.empty_like(cur)
    cur[start] = 1
    seen: dict[bytes, int] = {}
    level = 0
    while level < n:
        key = hashlib.blake2b(cur, digest_size=16).digest()  # 128-bit: collisions are negligible
        if key in seen:
            # the level sets are periodic from here on: jump ahead
            period = level - seen[key]
            remaining = (n - level) % period
            for _ in range(remaining):
                walk_step(rows, cols, jr, jc, cur, nxt)
                cur, nxt = nxt, cur
            return np.flatnonzero(cur)
        seen[key] = level
        walk_step(rows, cols, jr, jc, cur, nxt)
        cur, nxt = nxt, cur
        level += 1
    return np.flatnonzero(cur)
