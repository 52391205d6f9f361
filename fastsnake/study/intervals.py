"""95 % intervals of means, rates and ratios: the figures every study prints carry one.

- a mean: the Student-t interval (`mean_ci95`);
- a rate (successes / trials): the Wilson score interval (`wilson_ci95`);
- a paired difference of two rates (the same trials under two algorithms): Newcombe's hybrid score
  interval (his method 10, Statistics in Medicine 17, 1998; `paired_proportion_diff_ci95`);
- a paired mean difference from exact sums (`paired_t`);
- a rate measured in repeated parts, e.g. games or nodes per CPU-second (`ratio_ci95`);
- how a cost grows with the instance size (`scaling_fit`).

The t and normal quantiles come from `fastsnake.study.quantiles`, in plain Python: a summary does
not import scipy.stats (about 0.9 CPU-s); `paired_t` and `scaling_fit` import scipy inside.
Nothing here names a problem's columns (Snake's, puzzles', tours'): callers pass numbers.
"""

from __future__ import annotations

import math

import numpy as np

CONFIDENCE = 0.95


def mean_ci95(games: int, mean: float | None, std: float | None) -> list[float] | None:
    """The 95 % Student-t interval of a mean of `games` values with sample standard deviation `std`.

    Equal to ``scipy.stats.ttest_1samp(values, 0).confidence_interval()`` of the values. None when
    fewer than two values (no spread to estimate).
    """
    if games is None or games < 2 or mean is None or std is None:
        return None
    if std == 0:
        return [float(mean), float(mean)]
    return t_interval(games - 1, mean, std / math.sqrt(games))


def t_interval(df: int, loc: float, scale: float) -> list[float]:
    """``scipy.stats.t.interval(CONFIDENCE, df, loc, scale)``, from `quantiles.t_ppf`."""
    from fastsnake.study.quantiles import t_ppf

    lo = t_ppf((1.0 - CONFIDENCE) / 2, df) * scale + loc
    hi = t_ppf((1.0 + CONFIDENCE) / 2, df) * scale + loc
    return [float(lo), float(hi)]


def wilson_ci95(successes: int, trials: int) -> list[float] | None:
    """The 95 % Wilson score interval of a rate `successes / trials` (None when `trials` is 0)."""
    if not trials:
        return None
    from fastsnake.study.quantiles import normal_ppf

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

    `both`: trials both succeeded in; `only_this`: trials this one alone succeeded in; `only_base`:
    the baseline alone; `neither`: neither. Built from the Wilson intervals of the two rates and the
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


def ratio_ci95(numerators, denominators, rate: float | None = None) -> list[float] | None:
    """The 95 % interval of a rate sum(numerators) / sum(denominators) measured in repeated parts.

    Each part i (a timed chunk of a run) gives a count `numerators[i]` (games, moves, nodes) in CPU
    seconds `denominators[i]`. The rate is the ratio estimator R = sum(n) / sum(d); its standard error is
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
    return t_interval(k - 1, rate, se)


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
