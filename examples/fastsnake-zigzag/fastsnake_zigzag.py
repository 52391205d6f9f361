"""A zig-zag Hamiltonian-cycle follower, written against fastsnake's user-policy contract.

The cycle runs right along row 0, back left along row 1 (stopping at column 1),
right along row 2, ... and returns up column 0; on boards with an odd number of
rows the same is done with rows and columns swapped. Following a Hamiltonian
cycle never loses: the body always lies on consecutive cycle cells.

``POLICY`` is compiled by numba into fastsnake's engine loop; ``POLICY_PY`` is the
same code run as plain Python (slower, the same games).
"""

import numpy as np
from numba import njit

import fastsnake

UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3
WS_CELLS, WS_NEXT_MOVE = 0, 1  # slots of the workspace tuple


@njit(cache=True)
def zigzag_cells(rows, cols):
    """The cells of the cycle in order (needs an even number of rows or columns)."""
    transpose = rows % 2 == 1
    if transpose:
        rows, cols = cols, rows
    cells = np.empty(rows * cols, np.int64)
    k = 0
    for r in range(rows):
        columns = range(1, cols) if r % 2 == 0 else range(cols - 1, 0, -1)
        for c in columns:
            cells[k] = r * cols + c
            k += 1
    for r in range(rows - 1, -1, -1):
        cells[k] = r * cols
        k += 1
    if transpose:  # cell (r, c) of the swapped board is (c, r) of the real one
        for i in range(cells.shape[0]):
            r, c = cells[i] // cols, cells[i] % cols
            cells[i] = c * rows + r
    return cells


@njit(cache=True)
def step_move(a, b, cols):
    if b == a - cols:
        return UP
    if b == a + 1:
        return RIGHT
    if b == a + cols:
        return DOWN
    return LEFT


@njit(cache=True)
def alloc(rows, cols):
    """Workspace, made once per worker: the cycle and the move from each cell to its successor."""
    cells = zigzag_cells(rows, cols)
    n = cells.shape[0]
    next_move = np.empty(n, np.uint8)
    for k in range(n):
        next_move[cells[k]] = step_move(cells[k], cells[(k + 1) % n], cols)
    return cells, next_move


@njit(cache=True)
def start_cycle(state, ws):
    """Lay the start body along the cycle, so the first move already follows it."""
    return ws[WS_CELLS]


@njit(cache=True)
def decide(state, ws):
    return ws[WS_NEXT_MOVE][state.head]


POLICY = fastsnake.Policy(decide, alloc=alloc, start_cycle=start_cycle,
                          summary="Follows the zig-zag Hamiltonian cycle (example package, numba).")
POLICY_PY = fastsnake.Policy(decide.py_func, alloc=alloc.py_func, start_cycle=start_cycle.py_func,
                             summary="Follows the zig-zag Hamiltonian cycle (example package, plain Python).")
