"""The plain-Python quantiles a sweep's intervals use (fastsnake.snake.quantiles) against scipy's."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lazy_modules import lazy

from fastsnake.snake.intervals import mean_ci95, ratio_ci95, wilson_ci95
from fastsnake.snake.quantiles import SERIES_MAX_DF, normal_ppf, t_ppf

special = lazy("scipy.special")  # imported by the first test that reads it (tests/lazy_modules.py)
stats = lazy("scipy.stats")  # imported by the first test that reads it (tests/lazy_modules.py)

probabilities = st.floats(1e-12, 1 - 1e-12).filter(lambda p: p != 0.5)
# Whole degrees of freedom, weighted towards both sides of the switch from the series to the expansion.
degrees = st.one_of(st.integers(1, 60), st.integers(SERIES_MAX_DF - 5, SERIES_MAX_DF + 5),
                    st.integers(1, 10**9))


@settings(deadline=None, max_examples=300)
@given(probabilities)
def test_the_normal_quantile_is_scipys(p):
    assert normal_ppf(p) == pytest.approx(special.ndtri(p), rel=1e-13, abs=1e-300)


def test_the_95_percent_normal_quantile_is_scipys_to_the_last_bit():
    assert normal_ppf(0.975) == special.ndtri(0.975)


@settings(deadline=None, max_examples=300)
@given(st.floats(1e-3, 1 - 1e-3).filter(lambda p: p != 0.5), degrees)
def test_the_t_quantile_is_scipys(p, df):
    assert t_ppf(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-12)


@settings(deadline=None, max_examples=100)
@given(st.sampled_from([1e-4, 1 - 1e-4, 1e-6, 1 - 1e-6]), degrees)
def test_the_t_quantile_holds_in_the_tails(p, df):
    assert t_ppf(p, df) == pytest.approx(stats.t.ppf(p, df), rel=1e-10)


@pytest.mark.parametrize("df", [1, 2, 3, 4, 10, 999, SERIES_MAX_DF, SERIES_MAX_DF + 1, 10**6])
def test_the_t_quantile_the_intervals_use(df):
    assert t_ppf(0.975, df) == pytest.approx(stats.t.ppf(0.975, df), rel=1e-13)
    assert t_ppf(0.5, df) == 0.0
    assert t_ppf(0.025, df) == -t_ppf(0.975, df)


@pytest.mark.parametrize("bad", [0.0, 1.0, -0.5, 2.0, math.nan])
def test_a_probability_outside_0_1_is_refused(bad):
    with pytest.raises(ValueError, match="0 < p < 1"):
        normal_ppf(bad)
    with pytest.raises(ValueError, match="0 < p < 1"):
        t_ppf(bad, 5)


@pytest.mark.parametrize("df", [0, -1, 2.5])
def test_degrees_of_freedom_must_be_whole_and_positive(df):
    with pytest.raises(ValueError, match="degrees of freedom"):
        t_ppf(0.9, df)


@settings(deadline=None, max_examples=100)
@given(st.integers(2, 10**9), st.floats(1, 1e5), st.floats(1e-3, 1e4))
def test_the_mean_interval_is_scipys_t_interval(games, mean, std):
    want = stats.t.interval(0.95, games - 1, loc=mean, scale=std / math.sqrt(games))
    assert mean_ci95(games, mean, std) == pytest.approx(list(want), rel=1e-13)


@settings(deadline=None, max_examples=100)
@given(st.integers(1, 10**9).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_the_wilson_interval_is_scipys(kn):
    k, n = kn
    ci = stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
    assert wilson_ci95(k, n) == [ci.low, ci.high]  # the same arithmetic: the same bits


def test_the_speed_interval_is_scipys_t_interval():
    games, seconds = [100, 120, 90, 110], [1.0, 1.1, 0.95, 1.05]
    ci = ratio_ci95(games, seconds)
    rate = sum(games) / sum(seconds)
    assert ci[0] < rate < ci[1]
    residual = [g - rate * s for g, s in zip(games, seconds, strict=True)]
    se = math.sqrt(sum(r * r for r in residual) / 12) / (sum(seconds) / 4)
    assert ci == pytest.approx(list(stats.t.interval(0.95, 3, loc=rate, scale=se)), rel=1e-13)
