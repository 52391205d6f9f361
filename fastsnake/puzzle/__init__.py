"""Sliding puzzles on any R×C board with any start and goal.

`solve` finds optimal solutions (R·C ≤ 36) with A*, IDA* or BFS and the misplaced-tiles,
Manhattan, linear-conflict, walking-distance or pattern-database heuristics, or short
ones up to 100×100 with algorithm="reduce"; `solve_many` solves batches in one process;
optimal searches that reach their node, memory or time limit raise
`PuzzleLimitError`; `is_solvable` answers by the parity rule; `random_solvable` draws instances;
`save_solution` / `load_solution` read and write the viewer's solution files.
"""

from fastsnake.puzzle.board import (
    MAX_CELLS_ANY,
    MOVES,
    SEED_NAMES,
    TILE_MOVE_NAMES,
    PuzzleInputError,
    PuzzleLimitError,
    apply_moves,
    format_board,
    goal_default,
    is_solvable,
    parse_tiles,
    random_solvable,
)
from fastsnake.puzzle.heuristics import REGISTRY as HEURISTIC_REGISTRY
from fastsnake.puzzle.heuristics import UserHeuristicError, heuristic_names, register_heuristic
from fastsnake.puzzle.prune import MAX_PRUNE_DEPTH
from fastsnake.puzzle.solver import (
    DEFAULT_MAX_NODES,
    NotProvenOptimal,
    SolveResult,
    check_threads,
    cores_allowed,
    heuristic_context,
    limit_message,
    not_proven_line,
    solve,
    solve_many,
)

__all__ = [
    "DEFAULT_MAX_NODES", "HEURISTIC_REGISTRY", "MAX_CELLS_ANY", "MAX_PRUNE_DEPTH", "MOVES", "SEED_NAMES",
    "NotProvenOptimal", "TILE_MOVE_NAMES", "UserHeuristicError", "check_admissible", "check_threads",
    "cores_allowed", "register_heuristic",
    "PuzzleInputError", "PuzzleLimitError", "SolveResult", "apply_moves", "format_board", "goal_default",
    "heuristic_context", "heuristic_names", "is_solvable", "limit_message", "load_solution",
    "not_proven_line", "parse_tiles",
    "random_solvable", "save_solution", "solve", "solve_many", "solve_processes",
]


# Studies of heuristics (`fastsnake.puzzle.study`), loaded when first used.
_STUDY_NAMES = ("DEFAULT_STOP_AT", "INSTANCE_SETS", "StudyInputError", "StudyLengthError", "check_baseline",
                "check_baseline_instances", "check_heuristics", "load_instances", "row_problems", "rows_table",
                "run_study", "run_to_precision", "stop_caps", "study_meta", "study_tables", "summarize",
                "verify_study")


def __getattr__(name):
    if name in _STUDY_NAMES:
        from fastsnake.puzzle import study

        return getattr(study, name)
    # The solution-file helpers import json lazily only when used.
    if name == "solve_processes":
        from fastsnake.puzzle.batch import solve_processes

        return solve_processes
    if name == "check_admissible":
        from fastsnake.puzzle.admissible import check_admissible

        return check_admissible
    if name in ("load_solution", "save_solution"):
        from fastsnake.puzzle import solution

        return getattr(solution, name)
    raise AttributeError(name)
