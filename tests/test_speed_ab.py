"""The A/B's statistics and argument checks (bench/speed/ab.py), on made-up figures: nothing here is timed."""

import importlib.util
import math
import random
from pathlib import Path

import pytest

AB_FILE = Path(__file__).resolve().parents[1] / "bench" / "speed" / "ab.py"


@pytest.fixture(scope="module")
def ab():
    spec = importlib.util.spec_from_file_location("speed_ab", AB_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def coverage_by_hand(n, j):
    """1 - 2 P(Binomial(n, 1/2) <= j - 1), summed term by term."""
    return 1 - 2 * sum(math.comb(n, i) * 0.5 ** n for i in range(j))


def test_nine_rounds_give_the_second_and_eighth_ratio_at_96_percent(ab):
    low, high, coverage = ab.median_interval([9, 1, 8, 2, 7, 3, 6, 4, 5])
    assert (low, high) == (2, 8)
    assert coverage == pytest.approx(coverage_by_hand(9, 2)) == pytest.approx(1 - 20 / 512)


@pytest.mark.parametrize("n", range(6, 40))
def test_the_interval_is_the_narrowest_with_at_least_95_percent(ab, n):
    low, high, coverage = ab.median_interval(list(range(1, n + 1)))
    j = low  # the values are 1..n, so x_(j) = j
    assert high == n + 1 - j
    assert coverage >= 0.95 and coverage == pytest.approx(coverage_by_hand(n, j))
    assert coverage_by_hand(n, j + 1) < 0.95 or j + 1 > n // 2  # one step narrower would miss 95 %


@pytest.mark.parametrize("n", range(1, 6))
def test_too_few_rounds_give_the_whole_range_and_say_its_coverage(ab, n):
    values = [random.Random(n).random() for _ in range(n)]
    low, high, coverage = ab.median_interval(values)
    assert (low, high) == (min(values), max(values))
    assert coverage < 0.95 and coverage == pytest.approx(coverage_by_hand(n, 1))


def test_the_interval_covers_the_true_median_about_as_often_as_it_says(ab):
    rng = random.Random(5)
    hits = sum(_covers(ab, rng) for _ in range(2000))
    assert 0.94 <= hits / 2000 <= 0.985  # 96.1 % claimed for 9 rounds


def _covers(ab, rng):
    low, high, _ = ab.median_interval([rng.lognormvariate(0, 0.1) for _ in range(9)])
    return low <= 1.0 <= high  # the median of lognormal(0, s) is 1


def test_ratios_are_taken_round_by_round_and_a_failed_round_is_left_out(ab):
    assert ab.round_ratios([100, 200, None, 50], [110, 100, 7, None]) == [1.1, 0.5]
    line = ab.summarize([100, 200, None, 50], [110, 100, 7, None])
    assert line["rounds"] == 2 and line["ratio"] == pytest.approx(0.8)
    assert line["before"] == 100 and line["after"] == 100  # medians of each side's own figures
    assert ab.summarize([None], [None])["ratio"] is None


def test_the_ratio_is_the_median_of_round_ratios_not_the_ratio_of_medians(ab):
    line = ab.summarize([1, 10, 100], [2, 10, 50])
    assert line["ratio"] == 1.0 and line["after"] / line["before"] == 1.0
    line = ab.summarize([1, 2, 4], [3, 2, 2])
    assert line["ratio"] == 1.0 and line["after"] / line["before"] == 1.0
    assert ab.summarize([1, 2, 4], [2, 3, 8])["ratio"] == 2.0


def test_rounds_of_different_counts_are_refused(ab):
    with pytest.raises(ab.ABError, match="rounds differ"):
        ab.round_ratios([1, 2], [1])


def test_bad_arguments_are_refused(ab):
    with pytest.raises(ab.ABError, match="--rounds"):
        ab.check_args(0, 3)
    with pytest.raises(ab.ABError, match="--repeat"):
        ab.check_args(9, 0)
    with pytest.raises(ab.ABError, match="confidence"):
        ab.median_interval([1.0], confidence=1.0)
    with pytest.raises(ab.ABError):
        ab.median_interval([])
    assert issubclass(ab.ABError, ValueError)


def test_only_picks_paths_by_substring_and_refuses_one_that_matches_none(ab):
    known = ["engine cycle 10x10", "policy cycle 10x10", "policy cycle 30x30", "env step grid", "tour knight"]
    assert ab.choose_paths(known, "cycle 30, env") == ["policy cycle 30x30", "env step grid"]
    assert ab.choose_paths(known, None) == [p for p in known if p in ab.HOT]
    with pytest.raises(ab.ABError, match="matches no path"):
        ab.choose_paths(known, "nothing")
    with pytest.raises(ab.ABError, match="names no path"):
        ab.choose_paths(known, " , ")


def test_every_default_path_is_a_path_the_children_can_time(ab):
    names = ab.known_paths()
    assert set(ab.HOT) <= set(names) and len(set(names)) == len(names)


def test_the_cli_says_what_is_wrong_and_exits_2(ab, capsys):
    assert ab.main(["--rounds", "3"]) == 2
    assert "ab: error: --before REV is required" in capsys.readouterr().err
    assert ab.main(["--before", "no-such-revision-anywhere"]) == 2
    assert "unknown revision" in capsys.readouterr().err
    assert ab.main(["--before", "HEAD", "--rounds", "0"]) == 2
    assert "--rounds must be at least 1" in capsys.readouterr().err
    assert ab.main(["--before", "HEAD", "--only", "nothing"]) == 2
    assert "matches no path" in capsys.readouterr().err
