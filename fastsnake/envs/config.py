"""Arguments of the environments: checked once, with one-line errors naming the bad value."""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass

import numpy as np

from fastsnake.errors import InputError
from fastsnake.snake.board import GameConfig

RENDER_MODES = ("rgb_array", "human")
SEED_LIMIT = 2**64
_SIZE = re.compile(r"^\s*(\d+)\s*(?:[xX]\s*(\d+))?\s*$")


class EnvError(InputError):
    """An argument, action, seed or call order the Snake environments cannot accept."""


def _whole(value, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise EnvError(f"{name}={value!r} is not a whole number")
    return int(value)


def parse_size(size) -> tuple[int, int]:
    """10 -> (10, 10); (10, 12) -> (10, 12); "10x12" or "10" likewise."""
    if isinstance(size, str):
        match = _SIZE.match(size)
        if not match:
            raise EnvError(f"size {size!r} is not RxC or N (e.g. 10x12 or 10)")
        rows = int(match.group(1))
        return rows, int(match.group(2)) if match.group(2) is not None else rows
    if isinstance(size, (tuple, list)):
        if len(size) != 2:
            raise EnvError(f"size {size!r} must be (rows, cols)")
        rows, cols = size
        return _whole(rows, "rows"), _whole(cols, "cols")
    side = _whole(size, "size")
    return side, side


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
    rows, cols = parse_size(size)
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
