"""The cell-tree and dhcr agents: the outline test against brute force, and whole games
against the reference rules (legal, won, within the move bound of their guarantees)."""

import agent_naive
import numpy as np
import pytest
import snake_naive as naive
from hypothesis import given, settings
from hypothesis import strategies as st

from fastsnake.errors import InputError
from fastsnake.snake.board import GameConfig
from fastsnake.snake.celltree.blocks import block_edge_masks, block_links, block_tables, right_hand_table
from fastsnake.snake.celltree.outline import on_some_outline, on_some_outline_bits
from fastsnake.snake.engine import OUTCOME_NAMES, WON
from fastsnake.snake.policies import get_policy
from fastsnake.snake.rng import game_seed_py
from fastsnake.snake.sweep import run_sweep

even = st.sampled_from([2, 4, 6])
even_up_to_ten = st.sampled_from([2, 4, 6, 8, 10])


def random_right_hand_walk(rows, cols, rng, length):
    walk = [int(rng.integers(rows * cols))]
    while len(walk) < length:
        options = [c for c in agent_naive.right_hand_moves(rows, cols, walk[-1]) if c not in walk]
        if not options:
            break
        walk.append(int(rng.choice(options)))
    return walk


@settings(max_examples=150, deadline=None)
@given(even, even, st.integers(0, 2**32), st.integers(1, 36))
def test_outline_test_agrees_with_trying_every_spanning_tree(rows, cols, seed, length):
    if rows * cols > 24:  # at most 6 blocks: every tree is tried
        rows = 4
    walk = random_right_hand_walk(rows, cols, np.random.default_rng(seed), length)
    expected = agent_naive.walk_on_some_outline(rows, cols, walk)
    blk, side = block_tables(rows, cols)
    nb = (rows // 2) * (cols // 2)
    stamp = np.zeros(5 * nb, np.int32)
    win = np.array(walk, np.int32)
    got = on_some_outline(blk, side, block_links(rows, cols), stamp, np.empty(nb, np.int32), np.int32(2), nb,
                          win, len(walk))
    assert got == expected
    reached = {b for b in range(nb) if stamp[b] == 3}
    open_right, open_down = block_edge_masks(rows, cols)
    got_bits, mask = on_some_outline_bits(blk, side, np.zeros(5 * nb, np.int32), np.int32(2), nb, cols // 2,
                                          open_right, open_down, win, len(walk))
    assert got_bits == expected
    assert {b for b in range(nb) if (int(mask) >> b) & 1} == reached


@settings(max_examples=100, deadline=None)
@given(st.sampled_from([(8, 8), (8, 14), (14, 16), (10, 12)]), st.integers(0, 2**32), st.integers(1, 120))
def test_bit_mask_outline_test_matches_the_queue_version_on_larger_boards(shape, seed, length):
    rows, cols = shape
    walk = random_right_hand_walk(rows, cols, np.random.default_rng(seed), length)
    blk, side = block_tables(rows, cols)
    nb = (rows // 2) * (cols // 2)
    win = np.array(walk, np.int32)
    stamp = np.zeros(5 * nb, np.int32)
    got = on_some_outline(blk, side, block_links(rows, cols), stamp, np.empty(nb, np.int32), np.int32(2), nb,
                          win, len(walk))
    open_right, open_down = block_edge_masks(rows, cols)
    got_bits, mask = on_some_outline_bits(blk, side, np.zeros(5 * nb, np.int32), np.int32(2), nb, cols // 2,
                                          open_right, open_down, win, len(walk))
    assert got_bits == got
    assert {b for b in range(nb) if (int(mask) >> b) & 1} == {b for b in range(nb) if stamp[b] == 3}
    # The reached blocks are those a plain BFS over the edges the walk does not pass along reaches.
    assert {b for b in range(nb) if stamp[b] == 3} == agent_naive.blocks_reached(rows, cols, walk)


def test_right_hand_table_keeps_two_moves_per_cell():
    from fastsnake.snake.board import neighbour_table

    rows, cols = 4, 6
    table = right_hand_table(neighbour_table(rows, cols), rows, cols).reshape(-1, 4)
    for cell in range(rows * cols):
        allowed = sorted(int(c) for c in table[cell] if c >= 0)
        assert allowed == sorted(agent_naive.right_hand_moves(rows, cols, cell))


def play_and_check(name, rows, cols, start_length, tail, seed, options=None, params_edit=None):
    """One game through the policy's play kernel, re-checked by the reference rules."""
    config = GameConfig(rows, cols, start_length, tail)
    policy = get_policy(name)
    params = policy.params(config, options)
    if params_edit:
        params_edit(params)
    cfg, nbr = config.arrays()
    outcome, body0, moves, apples, cycle = policy.play_kernel(cfg, nbr, params, np.uint64(game_seed_py(seed, 0)))
    checked = naive.check_replay(rows, cols, body0.tolist(), moves.tolist(), apples.tolist(),
                                 OUTCOME_NAMES[int(outcome)], tail)
    return int(outcome), len(moves), checked


@settings(max_examples=40, deadline=None)
@given(even_up_to_ten, even_up_to_ten, st.integers(1, 3), st.sampled_from(["follow", "blocked"]),
       st.integers(0, 2**40), st.sampled_from([None, 0, 1, 3]), st.sampled_from([None, 1, 2, 5]))
def test_cell_games_are_legal_and_won_within_half_n_squared(rows, cols, start_length, tail, seed, detours, every):
    n = rows * cols
    start_length = min(start_length, n - 1)
    options = {"detours": detours, "research_every": every}
    outcome, count, checked = play_and_check("cell", rows, cols, start_length, tail, seed, options)
    assert outcome == WON
    assert checked is None
    assert count < n * n / 2


def _big_board_kernels(params):
    # What boards past 2,500 cells / 63 blocks use: Manhattan heuristic, queue BFS outline test.
    params[2] = 0
    params[3] = 0


@settings(max_examples=25, deadline=None)
@given(even_up_to_ten, even_up_to_ten, st.integers(1, 3), st.sampled_from(["follow", "blocked"]),
       st.integers(0, 2**40), st.sampled_from([None, 0, 2]))
def test_cell_games_with_the_big_board_fallbacks_are_legal_and_won(rows, cols, start_length, tail, seed, detours):
    n = rows * cols
    start_length = min(start_length, n - 1)
    outcome, count, checked = play_and_check("cell", rows, cols, start_length, tail, seed, {"detours": detours},
                                             _big_board_kernels)
    assert outcome == WON
    assert checked is None
    assert count < n * n / 2


def test_cell_uses_the_table_and_bit_masks_up_to_their_limits():
    policy = get_policy("cell")
    small = policy.params(GameConfig(50, 50, 1, "blocked"), {})
    big = policy.params(GameConfig(52, 50, 1, "blocked"), {})
    assert small[2] == 1 and big[2] == 0  # 2,500 and 2,600 cells
    assert policy.params(GameConfig(14, 18, 1, "blocked"))[3] == 1  # 63 blocks
    assert policy.params(GameConfig(16, 16, 1, "blocked"))[3] == 0  # 64 blocks


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 7), st.integers(2, 7), st.integers(1, 3), st.sampled_from(["follow", "blocked"]),
       st.sampled_from(["zigzag", "random"]), st.integers(0, 2**40))
