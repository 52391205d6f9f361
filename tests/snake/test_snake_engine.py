"""The engine against the pure-Python rules, state by state."""

import random

import numpy as np
import pytest
import snake_naive as naive
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from fastsnake.snake.board import GameConfig, neighbour_table
from fastsnake.snake.engine import (
    BROKEN,
    OUTCOME_NAMES,
    R_APPLE,
    R_HEAD,
    R_LENGTH,
    borrowed_row,
    trace_moves,
)
from fastsnake.snake.rng import below, game_seed, mix64, next_u64


@given(st.integers(0, 2**64 - 1))
def test_mix64_matches_reference(x):
    assert int(mix64(np.uint64(x))) == naive.mix64(x)


@given(st.integers(0, 2**64 - 1), st.integers(0, 2**40))
def test_game_seed_matches_reference(base, index):
    assert int(game_seed(np.uint64(base), np.uint64(index))) == naive.game_seed(base, index)


@given(st.integers(0, 2**64 - 1), st.lists(st.integers(1, 2**32 - 1), min_size=1, max_size=20))
def test_stream_and_bounded_draws_match_reference(seed, bounds):
    state = np.array([seed, seed], dtype=np.uint64)
    ref = naive.SplitMix(seed)
    assert int(next_u64(state)) == ref.next()
    for n in bounds:
        value = int(below(state, n))
        assert value == ref.below(n)
        assert 0 <= value < n


def test_bounded_draws_are_uniform():
    # Chi-square over 7 bins (a bound that does not divide 2**32): must not be lopsided.
    state = np.array([12345, 0], dtype=np.uint64)
    counts = np.zeros(7)
    for _ in range(70_000):
        counts[int(below(state, 7))] += 1
    chi2 = ((counts - 10_000) ** 2 / 10_000).sum()
    assert chi2 < 22.5  # p = 0.001 for 6 degrees of freedom


def boustrophedon(rows, cols):
    return [r * cols + (c if r % 2 == 0 else cols - 1 - c) for r in range(rows) for c in range(cols)]


@st.composite
def scenarios(draw):
    rows = draw(st.integers(2, 7))
    cols = draw(st.integers(2, 7))
    n = rows * cols
    length = draw(st.integers(1, min(n - 1, 6)))
    path = boustrophedon(rows, cols)
    start = draw(st.integers(0, n - length))
    body = path[start : start + length]
    if draw(st.booleans()):
        body = body[::-1]
    tail_rule = draw(st.sampled_from(["follow", "blocked"]))
    max_moves = draw(st.one_of(st.none(), st.integers(1, 300)))
    seed = draw(st.integers(0, 2**64 - 1))
    move_seed = draw(st.integers(0, 2**32))
    reckless = draw(st.sampled_from([0.0, 0.02, 0.3]))
    return rows, cols, body, tail_rule, max_moves, seed, move_seed, reckless


def naive_game_with_moves(rows, cols, body, tail_rule, max_moves, seed, move_seed, reckless, limit=400):
    """Play the reference with mostly-survivable random moves; return (game, moves, trace)."""
    game = naive.Game(rows, cols, body, tail_rule, max_moves, seed)
    rnd = random.Random(move_seed)
    moves, trace, apples = [], [], [game.apple]
    while game.outcome == "running" and len(moves) < limit:
        safe = []
        for m in range(4):
            t = naive.neighbour(rows, cols, game.body[-1], m)
            if t is not None and (t not in game.body
                                  or (t == game.body[0] and tail_rule == "follow" and t != game.apple)):
                safe.append(m)
        move = rnd.randrange(4) if not safe or rnd.random() < reckless else rnd.choice(safe)
        eaten = game.eaten
        game.step(move)
        moves.append(move)
        if game.eaten != eaten and game.apple is not None:
            apples.append(game.apple)
        trace.append((game.body[-1], len(game.body), -1 if game.apple is None else game.apple))
    return game, moves, trace, apples


