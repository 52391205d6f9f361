"""docs/data-tools.md runs as written, and what DuckDB, polars and pandas compute from the files is
what fastsnake's own summaries say (issue 36: files any data tool can query)."""

import re
import runpy
from pathlib import Path

import numpy as np
import pytest
from lazy_modules import missing

import fastsnake

DOC = Path(__file__).resolve().parents[2] / "docs" / "data-tools.md"
_BLOCK = re.compile(r"\n```python\n(?P<code>.*?)\n```", re.S)

# Skipped without the readers the page uses, found without importing them (tests/lazy_modules.py).
pytestmark = pytest.mark.skipif(bool(missing("duckdb", "polars", "pandas")),
                                reason=f"needs {', '.join(missing('duckdb', 'polars', 'pandas'))}")


@pytest.fixture(scope="module")
def doc(tmp_path_factory):
    """Every python block of the page run in order, as one script in a fresh folder."""
    folder = tmp_path_factory.mktemp("data-tools")
    script = folder / "data_tools_doc.py"
    script.write_text("\n\n".join(m["code"] for m in _BLOCK.finditer(DOC.read_text())))
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(folder)
        namespace = runpy.run_path(str(script))
        namespace["folder"] = folder
        yield namespace


def _moves(path):
    return fastsnake.snake.store.read_sweep(path)[1].column("moves").to_numpy()


def test_duckdb_groups_files_and_a_folder_by_policy_and_board(doc):
    rows = doc["per_policy"].to_dict("records")
    assert [(r["policy"], r["rows"], r["games"]) for r in rows] == [("cycle", 6, 400), ("greedy", 6, 400),
                                                                   ("greedy", 8, 400)]
    for r, name in zip(rows, ("cycle6.parquet", "greedy6.parquet", "greedy8"), strict=True):
        moves = _moves(doc["folder"] / name)
        assert r["moves_mean"] == pytest.approx(moves.mean())
        assert r["moves_ci95_half"] == pytest.approx(1.96 * moves.std(ddof=1) / np.sqrt(len(moves)))


def test_read_sweep_gives_the_folders_rows_as_they_were_written(doc):
    checked = doc["checked"]
    assert checked.num_rows == 400
    assert checked.column("moves").to_numpy().tolist() == _moves(doc["folder"] / "greedy8").tolist()
    assert checked.column("game").to_numpy().tolist() == list(range(400))


def test_the_worst_games_are_those_with_most_moves(doc):
    worst = doc["worst"]
    greedy = _moves(doc["folder"] / "greedy6.parquet")
    assert worst[worst.policy == "greedy"]["moves"].tolist() == sorted(greedy)[::-1][:3]


def test_polars_and_pandas_agree_with_the_summaries(doc):
    summary = doc["summary"].to_dicts()
    assert [(s["policy"], s["rows"], s["games"]) for s in summary] == [("cycle", 6, 400), ("greedy", 6, 400),
                                                                      ("greedy", 8, 400)]
    greedy8 = _moves(doc["folder"] / "greedy8")
    assert summary[2]["moves_mean"] == pytest.approx(greedy8.mean())
    table = doc["table"].reset_index()
    row = table[table["rows"] == 8].iloc[0]
    sem = greedy8.std(ddof=1) / np.sqrt(len(greedy8))
    low, high = greedy8.mean() - 1.96 * sem, greedy8.mean() + 1.96 * sem
    assert (row["ci95_low"], row["ci95_high"]) == (pytest.approx(low), pytest.approx(high))


def test_the_paired_join_pairs_game_by_game(doc):
    g, c = (fastsnake.snake.store.read_sweep(doc["folder"] / n)[1] for n in ("greedy6.parquet", "cycle6.parquet"))
    outcomes = [tuple(pair) for pair in zip(g.column("outcome").cast("string").to_pylist(),
                                              c.column("outcome").cast("string").to_pylist(), strict=True)]
    diff = g.column("moves").to_numpy() - c.column("moves").to_numpy()
    for row in doc["pair"].to_dict("records"):
        mine = np.array([o == (row["greedy"], row["cycle"]) for o in outcomes])
        assert row["games"] == mine.sum() and row["moves_diff"] == pytest.approx(diff[mine].mean())
    assert doc["pair"]["games"].sum() == 400


