"""Benchmark tools of `compare` and `sweep` (issue 45): repeated timing, robust aggregates, rank
tests, all pairs with Holm's adjustment, precision that cannot be defeated, saved baselines,
table export and exit statuses. Statistics against scipy and hand-worked cases; small boards."""

import csv
import io
import json

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from lazy_modules import lazy

import fastsnake
from fastsnake.cli import main
from fastsnake.snake import benchmark
from fastsnake.snake.cancel import compile_first

stats = lazy("scipy.stats")  # imported by the first test that reads it (tests/lazy_modules.py)


def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# -- statistics, no game ------------------------------------------------------------------------

def test_holm_by_hand_and_its_rules():
    # Hand-worked: sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 -> running max.
    assert benchmark.holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert benchmark.holm([0.5, None, 0.9]) == [1.0, None, 1.0]
    rng = np.random.default_rng(1)
    p = rng.uniform(0, 0.2, 12).tolist()
    adjusted = benchmark.holm(p)
    order = np.argsort(p)
    assert all(a >= b for a, b in zip(adjusted, p, strict=True))  # never below the raw p
    assert np.all(np.diff(np.asarray(adjusted)[order]) >= 0)  # the order of the p-values kept
    assert benchmark.holm([]) == []


def test_holm_leaves_a_missing_p_out_of_the_family():
    # Two known p-values: a family of 2, not 3.
    assert benchmark.holm([0.01, None, 0.02]) == pytest.approx([0.02, None, 0.02])


def test_wilcoxon_is_scipys_and_none_without_a_difference():
    d = np.array([3, -1, 4, 1, -5, 9, 2, 6, 5, 3, 5, 0])
    assert benchmark.wilcoxon_p(d) == pytest.approx(stats.wilcoxon(d).pvalue)
    assert benchmark.wilcoxon_p(np.zeros(5)) is None


def test_robust_aggregates_are_the_median_and_iqm_with_scipys_bootstrap():
    moves = np.random.default_rng(5).integers(50, 400, 301)
    got = benchmark.robust_summary(moves)
    assert got["games"] == 301 and got["moves_median"] == np.median(moves)
    assert got["moves_iqm"] == pytest.approx(stats.trim_mean(moves, 0.25))
    want = stats.bootstrap((moves.astype(float),), np.median, confidence_level=0.95, method="percentile",
                           n_resamples=benchmark.BOOTSTRAP_RESAMPLES, rng=np.random.default_rng(0))
    assert got["moves_median_ci95"] == pytest.approx([want.confidence_interval.low, want.confidence_interval.high])
    lo, hi = got["moves_iqm_ci95"]
    assert lo <= got["moves_iqm"] <= hi
    same = benchmark.robust_summary([7, 7, 7])
    assert same["moves_median_ci95"] == [7.0, 7.0] and same["moves_iqm_ci95"] == [7.0, 7.0]


def test_the_median_speed_interval_never_goes_below_zero():
    got = benchmark.repeat_summary([10.0, 5000.0, 20.0, 30.0, 9000.0], warmup=2)
    assert (got["runs"], got["warmup"], got["min"], got["median"], got["max"]) == (5, 2, 10.0, 30.0, 9000.0)
    lo, hi = got["median_ci95"]
    assert 0 <= lo <= got["median"] <= hi <= 9000.0
    assert benchmark.repeat_summary([42.0])["median_ci95"] is None  # one run: no interval


def test_compile_first_compiles_apart_and_then_costs_nothing():
    import numba

    @numba.njit(nogil=True)
    def kernel(cfg, x):
        return cfg[0] + x

    cfg = np.zeros(8, np.int64)
    first = compile_first(kernel, cfg, 3)
    assert first > 0 and len(kernel.signatures) == 1
    assert compile_first(kernel, cfg, 3) == 0.0
    assert compile_first(lambda cfg, x: x, cfg, 3) == 0.0  # plain Python: nothing to compile


