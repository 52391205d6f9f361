"""The shared A* kernel and the greedy policy's decisions."""

from itertools import pairwise

import numpy as np
import snake_naive as naive
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from fastsnake.search.astar import A_PATH, astar_buffers, astar_grid
from fastsnake.snake.board import GameConfig, neighbour_table
from fastsnake.snake.engine import set_position
from fastsnake.snake.policies.greedy import _alloc, _decide, free_cell


@njit
def shortest(nbr, cols, blocked, start, goal):
    buf = astar_buffers(blocked.shape[0])
    length = astar_grid(buf, nbr, cols, start, goal, free_cell, blocked)
    return length, buf[A_PATH][: max(length, 0)].copy()


@settings(max_examples=200, deadline=None)
@given(st.integers(2, 9), st.integers(2, 9), st.integers(0, 2**32), st.floats(0, 0.5))
def test_astar_finds_shortest_paths(rows, cols, seed, density):
    rng = np.random.default_rng(seed)
    n = rows * cols
    blocked = (rng.random(n) < density).astype(np.uint8)
    start, goal = rng.choice(n, 2, replace=False)
    blocked[goal] = 0
    nbr = neighbour_table(rows, cols)
    length, path = shortest(nbr, cols, blocked, start, goal)
    expected = naive.bfs_distance(rows, cols, set(np.flatnonzero(blocked).tolist()) - {start}, start, goal)
    assert length == expected
    if length > 0:
        steps = [start, *path.tolist()]
        assert steps[-1] == goal
        for a, b in pairwise(steps):
            assert abs(a // cols - b // cols) + abs(a % cols - b % cols) == 1
            assert blocked[b] == 0


def decide(rows, cols, body, apple, tail="follow"):
    config = GameConfig(rows, cols, len(body), tail)
    cfg, nbr = config.arrays()
    g, state = set_position(cfg, nbr, np.array(body, np.int32), apple)
    return int(_decide(_alloc(cfg, nbr, np.zeros(1, np.int64)), g, state))


def test_greedy_heads_for_the_apple_around_its_body():
    # 5x5, body along row 2 from (2,0) to head (2,3); apple straight below the tail.
    body = [10, 11, 12, 13]
    move = decide(5, 5, body, 15)
    # Shortest way from 13 to 15 (cell (3,0)) goes down first: 13 -> 18 -> 17 -> 16 -> 15.
    assert move == 2


@settings(max_examples=60, deadline=None)
@given(st.integers(3, 7), st.integers(3, 7), st.integers(0, 2**32))
def test_greedy_move_is_a_first_step_of_a_shortest_path(rows, cols, seed):
    rng = np.random.default_rng(seed)
    # a random body: a self-avoiding random walk
    body = [int(rng.integers(rows * cols))]
    for _ in range(int(rng.integers(1, rows * cols // 2))):
        options = [naive.neighbour(rows, cols, body[-1], m) for m in range(4)]
        options = [c for c in options if c is not None and c not in body]
        if not options:
            break
        body.append(int(rng.choice(options)))
    free = [c for c in range(rows * cols) if c not in body]
    apple = int(rng.choice(free))
    move = decide(rows, cols, body, apple)
    head = body[-1]
    blocked = set(body)
    d0 = naive.bfs_distance(rows, cols, blocked - {head}, head, apple)
    target = naive.neighbour(rows, cols, head, move)
    if d0 > 0:
        assert target is not None and target not in blocked
        assert naive.bfs_distance(rows, cols, blocked | {head}, target, apple) == d0 - 1
    else:
        # No path: the move keeps the largest region among legal moves.
        legal = {}
        for m in range(4):
            t = naive.neighbour(rows, cols, head, m)
            if t is not None and (t not in blocked or (t == body[0] and len(body) > 1)):
                legal[m] = naive.region_size(rows, cols, blocked - {t}, t)
        if legal:
            assert move in legal and legal[move] == max(legal.values())


def test_greedy_with_no_path_takes_the_roomiest_move():
    # 4x4, head at (0,1); the body seals the free cells {0, 4, 5} off from the apple at 15.
    body = [12, 8, 9, 10, 6, 2, 1]
    move = decide(4, 4, body, 15, tail="blocked")
    # left (to 0) and down (to 5) both keep 3 cells; ties go to the lowest move code.
    assert move == 2

