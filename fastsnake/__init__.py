"""fastsnake: compiled (numba) solvers for Snake AI, sliding puzzles and leaper tours.

Snake, the library::

    import fastsnake
    result = fastsnake.sweep("cycle", 10, 100_000)       # .table (pyarrow), .summary (dict)
    game = fastsnake.play("greedy", 10, seed=7, game=3)  # the very game 3 of that sweep
    fastsnake.compare(["cycle", "phc", "cell"], 10, 1000)
    fastsnake.register_policy("mine", fastsnake.Policy(decide))

Sliding puzzles and leaper tours: ``fastsnake.puzzle`` and ``fastsnake.tour``.
Every name is imported on first use, so ``import fastsnake`` stays cheap.
"""

from fastsnake._numba_cache import configure_numba_cache_on_first_use

__version__ = "0.2.0"  # the one home of the version (pyproject.toml reads it); CHANGELOG.md

# Must happen before any submodule defines a cached kernel: done as the first module that may define
# one is imported, so that `import fastsnake` itself loads no numba.
configure_numba_cache_on_first_use()

_SNAKE = {
    "sweep": "fastsnake.snake.api",
    "resume_sweep": "fastsnake.snake.api",
    "verify_sweep": "fastsnake.snake.api",
    "play": "fastsnake.snake.api",
    "compare": "fastsnake.snake.api",
    "policies": "fastsnake.snake.api",
    "load_game": "fastsnake.snake.api",
    "check_game": "fastsnake.snake.api",
    "replay_game": "fastsnake.snake.api",
    "Game": "fastsnake.snake.api",
    "SweepResult": "fastsnake.snake.api",
    "GameSettings": "fastsnake.snake.api",
    "read_sweep": "fastsnake.snake.api",
    "read_study": "fastsnake.study",
    "register_policy": "fastsnake.snake.policies",
    "unregister_policy": "fastsnake.snake.policies",
    "Policy": "fastsnake.snake.policies.user",
    "PolicyState": "fastsnake.snake.engine",
    "game_seed": "fastsnake.snake.rng:game_seed_py",
    "InputError": "fastsnake.errors",
    "FastsnakeError": "fastsnake.errors",
    "Terminated": "fastsnake.errors",
    "NewerVersionWarning": "fastsnake.errors",
    "PolicyError": "fastsnake.snake.policies",
    "BoardError": "fastsnake.snake.board",
    "SweepError": "fastsnake.snake.sweep",
    "ReplayError": "fastsnake.snake.replay",
    "SizeError": "fastsnake.sizes",
    "report": "fastsnake.viewer.html_report",
}
_PACKAGES = ("puzzle", "tour", "snake", "envs")

__all__ = sorted(_SNAKE) + list(_PACKAGES) + ["__version__"]


def __getattr__(name):
    import importlib

    if name in _SNAKE:
        module, _, attr = _SNAKE[name].partition(":")
        return getattr(importlib.import_module(module), attr or name)
    if name in _PACKAGES:
        return importlib.import_module(f"fastsnake.{name}")
    raise AttributeError(f"module 'fastsnake' has no attribute {name!r}")


def __dir__():
    return __all__
