"""fastsnake.grid: a board's symmetries against numpy's flips and transposes."""

import numpy as np
import pytest

from fastsnake import grid


def _numpy_images(rows, cols):
    """Every board numpy's flips (and, square, transposes) make of arange(n), as tuples."""
    a = np.arange(rows * cols).reshape(rows, cols)
    boards = [a, a.T] if rows == cols else [a]
    out = set()
    for b in boards:
        for f in (b, b[::-1], b[:, ::-1], b[::-1, ::-1]):
            out.add(tuple(f.ravel()))
    return out


@pytest.mark.parametrize("rows,cols", [(1, 1), (1, 4), (2, 3), (3, 3), (4, 4), (3, 5), (5, 5)])
def test_symmetries_are_the_boards_flips_and_transposes(rows, cols):
    n = rows * cols
    syms = grid.symmetries(rows, cols)
    assert len(syms) == (8 if rows == cols else 4)
    assert syms[0] == (False, False, False)
    boards = set()
    for sym in syms:
        m = [grid.image(c, rows, cols, sym) for c in range(n)]
        assert sorted(m) == list(range(n))  # a bijection of the cells
        board = [0] * n
        for cell, to in enumerate(m):
            board[to] = cell  # the cell that lands on each square
        boards.add(tuple(board))
        for cell in range(n):  # neighbours stay neighbours
            r, c = divmod(cell, cols)
            for rr, cc in ((r + 1, c), (r, c + 1)):
                if rr < rows and cc < cols:
                    a, b = divmod(m[cell], cols), divmod(m[rr * cols + cc], cols)
                    assert abs(a[0] - b[0]) + abs(a[1] - b[1]) == 1
    assert boards == _numpy_images(rows, cols)

