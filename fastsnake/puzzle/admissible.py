"""`check_admissible`: a heuristic's values against true distances on sampled states.

An optimal search is optimal only with an admissible heuristic (never above the true distance to
the goal). A user's heuristic is not trusted blindly: this samples states and compares. On boards
of at most `BFS_MAX_CELLS` cells every state's distance is known by a breadth-first search from
the goal, and states are drawn uniformly from all of them; on larger boards states are random
walks of 1..`max_walk` moves from the goal, each solved optimally with IDA* and Manhattan distance
(admissible by construction). A violation is a sampled state where h exceeds that distance; none
seen is evidence, not proof.
"""

from __future__ import annotations

from fastsnake.puzzle.sampling import (  # noqa: F401 - the sampling's names, public here as before
    BFS_MAX_CELLS,
    DEFAULT_MAX_WALK,
    DEFAULT_SAMPLES,
    AdmissibilityReport,
    remember,
    sample,
    verdict_key,
    vouch,
)


def check_admissible(name: str, rows: int, cols: int | None = None, samples: int = 200, seed: int = 0,
                     goal=None, max_walk: int = DEFAULT_MAX_WALK) -> AdmissibilityReport:
    """Compare heuristic `name`'s values to true distances on `samples` sampled states.

    Parameters
    ----------
    name : str
        A registered heuristic (built-in, registered function or entry point).
    rows, cols : int
        The board (cols defaults to rows); at most 36 cells.
    samples : int, optional
        States compared (on boards of at most 9 cells: drawn from every state without repeats).
    seed : int, optional
        The sample's seed: the same seed, the same states.
    goal : str or sequence of int, optional
        The goal board; default the identity.
    max_walk : int, optional
        Longest random walk from the goal on boards above 9 cells.

    Returns
    -------
    AdmissibilityReport
        ``admissible`` (no violation seen), ``violations`` (state, h, distance; the worst first),
        ``method`` ("bfs" or "walks"), ``samples``.

    Raises
    ------
    PuzzleInputError
        An unknown heuristic, a bad board or goal; UserHeuristicError when the heuristic raises or
        returns a value outside 0..32767.

    Examples
    --------
    >>> check_admissible("manhattan", 2, 3, samples=50).admissible
    True
    """
    from fastsnake.puzzle.solver import solve

    return sample(name, rows, cols, samples, seed, goal, max_walk, solve=solve)