def _conditions(path):
    table = fastsnake.snake.store.read_sweep(path)[1]
    return (table.column("policy").unique().to_pylist()[0], table.column("options").unique().to_pylist()[0],
            table.column("max_moves").unique().to_pylist()[0], table.column("rows").unique().to_pylist()[0])


def test_pooled_runs_keep_conditions_apart_and_count_each_game_once(doc):
    """Sweep and compare files of several runs (issue 45): five conditions, 400 games each, the
    6x6 cycle and greedy games counted once though two files hold them."""
    folder = doc["folder"]
    want = {}
    for name in ("greedy6.parquet", "cycle6.parquet", "greedy8", "cycle6-cap.parquet", "cycle6-random.parquet"):
        want[_conditions(folder / name)] = _moves(folder / name).mean()
    assert len(want) == 5
    duck = doc["pooled"].to_dict("records")
    polars = doc["pooled_pl"].to_dicts()
    pandas = doc["pooled_pd"].to_dict("records")
    for rows, games in ((duck, "games"), (polars, "games"), (pandas, "count")):
        got = {(r["policy"], r["options"], r["max_moves"], r["rows"]): (r[games], r["moves_mean" if games == "games"
                                                                                  else "mean"]) for r in rows}
        assert set(got) == set(want)
        for key, mean in want.items():
            assert got[key][0] == 400 and got[key][1] == pytest.approx(mean)
    every = doc["duckdb"].sql("SELECT count(*) FROM read_parquet(['*.parquet', 'greedy8/*.parquet'])").fetchall()
    assert every == [(2800,)]  # 400 games in each of 7 runs: 800 of them kept twice


_GROUPED = re.compile(r"GROUP BY|group_by\(|groupby\(")


def test_the_page_leads_with_the_query_that_keeps_conditions_apart_and_counts_each_game_once():
    """Issue 55: the page opened with queries grouped by policy and board only, which on a user's
    folder of runs pooled conditions and counted duplicated games twice; "Pooling runs" came after."""
    blocks = [m["code"] for m in _BLOCK.finditer(DOC.read_text())]
    first = next(code for code in blocks if _GROUPED.search(code))
    assert "pooled = " in first, "the first grouped query must be the pooling one"
    for condition in ("options", "tail_rule", "start_length", "max_moves"):
        assert condition in first
    assert "QUALIFY" in first and "base_seed, game" in first  # one copy of each game
    text = DOC.read_text()
    assert text.index("## Pooling runs") < min(text.index(h) for h in ("## One run a file: DuckDB",
                                                                      "## One run a file: polars"))


# The page's first query at f2b2bd8: grouped by policy and board only.
OLD_FIRST_QUERY = """
    SELECT policy, rows, cols, count(*) AS games, avg(moves) AS moves_mean
    FROM read_parquet(['*.parquet', 'greedy8/*.parquet'])
    GROUP BY ALL ORDER BY policy, rows
"""


def test_the_old_first_query_pools_conditions_and_counts_games_twice_on_a_folder_of_runs(doc):
    """What the page now warns of, on its own files: the old first query, run over the folder as a
    user runs it, gives one cycle 6x6 row of 1,600 games from three conditions (400 counted twice),
    where the pooling query gives three rows of 400."""
    duckdb = doc["duckdb"]
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(doc["folder"])
        old = duckdb.sql(OLD_FIRST_QUERY).df()
    cycle6 = old[(old.policy == "cycle") & (old.rows == 6)]
    assert cycle6["games"].tolist() == [1600]
    apart = doc["pooled"][(doc["pooled"].policy == "cycle") & (doc["pooled"].rows == 6)]
    assert apart["games"].tolist() == [400, 400, 400] and apart["max_moves"].nunique() == 2
    assert apart["options"].nunique() == 2
    # The pooled mean is none of the conditions' means: it answers no question a run asked.
    assert all(abs(cycle6["moves_mean"].iloc[0] - m) > 1 for m in apart["moves_mean"])
