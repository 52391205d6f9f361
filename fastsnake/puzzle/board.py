"""Boards of the R×C sliding puzzle: parsing, validation, moves and the parity rule.

A board is a flat ``int8`` array of ``R*C`` tiles in row-major order, 0 = blank
(``int16`` above 127 cells, which only `reduce` accepts).
Moves name the direction the BLANK moves (``U D L R``); a tile therefore slides the
opposite way (blank ``U`` = the tile above slides down).
"""

from __future__ import annotations

import math
import re

import numpy as np

from fastsnake.errors import InputError
from fastsnake.sizes import SearchLimitError, parse_size

MAX_CELLS = 36  # optimal searches (A*, IDA*, BFS)
MAX_CELLS_ANY = 10_000  # `reduce` (and `auto` above 16 cells): up to 100x100
MAX_SIDE_ANY = 100
# Blank moves, as letters in every file and output and as codes 0 U, 1 D, 2 L, 3 R inside the kernels.
# Snake numbers its moves clockwise (0 up, 1 right, 2 down, 3 left); the puzzle keeps its own order
# on purpose: the codes come in inverse pairs (a move's inverse is `m ^ 1`, the test every search
# uses to skip undoing its last move), and the order is the kernels' tie-break among equal children,
# so renumbering would change which of several optimal solutions a search returns. No file stores a
# code: solution files and --json hold the letters.
MOVES = "UDLR"
# Blank offsets (drow, dcol) per move; a move's inverse is `m ^ 1`.
_DELTAS = ((-1, 0), (1, 0), (0, -1), (0, 1))
# The direction the tile slides, the opposite of the blank's move (the notation of the
# puzzle document the project grew from, which names the tile's move).
TILE_MOVE_NAMES = {"U": "down", "D": "up", "L": "right", "R": "left"}
SEED_NAMES = TILE_MOVE_NAMES  # the old name, kept for code written against it


class PuzzleInputError(InputError):
    """A bad board, goal, size or move string; the message quotes it."""


class PuzzleLimitError(PuzzleInputError, SearchLimitError):
    """An optimal search stopped at its node, memory or time limit before finding a solution.

    `limit` is "nodes", "memory" or "time", `value` the limit, `result` the `SolveResult`
    so far (node counts, seconds; no moves)."""


def check_size(rows: int, cols: int, max_cells: int = MAX_CELLS) -> None:
    """Optimal searches take 2 <= rows*cols <= 36; `reduce` (max_cells=MAX_CELLS_ANY) up to 100x100.

    Errors use the one size grammar of `fastsnake.sizes`: "size '0x5': rows=0 is outside 1..100"."""
    if not (isinstance(rows, (int, np.integer)) and isinstance(cols, (int, np.integer))) or isinstance(
            rows, bool) or isinstance(cols, bool):
        raise PuzzleInputError(f"board size {rows!r}x{cols!r} must be integers")
    rows, cols = int(rows), int(cols)
    if max_cells > MAX_CELLS:
        parse_size((rows, cols), lo=1, hi=MAX_SIDE_ANY, min_cells=2, max_cells=MAX_CELLS_ANY,
                   error=PuzzleInputError)
        return
    hint = (" for optimal search; the algorithm reduce (or auto) solves boards up to "
            f"{MAX_SIDE_ANY}x{MAX_SIDE_ANY}" if rows * cols > MAX_CELLS and rows <= MAX_SIDE_ANY
            and cols <= MAX_SIDE_ANY else "")
    parse_size((rows, cols), lo=1, hi=MAX_CELLS, min_cells=2, max_cells=MAX_CELLS, hint=hint,
               error=PuzzleInputError)


def infer_size(text) -> tuple[int, int]:
    """(rows, cols) of a board given without its size: the short form "012 345 678" (one
    digit per tile, rows separated by spaces) gives its shape, any other list of R*R tiles
    a square board. Raises PuzzleInputError when neither applies."""
    if isinstance(text, str):
        tokens = [t for t in re.split(r"[\s,;]+", text.strip()) if t]
        if ("," not in text and len(tokens) > 1 and len({len(t) for t in tokens}) == 1
                and all(t.isdigit() for t in tokens) and len(tokens[0]) > 1):
            return len(tokens), len(tokens[0])
        count = len(tokens)
    else:
        try:
            arr = np.asarray(text)
        except (TypeError, ValueError):
            arr = None
        if arr is not None and arr.ndim == 2:
            return int(arr.shape[0]), int(arr.shape[1])
        count = 0 if arr is None else int(arr.size)
    if count > 1 and math.isqrt(count) ** 2 == count:
        return math.isqrt(count), math.isqrt(count)
    raise PuzzleInputError(f"board {text!r}: give its size (rows and cols, or a size RxC): "
                           f"{count} tiles are not a square board nor the short form '012 345 678'")


def tile_dtype(n: int):
    """int8 tiles up to 127 cells (every search kernel), int16 above (reduce only)."""
    return np.int8 if n <= 127 else np.int16


