"""Single games: `play` one, `Game` (what a replay file holds), load, check and re-create one."""

from __future__ import annotations

import numpy as np

from fastsnake.snake.api.inputs import check_path, game_settings, policy_name
from fastsnake.snake.policies import named_by_files
from fastsnake.snake.replay import (
    Replay,
    ReplayError,
    compile_and_play,
    game_mismatch,
    load_replay,
    replay_from_sweep,
    save_replay,
)
from fastsnake.snake.sweep import SweepError, check_seed


class Game:
    """One game, recorded: what `play` returns and a replay file holds.

    Attributes: ``policy, rows, cols, seed, game, outcome`` ("won", "died", "stuck"),
    ``moves`` (uint8 array, 0 up 1 right 2 down 3 left), ``apples`` (apples eaten),
    ``length`` (final length), ``body`` (start body, tail first), ``apple_cells`` (the
    apple at the start and after each one eaten), ``cycle`` (the policy's cycle as
    ``order[cell]``, or None), ``seconds`` (time to play it, the kernel's compile apart),
    ``compile_seconds`` (compiling or loading the kernel before it: 0.0 when it was ready; None
    for a game read from a file).
    """

    def __init__(self, replay: Replay, seconds: float = 0.0, compile_seconds: float | None = None):
        self.replay = replay
        self.seconds = seconds
        self.compile_seconds = compile_seconds

    policy = property(lambda self: self.replay.policy)
    rows = property(lambda self: self.replay.rows)
    cols = property(lambda self: self.replay.cols)
    seed = property(lambda self: self.replay.seed)
    game = property(lambda self: self.replay.game)
    outcome = property(lambda self: self.replay.outcome)
    moves = property(lambda self: self.replay.moves)
    body = property(lambda self: self.replay.body)
    apple_cells = property(lambda self: self.replay.apples)
    cycle = property(lambda self: self.replay.cycle)
    options = property(lambda self: self.replay.options)

    @property
    def apples(self) -> int:
        return self.summary["apples"]

    @property
    def length(self) -> int:
        return self.summary["length"]

    @property
    def summary(self) -> dict:
        """``policy, rows, cols, seed, game, outcome, moves (count), apples, length``: a dict, as
        `SweepResult.summary` is."""
        return dict(self.replay.summary())

    def save(self, path) -> None:
        """Write the replay file (``fastsnake-replay/1``) that ``fastsnake view`` and ``replay --check`` read."""
        save_replay(self.replay, path)

    def __repr__(self):
        s = self.summary
        return (f"Game({s['policy']!r} {s['rows']}x{s['cols']} seed {s['seed']} game {s['game']}: {s['outcome']} "
                f"after {s['moves']:,} moves, {s['apples']} apples)")


def play(policy, size, seed=None, game=0, **options) -> Game:
    """Play game `game` of base seed `seed`: the very game a sweep with that seed played.

    Arguments are those of `sweep` (`size` may be a `GameSettings`; the setting keywords
    ``start_length``, ``tail``, ``max_moves`` too). Returns a `Game` (moves, outcome, apples, length,
    cycle, ``save(path)``).

    Examples
    --------
    >>> import fastsnake
    >>> fastsnake.play("cycle", 6, seed=7, game=3).outcome
    'won'
    """
    name = policy_name(policy)
    settings = game_settings(size, seed, options)
    seed = check_seed(settings.seed)
    if isinstance(game, bool) or not isinstance(game, (int, np.integer)) or not 0 <= game < 2**63:
        raise SweepError(f"game={game!r} must be a whole number >= 0 and < 2**63")
    config = settings.config()
    replay, seconds, compile_seconds = compile_and_play(name, config, seed, int(game), options)
    return Game(replay, seconds, compile_seconds)


def load_game(path, *, verify: bool = True, models=()) -> Game:
    """Read a replay file; with `verify` (default) its moves are re-played under the rules.

    Parameters
    ----------
    path : str or path
        A ``fastsnake-replay/1`` file (``Game.save``, ``fastsnake play --replay``).
    verify : bool
        Re-play the moves under the rules and refuse a file they contradict.
    models : sequence of paths
        Model files for a ``model:PATH`` policy the file names (matched by its recorded SHA-256):
        a model is never loaded from the path a file names.

    Returns
    -------
    Game

    Raises
    ------
    ReplayError
        (an InputError) for a missing, foreign, truncated or inconsistent file.

    Examples
    --------
    >>> import fastsnake, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "g.npz")
    >>> fastsnake.play("cycle", 6, seed=1).save(path)
    >>> fastsnake.load_game(path).outcome
    'won'
    """
    with named_by_files(models):
        return Game(load_replay(path, verify=verify))


def check_game(path, *, models=()) -> Game:
    """Read a replay file and check it is the game it names: under the rules (as `load_game`), and
    re-played by its policy from its seed on its board, every field equal (`replay --check`).

    Parameters
    ----------
    path : str or path
        A ``fastsnake-replay/1`` file.
    models : sequence of paths
        Model files for a ``model:PATH`` policy the file names (matched by its recorded SHA-256).

    Returns
    -------
    Game

    Raises
    ------
    ReplayError
        Naming the first field that differs from the game re-played (``rows`` altered shows as a
        start body or apples the seed does not give, a moved apple as that apple, ...).
    PolicyError
        When the file's policy cannot be played here (not installed, or a model not named).

    Examples
    --------
    >>> import fastsnake, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "g.npz")
    >>> fastsnake.play("greedy", 6, seed=1).save(path)
    >>> fastsnake.check_game(path).outcome
    'died'
    """
    with named_by_files(models):
        replay = load_replay(path, verify=True)
        problem = game_mismatch(replay)
    if problem:
        raise ReplayError(f"replay {str(path)!r} is not the game of {replay.policy!r}, seed {replay.seed}, game "
                          f"{replay.game} on {replay.rows}x{replay.cols}: {problem}")
    return Game(replay)


def replay_game(sweep_file, pick="died", *, policy=None, size=None, models=()) -> Game:
    """Re-create a game of a sweep file, folder or compare file from its seed (sweeps store no moves).

    Parameters
    ----------
    sweep_file : str or path
        A sweep's ``*.parquet`` file or sweep folder, or a compare file (``compare(..., out=)``).
    pick : str or int
        ``"died"`` (the first game that died), ``"longest"``, ``"shortest"`` or a game index.
    models : sequence of paths
        Model files to play a ``model:PATH`` policy the sweep names with (matched by the SHA-256 it
        recorded): a model is never loaded from the path a sweep file names.
    policy : str, optional
        Of a compare file, the policy whose game to re-create (the name asked, or the policy that
        played); needed when the file holds several.
    size : int, (int, int) or str, optional
        Of a compare file of several boards, the board ("10x10").

    Returns
    -------
    Game
        The game as the sweep played it (same seed, policy, rules and options).

    Raises
    ------
    ReplayError
        When the file is not a sweep, or holds no game matching `pick`.

    Examples
    --------
    >>> import fastsnake, tempfile, os
    >>> path = os.path.join(tempfile.mkdtemp(), "s.parquet")
    >>> _ = fastsnake.sweep("greedy", 6, 50, out=path)
    >>> fastsnake.replay_game(path, pick=7).game
    7
    """
    check_path(sweep_file, "sweep_file")
    with named_by_files(models):
        replay, seconds = replay_from_sweep(sweep_file, str(pick), None if policy is None else policy_name(policy),
                                            size)
    return Game(replay, seconds)

