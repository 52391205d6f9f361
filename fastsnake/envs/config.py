"""Arguments of the environments: checked once, with one-line errors naming the bad value."""

from __future__ import annotations

import secrets
from dataclasses import dataclass

import numpy as np

from fastsnake.errors import InputError
from fastsnake.sizes import parse_size
from fastsnake.snake.board import MAX_SIDE, MIN_SIDE, GameConfig

RENDER_MODES = ("rgb_array", "human")
SEED_LIMIT = 2**64


class EnvError(InputError):
    """An argument, action, seed or call order the Snake environments cannot accept."""


def _whole(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise EnvError(f"{name}={value!r} is not a whole number")
    return int(value)


@dataclass(frozen=True)
class EnvConfig:
    """What an environment plays: the game's rules (its move cap folds in
    `max_episode_steps`) and how it is drawn."""

    game: GameConfig
    max_moves: int | None
    max_episode_steps: int | None
    render_mode: str | None

    @property
    def rows(self) -> int:
        return self.game.rows

    @property
    def cols(self) -> int:
        return self.game.cols


def env_config(size, start_length=3, tail="follow", max_moves=None, max_episode_steps=None,
               render_mode=None) -> EnvConfig:
    rows, cols = parse_size(size, lo=MIN_SIDE, hi=MAX_SIDE, error=EnvError)
    start_length = _whole(start_length, "start_length")
    if not isinstance(tail, str):
        raise EnvError(f"tail={tail!r} is not one of follow, blocked")
    for name, value in (("max_moves", max_moves), ("max_episode_steps", max_episode_steps)):
        if value is not None and _whole(value, name) < 1:
            raise EnvError(f"{name}={value} must be at least 1 (or None for no limit)")
    if render_mode is not None and render_mode not in RENDER_MODES:
        raise EnvError(f"render_mode={render_mode!r} is not one of None, {', '.join(map(repr, RENDER_MODES))}")
    cap = None
    if max_moves is not None or max_episode_steps is not None:
        cap = min(int(v) for v in (max_moves, max_episode_steps) if v is not None)
    game = GameConfig(rows, cols, start_length, tail, cap)  # BoardError (an InputError) for bad rules
    return EnvConfig(game, None if max_moves is None else int(max_moves),
                     None if max_episode_steps is None else int(max_episode_steps), render_mode)


def check_seed(seed, name: str = "seed", span: int = 1) -> int:
    """A base seed: a whole number with seed + span - 1 < 2**64 (a vector env seeds env i with seed + i)."""
    value = _whole(seed, name)
    if not (0 <= value and value + span - 1 < SEED_LIMIT):
        limit = "2**64-1" if span == 1 else f"2**64-{span}"
        raise EnvError(f"{name}={value} must be between 0 and {limit}")
    return value


def random_seed() -> int:
    """A base seed for a reset without one (as Gymnasium does, unseeded means random)."""
    return secrets.randbits(64)


def check_threads(threads) -> int:
    """Threads that step a vector env: None -> every core numba may use; else 1..that many."""
    import numba

    limit = numba.config.NUMBA_NUM_THREADS
    if threads is None:
        return limit
    value = _whole(threads, "threads")
    if not 1 <= value <= limit:
        raise EnvError(f"threads={value}: this machine allows 1..{limit}")
    return value
