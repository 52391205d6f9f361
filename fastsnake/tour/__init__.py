"""Leaper tours: any jumping piece on boards up to 4000x4000, open and closed.

Public API: `Piece`, `parse_piece`, `parse_square`, `find_tour`, `count_tours`,
`reach`, `method_names` (``auto`` and the registered tour methods, `fastsnake.tour.methods`), and
the versioned files: `save_tour`/`load_tour`, `save_reach`/`load_reach`.
Every function takes the CLI's inputs: a piece as "1,2" or (1, 2), a size as "RxC",
a square as "a1", "R,C" or a cell index. A search stopped at its limit answers
exists=None; `TourResult.limit_error()` is the `TourLimitError` the CLI raises then.
"""

from fastsnake.tour.pieces import Piece, TourInputError, parse_piece, parse_square, square_name
from fastsnake.tour.reach import reach  # eager: the submodule of the same name would shadow a lazy one
from fastsnake.tour.tour import DEFAULT_TIME_LIMIT, TourLimitError, TourResult, find_tour, method_names

__all__ = [
    "DEFAULT_TIME_LIMIT",
    "Piece",
    "TourInputError",
    "TourLimitError",
    "TourResult",
    "check_save_path",
    "count_tours",
    "find_tour",
    "load_reach",
    "load_tour",
    "method_names",
    "methods",
    "parse_piece",
    "parse_square",
    "reach",
    "save_reach",
    "save_tour",
    "square_name",
]

# name -> module of the lazily loaded part of the face
_LAZY = {"count_tours": "count", "check_save_path": "io", "save_tour": "io", "save_reach": "io",
         "load_tour": "io", "load_reach": "io"}


def __getattr__(name):
    if name == "study":  # studies of methods (`fastsnake tour compare`), loaded when first used
        import importlib

        return importlib.import_module("fastsnake.tour.study")
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"fastsnake.tour.{_LAZY[name]}"), name)
    raise AttributeError(f"module 'fastsnake.tour' has no attribute {name!r}")