def parse_tiles(text, rows: int, cols: int, what: str = "board",
                max_cells: int = MAX_CELLS) -> np.ndarray:
    """Parse "1 2 3 …", "1,2,3,…" or the short form "012 345 678" into a flat board.

    The short form (rows of single-digit tiles) is read when the board has at most
    10 cells (so every tile is one digit), there are no commas and some
    whitespace-separated token has more than one digit.

    Parameters
    ----------
    text : str or sequence of int
        The tiles in row-major order, ``0`` for the blank.
    rows, cols : int
        Board size.
    what : str, optional
        How the board is named in error messages ("board", "start", "goal").
    max_cells : int, optional
        Largest board accepted.

    Returns
    -------
    numpy.ndarray
        The flat board, one tile per cell (a permutation of ``0..rows*cols-1``).

    Raises
    ------
    PuzzleInputError
        Bad size, a token that is not a tile, a missing or repeated tile.

    Examples
    --------
    >>> parse_tiles("012 345 678", 3, 3).tolist()
    [0, 1, 2, 3, 4, 5, 6, 7, 8]
    """
    check_size(rows, cols, max_cells)
    n = rows * cols
    if isinstance(text, str):
        tokens = [t for t in re.split(r"[\s,;]+", text.strip()) if t]
        if (n <= 10 and "," not in text and all(t.isdigit() for t in tokens)
                and any(len(t) > 1 for t in tokens)):
            tokens = [ch for t in tokens for ch in t]
        try:
            values = [int(t) for t in tokens]
        except ValueError:
            raise PuzzleInputError(f"{what} {text!r}: tiles must be integers") from None
    else:
        try:
            values = [int(v) for v in np.asarray(text).ravel()]
        except (TypeError, ValueError):
            raise PuzzleInputError(f"{what} {text!r}: tiles must be integers") from None
    if len(values) != n:
        raise PuzzleInputError(
            f"{what} {text!r} has {len(values)} tiles, a {rows}x{cols} board needs {n}")
    bad = [v for v in values if v < 0 or v >= n]
    if bad:
        raise PuzzleInputError(f"{what} {text!r}: tile {bad[0]} is outside 0..{n - 1}")
    seen = set()
    for v in values:
        if v in seen:
            raise PuzzleInputError(f"{what} {text!r}: tile {v} appears twice")
        seen.add(v)
    return np.array(values, dtype=tile_dtype(n))


def goal_default(rows: int, cols: int) -> np.ndarray:
    """The default goal: the identity board, blank top-left.

    Parameters
    ----------
    rows, cols : int
        Board size.

    Returns
    -------
    numpy.ndarray
        ``[0, 1, ..., rows*cols - 1]``.

    Examples
    --------
    >>> goal_default(2, 3).tolist()
    [0, 1, 2, 3, 4, 5]
    """
    return np.arange(rows * cols, dtype=tile_dtype(rows * cols))


def neighbours(rows: int, cols: int) -> np.ndarray:
    """nbr[cell*4 + move] = the cell the blank enters, or -1 off the board."""
    nbr = np.full(rows * cols * 4, -1, dtype=np.int16)
    for cell in range(rows * cols):
        r, c = divmod(cell, cols)
        for m, (dr, dc) in enumerate(_DELTAS):
            rr, cc = r + dr, c + dc
            if 0 <= rr < rows and 0 <= cc < cols:
                nbr[cell * 4 + m] = rr * cols + cc
    return nbr


def permutation_parity(start: np.ndarray, goal: np.ndarray) -> int:
    """Parity of the cell permutation taking `start` to `goal` (blank included)."""
    n = len(start)
    where = np.empty(n, dtype=np.int64)
    where[goal] = np.arange(n)
    target = where[start]  # cell s holds the tile whose goal cell is target[s]
    seen = np.zeros(n, dtype=bool)
    cycles = 0
    for s in range(n):
        if not seen[s]:
            cycles += 1
            while not seen[s]:
                seen[s] = True
                s = target[s]
    return (n - cycles) & 1


