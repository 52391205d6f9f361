"""`check_game_input`: a game's input checked as its set-up checks it, with nothing compiled or played.

The CLI runs it before it may start a background compile (`fastsnake.warm.tier`), so that bad input is
one line and exit 2 and starts nothing; the set-up itself (`sweep.prepare`) runs the same checks again.
"""

from __future__ import annotations

from fastsnake.errors import InputError
from fastsnake.sizes import parse_size
from fastsnake.snake.board import MAX_SIDE, MIN_SIDE, BoardError, GameConfig
from fastsnake.snake.policies import get_policy, resolve_options
from fastsnake.snake.sweep import check_seed


def check_game_input(policies, sizes, seed=0, *, start_length=3, tail="follow", max_moves=None,
                     options=None) -> None:
    """Raise the error a game's set-up would (an `InputError` subclass) for bad input, else nothing.

    Parameters
    ----------
    policies : list of str
        Registered policy names whose `options` are checked (empty: none).
    sizes : list
        Board sizes, each as `fastsnake.board` takes it.
    seed : int
        The base seed (0 .. 2**64-1).
    start_length, tail, max_moves
        The rules, as `fastsnake.sweep` takes them.
    options : dict, optional
        Policy options, checked against each policy's declaration for each board.
    """
    check_seed(seed)
    for size in sizes:
        try:
            rows, cols = parse_size(size, lo=MIN_SIDE, hi=MAX_SIDE)
        except InputError as exc:
            raise BoardError(str(exc)) from None
        config = GameConfig(rows, cols, int(start_length), tail, None if max_moves is None else int(max_moves))
        for name in policies:
            resolve_options(get_policy(name), options or {}, config)
