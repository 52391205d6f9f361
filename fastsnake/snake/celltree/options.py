"""The options of the cell-tree presets, declared as data, and their reading into the parameter vector.

A preset (`fastsnake.snake.policies.cell`, `grove`) declares each option once as an `Option`
row: its bounds, its defaults on small and big boards, one line of help. `read_options`
checks the values a user gave and fills the defaults, naming the policy in every error.
"""

from __future__ import annotations

from dataclasses import dataclass

from fastsnake.snake.board import BoardError
from fastsnake.snake.celltree.params import BITS_BLOCKS
from fastsnake.snake.policies.protocol import PolicyError

# Boards of at most this many blocks are "small" for the presets' defaults (the single-word masks' limit).
SMALL_BLOCKS = BITS_BLOCKS


@dataclass(frozen=True)
class Option:
    """One option of a preset: an integer in low..high (or -1 for the default when `auto`)."""

    name: str
    low: int
    high: int
    small: int  # default on boards of at most SMALL_BLOCKS blocks
    big: int  # default on bigger boards
    help: str
    auto: bool = False  # -1 means "the default" (so 0 may stay refused)

    def default(self, big: bool) -> int:
        return self.big if big else self.small

    def registry_entry(self) -> tuple:
        """The (default, allowed values) pair of `EnginePolicy.options`: -1 ("by board size") when defaults
        differ or the option is `auto`."""
        return (self.small if self.small == self.big and not self.auto else -1, None)


def is_big(config) -> bool:
    """More than SMALL_BLOCKS 2×2 blocks: the presets' big-board defaults apply."""
    return (config.rows // 2) * (config.cols // 2) > SMALL_BLOCKS


def check_board(policy: str, config) -> None:
    if config.rows % 2 or config.cols % 2:
        raise BoardError(f"policy {policy!r} needs even rows and cols (2x2 blocks); "
                         f"board {config.rows}x{config.cols} has an odd side")


def read_options(policy: str, table: tuple[Option, ...], options: dict, big: bool) -> tuple[dict, set]:
    """(value of every option, the names given other than as the default); values checked against the table.

    An option whose defaults differ by board size, or that is `auto`, takes -1 for its default.
    """
    values, given = {}, set()
    for opt in table:
        marker = opt.registry_entry()[0]
        raw = options.get(opt.name, marker)
        try:
            value = int(raw)
        except (TypeError, ValueError):
            value = opt.low - 2
        if value == marker and marker == -1:
            values[opt.name] = opt.default(big)
            continue
        if not (opt.low <= value <= opt.high):
            extra = " (or -1: the default)" if opt.auto else ""
            low = -1 if marker == -1 and not opt.auto else opt.low
            raise PolicyError(f"policy {policy!r}: {opt.name}={raw!r} is not a count in {low}..{opt.high}{extra}")
        values[opt.name] = value
        if value != marker:
            given.add(opt.name)
    return values, given
