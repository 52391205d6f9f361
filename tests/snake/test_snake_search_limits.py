"""The search kernels against plain BFS: all-pairs distances on directed tables
(bfs.distances_to_every_cell, distances_from, reversed_table), and A* with a length
limit (astar_grid_within), which must find the very path astar_grid finds or none."""

from collections import deque
from itertools import pairwise

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from fastsnake.search.astar import A_PATH, astar_buffers, astar_grid, astar_grid_within
from fastsnake.search.bfs import distances_from, distances_to_every_cell, reversed_table
from fastsnake.snake.board import neighbour_table
from fastsnake.snake.celltree.blocks import right_hand_table
from fastsnake.snake.policies.greedy import free_cell

even = st.sampled_from([2, 4, 6, 8])


# ---------------------------------------------------------------- references


def table_distances(nbr, start, entering=lambda to: True):
    """BFS along the directed table nbr[cell*4+move] from `start`: dist list, -1 unreachable.

    `entering(to)` says whether a cell may be entered (start is always where we are)."""
    n = len(nbr) // 4
    dist = [-1] * n
    dist[start] = 0
    queue = deque([start])
    while queue:
        u = queue.popleft()
        for move in range(4):
            v = int(nbr[u * 4 + move])
            if v >= 0 and dist[v] < 0 and entering(v):
                dist[v] = dist[u] + 1
                queue.append(v)
    return dist


def all_pairs(nbr):
    """out[t*n + v] = distance v -> t (one BFS from every source v)."""
    n = len(nbr) // 4
    out = [0] * (n * n)
    for v in range(n):
        d = table_distances(nbr, v)
        for t in range(n):
            out[t * n + v] = d[t]
    return out


def random_subtable(nbr, rng, keep):
    """nbr with each directed edge dropped independently (kept with probability `keep`)."""
    out = nbr.copy()
    out[(out >= 0) & (rng.random(out.shape[0]) >= keep)] = -1
    return out


# ---------------------------------------------------------------- bfs.py


def every_cell(nbr):
    n = nbr.shape[0] // 4
    out = np.full(n * n, -7, np.int32)
    distances_to_every_cell(nbr, out)
    return out