@settings(max_examples=150, deadline=None)
@given(scenarios())
def test_engine_matches_reference_move_by_move(scenario):
    rows, cols, body, tail_rule, max_moves, seed, move_seed, reckless = scenario
    game, moves, trace, apples = naive_game_with_moves(*scenario)
    config = GameConfig(rows, cols, len(body), tail_rule, max_moves)
    cfg, nbr = config.arrays()
    body_arr = np.array(body, dtype=np.int32)
    move_arr = np.array(moves, dtype=np.uint8)
    for listed in (np.zeros(0, np.int32), np.array(apples, dtype=np.int32)):
        outcome, count, rec = trace_moves(cfg, nbr, body_arr, move_arr, listed, np.uint64(seed))
        assert count == len(moves)
        expected_outcome = game.outcome
        assert OUTCOME_NAMES[outcome] == expected_outcome
        heads = rec[R_HEAD][:count].tolist()
        lengths = rec[R_LENGTH][:count].tolist()
        apple_at = rec[R_APPLE][:count].tolist()
        for t, (head, length, apple) in enumerate(trace):
            if game.outcome == "died" and t == count - 1:
                assert lengths[t] == length  # a fatal move changes nothing else
                continue
            assert (heads[t], lengths[t], apple_at[t]) == (head, length, apple), f"move {t}"


def test_listed_apple_on_the_snake_is_broken():
    config = GameConfig(3, 3, 2)
    cfg, nbr = config.arrays()
    body = np.array([0, 1], dtype=np.int32)  # head at cell 1; eat at 2, next apple on the body
    outcome, count, _ = trace_moves(cfg, nbr, body, np.array([1], np.uint8), np.array([2, 1], np.int32), np.uint64(0))
    assert outcome == BROKEN


def test_neighbour_table_edges():
    nbr = neighbour_table(3, 4).reshape(-1, 4)
    assert nbr[0].tolist() == [-1, 1, 4, -1]
    assert nbr[11].tolist() == [7, -1, -1, 10]
    assert nbr[5].tolist() == [1, 6, 9, 4]


@pytest.mark.parametrize("size", [(1, 5), (5, 1), (257, 4), (0, 0)])
def test_board_sizes_out_of_range_are_refused(size):
    from fastsnake.snake.board import BoardError

    with pytest.raises(BoardError, match="outside 2..256"):
        GameConfig(*size)


def test_start_length_must_leave_room():
    from fastsnake.snake.board import BoardError

    with pytest.raises(BoardError, match="start length 4"):
        GameConfig(2, 2, start_length=4)


# -- borrowed rows (the envs' step) ----------------------------------------------------------------


@njit(inline="always")
def _write_at(row, k, value):
    row[k] = value


@njit
def _through_borrowed_rows(a, rows, cols, values):
    # Writes through a borrowed row, directly and inside an inlined function (numba's inlined
    # overloads once lost such writes); reads back the same way.
    total = 0
    for i in range(rows.shape[0]):
        row = borrowed_row(a, rows[i])
        if i % 2 == 0:
            row[cols[i]] = values[i]
        else:
            _write_at(borrowed_row(a, rows[i]), cols[i], values[i])
        total += borrowed_row(a, rows[i])[cols[i]]
    return total


@settings(max_examples=20, deadline=None)
@given(st.integers(1, 6), st.integers(1, 9), st.lists(st.tuples(st.integers(0, 99), st.integers(0, 99),
                                                                 st.integers(-50, 50)), min_size=1, max_size=30))
def test_borrowed_rows_write_where_indexing_writes(n_rows, n_cols, writes):
    rows = np.array([r % n_rows for r, _, _ in writes], np.int64)
    cols = np.array([c % n_cols for _, c, _ in writes], np.int64)
    values = np.array([v for _, _, v in writes], np.int64)
    got, want = np.zeros((n_rows, n_cols), np.int64), np.zeros((n_rows, n_cols), np.int64)
    total = _through_borrowed_rows(got, rows, cols, values)
    want_total = 0
    for r, c, v in zip(rows, cols, values, strict=True):
        want[r][c] = v
        want_total += want[r][c]
    assert np.array_equal(got, want) and total == want_total
