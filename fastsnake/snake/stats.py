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
from fastsnake.snake.intervals import mean_ci95, wilson_ci95

WON, DIED, STUCK = 1, 2, 3

# Summary keys renamed (`fastsnake.renamed`; "losses" is "deaths", so that one word names a game that
# ends by collision): the old key still reads, with a DeprecationWarning, for a release. Stored sweep
# statistics written under the old name are read as the new one (`SummaryAccumulator.from_json`).


class Summary(dict):
    """A sweep's summary: a plain dict whose renamed keys (`RENAMED_KEYS`) still read, with a warning."""

    def __missing__(self, key):
        new = RENAMED_KEYS.get(key)
        if new is None or new not in self:
            raise KeyError(key)
        warnings.warn(f"summary[{key!r}] is deprecated; use summary[{new!r}]", DeprecationWarning, stacklevel=2)
        return self[new]

    def get(self, key, default=None):
        try:
            return self[key]
        except KeyError:
            return default


class SummaryAccumulator:
    def __init__(self):
        self.games = 0
        self.wins = 0
        self.deaths = 0
        self.stuck = 0
        self.moves_sum = 0
        self.moves_sq_sum = 0
        self.apples_sum = 0
        self.length_sum = 0
        self.won_moves_sum = 0
        self.values = np.zeros(0, dtype=np.int64)  # sorted distinct move counts
        self.counts = np.zeros(0, dtype=np.int64)

    def add(self, outcome, moves, apples, length) -> None:
        moves = np.asarray(moves, dtype=np.int64)
        outcome = np.asarray(outcome)
        won = outcome == WON
        self.games += int(moves.size)
        self.wins += int(won.sum())
        self.deaths += int((outcome == DIED).sum())
        self.stuck += int((outcome == STUCK).sum())
        values, counts = np.unique(moves, return_counts=True)
        # Python ints: exact whatever the total.
        self.moves_sum += int(moves.sum())
        self.moves_sq_sum += sum(int(v) * int(v) * int(c)
                                 for v, c in zip(values.tolist(), counts.tolist(), strict=True))
        self.won_moves_sum += int(moves[won].sum())
        self.apples_sum += int(np.asarray(apples, dtype=np.int64).sum())
        self.length_sum += int(np.asarray(length, dtype=np.int64).sum())
        self._merge(values, counts)

    def _merge(self, values, counts) -> None:
        both = np.concatenate([self.values, values])
        weights = np.concatenate([self.counts, counts])
        merged, inverse = np.unique(both, return_inverse=True)
        self.values = merged
        self.counts = np.bincount(inverse, weights=weights, minlength=merged.size).astype(np.int64)

    def merge(self, other: "SummaryAccumulator") -> None:
        for name in ("games", "wins", "deaths", "stuck", "moves_sum", "moves_sq_sum", "apples_sum",
                     "length_sum", "won_moves_sum"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
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
            "apples_mean": self.apples_sum / n if n else None,
            "moves_mean_won": self.won_moves_sum / self.wins if self.wins else None,
            "length_mean": self.length_sum / n if n else None,
            "total_moves": self.moves_sum,
        }

    def to_json(self) -> dict:
        state = {k: v for k, v in vars(self).items() if k not in ("values", "counts")}
        state["values"] = self.values.tolist()
        state["counts"] = self.counts.tolist()
        return state

    @classmethod
    def from_json(cls, state: dict) -> "SummaryAccumulator":
        acc = cls()
        for key, value in state.items():
            if key in ("values", "counts"):
                setattr(acc, key, np.asarray(value, dtype=np.int64))
            else:
                setattr(acc, RENAMED_KEYS.get(key, key), int(value))
        return acc


def __getattr__(name):
    # The summary table moved to `fastsnake.snake.present` with the other words and tables.
    if name in ("SUMMARY_COLUMNS", "summary_rows"):
        from fastsnake.snake import present

        warnings.warn(f"fastsnake.snake.stats.{name} moved to fastsnake.snake.present.{name}", DeprecationWarning,
                      stacklevel=2)
        return getattr(present, name)
    raise AttributeError(f"module 'fastsnake.snake.stats' has no attribute {name!r}")
