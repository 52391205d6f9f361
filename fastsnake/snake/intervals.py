"""95 % intervals and paired comparisons for sweep figures.

Every mean and rate a sweep, a compare or the report prints carries its interval. The generic
intervals (`mean_ci95`, `wilson_ci95`, `ratio_ci95`, `paired_t`, Newcombe's
`paired_proportion_diff_ci95`, `scaling_fit`) live in `fastsnake.study.intervals`, shared by every
problem's studies, and are re-exported here. This module keeps what names Snake's games:

- two policies on the same seeds (common random numbers: game k of every policy starts from the
  same per-game seed): `PairedAccumulator` collects, game by game, the outcome cross-table and the
  move differences over the games both won, in memory independent of the number of games; its
  `as_dict` gives the paired t interval and two-sided p of the mean difference, and Newcombe's
  hybrid score interval for the difference of two paired win rates;
- `growth_by_policy`: how each policy's moves and CPU cost grow with the board.
"""

from __future__ import annotations

import math

import numpy as np

from fastsnake.study.intervals import (
    CONFIDENCE,
    half_width,
    mean_ci95,
    paired_proportion_diff_ci95,
    paired_t,
    ratio_ci95,
    scaling_fit,
    t_interval,
    wilson_ci95,
)

__all__ = ["CONFIDENCE", "PairedAccumulator", "growth_by_policy", "half_width", "mean_ci95",
           "paired_proportion_diff_ci95", "paired_t", "ratio_ci95", "scaling_fit", "t_interval", "wilson_ci95"]

# Outcome codes of a game record (fastsnake.snake.stats / engine).
_WON = 1


