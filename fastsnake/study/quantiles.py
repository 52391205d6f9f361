"""Quantiles of the normal and Student t distributions in plain Python (no scipy).

Every study's summary carries 95 % intervals (`fastsnake.study.intervals`: the t interval of a
mean, Wilson's interval of a rate, the t interval of a speed). Importing ``scipy.stats`` for them
cost every Snake sweep about 0.9 CPU-s, more than a warm 1,000-game sweep itself; these two
quantile functions are all those intervals need. They agree with
``scipy.special.ndtri`` and ``scipy.stats.t.ppf`` to 1e-12 relative for p up to 0.9999 (3e-14 at
the 0.975 the intervals use)
(tests/snake/test_snake_quantiles.py draws both sides with hypothesis).

- `normal_ppf(p)`: Acklam's rational approximation (relative error 1.15e-9), then two Halley
  steps on ``math.erfc`` (about 1e-16).
- `t_ppf(p, df)` for a whole number of degrees of freedom `df` >= 1: Newton's method on the
  exact finite series of the t distribution (Abramowitz & Stegun 26.7.3 and 26.7.4, terms that
  are all positive, summed with `math.fsum`) up to `SERIES_MAX_DF`; above it, the Cornish-Fisher
  expansion in 1/df (A&S 26.7.5, four terms).
"""

from __future__ import annotations

import math

# Above this many degrees of freedom `t_ppf` uses the Cornish-Fisher expansion (its error falls as
# df^-5: 3e-16 relative at df = 1,000 for p = 0.975, 8e-14 for p = 0.9999); up to it, the finite
# series (df / 2 terms, under a millisecond; its rounding grows with df: 3e-14 at 1,000 for 0.975).
SERIES_MAX_DF = 1_000

# Acklam's coefficients (https://web.archive.org/web/2015/http://home.online.no/~pjacklam/notes/invnorm/).
_A = (-3.969683028665376e01, 2.209460984245205e02, -2.759285104469687e02, 1.383577518672690e02,
      -3.066479806614716e01, 2.506628277459239e00)
_B = (-5.447609879822406e01, 1.615858368580409e02, -1.556989798598866e02, 6.680131188771972e01,
      -1.328068155288572e01)
_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e00, -2.549732539343734e00,
      4.374664141464968e00, 2.938163982698783e00)
_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e00, 3.754408661907416e00)
_P_LOW = 0.02425


def _check_p(p: float) -> float:
    p = float(p)
    if not 0.0 < p < 1.0:
        raise ValueError(f"a quantile needs 0 < p < 1, got {p!r}")
    return p


def normal_ppf(p: float) -> float:
    """The `p` quantile of the standard normal distribution (``scipy.special.ndtri``)."""
    p = _check_p(p)
    if p < _P_LOW:
        q = math.sqrt(-2 * math.log(p))
        x = (((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]) / \
            ((((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1)
    elif p <= 1 - _P_LOW:
        q = p - 0.5
        r = q * q
        x = (((((_A[0] * r + _A[1]) * r + _A[2]) * r + _A[3]) * r + _A[4]) * r + _A[5]) * q / \
            (((((_B[0] * r + _B[1]) * r + _B[2]) * r + _B[3]) * r + _B[4]) * r + 1)
    else:
        q = math.sqrt(-2 * math.log1p(-p))
        x = -(((((_C[0] * q + _C[1]) * q + _C[2]) * q + _C[3]) * q + _C[4]) * q + _C[5]) / \
            ((((_D[0] * q + _D[1]) * q + _D[2]) * q + _D[3]) * q + 1)
    # Two Halley steps on the exact cdf (erfc: the upper tail through its complement, for accuracy).
    for _ in range(2):
        if abs(x) < 1:  # near the centre: p - 0.5 is exact (Sterbenz) and erf keeps relative accuracy
            err = 0.5 * math.erf(x / math.sqrt(2)) - (p - 0.5)
        elif x > 0:
            err = (1 - p) - 0.5 * math.erfc(x / math.sqrt(2))  # cdf(x) - p, exact 1 - p (p > 0.5)
        else:
            err = 0.5 * math.erfc(-x / math.sqrt(2)) - p
        u = err * math.sqrt(2 * math.pi) * math.exp(x * x / 2)
        x -= u / (1 + x * u / 2)
    return x


def _two_sided(t: float, df: int) -> float:
    """A(t | df) = P(|T| < t) for t >= 0, from the finite series (A&S 26.7.3 odd df, 26.7.4 even)."""
    theta = math.atan(t / math.sqrt(df))
    s, c = math.sin(theta), math.cos(theta)
    c2 = c * c
    if df % 2 == 0:
        terms, term = [1.0], 1.0
        for k in range(1, df // 2):
            term *= (2 * k - 1) / (2 * k) * c2
            terms.append(term)
        return s * math.fsum(terms)
    if df == 1:
        return 2 * theta / math.pi
    terms, term = [c], c
    for k in range(1, (df - 1) // 2):
        term *= (2 * k) / (2 * k + 1) * c2
        terms.append(term)
    return 2 / math.pi * (theta + s * math.fsum(terms))


def _cornish_fisher(z: float, df: float) -> float:
    """A&S 26.7.5: the t quantile from the normal one `z`, in powers of 1/df."""
    z2 = z * z
    g1 = (z2 + 1) * z / 4
    g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
    g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
    g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160
    return z + (g1 + (g2 + (g3 + g4 / df) / df) / df) / df


def t_ppf(p: float, df: int) -> float:
    """The `p` quantile of Student's t distribution with `df` degrees of freedom (``scipy.stats.t.ppf``),
    for a whole `df` >= 1."""
    p = _check_p(p)
    if df != int(df) or df < 1:
        raise ValueError(f"t_ppf needs a whole number of degrees of freedom >= 1, got {df!r}")
    df = int(df)
    if p < 0.5:
        return -t_ppf(1 - p, df)
    if p == 0.5:
        return 0.0
    if df == 1:
        return math.tan(math.pi * (p - 0.5))
    if df > SERIES_MAX_DF:
        return _cornish_fisher(normal_ppf(p), df)
    target = 2 * p - 1  # A(t) for the upper quantile
    # The density's constant, for Newton's steps (its rounding changes the steps, not the root).
    log_const = math.lgamma((df + 1) / 2) - math.lgamma(df / 2) - 0.5 * math.log(df * math.pi)
    lo, hi = 0.0, math.inf
    t = max(_cornish_fisher(normal_ppf(p), df), 1e-300)
    for _ in range(200):
        a = _two_sided(t, df)
        if a < target:
            lo = t
        else:
            hi = t
        if a == target:
            break
        slope = 2 * math.exp(log_const - (df + 1) / 2 * math.log1p(t * t / df))
        step = (target - a) / slope
        new = t + step
        if not lo < new < hi:  # Newton left the bracket: bisect (or double when unbounded)
            new = 2 * lo if hi == math.inf else (lo + hi) / 2
        if new == t or abs(new - t) <= 2e-16 * abs(t):
            t = new
            break
        t = new
    return t
