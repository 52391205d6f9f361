"""Statistics of a study: algorithms run on shared instances (or seeds), one number per run.

Nothing here names a problem's columns: a caller hands arrays of values (nodes, CPU-seconds,
moves) and gets dicts of plain numbers, each estimate with its 95 % interval.

- `describe(values)`: n, mean with its Student-t interval, median with its distribution-free
  order-statistic interval (`median_ci95`), the quartiles, the 10 % trimmed mean, min and max;
- `paired_ratio(this, base)`: on the instances both finished, the geometric mean of the
  per-instance ratios this / base with the t interval of the mean log ratio (exponentiated), how
  many instances were lower, equal, higher, and Wilcoxon's signed-rank test of the log ratios;
- `robust(values)`: median and interquartile mean with percentile bootstrap intervals
  (`bootstrap_ci`); `repeat_summary(rates)`: a speed over repeated runs;
- `holm(p_values)`: Holm's step-down adjustment across the pairs of a study;
- `p_fields(p)`: a p-value as data: ``p_value`` and, when it is below what a float shows, the
  bound ``p_bound`` it is below.

Only `wilcoxon` and `bootstrap_ci` import scipy (inside the function: about 0.9 CPU-s at first use).
"""

from __future__ import annotations

import functools
import math
import sys

import numpy as np

from fastsnake.study.intervals import CONFIDENCE, mean_ci95, t_interval

# The smallest positive double: a p-value reported as 0.0 is below it (a bound, not a value).
P_FLOOR = sys.float_info.min * sys.float_info.epsilon
# The share cut from each end for the trimmed mean of `describe`, and for the interquartile mean.
TRIM = 0.10
IQM_TRIM = 0.25
# Bootstrap resamples of `bootstrap_ci`; a fixed generator seed, so that the same values give the
# same interval.
BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0


def _finite(values) -> np.ndarray:
    a = np.asarray(values, dtype=np.float64).ravel()
    return a[np.isfinite(a)]


def median_ci95(values) -> list[float] | None:
    """The distribution-free 95 % interval of the median: order statistics x_(j) and x_(n+1-j) with
    the largest j whose coverage 1 - 2 P(Binomial(n, 1/2) <= j - 1) is at least 95 % (exact
    binomial sums). None below 6 values (no such j)."""
    a = np.sort(_finite(values))
    n = a.size
    if n < 6:
        return None
    j = _median_rank(int(n))
    if j < 1:
        return None
    return [float(a[j - 1]), float(a[n - j])]


@functools.lru_cache(maxsize=256)
def _median_rank(n: int) -> int:
    """`median_ci95`'s j for n values: P(B <= i) for B ~ Binomial(n, 1/2) summed exactly in integers,
    each binomial coefficient from the one before (C(n, i+1) = C(n, i) (n - i) / (i + 1), exact): a
    study's group of 15,000 tours took 6 CPU-s with a fresh ``math.comb`` per term, now milliseconds."""
    alpha = 1 - CONFIDENCE
    total = 2 ** n
    term = 1  # C(n, 0)
    cum = 0
    j = 0
    for i in range(n):
        cum += term
        if 2 * cum / total > alpha:
            break
        j = i + 1  # 2 P(B <= i) <= alpha: x_(i+1) may bound the interval
        term = term * (n - i) // (i + 1)
    return j


def trimmed_mean(values, share: float = TRIM, axis: int = -1):
    """The mean of the values left after cutting ``int(share * n)`` of them from each end, along
    `axis` (scipy's ``trim_mean``, computed the same way: a partition, then the mean of the middle;
    vectorised, so `bootstrap_ci` can resample it). None when there are no values."""
    a = np.asarray(values, dtype=np.float64)
    n = a.shape[axis] if a.ndim else 0
    if n == 0:
        return None
    cut = int(share * n)
    middle = np.partition(a, (cut, n - cut - 1), axis)
    kept = np.take(middle, np.arange(cut, n - cut), axis=axis)
    mean = np.mean(kept, axis=axis)
    return float(mean) if np.ndim(mean) == 0 else mean


