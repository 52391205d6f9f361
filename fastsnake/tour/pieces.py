"""Leaper pieces: a set of jumps (dr, dc), parsed from CLI-style text.

A piece is *directed* only when its jump set is not closed under negation (a
one-way piece); every kernel then needs the reversed jumps as well. Symmetric
pieces get the cheaper undirected code path.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cached_property

import numpy as np

from fastsnake.errors import InputError


class TourInputError(InputError):
    """Bad piece, board, square or option for a tour / reach query."""


# Classic names: labels of output (a compound piece is labelled by its parts), and accepted
# as input wherever a leaper "a,b" is.
_NAMES = {
    (0, 1): "wazir",
    (1, 1): "ferz",
    (0, 2): "dabbaba",
    (1, 2): "knight",
    (2, 2): "alfil",
    (0, 3): "threeleaper",
    (1, 3): "camel",
    (2, 3): "zebra",
    (3, 3): "tripper",
    (1, 4): "giraffe",
}

_PAIR = re.compile(r"^\s*(-?\d+)\s*,\s*(-?\d+)\s*$")
# The longest jump a piece may have, each way: the largest board's side (a longer jump never lands,
# and a number past what a kernel's int64 holds must be refused in words, not as an OverflowError).
MAX_JUMP = 4000
_BY_NAME = {name: pair for pair, name in _NAMES.items()}


def symmetric_closure(jumps) -> list[tuple[int, int]]:
    """All rotations and reflections of the jumps (the seed's "symmetry mode")."""
    out = set()
    for dr, dc in jumps:
        for a, b in ((dr, dc), (dc, dr)):
            for sa in (1, -1):
                for sb in (1, -1):
                    out.add((sa * a, sb * b))
    return sorted(out)


@dataclass(frozen=True)
class Piece:
    """An immutable jump set. `jumps` is an int64 (k, 2) array of (dr, dc)."""

    jump_list: tuple[tuple[int, int], ...]
    name: str

    def __hash__(self) -> int:  # pieces key the per-board caches; hash the tuple once
        try:
            return self.__dict__["_hash"]
        except KeyError:
            value = hash((self.jump_list, self.name))
            self.__dict__["_hash"] = value
            return value

    # cached: find_tour is called per start square, 64 times for an 8x8 sweep
    @cached_property
    def jumps(self) -> np.ndarray:
        out = np.array(self.jump_list, dtype=np.int64).reshape(-1, 2)
        out.flags.writeable = False
        return out

    @cached_property
    def directed(self) -> bool:
        s = set(self.jump_list)
        return any((-dr, -dc) not in s for dr, dc in s)

    @cached_property
    def is_knight(self) -> bool:
        return sorted(self.jump_list) == symmetric_closure([(1, 2)])

    @cached_property
    def colour_changing(self) -> bool:
        """Every jump lands on the other square colour: the move graph is bipartite."""
        return all((dr + dc) % 2 != 0 for dr, dc in self.jump_list)

    @cached_property
    def colour_keeping(self) -> bool:
        return all((dr + dc) % 2 == 0 for dr, dc in self.jump_list)

    def spec(self) -> str:
        """The jumps as `--jumps` text (exact, usable with --asymmetric)."""
        return ";".join(f"{dr},{dc}" for dr, dc in self.jump_list)

    @staticmethod
    def from_jumps(jumps, *, symmetric: bool = True, name: str | None = None) -> "Piece":
        pairs = []
        for item in jumps:
            try:
                dr, dc = (int(v) for v in item)
            except (TypeError, ValueError):
                raise TourInputError(f"jump {item!r} is not a pair of integers") from None
            if dr == 0 and dc == 0:
                raise TourInputError(f"jump {item!r}: (0, 0) does not move")
            if max(abs(dr), abs(dc)) > MAX_JUMP:
                raise TourInputError(f"jump ({dr}, {dc}) is longer than {MAX_JUMP:,} squares each way, the side of "
                                     "the largest board")
            pairs.append((dr, dc))
        if not pairs:
            raise TourInputError("a piece needs at least one jump")
        full = symmetric_closure(pairs) if symmetric else sorted(set(pairs))
        if name is None:
            name = "custom" if not symmetric else _leaper_label(pairs)
        return Piece(tuple(full), name)

    @staticmethod
    def leaper(a: int, b: int) -> "Piece":
        return Piece.from_jumps([(a, b)], symmetric=True)

    @staticmethod
    def compound(leapers) -> "Piece":
        """Union of symmetric (a, b)-leapers, e.g. [(1, 2), (0, 1)]."""
        return Piece.from_jumps(list(leapers), symmetric=True)


def _leaper_label(pairs) -> str:
    parts = []
    for dr, dc in sorted({tuple(sorted((abs(a), abs(b)))) for a, b in pairs}):
        parts.append(_NAMES.get((dr, dc), f"({dr},{dc})-leaper"))
    return "+".join(parts)


def parse_pair(text: str, what: str) -> tuple[int, int]:
    m = _PAIR.match(text)
    if not m:
        raise TourInputError(f"{what} {text!r} is not two integers 'a,b'")
    return int(m.group(1)), int(m.group(2))


def parse_piece(pieces=None, jumps: str | None = None, asymmetric: bool = False) -> Piece:
    """Build a piece from leapers ``"a,b"`` and/or explicit jumps ``"dr,dc;..."``.

    Parameters
    ----------
    pieces : str, (int, int) or list of them, optional
        One ``"a,b"`` (or ``(a, b)``, or a classic name such as ``"knight"``, ``"camel"``,
        ``"zebra"``) leaper, or several (a list, or ``"a,b;c,d"``: a compound piece); every
        rotation and reflection is added.
    jumps : str or list of (int, int), optional
        Explicit jumps ``"dr,dc;dr,dc;..."``, made symmetric unless `asymmetric`.
    asymmetric : bool, optional
        Use `jumps` exactly as listed (a one-way piece).

    Returns
    -------
    Piece

    Raises
    ------
    TourInputError
        No piece, a pair that is not two integers, a (0,0) jump, or `asymmetric`
        combined with `pieces`.

    Examples
    --------
    >>> parse_piece("1,2").name
    'knight'
    >>> len(parse_piece(["1,2", "0,1"]).jump_list), parse_piece((2, 3)).name
    (12, 'zebra')
    >>> parse_piece("camel").jump_list == parse_piece("1,3").jump_list
    True
    """
    pairs: list[tuple[int, int]] = []
    if isinstance(pieces, str):  # one piece given as "a,b" (or "a,b;c,d"), not a list of them
        pieces = [p for p in pieces.split(";") if p.strip()] or [pieces]
    elif _is_int_pair(pieces):  # one piece given as (a, b)
        pieces = [pieces]
    for text in pieces or ():
        if _is_int_pair(text):
            a, b = int(text[0]), int(text[1])
            text = f"{a},{b}"
        elif isinstance(text, str) and text.strip().lower() in _BY_NAME:
            a, b = _BY_NAME[text.strip().lower()]
        elif isinstance(text, str):
            if not _PAIR.match(text):
                raise TourInputError(f"piece {text!r} is neither two integers 'a,b' nor a leaper's name "
                                     f"({', '.join(sorted(_BY_NAME))})")
            a, b = parse_pair(text, "piece")
        else:
            raise TourInputError(f"piece {text!r} is not 'a,b' or a pair of integers (e.g. '1,2' or (1, 2))")
        if a == 0 and b == 0:
            raise TourInputError(f"piece {text!r}: (0,0) does not move")
        pairs.append((a, b))
    if asymmetric and pieces:
        raise TourInputError("asymmetric applies to explicit jumps only, not to leaper pieces")
    if asymmetric and not jumps:
        raise TourInputError("asymmetric needs explicit jumps")
    if jumps is not None and not isinstance(jumps, str):  # a list of (dr, dc) pairs
        if not all(_is_int_pair(j) for j in jumps):
            raise TourInputError(f"jumps {jumps!r} are not 'dr,dc;dr,dc;...' or a list of (dr, dc) pairs")
        jumps = ";".join(f"{int(dr)},{int(dc)}" for dr, dc in jumps)
    if jumps is not None:
        items = [s for s in jumps.split(";") if s.strip()]
        if not items:
            raise TourInputError(f"jumps {jumps!r} lists no jump")
        jpairs = [parse_pair(s, "jump") for s in items]
        for (dr, dc), s in zip(jpairs, items, strict=True):
            if dr == 0 and dc == 0:
                raise TourInputError(f"jump {s.strip()!r} does not move")
        if asymmetric:
            if pairs:
                raise TourInputError("asymmetric jumps cannot be combined with leaper pieces")
            return Piece.from_jumps(jpairs, symmetric=False, name="custom")
        pairs.extend(jpairs)
    if not pairs:
        raise TourInputError("no piece given: a leaper 'a,b' (e.g. 1,2 for the knight) or jumps 'dr,dc;...'")
    return Piece.from_jumps(pairs, symmetric=True)


def _is_int_pair(value) -> bool:
    return (isinstance(value, (tuple, list)) and len(value) == 2
            and all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in value))


