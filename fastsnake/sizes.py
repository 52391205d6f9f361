"""One size grammar for every part: an int N (N x N), a (rows, cols) pair, or "RxC" / "N"."""

from __future__ import annotations

import re

from fastsnake.errors import InputError

_SIZE = re.compile(r"^\s*(\d+)\s*(?:[xX×]\s*(\d+))?\s*$")


class SizeError(InputError):
    """A board size that is not RxC, N or (rows, cols), or lies outside the allowed range."""


def parse_size(size, *, lo: int = 1, hi: int | None = None, min_cells: int | None = None,
               max_cells: int | None = None, hint: str = "", error=SizeError) -> tuple[int, int]:
    """(rows, cols) of `size`: 10 -> (10, 10); (4, 6) -> (4, 6); "4x6" -> (4, 6); "10" -> (10, 10).

    Raises `error` (a SizeError by default; a part may pass its own InputError subclass)
    naming the size when it is malformed, a side is outside lo..hi, or rows*cols is outside
    min_cells..max_cells; `hint` is appended to a range error. Every part words its size
    errors this one way: "size '0x5': rows=0 is outside 1..100".
    """
    if isinstance(size, bool):
        raise error(f"size {size!r} is not RxC, N or (rows, cols)")
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
        raise error(f"size {size!r} is not RxC, N or (rows, cols) (e.g. 10x12, 10 or (10, 12))")
    shown = f"{rows}x{cols}" if not isinstance(size, str) else size.strip()
    for name, value in (("rows", rows), ("cols", cols)):
        if value < lo or (hi is not None and value > hi):
            bound = f"{lo}..{hi}" if hi is not None else f">= {lo}"
            raise error(f"size {shown!r}: {name}={value} is outside {bound}{hint}")
    cells = rows * cols
    if (min_cells is not None and cells < min_cells) or (max_cells is not None and cells > max_cells):
        bound = (f"outside {min_cells or 1}..{max_cells}" if max_cells is not None
                 else f"below the minimum of {min_cells}")
        raise error(f"size {shown!r}: rows*cols={cells} is {bound}{hint}")
    return rows, cols


# ---------------------------------------------------------------- memory and search limits

DEFAULT_MEMORY_BUDGET = 2 * 1024**3
MEMORY_BUDGET_ENV = "FASTSNAKE_MEMORY_BUDGET"
_BYTES = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kKmMgGtT]?)(i?[bB])?\s*$")
_UNIT = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


class MemoryBudgetError(InputError):
    """A memory size that is not a number of bytes, or work that would not fit the memory budget."""


class SearchLimitError(InputError):
    """A search stopped at one of its limits (nodes, memory or time) before it had an answer.

    `limit` is "nodes", "memory" or "time", `value` the limit that was reached; a part may
    attach its partial result (e.g. the node counts) as `result`.
    """

    def __init__(self, message: str, *, limit: str, value, result=None):
        super().__init__(message)
        self.limit = limit
        self.value = value
        self.result = result


def parse_bytes(text, what: str = "memory size") -> int:
    """Bytes of `text`: an int, or "2147483648", "512M", "2G", "1.5GiB" (powers of 1024)."""
    if isinstance(text, bool):
        raise MemoryBudgetError(f"{what} {text!r} is not a number of bytes (e.g. 2147483648, 512M or 2G)")
    if isinstance(text, int) or (hasattr(text, "dtype") and getattr(text, "ndim", 1) == 0):
        value = int(text)
    else:
        match = _BYTES.match(str(text))
        if not match:
            raise MemoryBudgetError(f"{what} {text!r} is not a number of bytes (e.g. 2147483648, 512M or 2G)")
        value = int(float(match.group(1)) * _UNIT[match.group(2).lower()])
    if value < 1:
        raise MemoryBudgetError(f"{what} {text!r} must be at least 1 byte")
    return value


def memory_budget(budget=None) -> int:
    """Bytes one computation may take: `budget` if given, else the FASTSNAKE_MEMORY_BUDGET
    environment variable (bytes, or e.g. 512M / 4G), else 2 GiB."""
    if budget is not None:
        return parse_bytes(budget, "memory budget")
    import os

    text = os.environ.get(MEMORY_BUDGET_ENV)
    if not text:
        return DEFAULT_MEMORY_BUDGET
    return parse_bytes(text, MEMORY_BUDGET_ENV)


def check_memory(need: int, what: str, budget=None) -> None:
    """Raise MemoryBudgetError when `what` needs more than the memory budget: one line naming both."""
    limit = memory_budget(budget)
    if need > limit:
        raise MemoryBudgetError(
            f"{what} needs {need:,} bytes, over the memory budget of {limit:,} bytes "
            f"(set {MEMORY_BUDGET_ENV} to allow more)")


def resident_bytes() -> int:
    """This process's resident memory now (Linux ``/proc/self/statm``; 0 where it cannot be read): what
    a budget check adds to the memory a computation is about to take, since the budget is the process's."""
    import os

    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0
