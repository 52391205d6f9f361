"""Slow, obviously-correct references for the cell-tree and dhcr agents' tests."""

from itertools import combinations, pairwise


def block_edges(rows, cols):
    """Edges of the (rows/2)x(cols/2) block grid as pairs of block indices."""
    hr, hc = rows // 2, cols // 2
    edges = []
    for b in range(hr * hc):
        r, c = divmod(b, hc)
        if c + 1 < hc:
            edges.append((b, b + 1))
        if r + 1 < hr:
            edges.append((b, b + hc))
    return edges


def is_spanning_tree(count, edges):
    parent = list(range(count))

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra == rb:
            return False
        parent[ra] = rb
    return len(edges) == count - 1


def outline_successor(rows, cols, tree):
    """Successor of every cell walking round the tree of 2x2 blocks (counter-clockwise blocks)."""
    hc = cols // 2
    linked = set()
    for a, b in tree:
        linked.add((a, b))
        linked.add((b, a))
    nxt = {}
    for r in range(rows):
        for c in range(cols):
            cell = r * cols + c
            b = (r // 2) * hc + c // 2
            pr, pc = r % 2, c % 2
            if (pr, pc) == (0, 0):
                nxt[cell] = cell - 1 if (b, b - 1) in linked and c // 2 > 0 else cell + cols
            elif (pr, pc) == (1, 0):
                nxt[cell] = cell + cols if (b, b + hc) in linked else cell + 1
            elif (pr, pc) == (1, 1):
                nxt[cell] = cell + 1 if (b, b + 1) in linked and c // 2 < hc - 1 else cell - cols
            else:
                nxt[cell] = cell - cols if (b, b - hc) in linked else cell - 1
    return nxt


def walk_on_some_outline(rows, cols, walk):
    """Is `walk` a stretch of the outline of some spanning tree of the blocks? (all trees tried)"""
    count = (rows // 2) * (cols // 2)
    edges = block_edges(rows, cols)
    for tree in combinations(edges, count - 1):
        if not is_spanning_tree(count, tree):
            continue
        nxt = outline_successor(rows, cols, tree)
        if all(nxt[a] == b for a, b in pairwise(walk)):
            return True
    return False


def right_hand_moves(rows, cols, cell):
    """The two cells a right-hand driver may enter from `cell` (off-board ones dropped)."""
    r, c = divmod(cell, cols)
    pr, pc = r % 2, c % 2
    steps = {(0, 0): ((0, -1), (1, 0)), (1, 0): ((1, 0), (0, 1)), (1, 1): ((0, 1), (-1, 0)), (0, 1): ((-1, 0), (0, -1))}
    out = []
    for dr, dc in steps[(pr, pc)]:
        nr, nc = r + dr, c + dc
        if 0 <= nr < rows and 0 <= nc < cols:
            out.append(nr * cols + nc)
    return out


def blocks_reached(rows, cols, walk):
    """Blocks reachable from the walk's last block without using a block edge the walk passes along.

    A move between two cells of one block passes along the side of the cell it
    leaves (`side_edge`); the block edge behind that side is not usable.
    """
    hr, hc = rows // 2, cols // 2
    closed = {side_edge(rows, cols, a) for a, b in pairwise(walk)
              if block_of(rows, cols, a) == block_of(rows, cols, b)}
    start = block_of(rows, cols, walk[-1])
    seen = {start}
    todo = [start]
    while todo:
        b = todo.pop()
        r, c = divmod(b, hc)
        # (neighbour, edge between them): edge 2x joins x to its right, 2x+1 to the block below.
        for ok, o, e in ((r > 0, b - hc, 2 * (b - hc) + 1), (r + 1 < hr, b + hc, 2 * b + 1),
                         (c > 0, b - 1, 2 * (b - 1)), (c + 1 < hc, b + 1, 2 * b)):
            if ok and o not in seen and e not in closed:
                seen.add(o)
                todo.append(o)
    return seen


def block_of(rows, cols, cell):
    """The 2x2 block of a cell, numbered row by row."""
    r, c = divmod(cell, cols)
    return (r // 2) * (cols // 2) + c // 2


def side_edge(rows, cols, cell):
    """The block edge across the cell's own right-hand side (-1 on the border).

    Edge 2b joins block b to the block on its right, 2b+1 to the block below. The
    cell's own side: top-left: left, bottom-left: down, bottom-right: right, top-right: up.
    """
    r, c = divmod(cell, cols)
    hr, hc = rows // 2, cols // 2
    br, bc = r // 2, c // 2
    b = br * hc + bc
    corner = (r % 2, c % 2)
    if corner == (0, 0):
        return 2 * (b - 1) if bc > 0 else -1
    if corner == (1, 0):
        return 2 * b + 1 if br < hr - 1 else -1
    if corner == (1, 1):
        return 2 * b if bc < hc - 1 else -1
    return 2 * (b - hc) + 1 if br > 0 else -1


def cell_passable_spec(rows, cols, seq, slack, avoid=-1):
    """The `cell` policy's time-aware passability, as tables over the body.

    seq: the body tail first (seq[-1] the head, entered now); slack: 1 (tail rule
    follow) or 2 (blocked); avoid: a cell never entered (-1: none). Returns
    passable(frm, to, gm), gm >= 1 being the move (counted from now) that enters `to`:

        free_at[c]   = k + slack if c == seq[k], else 0; free_at[avoid] = infinity
        blk_free[b]  = max(free_at[c] for body cells c in block b), 0 if none
        edge_until[e] = max over k >= 1 with blk[seq[k-1]] != blk[seq[k]] and
                        e = side[seq[k-1]] of (k - 1 + slack) - 1; default 0
        passable = gm >= free_at[to] and (blk[frm] == blk[to] or blk_free[blk[to]] <= gm
                                          or edge_until[side[frm]] >= gm)
    """
    free_at = {}
    blk_free = {}
    for k, c in enumerate(seq):
        free_at[c] = k + slack
        b = block_of(rows, cols, c)
        blk_free[b] = max(blk_free.get(b, 0), k + slack)
    if avoid >= 0:
        free_at[avoid] = float("inf")
    edge_until = {}
    for k in range(1, len(seq)):
        a, c = seq[k - 1], seq[k]
        if block_of(rows, cols, a) != block_of(rows, cols, c):
            e = side_edge(rows, cols, a)
            edge_until[e] = max(edge_until.get(e, 0), (k - 1 + slack) - 1)

    def passable(frm, to, gm):
        if gm < free_at.get(to, 0):
            return False
        bf, bt = block_of(rows, cols, frm), block_of(rows, cols, to)
        return bf == bt or blk_free.get(bt, 0) <= gm or edge_until.get(side_edge(rows, cols, frm), 0) >= gm

    return passable
