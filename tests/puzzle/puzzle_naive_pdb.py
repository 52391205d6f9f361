"""Pure-Python pattern-database values by Dijkstra over (pattern tile cells, blank cell)."""

import heapq


def pattern_distances(rows, cols, goal, tiles):
    """{tuple of cells of `tiles`: fewest moves of those tiles to the goal placement}."""
    where = {int(t): i for i, t in enumerate(goal)}
    start = (tuple(where[t] for t in tiles), where[0])
    best = {start: 0}
    heap = [(0, start)]
    while heap:
        d, (cells, blank) = heapq.heappop(heap)
        if best.get((cells, blank)) != d:
            continue
        r, c = divmod(blank, cols)
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            rr, cc = r + dr, c + dc
            if not (0 <= rr < rows and 0 <= cc < cols):
                continue
            nxt = rr * cols + cc
            if nxt in cells:
                i = cells.index(nxt)
                state = (cells[:i] + (blank,) + cells[i + 1:], nxt)
                nd = d + 1
            else:
                state = (cells, nxt)
                nd = d
            if nd < best.get(state, 1 << 30):
                best[state] = nd
                heapq.heappush(heap, (nd, state))
    out = {}
    for (cells, _), d in best.items():
        out[cells] = min(d, out.get(cells, 1 << 30))
    return out
