"""Warnsdorff depth-first search with backtracking, resumable in node budgets.

The kernel never recurses: per depth it keeps only the square (`path`) and how
many of its ordered candidates were tried (`rank`). The candidate order at a depth
is a pure function of the visited set (degrees are restored exactly on undo and
the tie-break hash is fixed by the seed), so it is recomputed on backtrack instead
of stored - 5 bytes per square, which is what lets a 4000x4000 search fit.

numba has no clock, so the kernel runs a node budget and returns; Python checks
the time between calls and calls again with the same state to resume. The same
kernel counts tours exhaustively (count mode: no ordering, every leaf counted).

Pruning, with deg = unvisited out-neighbours and indeg = unvisited in-neighbours:
an unvisited square with deg 0 can only be the last one (two such, or one on a
closed tour where the last square must still leap home, is a dead end); an
unvisited square with indeg 0 can only be entered from the current square (two
such is a dead end); a closed tour dies when every square that leaps back to the
start is used up. On a closed tour the start keeps counting in its
in-neighbours' degrees, so a square whose only exit is home is not a dead end.
"""

from __future__ import annotations

import numpy as np
from numba import config, njit

FOUND = 1
EXHAUSTED = 2
OUT_OF_BUDGET = 0

# st[] slots of the resumable state.
_DEPTH, _ZO, _ZI, _NODES, _COUNT, _CLOSERS = 0, 1, 2, 3, 4, 5
STATE_SLOTS = 8


@njit(cache=True, inline="always")
def _tie(seed, w):
    """A seeded pseudo-random 12-bit tie-break for cell `w` among equal (degree, distance)."""
    # splitmix64 finaliser: a seeded, well-mixed order among equal (degree, distance).
    x = (w + 1) * 0x9E3779B97F4A7C15 + seed * 0xBF58476D1CE4E5B9
    x ^= x >> 31
    x *= 0x94D049BB133111EB
    x ^= x >> 29
    return x & 0xFFF


_U64 = (1 << 64) - 1


def _signed64(x):
    x &= _U64
    return x - (1 << 64) if x >> 63 else x


def _tie_interpreted(seed, w):
    """`_tie` for the interpreted tier: numba does these sums in wrapping int64, Python ints do not wrap."""
    x = _signed64((int(w) + 1) * 0x9E3779B97F4A7C15 + int(seed) * 0xBF58476D1CE4E5B9)
    x ^= x >> 31
    x = _signed64(x * 0x94D049BB133111EB)
    x ^= x >> 29
    return np.int64(x & 0xFFF)


if config.DISABLE_JIT:
    _tie = _tie_interpreted  # noqa: F811


@njit(cache=True, inline="always")
def _visit(v, rows, cols, jr, jc, directed, skip_out, visited, outdeg, indeg, zo, zi):
    """Mark `v` visited and update the degrees of its leap neighbours and the dead-end counts `zo`, `zi` (returned)."""
    visited[v] = 1
    if outdeg[v] == 0:
        zo -= 1
    if directed:
        if indeg[v] == 0:
            zi -= 1
    elif outdeg[v] <= 1:
        zi -= 1
    r = v // cols
    c = v - r * cols
    k = jr.shape[0]
    if not skip_out:
        # predecessors u (u + jump = v) lose v as an exit
        for j in range(k):
            nr = r - jr[j]
            nc = c - jc[j]
            if 0 <= nr < rows and 0 <= nc < cols:
                u = nr * cols + nc
                outdeg[u] -= 1
                if visited[u] == 0:
                    if outdeg[u] == 0:
                        zo += 1
                    elif outdeg[u] == 1 and not directed:
                        zi += 1
    if directed:
        for j in range(k):
            nr = r + jr[j]
            nc = c + jc[j]
            if 0 <= nr < rows and 0 <= nc < cols:
                u = nr * cols + nc
                indeg[u] -= 1
                if indeg[u] == 0 and visited[u] == 0:
                    zi += 1
    return zo, zi


