"""A slow, obviously-correct Snake environment on the tests' pure-Python rules (`snake_naive`).

It starts a game as the engine's `start_default` does, written out plainly: the
game's SplitMix64 stream draws the head's position on the row-by-row path, the
body lies behind it, and the same stream then drops the apples. Observations are
rebuilt from the body list, masks by trying each move on a copy of the game.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "snake"))
import snake_naive as naive  # noqa: E402

EMPTY, BODY, HEAD, TAIL, APPLE = 0, 1, 2, 3, 4


def row_path(rows, cols):
    return [r * cols + (c if r % 2 == 0 else cols - 1 - c) for r in range(rows) for c in range(cols)]


def start_game(rows, cols, start_length, tail_rule, max_moves, base_seed, index):
    """naive.Game of game `index` of base seed `base_seed`, started as the engine starts it."""
    rng = naive.SplitMix(naive.game_seed(base_seed, index))
    n = rows * cols
    head_pos = start_length - 1 + rng.below(n - start_length + 1)
    path = row_path(rows, cols)
    body = path[head_pos - start_length + 1 : head_pos + 1]
    # The game continues the same stream: hand over its state as the "seed".
    return naive.Game(rows, cols, body, tail_rule, max_moves, seed=rng.state)


def observation(game):
    grid = np.zeros(game.rows * game.cols, np.uint8)
    body = list(game.body)
    for cell in body:
        grid[cell] = BODY
    if len(body) >= 2:
        grid[body[0]] = TAIL
    grid[body[-1]] = HEAD
    if game.apple is not None:
        grid[game.apple] = APPLE
    return grid.reshape(game.rows, game.cols)


def mask(game):
    """1 where stepping a copy of the game with that move does not end in death."""
    out = np.zeros(4, np.int8)
    for move in range(4):
        trial = copy.deepcopy(game)
        trial.outcome = "running"  # also asked after the end, for the final position
        trial.max_moves = 1 << 62
        trial.step(move)
        out[move] = trial.outcome != "died"
    return out


class NaiveEnv:
    """reset/step with the environment's contract, one game after another."""

    def __init__(self, rows, cols, start_length=3, tail_rule="follow", max_moves=None):
        self.args = (rows, cols, start_length, tail_rule, max_moves)
        self.seed = None
        self.index = -1
        self.game = None

    def reset(self, seed=None):
        if seed is not None:
            self.seed, self.index = seed, 0
        else:
            self.index += 1
        self.game = start_game(*self.args, self.seed, self.index)
        return observation(self.game), self.info()

    def info(self):
        g = self.game
        return {"action_mask": mask(g), "apples": g.eaten, "length": len(g.body), "moves": g.moves,
                "seed": self.seed, "game": self.index}

    def step(self, move):
        g = self.game
        eaten = g.eaten
        g.step(move)
        reward = 1.0 if g.eaten > eaten else (-1.0 if g.outcome == "died" else 0.0)
        terminated = g.outcome in ("died", "won")
        truncated = g.outcome == "stuck"
        return observation(g), reward, terminated, truncated, self.info()


def egocentric(game, view):
    """The (4, view, view) window around the head, cell by cell: wall, body, tail, apple planes."""
    grid = observation(game)
    head_row, head_col = divmod(list(game.body)[-1], game.cols)
    out = np.zeros((4, view, view), np.uint8)
    for i in range(view):
        for j in range(view):
            r, c = head_row + i - view // 2, head_col + j - view // 2
            if not (0 <= r < game.rows and 0 <= c < game.cols):
                out[0, i, j] = 1
            elif grid[r, c] in (BODY, TAIL, APPLE):
                out[{BODY: 1, TAIL: 2, APPLE: 3}[int(grid[r, c])], i, j] = 1
    return out


def planes(game):
    """(5, rows, cols) one-hot planes of the observation, cell by cell: plane k is 1 where the code is k."""
    grid = observation(game)
    out = np.zeros((5, game.rows, game.cols), np.uint8)
    for r in range(game.rows):
        for c in range(game.cols):
            out[int(grid[r, c]), r, c] = 1
    return out