def iqm(values, axis: int = -1):
    """The interquartile mean: the mean of the middle half (rliable's IQM, `trimmed_mean` at 25 %)."""
    return trimmed_mean(values, IQM_TRIM, axis)


def _median(values, axis: int = -1):
    return np.median(values, axis=axis)


def bootstrap_ci(values, statistic) -> list[float] | None:
    """The percentile bootstrap 95 % interval of `statistic` (a function of an array and ``axis``)
    over `values`: `BOOTSTRAP_RESAMPLES` resamples from a generator seeded with `BOOTSTRAP_SEED`, so
    the same values give the same interval. None below two values; [v, v] when all are v."""
    values = np.asarray(values, dtype=np.float64)
    if values.size < 2:
        return None
    if np.all(values == values[0]):
        return [float(values[0]), float(values[0])]
    from scipy import stats

    res = stats.bootstrap((values,), statistic, confidence_level=CONFIDENCE, n_resamples=BOOTSTRAP_RESAMPLES,
                          method="percentile", vectorized=True, rng=np.random.default_rng(BOOTSTRAP_SEED))
    return [float(res.confidence_interval.low), float(res.confidence_interval.high)]


def robust(values) -> dict:
    """Median and interquartile mean of `values`, each with its percentile bootstrap 95 % interval
    (`bootstrap_ci`): ``{"n", "median", "median_ci95", "iqm", "iqm_ci95", "method"}``."""
    a = np.asarray(values, dtype=np.float64)
    if a.size == 0:
        return {"n": 0, "median": None, "median_ci95": None, "iqm": None, "iqm_ci95": None}
    return {"n": int(a.size), "median": float(np.median(a)), "median_ci95": bootstrap_ci(a, _median),
            "iqm": iqm(a), "iqm_ci95": bootstrap_ci(a, iqm),
            "method": f"percentile bootstrap, {BOOTSTRAP_RESAMPLES} resamples"}


def repeat_summary(rates, warmup: int = 0) -> dict:
    """A speed measured in repeated runs (one rate a run): ``{"runs", "warmup", "values", "min",
    "median", "max", "median_ci95", "method"}``; the interval is the percentile bootstrap of the
    median across runs (`bootstrap_ci`), clipped at zero (a speed is never negative)."""
    values = np.asarray(rates, dtype=np.float64)
    ci = bootstrap_ci(values, _median)
    if ci is not None:
        ci = [max(ci[0], 0.0), max(ci[1], 0.0)]
    return {"runs": int(values.size), "warmup": int(warmup), "values": values.tolist(),
            "min": float(values.min()), "median": float(np.median(values)), "max": float(values.max()),
            "median_ci95": ci, "method": "percentile bootstrap of the median over runs"}


def describe(values) -> dict:
    """n, mean and its 95 % t interval, sample std, median and its 95 % order-statistic interval,
    quartiles (q1, q3), the 10 % trimmed mean, min and max of the finite `values` (None when empty)."""
    a = _finite(values)
    n = int(a.size)
    if n == 0:
        return {"n": 0, "mean": None, "mean_ci95": None, "std": None, "median": None, "median_ci95": None,
                "q1": None, "q3": None, "trimmed_mean": None, "min": None, "max": None}
    mean = float(a.mean())
    std = float(a.std(ddof=1)) if n > 1 else None
    q1, med, q3 = (float(x) for x in np.quantile(a, [0.25, 0.5, 0.75]))
    return {"n": n, "mean": mean, "mean_ci95": mean_ci95(n, mean, std), "std": std,
            "median": med, "median_ci95": median_ci95(a), "q1": q1, "q3": q3,
            "trimmed_mean": trimmed_mean(a), "min": float(a.min()), "max": float(a.max())}


def geometric_mean_ci95(ratios) -> tuple[float | None, list[float] | None]:
    """(geometric mean, its 95 % interval) of positive `ratios`: the t interval of the mean log,
    exponentiated. (None, None) when empty; the interval None below two ratios."""
    logs = np.log(np.asarray(ratios, dtype=np.float64))
    n = logs.size
    if n == 0:
        return None, None
    mean = float(logs.mean())
    if n < 2:
        return math.exp(mean), None
    std = float(logs.std(ddof=1))
    if std == 0:
        return math.exp(mean), [math.exp(mean), math.exp(mean)]
    lo, hi = t_interval(n - 1, mean, std / math.sqrt(n))
    return math.exp(mean), [math.exp(lo), math.exp(hi)]