def as_piece(piece) -> Piece:
    """A `Piece` from what the CLI and the library accept: a Piece, ``"1,2"``, ``"1,2;0,1"``,
    ``(1, 2)`` or a list of leapers."""
    if isinstance(piece, Piece):
        return piece
    if piece is None:
        raise TourInputError("no piece given: a leaper 'a,b' (e.g. 1,2 for the knight) or a Piece")
    return parse_piece(piece)


def as_square(square, rows: int, cols: int) -> int:
    """A cell index from a cell index, ``"R,C"``, chess notation ``"a1"`` or ``(r, c)``."""
    if isinstance(square, (int, np.integer)) and not isinstance(square, bool):
        if not 0 <= int(square) < rows * cols:
            raise TourInputError(f"start square {int(square)} is off the {rows}x{cols} board "
                                 f"(cell indices 0..{rows * cols - 1})")
        return int(square)
    if isinstance(square, str):
        return parse_square(square, rows, cols)
    if _is_int_pair(square):
        r, c = int(square[0]), int(square[1])
        if not (0 <= r < rows and 0 <= c < cols):
            raise TourInputError(f"square {(r, c)!r} is off the {rows}x{cols} board")
        return r * cols + c
    raise TourInputError(f"square {square!r} is not a cell index, 'R,C', chess notation like 'a1' or (r, c)")


