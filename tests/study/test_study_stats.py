"""The study layer's statistics against scipy and hand-computed answers (no kernel compiles)."""

import csv
import io
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from fastsnake.study import describe, holm, median_ci95, p_fields, paired_ratio
from fastsnake.study.baseline import BaselineMismatch, check, compare_rows, same_trials
from fastsnake.study.precision import Figure, next_total, worst
from fastsnake.study.stats import P_FLOOR, iqm, robust, trimmed_mean
from fastsnake.study.tables import Table, p_cells, p_columns, paired_p_cells, render, to_csv

values = st.lists(st.floats(0.001, 1e6, allow_nan=False), min_size=2, max_size=60)


@settings(deadline=None, max_examples=60)
@given(values)
def test_describe_mean_interval_is_scipys_t_interval(xs):
    d = describe(xs)
    a = np.asarray(xs)
    assert d["mean"] == pytest.approx(a.mean())
    if a.std(ddof=1) > 0:
        lo, hi = stats.ttest_1samp(a, 0).confidence_interval(0.95)
        assert d["mean_ci95"] == pytest.approx([lo, hi], rel=1e-9, abs=1e-9)
    assert d["median"] == pytest.approx(np.median(a))


@settings(deadline=None, max_examples=60)
@given(st.integers(6, 300))
def test_median_interval_covers_at_least_95_percent_and_is_the_narrowest(n):
    xs = np.arange(n, dtype=float)  # x_(i) = i - 1
    lo, hi = median_ci95(xs)
    j = int(lo) + 1
    assert hi == n - j  # symmetric order statistics
    coverage = 1 - 2 * stats.binom.cdf(j - 1, n, 0.5)
    assert coverage >= 0.95 - 1e-12
    assert 1 - 2 * stats.binom.cdf(j, n, 0.5) < 0.95  # one step narrower would not cover


def _median_rank_by_comb(n):
    """The median interval's j as 0.2.0 computed it: a fresh ``math.comb`` per term (slow, plain)."""
    cum, j = 0, 0
    for i in range(n):
        cum += math.comb(n, i)
        if 2 * cum / 2 ** n > 1 - 0.95:
            break
        j = i + 1
    return j


def test_median_interval_ranks_are_the_plain_binomial_sums():
    from fastsnake.study.stats import _median_rank

    for n in [*range(1, 500), 999, 1000, 1001, 2048, 4095]:
        assert _median_rank(n) == _median_rank_by_comb(n), n
    xs = np.random.default_rng(0).permutation(3001).astype(float)
    j = _median_rank_by_comb(3001)
    assert median_ci95(xs) == [float(j - 1), float(3001 - j)]


def test_median_interval_needs_six_values():
    assert median_ci95([1, 2, 3, 4, 5]) is None
    assert median_ci95(range(10)) == [1.0, 8.0]  # the textbook x_(2), x_(9) for n = 10


# 30 examples: scipy's Wilcoxon test is exact by permutation for up to 13 tied pairs (up to 0.6 CPU-s a
# call, two calls an example), so 60 examples took 0.5-25 CPU-s as the draws fell.
@settings(deadline=None, max_examples=30)
@given(st.lists(st.tuples(st.integers(1, 10**7), st.integers(1, 10**7)), min_size=2, max_size=40))
def test_paired_ratio_is_the_geometric_mean_with_scipys_tests(pairs):
    a = np.array([p[0] for p in pairs], float)
    b = np.array([p[1] for p in pairs], float)
    r = paired_ratio(a, b)
    logs = np.log(a / b)
    assert r["ratio"] == pytest.approx(math.exp(logs.mean()), rel=1e-12)
    if logs.std(ddof=1) > 0:
        lo, hi = stats.ttest_1samp(logs, 0).confidence_interval(0.95)
        assert r["ratio_ci95"] == pytest.approx([math.exp(lo), math.exp(hi)], rel=1e-9)
    if np.any(logs != 0):
        assert r["p_value"] == pytest.approx(stats.wilcoxon(logs).pvalue)
    assert r["lower"] + r["equal"] + r["higher"] == r["n"] == len(pairs)