def import_scipy_stats_behind():
    """Start importing ``scipy.stats`` (what `wilcoxon` and `bootstrap_ci` import: about 1 CPU-s) on a
    thread of its own, and return the thread: a study run on workers calls it while they search,
    so that its summary need not import it after them, alone on the critical path. `join` the
    thread before the summary (a failed import is left to the summary's own, which says why)."""
    import threading

    def load():
        try:
            import scipy.stats  # noqa: F401
        except Exception:  # noqa: BLE001 - the summary imports it again and reports the error
            pass

    thread = threading.Thread(target=load, name="fastsnake-import-scipy", daemon=True)
    thread.start()
    return thread


def wilcoxon(differences) -> float | None:
    """The two-sided p-value of Wilcoxon's signed-rank test that the `differences` are centred on 0
    (``scipy.stats.wilcoxon``, zeros dropped as Wilcoxon did; exact below 50 pairs without ties,
    the normal approximation above). 1.0 when every difference is 0; None when there are none."""
    d = _finite(differences)
    if d.size == 0:
        return None
    if not np.any(d != 0):
        return 1.0
    from scipy import stats

    return float(stats.wilcoxon(d, zero_method="wilcox").pvalue)


def paired_ratio(this, base) -> dict:
    """This algorithm against a baseline on the same instances: `this[i]` and `base[i]` are one
    instance's values (nan where either did not finish). On the instances both finished with
    positive values: ``n``, the geometric mean of this / base (``ratio``) with its 95 % interval
    (``ratio_ci95``), ``lower`` / ``equal`` / ``higher`` counts, and Wilcoxon's signed-rank test of
    the log ratios (``p_value``, ``p_bound``: see `p_fields`). ``excluded``: instances left out
    (one side missing, or a value of 0 whose ratio is not defined)."""
    a = np.asarray(this, dtype=np.float64).ravel()
    b = np.asarray(base, dtype=np.float64).ravel()
    if a.shape != b.shape:
        raise ValueError(f"paired values must cover the same instances: {a.size} and {b.size}")
    ok = np.isfinite(a) & np.isfinite(b) & (a > 0) & (b > 0)
    ratios = a[ok] / b[ok]
    gm, ci = geometric_mean_ci95(ratios)
    p = wilcoxon(np.log(ratios)) if ratios.size else None
    return {"n": int(ratios.size), "excluded": int(a.size - ratios.size), "ratio": gm, "ratio_ci95": ci,
            "lower": int((ratios < 1).sum()), "equal": int((ratios == 1).sum()),
            "higher": int((ratios > 1).sum()), **p_fields(p)}


def holm(p_values) -> list[float | None]:
    """Holm's step-down adjustment of a family of p-values (None entries are skipped and stay None):
    the k-th smallest of m is multiplied by m - k + 1, made non-decreasing, capped at 1."""
    indexed = [(p, i) for i, p in enumerate(p_values) if p is not None]
    m = len(indexed)
    out: list[float | None] = [None] * len(p_values)
    running = 0.0
    for k, (p, i) in enumerate(sorted(indexed)):
        running = max(running, min(1.0, (m - k) * p))
        out[i] = running
    return out


def p_fields(p: float | None) -> dict:
    """A p-value as data: ``{"p_value": p, "p_bound": None}``, or, when p is below what a float
    shows (a test's 0.0), ``{"p_value": None, "p_bound": P_FLOOR}`` (p < p_bound)."""
    if p is not None and p <= 0.0:
        return {"p_value": None, "p_bound": P_FLOOR}
    return {"p_value": p, "p_bound": None}


def p_of(fields: dict) -> float | None:
    """The p-value of `p_fields`' dict, a bound taken as its value (for ordering and Holm)."""
    return fields["p_value"] if fields.get("p_value") is not None else fields.get("p_bound")