_CHESS = re.compile(r"^\s*([a-zA-Z])\s*(\d+)\s*$")


def parse_square(text: str, rows: int, cols: int) -> int:
    """A square as a cell index ``row*cols + col``.

    Parameters
    ----------
    text : str
        ``"R,C"`` (0-based, row 0 at the top) or chess notation ``"e4"`` (a1 is the
        bottom-left square, row ``rows-1``, col 0; boards at most 26 wide).
    rows, cols : int
        Board size.

    Returns
    -------
    int
        The cell index.

    Raises
    ------
    TourInputError
        Neither form, or a square off the board.

    Examples
    --------
    >>> parse_square("a1", 8, 8), parse_square("0,0", 8, 8)
    (56, 0)
    """
    text = str(text)
    m = _CHESS.match(text)
    if m:
        if cols > 26:
            raise TourInputError(f"square {text!r}: chess notation needs a board at most 26 wide (use R,C)")
        col = ord(m.group(1).lower()) - ord("a")
        rank = int(m.group(2))
        if col >= cols or not 1 <= rank <= rows:
            raise TourInputError(f"square {text!r} is off the {rows}x{cols} board")
        return (rows - rank) * cols + col
    if _PAIR.match(text):
        r, c = parse_pair(text, "square")
    else:
        raise TourInputError(f"square {text!r} is neither 'R,C' (0-based) nor chess notation like 'a1'")
    if not (0 <= r < rows and 0 <= c < cols):
        raise TourInputError(f"square {text!r} is off the {rows}x{cols} board")
    return r * cols + c


def square_name(cell: int, rows: int, cols: int) -> str:
    """The name of a cell: chess notation on boards at most 26 wide, else ``"R,C"``.

    Parameters
    ----------
    cell : int
        Cell index ``row*cols + col``.
    rows, cols : int
        Board size.

    Returns
    -------
    str

    Examples
    --------
    >>> square_name(56, 8, 8), square_name(0, 30, 30)
    ('a1', '0,0')
    """
    r, c = divmod(int(cell), cols)
    if cols <= 26:
        return f"{chr(ord('a') + c)}{rows - r}"
    return f"{r},{c}"
