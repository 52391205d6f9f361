"""Hamiltonian cycles: valid on every board with an even cell count, refused on odd×odd."""

import cycles_naive
import numpy as np
import pytest
import snake_naive as naive
from hypothesis import given, settings
from hypothesis import strategies as st

from fastsnake.snake.board import neighbour_table
from fastsnake.snake.cycles import (
    CycleError,
    cycle_problem,
    cycle_tables,
    make_cycle,
    random_cells,
    random_tree,
    validate_cycle,
)

even_cell_boards = st.tuples(st.integers(2, 24), st.integers(2, 24)).filter(lambda rc: rc[0] * rc[1] % 2 == 0)


@settings(max_examples=120, deadline=None)
@given(even_cell_boards, st.sampled_from(["zigzag", "random"]), st.integers(0, 2**64 - 1))
def test_cycles_are_hamiltonian(board, kind, seed):
    rows, cols = board
    cells = make_cycle(rows, cols, kind, seed)
    assert naive.is_hamiltonian_cycle(cells, rows, cols)
    assert cycle_problem(cells, rows, cols) is None


def zigzag_reference(rows, cols):
    """The zig-zag cycle as first written: rows swept in turn and up the first column, or, when rows
    are odd, the same cycle of the transposed board with each cell transposed back."""
    if rows % 2:
        return [(cell % rows) * cols + cell // rows for cell in zigzag_reference(cols, rows)]
    cells = []
    for r in range(rows):
        sweep = range(1, cols) if r % 2 == 0 else range(cols - 1, 0, -1)
        cells += [r * cols + c for c in sweep]
    return cells + [r * cols for r in range(rows - 1, -1, -1)]


@settings(max_examples=80, deadline=None)
@given(st.tuples(st.integers(1, 40), st.integers(1, 40)).filter(lambda rc: rc[0] * rc[1] % 2 == 0))
def test_zigzag_cycle_is_the_reference_one(board):
    # The compiled builder has no recursion or transposed copy any more (compile time, issue 44):
    # the same cells in the same order as the recursive original, on tall, wide and odd-sided boards.
    rows, cols = board
    assert make_cycle(rows, cols, "zigzag").tolist() == zigzag_reference(rows, cols)


@settings(max_examples=150, deadline=None)
@given(st.tuples(st.integers(2, 26), st.integers(2, 26)).filter(lambda rc: rc[0] * rc[1] % 2 == 0),
       st.integers(0, 2**64 - 1))
def test_random_cycle_is_the_reference_one(board, seed):
    # The compiled builder has no recursion or transposed copy any more (compile time, issue 44):
    # the same cells for the same stream as the recursive original, and the stream left where the
    # original left it, on even×even, odd-row and odd-column boards.
    rows, cols = board
    rng, ref_rng = cycles_naive.stream(seed), cycles_naive.stream(seed)
    out = np.empty(rows * cols, np.int32)
    random_cells(rows, cols, rng, out)
    assert out.tolist() == cycles_naive.random_cells(rows, cols, ref_rng)
    assert rng.tolist() == ref_rng.tolist()


@pytest.mark.parametrize("rows,cols", [(2, 2), (2, 3), (3, 2), (7, 2), (2, 9), (9, 10), (10, 9), (31, 64), (64, 31)])
def test_random_cycle_is_the_reference_one_on_thin_and_tall_boards(rows, cols):
    for seed in (0, 7, 2**64 - 1):
        assert make_cycle(rows, cols, "random", seed).tolist() == cycles_naive.random_cells(
            rows, cols, cycles_naive.stream(seed))


@pytest.mark.parametrize("rows,cols", [(256, 256), (255, 256), (256, 255), (2, 256), (3, 2)])
def test_cycles_on_extreme_boards(rows, cols):
    for kind in ("zigzag", "random"):
        assert naive.is_hamiltonian_cycle(make_cycle(rows, cols, kind, 7), rows, cols)


@pytest.mark.parametrize("rows,cols", [(3, 3), (5, 7), (255, 255)])
def test_odd_by_odd_boards_have_no_cycle(rows, cols):
    with pytest.raises(CycleError, match=f"a {rows}x{cols} board has no Hamiltonian cycle"):
        make_cycle(rows, cols, "zigzag")


def test_random_cycles_vary_with_the_seed_and_repeat_with_it():
    for rows, cols in [(10, 10), (9, 10), (10, 9)]:
        shapes = {tuple(make_cycle(rows, cols, "random", s)) for s in range(20)}
        assert len(shapes) > 15
        assert np.array_equal(make_cycle(rows, cols, "random", 3), make_cycle(rows, cols, "random", 3))


@given(st.integers(1, 12), st.integers(1, 12), st.integers(0, 2**64 - 1))
def test_prim_gives_a_spanning_tree(hr, hc, seed):
    bits = random_tree(hr, hc, np.array([seed, seed], dtype=np.uint64))
    edges = set()
    for u in range(hr * hc):
        r, c = divmod(u, hc)
        for d, (dr, dc) in enumerate([(-1, 0), (0, 1), (1, 0), (0, -1)]):
            if bits[u] & (1 << d):
                v = (r + dr) * hc + (c + dc)
                assert 0 <= r + dr < hr and 0 <= c + dc < hc
                assert bits[v] & (1 << ((d + 2) % 4)), "edge bits must be symmetric"
                edges.add((min(u, v), max(u, v)))
    assert len(edges) == hr * hc - 1
    # connected: union-find over the edges
    parent = list(range(hr * hc))

    def find(x):
        while parent[x] != x:
            x = parent[x]
        return x

    for u, v in edges:
        parent[find(u)] = find(v)
    assert len({find(x) for x in range(hr * hc)}) == 1


def test_validator_names_the_problem():
    cells = make_cycle(4, 4)
    with pytest.raises(CycleError, match="non-adjacent"):
        validate_cycle(np.r_[cells[1:2], cells[0:1], cells[2:]], 4, 4)
    with pytest.raises(CycleError, match="exactly once"):
        validate_cycle(np.r_[cells[:-1], cells[0:1]], 4, 4)
    with pytest.raises(CycleError, match="has 15 cells"):
        validate_cycle(cells[:-1], 4, 4)


def test_cycle_tables_point_to_the_successor():
    rows, cols = 6, 8
    cells = make_cycle(rows, cols, "random", 11)
    order = np.empty(rows * cols, np.int32)
    moves = np.empty(rows * cols, np.uint8)
    nbr = neighbour_table(rows, cols)
    cycle_tables(cells, order, moves, nbr)
    for k, cell in enumerate(cells):
        assert order[cell] == k
        assert nbr[cell * 4 + moves[cell]] == cells[(k + 1) % len(cells)]
