"""Tables as data (`fastsnake.snake.tables`, ``compare --format csv``): one table a file or a
stream, numbers as numbers that pandas and DuckDB read with their types; p-values that underflow
stay bounds in every format (issue 54 item 5, issue 55)."""

import csv
import io
import json
import math

import pytest

from fastsnake.cli import main
from fastsnake.snake import present, tables


def _summary(policy, moves_mean, **more):
    return dict({"policy": policy, "rows": 6, "cols": 6, "games": 2000, "wins": 1990, "deaths": 10, "stuck": 0,
                 "win_rate": 0.995, "win_rate_ci95": [0.9908, 0.9973], "moves_mean": moves_mean,
                 "moves_mean_ci95": [moves_mean - 3.1, moves_mean + 3.1], "moves_std": 70.5, "moves_min": 1200,
                 "moves_q25": 2380.0, "moves_median": 2425.0, "moves_q75": 2470.0, "moves_max": 2700,
                 "apples_mean": 33.0, "games_per_second": 35551.2, "games_per_cpu_second": 36000.5, "threads": 2,
                 "seed": 0, "start_length": 3, "tail_rule": "follow", "max_moves": 12960,
                 "options": {"detours": 8, "cycle": "zigzag"}}, **more)


def _pair(p_value, **more):
    return dict({"baseline": "cycle", "games": 1980, "games_total": 2000, "win_rate_diff": -0.0035,
                 "win_rate_diff_ci95": [-0.007, -0.001], "apples_diff_mean": -0.25, "apples_diff_ci95": [-0.4, -0.1],
                 "apples_p_value": 0.0012, "moves_diff_mean": -235.0, "moves_diff_ci95": [-241.2, -228.8],
                 "moves_diff_pct": -3.1, "moves_diff_pct_ci95": [-3.3, -2.9], "p_value": p_value,
                 "outcomes": {"won/won": 1980}}, **more)


def _summaries(p_value=0.0, **pair):
    return [_summary("cycle", 2425.3),
            _summary("grove", 2190.3, paired=_pair(p_value, **pair), robust={
                "games": 2000, "moves_median": 2190.0, "moves_median_ci95": [2186.0, 2194.5],
                "moves_iqm": 2189.9, "moves_iqm_ci95": [2187.0, 2192.8]})]


def _csv(name, summaries, verdict=None):
    header, rows = tables.data_tables(summaries, verdict)[name]
    return tables.render_csv(header, rows)


# -- p-values: a bound stays a bound ---------------------------------------------------------------

@pytest.mark.parametrize("fmt", present.TABLE_FORMATS)
def test_a_p_value_below_1e_300_is_a_bound_in_every_format(fmt):
    # The paired t-test's p underflows to 0 on a large difference: the truth is p < 1e-300.
    summaries = _summaries(0.0, wilcoxon_p=0.0, p_holm=0.0)
    header, rows = present.paired_rows(summaries)
    cells = dict(zip(header, rows[0], strict=True))
    assert cells["p (t)"] == cells["p (wilcoxon)"] == cells["p (Holm)"] == "< 1e-300"  # the old code: "1e-300"
    text = present.render_table(header, rows, fmt)
    if fmt == "latex":  # "<" in LaTeX's text mode prints as an inverted exclamation mark
        assert text.count("$<$ 1e-300") == 3
    elif fmt == "csv":  # the people's table as CSV cells
        assert list(csv.reader(io.StringIO(text)))[1][-3:] == ["< 1e-300"] * 3
    else:
        assert text.count("< 1e-300") == 3
    bare = text.replace("$<$ 1e-300", "").replace("< 1e-300", "")
    assert "1e-300" not in bare  # never a bare 1e-300 that reads as a value
    # A p-value that is a value keeps its "=": its figure only, no bound.
    header, rows = present.paired_rows(_summaries(0.012))
    assert dict(zip(header, rows[0], strict=True))["p (t)"] == "0.012"


