"""Precision on demand: how many more trials a study needs before every 95 % interval it reports is
as narrow as asked.

A study plays its trials (games, instances) in rounds; after each round every figure the target
applies to is a `Figure`: its 95 % half-width and the value it is measured against (a mean, a
ratio). The next round's size comes from the figures alone (never from timing), so the same call
plays the same trials: half-widths shrink as 1/sqrt(trials), which estimates the trials still
needed; a round at least multiplies the trials by `MIN_GROWTH` and at most by `MAX_GROWTH`, and
the cap is never passed (`next_total`). Snake's sweeps (`fastsnake.snake.precision`) and puzzle
studies (`fastsnake.puzzle.study`) are two users.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from fastsnake.errors import InputError

# The first round's trials (or the cap, when smaller): enough for a first estimate of the spread.
FIRST_ROUND = 100
# A round multiplies the trials played by at least MIN_GROWTH and at most MAX_GROWTH.
MIN_GROWTH = 1.5
MAX_GROWTH = 8
# The estimate of the trials needed is padded by this factor, so that the round after an estimate
# usually reaches the target rather than falling just short of it.
ESTIMATE_MARGIN = 1.1


class PrecisionError(InputError):
    """A precision target that is not a number between 0 and 1."""


def check_precision(precision, error=PrecisionError) -> float:
    """A relative half-width: a number > 0 and < 1 (0.001 is 0.1 % of the value); else `error`."""
    if isinstance(precision, bool) or not isinstance(precision, (int, float)) and not _is_number(precision) \
            or not math.isfinite(float(precision)) or not 0 < float(precision) < 1:
        raise error(f"precision={precision!r} must be a number between 0 and 1 "
                    f"(a half-width as a share of the mean, e.g. 0.01 for 1 %)")
    return float(precision)


def _is_number(value) -> bool:
    import numpy as np

    return isinstance(value, (np.integer, np.floating))


@dataclass
class Figure:
    """One reported figure the target applies to: its 95 % half-width and the value it is measured against."""

    name: str
    half_width: float | None
    reference: float | None

    def ratio(self, target: float) -> float:
        """Half-width over the allowed half-width (<= 1: reached); inf when it cannot be told yet."""
        if self.half_width is None or not self.reference:
            return math.inf
        return self.half_width / (target * abs(self.reference))


def worst(figures: list[Figure], target: float) -> Figure:
    """The figure farthest from `target` (a placeholder when there is none)."""
    return max(figures, key=lambda f: f.ratio(target)) if figures else Figure("-", None, None)


def next_total(done: int, cap: int, worst_ratio: float) -> int:
    """The trials after the next round: half-widths shrink as 1/sqrt(trials), so reaching the target
    takes about done * ratio^2 trials; padded, and held between MIN_GROWTH and MAX_GROWTH times `done`."""
    if math.isinf(worst_ratio):
        wanted = done * MAX_GROWTH
    else:
        wanted = math.ceil(done * worst_ratio ** 2 * ESTIMATE_MARGIN)
    return int(min(cap, max(math.ceil(done * MIN_GROWTH), min(done * MAX_GROWTH, wanted))))