def features(game):
    """The 11 features of obs="features", one by one as docs/envs.md defines them (float32)."""
    rows, cols = game.rows, game.cols
    body = list(game.body)
    head = body[-1]
    tail = body[0] if len(body) >= 2 else head
    apple = game.apple if game.apple is not None else head
    span_r, span_c = max(rows - 1, 1), max(cols - 1, 1)
    hr, hc = divmod(head, cols)
    ar, ac = divmod(apple, cols)
    tr, tc = divmod(tail, cols)
    values = [*mask(game), (ar - hr) / span_r, (ac - hc) / span_c, (tr - hr) / span_r, (tc - hc) / span_c,
              2 * hr / span_r - 1, 2 * hc / span_c - 1, len(body) / (rows * cols)]
    return np.array(values, np.float32)


# -- heading-relative play (relative=True), written out by hand -------------------------------------

# (heading, turn) -> absolute move; turns 0 left, 1 ahead, 2 right; moves 0 up, 1 right, 2 down, 3 left.
TURN_TABLE = {
    (0, 0): 3, (0, 1): 0, (0, 2): 1,  # heading up: left is left, ahead is up, right is right
    (1, 0): 0, (1, 1): 1, (1, 2): 2,  # heading right: left is up
    (2, 0): 1, (2, 1): 2, (2, 2): 3,  # heading down: left is right
    (3, 0): 2, (3, 1): 3, (3, 2): 0,  # heading left: left is down
}


def start_heading(game):
    """The heading before any move: from the cell behind the head to the head; up for one cell."""
    body = list(game.body)
    if len(body) < 2:
        return 0
    (nr, nc), (hr, hc) = divmod(body[-2], game.cols), divmod(body[-1], game.cols)
    return {(-1, 0): 0, (0, 1): 1, (1, 0): 2, (0, -1): 3}[(hr - nr, hc - nc)]


def turned_egocentric(game, view, heading):
    """The egocentric window turned so the heading points up: np.rot90 (counter-clockwise) of the
    north-up window, once per quarter turn of the heading clockwise from up."""
    return np.ascontiguousarray(np.rot90(egocentric(game, view), heading, axes=(1, 2)))


class NaiveRelativeEnv(NaiveEnv):
    """NaiveEnv played with turns: the heading is kept here, the last move that moved the head."""

    def __init__(self, *args, view=5):
        super().__init__(*args)
        self.view = view
        self.heading = 0

    def reset(self, seed=None):
        _, info = super().reset(seed)
        self.heading = start_heading(self.game)
        return self.observe(), self.turn_info(info)

    def observe(self):
        return turned_egocentric(self.game, self.view, self.heading)

    def turn_info(self, info):
        info["action_mask"] = np.array([info["action_mask"][TURN_TABLE[self.heading, t]] for t in range(3)], np.int8)
        return info

    def step(self, turn):
        move = TURN_TABLE[self.heading, turn]
        head = self.game.body[-1]
        _, reward, terminated, truncated, info = super().step(move)
        if self.game.body[-1] != head:
            self.heading = move
        return self.observe(), reward, terminated, truncated, self.turn_info(info)


def same_info(a, b):
    """Two info dicts hold the same keys with equal values."""
    assert set(a) == set(b)
    for key in a:
        assert np.array_equal(np.asarray(a[key]), np.asarray(b[key])), key


def lockstep(env, ref, seed, rng, episodes, steps, choose):
    """Play `env` and its naive reference `ref` side by side: `episodes` episodes from ``reset(seed)``,
    at most `steps` actions each, each action ``choose(rng, mask)``; every observation, reward, end
    flag, info and mask must be equal."""
    for episode in range(episodes):
        obs, info = env.reset(seed=seed) if episode == 0 else env.reset()
        want_obs, want_info = ref.reset(seed) if episode == 0 else ref.reset()
        assert np.array_equal(obs, want_obs)
        same_info(info, want_info)
        assert np.array_equal(env.action_masks(), want_info["action_mask"])
        for _ in range(steps):
            action = choose(rng, info["action_mask"])
            obs, reward, terminated, truncated, info = env.step(action)
            want = ref.step(action)
            assert np.array_equal(obs, want[0])
            assert (reward, terminated, truncated) == want[1:4]
            same_info(info, want[4])
            if terminated or truncated:
                break
