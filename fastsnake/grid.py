"""Geometry every problem's grid shares: the symmetries of an R×C board of cells
``row*cols + col``.

A symmetry is ``(transpose, flip_rows, flip_cols)``, applied in that order; a square board has
eight, any other four (transposing it changes its shape). Identity first.
"""

from __future__ import annotations

Symmetry = tuple[bool, bool, bool]


def symmetries(rows: int, cols: int) -> list[Symmetry]:
    """The board's symmetries, identity first."""
    return [(transpose, flip_rows, flip_cols)
            for transpose in ((False, True) if rows == cols else (False,))
            for flip_rows in (False, True)
            for flip_cols in (False, True)]


def image(cell: int, rows: int, cols: int, symmetry: Symmetry) -> int:
    """Where `symmetry` takes `cell`."""
    r, c = divmod(cell, cols)
    transpose, flip_rows, flip_cols = symmetry
    if transpose:
        r, c = c, r
    if flip_rows:
        r = rows - 1 - r
    if flip_cols:
        c = cols - 1 - c
    return r * cols + c
