"""`snake-ai` (faithful) and `snake-ai-safe`: decisions against the reference, the guarantee, hand-made positions."""

import numpy as np
import policy_naive as ref
import pytest
import snake_naive as naive
from hypothesis import given, settings
from hypothesis import strategies as st

from fastsnake.snake.board import GameConfig
from fastsnake.snake.cycles import make_cycle
from fastsnake.snake.engine import set_position
from fastsnake.snake.policies import get_policy
from fastsnake.snake.policies.snake_ai import _alloc, _decide
from fastsnake.snake.replay import play_game
from fastsnake.snake.sweep import run_sweep

boards = st.tuples(st.integers(2, 8), st.integers(2, 8)).filter(lambda rc: rc[0] * rc[1] % 2 == 0)


check = naive.check


@settings(max_examples=25, deadline=None)
@given(boards, st.sampled_from([1, 3]), st.sampled_from(["follow", "blocked"]),
       st.sampled_from(["zigzag", "random"]), st.integers(0, 2**32))
def test_snake_ai_safe_wins_and_moves_like_the_reference(board, length, tail, kind, seed):
    rows, cols = board
    config = GameConfig(rows, cols, min(length, rows * cols - 1), tail)
    replay, _ = play_game("snake-ai-safe", config, seed=seed, game=seed % 5, options={"cycle": kind})
    assert replay.outcome == "won"
    assert check(replay) is None
    order = replay.cycle.tolist()
    assert ref.drive(replay, lambda game: ref.snake_ai_move(game, order, faithful=False)) is None


@settings(max_examples=60, deadline=None)
@given(boards, st.sampled_from([1, 3]), st.sampled_from(["follow", "blocked"]),
       st.sampled_from(["zigzag", "random"]), st.integers(0, 2**32))
def test_snake_ai_faithful_moves_like_the_original_and_its_losses_replay(board, length, tail, kind, seed):
    rows, cols = board
    config = GameConfig(rows, cols, min(length, rows * cols - 1), tail)
    replay, _ = play_game("snake-ai", config, seed=seed, options={"cycle": kind})
    assert check(replay) is None
    order = replay.cycle.tolist()
    assert ref.drive(replay, lambda game: ref.snake_ai_move(game, order, faithful=True)) is None


def test_snake_ai_faithful_loses_some_games_and_each_loss_replays():
    config = GameConfig(6, 6, 3, "blocked")
    replays = [play_game("snake-ai", config, seed=3, game=i, options={"cycle": "random"})[0] for i in range(300)]
    lost = [r for r in replays if r.outcome == "died"]
    assert len(lost) > 0
    for replay in lost:
        assert check(replay) is None


def decide(rows, cols, body, apple, tail="follow", faithful=False):
    config = GameConfig(rows, cols, len(body), tail)
    cfg, nbr = config.arrays()
    policy = get_policy("snake-ai" if faithful else "snake-ai-safe")
    params = policy.params(config)
    g, state = set_position(cfg, nbr, np.array(body, np.int32), apple)
    return int(_decide(_alloc(cfg, nbr, params), g, state))


ZIG = make_cycle(6, 6).tolist()
UP, RIGHT, DOWN, LEFT = range(4)


def test_readme_example_takes_the_neighbour_closest_to_the_apple():
    # Seed 003's picture: the cycle successor is 5 moves from the apple, a legal neighbour 1 move.
    assert ZIG[:12] == [1, 2, 3, 4, 5, 11, 10, 9, 8, 7, 13, 14]
    assert decide(6, 6, [1, 2, 3], 8) == DOWN  # 9 is one cycle step before the apple 8
    assert decide(6, 6, [1, 2, 3], 8, faithful=True) == DOWN


def test_the_unwrapped_distance_blocks_every_shortcut_in_the_original():
    body = [3, 4, 5, 11]  # orders 2..5; head 11, its successor 10 (order 6); apple 2 (order 1)
    # Original: the default's distance is 1 - 6 = -5 and no wrapped distance is smaller.
    assert decide(6, 6, body, 2, faithful=True) == LEFT
    # Safe: wrapped distances; 17 (down, order 14) is 23 moves from the apple, 10 is 31.
    assert decide(6, 6, body, 2) == DOWN


def test_faithful_treats_the_tail_as_an_obstacle_even_under_the_follow_rule():
    assert make_cycle(2, 4).tolist() == [1, 2, 3, 7, 6, 5, 4, 0]
    # Body in cycle order with holes 4 and 0; the head 1's successor is the tail 2.
    body, apple = [2, 3, 7, 6, 5, 1], 4
    assert decide(2, 4, body, apple) == RIGHT  # onto the leaving tail: allowed and in order
    assert decide(2, 4, body, apple, faithful=True) == LEFT  # the original's escape, out of order


@pytest.mark.slow
@pytest.mark.parametrize("tail", ["follow", "blocked"])
@pytest.mark.parametrize("size,games", [(10, 100_000), (30, 1_000)])
def test_snake_ai_safe_never_loses_big(tail, size, games):
    result = run_sweep("snake-ai-safe", GameConfig(size, size, 3, tail), games, seed=12)
    assert np.all(result.outcome == 1), np.bincount(result.outcome)