# -- the CLI and the API on games -------------------------------------------------------------

def test_play_reports_its_compile_apart(capsys):
    game = fastsnake.play("cycle", 6, seed=1)
    assert game.compile_seconds is not None and game.compile_seconds >= 0
    code, out, _ = _run(capsys, "play", "--policy", "cycle", "--size", "6", "--seed", "1", "--json")
    result = json.loads(out)
    assert code == 0 and result["compile_seconds"] == 0.0  # loaded above: nothing to compile now
    assert result["seconds"] >= 0


def test_a_folder_sweep_reports_its_compile_apart(tmp_path):
    summary = fastsnake.sweep("cycle", 6, 100, out=str(tmp_path / "f"), chunk_size=40).summary
    assert summary["compile_seconds"] is not None and 0 <= summary["compile_seconds"] < summary["seconds"] + 120


def test_a_policy_listed_twice_is_refused(capsys):
    code, _, err = _run(capsys, "compare", "--size", "6", "--games", "10", "--policies", "cycle,cycle")
    assert code == 2 and "policy 'cycle' is listed twice" in err
    with pytest.raises(ValueError, match="listed twice"):
        fastsnake.compare(["greedy", "cycle", "greedy"], 5, 10)


def test_all_pairs_wilcoxon_and_robust_equal_scipy_on_the_games(capsys, tmp_path):
    out = tmp_path / "c.parquet"
    code, text, _ = _run(capsys, "compare", "--size", "6", "--games", "150", "--seed", "4", "--policies",
                         "cycle,snake-ai-safe,greedy", "--all-pairs", "--test", "wilcoxon", "--robust", "--out",
                         str(out), "--json")
    assert code == 0
    rows = {r["policy"]: r for r in json.loads(text)}
    table = pq.read_table(out)

    def moves(policy):
        part = table.filter(pc.equal(table.column("policy"), policy))
        return part.column("moves").to_numpy(), np.asarray(part.column("outcome").cast(pa.string()).to_pylist())

    (m_c, o_c), (m_s, o_s), (m_g, _) = moves("cycle"), moves("snake-ai-safe"), moves("greedy")
    safe = rows["snake-ai-safe"]
    both = (o_c == "won") & (o_s == "won")
    assert safe["paired"]["wilcoxon_p"] == pytest.approx(stats.wilcoxon(m_s[both] - m_c[both]).pvalue)
    # Every pair with an earlier policy; Holm over the family of every pair's t p-value.
    assert [p["baseline"] for p in rows["greedy"]["pairs"]] == ["cycle", "snake-ai-safe"]
    family = [p for r in json.loads(text) for p in r["pairs"]]
    assert len(family) == 3
    assert [p["p_holm"] for p in family] == pytest.approx(benchmark.holm([p["p_value"] for p in family]))
    # The all-games apples difference of greedy against cycle: scipy's paired t over all 150 pairs.
    apples = {p: table.filter(pc.equal(table.column("policy"), p)).column("apples").to_numpy()
              for p in ("cycle", "greedy")}
    pair = rows["greedy"]["paired"]
    want = stats.ttest_rel(apples["greedy"], apples["cycle"])
    assert pair["apples_pairs"] == 150 and pair["apples_p_value"] == pytest.approx(want.pvalue, rel=1e-6, abs=1e-300)
    for name, m in (("cycle", m_c), ("greedy", m_g)):
        robust = rows[name]["robust"]
        assert robust["moves_median"] == np.median(m) and robust["moves_iqm"] == pytest.approx(stats.trim_mean(m, .25))
    code, text, _ = _run(capsys, "compare", "--size", "6", "--games", "150", "--seed", "4", "--policies",
                         "cycle,snake-ai-safe,greedy", "--all-pairs", "--robust")
    assert "p (Holm)" in text and "IQM [95%]" in text and "Holm-adjusted p" in text