@settings(max_examples=40, deadline=None)
@given(even, even)
def test_distances_to_every_cell_on_right_hand_tables(rows, cols):
    nbr = right_hand_table(neighbour_table(rows, cols), rows, cols)
    got = every_cell(nbr)
    assert got.tolist() == all_pairs(nbr)
    # Strongly connected (it contains Hamiltonian cycles), and one-way: a cell's
    # in-block successor is 1 move away, the way back round the block 3.
    assert (got >= 0).all()
    n = rows * cols
    for v in range(n):
        assert got[v * n + v] == 0
        (w,) = [int(w) for w in nbr[v * 4:v * 4 + 4] if w >= 0 and (w // cols) // 2 == (v // cols) // 2
                and (w % cols) // 2 == (v % cols) // 2]
        assert got[w * n + v] == 1 and got[v * n + w] == 3


def board_table(rows, cols, right_hand):
    """(rows, cols, table): the plain grid, or the right-hand table of the board rounded up to even sides."""
    if right_hand:
        rows, cols = rows + rows % 2, cols + cols % 2
        return rows, cols, right_hand_table(neighbour_table(rows, cols), rows, cols)
    return rows, cols, neighbour_table(rows, cols)


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 7), st.integers(1, 7))
def test_distances_to_every_cell_on_grids_are_manhattan(rows, cols):
    n = rows * cols
    got = every_cell(neighbour_table(rows, cols)).reshape(n, n)
    for t in range(n):
        for v in range(n):
            assert got[t, v] == abs(t // cols - v // cols) + abs(t % cols - v % cols)


@settings(max_examples=100, deadline=None)
@given(st.integers(1, 8), st.integers(1, 8), st.integers(0, 2**32), st.floats(0.3, 1.0), st.booleans())
def test_distances_on_random_directed_subtables(rows, cols, seed, keep, right_hand):
    """Grids (or right-hand tables) with random one-way edges removed: some cells unreachable."""
    rng = np.random.default_rng(seed)
    rows, cols, base = board_table(rows, cols, right_hand)
    nbr = random_subtable(base, rng, keep)
    n = rows * cols
    # reversed_table: exactly the edges of nbr turned round, move codes kept.
    rev = reversed_table(nbr)
    assert rev.dtype == np.int32 and rev.shape == nbr.shape
    expected_rev = [-1] * (4 * n)
    for u in range(n):
        for m in range(4):
            if nbr[u * 4 + m] >= 0:
                expected_rev[int(nbr[u * 4 + m]) * 4 + m] = u
    assert rev.tolist() == expected_rev
    # distances_from: one source, stale values overwritten, returns the reached count.
    start = int(rng.integers(n))
    dist = np.full(n, 99, np.int32)
    reached = distances_from(nbr, start, dist, np.empty(n, np.int32))
    expected = table_distances(nbr, start)
    assert dist.tolist() == expected
    assert reached == sum(d >= 0 for d in expected)
    # all pairs
    assert every_cell(nbr).tolist() == all_pairs(nbr)


# ---------------------------------------------------------------- astar.py


@njit
def search_pairs(nbr, cols, blocked, queries):
    """For each (start, goal, limit): (astar_grid length, astar_grid_within length) and both paths.

    One buffer set for all unlimited searches and one for all limited ones, so stale
    generation stamps from earlier searches are exercised too."""
    n = blocked.shape[0]
    buf_a = astar_buffers(n)
    buf_b = astar_buffers(n)
    k = queries.shape[0]
    lengths = np.empty((k, 2), np.int64)
    paths = np.full((k, 2, n), -1, np.int32)
    for q in range(k):
        start, goal, limit = queries[q, 0], queries[q, 1], queries[q, 2]
        la = astar_grid(buf_a, nbr, cols, start, goal, free_cell, blocked)
        lb = astar_grid_within(buf_b, nbr, cols, start, goal, free_cell, blocked, limit)
        lengths[q, 0] = la
        lengths[q, 1] = lb
        if la > 0:
            paths[q, 0, :la] = buf_a[A_PATH][:la]
        if lb > 0:
            paths[q, 1, :lb] = buf_b[A_PATH][:lb]
    return lengths, paths


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 9), st.integers(1, 9), st.integers(0, 2**32), st.floats(0, 0.5), st.booleans())
def test_astar_within_limit_finds_the_unlimited_path_or_none(rows, cols, seed, density, right_hand):
    rng = np.random.default_rng(seed)
    rows, cols, nbr = board_table(rows, cols, right_hand)
    n = rows * cols
    blocked = (rng.random(n) < density).astype(np.uint8)
    # Queries: random start (blocked or not: it is where the head is), random goal
    # (start == goal now and then), limits at random in 0..2n and around the distance.
    queries, refs = [], []
    for _ in range(24):
        start = int(rng.integers(n))
        goal = start if rng.random() < 0.1 else int(rng.integers(n))
        d = table_distances(nbr, start, lambda to: blocked[to] == 0)[goal]
        if d >= 0 and rng.random() < 0.5:
            limit = max(0, d + int(rng.integers(-1, 2)))
        else:
            limit = int(rng.integers(0, 2 * n + 1))
        queries.append((start, goal, limit))
        refs.append(d)
    lengths, paths = search_pairs(nbr, cols, blocked, np.array(queries, np.int64))
    for (start, goal, limit), d, (la, lb), (pa, pb) in zip(queries, refs, lengths.tolist(), paths, strict=True):
        assert la == d, (start, goal)
        if start == goal:
            assert la == 0 and lb == 0
        assert lb == (d if 0 <= d <= limit else -1), (start, goal, limit, d)
        if la > 0:
            path = pa[:la].tolist()
            steps = [start, *path]
            assert steps[-1] == goal
            for a, b in pairwise(steps):
                assert b in nbr[a * 4:a * 4 + 4].tolist()  # an edge of the (directed) table
                assert blocked[b] == 0
            assert len(set(steps)) == len(steps)
        if lb > 0:
            # The limit changes whether a path is found, never which one.
            assert pb[:lb].tolist() == pa[:la].tolist(), (start, goal, limit)


def test_astar_within_limit_edge_cases():
    rows, cols = 3, 5
    nbr = neighbour_table(rows, cols)
    blocked = np.zeros(rows * cols, np.uint8)
    # start == goal: 0 moves even with limit 0; a 1-move goal needs limit >= 1;
    # (0,0) -> (2,4) is 6 moves: limit 5 refuses, 6 finds it.
    queries = np.array([(7, 7, 0), (0, 1, 0), (0, 1, 1), (0, 14, 5), (0, 14, 6), (0, 14, 100)], np.int64)
    lengths, paths = search_pairs(nbr, cols, blocked, queries)
    assert lengths[:, 1].tolist() == [0, -1, 1, -1, 6, 6]
    assert lengths[:, 0].tolist() == [0, 1, 1, 6, 6, 6]
    assert paths[4, 1, :6].tolist() == paths[4, 0, :6].tolist()
    # A walled-off goal: -1 with and without a limit.
    blocked[[1, 5, 6]] = 1
    lengths, _ = search_pairs(nbr, cols, blocked, np.array([(0, 14, 100), (14, 0, 100)], np.int64))
    assert lengths.tolist() == [[-1, -1], [-1, -1]]
