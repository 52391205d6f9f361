"""Open any file the viewer shows: sniff its format tag, hand it to its own loader.

Each problem package validates its own files (`load_replay`, `load_solution`,
`load_tour`, `load_reach`); this module only decides which loader applies and
turns whatever a broken or foreign file raises into one `ViewerError` line.
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from fastsnake.errors import InputError, read_error_reason
from fastsnake.files import loads_json, open_regular, read_npz
from fastsnake.viewer.backend import ViewerError

KNOWN = "fastsnake-replay, fastsnake-puzzle, fastsnake-tour and fastsnake-reach"
_READ_ERRORS = (OSError, ValueError, KeyError, TypeError, IndexError, EOFError, zipfile.BadZipFile, UnicodeDecodeError)


def sniff(path: Path) -> str:
    """The file's format tag (e.g. 'fastsnake-replay/1'); ViewerError if it has none."""
    name = str(path)
    with open_regular(path) as fh:  # a FIFO or device: refused, never opened
        magic = fh.read(4)
    if not magic:  # named .npz or .json, an empty file is neither
        raise ViewerError(f"{name!r} is empty (0 bytes; a file cut short or never written)")
    if magic.startswith(b"PK"):
        data = read_npz(path, keys=("format", "meta"))  # NotAnArchive is a ValueError
        if "format" in data:
            tag = data["format"]
            return str(tag) if tag.shape == () and tag.dtype.kind == "U" else ""
        if "meta" in data:
            header = loads_json(str(data["meta"]))
            return str(header.get("format", "")) if isinstance(header, dict) else ""
        return ""
    if magic.lstrip()[:1] in (b"{", b""):
        from fastsnake.reading import read_json

        doc = read_json(path, "file", error=ViewerError)  # bounded: at most TEXT_MAX_BYTES, JSON depth
        if isinstance(doc, dict) and isinstance(doc.get("format"), str):
            return doc["format"]
    raise ViewerError(f"{name!r} is not a file the viewer shows (it reads {KNOWN} files)")


def open_view(path):
    """The view (a `canvas.BoardView`) of a replay, puzzle solution, tour or reach file."""
    path = Path(path)
    name = str(path)
    if not path.exists():
        raise ViewerError(f"file {name!r} does not exist")
    if path.is_dir():
        raise ViewerError(f"{name!r} is a folder, not a file")
    try:
        tag = sniff(path)
        family = tag.split("/")[0]
        if family == "fastsnake-replay":
            from fastsnake.snake.replay import load_replay
            from fastsnake.viewer.snake_view import SnakeView

            return SnakeView(load_replay(path), path.name)
        if family == "fastsnake-puzzle":
            from fastsnake.puzzle.solution import load_solution
            from fastsnake.viewer.puzzle_view import PuzzleView

            return PuzzleView(load_solution(path), path.name)
        if family in ("fastsnake-tour", "fastsnake-reach"):
            from fastsnake.tour import io
            from fastsnake.viewer.tour_view import ReachView, TourView

            if family == "fastsnake-tour":
                return TourView(io.load_tour(path), path.name)
            return ReachView(io.load_reach(path), path.name)
    except InputError:
        raise
    except _READ_ERRORS as exc:
        reason = read_error_reason(exc)
        if isinstance(exc, json.JSONDecodeError):
            reason = f"not valid JSON ({exc.msg} at line {exc.lineno} column {exc.colno})"
        elif isinstance(exc, (KeyError, IndexError, TypeError)):  # a well-formed file with foreign content
            reason = f"damaged or foreign content ({type(exc).__name__}: {reason})"
        raise ViewerError(f"cannot read {name!r}: {reason}") from None
    shown = f"format {tag!r}" if tag else "no format tag"
    raise ViewerError(f"{name!r} is not a file the viewer shows ({shown}; it reads {KNOWN} files)")
