"""The solution file the viewer plays back: JSON, format "fastsnake-puzzle/1".

    {"format": "fastsnake-puzzle/1", "rows": 3, "cols": 3,
     "start": [0, 1, 2, ...], "goal": [8, 0, 6, ...], "moves": "RDLU...",
     "length": 31, "optimal": true, "algorithm": "astar", "heuristic": "manhattan"}

`start`/`goal` are row-major tiles (0 = blank); `moves` are blank moves U D L R.
`load_solution` checks every field and replays the moves, so a file it accepts
always leads from start to goal.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass

import numpy as np

from fastsnake.files import written_atomically
from fastsnake.puzzle import board as B

FORMAT = "fastsnake-puzzle/1"


@dataclass(frozen=True)
class Solution:
    rows: int
    cols: int
    start: np.ndarray
    goal: np.ndarray
    moves: str
    optimal: bool | None = None
    algorithm: str | None = None
    heuristic: str | None = None

    def states(self):
        """Every board from start to goal (len(moves) + 1 of them)."""
        out = [self.start.copy()]
        for ch in self.moves:
            out.append(B.apply_moves(out[-1], ch, self.rows, self.cols))
        return out


def save_solution(path, result) -> None:
    """Write a solved `SolveResult` (or a `Solution`) to `path` atomically.

    Parameters
    ----------
    path : str or os.PathLike
        The JSON file to write (format "fastsnake-puzzle/1", read by the viewer).
    result : SolveResult or Solution
        A result with moves.

    Raises
    ------
    PuzzleInputError
        The result has no moves, or the file cannot be written.

    Examples
    --------
    >>> import os, tempfile
    >>> from fastsnake.puzzle import solve
    >>> path = os.path.join(tempfile.mkdtemp(), "s.json")
    >>> save_solution(path, solve("1 0 2 3", rows=2, cols=2))
    >>> load_solution(path).moves
    'L'
    """
    moves = result.moves
    if moves is None:
        raise B.PuzzleInputError(f"cannot save {path!r}: the search found no solution")
    doc = {
        "format": FORMAT,
        "rows": int(result.rows),
        "cols": int(result.cols),
        "start": [int(t) for t in result.start],
        "goal": [int(t) for t in result.goal],
        "moves": moves,
        "length": len(moves),
        "optimal": getattr(result, "optimal", None),
        "algorithm": getattr(result, "algorithm", None),
        "heuristic": getattr(result, "heuristic", None),
    }
    path = os.fspath(path)
    try:
        with written_atomically(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
            json.dump(doc, fh)
            fh.write("\n")
    except OSError as exc:
        raise B.PuzzleInputError(f"cannot write solution file {path!r}: {exc.strerror}") from None


def load_solution(path) -> Solution:
    """Read and validate a solution file.

    The format tag, sizes, tiles, move letters and length are checked, and the moves
    are replayed: they must stay on the board and end at the goal.

    Parameters
    ----------
    path : str or os.PathLike
        A file written by `save_solution` (or ``fastsnake puzzle solve --save``).

    Returns
    -------
    Solution
        ``rows``, ``cols``, ``start``, ``goal``, ``moves`` and the search facts;
        ``states()`` lists every board.

    Raises
    ------
    PuzzleInputError
        Naming the problem: unreadable, not JSON, wrong format, bad tiles or moves.

    Examples
    --------
    See `save_solution`.
    """
    path = os.fspath(path)
    from fastsnake.reading import read_json

    try:  # bounded: a regular file of at most TEXT_MAX_BYTES, JSON not nested past the parser
        doc = read_json(path, "solution file", error=B.PuzzleInputError)
    except OSError as exc:
        raise B.PuzzleInputError(f"cannot read solution file {path!r}: {exc.strerror}") from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        found = doc.get("format") if isinstance(doc, dict) else type(doc).__name__
        raise B.PuzzleInputError(f"solution file {path!r}: format {found!r} is not {FORMAT!r}")
    for key in ("rows", "cols", "start", "goal", "moves"):
        if key not in doc:
            raise B.PuzzleInputError(f"solution file {path!r}: missing {key!r}")
    rows, cols = doc["rows"], doc["cols"]
    if not (isinstance(rows, int) and isinstance(cols, int)):
        raise B.PuzzleInputError(f"solution file {path!r}: rows/cols {rows!r}/{cols!r} are not integers")
    B.check_size(rows, cols, B.MAX_CELLS_ANY)
    if not isinstance(doc["start"], list) or not isinstance(doc["goal"], list):
        raise B.PuzzleInputError(f"solution file {path!r}: start and goal must be lists of tiles")
    start = B.parse_tiles(doc["start"], rows, cols, "start", B.MAX_CELLS_ANY)
    goal = B.parse_tiles(doc["goal"], rows, cols, "goal", B.MAX_CELLS_ANY)
    if not isinstance(doc["moves"], str):
        raise B.PuzzleInputError(f"solution file {path!r}: moves {doc['moves']!r} is not a string")
    moves = B.parse_moves(doc["moves"])
    if "length" in doc and doc["length"] != len(moves):
        raise B.PuzzleInputError(
            f"solution file {path!r}: length {doc['length']!r} but {len(moves)} moves")
    end = B.apply_moves(start, moves, rows, cols)
    if not np.array_equal(end, goal):
        raise B.PuzzleInputError(f"solution file {path!r}: the moves do not end at the goal")
    return Solution(rows, cols, start, goal, moves, doc.get("optimal"), doc.get("algorithm"),
                    doc.get("heuristic"))
