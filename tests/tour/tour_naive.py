"""Slow, obviously-correct pure-Python references for the tour package tests."""

from __future__ import annotations

from itertools import pairwise


def moves(rows, cols, jumps, v):
    r, c = divmod(v, cols)
    out = []
    for dr, dc in jumps:
        nr, nc = r + dr, c + dc
        if 0 <= nr < rows and 0 <= nc < cols:
            out.append(nr * cols + nc)
    return out


def check_tour(rows, cols, jumps, path, closed=False):
    """Independent checker: every square exactly once, every step a jump of the piece,
    and the closing jump for closed tours. Returns None or the problem."""
    path = [int(v) for v in path]
    n = rows * cols
    if sorted(path) != list(range(n)):
        return "not a permutation of the squares"
    legal = {tuple(j) for j in jumps}
    steps = list(pairwise(path))
    if closed:
        steps.append((path[-1], path[0]))
    for a, b in steps:
        (ar, ac), (br, bc) = divmod(a, cols), divmod(b, cols)
        if (br - ar, bc - ac) not in legal:
            return f"{a}->{b} is not a jump"
    return None


def count_tours(rows, cols, jumps, start, closed=False, stop_at=None):
    """Directed tours from `start` by plain DFS (closed: must leap back to start);
    stops early once `stop_at` tours are found."""
    n = rows * cols
    adj = [moves(rows, cols, jumps, v) for v in range(n)]
    seen = [False] * n
    seen[start] = True
    total = 0

    def go(v, depth):
        nonlocal total
        if depth == n:
            if not closed or start in adj[v]:
                total += 1
            return
        for w in adj[v]:
            if stop_at is not None and total >= stop_at:
                return
            if not seen[w]:
                seen[w] = True
                go(w, depth + 1)
                seen[w] = False

    go(start, 1)
    return total


def shortest(rows, cols, jumps, start):
    dist = {start: 0}
    frontier = [start]
    while frontier:
        nxt = []
        for v in frontier:
            for w in moves(rows, cols, jumps, v):
                if w not in dist:
                    dist[w] = dist[v] + 1
                    nxt.append(w)
        frontier = nxt
    return dist


def reach_exact(rows, cols, jumps, start, n):
    return sorted(v for v, d in shortest(rows, cols, jumps, start).items() if d == n)


def reach_walk(rows, cols, jumps, start, n):
    """The seed's level BFS: a square may be re-added at every level."""
    level = {start}
    for _ in range(n):
        level = {w for v in level for w in moves(rows, cols, jumps, v)}
    return sorted(level)


def warnsdorff(rows, cols, jumps, start):
    """Plain Warnsdorff without backtracking (ties by jump order), the seed's heuristic:
    a baseline for the benchmarks. Returns the path, possibly shorter than the board."""
    n = rows * cols
    adj = [moves(rows, cols, jumps, v) for v in range(n)]
    deg = [len(a) for a in adj]
    seen = [False] * n
    path = [start]
    seen[start] = True
    for w in adj[start]:
        deg[w] -= 1
    v = start
    while len(path) < n:
        best = -1
        for w in adj[v]:
            if not seen[w] and (best < 0 or deg[w] < deg[best]):
                best = w
        if best < 0:
            break
        v = best
        seen[v] = True
        path.append(v)
        for w in adj[v]:
            deg[w] -= 1
    return path
