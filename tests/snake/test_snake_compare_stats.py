"""Intervals, paired comparisons, precision on demand and several board sizes in `sweep` and
`compare`: every figure printed or returned equals scipy's computed from the run's own per-game
records (read back from its --out file or its table). Small boards and few games."""

import json
import re

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from lazy_modules import lazy

import fastsnake
from fastsnake.cli import main
from fastsnake.snake.api import timing_free
from fastsnake.snake.intervals import half_width
from fastsnake.snake.present import format_mean_ci, format_p

stats = lazy("scipy.stats")  # imported by the first test that reads it (tests/lazy_modules.py)

# cycle and snake-ai-safe never lose (their moves pair on every game), greedy mostly dies.
POLICIES = "cycle,snake-ai-safe,greedy"


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _records(table, policy):
    # Every sweep file carries a `policy` column; a compare table has one too.
    rows = table if policy is None else table.filter(pc.equal(table.column("policy"), policy))
    return (np.asarray(rows.column("outcome").cast("string").to_pylist()), rows.column("moves").to_numpy())


def _t_interval(values):
    ci = stats.ttest_1samp(values, 0).confidence_interval(0.95)
    return [ci.low, ci.high]


def _wilson(k, n):
    ci = stats.binomtest(int(k), int(n)).proportion_ci(0.95, method="wilson")
    return [ci.low, ci.high]


def test_sweep_intervals_are_scipys_from_its_own_records(tmp_path, capsys):
    out = tmp_path / "s.parquet"
    code, text, _ = _run(capsys, "sweep", "--policy", "greedy", "--size", "6", "--games", "400", "--seed", "3",
                         "--out", str(out), "--json")
    assert code == 0
    summary = json.loads(text)
    outcome, moves = _records(pq.read_table(out), None)
    assert summary["moves_mean_ci95"] == pytest.approx(_t_interval(moves), rel=1e-9)
    assert summary["win_rate_ci95"] == pytest.approx(_wilson((outcome == "won").sum(), len(outcome)), abs=1e-12)
    # the text table shows the same interval as its half-width
    code, text, _ = _run(capsys, "sweep", "--policy", "greedy", "--size", "6", "--games", "400", "--seed", "3")
    assert format_mean_ci(float(moves.mean()), _t_interval(moves)) in text
    for key in ("games_per_cpu_second_ci95", "moves_per_cpu_second_ci95"):
        lo, hi = summary[key] or (None, None)
        if lo is not None:  # two timed chunks or more
            rate = summary[key.replace("_ci95", "")]
            assert lo <= rate <= hi


def test_the_chunks_timed_add_up_to_the_sweep():
    from fastsnake.snake.board import GameConfig
    from fastsnake.snake.sweep import run_sweep, summarize

    run = run_sweep("greedy", GameConfig(6, 6), 230, seed=1, chunk_size=50)
    games, moves, wall, cpu = (np.asarray(c) for c in zip(*run.chunk_times, strict=True))
    assert games.tolist() == [50, 50, 50, 50, 30] and moves.sum() == run.moves.sum()
    assert wall.sum() <= run.seconds and cpu.sum() <= run.cpu_seconds + 1e-3
    summary = summarize(run)
    assert summary["timed_chunks"] == 5
    # Five chunks of one run are no interval of its speed (the chunks' spread is not the runs'):
    # the old ratio interval went below zero. Repeated runs give one (`repeat`).
    assert summary["games_per_cpu_second_ci95"] is None and summary["moves_per_cpu_second_ci95"] is None


