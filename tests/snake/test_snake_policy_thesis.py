"""`thesis-shortcut` (fixed) and `thesis-shortcut-faithful`: guarantee, plans against a BFS reference, figures."""

import numpy as np
import policy_naive as ref
import pytest
import snake_naive as naive
from hypothesis import given, settings
from hypothesis import strategies as st

from fastsnake.snake.board import GameConfig
from fastsnake.snake.cycles import make_cycle
from fastsnake.snake.engine import set_position
from fastsnake.snake.policies import PolicyError, get_policy
from fastsnake.snake.policies.thesis_shortcut import _alloc, _decide
from fastsnake.snake.replay import play_game
from fastsnake.snake.sweep import run_sweep

boards = st.tuples(st.integers(2, 8), st.integers(2, 8)).filter(lambda rc: rc[0] * rc[1] % 2 == 0)


check = naive.check


def walk_apples(replay):
    """(body, apple, moves until that apple was eaten) for each apple of a won game."""
    game = naive.Game(replay.rows, replay.cols, [int(c) for c in replay.body], replay.tail_rule,
                      replay.max_moves, apples=[int(a) for a in replay.apples])
    start, out = (list(game.body), game.apple, 0), []
    for t, move in enumerate(int(m) for m in replay.moves):
        eaten = game.eaten
        game.step(move)
        if game.eaten != eaten:
            out.append((*start[:2], t + 1 - start[2]))
            start = (list(game.body), game.apple, t + 1)
    return out


@settings(max_examples=25, deadline=None)
@given(boards, st.sampled_from([1, 3]), st.sampled_from(["follow", "blocked"]),
       st.sampled_from(["zigzag", "random"]), st.integers(0, 2**32))
def test_thesis_shortcut_wins_and_walks_shortest_in_order_paths(board, length, tail, kind, seed):
    rows, cols = board
    n = rows * cols
    config = GameConfig(rows, cols, min(length, n - 1), tail)
    replay, _ = play_game("thesis-shortcut", config, seed=seed, game=seed % 3, options={"cycle": kind})
    assert replay.outcome == "won" and check(replay) is None
    order = replay.cycle.tolist()
    for body, apple, moves in walk_apples(replay):
        head, tail_cell = body[-1], body[0]
        gap = n if len(body) == 1 else (order[tail_cell] - order[head]) % n
        on_cycle = (order[apple] - order[head]) % n
        if tail == "follow" and 2 * len(body) <= n and on_cycle < gap:
            def step(frm, to, head=head, gap=gap):
                return ref.ahead(order, head, frm) < ref.ahead(order, head, to) < gap
            assert moves == ref.bfs_path_length(rows, cols, step, head, apple)
        elif tail == "blocked" and len(body) > 1:
            assert moves == on_cycle  # no shortcut leaves holes under the blocked rule


@settings(max_examples=40, deadline=None)
@given(boards, st.sampled_from([1, 3]), st.sampled_from(["follow", "blocked"]), st.integers(0, 2**32))
def test_thesis_faithful_games_follow_the_rules(board, length, tail, seed):
    rows, cols = board
    config = GameConfig(rows, cols, min(length, rows * cols - 1), tail)
    replay, _ = play_game("thesis-shortcut-faithful", config, seed=seed, options={"cycle": "random", "room": "1"})
    assert check(replay) is None


def test_thesis_faithful_losses_replay_through_the_rule_check():
    config = GameConfig(6, 6, 3, "follow")
    replays = [play_game("thesis-shortcut-faithful", config, seed=4, game=i, options={"room": "1"})[0]
               for i in range(30)]
    lost = [r for r in replays if r.outcome == "died"]
    assert len(lost) > 0
    for replay in lost:
        assert check(replay) is None


def test_bad_room_option_is_refused():
    with pytest.raises(PolicyError, match="room='0'"):
        get_policy("thesis-shortcut-faithful").params(GameConfig(4, 4), {"room": "0"})


def decide(rows, cols, body, apple, tail="follow", faithful=False, room="8"):
    config = GameConfig(rows, cols, len(body), tail)
    cfg, nbr = config.arrays()
    policy = get_policy("thesis-shortcut-faithful" if faithful else "thesis-shortcut")
    params = policy.params(config, {"room": room} if faithful else {})
    g, state = set_position(cfg, nbr, np.array(body, np.int32), apple)
    return int(_decide(_alloc(cfg, nbr, params), g, state))


ZIG = make_cycle(6, 6).tolist()
UP, RIGHT, DOWN, LEFT = range(4)


def test_fig_5_1_cuts_down_to_the_apple():
    # Head on cycle cell 3 (body 1, 2, 3), apple 8: 6 moves along the cycle, 2 straight down and left.
    assert ZIG[:12] == [1, 2, 3, 4, 5, 11, 10, 9, 8, 7, 13, 14]
    assert decide(6, 6, [1, 2, 3], 8) == DOWN
    assert decide(6, 6, [1, 2, 3], 8, faithful=True) == DOWN


def test_fig_5_2_no_step_back_along_the_cycle():
    # Head 9 (order 7), apple 2 (order 1): straight up is a step back on the cycle, not allowed;
    # the in-order way round continues along the cycle.
    body = [3, 4, 5, 11, 10, 9]
    assert decide(6, 6, body, 2) == LEFT  # cycle successor 8
    assert decide(6, 6, body, 2, faithful=True) == LEFT


def test_faithful_index_order_jumps_over_its_own_body():
    # 6x6 zig-zag; body with order 11 (cell 7), 12..14 (13, 14, 15) ahead of a head on order 0 (cell 1).
    # Apple on order 9 (cell 8): the index rule allows 1 -> 7?? no: cell 7 is body; going down
    # from 1 to 7 is blocked, so the thesis path walks 1, 2, 8 (orders 0, 1, 8): increasing indices.
    body = [15, 14, 13, 7, 6, 0, 1]  # tail 15 (order 12) ... head 1 (order 0): out of cycle order
    assert not ref.in_order(body, [int(x) for x in np.argsort(ZIG)])
    # The fixed rule refuses everything not between the head and the tail: it follows the cycle.
    assert decide(6, 6, body, 8) == RIGHT


@pytest.mark.slow
@pytest.mark.parametrize("tail", ["follow", "blocked"])
@pytest.mark.parametrize("size,games", [(10, 100_000), (30, 1_000)])
def test_thesis_shortcut_never_loses_big(tail, size, games):
    result = run_sweep("thesis-shortcut", GameConfig(size, size, 3, tail), games, seed=13)
    assert np.all(result.outcome == 1), np.bincount(result.outcome)
