"""Versioned save files for tours and reach sets (read by the viewer).

Two encodings with the same content, chosen by the file extension:
- `.npz` (numpy, uncompressed - a 4000x4000 tour is 64 MB of int32 and writes in
  well under a second): `meta` is a 0-d string array holding the JSON header, and
  `path` (tours, int32) or `cells` (reach, int64) holds the squares.
- `.json`: the header with `path` / `cells` as a list inside it.

Header keys: format ("fastsnake-tour/1" or "fastsnake-reach/1"), rows, cols,
jumps ([[dr, dc], ...]), directed, start; tours add closed, found, exists, method,
reason; reach adds n, walk. Squares are indices row * cols + col, row 0 at the top.
Loaders check the format tag, the board, and that a tour really is a tour.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

import numpy as np

from fastsnake.errors import read_error_reason
from fastsnake.files import NpzArchive, loads_json, written_atomically
from fastsnake.reading import TEXT_MAX_BYTES, read_json
from fastsnake.tour.pieces import TourInputError
from fastsnake.tour.verify import tour_problem

TOUR_FORMAT = "fastsnake-tour/1"
REACH_FORMAT = "fastsnake-reach/1"
_MAX_SIDE = 4000


class SaveFileError(TourInputError):
    """A save file that is not a valid fastsnake tour/reach file."""


def _kind(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in (".npz", ".json"):
        raise TourInputError(f"save file {str(path)!r} must end in .npz or .json")
    return suffix[1:]


def check_save_path(path) -> None:
    """Raise TourInputError unless `path` has a supported extension."""
    _kind(Path(path))


def _piece_header(piece) -> dict:
    return {"jumps": [list(j) for j in piece.jump_list], "directed": piece.directed, "piece": piece.name}


# A `.json` save file holds at most this many squares (about 9 bytes each: within the readers' cap,
# `fastsnake.reading.TEXT_MAX_BYTES`); larger boards are saved as `.npz`.
JSON_MAX_SQUARES = TEXT_MAX_BYTES // 16


def _write(path: Path, header: dict, key: str, squares: np.ndarray | None) -> None:
    """Write to a dot-file beside `path`, renamed when complete: a failed write (full disk)
    leaves no partial file under the name (the OSError is re-raised for the caller)."""
    kind = _kind(path)
    if kind == "json" and squares is not None and len(squares) > JSON_MAX_SQUARES:
        raise TourInputError(f"save file {str(path)!r}: {len(squares):,} squares are more than a .json save file "
                             f"holds ({JSON_MAX_SQUARES:,}); save as .npz")
    with written_atomically(path) as tmp:
        if kind == "json":
            body = dict(header)
            body[key] = None if squares is None else squares.tolist()
            Path(tmp).write_text(json.dumps(body) + "\n")
        else:
            arrays = {"meta": np.array(json.dumps(header))}
            if squares is not None:
                arrays[key] = squares
            with open(tmp, "wb") as fh:  # a file object keeps numpy from appending ".npz"
                np.savez(fh, **arrays)


def save_tour(path, result) -> None:
    """Write a `TourResult` (from `find_tour`), atomically.

    Parameters
    ----------
    path : str or os.PathLike
        ``.npz`` or ``.json`` (format "fastsnake-tour/1", read by the viewer).
    result : TourResult

    Raises
    ------
    TourInputError
        An extension other than ``.npz`` or ``.json``.
    OSError
        The file cannot be written (nothing is left under its name).

    Examples
    --------
    >>> import os, tempfile
    >>> from fastsnake.tour import find_tour, parse_piece
    >>> path = os.path.join(tempfile.mkdtemp(), "t.json")
    >>> save_tour(path, find_tour(parse_piece("1,2"), 5, 5, 0))
    >>> load_tour(path)["path"].shape
    (25,)
    """
    path = Path(path)
    header = {"format": TOUR_FORMAT, "rows": result.rows, "cols": result.cols, "start": result.start,
              "closed": result.closed, "found": result.found, "exists": result.exists,
              "method": result.method, "reason": result.reason, **_piece_header(result.piece)}
    squares = None if result.path is None else np.asarray(result.path, dtype=np.int32)
    _write(path, header, "path", squares)


def save_reach(path, result) -> None:
    """Write a `ReachResult` (from `reach`), atomically.

    Parameters
    ----------
    path : str or os.PathLike
        ``.npz`` or ``.json`` (format "fastsnake-reach/1", read by the viewer).
    result : ReachResult

    Raises
    ------
    TourInputError
        An extension other than ``.npz`` or ``.json``.
    OSError
        The file cannot be written (nothing is left under its name).

    Examples
    --------
    >>> import os, tempfile
    >>> from fastsnake.tour import parse_piece
    >>> from fastsnake.tour.reach import reach
    >>> path = os.path.join(tempfile.mkdtemp(), "r.npz")
    >>> save_reach(path, reach(parse_piece("1,2"), 8, 8, 0, 2))
    >>> load_reach(path)["cells"].tolist()[:3]
    [2, 4, 11]
    """
    path = Path(path)
    header = {"format": REACH_FORMAT, "rows": result.rows, "cols": result.cols, "start": result.start,
              "n": result.n, "walk": result.walk, "count": result.count, **_piece_header(result.piece)}
    _write(path, header, "cells", np.asarray(result.cells, dtype=np.int64))


def _read(path, key: str, fmt: str) -> tuple[dict, np.ndarray | None]:
    path = Path(path)
    kind = _kind(path)
    try:
        if kind == "json":  # bounded (`fastsnake.reading`): a regular file, at most TEXT_MAX_BYTES
            header = read_json(path, f"{fmt} file", error=SaveFileError)
            if not isinstance(header, dict):
                raise SaveFileError(f"{str(path)!r}: not a JSON object")
            raw = header.pop(key, None)
            if raw is not None and not (isinstance(raw, list) and all(type(v) is int for v in raw)):
                # np.asarray(..., int64) would quietly truncate 56.5 to square 56
                raise SaveFileError(f"{str(path)!r}: {key} is not a list of whole square indices")
            squares = None if raw is None else np.asarray(raw, dtype=np.int64)
        else:
            with NpzArchive(path, known=("meta", key)) as archive:
                if "meta" not in archive:
                    raise SaveFileError(f"{str(path)!r} is not a readable {fmt} file: no 'meta' field")
                header = loads_json(str(archive.read("meta", "U", ndim=0)))
                if not isinstance(header, dict):
                    raise SaveFileError(f"{str(path)!r}: not a JSON object")
                rows, cols = header.get("rows"), header.get("cols")
                cells = rows * cols if isinstance(rows, int) and isinstance(cols, int) else 0
                # a path visits each square once (a closed tour may name its start again at the end)
                squares = archive.read(key, "iu", max_items=max(0, cells) + 1) if key in archive else None
    except SaveFileError:
        raise
    except (OSError, ValueError, KeyError, TypeError, EOFError, OverflowError, zipfile.BadZipFile) as exc:
        raise SaveFileError(f"{str(path)!r} is not a readable {fmt} file: {read_error_reason(exc)}") from None
    if header.get("format") != fmt:
        raise SaveFileError(f"{str(path)!r}: format is {header.get('format')!r}, expected {fmt!r}")
    rows, cols = header.get("rows"), header.get("cols")
    if not (isinstance(rows, int) and isinstance(cols, int) and 1 <= rows <= _MAX_SIDE and 1 <= cols <= _MAX_SIDE):
        raise SaveFileError(f"{str(path)!r}: board {rows}x{cols} is invalid")
    jumps = header.get("jumps")
    try:
        jarr = np.asarray(jumps, dtype=np.int64).reshape(-1, 2)
    except (TypeError, ValueError):
        raise SaveFileError(f"{str(path)!r}: jumps {jumps!r} are not [[dr, dc], ...]") from None
    if jarr.shape[0] == 0:
        raise SaveFileError(f"{str(path)!r}: the piece has no jumps")
    header["jumps"] = jarr
    start = header.get("start")
    if not (isinstance(start, int) and 0 <= start < rows * cols):
        raise SaveFileError(f"{str(path)!r}: start {start!r} is off the board")
    if squares is not None and (squares.ndim != 1 or not np.issubdtype(squares.dtype, np.integer)):
        raise SaveFileError(f"{str(path)!r}: {key} is not a list of square indices")
    return header, squares


def load_tour(path) -> dict:
    """Read a tour file, validated as a tour.

    Parameters
    ----------
    path : str or os.PathLike
        A file written by `save_tour` (or ``fastsnake tour --save``).

    Returns
    -------
    dict
        The header (``rows``, ``cols``, ``start``, ``closed``, ``found``, ``jumps``, ...)
        plus ``path`` (int32 cell indices, or None when no tour was found).

    Raises
    ------
    SaveFileError
        Unreadable, wrong format, or a path that is not a tour of the board.

    Examples
    --------
    See `save_tour`.
    """
    header, squares = _read(path, "path", TOUR_FORMAT)
    if header.get("found"):
        if squares is None:
            raise SaveFileError(f"{str(path)!r}: found is true but there is no path")
        problem = tour_problem(header["rows"], header["cols"], header["jumps"], squares,
                               bool(header.get("closed")))
        if problem:
            raise SaveFileError(f"{str(path)!r}: not a valid tour: {problem}")
        if int(squares[0]) != header["start"]:
            raise SaveFileError(f"{str(path)!r}: path starts at {int(squares[0])}, not at start {header['start']}")
    header["path"] = None if squares is None else squares.astype(np.int32)
    return header


def load_reach(path) -> dict:
    """Read a reach file, validated against the board.

    Parameters
    ----------
    path : str or os.PathLike
        A file written by `save_reach` (or ``fastsnake reach --save``).

    Returns
    -------
    dict
        The header plus ``cells`` (sorted int64 cell indices).

    Raises
    ------
    SaveFileError
        Unreadable, wrong format, or cells that are not distinct sorted squares.

    Examples
    --------
    See `save_reach`.
    """
    header, squares = _read(path, "cells", REACH_FORMAT)
    if squares is None:
        raise SaveFileError(f"{str(path)!r}: no cells")
    n = header["rows"] * header["cols"]
    if squares.size and (squares.min() < 0 or squares.max() >= n or np.any(np.diff(squares) <= 0)):
        raise SaveFileError(f"{str(path)!r}: cells must be distinct sorted squares of the board")
    if header.get("count", squares.size) != squares.size:
        raise SaveFileError(f"{str(path)!r}: count {header.get('count')} != {squares.size} cells")
    header["cells"] = squares.astype(np.int64)
    return header
