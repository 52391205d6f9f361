"""The vectorised validator used by the loaders agrees with the independent checker."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from tour_naive import check_tour

from fastsnake.tour import Piece
from fastsnake.tour.verify import tour_problem


@settings(max_examples=200, deadline=None)
@given(rows=st.integers(1, 5), cols=st.integers(1, 5), closed=st.booleans(), data=st.data())
def test_matches_naive_checker(rows, cols, closed, data):
    piece = Piece.from_jumps(data.draw(st.lists(st.tuples(st.integers(-5, 5), st.integers(-5, 5)).filter(any),
                                                min_size=1, max_size=6)))
    n = rows * cols
    path = data.draw(st.permutations(list(range(n))) | st.lists(st.integers(0, n - 1), min_size=n, max_size=n))
    fast = tour_problem(rows, cols, piece.jumps, np.array(path), closed)
    slow = check_tour(rows, cols, piece.jump_list, path, closed) if not (closed and n == 1) else "single"
    assert (fast is None) == (slow is None)


def test_messages():
    knight = Piece.leaper(1, 2).jumps
    assert "squares" in tour_problem(3, 3, knight, [0, 1])
    assert "misses" in tour_problem(2, 2, knight, [0, 0, 1, 2])
    assert "step 0" in tour_problem(1, 2, knight, [0, 1])
