"""count_tours: exact counts against known values and a plain-DFS reference."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tour_naive import count_tours as naive_count

from fastsnake.tour import Piece
from fastsnake.tour.count import count_tours

KNIGHT = Piece.leaper(1, 2)


def test_5x5_open_tours():
    result = count_tours(KNIGHT, 5, 5)
    assert result.complete and result.count == 1728
    assert result.per_start[0] == 304  # corner
    assert result.per_start[12] == 64  # centre
    assert sum(result.per_start.values()) == 1728


def test_5x5_corner_start_matches_plain_dfs():
    assert count_tours(KNIGHT, 5, 5, 0).count == 304 == naive_count(5, 5, KNIGHT.jump_list, 0)


def test_closed_counts_small():
    # 3x10 is the smallest 3-row board with closed tours: 16 undirected (Schwenk-sized boards)
    result = count_tours(KNIGHT, 3, 10, closed=True)
    assert result.complete
    assert result.directed_count == naive_count(3, 10, KNIGHT.jump_list, 0, closed=True)
    assert result.count == result.directed_count // 2 == 16
    assert count_tours(KNIGHT, 5, 6, closed=True).count == 8


def test_6x6_closed_tours():
    # pruning (dead ends, degree <= 1 squares, squares that leap home) keeps this ~1.5M nodes
    result = count_tours(KNIGHT, 6, 6, closed=True)
    assert result.complete and result.count == 9862


def test_time_limit_gives_lower_bound():
    result = count_tours(KNIGHT, 6, 6, 0, time_limit=0.01)
    assert not result.complete
    assert result.to_json()["exists"] in (None, True)


pieces = st.lists(st.tuples(st.integers(-2, 2), st.integers(-2, 2)).filter(lambda j: j != (0, 0)),
                  min_size=1, max_size=2)


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.integers(1, 3), cols=st.integers(1, 4), jumps=pieces, symmetric=st.booleans(),
       closed=st.booleans(), data=st.data())
def test_counts_match_plain_dfs(rows, cols, jumps, symmetric, closed, data):
    # at most 12 squares: the plain DFS counts dense (king-like) pieces in well under a second
    piece = Piece.from_jumps(jumps, symmetric=symmetric)
    start = data.draw(st.integers(0, rows * cols - 1))
    result = count_tours(piece, rows, cols, start, closed=closed)
    assert result.complete
    if closed:
        truth = naive_count(rows, cols, piece.jump_list, start, closed=True) if rows * cols >= 3 else 0
        assert result.directed_count == truth
        assert result.count == (truth if piece.directed else truth // 2)
    else:
        assert result.count == naive_count(rows, cols, piece.jump_list, start)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.integers(1, 3), cols=st.integers(1, 4), jumps=pieces, symmetric=st.booleans())
def test_all_starts_use_symmetry_correctly(rows, cols, jumps, symmetric):
    piece = Piece.from_jumps(jumps, symmetric=symmetric)
    result = count_tours(piece, rows, cols)
    for s in range(rows * cols):
        assert result.per_start[s] == naive_count(rows, cols, piece.jump_list, s)


@pytest.mark.slow
def test_6x6_open_tours_all_starts():
    # OEIS A165134: directed open knight's tours on an n x n board
    assert count_tours(KNIGHT, 6, 6).count == 6_637_920