def test_csv_exports_the_bound_in_its_own_column():
    pandas = pytest.importorskip("pandas")
    frame = pandas.read_csv(io.StringIO(_csv("paired", _summaries(0.0, wilcoxon_p=3e-5))))
    row = frame.iloc[0]
    assert row["p"] == 1e-300 and row["p_bound"] == "<"
    assert row["wilcoxon_p"] == 3e-5 and row["wilcoxon_p_bound"] == "="
    assert row["apples_p"] == 0.0012 and row["apples_p_bound"] == "="
    assert math.isnan(row["p_holm"]) and isinstance(row["p_holm_bound"], float)  # not computed: empty
    assert (frame["p"] < 0.05).all()  # a filter is right on a bound too


# -- numbers as numbers -----------------------------------------------------------------------------

def test_csv_tables_hold_numbers_pandas_reads_as_numbers():
    pandas = pytest.importorskip("pandas")
    summaries = _summaries(1e-12)
    for name in ("summary", "paired", "robust"):
        text = _csv(name, summaries)
        assert "−" not in text and "±" not in text and "%" not in text  # ASCII minus, no display text
        frame = pandas.read_csv(io.StringIO(text))
        assert len(frame) == (2 if name == "summary" else 1)
        numeric = [c for c in frame.columns if c not in ("policy", "baseline", "options", "tail_rule")
                   and not c.endswith("_bound")]
        assert all(pandas.api.types.is_numeric_dtype(frame[c]) for c in numeric), frame.dtypes
    summary = pandas.read_csv(io.StringIO(_csv("summary", summaries)))
    grove = summary.set_index("policy").loc["grove"]
    assert grove["mean"] == 2190.3 and grove["ci_low"] == pytest.approx(2187.2) and grove["ci_high"] > grove["mean"]
    assert grove["games_per_second"] == 35551.2  # no thousands separator: "35,551" was a string
    assert grove["win_rate"] == 0.995 and grove["death_rate"] == 0.005  # shares, not "99.50%"
    assert json.loads(grove["options"]) == {"cycle": "zigzag", "detours": 8}  # the conditions, as JSON
    paired = pandas.read_csv(io.StringIO(_csv("paired", summaries))).iloc[0]
    assert paired["moves_diff"] == -235.0 and paired["moves_diff_ci_low"] == -241.2  # ASCII minus reads
    assert paired["win_rate_diff"] == -0.0035 and paired["pairs"] == 2000 and paired["both_won"] == 1980


