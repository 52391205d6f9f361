"""Board geometry and game configuration shared by the engine and every policy.

Cells are ``row * cols + col``; moves are 0=up (row-1), 1=right, 2=down, 3=left.
The neighbour table ``nbr[cell * 4 + move]`` (-1 off the board) replaces division
and bounds checks in the hot loop.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from fastsnake.errors import InputError

UP, RIGHT, DOWN, LEFT = 0, 1, 2, 3
MOVE_NAMES = ("up", "right", "down", "left")
DR = (-1, 0, 1, 0)
DC = (0, 1, 0, -1)

TAIL_FOLLOW = 0
TAIL_BLOCKED = 1
TAIL_RULES = {"follow": TAIL_FOLLOW, "blocked": TAIL_BLOCKED}

MIN_SIDE, MAX_SIDE = 2, 256

# Layout of the int64 config array every kernel receives. CFG_CANCEL is not a rule but a request:
# nonzero asks every game playing on this array to stop (the engine polls it; `cancel.py` sets it),
# so one array per run carries its cancellation into every kernel without a signature of its own.
CFG_ROWS, CFG_COLS, CFG_START_LENGTH, CFG_TAIL_RULE, CFG_MAX_MOVES, CFG_CANCEL = range(6)
CFG_SIZE = 6


class BoardError(InputError):
    """A board size or game option that the rules do not allow."""


def neighbour_table(rows: int, cols: int) -> np.ndarray:
    r, c = np.divmod(np.arange(rows * cols), cols)
    table = np.full((rows * cols, 4), -1, dtype=np.int32)
    for move in range(4):
        nr, nc = r + DR[move], c + DC[move]
        inside = (nr >= 0) & (nr < rows) & (nc >= 0) & (nc < cols)
        table[inside, move] = (nr * cols + nc)[inside]
    return table.reshape(-1)


# Move counters are int64; a cap with headroom keeps every count (and count + 1) exact.
MAX_MOVE_CAP = 2**62


@dataclass(frozen=True)
class GameConfig:
    """Validated rules of a game; `arrays()` gives what the kernels take."""

    rows: int
    cols: int
    start_length: int = 3
    tail_rule: str = "follow"
    max_moves: int | None = None  # None: (rows*cols)**2

    def __post_init__(self):
        for name, value in (("rows", self.rows), ("cols", self.cols)):
            if not (MIN_SIDE <= int(value) <= MAX_SIDE):
                raise BoardError(
                    f"board {self.rows}x{self.cols}: {name}={value} is outside {MIN_SIDE}..{MAX_SIDE}"
                )
        cells = self.rows * self.cols
        if not (1 <= int(self.start_length) < cells):
            raise BoardError(
                f"start length {self.start_length} must be between 1 and {cells - 1} "
                f"on a {self.rows}x{self.cols} board"
            )
        if self.tail_rule not in TAIL_RULES:
            raise BoardError(f"tail rule {self.tail_rule!r} is not one of {', '.join(TAIL_RULES)}")
        if self.max_moves is not None and int(self.max_moves) < 1:
            raise BoardError(f"max moves {self.max_moves} must be at least 1")
        if self.max_moves is not None and int(self.max_moves) > MAX_MOVE_CAP:
            raise BoardError(f"max moves {self.max_moves} is over the largest cap, 2**62 (the kernels count in int64)")

    @property
    def cells(self) -> int:
        return self.rows * self.cols

    @property
    def move_cap(self) -> int:
        return int(self.max_moves) if self.max_moves is not None else self.cells**2

    def cfg_array(self) -> np.ndarray:
        cfg = np.zeros(CFG_SIZE, dtype=np.int64)
        cfg[CFG_ROWS] = self.rows
        cfg[CFG_COLS] = self.cols
        cfg[CFG_START_LENGTH] = self.start_length
        cfg[CFG_TAIL_RULE] = TAIL_RULES[self.tail_rule]
        cfg[CFG_MAX_MOVES] = self.move_cap
        return cfg

    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        return self.cfg_array(), neighbour_table(self.rows, self.cols)
