"""zero: 0 everywhere, so A* is uniform-cost search (the algorithm `bfs` searches with it)."""

from __future__ import annotations

from numba import njit

from fastsnake.puzzle.heuristic import Heuristic, base_context

CODE = 0


def context(rows: int, cols: int, goal, **options):
    """(the shared slots only, no info)."""
    return base_context(CODE, rows, cols, goal), {}


@njit(cache=True)
def evaluate(board, hc):
    """0."""
    return 0


@njit(cache=True, inline="always")
def ida_child(board, hc, hs, sc, d, h, tile, src, dst, move, limit):
    """IDA*'s hook: 0."""
    return 0


@njit(cache=True, inline="always")
def astar_child(board, hc, sc, h, tile, src, dst):
    """A*'s hook: 0."""
    return 0


HEURISTIC = Heuristic("zero", CODE, "0 everywhere: uniform-cost search (algorithm bfs)", "",
                      context=context, evaluate=evaluate, ida_child=ida_child, astar_child=astar_child,
                      module=__name__)
