"""95 % intervals and paired comparisons for sweep figures, from scipy.stats.

Every mean and rate a sweep, a compare or the report prints carries its interval:

- mean moves: the Student-t interval of the mean (`mean_ci95`);
- a rate (wins / games): the Wilson score interval (`wilson_ci95`);
- two policies on the same seeds (common random numbers: game k of every policy starts from the
  same per-game seed): `PairedAccumulator` collects, game by game, the outcome cross-table and the
  move differences over the games both won, in memory independent of the number of games; its
  `as_dict` gives the paired t interval and two-sided p of the mean difference, and Newcombe's
  hybrid score interval (his method 10, Statistics in Medicine 17, 1998) for the difference of two
  paired win rates.

A sweep's own intervals (`mean_ci95`, `wilson_ci95`, `ratio_ci95`) take their quantiles from
`fastsnake.snake.quantiles`, in plain Python: a sweep does not import scipy.stats (about 0.9 CPU-s).
The paired tests and the scaling fit import scipy inside the functions that compute them.
"""

from __future__ import annotations

import math

import numpy as np

CONFIDENCE = 0.95

# Outcome codes of a game record (fastsnake.snake.stats / engine).
_WON = 1


def mean_ci95(games: int, mean: float | None, std: float | None) -> list[float] | None:
    """The 95 % Student-t interval of a mean of `games` values with sample standard deviation `std`.

    Equal to ``scipy.stats.ttest_1samp(values, 0).confidence_interval()`` of the values. None when
    fewer than two values (no spread to estimate).
    """
    if games is None or games < 2 or mean is None or std is None:
        return None
    if std == 0:
        return [float(mean), float(mean)]
    return _t_interval(games - 1, mean, std / math.sqrt(games))


def _t_interval(df: int, loc: float, scale: float) -> list[float]:
    """``scipy.stats.t.interval(CONFIDENCE, df, loc, scale)``, from `quantiles.t_ppf`."""
    from fastsnake.snake.quantiles import t_ppf

    lo = t_ppf((1.0 - CONFIDENCE) / 2, df) * scale + loc
    hi = t_ppf((1.0 + CONFIDENCE) / 2, df) * scale + loc
    return [float(lo), float(hi)]


def wilson_ci95(successes: int, trials: int) -> list[float] | None:
    """The 95 % Wilson score interval of a rate `successes / trials` (None when `trials` is 0)."""
    if not trials:
        return None
    from fastsnake.snake.quantiles import normal_ppf

    # ``scipy.stats.binomtest(k, n).proportion_ci(CONFIDENCE, method="wilson")``, its arithmetic.
    k, n = int(successes), int(trials)
    p = k / n
    z = normal_ppf(0.5 + 0.5 * CONFIDENCE)
    denom = 2 * (n + z**2)
    center = (2 * n * p + z**2) / denom
    delta = z / denom * math.sqrt(4 * n * p * (1 - p) + z**2)
    return [0.0 if k == 0 else float(center - delta), 1.0 if k == n else float(center + delta)]


def half_width(interval) -> float | None:
    """Half the width of an interval [lo, hi] (None for None)."""
    if interval is None:
        return None
    return (interval[1] - interval[0]) / 2


def paired_proportion_diff_ci95(both: int, only_this: int, only_base: int, neither: int) -> list[float] | None:
    """Newcombe's hybrid score interval (method 10) for p_this - p_base on paired binary outcomes.

    `both`: games both policies won; `only_this`: won by this policy alone; `only_base`: by the
    baseline alone; `neither`: by neither. Built from the Wilson intervals of the two rates and the
    phi correlation of the 2x2 table, so it stays inside [-1, 1] and behaves at rates of 0 or 1,
    where the Wald interval collapses.
    """
    n = both + only_this + only_base + neither
    if n == 0:
        return None
    p1 = (both + only_this) / n
    p2 = (both + only_base) / n
    l1, u1 = wilson_ci95(both + only_this, n)
    l2, u2 = wilson_ci95(both + only_base, n)
    margins = (both + only_this) * (only_base + neither) * (both + only_base) * (only_this + neither)
    phi = (both * neither - only_this * only_base) / math.sqrt(margins) if margins else 0.0
    diff = p1 - p2
    lower = diff - math.sqrt(max((p1 - l1) ** 2 - 2 * phi * (p1 - l1) * (u2 - p2) + (u2 - p2) ** 2, 0.0))
    upper = diff + math.sqrt(max((u1 - p1) ** 2 - 2 * phi * (u1 - p1) * (p2 - l2) + (p2 - l2) ** 2, 0.0))
    return [max(lower, -1.0), min(upper, 1.0)]