def test_compare_pairs_every_policy_with_the_baseline_as_scipys_paired_t_test(tmp_path, capsys):
    out = tmp_path / "c.parquet"
    code, text, _ = _run(capsys, "compare", "--size", "6", "--games", "300", "--seed", "2", "--policies", POLICIES,
                         "--out", str(out), "--json")
    assert code == 0
    rows = json.loads(text)
    table = pq.read_table(out)
    assert "paired" not in rows[0] or rows[0]["paired"] is None
    base_outcome, base_moves = _records(table, "cycle")
    for row in rows:
        outcome, moves = _records(table, row["policy"])
        assert row["moves_mean_ci95"] == pytest.approx(_t_interval(moves), rel=1e-9)
        assert row["win_rate_ci95"] == pytest.approx(_wilson((outcome == "won").sum(), len(outcome)), abs=1e-12)
        if row["policy"] == "cycle":
            continue
        p = row["paired"]
        both = (outcome == "won") & (base_outcome == "won")
        assert p["baseline"] == "cycle" and p["games"] == both.sum() and p["games_total"] == 300
        assert p["win_rate_diff"] == pytest.approx((outcome == "won").mean() - (base_outcome == "won").mean())
        assert p["win_rate_diff_method"] == "newcombe-hybrid-score"
        assert sum(p["outcomes"].values()) == 300
        if both.sum() >= 2:
            test = stats.ttest_rel(moves[both], base_moves[both])
            ci = test.confidence_interval(0.95)
            assert p["moves_diff_mean"] == pytest.approx((moves[both] - base_moves[both]).mean())
            assert p["moves_diff_ci95"] == pytest.approx([ci.low, ci.high], rel=1e-9)
            assert p["p_value"] == pytest.approx(test.pvalue, rel=1e-6, abs=1e-300)
            assert p["fewer_moves_share"] == pytest.approx((moves[both] < base_moves[both]).mean())
    safe = rows[1]["paired"]
    assert safe["games"] == 300  # both never lose: every game pairs
    code, text, _ = _run(capsys, "compare", "--size", "6", "--games", "300", "--seed", "2", "--policies", POLICIES)
    line = next(x for x in text.splitlines() if x.startswith("snake-ai-safe vs cycle: "))
    pct_hw = half_width(safe["moves_diff_pct_ci95"])
    sign = "−" if safe["moves_diff_mean"] < 0 else "+"
    moves, pct = abs(safe["moves_diff_mean"]), abs(safe["moves_diff_pct"])
    assert f": {sign}{moves:,.1f} moves ({sign}{pct:.1f} % ± {pct_hw:.1f} %)" in line
    assert f"{format_p(safe['p_value'])}, over the 300 games both won of 300 paired" in line
    assert "win rate" not in line  # both won every game
    greedy = next(x for x in text.splitlines() if x.startswith("greedy vs cycle: "))
    assert "win rate" in greedy


def test_baseline_picks_the_policy_paired_with(capsys):
    table = fastsnake.compare(["cycle", "snake-ai-safe"], 4, 120, 1, baseline="snake-ai-safe")
    rows = table.to_pylist()
    assert rows[1]["paired"] is None
    paired = json.loads(rows[0]["paired"])
    assert paired["baseline"] == "snake-ai-safe" and paired["games"] == 120
    code, out, err = _run(capsys, "compare", "--size", "5", "--games", "10", "--policies", "cycle,greedy",
                          "--baseline", "phc", "--json")
    assert code == 2 and "baseline 'phc' is not one of the compared policies" in err
    assert json.loads(out)["code"] == 2


