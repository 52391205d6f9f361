"""The outline-walk fallback: a spanning tree of blocks through the body's crossings, walked to the apple.

Without an accepted plan the snake walks the outline of a spanning tree that contains the body's
crossings (and avoids the edges it passes along); `outline_plan` builds one tree breadth first,
`outline_best` the shortest walk over a few trees (`bfs_tree` variants and `greedy_tree`).
"""

import numpy as np
from numba import njit

from fastsnake.snake.celltree.layout import (
    I_BLOCK_OF,
    I_BLOCK_QUEUE,
    I_PLAN,
    I_RIGHT_HAND,
    I_SIDE_EDGE,
    I_STAMPS,
    I_TREE_BITS,
    L_COLS,
    MOVES_ROW,
    STAMP_ROWS,
    STAMPS_CROSSED,
    STAMPS_PASSED,
    X_PARAMS,
    X_TREE_PARENT,
    X_TREE_QUEUE,
    segment,
)
from fastsnake.snake.celltree.link import I32, I64, INT, STATE, symbol_call
from fastsnake.snake.celltree.outline import next_generation
from fastsnake.snake.celltree.params import P_OUTLINE
from fastsnake.snake.engine import compiled_only


@njit(cache=True, inline="always")
def seed_tree(body, st, blk, side, stamp, queue, bits, gen, nb, hc, nth):
    """Start a spanning tree of blocks from the body, walked head first: its blocks (stamped `gen`)
    go to `queue`, the block edges it crosses become tree edges in `bits` (cleared first), and the
    edges it passes along inside a block are forbidden (stamp[STAMPS_PASSED * nb + e] = gen). Returns (blocks
    queued, the nth block queued or -1)."""
    n = body.shape[0]
    forb = STAMPS_PASSED * nb
    bits[:] = 0
    tail = 0
    src = -1
    i = st.head_i
    prev = -1
    for _ in range(st.length):
        cell = body[i]
        i -= 1
        if i < 0:
            i = n - 1
        b = blk[cell]
        if stamp[b] != gen:
            stamp[b] = gen
            queue[tail] = b
            tail += 1
            if tail == nth:
                src = b
        if prev >= 0:
            e = side[cell]  # the move cell -> prev leaves across cell's side or stays in its block
            if e >= 0:
                if blk[prev] == b:
                    stamp[forb + e] = gen
                else:
                    set_tree_edge(bits, e, hc)
        prev = cell
    return tail, src


@njit(cache=True, inline="always")
def set_tree_edge(bits, e, hc):
    """Add block edge e to the tree `bits` (both blocks' direction bits: 1 up, 2 right, 4 down, 8 left)."""
    b = e >> 1
    if e & 1:
        bits[b] |= 4
        bits[b + hc] |= 1
    else:
        bits[b] |= 2
        bits[b + 1] |= 8


