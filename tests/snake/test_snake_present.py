"""The presentation module (`fastsnake.snake.present`): one wording of each table and sentence for the
CLI and the report, one implementation of each statistic behind them; no game is played here."""

import csv
import io
import warnings

import numpy as np
import pytest

import fastsnake.snake as snake
from fastsnake.snake import api, intervals, present
from fastsnake.snake import report as rp
from fastsnake.snake.intervals import PairedAccumulator


def _summary(policy, rows, moves_mean, speed, games=100, **more):
    return dict({"policy": policy, "rows": rows, "cols": rows, "games": games, "deaths": 0, "stuck": 0,
                 "win_rate": 1.0, "moves_mean": moves_mean, "moves_std": 1.0, "moves_min": 1, "moves_q25": 1,
                 "moves_median": 1, "moves_q75": 1, "moves_max": 1, "apples_mean": 1.0, "games_per_second": 10.0,
                 "games_per_cpu_second": speed, "threads": 1}, **more)


def test_the_old_homes_still_answer_with_a_warning():
    with pytest.warns(DeprecationWarning, match="moved to fastsnake.snake.present.compare_lines"):
        assert api.compare_lines is present.compare_lines
    with pytest.warns(DeprecationWarning, match="present.summary_rows"):
        from fastsnake.snake.stats import summary_rows
    assert summary_rows is present.summary_rows
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the package's names are the new home: no warning
        assert snake.compare_rows is present.compare_rows and snake.summary_rows is present.summary_rows


def test_one_scaling_fit_for_the_api_and_the_report_and_a_board_without_timing_is_left_out():
    # 16x the moves for 4x the cells (exponent 2); the middle board has no timing (a sweep folder).
    summaries = [_summary("p", 10, 30.0, 1000.0), _summary("p", 20, 480.0, None),
                 _summary("p", 40, 7680.0, 1000 / 256)]
    fit = api.scaling(summaries)["p"]
    assert fit["moves_exponent"] == pytest.approx(2.0) and fit["cells"] == [100, 400, 1600]
    # The CPU fit uses the two timed boards (the old code read the missing one as 0 and fitted nothing).
    assert fit["cpu_exponent"] == pytest.approx(2.0) and fit["cpu_exponent_ci95"] is None
    page = rp._scaling([{"policy": "p", "summary": s} for s in summaries])["policies"][0]
    assert page["moves_fit"]["exponent"] == fit["moves_exponent"]
    assert page["cpu_seconds_per_game_fit"]["exponent"] == fit["cpu_exponent"]
    assert intervals.scaling_fit([100, 400], [0, 5]) is None  # one positive value left: no fit


def _paired(base_outcome, base_moves, this_outcome, this_moves, base_apples, this_apples):
    acc = PairedAccumulator()
    acc.add(np.array(base_outcome), np.array(base_moves), np.array(this_outcome), np.array(this_moves),
            np.array(base_apples), np.array(this_apples))
    return acc.as_dict("a", {1: "won", 2: "died", 3: "stuck"})


def test_the_all_games_apples_difference_is_scipys_paired_t_over_every_pair():
    from scipy import stats

    rng = np.random.default_rng(3)
    n = 60
    base_apples, this_apples = rng.integers(0, 30, n), rng.integers(0, 30, n)
    base_outcome, this_outcome = rng.choice([1, 2], n), rng.choice([1, 2], n)
    p = _paired(base_outcome, rng.integers(50, 90, n), this_outcome, rng.integers(50, 90, n), base_apples,
                this_apples)
    want = stats.ttest_rel(this_apples, base_apples)
    ci = want.confidence_interval()
    assert p["apples_pairs"] == n and p["games"] == ((base_outcome == 1) & (this_outcome == 1)).sum()
    assert p["apples_diff_mean"] == pytest.approx((this_apples - base_apples).mean())
    assert p["apples_diff_ci95"] == pytest.approx([ci.low, ci.high], rel=1e-9)
    assert p["apples_p_value"] == pytest.approx(want.pvalue, rel=1e-6)


