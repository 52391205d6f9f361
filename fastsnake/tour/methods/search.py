"""Warnsdorff depth-first search with Roth's tie-break and Luby restarts (`fastsnake.tour.search`'s kernel).

Proofs first (`fastsnake.tour.checks`: Schwenk's theorem, colour and degree counts, connectivity), then
restarts: attempt i searches at most base * luby(i) nodes with seed + i as the tie-break seed,
alternating Roth's tie-break (farthest from the centre) with a purely random one. The budgets grow
without bound, so an attempt that exhausts its tree proves that no tour exists.
"""

from __future__ import annotations

from fastsnake.tour.methods import Outcome, TourMethod, TourTask


def warm() -> float:
    """Load (or compile) the search kernels: the seconds it took (0.0 once loaded)."""
    from fastsnake.tour.tour import warm_up

    return warm_up(False)


def run(task: TourTask) -> Outcome:
    """The proofs, then Warnsdorff search with restarts until a tour, a proof of none, or a limit."""
    from fastsnake.tour import checks
    from fastsnake.tour.search import EXHAUSTED, FOUND, SearchState
    from fastsnake.tour.tour import board_facts, restarts

    piece, rows, cols, start, closed = task.piece, task.rows, task.cols, task.start, task.closed
    reason = checks.static_impossibility(piece, rows, cols, start, closed)
    if reason:
        return Outcome(False, False, None, reason, "theorem" if "Schwenk" in reason else "check")
    degrees, connected = board_facts(piece, rows, cols)
    outdeg, indeg = degrees
    reason = checks.graph_impossibility(piece, rows, cols, start, closed, outdeg, indeg, connected)
    if reason:
        return Outcome(False, False, None, reason, "check")
    state = SearchState(rows, cols, piece.jumps, piece.directed, closed, degrees)
    status, total, attempt, limit = restarts(state, start, task.cells, task.seed, task.deadline, task.max_nodes)
    if status == FOUND:
        return Outcome(True, True, state.path.copy(), "Warnsdorff search (Roth tie-break)", "search", total, attempt)
    if status == EXHAUSTED:
        return Outcome(False, False, None, "exhaustive search found no tour", "exhaustive", total, attempt)
    if limit == "time":
        return Outcome(False, None, None, f"time limit of {task.time_limit:g} s reached", "search", total, attempt,
                       limit="time", limit_value=task.time_limit)
    return Outcome(False, None, None, f"node limit of {task.max_nodes:,} nodes reached", "search", total, attempt,
                   limit="nodes", limit_value=task.max_nodes)


METHOD = TourMethod(
    "search",
    summary="Warnsdorff depth-first search, Roth's tie-break then a seeded hash, Luby restarts; proofs first",
    seeded=True,
    pieces="any",
    tours="both",
    boards="any board up to 4000x4000",
    run="run",
    warm="warm",
    searches=True,
)