def test_precision_skips_a_difference_that_cannot_exist_and_exits_3_when_not_reached(capsys):
    # greedy never wins on 6x6: no game is won by both, so its moves difference with cycle cannot
    # be had; the old code played every policy to the cap for it.
    code, text, err = _run(capsys, "compare", "--size", "6", "--games", "5000", "--policies", "cycle,greedy",
                           "--precision", "0.05", "--json")
    rows = json.loads(text)
    info = rows[0]["precision"]
    assert code == 0 and info["reached"] and info["games"] < 5000
    assert info["skipped"] == ["greedy vs cycle moves difference (greedy won no game)"]
    code, text, err = _run(capsys, "compare", "--size", "6", "--games", "150", "--policies", "cycle,greedy",
                           "--precision", "0.001", "--json")
    assert code == 3 and "precision 0.10% not reached" in err and json.loads(text)[0]["precision"]["reached"] is False
    code, _, err = _run(capsys, "sweep", "--policy", "greedy", "--size", "6", "--games", "150", "--precision", "0.001")
    assert code == 3 and "exit status 3" in err


def test_repeats_give_the_median_speed_and_one_run_no_interval(capsys):
    one = fastsnake.sweep("cycle", 6, 3000).summary
    assert one["games_per_cpu_second_ci95"] is None and one.get("repeats") is None
    result = fastsnake.sweep("cycle", 6, 300, repeat=3, warmup=1)
    rep = result.summary["repeats"]
    assert rep["runs"] == 3 and rep["warmup"] == 1 and len(rep["values"]) == 3
    assert rep["min"] <= rep["median"] <= rep["max"] and rep["median"] == np.median(rep["values"])
    assert result.summary["games_per_cpu_second_ci95"] == rep["median_ci95"] and rep["median_ci95"][0] >= 0
    assert len(result.table) == 300  # the rows of one run
    code, text, _ = _run(capsys, "compare", "--size", "6", "--games", "100", "--policies", "cycle,greedy",
                         "--repeat", "2")
    assert code == 0 and "games/CPU-s median [95%]" in text
    code, _, err = _run(capsys, "sweep", "--policy", "cycle", "--size", "6", "--games", "10", "--warmup", "2")
    assert code == 2 and "--warmup needs --repeat" in err