class PairedAccumulator:
    """One policy against a baseline, game by game on the same seeds, in constant memory.

    `add` takes the two policies' outcome and moves arrays for the same games (game k of both);
    call it chunk by chunk in any order. Sums are Python ints, exact at any size.
    """

    def __init__(self):
        self.games = 0
        # Outcome cross-table by win: [this won][baseline won].
        self.won_won = self.won_lost = self.lost_won = self.lost_lost = 0
        # Over the games both won: differences this - baseline.
        self.diff_sum = 0
        self.diff_sq_sum = 0
        self.base_moves_sum = 0
        self.fewer = 0
        self.equal = 0
        # Over every paired game (no survivor bias): apples eaten, this - baseline.
        self.apples_pairs = 0
        self.apples_diff_sum = 0
        self.apples_diff_sq_sum = 0
        # Full outcome cross-table, (this outcome, baseline outcome) -> games.
        self.outcomes: dict[tuple[int, int], int] = {}

    def add(self, base_outcome, base_moves, this_outcome, this_moves, base_apples=None, this_apples=None) -> None:
        """Fold in paired games; with the apples of both (`base_apples`, `this_apples`) the
        all-games apples difference is kept too."""
        base_outcome = np.asarray(base_outcome)
        this_outcome = np.asarray(this_outcome)
        base_moves = np.asarray(base_moves, dtype=np.int64)
        this_moves = np.asarray(this_moves, dtype=np.int64)
        if not (base_outcome.shape == this_outcome.shape == base_moves.shape == this_moves.shape):
            raise ValueError("paired records must cover the same games")
        base_won = base_outcome == _WON
        this_won = this_outcome == _WON
        self.games += int(base_outcome.size)
        self.won_won += int((this_won & base_won).sum())
        self.won_lost += int((this_won & ~base_won).sum())
        self.lost_won += int((~this_won & base_won).sum())
        self.lost_lost += int((~this_won & ~base_won).sum())
        both = this_won & base_won
        diff = this_moves[both] - base_moves[both]
        self.diff_sum += int(diff.sum())
        self.diff_sq_sum += int(np.dot(diff, diff)) if diff.size < 2**20 else sum(
            int(np.dot(part, part)) for part in np.array_split(diff, diff.size // 2**20 + 1))
        self.base_moves_sum += int(base_moves[both].sum())
        self.fewer += int((diff < 0).sum())
        self.equal += int((diff == 0).sum())
        if base_apples is not None and this_apples is not None:
            apples = np.asarray(this_apples, dtype=np.int64) - np.asarray(base_apples, dtype=np.int64)
            if apples.shape != base_outcome.shape:
                raise ValueError("paired records must cover the same games")
            self.apples_pairs += int(apples.size)
            self.apples_diff_sum += int(apples.sum())
            self.apples_diff_sq_sum += int(np.dot(apples, apples))
        pairs, counts = np.unique(np.stack([this_outcome.astype(np.int64), base_outcome.astype(np.int64)]),
                                  axis=1, return_counts=True)
        for (this_code, base_code), count in zip(pairs.T.tolist(), counts.tolist(), strict=True):
            key = (int(this_code), int(base_code))
            self.outcomes[key] = self.outcomes.get(key, 0) + int(count)

    def as_dict(self, baseline: str, outcome_names: dict[int, str] | None = None) -> dict:
        """The `paired` entry of a compare row: see docs/sweeps.md, "Paired comparisons"."""
        both_won = self.won_won
        mean, std, ci, p = paired_t(both_won, self.diff_sum, self.diff_sq_sum)
        base_mean = self.base_moves_sum / both_won if both_won else None
        pct = pct_ci = None
        if mean is not None and base_mean:
            pct = 100 * mean / base_mean
            pct_ci = None if ci is None else [100 * ci[0] / base_mean, 100 * ci[1] / base_mean]
        n = self.games
        win_diff = (self.won_lost - self.lost_won) / n if n else None
        names = outcome_names or {}
        apples_mean, apples_std, apples_ci, apples_p = paired_t(self.apples_pairs, self.apples_diff_sum,
                                                                self.apples_diff_sq_sum)
        return {
            "baseline": baseline,
            "games": both_won,
            "games_total": n,
            "moves_diff_mean": mean,
            "moves_diff_std": std,
            "moves_diff_ci95": ci,
            "moves_diff_pct": pct,
            "moves_diff_pct_ci95": pct_ci,
            "baseline_moves_mean": base_mean,
            "p_value": p,
            "fewer_moves_share": self.fewer / both_won if both_won else None,
            "fewer_moves_share_ci95": wilson_ci95(self.fewer, both_won),
            "equal_moves_share": self.equal / both_won if both_won else None,
            "win_rate_diff": win_diff,
            "win_rate_diff_ci95": paired_proportion_diff_ci95(self.won_won, self.won_lost, self.lost_won,
                                                              self.lost_lost),
            "win_rate_diff_method": "newcombe-hybrid-score",
            "apples_pairs": self.apples_pairs,
            "apples_diff_mean": apples_mean,
            "apples_diff_std": apples_std,
            "apples_diff_ci95": apples_ci,
            "apples_p_value": apples_p,
            "outcomes": {f"{names.get(t, t)}/{names.get(b, b)}": c for (t, b), c in sorted(self.outcomes.items())},
        }

    def to_json(self) -> dict:
        state = dict(vars(self))
        state["outcomes"] = [[t, b, c] for (t, b), c in self.outcomes.items()]
        return state

    @classmethod
    def from_json(cls, state: dict) -> "PairedAccumulator":
        acc = cls()
        for key, value in state.items():
            if key == "outcomes":
                acc.outcomes = {(int(t), int(b)): int(c) for t, b, c in value}
            else:
                setattr(acc, key, int(value))
        return acc


def growth_by_policy(summaries: list[dict]) -> dict[str, dict]:
    """How each policy's cost grows with the board over `summaries` (sweep summaries of several
    board sizes): ``{policy: {"moves_exponent", "moves_exponent_ci95", "cpu_exponent",
    "cpu_exponent_ci95", "sizes", "cells", "moves_fit", "cpu_seconds_per_game_fit"}}``, where mean
    moves ~ cells^moves_exponent and CPU seconds per game (1 / games per CPU-second) ~
    cells^cpu_exponent (`scaling_fit`, whose fits are ``moves_fit`` and
    ``cpu_seconds_per_game_fit``). ``cells`` are the policy's boards, smallest first; a board with
    no timing or no mean is left out of that fit. The one implementation `fastsnake.snake.scaling`
    and the report's scaling view share.
    """
    by_policy: dict[str, list[dict]] = {}
    for s in summaries:
        by_policy.setdefault(s["policy"], []).append(s)
    fits = {}
    for name, group in by_policy.items():
        group = sorted(group, key=lambda m: m["rows"] * m["cols"])
        cells = [m["rows"] * m["cols"] for m in group]
        moves = scaling_fit(cells, [m["moves_mean"] if m.get("moves_mean") is not None else math.nan for m in group])
        cost = scaling_fit(cells, [1 / m["games_per_cpu_second"] if m.get("games_per_cpu_second") else math.nan
                                   for m in group])
        fits[name] = {
            "moves_exponent": None if moves is None else moves["exponent"],
            "moves_exponent_ci95": None if moves is None else moves["exponent_ci95"],
            "cpu_exponent": None if cost is None else cost["exponent"],
            "cpu_exponent_ci95": None if cost is None else cost["exponent_ci95"],
            "sizes": len(cells),
            "cells": cells,
            "moves_fit": moves,
            "cpu_seconds_per_game_fit": cost,
        }
    return fits