def paired_t(count: int, diff_sum: int, diff_sq_sum: int):
    """(mean, sample std, 95 % t interval, two-sided p) of `count` paired differences from exact sums.

    Equal to ``scipy.stats.ttest_rel`` on the two samples (its p and ``confidence_interval()``).
    """
    if count == 0:
        return None, None, None, None
    mean = diff_sum / count
    if count < 2:
        return mean, None, None, None
    # Exact integer numerator of the sample variance, as in SummaryAccumulator.
    std = math.sqrt(max(count * diff_sq_sum - diff_sum * diff_sum, 0) / (count * (count - 1)))
    if std == 0:
        return mean, 0.0, [mean, mean], (1.0 if mean == 0 else 0.0)
    from scipy import stats

    scale = std / math.sqrt(count)
    lo, hi = stats.t.interval(CONFIDENCE, count - 1, loc=mean, scale=scale)
    p = float(2 * stats.t.sf(abs(mean / scale), count - 1))
    return mean, std, [float(lo), float(hi)], p


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


def ratio_ci95(numerators, denominators, rate: float | None = None) -> list[float] | None:
    """The 95 % interval of a rate sum(numerators) / sum(denominators) measured in repeated parts.

    Each part i (a timed chunk of a sweep) gives games or moves `numerators[i]` in CPU seconds
    `denominators[i]`. The rate is the ratio estimator R = sum(n) / sum(d); its standard error is
    the usual one of a ratio over sampled clusters (Cochran, Sampling Techniques, 6.9):
    sqrt(sum((n_i - R d_i)^2) / ((k - 1) k)) / mean(d), with the Student t quantile of k - 1
    degrees of freedom. With parts of equal `d` it is the t interval of the parts' rates. `rate`
    centres the interval on a figure measured over the whole (the parts' sums, by default). None
    with fewer than two parts or no time.
    """
    num = np.asarray(numerators, dtype=np.float64)
    den = np.asarray(denominators, dtype=np.float64)
    k = num.size
    if k < 2 or den.sum() <= 0:
        return None
    ratio = num.sum() / den.sum()
    rate = ratio if rate is None else rate
    residual = num - ratio * den
    se = math.sqrt(float(np.dot(residual, residual)) / ((k - 1) * k)) / den.mean()
    if se == 0:
        return [float(rate), float(rate)]
    return _t_interval(k - 1, rate, se)


def scaling_fit(cells, values) -> dict | None:
    """How `values` grow with the board: the least-squares line of log(value) on log(cells).

    Returns ``{"exponent", "exponent_ci95", "coefficient", "sizes"}``: value ~= coefficient *
    cells ** exponent; the 95 % t interval of the slope (``scipy.stats.linregress``'s standard
    error, n - 2 degrees of freedom) needs at least three distinct boards (None with two, however
    many times a board is given: a run counted twice is no evidence of a straight line). A board whose
    value is not positive and finite (no game timed, no mean) is left out of the fit, never read as
    a value; ``sizes`` counts the boards fitted. None with fewer than two distinct boards left.
    """
    x = np.asarray(cells, dtype=np.float64)
    y = np.asarray(values, dtype=np.float64)
    if x.size != y.size:
        raise ValueError("scaling_fit needs one value per board size")
    ok = (x > 0) & np.isfinite(y) & (y > 0)
    x, y = x[ok], y[ok]
    if x.size < 2 or np.unique(x).size < 2:
        return None
    from scipy import stats

    fit = stats.linregress(np.log(x), np.log(y))
    ci = None
    if np.unique(x).size >= 3:  # two boards (one of them counted twice, say) leave no error to estimate
        t = float(stats.t.ppf((1 + CONFIDENCE) / 2, x.size - 2))
        ci = [float(fit.slope - t * fit.stderr), float(fit.slope + t * fit.stderr)]
    return {"exponent": float(fit.slope), "exponent_ci95": ci, "coefficient": float(math.exp(fit.intercept)),
            "sizes": int(x.size)}


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