def test_a_saved_baseline_pairs_todays_games_and_exit_4_names_what_is_worse(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv(benchmark.BASELINES_ENV, str(tmp_path / "baselines"))
    code, _, err = _run(capsys, "compare", "--size", "6", "--games", "120", "--policies", "cycle,greedy",
                        "--save-baseline", "v1")
    saved = tmp_path / "baselines" / "v1.parquet"
    assert code == 0 and saved.is_file()
    code, text, _ = _run(capsys, "compare", "--size", "6", "--games", "120", "--policies", "cycle,greedy",
                         "--baseline-from", "v1", "--json")
    rows = json.loads(text)
    assert code == 0 and all(r["baseline_check"]["worse"] == [] for r in rows)
    assert rows[1]["baseline_check"]["paired"]["games_total"] == 120
    # A baseline saved by other code, where greedy won every game: today's greedy is worse. (Made
    # by editing the file and re-signing it: the same edit with the code left as it is is a
    # forgery, refused in test_snake_baseline_gate.py.)
    # The rows and summaries agree and the wins fill the board (the baseline rule refuses a file that
    # contradicts itself or the game's rules, whatever the code).
    table = pq.read_table(saved)
    greedy = pc.equal(table.column("policy"), "greedy").to_numpy(zero_copy_only=False)
    outcome = np.where(greedy, 1, table.column("outcome").to_numpy()).astype(np.int8)
    apples = np.where(greedy, 36 - 3, table.column("apples").to_numpy()).astype(np.int32)
    moves = np.where(greedy, np.maximum(table.column("moves").to_numpy(), 33), table.column("moves").to_numpy())
    better = table.set_column(table.column_names.index("outcome"), "outcome", pa.array(outcome))
    better = better.set_column(better.column_names.index("apples"), "apples", pa.array(apples))
    better = better.set_column(better.column_names.index("moves"), "moves", pa.array(moves.astype(np.int64)))
    meta = json.loads(table.schema.metadata[benchmark.BASELINE_META_KEY])
    for s in meta["summaries"]:
        s["code"] = "blake2b:older"
        if s["policy"] == "greedy":
            s.update(wins=s["games"], deaths=0, stuck=0, total_moves=int(moves[greedy].sum()))
    meta["checksum"] = benchmark.baseline_checksum(meta, better)
    better = better.replace_schema_metadata({benchmark.BASELINE_META_KEY: json.dumps(meta).encode()})
    pq.write_table(better, tmp_path / "better.parquet")
    code, text, err = _run(capsys, "compare", "--size", "6", "--games", "120", "--policies", "cycle,greedy",
                           "--baseline-from", str(tmp_path / "better.parquet"))
    assert code == 4 and "worse than baseline" in err
    assert "greedy 6x6: win rate -100.00 points" in err and "WORSE" in text
    code, _, err = _run(capsys, "compare", "--size", "6", "--games", "10", "--policies", "cycle",
                        "--baseline-from", "nope")
    assert code == 2 and "no baseline 'nope'" in err and "saved: v1" in err
    code, _, err = _run(capsys, "compare", "--size", "6", "--games", "10", "--policies", "cycle", "--save-baseline",
                        "../x")
    assert code == 2 and "baseline name '../x'" in err


@pytest.mark.parametrize("fmt", ["markdown", "csv", "latex"])
def test_compare_exports_its_tables(capsys, fmt):
    code, text, err = _run(capsys, "compare", "--size", "6", "--games", "60", "--policies", "cycle,greedy",
                           "--format", fmt)
    assert code == 0
    if fmt == "csv":  # data, one table a stream (tests/snake/test_snake_tables.py): the summary
        rows = list(csv.reader(io.StringIO(text)))
        assert rows[0][:3] == ["policy", "rows", "cols"] and [r[0] for r in rows[1:]] == ["cycle", "greedy"]
        assert "also made: paired" in err
        return
    summary, paired = text.strip().split("\n\n")
    if fmt == "markdown":
        assert summary.splitlines()[2].startswith("| cycle | 60 |")
    else:
        assert summary.startswith("\\begin{tabular}") and "greedy & 60 &" in summary


def test_the_help_names_the_exit_statuses(capsys):
    with pytest.raises(SystemExit):
        main(["compare", "--help"])
    text = capsys.readouterr().out
    assert "3    a --precision target not reached" in text and "4    a policy significantly worse" in text


def test_the_python_api_takes_every_option_and_keeps_them_in_its_table(tmp_path, monkeypatch):
    monkeypatch.setenv(benchmark.BASELINES_ENV, str(tmp_path))
    table = fastsnake.compare(["cycle", "greedy", "snake-ai-safe"], 6, 60, all_pairs=True, test="wilcoxon",
                              robust=True, repeat=2, save_baseline="api")
    rows = table.to_pylist()
    assert [len(json.loads(r["pairs"])) for r in rows] == [0, 1, 2]
    assert all(json.loads(r["robust"])["games"] == 60 and json.loads(r["repeats"])["runs"] == 2 for r in rows)
    again = fastsnake.compare(["cycle", "greedy"], 6, 60, baseline_from="api").to_pylist()
    assert [json.loads(r["baseline_check"])["worse"] for r in again] == [[], []]
    with pytest.raises(ValueError, match="test='sign'"):
        fastsnake.compare(["cycle", "greedy"], 6, 10, test="sign")
    with pytest.raises(ValueError, match="warmup needs repeat"):
        fastsnake.sweep("cycle", 6, 10, warmup=1)