def test_paired_ratio_leaves_out_unfinished_and_zero_trials():
    r = paired_ratio([2.0, np.nan, 4.0, 0.0], [1.0, 1.0, 2.0, 3.0])
    assert r["n"] == 2 and r["excluded"] == 2 and r["ratio"] == pytest.approx(2.0)
    with pytest.raises(ValueError):
        paired_ratio([1, 2], [1, 2, 3])


def test_holm_by_hand():
    # sorted 0.01 (x3), 0.03 (x2), 0.04 (x1), made monotone
    assert holm([0.04, 0.01, 0.03]) == pytest.approx([0.06, 0.03, 0.06])
    assert holm([0.5, None, 0.9]) == [pytest.approx(1.0), None, pytest.approx(1.0)]


def test_a_p_value_below_a_float_is_a_bound():
    assert p_fields(0.0) == {"p_value": None, "p_bound": 5e-324}
    assert p_fields(0.2) == {"p_value": 0.2, "p_bound": None}


def test_csv_is_data():
    t = Table("x", ["name", "mean", "ci_low", "ci_high", *p_columns("p"), *p_columns("p_holm"), "ok", "gap"],
              [{"name": "a,b", "mean": -1234567.5, "ci_low": -2e-7, "ci_high": 3,
                **paired_p_cells(p_fields(0.0) | {"p_holm": 2 * P_FLOOR}), "ok": True, "gap": float("nan")}])
    text = to_csv(t)
    assert "−" not in text and "1,234" not in text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert float(rows[0]["mean"]) == -1234567.5 and float(rows[0]["ci_low"]) == -2e-7
    assert rows[0]["name"] == "a,b" and float(rows[0]["p"]) == 5e-324 and rows[0]["p_bound"] == "<"
    assert rows[0]["p_holm_bound"] == "<" and rows[0]["gap"] == ""  # Holm of a bound is a bound; nan is no value
    people = render([t], "text")
    assert "-1,234,568 [-2e-07, 3]" in people and people.count("< ") == 2 and "p_bound" not in people
    assert r"\begin{tabular}" in render([t], "latex") and "| name |" in render([t], "markdown")


def test_the_trimmed_and_interquartile_means_are_scipys_to_the_bit():
    rng = np.random.default_rng(3)
    for n in (1, 2, 5, 8, 101):
        x = rng.integers(0, 5000, n).astype(float)
        assert iqm(x) == stats.trim_mean(x, 0.25) and trimmed_mean(x) == stats.trim_mean(x, 0.10)
        batch = rng.random((7, n))  # the bootstrap's resamples, one a row
        assert np.array_equal(iqm(batch, axis=-1), stats.trim_mean(batch, 0.25, axis=-1))
    assert trimmed_mean([]) is None


def test_robust_aggregates_bootstrap_the_median_and_iqm():
    x = np.arange(40, dtype=float) ** 2
    r = robust(x)
    assert r["n"] == 40 and r["median"] == np.median(x) and r["iqm"] == stats.trim_mean(x, 0.25)
    assert r["median_ci95"][0] <= r["median"] <= r["median_ci95"][1]
    assert r["iqm_ci95"][0] <= r["iqm"] <= r["iqm_ci95"][1]
    assert robust(x) == r  # a seeded bootstrap: the same values give the same intervals
    assert robust([]) == {"n": 0, "median": None, "median_ci95": None, "iqm": None, "iqm_ci95": None}


def test_a_p_value_is_two_cells_value_and_bound():
    assert p_cells(0.03) == [0.03, "="] and p_cells(None, 1e-300) == [1e-300, "<"] and p_cells(None) == [None, None]
    assert paired_p_cells(p_fields(0.2) | {"p_holm": 0.4}) == {"p": 0.2, "p_bound": "=", "p_holm": 0.4,
                                                               "p_holm_bound": "="}


