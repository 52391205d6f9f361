"""The board as 2×2 blocks: right-hand moves, blocks and sides, block links, and tables derived from them.

Every cell "drives on the right" inside its 2×2 block: one move within the block, one across
its own side into the neighbouring block. Block edge 2b joins block b to its right neighbour,
2b + 1 to the block below. Also the leg table the A* legs read and the by-distance cell order
of the detour scan (through the left-right mirror symmetry of right-hand distances).
"""

import numpy as np
from numba import njit

from fastsnake.snake.celltree.layout import (
    I_BLOCK_OF,
    I_DISTANCES,
    I_RIGHT_HAND,
    I_SIDE_EDGE,
    LEG_EDGE,
    LEG_IN,
    LEG_OUT,
    LEG_OUTBLK,
    LEG_ROW,
    LINK_BLOCK,
    LINK_EDGE,
    LINK_PAIR,
    LINK_ROW,
    MOVES_ROW,
    segment,
)


@njit(cache=True)
def right_hand_table(nbr, rows, cols):
    """nbr restricted to right-hand driving in 2×2 blocks (forbidden moves -1).

    Inside a block the cells turn counter-clockwise (top-left -> down ->
    bottom-left -> right -> bottom-right -> up -> top-right -> left); each cell may
    instead leave across its own side: TL left, BL down, BR right, TR up.
    """
    n = rows * cols
    out = np.full(n * 4, -1, np.int32)
    for cell in range(n):
        r, c = cell // cols, cell % cols
        pr, pc = r % 2, c % 2
        if pr == 0 and pc == 0:
            a, b = 3, 2
        elif pr == 1 and pc == 0:
            a, b = 2, 1
        elif pr == 1 and pc == 1:
            a, b = 1, 0
        else:
            a, b = 0, 3
        out[cell * 4 + a] = nbr[cell * 4 + a]
        out[cell * 4 + b] = nbr[cell * 4 + b]
    return out


@njit(cache=True)
def block_tables(rows, cols):
    """Block of each cell, and the block edge across the cell's own side (-1 on the border).

    Edge 2b joins block b to its right neighbour, edge 2b+1 to the block below.
    """
    n = rows * cols
    hr, hc = rows // 2, cols // 2
    blk = np.empty(n, np.int32)
    side = np.full(n, -1, np.int32)
    for cell in range(n):
        r, c = cell // cols, cell % cols
        br, bc = r // 2, c // 2
        b = br * hc + bc
        blk[cell] = b
        pr, pc = r % 2, c % 2
        if pr == 0 and pc == 0:
            if bc > 0:
                side[cell] = 2 * (b - 1)
        elif pr == 1 and pc == 0:
            if br < hr - 1:
                side[cell] = 2 * b + 1
        elif pr == 1 and pc == 1:
            if bc < hc - 1:
                side[cell] = 2 * b
        else:
            if br > 0:
                side[cell] = 2 * (b - hc) + 1
    return blk, side


@njit(cache=True)
def block_links(rows, cols):
    """Per block b a row of LINK_ROW entries (`layout.LINK_ROW`): for each direction d (a move) the block
    next to b that way (LINK_BLOCK, -1: none) and the block edge between them (LINK_EDGE)."""
    hr, hc = rows // 2, cols // 2
    nb = hr * hc
    links = np.full(LINK_ROW * nb, -1, np.int32)
    for b in range(nb):
        br, bc = b // hc, b % hc
        if br > 0:
            link(links, b, 0, b - hc, 2 * (b - hc) + 1)
        if bc + 1 < hc:
            link(links, b, 1, b + 1, 2 * b)
        if br + 1 < hr:
            link(links, b, 2, b + hc, 2 * b + 1)
        if bc > 0:
            link(links, b, 3, b - 1, 2 * (b - 1))
    return links


@njit(cache=True, inline="always")
def link(links, b, d, other, edge):
    """Block `b`'s link in direction `d`: the block `other` across block edge `edge`."""
    at = LINK_ROW * b + LINK_PAIR * d
    links[at + LINK_BLOCK] = other
    links[at + LINK_EDGE] = edge


@njit(cache=True)
def block_edge_masks(rows, cols):
    """Bit b set: block b has a right neighbour (first mask), a neighbour below (second)."""
    hr, hc = rows // 2, cols // 2
    right, down = 0, 0
    for b in range(hr * hc):
        if b % hc + 1 < hc:
            right |= 1 << b
        if b // hc + 1 < hr:
            down |= 1 << b
    return right, down


@njit(cache=True)
def leg_table(I, n, out):
    """The two right-hand moves of every cell, with what `passable` reads of a move across a side."""
    nbr2, blk, side = segment(I, I_RIGHT_HAND, MOVES_ROW * n), segment(I, I_BLOCK_OF, n), segment(I, I_SIDE_EDGE, n)
    for u in range(n):
        at = LEG_ROW * u
        out[at + LEG_IN] = -1
        out[at + LEG_OUT] = -1
        out[at + LEG_OUTBLK] = -1
        out[at + LEG_EDGE] = -1
        for move in range(4):
            v = nbr2[MOVES_ROW * u + move]
            if v < 0:
                continue
            if blk[v] == blk[u]:
                out[at + LEG_IN] = v
            else:
                out[at + LEG_OUT] = v
                out[at + LEG_OUTBLK] = blk[v]
                out[at + LEG_EDGE] = side[u]


@njit(cache=True, inline="always")
def mirror(cols, cell):
    """The cell mirrored left to right: right-hand distance a -> b equals mirror(b) -> mirror(a)."""
    r = cell // cols
    return r * cols + cols - 1 - (cell - r * cols)


@njit(cache=True)
def distance_order(I, n, cols, out):
    """out[g*n:(g+1)*n]: the cells x in order of (right-hand distance mirror(g) -> x, x).

    Row g of the distance table holds distances to g; distance a -> b equals
    mirror(b) -> mirror(a), so ordering row g by (distance, mirror(cell)) lists the
    mirrored cells by distance from mirror(g). A counting sort by distance over the
    mirrored cells in increasing order (an argsort would compile numba's quicksort:
    half a second of every cold compile).
    """
    table = I[I[I_DISTANCES]:I[I_DISTANCES] + n * n]
    top = 0
    for d in table:
        top = max(top, d)
    start = np.empty(top + 2, np.int64)
    for g in range(n):
        row = table[g * n:(g + 1) * n]
        for d in range(top + 2):
            start[d] = 0
        for c in range(n):
            start[row[c] + 1] += 1
        for d in range(top + 1):
            start[d + 1] += start[d]
        for m in range(n):  # the mirrored cell; mirror is its own inverse
            d = row[mirror(cols, m)]
            out[g * n + start[d]] = m
            start[d] += 1
