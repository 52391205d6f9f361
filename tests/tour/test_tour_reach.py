"""reach: exact-distance and walk semantics against known sequences and level BFS."""

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tour_naive import reach_exact, reach_walk

from fastsnake.tour import Piece
from fastsnake.tour.reach import reach

KNIGHT = Piece.leaper(1, 2)


def test_knight_infinite_board_sequence():
    # OEIS A018842: squares at exactly n knight moves on an unbounded board
    expected = [1, 8, 32, 68, 96, 120, 148, 176, 204]
    centre = 30 * 61 + 30
    assert [reach(KNIGHT, 61, 61, centre, n).count for n in range(9)] == expected


def test_knight_8x8_corner():
    counts = [reach(KNIGHT, 8, 8, 56, n).count for n in range(8)]  # a1
    assert counts == [1, 2, 9, 20, 21, 10, 1, 0]


def test_walk_on_bipartite_board_is_one_colour():
    result = reach(KNIGHT, 8, 8, 0, 7, walk=True)
    assert all(((v // 8) + (v % 8)) % 2 == 1 for v in result.cells)
    assert result.count == 32


def test_directed_walk_periodic_shortcut():
    one_way = Piece.from_jumps([(0, 1), (1, -3)], symmetric=False)
    for n in (0, 5, 37, 1000, 99_999):
        steps = n % 60 + 60 if n > 120 else n
        assert reach(one_way, 3, 4, 0, n, walk=True).cells.tolist() == reach_walk(3, 4, one_way.jump_list, 0, steps)


pieces = st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3)).filter(lambda j: j != (0, 0)),
                  min_size=1, max_size=4)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.integers(1, 7), cols=st.integers(1, 7), jumps=pieces, symmetric=st.booleans(),
       n=st.integers(0, 12), data=st.data())
def test_matches_level_bfs(rows, cols, jumps, symmetric, n, data):
    piece = Piece.from_jumps(jumps, symmetric=symmetric)
    start = data.draw(st.integers(0, rows * cols - 1))
    assert reach(piece, rows, cols, start, n).cells.tolist() == reach_exact(rows, cols, piece.jump_list, start, n)
    got = reach(piece, rows, cols, start, n, walk=True).cells.tolist()
    assert got == reach_walk(rows, cols, piece.jump_list, start, n)