def test_the_sentences_lead_with_every_game_when_the_win_rates_differ():
    # Hand-worked: 4 pairs; b wins 2 (games 0, 1), a wins all 4; both won games 0 and 1, where b
    # needs 10 and 20 moves fewer (mean -15); apples b - a: 0, 0, -5, -7 (mean -3).
    p = _paired([1, 1, 1, 1], [100, 100, 100, 100], [1, 1, 2, 2], [90, 80, 40, 30], [10, 10, 10, 10],
                [10, 10, 5, 3])
    lines = present.paired_sentences("b", "a", p)
    assert lines[0].startswith("b vs a: win rate −50.00 points, 95 % interval [")
    assert lines[0].endswith("], over all 4 paired games")
    assert lines[1].startswith("apples −3.00, 95 % interval [") and "over all 4 paired games" in lines[1]
    assert lines[2].startswith("−15.0 moves (−15.0 % ± ") and "over the 2 games both won of 4 paired" in lines[2]
    assert "fewer moves in 100.0%" in lines[2]
    # Both won every game: the moves lead, no win-rate or apples sentence.
    same = _paired([1, 1, 1], [10, 12, 14], [1, 1, 1], [11, 12, 15], [3, 3, 3], [3, 3, 3])
    (only,) = present.paired_sentences("b", "a", same)
    assert only.startswith("b vs a: +0.7 moves") and "win rate" not in only
    # The CLI's line for a summary is the same sentences joined.
    summary = _summary("b", 6, 1.0, None, paired=p)
    assert present.compare_lines([summary])[0] == "; ".join(lines)


def test_the_paired_table_shows_the_pairs_each_measure_uses():
    p = _paired([1, 1, 1, 1], [100, 100, 100, 100], [1, 1, 2, 2], [90, 80, 40, 30], [10, 10, 10, 10],
                [10, 10, 5, 3])
    header, rows = present.paired_rows([_summary("a", 6, 1.0, None), _summary("b", 6, 1.0, None, paired=p)])
    (row,) = rows
    cells = dict(zip(header, row, strict=True))
    assert cells["pairs"] == "4" and cells["both won"] == "2" and cells["baseline"] == "a"
    assert cells["win rate diff [95%]"].startswith("−50.00 pts [") and cells["moves diff [95%]"].startswith("−15.0 [")


def test_one_run_shows_no_speed_interval_and_repeats_show_the_median_and_its_interval():
    one = _summary("a", 6, 1.0, 35551.0, games_per_cpu_second_ci95=[-88640.0, 184977.0])
    header, rows = present.compare_rows([one])
    assert header[-2] == "games/CPU-s" and rows[0][-2] == "35,551"
    rep = _summary("a", 6, 1.0, 35551.0, repeats={"median": 36000.0, "median_ci95": [35000.0, 37000.0]})
    header, rows = present.compare_rows([rep])
    assert header[-2] == "games/CPU-s median [95%]" and rows[0][-2] == "36,000 [35,000, 37,000]"


@pytest.mark.parametrize("fmt", present.TABLE_FORMATS)
def test_every_table_format_holds_every_cell(fmt):
    header, rows = ["policy", "mean ±95%", "win %"], [["cycle_a", "2,425.3 ± 3.1", "97.50%"], ["b|c", "−1.0", "-"]]
    text = present.render_table(header, rows, fmt)
    if fmt == "csv":
        assert list(csv.reader(io.StringIO(text))) == [header] + rows
    elif fmt == "markdown":
        lines = text.splitlines()
        assert lines[0] == "| policy | mean ±95% | win % |" and lines[1] == "| --- | ---: | ---: |"
        assert lines[3] == "| b\\|c | −1.0 | - |"
    elif fmt == "latex":
        assert text.startswith("\\begin{tabular}{lrr}") and text.endswith("\\end{tabular}")
        assert "cycle\\_a & 2,425.3 $\\pm$ 3.1 & 97.50\\% \\\\" in text
    else:
        assert text.splitlines()[2].startswith("cycle_a")
    with pytest.raises(ValueError, match="format 'html'"):
        present.render_table(header, rows, "html")
