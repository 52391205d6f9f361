"""Cheap proofs that no tour exists, tried before any search.

Each check returns a reason string (a tour is impossible) or None (no verdict).
They are ordered cheapest first; all are O(board) at most.
"""

from __future__ import annotations

import numpy as np

from fastsnake.tour.board import distances
from fastsnake.tour.pieces import Piece


def schwenk_closed_knight(rows: int, cols: int) -> str | None:
    """Schwenk (1991): an m x n board (m <= n) has a closed knight's tour unless
    m and n are both odd, m is 1, 2 or 4, or m = 3 and n is 4, 6 or 8."""
    m, n = sorted((rows, cols))
    if m % 2 == 1 and n % 2 == 1:
        return f"Schwenk's theorem: {rows}x{cols} has both sides odd"
    if m in (1, 2, 4):
        return f"Schwenk's theorem: a side of {m} admits no closed knight's tour"
    if m == 3 and n in (4, 6, 8):
        return f"Schwenk's theorem: 3x{n} admits no closed knight's tour"
    return None


def colour_counts(rows: int, cols: int) -> tuple[int, int]:
    """(squares with (r + c) even, squares with (r + c) odd)."""
    even = (rows * cols + 1) // 2
    return even, rows * cols - even


def colour_check(piece: Piece, rows: int, cols: int, start: int, closed: bool) -> str | None:
    n = rows * cols
    if n < 2:
        return None
    if piece.colour_keeping:
        return "colour-bound: every jump keeps the square colour, so half the board is never reached"
    if not piece.colour_changing:
        return None
    even, odd = colour_counts(rows, cols)
    r, c = divmod(start, cols)
    start_even = (r + c) % 2 == 0
    if closed:
        if even != odd:
            return f"colour parity: every jump changes colour, and {even} != {odd} squares of each colour"
        return None
    if abs(even - odd) > 1:
        return f"colour parity: every jump changes colour, and {even} vs {odd} squares differ by more than one"
    if even > odd and not start_even or odd > even and start_even:
        return (f"colour parity: every jump changes colour and the start is on the minority colour "
                f"({min(even, odd)} of {n} squares)")
    return None


def degree_check(piece: Piece, rows: int, cols: int, start: int, closed: bool,
                 outdeg: np.ndarray, indeg: np.ndarray) -> str | None:
    """Squares that can only be an endpoint: a tour has one start and one end."""
    n = rows * cols
    if n < 2:
        return None
    if closed:
        if int(outdeg.min()) == 0 or int(indeg.min()) == 0:
            return "a square has no jump out or in, so no closed tour can pass through it"
        if not piece.directed and int(outdeg.min()) < 2:
            return "a square has a single jump, so a closed tour cannot pass through it"
        return None
    if not piece.directed:
        deg = outdeg.astype(np.int64)
        if int(deg.min()) == 0:
            return "a square has no jump at all"
        ones = int(np.count_nonzero(deg == 1)) - (1 if deg[start] == 1 else 0)
        if ones > 1:
            return f"{ones} squares other than the start have a single jump; only the end may"
        return None
    if int(np.count_nonzero(indeg == 0)) - (1 if indeg[start] == 0 else 0) > 0:
        return "a square other than the start cannot be entered by any jump"
    if int(np.count_nonzero(outdeg == 0)) > 1:
        return "more than one square has no jump out; only the end may"
    return None


def connectivity_check(piece: Piece, rows: int, cols: int, start: int, closed: bool,
                       connected: bool | None = None) -> str | None:
    """`connected=True` (known for an undirected graph, from any start) skips the BFS."""
    if connected and not piece.directed:
        return None
    jumps = piece.jumps
    dist = distances(rows, cols, jumps, start)
    missing = int(np.count_nonzero(dist < 0))
    if missing:
        return f"disconnected: {missing} of {rows * cols} squares cannot be reached from the start"
    if closed and piece.directed:
        back = distances(rows, cols, jumps, start, reverse=True)
        missing = int(np.count_nonzero(back < 0))
        if missing:
            return f"not strongly connected: {missing} squares cannot return to the start"
    return None


def static_impossibility(piece: Piece, rows: int, cols: int, start: int, closed: bool) -> str | None:
    """The theorems and colour arguments: O(1), no look at the board."""
    n = rows * cols
    if closed and n < 3:
        return "a closed tour needs at least 3 squares"
    if closed and piece.is_knight:
        reason = schwenk_closed_knight(rows, cols)
        if reason:
            return reason
    return colour_check(piece, rows, cols, start, closed)


def graph_impossibility(piece: Piece, rows: int, cols: int, start: int, closed: bool,
                        outdeg: np.ndarray, indeg: np.ndarray, connected: bool | None = None) -> str | None:
    """Degree counting, then connectivity (BFS unless `connected` is known)."""
    reason = degree_check(piece, rows, cols, start, closed, outdeg, indeg)
    if reason:
        return reason
    return connectivity_check(piece, rows, cols, start, closed, connected)


def impossibility(piece: Piece, rows: int, cols: int, start: int, closed: bool,
                  outdeg: np.ndarray, indeg: np.ndarray, connected: bool | None = None) -> str | None:
    """The first reason found that no tour (open from `start`, or closed) exists."""
    return (static_impossibility(piece, rows, cols, start, closed)
            or graph_impossibility(piece, rows, cols, start, closed, outdeg, indeg, connected))
