"""The game record, declared once: the columns every sweep keeps per game.

Each `Column` says its name, its Arrow type, the slot the sweep kernels write it to (their
``out`` row: `fastsnake.snake.engine.ROW_*` are read from here), how the summary accumulates it
and whether files written before it existed may lack it. Everything that handles a game's row
derives from `columns()`: the kernels' row width (`width`), `SweepRun`, the writers (`rows_table`)
and checked readers (`store.sweepfile`), the summary accumulator (`stats.SummaryAccumulator`),
the summary table (`present.summary_columns`) and the report.

Adding a per-game column is: a `Column` here, the kernel line that fills its slot, and its tests.
A file without an ``optional`` column reads it as null (absent), never as zeros, and a summary
without it says None.

The module is plain Python with no imports from the package, so the kernels' module may read it.
Tests may swap in a scratch declaration with `declared` (``with declared(columns() + (extra,))``).
"""

from __future__ import annotations

import contextlib
from typing import NamedTuple

# Arrow type names a column may have (`arrow_type`): "outcome" is the dictionary of outcome words.
ARROW_TYPES = ("int16", "int32", "int64", "uint64", "outcome")
# How a column is summarised: "outcome" counts won / died / stuck, "moves" keeps the histogram
# (quantiles, sums, the mean of won games), "mean" gives ``<name>_mean``, None nothing.
SUMMARIES = ("outcome", "moves", "mean", None)


class Column(NamedTuple):
    """One per-game column of the record (see the module's docstring)."""

    name: str
    arrow: str  # one of ARROW_TYPES
    slot: int | None  # the kernels' row slot, or None (game index and seed come from the runner)
    summary: str | None = None  # one of SUMMARIES
    optional: bool = False  # files written before it existed may lack it (read as null)
    title: str | None = None  # its mean's heading in the summary table, if it is shown there
    doc: str = ""


GAME_RECORD: tuple[Column, ...] = (
    Column("game", "int64", None, doc="the game's index in its sweep"),
    Column("seed", "uint64", None, doc="the game's seed, game_seed(base seed, index)"),
    Column("outcome", "outcome", 0, "outcome", doc="won, died or stuck"),
    Column("moves", "int64", 1, "moves", doc="moves played"),
    Column("apples", "int32", 2, "mean", title="apples", doc="apples eaten"),
    Column("length", "int32", 3, "mean", doc="final length (start length + apples)"),
)

_active: list[tuple[Column, ...]] = [GAME_RECORD]


def columns() -> tuple[Column, ...]:
    """The record's columns, in file order."""
    return _active[-1]


def names() -> tuple[str, ...]:
    return tuple(c.name for c in columns())


def kernel_columns() -> tuple[Column, ...]:
    """The columns the kernels write, in slot order (slot k is column k of their ``out`` rows)."""
    return tuple(sorted((c for c in columns() if c.slot is not None), key=lambda c: c.slot))


def width() -> int:
    """Columns of a kernel's ``out`` row (one row per game)."""
    return len(kernel_columns())


def slot(name: str) -> int:
    return next(c.slot for c in columns() if c.name == name)


def column(name: str) -> Column:
    return next(c for c in columns() if c.name == name)


def required() -> tuple[str, ...]:
    """Columns every sweep file holds (the others may be absent from older files)."""
    return tuple(c.name for c in columns() if not c.optional)


def mean_columns() -> tuple[Column, ...]:
    """Columns the summary keeps as ``<name>_mean`` (from the exact sum ``<name>_sum``)."""
    return tuple(c for c in columns() if c.summary == "mean")


def check(cols) -> None:
    """ValueError when a declaration is inconsistent (a repeated name or slot, slots not 0..k-1)."""
    seen = [c.name for c in cols]
    if len(set(seen)) != len(seen):
        raise ValueError(f"a column name is declared twice: {seen}")
    slots = sorted(c.slot for c in cols if c.slot is not None)
    if slots != list(range(len(slots))):
        raise ValueError(f"kernel slots must be 0..{len(slots) - 1}, not {slots}")
    for c in cols:
        if c.arrow not in ARROW_TYPES or c.summary not in SUMMARIES:
            raise ValueError(f"column {c.name!r}: type {c.arrow!r} or summary {c.summary!r} unknown")


check(GAME_RECORD)


@contextlib.contextmanager
def declared(cols):
    """Use the declaration `cols` instead of `GAME_RECORD` inside the block (tests, in one thread)."""
    cols = tuple(cols)
    check(cols)
    _active.append(cols)
    try:
        yield cols
    finally:
        _active.pop()


# The slots the compiled kernels use (numba reads module globals once, at compile time).
KERNEL_SLOTS = {c.name: c.slot for c in GAME_RECORD if c.slot is not None}
