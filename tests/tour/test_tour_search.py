"""find_tour: known answers, pre-check verdicts, and agreement with exhaustive search."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tour_naive import check_tour, count_tours

from fastsnake.tour import Piece, find_tour
from fastsnake.tour.pieces import symmetric_closure

KNIGHT = Piece.leaper(1, 2)


def assert_tour(result, closed=False):
    assert result.found and result.exists is True
    assert int(result.path[0]) == result.start
    problem = check_tour(result.rows, result.cols, result.piece.jump_list, result.path, closed)
    assert problem is None, problem


def test_8x8_open_from_every_start():
    for start in range(64):
        result = find_tour(KNIGHT, 8, 8, start, method="search")
        assert result.method == "search"
        assert_tour(result)


@pytest.mark.parametrize("method", ["search", "construct"])
def test_8x8_closed(method):
    for start in (0, 9, 27, 63):
        result = find_tour(KNIGHT, 8, 8, start, closed=True, method=method)
        assert result.method == method
        assert_tour(result, closed=True)


def test_5x5_open_exactly_from_majority_colour():
    for start in range(25):
        r, c = divmod(start, 5)
        result = find_tour(KNIGHT, 5, 5, start)
        if (r + c) % 2 == 0:
            assert_tour(result)
        else:
            assert result.exists is False and not result.found
            assert "colour" in result.reason
            # the colour argument agrees with exhaustive search
            assert count_tours(5, 5, KNIGHT.jump_list, start) == 0 if start in (1, 5) else True


def test_4x4_knight_proven_impossible_by_search():
    for start in range(16):
        result = find_tour(KNIGHT, 4, 4, start)
        assert result.exists is False
        assert result.method == "exhaustive"
        assert result.nodes > 0


@pytest.mark.parametrize("rows,cols", [(3, 3), (5, 5), (7, 9), (1, 8), (2, 10), (4, 4), (4, 9), (4, 100),
                                       (3, 4), (3, 6), (8, 3), (3999, 3999), (4000, 4)])
def test_schwenk_cases_answered_at_once(rows, cols):
    result = find_tour(KNIGHT, rows, cols, 0, closed=True)
    assert result.exists is False and result.nodes == 0
    assert "Schwenk" in result.reason
    assert result.seconds < 0.5


def test_schwenk_small_cases_agree_with_search():
    # Schwenk's exclusions on boards small enough to exhaust by search
    for rows, cols in [(3, 4), (4, 4), (3, 3)]:
        assert count_tours(rows, cols, KNIGHT.jump_list, 0, closed=True) == 0
        assert find_tour(KNIGHT, rows, cols, 0, closed=True).exists is False


def test_camel_8x8_colour_bound_at_once():
    result = find_tour(Piece.leaper(1, 3), 8, 8, 0)
    assert result.exists is False and result.nodes == 0 and "colour" in result.reason


def test_disconnected_board_answered_by_bfs():
    # the (0,3)-leaper keeps (row mod 3, col mod 3): nine components, every degree 2
    result = find_tour(Piece.leaper(0, 3), 6, 6, 0)
    assert result.exists is False and "disconnected" in result.reason
    # a 3x3 knight never reaches the centre, which the degree count sees first
    result = find_tour(KNIGHT, 3, 3, 0)
    assert result.exists is False and "no jump" in result.reason


def test_zebra_and_giraffe_tours():
    for piece, size in ((Piece.leaper(2, 3), 10), (Piece.leaper(1, 4), 10)):
        result = find_tour(piece, size, size, 0, method="search", time_limit=20)
        assert_tour(result)


def test_compound_and_asymmetric_pieces():
    amazon_ish = Piece.compound([(1, 2), (0, 1)])
    assert_tour(find_tour(amazon_ish, 7, 8, 10, closed=True), closed=True)
    one_way = Piece.from_jumps([(1, 2), (-2, -1), (2, -1), (-1, 2), (0, 1), (0, -1)], symmetric=False)
    assert one_way.directed
    result = find_tour(one_way, 6, 6, 0)
    if result.found:
        assert_tour(result)
    assert result.exists is not None


def test_single_square_and_time_limit():
    assert_tour(find_tour(KNIGHT, 1, 1, 0))
    assert find_tour(KNIGHT, 1, 1, 0, closed=True).exists is False
    # the node limit behaves like the time limit: no verdict
    result = find_tour(KNIGHT, 7, 7, 0, method="search", max_nodes=10)
    assert result.exists is None and not result.found and result.nodes == 10
    # zebra 12x12 is beyond a few milliseconds of search: the clock stops it, no verdict
    result = find_tour(Piece.leaper(2, 3), 12, 12, 0, time_limit=0.05)
    assert result.exists is None and "time limit" in result.reason


def test_open_request_on_big_board_uses_construction():
    result = find_tour(KNIGHT, 60, 80, 123)
    assert result.method == "construct"
    assert_tour(result)
    assert result.to_json()["reentrant"] is True  # an open request answered by a closed tour
    assert check_tour(60, 80, KNIGHT.jump_list, result.path, closed=True) is None


def test_search_on_large_board():
    result = find_tour(KNIGHT, 101, 103, 0, method="search")
    assert_tour(result)


pieces = st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)).filter(lambda j: j != (0, 0)),
                  min_size=1, max_size=4)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.integers(1, 4), cols=st.integers(1, 4), jumps=pieces, symmetric=st.booleans(),
       closed=st.booleans(), data=st.data())
def test_agrees_with_exhaustive_search(rows, cols, jumps, symmetric, closed, data):
    piece = Piece.from_jumps(jumps, symmetric=symmetric)
    start = data.draw(st.integers(0, rows * cols - 1))
    result = find_tour(piece, rows, cols, start, closed=closed, method="search", time_limit=None)
    truth = count_tours(rows, cols, piece.jump_list, start, closed and rows * cols >= 3, stop_at=1)
    if closed and rows * cols < 3:
        truth = 0
    assert result.exists is (truth > 0)
    if result.found:
        assert_tour(result, closed)


def test_symmetric_closure_makes_a_knight():
    assert Piece.from_jumps([(2, 1)]).is_knight
    assert len(symmetric_closure([(0, 1)])) == 4
    assert len(symmetric_closure([(1, 1)])) == 4
    assert not Piece.from_jumps([(1, 2)], symmetric=False).is_knight
