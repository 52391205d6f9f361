"""One size grammar for every part: an int N (N x N), a (rows, cols) pair, or "RxC" / "N"."""

from __future__ import annotations

import re

from fastsnake.errors import InputError

_SIZE = re.compile(r"^\s*(\d+)\s*(?:[xX×]\s*(\d+))?\s*$")


class SizeError(InputError):
    """A board size that is not RxC, N or (rows, cols), or lies outside the allowed range."""


def parse_size(size, *, lo: int = 1, hi: int | None = None) -> tuple[int, int]:
    """(rows, cols) of `size`: 10 -> (10, 10); (4, 6) -> (4, 6); "4x6" -> (4, 6); "10" -> (10, 10).

    Raises SizeError naming the size when it is malformed or a side is outside lo..hi.
    """
    if isinstance(size, bool):
        raise SizeError(f"size {size!r} is not RxC, N or (rows, cols)")
    if isinstance(size, int) or (hasattr(size, "dtype") and getattr(size, "ndim", 1) == 0):
        rows = cols = int(size)
    elif isinstance(size, (tuple, list)) and len(size) == 2 and all(
            isinstance(v, int) or hasattr(v, "dtype") for v in size) and not any(isinstance(v, bool) for v in size):
        rows, cols = int(size[0]), int(size[1])
    elif isinstance(size, str) and _SIZE.match(size):
        match = _SIZE.match(size)
        rows = int(match.group(1))
        cols = int(match.group(2)) if match.group(2) is not None else rows
    else:
        raise SizeError(f"size {size!r} is not RxC, N or (rows, cols) (e.g. 10x12, 10 or (10, 12))")
    for name, value in (("rows", rows), ("cols", cols)):
        if value < lo or (hi is not None and value > hi):
            bound = f"{lo}..{hi}" if hi is not None else f">= {lo}"
            raise SizeError(f"size {size!r}: {name}={value} is outside {bound}")
    return rows, cols