@njit(cache=True, inline="always")
def _unvisit(v, rows, cols, jr, jc, directed, skip_out, visited, outdeg, indeg, zo, zi):
    """Undo `_visit(v)`: restore the neighbours' degrees and the dead-end counts (returned)."""
    r = v // cols
    c = v - r * cols
    k = jr.shape[0]
    if directed:
        for j in range(k):
            nr = r + jr[j]
            nc = c + jc[j]
            if 0 <= nr < rows and 0 <= nc < cols:
                u = nr * cols + nc
                if indeg[u] == 0 and visited[u] == 0:
                    zi -= 1
                indeg[u] += 1
    if not skip_out:
        for j in range(k):
            nr = r - jr[j]
            nc = c - jc[j]
            if 0 <= nr < rows and 0 <= nc < cols:
                u = nr * cols + nc
                if visited[u] == 0:
                    if outdeg[u] == 0:
                        zo -= 1
                    elif outdeg[u] == 1 and not directed:
                        zi -= 1
                outdeg[u] += 1
    visited[v] = 0
    if outdeg[v] == 0:
        zo += 1
    if directed:
        if indeg[v] == 0:
            zi += 1
    elif outdeg[v] <= 1:
        zi += 1
    return zo, zi


@njit(cache=True, inline="always")
def _leaps_to(a, b, cols, jr, jc):
    """Does one of the piece's leaps (`jr`, `jc`) take cell `a` to cell `b`?"""
    ar = a // cols
    br = b // cols
    dr = br - ar
    dc = (b - br * cols) - (a - ar * cols)
    for j in range(jr.shape[0]):
        if jr[j] == dr and jc[j] == dc:
            return True
    return False


@njit(cache=True)
def _start(rows, cols, jr, jc, directed, closed, start, path, rank, visited, outdeg, indeg, st):
    """Fresh state rooted at `start`; outdeg/indeg must hold the full-board degrees."""
    n = rows * cols
    zo = 0
    zi = 0
    for v in range(n):
        visited[v] = 0
        if outdeg[v] == 0:
            zo += 1
        if directed:
            if indeg[v] == 0:
                zi += 1
        elif outdeg[v] <= 1:
            zi += 1
    zo, zi = _visit(start, rows, cols, jr, jc, directed, closed, visited, outdeg, indeg, zo, zi)
    closers = 0
    if closed:
        r = start // cols
        c = start - r * cols
        for j in range(jr.shape[0]):
            nr = r - jr[j]
            nc = c - jc[j]
            if 0 <= nr < rows and 0 <= nc < cols:
                closers += 1
    path[0] = start
    rank[0] = 0
    st[:] = 0
    st[_ZO] = zo
    st[_ZI] = zi
    st[_CLOSERS] = closers


@njit(cache=True)
def _search(rows, cols, jr, jc, directed, closed, count_mode, roth, seed, path, rank, visited, outdeg, indeg, st,
            budget):
    """Advance the DFS by at most `budget` nodes. Returns FOUND (path[:n] is a tour),
    EXHAUSTED (no tour left to find; st[_COUNT] holds the count) or OUT_OF_BUDGET."""
    n = rows * cols
    k = jr.shape[0]
    keys = np.empty(k, dtype=np.int64)
    # doubled coordinates put the centre on an integer point
    cr = rows - 1
    cc = cols - 1
    dmax = cr * cr + cc * cc
    d = st[_DEPTH]
    zo = st[_ZO]
    zi = st[_ZI]
    nodes = st[_NODES]
    count = st[_COUNT]
    closers = st[_CLOSERS]
    s = path[0]
    spent = 0
    status = OUT_OF_BUDGET
    while True:
        if spent >= budget:
            break
        v = path[d]
        retreat = False
        if d == n - 1:
            if (not closed) or _leaps_to(v, s, cols, jr, jc):
                if not count_mode:
                    status = FOUND
                    break
                count += 1
            retreat = True
        else:
            r = v // cols
            c = v - r * cols
            m = 0
            low = 0  # candidates with at most one onward square
            for j in range(k):
                nr = r + jr[j]
                nc = c + jc[j]
                if 0 <= nr < rows and 0 <= nc < cols:
                    w = nr * cols + nc
                    if visited[w] == 0:
                        if outdeg[w] <= 1:
                            low += 1
                        if count_mode:
                            keys[m] = j
                        else:
                            er = 2 * nr - cr
                            ec = 2 * nc - cc
                            key = np.int64(outdeg[w]) << 48
                            if roth:
                                key |= np.int64(dmax - (er * er + ec * ec)) << 20
                            key |= _tie(seed, w) << 8
                            keys[m] = key | j
                        m += 1
            if not count_mode:
                for a in range(1, m):
                    x = keys[a]
                    b = a - 1
                    while b >= 0 and keys[b] > x:
                        keys[b + 1] = keys[b]
                        b -= 1
                    keys[b + 1] = x
            i = rank[d]
            # undirected: a square off the current square's reach with at most one
            # onward square must be the end (closed: the end must also leap home)
            if i == 0 and not directed and zi - low >= (1 if closed else 2):
                retreat = True
            elif i >= m:
                retreat = True
            else:
                j = keys[i] & 0xFF
                w = (r + jr[j]) * cols + (c + jc[j])
                zo, zi = _visit(w, rows, cols, jr, jc, directed, False, visited, outdeg, indeg, zo, zi)
                d += 1
                path[d] = w
                rank[d] = 0
                nodes += 1
                spent += 1
                closing = closed and _leaps_to(w, s, cols, jr, jc)
                if closing:
                    closers -= 1
                left = n - 1 - d
                if closed:
                    dead = zo >= 1 or (directed and zi >= 2) or (closers == 0 and left > 0)
                elif directed:
                    dead = zo >= 2 or zi >= 2
                else:
                    dead = zo >= 1 and left >= 2
                if dead:
                    if closing:
                        closers += 1
                    zo, zi = _unvisit(w, rows, cols, jr, jc, directed, False, visited, outdeg, indeg, zo, zi)
                    d -= 1
                    rank[d] += 1
        if retreat:
            if d == 0:
                status = EXHAUSTED
                break
            if closed and _leaps_to(v, s, cols, jr, jc):
                closers += 1
            zo, zi = _unvisit(v, rows, cols, jr, jc, directed, False, visited, outdeg, indeg, zo, zi)
            d -= 1
            rank[d] += 1
    st[_DEPTH] = d
    st[_ZO] = zo
    st[_ZI] = zi
    st[_NODES] = nodes
    st[_COUNT] = count
    st[_CLOSERS] = closers
    return status


