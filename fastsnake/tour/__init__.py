"""Leaper tours: any jumping piece on boards up to 4000x4000, open and closed.

Public API: `Piece`, `parse_piece`, `parse_square`, `find_tour`, `count_tours`,
`reach`, `verify_tour`, and the versioned save/load helpers in `fastsnake.tour.io`.
Every function takes the CLI's inputs: a piece as "1,2" or (1, 2), a size as "RxC",
a square as "a1", "R,C" or a cell index. A search stopped at its limit answers
exists=None; `TourResult.limit_error()` is the `TourLimitError` the CLI raises then.
"""

from fastsnake.tour.pieces import Piece, TourInputError, parse_piece, parse_square, square_name
from fastsnake.tour.tour import DEFAULT_TIME_LIMIT, TourLimitError, TourResult, find_tour

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "Piece",
    "TourInputError",
    "TourLimitError",
    "TourResult",
    "find_tour",
    "parse_piece",
    "parse_square",
    "square_name",
]