def test_dhcr_games_are_legal_and_won_within_half_n_squared(rows, cols, start_length, tail, kind, seed):
    n = rows * cols
    if n % 2:
        cols += 1
        n = rows * cols
    start_length = min(start_length, n - 1)
    outcome, count, checked = play_and_check("dhcr", rows, cols, start_length, tail, seed, {"cycle": kind})
    assert outcome == WON
    assert checked is None
    assert count < n * n / 2


def test_cell_refuses_boards_with_an_odd_side():
    with pytest.raises(InputError, match="5x6"):
        run_sweep("cell", GameConfig(5, 6, 1, "blocked"), 1)


def test_dhcr_refuses_odd_by_odd_boards():
    with pytest.raises(InputError, match="5x5"):
        run_sweep("dhcr", GameConfig(5, 5, 1, "blocked"), 1)


def test_both_agents_claim_the_guarantee():
    assert get_policy("cell").guaranteed and get_policy("dhcr").guaranteed


@pytest.mark.slow
@pytest.mark.parametrize("name", ["cell", "dhcr"])
@pytest.mark.parametrize("tail", ["follow", "blocked"])
@pytest.mark.parametrize("start_length", [1, 3])
@pytest.mark.parametrize("size,games", [(10, 10_000), (30, 200)])
def test_zero_losses(name, tail, start_length, size, games):
    result = run_sweep(name, GameConfig(size, size, start_length, tail), games, seed=7)
    assert np.all(result.outcome == WON)


@pytest.mark.slow
# The published suite's means (twanvl/snake, same rules): cell 1045.9 and 49,178.4, dhcr 1249.7.
@pytest.mark.parametrize("name,size,games,bound", [("cell", 10, 10_000, 1046), ("cell", 30, 200, 49_178),
                                                   ("dhcr", 10, 10_000, 1250)])
def test_mean_moves_with_the_published_rules(name, size, games, bound):
    result = run_sweep(name, GameConfig(size, size, 1, "blocked"), games, seed=0)
    assert np.all(result.outcome == WON)
    assert result.moves.mean() <= bound