def board_degrees(rows, cols, jr, jc, directed):
    """(out-degrees, in-degrees) of every square; the same array twice if undirected."""
    from fastsnake.tour.board import init_degrees

    n = rows * cols
    out = np.empty(n, dtype=np.int16)
    init_degrees(rows, cols, jr, jc, out)
    if not directed:
        return out, out
    inn = np.empty(n, dtype=np.int16)
    init_degrees(rows, cols, -jr, -jc, inn)
    return out, inn


class SearchState:
    """Buffers for one board and piece, reusable across starts and restarts."""

    def __init__(self, rows: int, cols: int, jumps: np.ndarray, directed: bool, closed: bool,
                 degrees: tuple[np.ndarray, np.ndarray] | None = None):
        from fastsnake.tour.board import jump_arrays

        self.rows, self.cols = rows, cols
        self.directed, self.closed = bool(directed), bool(closed)
        self.jr, self.jc = jump_arrays(jumps)
        n = rows * cols
        if degrees is None:
            degrees = board_degrees(rows, cols, self.jr, self.jc, self.directed)
        self.base_out, self.base_in = degrees
        self.outdeg = np.empty(n, dtype=np.int16)
        self.indeg = np.empty(n, dtype=np.int16) if self.directed else np.empty(1, dtype=np.int16)
        self.path = np.empty(n, dtype=np.int32)
        self.rank = np.empty(n, dtype=np.uint8)
        self.visited = np.empty(n, dtype=np.uint8)
        self.st = np.zeros(STATE_SLOTS, dtype=np.int64)
        self.nodes_total = 0

    def reset(self, start: int) -> None:
        self.nodes_total += int(self.st[_NODES])
        self.outdeg[:] = self.base_out
        if self.directed:
            self.indeg[:] = self.base_in
        _start(self.rows, self.cols, self.jr, self.jc, self.directed, self.closed, int(start),
               self.path, self.rank, self.visited, self.outdeg, self.indeg, self.st)

    def run(self, budget: int, seed: int, count_mode: bool = False, roth: bool = True) -> int:
        return _search(self.rows, self.cols, self.jr, self.jc, self.directed, self.closed, count_mode,
                       bool(roth), int(seed), self.path, self.rank, self.visited, self.outdeg, self.indeg, self.st,
                       int(budget))

    @property
    def nodes(self) -> int:
        return int(self.st[_NODES])

    @property
    def count(self) -> int:
        return int(self.st[_COUNT])
