"""Hamiltonian cycles of the R×C grid graph.

A cycle is given as `cells` (the cells in cycle order) and, for the policies,
as the pair `order[cell]` (position on the cycle) / `nxt[cell]` (successor).

- `zigzag`: the boustrophedon cycle (rows swept in turn, column 0 as the way back).
- `random`: the construction of the thesis (Merkulov, "Snake AI", 2025, ch. 4) and of the
  snake_ai project: a random spanning tree of the half-size grid
  (Prim's algorithm with random edge weights) whose outline, walked keeping the
  tree on one side, is a Hamiltonian cycle of the full grid. Needs even R and C.
  With one odd side we build the tree cycle on the even part, splice the odd row
  in as two-cell detours, and then mix with random 2×2 flips (two parallel cycle
  edges of a unit square traversed the same way are replaced by the other two
  sides, which keeps a single cycle).
- Odd×odd boards have no Hamiltonian cycle (the grid is bipartite with unequal
  colour classes).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fastsnake.errors import InputError
from fastsnake.search.heap import heap_pop, heap_push
from fastsnake.snake.engine import compiled_only, kernel_copy, zeros
from fastsnake.snake.rng import below, next_u64

CYCLE_KINDS = ("zigzag", "random")
ZIGZAG, RANDOM = 0, 1


class CycleError(InputError):
    """The board admits no Hamiltonian cycle, or a given cycle is not one."""


def check_cycle_board(rows: int, cols: int) -> None:
    if (rows * cols) % 2:
        raise CycleError(
            f"a {rows}x{cols} board has no Hamiltonian cycle: rows*cols is odd "
            f"(use a board with an even side)"
        )


@njit(cache=True)
def zigzag_cells(rows, cols, out):
    """Boustrophedon cycle into `out` (needs an even side): rows swept in turn, up the first column;
    when rows are odd, the same on the transposed board (columns swept in turn)."""
    # Written without recursion or a transposed copy: each costs compile time in every cold start.
    if rows % 2 == 0:
        lines, length, line_step, step = rows, cols, cols, 1
    else:  # the cycle of the cols x rows board, cell (r, c) there being (c, r) here
        lines, length, line_step, step = cols, rows, 1, cols
    k = 0
    for r in range(lines):
        if r % 2 == 0:
            for c in range(1, length):
                out[k] = r * line_step + c * step
                k += 1
        else:
            for c in range(length - 1, 0, -1):
                out[k] = r * line_step + c * step
                k += 1
    for r in range(lines - 1, -1, -1):
        out[k] = r * line_step
        k += 1


@njit(cache=True)
def random_tree(hr, hc, rng):
    """Random spanning tree of the hr×hc grid by Prim with random edge weights.

    Returns per node a bit set of tree edges: 1 up, 2 right, 4 down, 8 left.
    """
    m = hr * hc
    bits = zeros(m, np.uint8)
    in_tree = zeros(m, np.uint8)
    heap = zeros(4 * m + 4, np.int64)
    size = 0
    root = below(rng, m)
    in_tree[root] = 1
    added = 1
    u = root
    while True:
        r, c = u // hc, u % hc
        for d in range(4):
            if d == 0 and r == 0 or d == 1 and c == hc - 1 or d == 2 and r == hr - 1 or d == 3 and c == 0:
                continue
            v = u - hc if d == 0 else (u + 1 if d == 1 else (u + hc if d == 2 else u - 1))
            if in_tree[v] == 0:
                weight = np.int64(next_u64(rng) >> np.uint64(33))
                size = heap_push(heap, size, (weight << 20) | (u << 2) | d)
        if added == m:
            break
        while True:
            key, size = heap_pop(heap, size)
            d = key & 3
            u = (key >> 2) & 0x3FFFF
            v = u - hc if d == 0 else (u + 1 if d == 1 else (u + hc if d == 2 else u - 1))
            if in_tree[v] == 0:
                break
        bits[u] |= np.uint8(1 << d)
        bits[v] |= np.uint8(1 << ((d + 2) % 4))
        in_tree[v] = 1
        added += 1
        u = v
    return bits


random_tree_k = kernel_copy(random_tree)


@compiled_only
def tree_outline_next(rows, cols, bits, nxt, width):
    """Successor of each cell when walking around the tree of 2×2 blocks.

    Without tree edges each block is a counter-clockwise 4-cycle; a tree edge
    between two blocks merges their loops by re-routing the two parallel sides.
    Cell (r, c) is `r * width + c` (`width` ≥ `cols`: the outline of the first
    `cols` columns of a wider board).
    """
    hc = cols // 2
    for r in range(rows):
        for c in range(cols):
            cell = r * width + c
            b = bits[(r // 2) * hc + c // 2]
            pr, pc = r % 2, c % 2
            if pr == 0 and pc == 0:
                nxt[cell] = cell - 1 if b & 8 else cell + width
            elif pr == 1 and pc == 0:
                nxt[cell] = cell + width if b & 4 else cell + 1
            elif pr == 1 and pc == 1:
                nxt[cell] = cell + 1 if b & 2 else cell - width
            else:
                nxt[cell] = cell - width if b & 1 else cell - 1


@compiled_only
def _flip_squares(rows, cols, nxt, rng, attempts):
    """Random 2×2 flips that keep `nxt` a single Hamiltonian cycle."""
    n = rows * cols
    seg = zeros(n, np.int32)
    for _ in range(attempts):
        r = below(rng, rows - 1)
        c = below(rng, cols - 1)
        a = r * cols + c
        b, cc, dd = a + 1, a + cols, a + cols + 1
        # Parallel edges u1->v1 and u2->v2 with u1~u2 and v1~v2 adjacent.
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
        # Cycle: u1->v1 ..A.. u2->v2 ..B.. u1. New edges u1-u2 and v1-v2; one of
        # A or B changes direction: walk both at once and reverse the shorter.
        x, y = v1, v2
        while x != u2 and y != u1:
            x = nxt[x]
            y = nxt[y]
        if x == u2:
            start, end = v1, u2  # reverse A: u1->u2 ->(A back)-> v1->v2
        else:
            start, end = v2, u1  # reverse B: u2->u1 ->(B back)-> v2->v1
        m = 0
        x = start
        while True:
            seg[m] = x
            m += 1
            if x == end:
                break
            x = nxt[x]
        for k in range(m - 1, 0, -1):
            nxt[seg[k]] = seg[k - 1]
        if x == u2:
            nxt[u1] = u2
            nxt[v1] = v2
        else:
            nxt[u2] = u1
            nxt[v2] = v1


@njit(cache=True)
def random_cells(rows, cols, rng, out):
    """A random Hamiltonian cycle into `out`; rows*cols must be even.

    Built on a board with even rows: this one, or, when rows are odd, the transposed board (cell
    (r, c) there being (c, r) here). Even×even: the outline of a random block tree. Odd columns:
    the tree's outline on the first cols-1 columns, the last column spliced in as two-cell
    detours, then random 2×2 flips. The cells are read off from cell 0, mapped back as they go."""
    # One pass, without recursion or a transposed copy (as `zigzag_cells`): each cost compile time
    # in every cold start of a random-cycle kernel (issue 44). Same cycles for the same stream as
    # the recursive original (tests/snake/cycles_naive.py).
    if rows % 2 == 0:
        vrows, vcols, line_step, step = rows, cols, cols, 1
    else:
        vrows, vcols, line_step, step = cols, rows, 1, cols
    n = rows * cols
    nxt = zeros(n, np.int32)
    if vcols % 2 == 0:
        tree_outline_next(vrows, vcols, random_tree_k(vrows // 2, vcols // 2, rng), nxt, vcols)
    else:
        # Tree cycle on the first vcols-1 columns, the last column spliced in.
        e = vcols - 2
        tree_outline_next(vrows, e + 1, random_tree_k(vrows // 2, (e + 1) // 2, rng), nxt, vcols)
        for r in range(0, vrows, 2):
            # In the rightmost block column the outline runs up: (r+1, e) -> (r, e).
            lower, upper = (r + 1) * vcols + e, r * vcols + e
            nxt[lower] = lower + 1
            nxt[lower + 1] = upper + 1
            nxt[upper + 1] = upper
        _flip_squares(vrows, vcols, nxt, rng, n)
    cell = 0
    for k in range(n):
        r = cell // vcols
        out[k] = r * line_step + (cell - r * vcols) * step
        cell = nxt[cell]


random_cells_k = kernel_copy(random_cells)


@njit(cache=True)
def cycle_tables(cells, order, nxt_move, nbr):
    """order[cell] = position on the cycle; nxt_move[cell] = move to the successor."""
    n = cells.shape[0]
    for k in range(n):
        order[cells[k]] = k
    for k in range(n):
        cell = cells[k]
        succ = cells[k + 1] if k + 1 < n else cells[0]
        for move in range(4):
            if nbr[cell * 4 + move] == succ:
                nxt_move[cell] = move


def make_cycle(rows: int, cols: int, kind: str = "zigzag", seed: int = 0) -> np.ndarray:
    """Cells of a Hamiltonian cycle in order (int32). Raises CycleError on odd×odd."""
    check_cycle_board(rows, cols)
    if kind not in CYCLE_KINDS:
        raise CycleError(f"cycle kind {kind!r} is not one of {', '.join(CYCLE_KINDS)}")
    out = np.empty(rows * cols, np.int32)
    if kind == "zigzag":
        zigzag_cells(rows, cols, out)
    else:
        rng = np.array([np.uint64(seed), np.uint64(seed)], dtype=np.uint64)
        random_cells(rows, cols, rng, out)
    return out


def cycle_problem(cells, rows: int, cols: int) -> str | None:
    """Why `cells` is not a Hamiltonian cycle of the rows×cols grid, or None if it is."""
    cells = [int(x) for x in np.asarray(cells).ravel()]
    n = rows * cols
    if len(cells) != n:
        return f"has {len(cells)} cells, the board has {n}"
    if sorted(cells) != list(range(n)):
        return "does not visit every cell exactly once"
    for k in range(n):
        a, b = cells[k], cells[(k + 1) % n]
        (ra, ca), (rb, cb) = divmod(a, cols), divmod(b, cols)
        if abs(ra - rb) + abs(ca - cb) != 1:
            return f"steps from cell {a} to non-adjacent cell {b} at position {k}"
    return None


def validate_cycle(cells, rows: int, cols: int) -> None:
    problem = cycle_problem(cells, rows, cols)
    if problem is not None:
        raise CycleError(f"not a Hamiltonian cycle of the {rows}x{cols} board: it {problem}")


def order_of(cells) -> np.ndarray:
    cells = np.asarray(cells)
    order = np.empty(cells.shape[0], dtype=np.int32)
    order[cells] = np.arange(cells.shape[0], dtype=np.int32)
    return order
