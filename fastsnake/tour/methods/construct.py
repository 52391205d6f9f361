"""The knight's closed tour by divide and conquer (`fastsnake.tour.construct`; Parberry's idea).

Each side is cut into 6/8/10 parts (plus one 5/7/9 part for an odd side), every block gets a closed
tour from our own closed search, and neighbouring cycles are merged by swapping two edges near their
border. Linear time. An open request is answered by the closed tour rotated to start at the start square.
"""

from __future__ import annotations

from fastsnake.tour.methods import Outcome, TourMethod, TourTask


def applies(piece, rows: int, cols: int, closed: bool) -> bool:
    """Boards whose sides are at least 5, not both odd."""
    from fastsnake.tour.construct import can_construct

    return can_construct(rows, cols)


def warm() -> float:
    """Load (or compile) the search kernels (blocks are searched) and the construction's: the seconds it
    took (0.0 once loaded)."""
    from fastsnake.tour.tour import warm_up

    return warm_up(True)


def run(task: TourTask) -> Outcome:
    """The closed tour of the board, rotated to start at `task.start`."""
    from fastsnake.tour.construct import closed_knight_tour

    path = closed_knight_tour(task.rows, task.cols, task.start)
    return Outcome(True, True, path, "closed knight's tour built by divide and conquer", "construct")


METHOD = TourMethod(
    "construct",
    summary="the knight's closed tour by divide and conquer (Parberry's idea; blocks joined by a border search)",
    seeded=False,
    pieces="knight",
    tours="both",
    boards="boards whose sides are at least 5, not both odd",
    applies="applies",
    run="run",
    warm="warm",
)
