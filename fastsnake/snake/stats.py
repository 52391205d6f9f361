"""Exact sweep statistics accumulated chunk by chunk, in memory bounded by the distinct move counts.

Means and standard deviations come from integer sums (exact at any size);
quantiles come from a histogram of moves (value -> count), so a 10⁸-game sweep
never holds its rows, and the quantiles equal numpy's default (linear)
`np.quantile` over all games.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from fastsnake.renamed import RENAMED_KEYS
from fastsnake.snake import record
from fastsnake.snake.intervals import mean_ci95, wilson_ci95

WON, DIED, STUCK = 1, 2, 3

# Summary keys renamed (`fastsnake.renamed`; "losses" is "deaths", so that one word names a game that
# ends by collision). Reading the old key of a summary dict, deprecated in 0.1.0, is gone in 0.2.0;
# stored sweep statistics written under the old name still read as the new one
# (`SummaryAccumulator.from_json`): files are read as long as their format is.


class Summary(dict):
    """A sweep's summary: a plain dict."""


class SummaryAccumulator:
    """Exact statistics of games added a chunk at a time; what each column contributes is its
    declaration's ``summary`` (`fastsnake.snake.record`): outcome counts, the moves' histogram and
    sums, and a ``<name>_mean`` for each "mean" column. A column some games lack (files written
    before it existed) gives None, never a mean that counts them as zeros."""

    # Scalar state of the "outcome" and "moves" summaries (every "mean" column adds <name>_sum).
    FIXED = ("games", "wins", "deaths", "stuck", "moves_sum", "moves_sq_sum", "won_moves_sum")

    def __init__(self):
        for name in self.FIXED:
            setattr(self, name, 0)
        for c in record.mean_columns():
            setattr(self, f"{c.name}_sum", 0)
        self.absent = {}  # column name -> games added without it
        self.values = np.zeros(0, dtype=np.int64)  # sorted distinct move counts
        self.counts = np.zeros(0, dtype=np.int64)

    def add(self, *arrays, **named) -> None:
        """Add games: arrays in kernel slot order (outcome, moves, apples, length, ...) and/or by
        column name; a "mean" column not given (or None) is absent for these games."""
        kernel = record.kernel_columns()
        if len(arrays) > len(kernel):
            raise TypeError(f"add() takes at most {len(kernel)} arrays, the record's kernel columns")
        values = {c.name: a for c, a in zip(kernel, arrays, strict=False)}
        values.update(named)
        self.add_columns(values)

    def add_rows(self, rows) -> None:
        """Add the games of kernel rows (int64 [n, record.width()])."""
        self.add_columns({c.name: rows[:, c.slot] for c in record.kernel_columns()})

    def add_columns(self, values: dict) -> None:
        """Add games given as {column name: array} (``outcome`` as codes 1 won, 2 died, 3 stuck)."""
        moves = np.asarray(values["moves"], dtype=np.int64)
        outcome = np.asarray(values["outcome"])
        won = outcome == WON
        n = int(moves.size)
        self.games += n
        self.wins += int(won.sum())
        self.deaths += int((outcome == DIED).sum())
        self.stuck += int((outcome == STUCK).sum())
        counted, counts = np.unique(moves, return_counts=True)
        # Python ints: exact whatever the total.
        self.moves_sum += int(moves.sum())
        self.moves_sq_sum += sum(int(v) * int(v) * int(c)
                                 for v, c in zip(counted.tolist(), counts.tolist(), strict=True))
        self.won_moves_sum += int(moves[won].sum())
        for c in record.mean_columns():
            column = values.get(c.name)
            if column is None:
                self.absent[c.name] = self.absent.get(c.name, 0) + n
            else:
                column = np.asarray(column, dtype=np.int64)
                setattr(self, f"{c.name}_sum", getattr(self, f"{c.name}_sum", 0) + int(column.sum()))
        self._merge(counted, counts)

    def mean_of(self, name: str) -> float | None:
        """The mean of a "mean" column, or None without games or when some games lack it."""
        if not self.games or self.absent.get(name) or not hasattr(self, f"{name}_sum"):
            return None
        return getattr(self, f"{name}_sum") / self.games

    def _merge(self, values, counts) -> None:
        both = np.concatenate([self.values, values])
        weights = np.concatenate([self.counts, counts])
        merged, inverse = np.unique(both, return_inverse=True)
        self.values = merged
        self.counts = np.bincount(inverse, weights=weights, minlength=merged.size).astype(np.int64)

    def merge(self, other: "SummaryAccumulator") -> None:
        for name in self.FIXED:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        for c in record.mean_columns():
            key = f"{c.name}_sum"
            if hasattr(other, key):
                setattr(self, key, getattr(self, key, 0) + getattr(other, key))
            missing = other.absent.get(c.name, 0) + (0 if hasattr(other, key) else other.games)
            if missing:
                self.absent[c.name] = self.absent.get(c.name, 0) + missing
        self._merge(other.values, other.counts)

    def quantile(self, q: float) -> float | None:
        """numpy's default ('linear') quantile of all move counts."""
        if self.games == 0:
            return None
        position = q * (self.games - 1)
        lo = math.floor(position)
        frac = position - lo
        cumulative = np.cumsum(self.counts)
        value_lo = int(self.values[np.searchsorted(cumulative, lo, side="right")])
        if frac == 0:
            return float(value_lo)
        value_hi = int(self.values[np.searchsorted(cumulative, lo + 1, side="right")])
        return value_lo + (value_hi - value_lo) * frac

    def as_dict(self) -> dict:
        n = self.games
        if n == 0:
            mean = std = None
        else:
            mean = self.moves_sum / n
            # Exact integer numerator of the sample variance.
            std = math.sqrt((n * self.moves_sq_sum - self.moves_sum**2) / (n * (n - 1))) if n > 1 else 0.0
        return {
            "games": n,
            "wins": self.wins,
            "deaths": self.deaths,
            "stuck": self.stuck,
            "win_rate": self.wins / n if n else None,
            "win_rate_ci95": wilson_ci95(self.wins, n),
            "moves_mean": mean,
            "moves_mean_ci95": mean_ci95(n, mean, std),
            "moves_std": std,
            "moves_min": int(self.values[0]) if n else None,
            "moves_q25": self.quantile(0.25),
            "moves_median": self.quantile(0.5),
            "moves_q75": self.quantile(0.75),
            "moves_max": int(self.values[-1]) if n else None,
            **{f"{c.name}_mean": self.mean_of(c.name) for c in record.mean_columns()},
            "moves_mean_won": self.won_moves_sum / self.wins if self.wins else None,
            "total_moves": self.moves_sum,
        }

    def to_json(self) -> dict:
        """Whole numbers only (a chunk's footer; older readers set every key as an int): a column
        some games lack is written as ``<name>_absent``."""
        state = {k: v for k, v in vars(self).items() if k not in ("values", "counts", "absent")}
        state.update({f"{name}_absent": count for name, count in self.absent.items() if count})
        state["values"] = self.values.tolist()
        state["counts"] = self.counts.tolist()
        return state

    @classmethod
    def from_json(cls, state: dict) -> "SummaryAccumulator":
        """The accumulator `to_json` wrote; a "mean" column's sum that is not stored (statistics
        written before the column existed) makes it absent for those games, not zero."""
        acc = cls()
        for c in record.mean_columns():
            delattr(acc, f"{c.name}_sum")
        for key, value in state.items():
            if key in ("values", "counts"):
                setattr(acc, key, np.asarray(value, dtype=np.int64))
            elif key.endswith("_absent"):
                acc.absent[key[: -len("_absent")]] = int(value)
            else:
                setattr(acc, RENAMED_KEYS.get(key, key), int(value))
        for c in record.mean_columns():
            if not hasattr(acc, f"{c.name}_sum"):
                setattr(acc, f"{c.name}_sum", 0)
                acc.absent[c.name] = acc.games
        return acc


def __getattr__(name):
    # The summary table moved to `fastsnake.snake.present` with the other words and tables.
    if name in ("SUMMARY_COLUMNS", "summary_rows"):
        from fastsnake.snake import present

        warnings.warn(f"fastsnake.snake.stats.{name} moved to fastsnake.snake.present.{name}", DeprecationWarning,
                      stacklevel=2)
        return getattr(present, name)
    raise AttributeError(f"module 'fastsnake.snake.stats' has no attribute {name!r}")
