"""walking-distance (Ken'ichiro Takahashi): BFS distances over the rows' and the columns' tile counts,
summed; its tables are built by `fastsnake.puzzle.walking`."""

from __future__ import annotations

import numpy as np
from numba import njit

from fastsnake.puzzle.heuristic import HC_COLS, HC_FIRST, HC_GOALPOS, HC_ROWS, Heuristic, base_context

CODE = 4
# Its slots after the shared ones: the vertical table (BFS distance per state, successor ids, sorted
# state codes), then the horizontal one.
HC_WDV_DIST, HC_WDV_NEXT, HC_WDV_CODES, HC_WDH_DIST, HC_WDH_NEXT, HC_WDH_CODES = range(HC_FIRST, HC_FIRST + 6)


def context(rows: int, cols: int, goal, **options):
    """The shared slots and both tables; info: each table's state count."""
    from fastsnake.puzzle import walking as W

    wdv, wdh = W.walking_tables(rows, cols, goal)
    hc = base_context(CODE, rows, cols, goal) + (wdv.dist, wdv.next, wdv.codes, wdh.dist, wdh.next, wdh.codes)
    return hc, {"walking_states": [len(table.codes) for table in (wdv, wdh)]}


@njit(cache=True)
def walking_code(board, goalpos, rows, cols, along_rows):
    """Walking-distance state code: counts[line][goal line] (last goal line dropped), blank line.

    `along_rows` = True groups tiles by row (the vertical walking distance).
    """
    nl = rows if along_rows else cols
    width = cols if along_rows else rows
    counts = np.zeros(36, np.int64)
    blank_line = 0
    for cell in range(rows * cols):
        t = board[cell]
        line = cell // cols if along_rows else cell % cols
        if t == 0:
            blank_line = line
            continue
        g = goalpos[t]
        gl = g // cols if along_rows else g % cols
        counts[line * nl + gl] += 1
    code = np.uint64(0)
    base = np.uint64(width + 1)
    for line in range(nl):
        for gl in range(nl - 1):
            code = code * base + np.uint64(counts[line * nl + gl])
    return code * np.uint64(nl) + np.uint64(blank_line)


@njit(cache=True)
def walking_index(codes, code):
    """Index of `code` in the sorted walking-distance `codes`, or -1 when absent."""
    i = np.searchsorted(codes, code)
    if i < len(codes) and codes[i] == code:
        return i
    return -1


@njit(cache=True)
def state_index(board, hc, along_rows):
    """The id of `board`'s state in the vertical (`along_rows`) or horizontal table."""
    codes = hc[HC_WDV_CODES] if along_rows else hc[HC_WDH_CODES]
    return walking_index(codes, walking_code(board, hc[HC_GOALPOS], hc[HC_ROWS], hc[HC_COLS], along_rows))


@njit(cache=True)
def evaluate(board, hc):
    """The value of `board` from scratch: both tables' distances of its states."""
    iv = state_index(board, hc, True)
    ih = state_index(board, hc, False)
    return np.int64(hc[HC_WDV_DIST][iv]) + np.int64(hc[HC_WDH_DIST][ih])


def state_ids(board, hc) -> tuple[int, int]:
    """Table ids of `board` in the vertical and horizontal tables of context `hc`."""
    board = np.asarray(board, np.int8)
    iv, ih = int(state_index(board, hc, True)), int(state_index(board, hc, False))
    if iv < 0 or ih < 0:
        raise AssertionError("walking distance: a reachable board is missing from the table")
    return iv, ih


def ida_state(hc, board, depth):
    """(vertical, horizontal) table ids per depth, the root's at depth 0."""
    wdv = np.zeros(depth, np.int64)
    wdh = np.zeros(depth, np.int64)
    wdv[0], wdh[0] = state_ids(board, hc)
    return (wdv, wdh)


@njit(cache=True, inline="always")
def ida_child(board, hc, hs, sc, d, h, tile, src, dst, move, limit):
    """The child's table ids follow one successor link; they go to depth d + 1 (a child searched
    next overwrites them)."""
    wdv, wdh = hs
    iv = wdv[d]
    ih = wdh[d]
    if move < 2:
        iv = hc[HC_WDV_NEXT][(iv * 2 + move) * hc[HC_ROWS] + hc[HC_GOALPOS][tile] // hc[HC_COLS]]
    else:
        ih = hc[HC_WDH_NEXT][(ih * 2 + (move - 2)) * hc[HC_COLS] + hc[HC_GOALPOS][tile] % hc[HC_COLS]]
    wdv[d + 1] = iv
    wdh[d + 1] = ih
    return np.int64(hc[HC_WDV_DIST][iv]) + np.int64(hc[HC_WDH_DIST][ih])


@njit(cache=True, inline="always")
def astar_child(board, hc, sc, h, tile, src, dst):
    """From scratch on the child (`board` left as it was)."""
    board[dst] = tile
    board[src] = 0
    nh = evaluate(board, hc)
    board[src] = tile
    board[dst] = 0
    return nh


HEURISTIC = Heuristic("walking-distance", CODE, "walking distance: BFS over rows' and columns' tile counts "
                      "(Takahashi)", "puzzle_naive:walking_distance", context=context, evaluate=evaluate,
                      ida_child=ida_child, astar_child=astar_child, ida_state=ida_state, tables="walking",
                      module=__name__)