def is_solvable(start, goal, rows: int, cols: int) -> bool:
    """Whether `goal` is reachable from `start` (both validated flat boards).

    On a 1-wide board tiles can never pass each other, so the non-blank tiles must
    appear in the same order. Otherwise (R, C >= 2) every move swaps the blank with
    a tile (a transposition) and moves the blank one step on the checkerboard, so
    permutation parity must equal the parity of the blank's Manhattan displacement;
    for R, C >= 2 that condition is also sufficient (Wilson 1974; the 2x2 board,
    a 4-cycle, reaches 4 * 3 = 12 = 4!/2 states, so the rule holds there too).

    Parameters
    ----------
    start, goal : numpy.ndarray
        Flat boards, as returned by `parse_tiles`.
    rows, cols : int
        Board size.

    Returns
    -------
    bool
        True when some sequence of moves turns `start` into `goal`.

    Examples
    --------
    >>> is_solvable(parse_tiles("102 345 678", 3, 3), goal_default(3, 3), 3, 3)
    True
    >>> is_solvable(parse_tiles("021 345 678", 3, 3), goal_default(3, 3), 3, 3)
    False
    """
    start = np.asarray(start)
    goal = np.asarray(goal)
    if rows == 1 or cols == 1:
        return [int(t) for t in start if t != 0] == [int(t) for t in goal if t != 0]
    bs = int(np.flatnonzero(start == 0)[0])
    bg = int(np.flatnonzero(goal == 0)[0])
    blank_steps = abs(bs // cols - bg // cols) + abs(bs % cols - bg % cols)
    return permutation_parity(start, goal) == (blank_steps & 1)


def parse_moves(text: str) -> str:
    moves = re.sub(r"[\s,]+", "", str(text)).upper()
    bad = [ch for ch in moves if ch not in MOVES]
    if bad:
        raise PuzzleInputError(f"moves {text!r}: {bad[0]!r} is not one of U D L R")
    return moves


def apply_moves(board, moves: str, rows: int, cols: int) -> np.ndarray:
    """Play blank moves on a copy of `board`.

    Parameters
    ----------
    board : array_like
        Flat board.
    moves : str
        Moves of the blank, letters ``U D L R`` (spaces and commas ignored).
    rows, cols : int
        Board size.

    Returns
    -------
    numpy.ndarray
        The board after the moves (`board` itself is unchanged).

    Raises
    ------
    PuzzleInputError
        A letter that is not a move, or a move that leaves the board.

    Examples
    --------
    >>> apply_moves(goal_default(2, 3), "RD", 2, 3).tolist()
    [1, 4, 2, 3, 0, 5]
    """
    out = np.array(board, dtype=tile_dtype(rows * cols), copy=True)
    blank = int(np.flatnonzero(out == 0)[0])
    for i, ch in enumerate(parse_moves(moves)):
        m = MOVES.index(ch)
        r, c = divmod(blank, cols)
        rr, cc = r + _DELTAS[m][0], c + _DELTAS[m][1]
        if not (0 <= rr < rows and 0 <= cc < cols):
            shown = moves if len(moves) <= 60 else moves[:57] + "..."
            raise PuzzleInputError(f"moves {shown!r}: move {i + 1} ({ch}) leaves the board")
        nxt = rr * cols + cc
        out[blank], out[nxt] = out[nxt], 0
        blank = nxt
    return out


def format_board(board, rows: int, cols: int) -> str:
    """The board as text, one line per row, the blank shown as dots.

    Parameters
    ----------
    board : array_like
        Flat board.
    rows, cols : int
        Board size.

    Returns
    -------
    str
        Rows separated by newlines, tiles right-aligned.

    Examples
    --------
    >>> print(format_board(goal_default(2, 3), 2, 3))
    . 1 2
    3 4 5
    """
    width = len(str(rows * cols - 1))
    lines = []
    for r in range(rows):
        cells = board[r * cols:(r + 1) * cols]
        lines.append(" ".join(("." * width if t == 0 else str(int(t)).rjust(width)) for t in cells))
    return "\n".join(lines)


def one_move(goal, rows: int, cols: int) -> np.ndarray:
    """The goal with its blank moved once: a solve of it loads every kernel a search uses (a solve
    of the goal itself stops before its path is read), so a worker warms up with it."""
    board = np.array(goal)
    blank = int(np.flatnonzero(board == 0)[0])
    other = blank + 1 if blank % cols + 1 < cols else blank - 1
    board[blank], board[other] = board[other], board[blank]
    return board


def random_solvable(rows: int, cols: int, goal, rng: np.random.Generator) -> np.ndarray:
    """A board drawn uniformly from the states that can reach `goal`.

    On R, C >= 2 boards, swapping two fixed non-blank tiles is a bijection between
    the solvable and unsolvable halves, so fixing an unsolvable draw that way keeps
    the draw uniform. On 1-wide boards the solvable states are the goal's tile order
    with the blank in any of the R*C cells.

    Parameters
    ----------
    rows, cols : int
        Board size (up to 100x100).
    goal : array_like
        Flat goal board.
    rng : numpy.random.Generator
        Source of randomness.

    Returns
    -------
    numpy.ndarray
        A flat board from which `goal` is reachable.

    Raises
    ------
    PuzzleInputError
        A board size out of range.

    Examples
    --------
    >>> import numpy as np
    >>> board = random_solvable(3, 3, goal_default(3, 3), np.random.default_rng(1))
    >>> bool(is_solvable(board, goal_default(3, 3), 3, 3))
    True
    """
    check_size(rows, cols, MAX_CELLS_ANY)
    n = rows * cols
    goal = np.asarray(goal, dtype=tile_dtype(n))
    if rows == 1 or cols == 1:
        tiles = [int(t) for t in goal if t != 0]
        pos = int(rng.integers(n))
        return np.array(tiles[:pos] + [0] + tiles[pos:], dtype=tile_dtype(n))
    board = rng.permutation(n).astype(tile_dtype(n))
    if not is_solvable(board, goal, rows, cols):
        i, j = np.flatnonzero(board == 1)[0], np.flatnonzero(board == 2)[0]
        board[i], board[j] = board[j], board[i]
    return board
