"""A user's Manhattan distance written to fastsnake's heuristic contract (no import of fastsnake):
what bench/bench_user_heuristic.py measures against the built-in `manhattan`."""

from numba import njit


@njit(cache=True)
def evaluate(cells, goal, rows, cols):
    """Sum over the tiles of their row and column distances to their goal cells."""
    h = 0
    for i in range(rows * cols):
        t = cells[i]
        if t != 0:
            g = goal[t]
            h += abs(i // cols - g // cols) + abs(i % cols - g % cols)
    return h


@njit(cache=True)
def update(h, cells, goal, rows, cols, tile, src, dst):
    """The value after `tile` moved from cell `src` to cell `dst`: only that tile's distance changes."""
    g = goal[tile]
    return (h - abs(src // cols - g // cols) - abs(src % cols - g % cols)
            + abs(dst // cols - g // cols) + abs(dst % cols - g % cols))
