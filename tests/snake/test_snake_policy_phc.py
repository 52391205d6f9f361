"""`phc` / `phc-faithful`: decisions against the plain-Python reference, the guarantee, hand-made positions."""

import numpy as np
import policy_naive as ref
import pytest
import snake_naive as naive
from hypothesis import given, settings
from hypothesis import strategies as st

from fastsnake.snake.board import GameConfig
from fastsnake.snake.cycles import make_cycle, order_of
from fastsnake.snake.engine import set_position
from fastsnake.snake.policies import get_policy
from fastsnake.snake.policies.phc import _alloc, _decide
from fastsnake.snake.replay import play_game
from fastsnake.snake.sweep import run_sweep

boards = st.tuples(st.integers(2, 8), st.integers(2, 8)).filter(lambda rc: rc[0] * rc[1] % 2 == 0)


check = naive.check


@settings(max_examples=60, deadline=None)
@given(boards, st.sampled_from([1, 3]), st.sampled_from(["follow", "blocked"]),
       st.sampled_from(["zigzag", "random"]), st.integers(0, 2**32))
def test_phc_wins_and_every_move_is_the_reference_move(board, length, tail, kind, seed):
    rows, cols = board
    config = GameConfig(rows, cols, min(length, rows * cols - 1), tail)
    replay, _ = play_game("phc", config, seed=seed, game=seed % 7, options={"cycle": kind})
    assert replay.outcome == "won"
    assert check(replay) is None
    order = replay.cycle.tolist()
    assert ref.drive(replay, lambda game: ref.phc_move(game, order, faithful=False)) is None


@settings(max_examples=40, deadline=None)
@given(boards, st.sampled_from([1, 3]), st.sampled_from(["follow", "blocked"]), st.integers(0, 2**32))
def test_phc_faithful_is_tapsells_rule_and_its_losses_replay(board, length, tail, seed):
    rows, cols = board
    config = GameConfig(rows, cols, min(length, rows * cols - 1), tail)
    replay, _ = play_game("phc-faithful", config, seed=seed, options={"cycle": "random"})
    assert check(replay) is None
    order = replay.cycle.tolist()
    assert ref.drive(replay, lambda game: ref.phc_move(game, order, faithful=True)) is None
    if tail == "follow":
        assert replay.outcome == "won"  # the order alone protects it under the follow rule


def decide(rows, cols, body, apple, tail="follow", faithful=False):
    config = GameConfig(rows, cols, len(body), tail)
    cfg, nbr = config.arrays()
    policy = get_policy("phc-faithful" if faithful else "phc")
    params = policy.params(config)
    g, state = set_position(cfg, nbr, np.array(body, np.int32), apple)
    return int(_decide(_alloc(cfg, nbr, params), g, state))


# The 6x6 zig-zag cycle: row 0 left to right from column 1, row 1 back, ..., column 0 upwards.
ZIG = make_cycle(6, 6).tolist()
UP, RIGHT, DOWN, LEFT = range(4)


def test_zigzag_layout_assumed_by_the_hand_made_positions():
    assert ZIG[:12] == [1, 2, 3, 4, 5, 11, 10, 9, 8, 7, 13, 14]


def test_thesis_fig_5_1_shortcut_straight_down_to_the_apple():
    # Fig. 5.1: the head would need 5 cycle moves (3->4->5->11->10->9); cell 9 is right below it.
    body, apple = [1, 2, 3], 9
    assert decide(6, 6, body, apple) == DOWN
    # Tapsell's budget keeps 10 cells in reserve while the apple is far from the tail: no shortcut.
    assert decide(6, 6, body, apple, faithful=True) == RIGHT


def test_never_jumps_past_the_apple():
    # Apple on 10, one step before 9 on the cycle: going down to 9 would skip it.
    assert decide(6, 6, [1, 2, 3], 10) == RIGHT


def test_no_shortcut_past_half_the_board():
    body = ZIG[:19]  # 19 of 36 cells, head on 20; the cycle goes on left to 19, then 25, 26, ...
    assert body[-1] == 20 and ZIG[24] == 29
    assert decide(6, 6, body, 29) == LEFT
    # With 18 cells (exactly half) it still cuts down to 26, three cells further on the cycle.
    assert decide(6, 6, body[1:], 29) == DOWN


def test_blocked_rule_follows_the_cycle_once_longer_than_one():
    assert decide(6, 6, [1, 2, 3], 9, tail="blocked") == RIGHT
    # A one-cell snake may cut towards the apple, but eats only from the apple's cycle predecessor.
    assert decide(6, 6, [3], 8, tail="blocked") == DOWN
    assert decide(6, 6, [3], 9, tail="blocked") == RIGHT
    assert decide(6, 6, [3], 9, tail="follow") == DOWN

def test_the_order_holds_the_tail_stays_ahead():
    # Snake wrapped around the end of the cycle: body 6,0,1,2 (order 34, 35, 0, 1), head 2.
    order = order_of(np.array(ZIG))
    body = [ZIG[34], ZIG[35], ZIG[0], ZIG[1]]
    assert ref.in_order(body, order.tolist())
    move = decide(6, 6, body, ZIG[20])
    target = naive.neighbour(6, 6, body[-1], move)
    assert target not in body


# Under the blocked rule phc leaves the cycle only while the snake is one cell long: from a longer
# start it plays `cycle`'s games move for move. So its blocked-rule games start at length 1, each
# taking that shortcut once, and half as many do (the rest of every game is the cycle's).
@pytest.mark.slow
@pytest.mark.parametrize("size,games,start,tail", [(10, 100_000, 3, "follow"), (30, 1_000, 3, "follow"),
                                                   (10, 50_000, 1, "blocked"), (30, 500, 1, "blocked")])
def test_phc_never_loses_big(size, games, start, tail):
    for kind in ("zigzag", "random"):
        result = run_sweep("phc", GameConfig(size, size, start, tail), games, seed=11, options={"cycle": kind})
        assert np.all(result.outcome == 1), np.bincount(result.outcome)
