"""misplaced: the number of tiles not on their goal cell."""

from __future__ import annotations

from numba import njit

from fastsnake.puzzle.heuristic import HC_COLS, HC_GOALPOS, HC_ROWS, Heuristic, base_context

CODE = 1


def context(rows: int, cols: int, goal, **options):
    """(the shared slots only, no info)."""
    return base_context(CODE, rows, cols, goal), {}


@njit(cache=True)
def evaluate(board, hc):
    """The value of `board` from scratch."""
    goalpos = hc[HC_GOALPOS]
    h = 0
    for cell in range(hc[HC_ROWS] * hc[HC_COLS]):
        t = board[cell]
        if t != 0 and goalpos[t] != cell:
            h += 1
    return h


@njit(cache=True, inline="always")
def ida_child(board, hc, hs, sc, d, h, tile, src, dst, move, limit):
    """IDA*'s hook: the parent's value, updated for the tile's two cells."""
    goalpos = hc[HC_GOALPOS]
    nh = h
    if goalpos[tile] != dst:
        nh += 1
    if goalpos[tile] != src:
        nh -= 1
    return nh


@njit(cache=True, inline="always")
def astar_child(board, hc, sc, h, tile, src, dst):
    """A*'s hook: the parent's value, updated for the tile's two cells."""
    goalpos = hc[HC_GOALPOS]
    return h + (goalpos[tile] != dst) - (goalpos[tile] != src)


HEURISTIC = Heuristic("misplaced", CODE, "tiles not on their goal cell", "puzzle_naive:misplaced",
                      context=context, evaluate=evaluate, ida_child=ida_child, astar_child=astar_child,
                      module=__name__)
