"""`reduce` and `auto`: every solution replayed move by move, the post-pass against a naive
reference, unsolvable pairs refused, the auto choice and its fallback."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from puzzle_naive import bfs_distances, cut_loops, play, states_along

from fastsnake.puzzle import MOVES, apply_moves, is_solvable, random_solvable, solve
from fastsnake.puzzle import reduce as R


def _instance(rows, cols, seed, random_goal=True):
    rng = np.random.default_rng(seed)
    n = rows * cols
    goal = rng.permutation(n) if random_goal else np.arange(n)
    start = random_solvable(rows, cols, goal, rng)
    return start, np.asarray(goal)


def _check_reduce(start, goal, rows, cols, naive=True):
    r = solve(start, goal, rows=rows, cols=cols, algorithm="reduce")
    assert r.solvable and r.status == "solved" and r.algorithm == "reduce"
    assert r.length == len(r.moves)
    assert r.extra.get("joint_searches", 0) == 0  # the fallback search is never needed
    if naive:
        # the slow reference checks every move's legality, and the post-pass left no loop
        seq = states_along(start, r.moves, rows, cols)
        assert seq[-1] == tuple(int(t) for t in goal)
        assert len(set(seq)) == len(seq)
    else:
        assert apply_moves(start, r.moves, rows, cols).tolist() == np.asarray(goal).tolist()
    return r


SHAPES = [(2, 2), (2, 3), (3, 2), (3, 3), (2, 4), (4, 2), (2, 7), (7, 2), (2, 12), (12, 2),
          (3, 4), (4, 3), (4, 4), (3, 7), (7, 3), (4, 6), (6, 4), (5, 5), (3, 12), (12, 3),
          (5, 9), (9, 5), (8, 8)]


@pytest.mark.parametrize("rows, cols", SHAPES)
def test_reduce_many_shapes_random_goals(rows, cols):
    for seed in range(6):
        start, goal = _instance(rows, cols, seed, random_goal=seed % 3 != 0)
        _check_reduce(start, goal, rows, cols)


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(2, 9), cols=st.integers(2, 9), seed=st.integers(0, 2**32 - 1),
       random_goal=st.booleans())
def test_reduce_hypothesis_boards(rows, cols, seed, random_goal):
    start, goal = _instance(rows, cols, seed, random_goal)
    _check_reduce(start, goal, rows, cols)


@pytest.mark.parametrize("rows, cols", [(20, 20), (30, 30), (13, 29), (2, 60), (45, 2)])
def test_reduce_large_boards(rows, cols):
    start, goal = _instance(rows, cols, rows * 1000 + cols)
    r = _check_reduce(start, goal, rows, cols, naive=False)
    assert r.optimal is False
    assert r.extra["final_block"] in ("3x3", "2x3", "3x2")


@pytest.mark.parametrize("rows, cols", [(1, 2), (1, 7), (5, 1), (1, 50), (80, 1)])
def test_reduce_one_wide_boards_walk_the_blank(rows, cols):
    start, goal = _instance(rows, cols, 3)
    r = _check_reduce(start, goal, rows, cols, naive=rows * cols <= 10)
    bs, bg = int(np.flatnonzero(start == 0)[0]), int(np.flatnonzero(goal == 0)[0])
    assert r.length == abs(bs - bg) and r.optimal


@pytest.mark.parametrize("rows, cols", [(2, 3), (3, 2)])
def test_reduce_on_small_boards_is_optimal(rows, cols):
    # Boards of at most 3x3 are the final block itself: A* solves them optimally.
    rng = np.random.default_rng(5)
    goal = rng.permutation(rows * cols)
    dist = bfs_distances(goal, rows, cols)
    states = list(dist)
    for i in rng.choice(len(states), 40, replace=False):
        start = np.array(states[i], np.int8)
        r = solve(start, goal, rows=rows, cols=cols, algorithm="reduce")
        assert r.optimal and r.length == dist[states[i]]
        assert play(start, r.moves, rows, cols) == tuple(int(t) for t in goal)


def test_reduce_korf_first_ten_within_three_times_optimal():
    from test_puzzle_korf import korf100

    ratios = []
    for _, length, _, tiles in korf100()[:10]:
        r = _check_reduce(np.array(tiles.split(), np.int8), np.arange(16), 4, 4)
        assert r.length >= length
        ratios.append(r.length / length)
    assert np.mean(ratios) <= 3.0


@pytest.mark.parametrize("rows, cols", [(2, 2), (3, 3), (5, 5), (20, 20), (1, 40)])
def test_reduce_refuses_unsolvable(rows, cols):
    start, goal = _instance(rows, cols, 11)
    bad = start.copy()
    tiles = np.flatnonzero(bad != 0)[:2]
    bad[tiles[0]], bad[tiles[1]] = bad[tiles[1]], bad[tiles[0]]
    assert not is_solvable(bad, goal, rows, cols)
    for algorithm in ("reduce", "auto"):
        r = solve(bad, goal, rows=rows, cols=cols, algorithm=algorithm)
        assert not r.solvable and r.status == "unsolvable" and r.moves is None and r.length is None


def _cancel(moves):
    out = []
    for m in moves:
        if out and MOVES.index(out[-1]) == MOVES.index(m) ^ 1:
            out.pop()
        else:
            out.append(m)
    return "".join(out)


@settings(max_examples=80, deadline=None)
@given(rows=st.integers(2, 4), cols=st.integers(2, 4), seed=st.integers(0, 2**32 - 1),
       steps=st.integers(0, 300))
def test_postpass_matches_naive_loop_cutting(rows, cols, seed, steps):
    # Random walks revisit states often; the kernel must cut exactly the naive way.
    rng = np.random.default_rng(seed)
    n = rows * cols
    start = rng.permutation(n)
    board = start.copy()
    blank = int(np.flatnonzero(board == 0)[0])
    walk = []
    while len(walk) < steps:
        m = int(rng.integers(4))
        r, c = divmod(blank, cols)
        rr, cc = r + (-1, 1, 0, 0)[m], c + (0, 0, -1, 1)[m]
        if 0 <= rr < rows and 0 <= cc < cols:
            walk.append(MOVES[m])
            nxt = rr * cols + cc
            board[blank], board[nxt] = board[nxt], 0
            blank = nxt
    codes = np.array([MOVES.index(m) for m in walk], np.int8)
    got = "".join(MOVES[m] for m in R._shorten(start.astype(np.int32), codes, cols, R._keys(n)))
    assert got == cut_loops(start, _cancel("".join(walk)), rows, cols)
    seq = states_along(start, got, rows, cols)
    assert seq[-1] == tuple(int(t) for t in board) and len(set(seq)) == len(seq)


def test_auto_chooses_and_says_so():
    start, goal = _instance(5, 5, 1)
    # 5x5: auto searches with the 6-6-6-6 tables when they are cached or fit the budget
    # to build (test_puzzle_pdb_max.py); under a budget they do not fit, it reduces.
    r = solve(start, goal, rows=5, cols=5, memory_budget="1G")
    assert r.algorithm == "reduce" and r.optimal is False and r.status == "solved"
    r = solve("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", rows=4, cols=4)
    assert r.algorithm == "idastar" and r.optimal and r.length == 57
    # a named heuristic keeps auto on optimal search up to 36 cells (and its errors)
    with pytest.raises(Exception, match="walking distance"):
        solve(start, goal, rows=5, cols=5, heuristic="walking-distance")


def test_auto_falls_back_to_reduce_at_a_limit():
    # A* stopped by the node limit, IDA* by the time limit: auto reduces instead.
    r = solve("01234 56789", "43261 98750", rows=2, cols=5, algorithm="auto", max_nodes=16)
    assert r.status == "solved" and not r.optimal and r.algorithm == "reduce"
    assert "node limit reached" in r.extra["fallback"] and r.length >= 55
    assert play(np.arange(10), r.moves, 2, 5) == (4, 3, 2, 6, 1, 9, 8, 7, 5, 0)
    # on a 3x3 board the fallback's final block is the whole board: optimal again
    r = solve("012 345 678", "806 547 231", rows=3, cols=3, algorithm="auto", max_nodes=16)
    assert r.algorithm == "reduce" and r.optimal and r.length == 31
    r = solve("14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3", rows=4, cols=4, heuristic="manhattan",
              time_limit=0.05)
    assert r.status == "solved" and not r.optimal and "time limit reached" in r.extra["fallback"]
    assert apply_moves(r.start, r.moves, 4, 4).tolist() == list(range(16))
    # a named optimal algorithm raises the limit error instead
    from fastsnake.puzzle import PuzzleLimitError

    with pytest.raises(PuzzleLimitError) as info:
        solve("012 345 678", "806 547 231", rows=3, cols=3, algorithm="astar", max_nodes=16)
    assert info.value.result.status == "node limit reached" and info.value.result.moves is None


def test_optimal_algorithms_refuse_big_boards_and_say_why():
    start, goal = _instance(7, 7, 0)
    with pytest.raises(Exception, match="algorithm reduce"):
        solve(start, goal, rows=7, cols=7, algorithm="idastar")
    with pytest.raises(Exception, match="rows=101 is outside 1..100"):
        solve(np.arange(101 * 2), rows=101, cols=2, algorithm="reduce")


def test_reduce_first_in_a_fresh_process_does_not_deadlock():
    """Loading `reduce`'s kernels solves a final block with A*, whose own first load re-enters
    the kernel-loading lock: a fresh process whose first solve is `reduce` must finish.
    (The timeout only turns a hang into a failure; it is minutes above the real time.)"""
    import subprocess
    import sys

    start = "2 12 7 10 14 4 5 8 0 9 1 13 11 6 3 15"
    code = ("import fastsnake.puzzle as P; "
            f"r = P.solve([int(t) for t in '{start}'.split()], algorithm='reduce'); "
            "print(r.status, r.length is not None)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["solved", "True"]
