"""Vectorised tour validation, used by the loaders and by `find_tour(verify=...)` callers."""

from __future__ import annotations

import numpy as np


def tour_problem(rows: int, cols: int, jumps, path, closed: bool = False) -> str | None:
    """None if `path` visits every square once by legal jumps (and closes, if asked);
    otherwise a short description of the first problem found.

    Parameters
    ----------
    rows, cols : int
        Board size.
    jumps : sequence of (int, int)
        The piece's jumps ``(dr, dc)``, e.g. ``Piece.jump_list``.
    path : array_like
        Cell indices in visiting order.
    closed : bool, optional
        Also require a jump from the last square back to the first.

    Returns
    -------
    str or None
        None for a valid tour, else what is wrong.

    Examples
    --------
    >>> from fastsnake.tour import find_tour, parse_piece
    >>> knight = parse_piece("1,2")
    >>> tour_problem(5, 5, knight.jump_list, find_tour(knight, 5, 5, 0).path) is None
    True
    >>> tour_problem(5, 5, knight.jump_list, list(range(25)))
    'step 0 0 -> 1 is not a jump of the piece'
    """
    n = rows * cols
    path = np.asarray(path)
    if path.ndim != 1 or path.shape[0] != n:
        return f"path has {path.size} squares, the board {n}"
    if n == 0:
        return None
    if not np.issubdtype(path.dtype, np.integer):
        return "path entries are not integers"
    p = path.astype(np.int64)
    if p.min() < 0 or p.max() >= n:
        return "path leaves the board"
    seen = np.zeros(n, dtype=np.bool_)
    seen[p] = True
    if not seen.all():
        return f"path misses {int(n - seen.sum())} squares (so repeats others)"
    if n == 1:
        return "a single square has no closing jump" if closed else None
    seq = np.concatenate([p, p[:1]]) if closed else p
    r = seq // cols
    c = seq % cols
    step = (r[1:] - r[:-1]) * 4 * max(rows, cols) + (c[1:] - c[:-1])
    jumps = np.asarray(jumps, dtype=np.int64).reshape(-1, 2)
    # jumps longer than the board never occur, and would alias in the encoding
    jumps = jumps[(np.abs(jumps[:, 0]) < rows) & (np.abs(jumps[:, 1]) < cols)]
    legal = jumps[:, 0] * 4 * max(rows, cols) + jumps[:, 1]
    bad = ~np.isin(step, legal)
    if bad.any():
        i = int(np.argmax(bad))
        what = "closing jump" if closed and i == n - 1 else f"step {i}"
        return f"{what} {int(seq[i])} -> {int(seq[i + 1])} is not a jump of the piece"
    return None
