"""Parsing, moves and the parity rule, checked against exhaustive BFS."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from puzzle_naive import bfs_distances, play

from fastsnake.puzzle import PuzzleInputError, apply_moves, format_board, is_solvable, parse_tiles, random_solvable
from fastsnake.puzzle.board import SEED_NAMES, neighbours


def test_parse_forms_agree():
    a = parse_tiles("012 345 678", 3, 3)
    b = parse_tiles("0 1 2 3 4 5 6 7 8", 3, 3)
    c = parse_tiles("0,1,2,3,4,5,6,7,8", 3, 3)
    d = parse_tiles([0, 1, 2, 3, 4, 5, 6, 7, 8], 3, 3)
    assert a.tolist() == b.tolist() == c.tolist() == d.tolist() == list(range(9))
    # Two-digit tiles need separators; row groups of them are fine.
    assert parse_tiles("0,1,2,3 4,5,6,7 8,9,10,11", 3, 4).tolist() == list(range(12))


@pytest.mark.parametrize("text, rows, cols, fragment", [
    ("012 345 677", 3, 3, "appears twice"),
    ("012 345 67", 3, 3, "has 8 tiles"),
    ("0 1 2 3 4 5 6 7 9", 3, 3, "outside 0..8"),
    ("0 1 2 x 4 5 6 7 8", 3, 3, "must be integers"),
    ("0 1 2 3", 0, 4, "outside"),
    ("0 1", 7, 7, "outside"),
])
def test_parse_errors_quote_input(text, rows, cols, fragment):
    with pytest.raises(PuzzleInputError) as err:
        parse_tiles(text, rows, cols, "start")
    assert fragment in str(err.value)
    if rows * cols <= 36 and rows > 0:
        assert repr(text) in str(err.value)


def test_seed_move_names_example():
    # The seed's example: 123/456/78_ -> 123/468/75_ by tile moves right, down, left, up.
    start = parse_tiles("1 2 3 4 5 6 7 8 0", 3, 3)
    goal = parse_tiles("1 2 3 4 6 8 7 5 0", 3, 3)
    blank_moves = "LURD"
    assert [SEED_NAMES[m] for m in blank_moves] == ["right", "down", "left", "up"]
    assert apply_moves(start, blank_moves, 3, 3).tolist() == goal.tolist()


def test_apply_moves_matches_naive_and_rejects_off_board():
    rng = np.random.default_rng(3)
    board = parse_tiles("0 1 2 3 4 5 6 7 8 9 10 11", 3, 4)
    for _ in range(50):
        state = tuple(board.tolist())
        moves = ""
        for _ in range(20):
            from puzzle_naive import neighbours as nb
            options = nb(state, 3, 4)
            m, state = options[rng.integers(len(options))]
            moves += m
        assert tuple(apply_moves(board, moves, 3, 4).tolist()) == play(board, moves, 3, 4)
    with pytest.raises(PuzzleInputError, match="leaves the board"):
        apply_moves(board, "U", 3, 4)
    with pytest.raises(PuzzleInputError, match="not one of"):
        apply_moves(board, "X", 3, 4)


def test_neighbour_table():
    nbr = neighbours(2, 3)
    assert nbr[0 * 4:0 * 4 + 4].tolist() == [-1, 3, -1, 1]
    assert nbr[4 * 4:4 * 4 + 4].tolist() == [1, -1, 3, 5]


@pytest.mark.parametrize("rows, cols", [(1, 2), (1, 3), (1, 4), (3, 1), (1, 5), (2, 2), (2, 3), (3, 2)])
def test_parity_rule_matches_bfs_on_every_state_and_goal(rows, cols):
    n = rows * cols
    states = [tuple(p) for p in itertools.permutations(range(n))]
    goals = states if n <= 4 else states[:: max(1, len(states) // 6)]
    for goal in goals:
        reach = bfs_distances(goal, rows, cols)
        for s in states:
            assert is_solvable(np.array(s), np.array(goal), rows, cols) == (s in reach), (s, goal)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(2, 3), (3, 2), (1, 6), (2, 4), (4, 2)]), st.randoms(use_true_random=False))
def test_parity_rule_random_boards(dims, rnd):
    rows, cols = dims
    n = rows * cols
    goal = list(range(n))
    rnd.shuffle(goal)
    reach = _reach(tuple(goal), rows, cols)
    s = list(range(n))
    rnd.shuffle(s)
    assert is_solvable(np.array(s), np.array(goal), rows, cols) == (tuple(s) in reach)


_CACHE = {}


def _reach(goal, rows, cols):
    key = (goal, rows, cols)
    if key not in _CACHE:
        _CACHE[key] = bfs_distances(goal, rows, cols)
    return _CACHE[key]


@pytest.mark.parametrize("rows, cols", [(2, 2), (2, 3), (1, 4), (3, 3), (4, 4), (6, 6)])
def test_random_solvable_is_solvable_and_varied(rows, cols):
    rng = np.random.default_rng(11)
    goal = rng.permutation(rows * cols).astype(np.int8)
    seen = set()
    for _ in range(200):
        b = random_solvable(rows, cols, goal, rng)
        assert sorted(b.tolist()) == list(range(rows * cols))
        assert is_solvable(b, goal, rows, cols)
        seen.add(tuple(b.tolist()))
    # 1-wide boards have only R*C solvable states, 2x2 twelve.
    assert len(seen) >= (rows * cols if min(rows, cols) == 1 else 12)


def test_random_solvable_uniform_on_2x2():
    # 12 solvable states; 6000 draws: each should appear about 500 times.
    rng = np.random.default_rng(5)
    goal = np.arange(4, dtype=np.int8)
    counts = {}
    for _ in range(6000):
        b = tuple(random_solvable(2, 2, goal, rng).tolist())
        counts[b] = counts.get(b, 0) + 1
    assert set(counts) == set(bfs_distances(goal, 2, 2))
    assert min(counts.values()) > 380 and max(counts.values()) < 620


def test_format_board():
    assert format_board(parse_tiles("0 1 2 3", 2, 2), 2, 2) == ". 1\n2 3"
