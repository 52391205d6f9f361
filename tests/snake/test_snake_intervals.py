"""The 95 % intervals of fastsnake.snake.intervals against scipy.stats, closed forms and a
published worked example; no game is played here."""

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lazy_modules import lazy

from fastsnake.snake.intervals import (
    PairedAccumulator,
    paired_proportion_diff_ci95,
    ratio_ci95,
    scaling_fit,
    wilson_ci95,
)
from fastsnake.snake.present import format_mean_ci, format_p, format_rate_ci
from fastsnake.snake.stats import SummaryAccumulator

stats = lazy("scipy.stats")  # imported by the first test that reads it (tests/lazy_modules.py)

moves_lists = st.lists(st.integers(1, 50_000), min_size=2, max_size=300)


@settings(deadline=None, max_examples=60)
@given(moves_lists)
def test_the_summary_mean_interval_is_scipys_one_sample_t_interval(moves):
    acc = SummaryAccumulator()
    outcome = np.ones(len(moves), dtype=np.int8)
    half = len(moves) // 2  # added in two chunks, as a sweep does
    acc.add(outcome[:half], moves[:half], np.zeros(half), np.zeros(half))
    acc.add(outcome[half:], moves[half:], np.zeros(len(moves) - half), np.zeros(len(moves) - half))
    ci = acc.as_dict()["moves_mean_ci95"]
    if np.ptp(moves) == 0:
        assert ci == [moves[0], moves[0]]
        return
    want = stats.ttest_1samp(moves, 0).confidence_interval(0.95)
    assert ci == pytest.approx([want.low, want.high], rel=1e-9, abs=1e-9)


def test_a_single_game_has_no_interval():
    acc = SummaryAccumulator()
    acc.add([1], [10], [0], [0])
    assert acc.as_dict()["moves_mean_ci95"] is None
    assert acc.as_dict()["win_rate_ci95"] == pytest.approx(wilson_ci95(1, 1))


def _wilson_closed_form(k, n):
    """Wilson (1927): the score interval, written out."""
    Z = stats.norm.ppf(0.975)
    p = k / n
    centre = (p + Z * Z / (2 * n)) / (1 + Z * Z / n)
    spread = Z / (1 + Z * Z / n) * math.sqrt(p * (1 - p) / n + Z * Z / (4 * n * n))
    return centre - spread, centre + spread


@settings(deadline=None, max_examples=80)
@given(st.integers(1, 10_000).flatmap(lambda n: st.tuples(st.integers(0, n), st.just(n))))
def test_the_win_rate_interval_is_wilsons(kn):
    k, n = kn
    lo, hi = wilson_ci95(k, n)
    want_lo, want_hi = _wilson_closed_form(k, n)
    assert (lo, hi) == pytest.approx((want_lo, want_hi), abs=1e-9)
    ci = stats.binomtest(k, n).proportion_ci(0.95, method="wilson")
    assert (lo, hi) == pytest.approx((ci.low, ci.high), abs=1e-12)


paired_games = st.integers(2, 200).flatmap(lambda n: st.tuples(
    st.lists(st.sampled_from([1, 1, 1, 2, 3]), min_size=n, max_size=n),
    st.lists(st.integers(1, 5000), min_size=n, max_size=n),
    st.lists(st.sampled_from([1, 1, 1, 2, 3]), min_size=n, max_size=n),
    st.lists(st.integers(1, 5000), min_size=n, max_size=n),
    st.integers(1, n - 1)))


@settings(deadline=None, max_examples=80)
@given(paired_games)
def test_the_paired_difference_is_scipys_paired_t_test_on_the_games_both_won(games):
    base_outcome, base_moves, this_outcome, this_moves, cut = (np.asarray(x) for x in games)
    acc = PairedAccumulator()
    acc.add(base_outcome[:cut], base_moves[:cut], this_outcome[:cut], this_moves[:cut])
    acc.add(base_outcome[cut:], base_moves[cut:], this_outcome[cut:], this_moves[cut:])
    entry = acc.as_dict("base", {1: "won", 2: "died", 3: "stuck"})
    both = (base_outcome == 1) & (this_outcome == 1)
    n = int(both.sum())
    assert entry["games"] == n and entry["games_total"] == len(base_outcome)
    a, b = this_moves[both], base_moves[both]
    if n >= 2 and np.ptp(a - b) > 0:
        test = stats.ttest_rel(a, b)
        ci = test.confidence_interval(0.95)
        assert entry["moves_diff_mean"] == pytest.approx(np.mean(a - b))
        assert entry["p_value"] == pytest.approx(test.pvalue, rel=1e-6, abs=1e-300)
        assert entry["moves_diff_ci95"] == pytest.approx([ci.low, ci.high], rel=1e-9, abs=1e-9)
        assert entry["moves_diff_pct"] == pytest.approx(100 * np.mean(a - b) / np.mean(b))
        assert entry["fewer_moves_share"] == pytest.approx(np.mean(a < b))
    won_this, won_base = this_outcome == 1, base_outcome == 1
    assert entry["win_rate_diff"] == pytest.approx(won_this.mean() - won_base.mean())
    lo, hi = entry["win_rate_diff_ci95"]
    assert -1 <= lo <= entry["win_rate_diff"] + 1e-12 and entry["win_rate_diff"] - 1e-12 <= hi <= 1
    names = {1: "won", 2: "died", 3: "stuck"}
    this_names, base_names = [names[o] for o in this_outcome], [names[o] for o in base_outcome]
    for key, count in entry["outcomes"].items():
        t, b = key.split("/")
        assert count == sum(x == t and y == b for x, y in zip(this_names, base_names, strict=True))
    assert sum(entry["outcomes"].values()) == len(base_outcome)
    again = PairedAccumulator.from_json(acc.to_json()).as_dict("base", {1: "won", 2: "died", 3: "stuck"})
    assert again == entry