@njit(cache=True, inline="always")
def start_tree(I, L, body, st, nth):
    """A new stamp generation and `seed_tree` of the body.

    Returns
    -------
    blk, side, stamp, queue, bits : views of I's segments
        `block_of`, `side_edge`, `stamps`, `block_queue`, `tree_bits` (the tree so far).
    gen, tail, src : int
        The generation, the blocks queued and the nth block queued (see `seed_tree`).
    """
    n = body.shape[0]
    nb = n // 4
    blk = segment(I, I_BLOCK_OF, n)
    side = segment(I, I_SIDE_EDGE, n)
    stamp = segment(I, I_STAMPS, STAMP_ROWS * nb)
    queue = segment(I, I_BLOCK_QUEUE, nb)
    bits = segment(I, I_TREE_BITS, nb)
    gen = next_generation(L, stamp)
    tail, src = seed_tree(body, st, blk, side, stamp, queue, bits, gen, nb, L[L_COLS] // 2, nth)
    return blk, side, stamp, queue, bits, gen, tail, src


@njit(cache=True, inline="always")
def grow_tree(stamp, queue, bits, tail, gen, nb, hc, rot, closed):
    """Grow the tree breadth first from queue[:tail] over every block not in it (stamped `gen`), across
    edges not passed along (the STAMPS_PASSED rows) and, with `closed`, not closed (the STAMPS_CROSSED rows);
    directions in the order (d + rot) & 3 (0 up, 1 right, 2 down, 3 left). Returns the blocks queued."""
    forb, crossed = STAMPS_PASSED * nb, STAMPS_CROSSED * nb
    head = 0
    while head < tail:
        b = queue[head]
        head += 1
        for dd in range(4):
            o, e = neighbour_block(b, (dd + rot) & 3, hc, nb)
            if o < 0 or stamp[o] == gen or stamp[forb + e] == gen or (closed and stamp[crossed + e] == gen):
                continue
            stamp[o] = gen
            queue[tail] = o
            tail += 1
            set_tree_edge(bits, e, hc)
    return tail


@compiled_only
def outline_plan(I, L, body, st):
    """Commit to the outline of a spanning tree through the body's crossings, up to the apple.

    Blocks are attached breadth-first from the body's blocks, head first, so
    the outline leaves the head into free blocks nearby. Returns the plan length.
    """
    cols = L[L_COLS]
    n = body.shape[0]
    _blk, _side, stamp, queue, bits, gen, tail, _src = start_tree(I, L, body, st, 0)
    grow_tree(stamp, queue, bits, tail, gen, n // 4, cols // 2, 0, False)
    return walk_plan(I, n, cols, bits, st)


@njit(cache=True, inline="always")
def walk_plan(I, n, cols, bits, st):
    """Commit the walk along the outline of the tree `bits` from the head to the apple: its moves into I's
    `plan`; returns their number."""
    plan = segment(I, I_PLAN, 2 * n + 2)
    nbr2 = segment(I, I_RIGHT_HAND, MOVES_ROW * n)
    hc = cols // 2
    cell = st.head
    steps = 0
    while cell != st.apple and steps < n:
        to = outline_step(cols, hc, bits, cell)
        for move in range(4):
            if nbr2[MOVES_ROW * cell + move] == to:
                plan[steps] = move
        steps += 1
        cell = to
    return steps


@njit(cache=True, inline="always")
def neighbour_block(b, d, hc, nb):
    """The block next to b in direction d (0 up, 1 right, 2 down, 3 left) and their edge; (-1, -1): none."""
    if d == 0:
        if b < hc:
            return -1, -1
        return b - hc, 2 * (b - hc) + 1
    if d == 1:
        if (b % hc) + 1 >= hc:
            return -1, -1
        return b + 1, 2 * b
    if d == 2:
        if b + hc >= nb:
            return -1, -1
        return b + hc, 2 * b + 1
    if b % hc == 0:
        return -1, -1
    return b - 1, 2 * (b - 1)


@njit(cache=True, inline="always")
def outline_step(cols, hc, bits, cell):
    """The successor of `cell` on the outline of the tree `bits` (as `tree_outline_next`)."""
    r, c = cell // cols, cell % cols
    b = bits[(r // 2) * hc + c // 2]
    pr, pc = r % 2, c % 2
    if pr == 0 and pc == 0:
        return cell - 1 if b & 8 else cell + cols
    if pr == 1 and pc == 0:
        return cell + cols if b & 4 else cell + 1
    if pr == 1 and pc == 1:
        return cell + 1 if b & 2 else cell - cols
    return cell - cols if b & 1 else cell - 1


@compiled_only
def bfs_tree(I, L, X, body, st, variant):
    """A spanning tree of blocks through the body's crossings into I_TREE_BITS (as cell's `outline_plan`).

    variant & 3 rotates the order of directions of the breadth-first growth; variant >> 2 = k > 0
    first joins the apple's block by a shortest path of blocks without body from the k-th block
    of the body (head first), if there is one.
    """
    blk, _side, stamp, queue, bits, gen, tail, src = start_tree(I, L, body, st, variant >> 2)
    nb, hc, rot = queue.shape[0], L[L_COLS] // 2, variant & 3
    forb = STAMPS_PASSED * nb
    par = segment(X, X_TREE_PARENT, nb)
    ab = blk[st.apple]
    if src >= 0 and stamp[ab] != gen:
        # Breadth first from src over blocks without body (stamp gen + 1 marks them seen).
        mark = gen + 1
        par[ab] = -1
        q0 = tail
        qt = tail
        queue[qt] = src
        qt += 1
        found = False
        while q0 < qt and not found:
            b = queue[q0]
            q0 += 1
            for dd in range(4):
                o, e = neighbour_block(b, (dd + rot) & 3, hc, nb)
                if o < 0 or stamp[o] == gen or stamp[o] == mark or stamp[forb + e] == gen:
                    continue
                stamp[o] = mark
                par[o] = e
                queue[qt] = o
                qt += 1
                if o == ab:
                    found = True
                    break
        # Undo the marks, then join the path.
        for k in range(tail, qt):
            if stamp[queue[k]] == mark:
                stamp[queue[k]] = 0
        if found:
            b = ab
            while b != src:
                e = par[b]
                set_tree_edge(bits, e, hc)
                stamp[b] = gen
                queue[tail] = b
                tail += 1
                o1 = e >> 1
                o2 = o1 + (hc if e & 1 else 1)
                b = o1 if b == o2 else o2
    grow_tree(stamp, queue, bits, tail, gen, nb, hc, rot, False)


@compiled_only
def greedy_tree(I, L, X, body, st):
    """A spanning tree through the body's crossings built while walking its outline from the head: a free
    block is joined across the side the walk passes when it is nearer the apple's block (block distance over
    edges the body does not pass along), else that side stays closed; once at the apple the tree is
    completed breadth first (the closed sides last). Into I_TREE_BITS."""
    blk, side, stamp, queue, bits, gen, tail, _src = start_tree(I, L, body, st, 0)
    cols = L[L_COLS]
    hc, n, nb = cols // 2, body.shape[0], queue.shape[0]
    dist = segment(X, X_TREE_PARENT, nb)
    forb, decl = STAMPS_PASSED * nb, STAMPS_CROSSED * nb
    # Block distances to the apple's block over edges not passed along (queue after the body's blocks).
    q2 = X[X[X_TREE_QUEUE]:X[X_TREE_QUEUE] + nb]
    dist[:] = nb + 1
    ab = blk[st.apple]
    dist[ab] = 0
    q0 = 0
    qt = 0
    q2[qt] = ab
    qt += 1
    while q0 < qt:
        b = q2[q0]
        q0 += 1
        for dd in range(4):
            o, e = neighbour_block(b, dd, hc, nb)
            if o < 0 or dist[o] <= nb or stamp[forb + e] == gen:
                continue
            dist[o] = dist[b] + 1
            q2[qt] = o
            qt += 1
    # Walk from the head, joining blocks nearer the apple.
    cell = st.head
    steps = 0
    while cell != st.apple and steps < n:
        e = side[cell]
        if e >= 0 and stamp[forb + e] != gen and stamp[decl + e] != gen:
            b = blk[cell]
            o1 = e >> 1
            o = o1 + (hc if e & 1 else 1)
            if o == b:
                o = o1
            if stamp[o] != gen:
                if dist[o] < dist[b]:
                    stamp[o] = gen
                    queue[tail] = o
                    tail += 1
                    set_tree_edge(bits, e, hc)
                else:
                    stamp[decl + e] = gen
        cell = outline_step(cols, hc, bits, cell)
        steps += 1
    # Complete: breadth first without the closed sides, then with them.
    for rnd in range(2):
        tail = grow_tree(stamp, queue, bits, tail, gen, nb, hc, 0, rnd == 0)
        if tail == nb:
            break


@compiled_only
def outline_best(I, L, X, body, st):
    """The outline walk over the best of a few spanning trees (`bfs_tree` variants): the shortest walk to the apple."""
    cols = L[L_COLS]
    hc = cols // 2
    n = body.shape[0]
    nb = n // 4
    bits = segment(I, I_TREE_BITS, nb)
    mode = X[X_PARAMS + P_OUTLINE]
    nvar = mode - 1000 if mode >= 1000 else 4 * (mode + 1)
    best, best_len = 0, n + 1
    for v in range(nvar + 1):
        if v == nvar:
            greedy_tree(I, L, X, body, st)
        else:
            bfs_tree(I, L, X, body, st, np.int64(v))
        cell = st.head
        steps = 0
        while cell != st.apple and steps < best_len:
            cell = outline_step(cols, hc, bits, cell)
            steps += 1
        if steps < best_len:
            best, best_len = v, steps
    if best == nvar:
        greedy_tree(I, L, X, body, st)
    else:
        bfs_tree(I, L, X, body, st, np.int64(best))
    return walk_plan(I, n, cols, bits, st)


# The re-search calls the outline walks through these (`link`): compiled once a process, not again in
# every function that calls them.
OUTLINE_PLAN = ("fastsnake_celltree_outline_plan_v1", outline_plan, INT(I32, I64, I32, STATE))
OUTLINE_BEST = ("fastsnake_celltree_outline_best_v1", outline_best, INT(I32, I64, I64, I32, STATE))
call_outline_plan = symbol_call(*OUTLINE_PLAN)
call_outline_best = symbol_call(*OUTLINE_BEST)
