"""The Snake library: sweep, play, compare, and users' own policies — an index of the public names.

These functions are the public face (re-exported as ``fastsnake.sweep`` etc.); the CLI is a thin
layer over them, so a summary printed by ``fastsnake sweep --json`` is the `SweepResult.summary` of
the same call. Bad input raises a `ValueError` subclass (`fastsnake.InputError`) naming the value
and the rule. Each concern has a module of its own:

- `fastsnake.snake.api.inputs`: `GameSettings` (the settings `sweep`, `compare_runs`, `compare` and
  `play` share), `board`, `policy_name`, `policies`;
- `fastsnake.snake.api.sweeps`: `sweep`, `verify_sweep`, `read_sweep`; `.results`: `SweepResult`;
  `.folders`: `resume_sweep` and the folder runner;
- `fastsnake.snake.api.compare`: `compare_runs`, `compare`, `compare_table`, `write_compare`, `scaling`;
- `fastsnake.snake.api.games`: `play`, `Game`, `load_game`, `check_game`, `replay_game`;
- `fastsnake.snake.api.report`: `plot_results`, `plot_scaling`, `report_sweeps`.
"""

from __future__ import annotations

import warnings

from fastsnake.snake.api.compare import (
    board_sizes,
    compare,
    compare_runs,
    compare_table,
    scaling,
    write_compare,
)
from fastsnake.snake.api.folders import resume_sweep
from fastsnake.snake.api.games import Game, check_game, load_game, play, replay_game
from fastsnake.snake.api.inputs import (
    GameSettings,
    board,
    policies,
    policy_name,
    timing_free,
)
from fastsnake.snake.api.report import plot_results, plot_scaling, report_sweeps
from fastsnake.snake.api.results import SweepResult
from fastsnake.snake.api.sweeps import read_sweep, sweep, sweep_to_precision, verify_sweep
from fastsnake.snake.policies import register_policy
from fastsnake.snake.policies.user import Policy

__all__ = [
    "Game", "GameSettings", "Policy", "SweepResult", "board", "board_sizes", "check_game", "compare", "compare_runs",
    "compare_table", "load_game", "play", "plot_results", "plot_scaling", "policies", "policy_name", "read_sweep",
    "register_policy", "replay_game", "report_sweeps", "resume_sweep", "scaling", "sweep", "sweep_to_precision",
    "timing_free", "verify_sweep", "write_compare",
]


def __getattr__(name):
    # The text tables and sentences moved to `fastsnake.snake.present` (one presentation module
    # for the CLI and the report); their old home still answers, with a warning, for a release.
    if name in _MOVED_TO_PRESENT:
        from fastsnake.snake import present

        warnings.warn(f"fastsnake.snake.api.{name} moved to fastsnake.snake.present.{_MOVED_TO_PRESENT[name]}",
                      DeprecationWarning, stacklevel=2)
        return getattr(present, _MOVED_TO_PRESENT[name])
    raise AttributeError(f"module 'fastsnake.snake.api' has no attribute {name!r}")


_MOVED_TO_PRESENT = {"compare_rows": "compare_rows", "compare_lines": "compare_lines", "summary_rows": "summary_rows"}