def test_newcombes_worked_example():
    """Newcombe (1998), Statistics in Medicine 17:2635, table II, example (a): 36 pairs both yes,
    12 yes/no, 2 no/yes, 0 both no; method 10 gives 0.0569 to 0.3404."""
    lo, hi = paired_proportion_diff_ci95(36, 12, 2, 0)
    assert (round(lo, 4), round(hi, 4)) == (0.0569, 0.3404)


def _newcombe_slow(a, b, c, d):
    """Method 10 as the paper writes it: Wilson limits of each margin, phi of the 2x2 table."""
    n = a + b + c + d
    p1, p2 = (a + b) / n, (a + c) / n
    l2, u2 = _wilson_closed_form(a + b, n)
    l3, u3 = _wilson_closed_form(a + c, n)
    e, f, g, h = a + b, c + d, a + c, b + d
    phi = 0.0 if e * f * g * h == 0 else (a * d - b * c) / math.sqrt(e * f * g * h)
    theta = p1 - p2
    delta = math.sqrt(max((p1 - l2) ** 2 - 2 * phi * (p1 - l2) * (u3 - p2) + (u3 - p2) ** 2, 0))
    eps = math.sqrt(max((u2 - p1) ** 2 - 2 * phi * (u2 - p1) * (p2 - l3) + (p2 - l3) ** 2, 0))
    return max(theta - delta, -1), min(theta + eps, 1)


@settings(deadline=None, max_examples=100)
@given(st.tuples(*[st.integers(0, 400)] * 4).filter(lambda t: sum(t) > 0))
def test_the_win_rate_difference_interval_is_newcombes_method_10(table):
    assert paired_proportion_diff_ci95(*table) == pytest.approx(_newcombe_slow(*table), abs=1e-9)


@settings(deadline=None, max_examples=60)
@given(st.lists(st.integers(1, 10_000), min_size=2, max_size=50), st.floats(0.01, 10))
def test_speed_interval_of_equal_chunks_is_the_t_interval_of_their_rates(games, seconds):
    rates = np.asarray(games) / seconds
    ci = ratio_ci95(games, [seconds] * len(games))
    if np.ptp(rates) == 0:
        assert ci == pytest.approx([rates[0], rates[0]])
        return
    want = stats.ttest_1samp(rates, 0).confidence_interval(0.95)
    assert ci == pytest.approx([want.low, want.high], rel=1e-9)


def test_speed_interval_is_centred_on_the_whole_runs_figure():
    games, cpu = [100, 200, 400, 800], [0.11, 0.19, 0.42, 0.79]
    plain = ratio_ci95(games, cpu)
    centred = ratio_ci95(games, cpu, rate=1000.0)
    assert sum(plain) / 2 == pytest.approx(sum(games) / sum(cpu))
    assert sum(centred) / 2 == pytest.approx(1000.0)
    assert centred[1] - centred[0] == pytest.approx(plain[1] - plain[0])
    assert ratio_ci95([5], [1.0]) is None


@settings(deadline=None, max_examples=40)
@given(st.lists(st.integers(4, 65536), min_size=3, max_size=8, unique=True),
       st.lists(st.floats(0.5, 2.0), min_size=8, max_size=8), st.floats(0.5, 3.0))
def test_scaling_fit_is_the_least_squares_line_on_log_log(cells, noise, exponent):
    values = [2.5 * c ** exponent * noise[k] for k, c in enumerate(cells)]
    fit = scaling_fit(cells, values)
    x, y = np.log(cells), np.log(values)
    slope, intercept = np.polyfit(x, y, 1)
    residual = y - (slope * x + intercept)
    stderr = math.sqrt(residual @ residual / (len(x) - 2) / ((x - x.mean()) @ (x - x.mean())))
    t = stats.t.ppf(0.975, len(x) - 2)
    assert fit["exponent"] == pytest.approx(slope, rel=1e-7, abs=1e-9)
    assert fit["coefficient"] == pytest.approx(math.exp(intercept), rel=1e-6)
    assert fit["exponent_ci95"] == pytest.approx([slope - t * stderr, slope + t * stderr], rel=1e-6, abs=1e-9)


def test_scaling_fit_of_an_exact_power_law_and_two_sizes():
    fit = scaling_fit([100, 400], [30, 480])  # 16x the value for 4x the cells: exponent 2
    assert fit["exponent"] == pytest.approx(2.0) and fit["exponent_ci95"] is None
    assert scaling_fit([100], [3]) is None and scaling_fit([100, 400], [0, 5]) is None


def test_formats():
    assert format_mean_ci(2425.31, [2422.2, 2428.4]) == "2425.3 ± 3.1"
    assert format_mean_ci(5.0, None) == "5.0"
    assert format_rate_ci(0.975, [0.9682, 0.9818]) == "97.50% ± 0.68"
    assert format_rate_ci(1.0, [0.9982, 1.0]) == "100.00% +0.00/-0.18"
    assert format_p(0.0) == "p < 1e-300" and format_p(0.0123) == "p = 0.0123" and format_p(3e-9) == "p = 3.0e-09"