def test_precision_plays_a_deterministic_prefix_of_the_plain_sweep_until_the_target(tmp_path):
    target = 0.01
    first = fastsnake.compare(["cycle", "snake-ai-safe"], 6, 5000, 7, precision=target, out=tmp_path / "a.parquet")
    again = fastsnake.compare(["cycle", "snake-ai-safe"], 6, 5000, 7, precision=target, out=tmp_path / "b.parquet")
    assert json.loads(again.column("precision")[0].as_py()) == json.loads(first.column("precision")[0].as_py())
    info = json.loads(first.column("precision")[0].as_py())
    games = info["games"]
    assert info["reached"] and info["target"] == target and 100 <= games < 5000
    a, b = pq.read_table(tmp_path / "a.parquet"), pq.read_table(tmp_path / "b.parquet")
    assert a.drop(["policy", "policy_asked", "run_id"]).equals(b.drop(["policy", "policy_asked", "run_id"]))
    for policy in ("cycle", "snake-ai-safe"):
        plain = fastsnake.sweep(policy, 6, games, 7).table
        mine = a.filter(pc.equal(a.column("policy"), policy))
        same = [n for n in plain.column_names if n != "run_id"]  # game k is game k of the plain sweep (another run)
        assert mine.select(same).to_pydict() == plain.select(same).to_pydict()
    # every figure meets the target, computed from the records themselves
    _, base = _records(a, "cycle")
    _, other = _records(a, "snake-ai-safe")
    for moves in (base, other):
        assert half_width(_t_interval(moves)) <= target * moves.mean()
    ci = stats.ttest_rel(other, base).confidence_interval(0.95)
    assert (ci.high - ci.low) / 2 <= target * base.mean()


def test_precision_out_of_reach_stops_at_the_cap_and_says_so(capsys, tmp_path):
    out = tmp_path / "p.parquet"
    code, text, _ = _run(capsys, "sweep", "--policy", "greedy", "--size", "6", "--games", "250", "--precision",
                         "0.0001", "--out", str(out), "--json")
    assert code == 3  # not reached: the results are printed, and the status says so
    summary = json.loads(text)
    assert summary["precision"]["reached"] is False and summary["games"] == summary["precision"]["games"] == 250
    plain = fastsnake.sweep("greedy", 6, 250).table
    assert pq.read_table(out).drop_columns(["run_id"]).to_pydict() == plain.drop_columns(["run_id"]).to_pydict()
    code, _, err = _run(capsys, "sweep", "--policy", "greedy", "--size", "6", "--games", "250", "--precision",
                        "0.01", "--out", str(tmp_path / "folder"))
    assert code == 2 and "--precision writes one Parquet file" in err
    code, _, err = _run(capsys, "sweep", "--policy", "greedy", "--size", "6", "--games", "250", "--precision", "2")
    assert code == 2 and "precision=2.0 must be a number between 0 and 1" in err


def test_several_sizes_are_the_separate_runs_with_a_scaling_fit(capsys, tmp_path):
    plot = tmp_path / "scaling.png"
    code, text, _ = _run(capsys, "compare", "--size", "4,5x6,6", "--games", "60", "--policies", "cycle,greedy",
                         "--json", "--plot", str(plot))
    assert code == 0
    rows = json.loads(text)
    assert [(r["rows"], r["cols"], r["policy"]) for r in rows] == [
        (4, 4, "cycle"), (4, 4, "greedy"), (5, 6, "cycle"), (5, 6, "greedy"), (6, 6, "cycle"), (6, 6, "greedy")]
    for row in rows:
        alone = fastsnake.compare(["cycle", "greedy"], (row["rows"], row["cols"]), 60).to_pylist()
        single = next(r for r in alone if r["policy"] == row["policy"])
        mine = timing_free(row)
        theirs = timing_free({k: json.loads(v) if k in ("options", "paired") and v else v for k, v in single.items()})
        assert mine == theirs
    fit = rows[0]["scaling"]
    cells = [16, 30, 36]
    means = [r["moves_mean"] for r in rows if r["policy"] == "cycle"]
    slope, _ = np.polyfit(np.log(cells), np.log(means), 1)
    assert fit["moves_exponent"] == pytest.approx(slope) and len(fit["moves_exponent_ci95"]) == 2
    assert fit["cpu_exponent"] is not None and fit["cells"] == cells
    assert plot.stat().st_size > 1000
    code, text, _ = _run(capsys, "compare", "--size", "4,6", "--games", "20", "--policies", "cycle,greedy")
    assert re.search(r"cycle growth over 2 sizes: moves ~ cells\^[0-9.]+, CPU", text)
    assert "size" in text.splitlines()[1] and "games/CPU-s" in text
