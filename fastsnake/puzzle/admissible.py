"""`check_admissible`: a heuristic's values against true distances on sampled states.

How the states are drawn (all of a small board's, with their distances from a breadth-first search;
on larger boards random walks from the goal, each solved optimally) and what a violation is, is
`fastsnake.puzzle.sampling`'s, whose names are public here too.
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