def test_the_baseline_check_flags_only_a_significant_increase():
    base = {("h", "nodes_generated"): list(range(10, 30))}
    same = check({("h", "nodes_generated"): list(range(10, 30))}, base)
    assert same["worse"] == [] and same["compared"] == 20
    more = check({("h", "nodes_generated"): [2 * x for x in range(10, 30)]}, base)
    assert len(more["worse"]) == 1 and more["checks"][0]["ratio"] == pytest.approx(2.0)
    fewer = check({("h", "nodes_generated"): [x // 2 for x in range(10, 30)]}, base)
    assert fewer["worse"] == []
    with pytest.raises(BaselineMismatch, match="nothing to compare"):
        check({("other", "nodes_generated"): [1, 2]}, base)
    with pytest.raises(BaselineMismatch, match="nothing to compare"):
        check({("h", "nodes_generated"): [np.nan] * 20}, base)


def test_same_trials_names_the_first_difference():
    same_trials({"1": {"goal": "0 1"}}, {"1": {"goal": "0 1"}})
    same_trials({"1": {}, "2": {}}, {"1": {}})  # coverage is the gate's matter (compare_rows)
    with pytest.raises(BaselineMismatch, match="not in the baseline"):
        same_trials({"2": {}}, {"1": {}})
    with pytest.raises(BaselineMismatch, match="goal"):
        same_trials({"1": {"goal": "0 1"}}, {"1": {"goal": "1 0"}})
    with pytest.raises(BaselineMismatch, match="no trials"):
        same_trials({"1": {}}, {})


def test_compare_rows_refuses_a_partial_comparison_unless_allowed():
    rng = np.random.default_rng(1)
    base = [{"a": a, "t": t, "o": "{}", "v": float(v)} for a in ("x",) for t, v in enumerate(rng.integers(5, 50, 12))]
    today = [dict(r) for r in base] + [{"a": "y", "t": t, "o": "{}", "v": 9.0} for t in range(12)]
    how = dict(key=lambda r: r["a"], trial=lambda r: r["t"], measures=lambda k: [("nodes", lambda r: r["v"])],
               conditions=("o",))
    with pytest.raises(BaselineMismatch, match=r"y: not in the baseline.*allow_partial=True"):
        compare_rows(today, base, **how)
    verdict = compare_rows(today, base, allow_partial=True, **how)
    assert verdict["coverage"] == {"keys": 1, "keys_total": 2, "instances": 12, "instances_total": 24}
    assert verdict["worse"] == [] and verdict["checks"][0]["n"] == 12 and verdict["unmatched"][0].startswith("y")
    assert verdict["headline"] == "compared 1 of 2 algorithms on 12 of 24 instance runs"
    # Other options: not the same conditions, never compared; nothing compared is refused even when allowed.
    other = [dict(r, o='{"max_nodes":1}') for r in base]
    with pytest.raises(BaselineMismatch, match="no algorithm of the run could be compared.*o differs"):
        compare_rows(other, base, allow_partial=True, **how)


def test_precision_rounds():
    assert next_total(100, 10_000, 2.0) == math.ceil(100 * 2.0 ** 2 * 1.1)  # 441: 1.1 is not exact
    assert next_total(100, 300, math.inf) == 300  # capped
    assert next_total(100, 10_000, 1.01) == 150  # at least x1.5
    assert worst([Figure("a", 1.0, 10.0), Figure("b", 3.0, 10.0)], 0.1).name == "b"


def test_scipy_stats_imported_behind_is_there_once_joined():
    import sys

    from fastsnake.study.stats import import_scipy_stats_behind

    thread = import_scipy_stats_behind()
    thread.join(60)
    assert not thread.is_alive() and thread.daemon and "scipy.stats" in sys.modules
