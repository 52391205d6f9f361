"""manhattan: the sum of the tiles' row and column distances from their goal cells."""

from __future__ import annotations

from numba import njit

from fastsnake.puzzle.heuristic import (
    HC_COLS,
    HC_FIRST,
    HC_GOALPOS,
    HC_ROWS,
    Heuristic,
    base_context,
    distance_table,
)

CODE = 2
# Its slot after the shared ones: md[tile*N + cell], the tile's distance on that cell.
HC_MD = HC_FIRST


def distance_context(code: int, rows: int, cols: int, goal) -> tuple:
    """The shared slots and the distance table (linear-conflict's context too)."""
    base = base_context(code, rows, cols, goal)
    return base + (distance_table(rows, cols, base[HC_GOALPOS]),)


def context(rows: int, cols: int, goal, **options):
    return distance_context(CODE, rows, cols, goal), {}


@njit(cache=True)
def evaluate(board, hc):
    """The value of `board` from scratch."""
    n = hc[HC_ROWS] * hc[HC_COLS]
    md = hc[HC_MD]
    h = 0
    for cell in range(n):
        h += md[board[cell] * n + cell]
    return h


@njit(cache=True, inline="always")
def child_value(hc, h, tile, src, dst):
    """The parent's value `h` updated for `tile` sliding from `src` to `dst`."""
    n = hc[HC_ROWS] * hc[HC_COLS]
    md = hc[HC_MD]
    return h + md[tile * n + dst] - md[tile * n + src]


@njit(cache=True, inline="always")
def ida_child(board, hc, hs, sc, d, h, tile, src, dst, move, limit):
    """IDA*'s hook: the child's value, updated (`child_value`)."""
    return child_value(hc, h, tile, src, dst)


@njit(cache=True, inline="always")
def astar_child(board, hc, sc, h, tile, src, dst):
    """A*'s hook: the child's value, updated (`child_value`)."""
    return child_value(hc, h, tile, src, dst)


HEURISTIC = Heuristic("manhattan", CODE, "sum of the tiles' row and column distances", "puzzle_naive:manhattan",
                      context=context, evaluate=evaluate, ida_child=ida_child, astar_child=astar_child,
                      module=__name__)
