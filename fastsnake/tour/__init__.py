"""Leaper tours: any jumping piece on boards up to 4000x4000, open and closed.

Public API: `Piece`, `parse_piece`, `parse_square`, `find_tour`, `count_tours`,
`reach`, `verify_tour`, and the versioned save/load helpers in `fastsnake.tour.io`.
"""

from fastsnake.tour.pieces import Piece, TourInputError, parse_piece, parse_square, square_name
from fastsnake.tour.tour import TourResult, find_tour

__all__ = [
    "Piece",
    "TourInputError",
    "TourResult",
    "find_tour",
    "parse_piece",
    "parse_square",
    "square_name",
]
