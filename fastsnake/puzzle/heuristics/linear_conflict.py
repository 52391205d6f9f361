"""linear-conflict: Manhattan distance + 2 per tile to lift out of its goal row or column so the
rest of that line's home tiles are in order (Hansson, Mayer & Yung 1992)."""

from __future__ import annotations

import numpy as np
from numba import njit

from fastsnake.puzzle.heuristic import HC_COLS, HC_GOALPOS, HC_ROWS, Heuristic
from fastsnake.puzzle.heuristics.manhattan import HC_MD, distance_context

CODE = 3
# Scratch for linear conflicts: a line of up to 36 goal positions, then their LIS lengths.
LINE_CONFLICT_BUF = 72


def context(rows: int, cols: int, goal, **options):
    """The shared slots and Manhattan's distance table."""
    return distance_context(CODE, rows, cols, goal), {}


@njit(cache=True)
def line_conflicts(board, goalpos, rows, cols, line, is_row, buf):
    """Tiles to lift out of one row/column so the rest of its home tiles are in order.

    Counts k - LIS over the tiles of the line whose goal is in this line (by goal
    column for a row, goal row for a column); each lifted tile costs 2 moves that
    Manhattan distance does not count. `buf` is scratch of LINE_CONFLICT_BUF int64.
    """
    length = cols if is_row else rows
    k = 0
    for i in range(length):
        cell = line * cols + i if is_row else i * cols + line
        t = board[cell]
        if t == 0:
            continue
        g = goalpos[t]
        if is_row:
            if g // cols == line:
                buf[k] = g % cols
                k += 1
        else:
            if g % cols == line:
                buf[k] = g // cols
                k += 1
    if k < 2:
        return 0
    longest = 0
    for i in range(k):
        b = 1
        for j in range(i):
            if buf[j] < buf[i] and buf[36 + j] + 1 > b:
                b = buf[36 + j] + 1
        buf[36 + i] = b
        if b > longest:
            longest = b
    return k - longest


@njit(cache=True)
def value(board, hc, buf):
    """The value of `board` from scratch, `buf` the lines' scratch."""
    rows = hc[HC_ROWS]
    cols = hc[HC_COLS]
    goalpos = hc[HC_GOALPOS]
    md = hc[HC_MD]
    n = rows * cols
    h = 0
    for cell in range(n):
        h += md[board[cell] * n + cell]
    for r in range(rows):
        h += 2 * line_conflicts(board, goalpos, rows, cols, r, True, buf)
    for c in range(cols):
        h += 2 * line_conflicts(board, goalpos, rows, cols, c, False, buf)
    return h


@njit(cache=True)
def evaluate(board, hc):
    """The value of `board` from scratch."""
    return value(board, hc, np.empty(LINE_CONFLICT_BUF, np.int64))


@njit(cache=True, inline="always")
def child_value(board, hc, buf, h, t, a, blank, m):
    """The parent's value `h` updated for tile `t` sliding from `a` to `blank` (blank move `m`):
    only the tile's own goal line can change its conflicts, and only when the tile enters or
    leaves that line. `board` is the parent's (left as it was)."""
    rows = hc[HC_ROWS]
    cols = hc[HC_COLS]
    goalpos = hc[HC_GOALPOS]
    md = hc[HC_MD]
    n = rows * cols
    nh = h + md[t * n + blank] - md[t * n + a]
    if m < 2:
        line = goalpos[t] // cols
        crosses = line == a // cols or line == blank // cols
    else:
        line = goalpos[t] % cols
        crosses = line == a % cols or line == blank % cols
    if crosses:
        before = line_conflicts(board, goalpos, rows, cols, line, m < 2, buf)
        board[blank] = t
        board[a] = 0
        after = line_conflicts(board, goalpos, rows, cols, line, m < 2, buf)
        board[a] = t
        board[blank] = 0
        nh += 2 * (after - before)
    return nh


@njit(cache=True, inline="always")
def ida_scratch(board, hc, hs):
    """IDA*'s scratch: the lines' buffer."""
    return np.empty(LINE_CONFLICT_BUF, np.int64)


@njit(cache=True, inline="always")
def ida_child(board, hc, hs, sc, d, h, tile, src, dst, move, limit):
    """IDA*'s hook: the child's value, updated (`child_value`)."""
    return child_value(board, hc, sc, h, tile, src, dst, move)


@njit(cache=True, inline="always")
def astar_child(board, hc, sc, h, tile, src, dst):
    """A*'s hook: the child's value, updated (`child_value`)."""
    # The blank moves up/down (0/1) when the tile changes rows.
    cols = hc[HC_COLS]
    move = 0 if src // cols != dst // cols else 2
    return child_value(board, hc, sc, h, tile, src, dst, move)


def astar_scratch(hc):
    return np.zeros(LINE_CONFLICT_BUF, np.int64)


HEURISTIC = Heuristic("linear-conflict", CODE, "Manhattan + 2 per tile to lift out of its goal row or column "
                      "(Hansson, Mayer & Yung 1992)", "puzzle_naive:linear_conflict",
                      context=context, evaluate=evaluate, ida_scratch=ida_scratch, ida_child=ida_child,
                      astar_child=astar_child, astar_scratch=astar_scratch, module=__name__)
