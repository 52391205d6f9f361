"""The random cycle's builder as first written (recursive, with a transposed copy), in plain Python.

`fastsnake.snake.cycles.random_cells` is now one pass without recursion or a transposed copy (compile
time, issue 44); this is the original, kept as the reference it must equal cell for cell for the same
random stream. It draws from the package's `random_tree` and `below` (unchanged, tested on their own).
"""

import numpy as np

from fastsnake.snake.cycles import random_tree
from fastsnake.snake.rng import below


def tree_outline_next(rows, cols, bits, nxt):
    hc = cols // 2
    for r in range(rows):
        for c in range(cols):
            cell = r * cols + c
            b = int(bits[(r // 2) * hc + c // 2])
            pr, pc = r % 2, c % 2
            if pr == 0 and pc == 0:
                nxt[cell] = cell - 1 if b & 8 else cell + cols
            elif pr == 1 and pc == 0:
                nxt[cell] = cell + cols if b & 4 else cell + 1
            elif pr == 1 and pc == 1:
                nxt[cell] = cell + 1 if b & 2 else cell - cols
            else:
                nxt[cell] = cell - cols if b & 1 else cell - 1


def cells_from_next(nxt, n):
    cells, cell = [], 0
    for _ in range(n):
        cells.append(cell)
        cell = nxt[cell]
    return cells


def flip_squares(rows, cols, nxt, rng, attempts):
    for _ in range(attempts):
        r = int(below(rng, rows - 1))
        c = int(below(rng, cols - 1))
        a = r * cols + c
        b, cc, dd = a + 1, a + cols, a + cols + 1
        if nxt[a] == b and nxt[cc] == dd:
            u1, v1, u2, v2 = a, b, cc, dd
        elif nxt[b] == a and nxt[dd] == cc:
            u1, v1, u2, v2 = b, a, dd, cc
        elif nxt[a] == cc and nxt[b] == dd:
            u1, v1, u2, v2 = a, cc, b, dd
        elif nxt[cc] == a and nxt[dd] == b:
            u1, v1, u2, v2 = cc, a, dd, b
        else:
            continue
        x, y = v1, v2
        while x != u2 and y != u1:
            x, y = nxt[x], nxt[y]
        start, end = (v1, u2) if x == u2 else (v2, u1)
        seg = [start]
        while seg[-1] != end:
            seg.append(nxt[seg[-1]])
        for k in range(len(seg) - 1, 0, -1):
            nxt[seg[k]] = seg[k - 1]
        if x == u2:
            nxt[u1], nxt[v1] = u2, v2
        else:
            nxt[u2], nxt[v2] = u1, v1


def random_even_next(rows, cols, rng):
    nxt = [0] * (rows * cols)
    tree_outline_next(rows, cols, random_tree(rows // 2, cols // 2, rng), nxt)
    return nxt


def random_cells(rows, cols, rng):
    """The cells of the random cycle in order; `rng` (a uint64 stream array) advances as the kernel's."""
    n = rows * cols
    if rows % 2 == 0 and cols % 2 == 0:
        return cells_from_next(random_even_next(rows, cols, rng), n)
    if rows % 2 == 1:  # the cycle of the cols x rows board, each cell transposed back
        return [(cell % rows) * cols + cell // rows for cell in random_cells(cols, rows, rng)]
    base_cols = cols - 1
    small = random_even_next(rows, base_cols, rng)
    nxt = [0] * n
    for cell in range(rows * base_cols):
        r, c = divmod(cell, base_cols)
        nr, nc = divmod(small[cell], base_cols)
        nxt[r * cols + c] = nr * cols + nc
    for r in range(0, rows, 2):
        e = base_cols - 1
        lower, upper = (r + 1) * cols + e, r * cols + e
        nxt[lower] = lower + 1
        nxt[lower + 1] = upper + 1
        nxt[upper + 1] = upper
    flip_squares(rows, cols, nxt, rng, n)
    return cells_from_next(nxt, n)


def stream(seed):
    return np.array([np.uint64(seed), np.uint64(seed)], dtype=np.uint64)