def test_duckdb_reads_every_table_with_its_types(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    summaries = _summaries(0.0)
    for name in ("summary", "paired", "robust"):
        (tmp_path / f"t.{name}.csv").write_text(_csv(name, summaries))
    con = duckdb.connect()
    described = con.execute(f"DESCRIBE SELECT * FROM read_csv('{tmp_path}/t.summary.csv')").fetchall()
    types = {r[0]: r[1] for r in described}
    assert types["mean"] == types["ci_low"] == types["win_rate"] == "DOUBLE"
    assert types["games"] == "BIGINT" and types["policy"] == "VARCHAR"
    best = con.execute(f"SELECT policy, mean, ci_high FROM read_csv('{tmp_path}/t.summary.csv') "
                       "ORDER BY mean LIMIT 1").fetchone()
    assert best == ("grove", 2190.3, pytest.approx(2193.4))
    p, bound = con.execute(f"SELECT p, p_bound FROM read_csv('{tmp_path}/t.paired.csv')").fetchone()
    assert p == 1e-300 and bound == "<"


def test_a_cell_is_written_so_that_it_reads_back_the_same():
    assert [tables.data_cell(v) for v in (None, True, 3, -0.1, 1e-5, math.nan, math.inf, "a,b")] == [
        "", "true", "3", "-0.1", "1e-05", "", "", "a,b"]
    assert tables.data_cell(1 / 3) == repr(1 / 3) and float(tables.data_cell(1 / 3)) == 1 / 3
    assert tables.table_file("out/c", "paired", "csv") == "out/c.paired.csv"
    assert tables.table_file("c", "summary", "latex") == "c.summary.tex"
    with pytest.raises(ValueError, match="table 'pairs'"):
        tables.table_file("c", "pairs", "csv")
    assert tables.table_header("paired")[:2] == ["policy", "baseline"]


def test_the_baseline_table_is_data_too():
    verdict = {"policies": [{"policy": "grove", "rows": 6, "cols": 6, "games": 2000, "speed_ratio": 0.93,
                             "worse": True, "paired": _pair(0.0)}]}
    text = tables.render_csv(*tables.baseline_table(verdict))
    row = dict(zip(*list(csv.reader(io.StringIO(text))), strict=True))
    assert row["worse"] == "true" and row["moves_diff"] == "-235.0" and row["speed_ratio"] == "0.93"


# -- the CLI: one table a stream, one a file --------------------------------------------------------

def _run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_compare_csv_prints_one_table_and_writes_each_to_its_file(capsys, tmp_path):
    pandas = pytest.importorskip("pandas")
    game = ("compare", "--size", "6", "--games", "40", "--policies", "cycle,greedy", "--format", "csv")
    code, out, err = _run(capsys, *game, "--tables", str(tmp_path / "c"))
    assert code == 0 and "also made: paired" in err
    summary = pandas.read_csv(io.StringIO(out))  # one table: the old stream held two, with different columns
    assert list(summary["policy"]) == ["cycle", "greedy"] and summary["games"].tolist() == [40, 40]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.paired.csv", "c.summary.csv"]
    assert pandas.read_csv(tmp_path / "c.summary.csv").equals(summary)
    paired = pandas.read_csv(tmp_path / "c.paired.csv")
    assert paired.loc[0, "policy"] == "greedy" and paired.loc[0, "pairs"] == 40
    duckdb = pytest.importorskip("duckdb")
    described = duckdb.sql(f"DESCRIBE SELECT * FROM read_csv('{tmp_path / 'c.summary.csv'}')").fetchall()
    types = {r[0]: r[1] for r in described}
    assert types["mean"] == types["ci_low"] == types["ci_high"] == "DOUBLE" and types["games"] == "BIGINT"
    code, out, _ = _run(capsys, *game, "--table", "paired")
    assert code == 0 and pandas.read_csv(io.StringIO(out)).equals(paired)
    code, out, _ = _run(capsys, *game[:-2], "--table", "paired")  # text: that table alone
    assert code == 0 and out.splitlines()[0].split()[:2] == ["policy", "baseline"] and "vs" not in out


@pytest.mark.parametrize(("extra", "message"), [
    (["--table", "robust"], "--table robust needs --robust"),
    (["--table", "baseline"], "--table baseline needs --baseline-from"),
    (["--policies", "cycle", "--table", "paired"], "--table paired needs two policies"),
    (["--tables", "/nonexistent-folder/c"], "--tables"),
])
def test_a_table_that_cannot_be_made_fails_before_the_games(capsys, extra, message):
    argv = ["compare", "--size", "6", "--games", "10", "--format", "csv"]
    if "--policies" not in extra:
        argv += ["--policies", "cycle,greedy"]
    code, out, err = _run(capsys, *argv, *extra)
    assert code == 2 and message in err and out == ""


def test_sweep_csv_is_the_summary_table_as_data(capsys):
    pandas = pytest.importorskip("pandas")
    code, out, _ = _run(capsys, "sweep", "--policy", "greedy", "--size", "6", "--games", "30", "--format", "csv")
    assert code == 0
    row = pandas.read_csv(io.StringIO(out)).iloc[0]  # the old cells: "30", "0.00% +11.35/-0.00", "79.5 ± 8.2"
    assert row["policy"] == "greedy" and row["games"] == 30 and row["ci_low"] < row["mean"] < row["ci_high"]
    assert 0 <= row["win_rate_ci_low"] <= row["win_rate"] <= row["win_rate_ci_high"] <= 1
