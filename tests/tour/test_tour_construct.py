"""The divide-and-conquer closed knight's tour: every block combination, checked independently."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from tour_naive import check_tour

from fastsnake.tour import Piece
from fastsnake.tour.construct import block_tour, can_construct, closed_knight_tour, split_side
from fastsnake.tour.verify import tour_problem

KNIGHT = Piece.leaper(1, 2).jump_list


@given(st.integers(5, 5000))
def test_split_side(n):
    parts = split_side(n)
    assert sum(parts) == n
    assert all(p in (5, 6, 7, 8, 9, 10) for p in parts)
    assert sum(p % 2 for p in parts) == n % 2


def test_block_tours_are_closed_tours():
    for h in range(5, 11):
        for w in range(5, 11):
            if h % 2 and w % 2:
                continue
            assert check_tour(h, w, KNIGHT, block_tour(h, w), closed=True) is None


def test_every_block_neighbourhood():
    # sides 5..27 combine every block shape with every neighbour shape on both axes,
    # and every join order (row joins, then the first-column joins)
    for rows in range(5, 28):
        for cols in range(5, 28):
            if not can_construct(rows, cols):
                continue
            start = (rows * cols) // 3
            path = closed_knight_tour(rows, cols, start)
            assert int(path[0]) == start
            assert tour_problem(rows, cols, KNIGHT, path, closed=True) is None, (rows, cols)


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(5, 300), cols=st.integers(5, 300), data=st.data())
def test_random_boards_independent_checker(rows, cols, data):
    if not can_construct(rows, cols):
        rows += 1
    start = data.draw(st.integers(0, rows * cols - 1))
    path = closed_knight_tour(rows, cols, start)
    assert check_tour(rows, cols, KNIGHT, path, closed=True) is None


@pytest.mark.slow
def test_huge_boards():
    for rows, cols in ((2000, 2000), (4000, 4000), (3999, 4000)):
        path = closed_knight_tour(rows, cols, 12345)
        assert tour_problem(rows, cols, KNIGHT, path, closed=True) is None
