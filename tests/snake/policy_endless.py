"""User policies whose game `ENDLESS_GAME` of seed 0 never ends, for the cancellation tests.

Every other game runs straight up into the wall (a few moves). In game `ENDLESS_GAME`,
`endless` rounds the 2x2 block holding its head for ever (with ``start_length=1`` a body of at
most 4 cells there never meets itself, and with a move cap of 2**62 the game never ends), and
`hang`'s ``decide`` never returns at all. An importable module, so that numba caches their
kernels (`user_cache`) and each test process does not compile them again.

Run as a script, it is the ``fastsnake`` command with these policies registered (as
``endless``, ``endless-py`` and ``hang``), their kernels compiled (or loaded) before the command
starts; a test learns where the command is from its announcements (`fastsnake.signals`).
"""

import os
import sys

import numpy as np
from numba import njit

from fastsnake.snake.rng import game_seed_py

ENDLESS_GAME = 64  # the first game after the first chunk of an 8x8 sweep on one thread
ENDLESS_SEED = np.uint64(game_seed_py(0, ENDLESS_GAME))
NEVER = 2**62  # a move cap no game reaches
ARGS = ["--size", "8", "--start-length", "1", "--max-moves", str(NEVER), "--threads", "1"]


def round_the_block(state, ws):
    r, c = state.head // state.cols, state.head % state.cols
    if r % 2 == 0:
        return 1 if c % 2 == 0 else 2
    return 3 if c % 2 == 1 else 0


def endless_py(state, ws):
    if state.seed != ENDLESS_SEED:
        return 0
    return round_the_block(state, ws)


_round = njit(round_the_block)


@njit
def endless_nb(state, ws):
    if state.seed != ENDLESS_SEED:
        return 0
    return _round(state, ws)


@njit
def hang(state, ws):
    if state.seed != ENDLESS_SEED:
        return 0
    k = 0
    while state.occupied[k % state.occupied.shape[0]] < 2:  # a cell is 0 or 1: never
        k += 1
    return 0


def register():
    import fastsnake

    fastsnake.register_policy("endless", endless_nb, replace_existing=True)
    fastsnake.register_policy("endless-py", endless_py, replace_existing=True)
    fastsnake.register_policy("hang", hang, replace_existing=True)


if __name__ == "__main__":
    import policy_endless  # by its name, not as __main__: numba caches kernels of importable policies

    import fastsnake
    from fastsnake.cli import run
    from fastsnake.signals import READY_FD_ENV

    policy_endless.register()
    announcing = os.environ.pop(READY_FD_ENV, None)  # these games are not the test's
    for name in ("endless", "endless-py", "hang"):  # compile (or load) the kernels once, here
        fastsnake.sweep(name, 8, 2, start_length=1, max_moves=NEVER, threads=1)
        fastsnake.play(name, 8, start_length=1, max_moves=NEVER)
    if announcing is not None:
        os.environ[READY_FD_ENV] = announcing
    sys.argv[0] = "fastsnake"
    run()
