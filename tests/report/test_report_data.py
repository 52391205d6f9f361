"""The report's data, without a browser: picks, aggregates and records against plain references."""

import json
import math
import subprocess
import sys

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from hypothesis import given
from hypothesis import strategies as st

import fastsnake
from fastsnake import webpage
from fastsnake.snake import report as rp
from fastsnake.snake.present import format_rate_ci, paired_sentences, signed
from fastsnake.snake.sweep import PARQUET_META_KEY


@given(st.lists(st.integers(0, 3), max_size=300))
def test_moves_pack_four_to_a_byte_and_back(moves):
    text = webpage.pack_moves(moves)
    assert len(text) == 4 * math.ceil(math.ceil(len(moves) / 4) / 3)  # base64 of ceil(n / 4) bytes
    assert webpage.unpack_moves(text, len(moves)).tolist() == moves


@given(st.lists(st.integers(0, 65_535), max_size=50), st.booleans())
def test_cells_pack_and_unpack(cells, large):
    board = 1 << 20 if large else 1 << 16
    raw = np.frombuffer(__import__("base64").b64decode(webpage.pack_cells(cells, board)),
                        dtype="<u4" if large else "<u2")
    assert raw.tolist() == cells


@pytest.fixture(scope="module")
def swept(tmp_path_factory):
    """One sweep written as a file and as a folder of small chunks (same games)."""
    folder = tmp_path_factory.mktemp("data")
    file = folder / "s.parquet"
    fastsnake.sweep("greedy", 7, 3000, seed=11, out=str(file))
    dataset = folder / "ds"
    fastsnake.sweep("greedy", 7, 3000, seed=11, out=str(dataset), chunk_size=700)
    return file, dataset


def naive_picks(table, worst, best, died, random):
    rows = table.to_pylist()
    by_moves = sorted(rows, key=lambda r: (-r["moves"], r["game"]))
    return {
        "worst": [r["game"] for r in by_moves[:worst]],
        "best": [r["game"] for r in sorted(rows, key=lambda r: (r["moves"], r["game"]))[:best]],
        "died": [r["game"] for r in rows if r["outcome"] == "died"][:died],
        "random": [r["game"] for r in sorted(rows, key=lambda r: r["seed"])[:random]],
    }


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_streamed_picks_and_statistics_equal_plain_sorts(swept, kind):
    file, dataset = swept
    source = rp.open_sources(str(file if kind == "file" else dataset))[0]
    agg = rp.aggregate(source, worst=7, best=5, died=6, random=9, sample=9)
    table = pq.read_table(str(file))
    want = naive_picks(table, 7, 5, 6, 9)
    assert [g["game"] for g in agg.worst.games()] == want["worst"]
    assert [g["game"] for g in agg.best.games()] == want["best"]
    assert [g["game"] for g in agg.died.games()] == want["died"]
    assert [g["game"] for g in agg.random.games()] == want["random"]
    moves = table.column("moves").to_numpy()
    stats = agg.stats.as_dict()
    assert stats["games"] == 3000 and stats["moves_max"] == moves.max() and stats["moves_min"] == moves.min()
    assert stats["moves_median"] == np.quantile(moves, 0.5)
    assert stats["moves_mean"] == pytest.approx(moves.mean(), rel=1e-12)


def test_a_small_batch_size_gives_the_same_aggregates(swept, monkeypatch):
    file, _ = swept
    whole = rp.aggregate(rp.open_sources(str(file))[0], worst=5, best=5, died=5, random=5)
    monkeypatch.setattr(rp, "BATCH_ROWS", 128)
    # iter_batches' batch size is read when the batches are made: a new source sees the new size.
    pieces = rp.aggregate(rp.open_sources(str(file))[0], worst=5, best=5, died=5, random=5)
    for pick in ("worst", "best", "died", "random"):
        assert getattr(whole, pick).games() == getattr(pieces, pick).games()
    assert whole.stats.as_dict() == pieces.stats.as_dict()


def test_the_summary_table_is_the_one_compare_prints_with_intervals(swept, tmp_path):
    from scipy import stats

    file, _ = swept
    data = rp.build(rp.open_sources(str(file)), worst=1, best=1, died=1, random=1, sample=2)
    header, rows = fastsnake.snake.compare_rows([fastsnake.sweep("greedy", 7, 3000, seed=11).summary])
    got_header, got = data["summary_table"]["header"], data["summary_table"]["rows"][0]
    timing = {header.index("games/s"), header.index("games/CPU-s"), header.index("threads")}
    assert got_header == header  # games per CPU-second beside the wall-clock games/s, as compare shows
    assert got[header.index("games/CPU-s")] != "-"  # the file's run record holds it
    assert [c for i, c in enumerate(got) if i not in timing] == [c for i, c in enumerate(rows[0]) if i not in timing]
    mean, win = header.index("mean ±95%"), header.index("win % ±95%")
    # The intervals, against scipy on the file's own games.
    table = pq.read_table(str(file))
    moves = table.column("moves").to_numpy()
    wins = int((np.asarray(table.column("outcome").to_pylist()) == "won").sum())
    summary = data["sections"][0]["summary"]
    want = stats.ttest_1samp(moves, 0).confidence_interval()
    assert summary["moves_mean_ci95"] == pytest.approx([want.low, want.high], rel=1e-9)
    wilson = stats.binomtest(wins, len(moves)).proportion_ci(method="wilson")
    assert summary["win_rate_ci95"] == pytest.approx([wilson.low, wilson.high], rel=1e-9)
    assert got[mean] == f"{moves.mean():.1f} ± {(want.high - want.low) / 2:.1f}"
    assert got[win] == format_rate_ci(wins / len(moves), [wilson.low, wilson.high])


@pytest.fixture(scope="module")
def paired_sweeps(tmp_path_factory):
    """cycle and greedy on the same 4x4 seeds from length 1: cycle wins every game, greedy some (it dies in most)."""
    folder = tmp_path_factory.mktemp("paired")
    files = []
    for policy in ("cycle", "greedy"):
        files.append(folder / f"{policy}.parquet")
        fastsnake.sweep(policy, 4, 3000, seed=21, start_length=1, out=str(files[-1]))
    return files


def test_paired_panel_uses_the_games_both_won_and_equals_scipy_ttest_rel(paired_sweeps):
    from scipy import stats

    base_file, this_file = paired_sweeps
    data = rp.build(rp.load_inputs([str(base_file), str(this_file)], []), worst=1, best=1, died=1, random=1,
                    sample=1)
    (pair,) = data["paired"]
    a = pq.read_table(str(base_file)).to_pandas().set_index("game")
    b = pq.read_table(str(this_file)).to_pandas().set_index("game")
    assert (b.outcome == "died").any()  # the test needs games that died
    both = (a.outcome == "won") & (b.outcome == "won")
    assert 30 < both.sum() < len(a)
    diff = (b.moves[both] - a.moves[both]).to_numpy()
    want = stats.ttest_rel(b.moves[both].to_numpy(), a.moves[both].to_numpy())
    ci = want.confidence_interval()
    got = pair["stats"]
    assert (pair["a"], pair["b"]) == ("cycle", "greedy")
    assert pair["games"] == got["games"] == both.sum() and pair["games_total"] == len(a)
    assert got["moves_diff_mean"] == pytest.approx(diff.mean(), rel=1e-12)
    assert got["moves_diff_ci95"] == pytest.approx([ci.low, ci.high], rel=1e-9)
    assert got["p_value"] == pytest.approx(want.pvalue, rel=1e-6, abs=1e-300)
    # The histogram counts only the games both won (the old panel subtracted died games too).
    assert sum(pair["counts"]) == both.sum()
    assert np.histogram(diff, bins=np.asarray(pair["edges"]) - 0.5)[0].tolist() == pair["counts"]
    assert (pair["b_fewer"], pair["b_more"], pair["ties"]) == ((diff < 0).sum(), (diff > 0).sum(), (diff == 0).sum())
    # The cross-table of outcomes: rows are greedy's outcome, columns cycle's.
    import pandas as pd

    cross = pd.crosstab(b.outcome, a.outcome)
    header, rows = pair["cross"]["header"], pair["cross"]["rows"]
    for row in rows[:-1]:
        for k, base in enumerate(header[1:-1], start=1):
            want_count = int(cross.loc[row[0], base]) if row[0] in cross.index and base in cross.columns else 0
            assert row[k] == f"{want_count:,}", (row[0], base)
    assert rows[-1][-1] == f"{len(a):,}"
    # The statement a reader sees: the mean, its interval and p.
    text = " ".join(pair["statement"])
    assert f"{signed(diff.mean())} moves" in text and f"[{signed(ci.low)}, {signed(ci.high)}]" in text
    assert "p " in text and f"{both.sum():,} games both won" in text
    # The same words as the CLI's line for that pair (one implementation, `present.paired_sentences`).
    assert pair["statement"] == paired_sentences("greedy", "cycle", got)


def test_inputs_of_the_same_policy_get_distinct_names(paired_sweeps, tmp_path):
    _, base_file = paired_sweeps
    again = tmp_path / "again.parquet"
    fastsnake.sweep("greedy", 4, 200, seed=21, out=str(again))
    bigger = tmp_path / "bigger.parquet"
    fastsnake.sweep("greedy", 8, 100, seed=21, out=str(bigger))
    data = rp.build(rp.load_inputs([str(base_file), str(again), str(bigger)], []), worst=1, best=0, died=0,
                    random=0, sample=0)
    names = [s["name"] for s in data["sections"]]
    assert len(set(names)) == 3
    assert names == ["greedy (greedy.parquet)", "greedy (again.parquet)", "greedy 8x8"]
    assert [r[0] for r in data["summary_table"]["rows"]] == names
    assert [r[0] for r in data["config"]["rows"]] == names
    assert {g["name"] for g in data["games"]} == set(names)
    # A single input keeps its policy's plain name.
    one = rp.build(rp.load_inputs([str(again)], []), worst=1, best=0, died=0, random=0, sample=0)
    assert [s["name"] for s in one["sections"]] == ["greedy"]


def test_scaling_fit_is_least_squares_on_log_log():
    cells = np.array([25, 100, 400, 1600])
    values = 3.0 * cells ** 1.5 * np.array([1.1, 0.9, 1.05, 0.97])
    fit = rp.scaling_fit(cells, values)
    slope, intercept = np.polyfit(np.log(cells), np.log(values), 1)
    assert fit["exponent"] == pytest.approx(slope, rel=1e-12)
    assert fit["coefficient"] == pytest.approx(np.exp(intercept), rel=1e-12)
    lo, hi = fit["exponent_ci95"]
    assert lo < slope < hi
    exact = rp.scaling_fit([10, 1000], [2.0, 2000.0])
    assert exact["exponent"] == pytest.approx(1.5) and exact["exponent_ci95"] is None
    assert rp.scaling_fit([100, 100], [1.0, 2.0]) is None


def test_several_board_sizes_give_the_scaling_view(tmp_path):
    files = []
    for size in (4, 6, 8):
        files.append(tmp_path / f"cycle{size}.parquet")
        fastsnake.sweep("cycle", size, 40, seed=1, out=str(files[-1]))
    data = rp.build(rp.load_inputs([str(f) for f in files], []), worst=0, best=0, died=0, random=0, sample=0)
    (scaled,) = data["scaling"]["policies"]
    cells = [16, 36, 64]
    means = [pq.read_table(str(f)).column("moves").to_numpy().mean() for f in files]
    assert scaled["cells"] == cells and scaled["moves_mean"] == pytest.approx(means)
    assert scaled["moves_fit"]["exponent"] == pytest.approx(np.polyfit(np.log(cells), np.log(means), 1)[0])
    speed = scaled["games_per_cpu_second"]
    assert all(v > 0 for v in speed)  # sweep files record their timing
    cost = np.polyfit(np.log(cells), np.log(1 / np.asarray(speed)), 1)[0]
    assert scaled["cpu_seconds_per_game_fit"]["exponent"] == pytest.approx(cost)
    one = rp.build(rp.load_inputs([str(files[0])], []), worst=0, best=0, died=0, random=0, sample=0)
    assert one["scaling"] is None


def test_a_compare_file_of_several_boards_gives_a_section_per_policy_and_board(tmp_path):
    """A compare over several sizes (rows and cols columns, one run entry per policy and board)."""
    from fastsnake.snake.report import COMPARE_META_KEY

    parts, entries = [], []
    for size in (4, 6):
        out = tmp_path / f"c{size}.parquet"
        fastsnake.compare(["cycle", "greedy"], size, 50, seed=2, out=str(out))
        table = pq.read_table(str(out))
        meta = table.schema.metadata
        entries += json.loads(meta[COMPARE_META_KEY])
        assert {"rows", "cols"} <= set(table.column_names)  # every sweep row names its board
        parts.append(table.replace_schema_metadata(None))
    both = pa.concat_tables(parts).replace_schema_metadata({**meta, COMPARE_META_KEY: json.dumps(entries).encode()})
    pq.write_table(both, str(tmp_path / "sizes.parquet"))
    sources = rp.load_inputs([str(tmp_path / "sizes.parquet")], [])
    assert [(s.policy, s.params["rows"]) for s in sources] == [("cycle", 4), ("cycle", 6), ("greedy", 4), ("greedy", 6)]
    assert all(s.notes == [] for s in sources)
    data = rp.build(sources, worst=1, best=0, died=0, random=0, sample=0)
    assert data["problems"] == []  # every picked game re-plays under its own board's parameters
    assert [s["name"] for s in data["sections"]] == ["cycle 4x4", "cycle 6x6", "greedy 4x4", "greedy 6x6"]
    assert [s["summary"]["games"] for s in data["sections"]] == [50] * 4
    assert [p["cells"] for p in data["scaling"]["policies"]] == [[16, 36], [16, 36]]
    assert [(p["a"], p["b"]) for p in data["paired"]] == [("cycle 4x4", "greedy 4x4"), ("cycle 6x6", "greedy 6x6")]


def test_compare_sections_and_paired_difference(tmp_path):
    out = tmp_path / "c.parquet"
    fastsnake.compare(["cycle", "greedy"], 6, 400, seed=2, out=str(out))
    sources = rp.open_sources(str(out))
    assert [s.policy for s in sources] == ["cycle", "greedy"]
    data = rp.build(sources, worst=2, best=2, died=2, random=2, sample=3)
    (pair,) = data["paired"]
    table = pq.read_table(str(out)).to_pandas()
    a = table[table.policy == "cycle"].set_index("game")
    b = table[table.policy == "greedy"].set_index("game")
    both = (a.outcome == "won") & (b.outcome == "won")
    diff = (b.moves[both] - a.moves[both]).to_numpy()
    assert pair["games"] == both.sum() == sum(pair["counts"]) and pair["games_total"] == 400
    assert pair["mean"] == pytest.approx(diff.mean())
    assert {g["policy"] for g in data["games"]} == {"cycle", "greedy"}


def test_the_pipeline_steps_are_functions_a_reader_can_name(swept):
    """build is load_inputs -> summarise -> pick_games -> replay_picks -> fit_budget -> page_data."""
    file, _ = swept
    problems = []
    counts = rp.PickCounts.checked(worst=2, best=1, died=1, random=1, sample=1, picks=["41"])
    (item,) = rp.summarise(rp.load_inputs([str(file)], problems), counts, problems)
    chosen = rp.pick_games(item, counts, problems)
    assert 41 in chosen and chosen[41][1] == ["pick 41"]
    entries, replays = rp.replay_picks(item, chosen, counts, problems)
    assert [e["game"] for e in entries] == list(chosen) and len(replays) == 1 and problems == []
    rp.fit_budget(entries, 0)
    assert all("data" not in e and "budget" in e["note"] for e in entries)
    with pytest.raises(fastsnake.InputError, match="does not exist"):
        rp.load_inputs(["/nonexistent/x.parquet"], [])


def test_every_picked_game_is_re_played_as_its_row_says(swept):
    file, _ = swept
    data = rp.build(rp.open_sources(str(file)), worst=3, best=3, died=3, random=3, picks=["longest", "41", "died"])
    rows = {r["game"]: r for r in pq.read_table(str(file)).to_pylist()}
    assert data["problems"] == []
    assert any("pick 41" in g["why"] for g in data["games"] if g["game"] == 41)
    first_died = min(r["game"] for r in rows.values() if r["outcome"] == "died")
    assert any("pick died" in g["why"] for g in data["games"] if g["game"] == first_died)
    with pytest.raises(rp.ReportError, match="pick 'lost'"):  # 0.1.0's spelling of died, removed in 0.2.0
        rp.build(rp.open_sources(str(file)), worst=0, best=0, died=0, random=0, sample=0, picks=["lost"])
    for g in data["games"]:
        row = rows[g["game"]]
        assert (g["outcome"], g["moves"], g["apples"]) == (row["outcome"], row["moves"], row["apples"])
        assert webpage.unpack_moves(g["data"]["moves"], g["moves"]).tolist() == \
            fastsnake.play("greedy", 7, seed=11, game=g["game"]).moves.tolist()


def _rewrite(path, out, change):
    table = pq.read_table(str(path))
    rows = table.to_pydict()
    change(rows)
    meta = table.schema.metadata
    new = pa.Table.from_pydict(rows, schema=table.schema).replace_schema_metadata(meta)
    pq.write_table(new, str(out))


def test_a_game_that_no_longer_replays_is_named_and_the_rest_is_written(swept, tmp_path):
    file, _ = swept
    worst = max(pq.read_table(str(file)).to_pylist(), key=lambda r: (r["moves"], -r["game"]))

    def tamper(rows):
        k = rows["game"].index(worst["game"])
        rows["moves"][k] += 1000  # what another version's engine might have played

    bad = tmp_path / "other-version.parquet"
    _rewrite(file, bad, tamper)
    info = fastsnake.report(str(bad), str(tmp_path / "r.html"), worst=2, best=1, died=1, random=1)
    assert len(info["problems"]) == 2 and f"game {worst['game']} no longer replays" in info["problems"][0]
    assert f"contradict their rows (games {worst['game']})" in info["problems"][1]  # the run is marked (issue 55)
    assert info["embedded"] == info["picked"] - 1 and (tmp_path / "r.html").exists()


def test_bad_inputs_are_one_line_each(swept, tmp_path):
    file, dataset = swept
    with pytest.raises(fastsnake.InputError, match="does not exist"):
        fastsnake.report(str(tmp_path / "missing.parquet"), str(tmp_path / "r.html"))
    empty = tmp_path / "empty.parquet"
    _rewrite(file, empty, lambda rows: [rows[k].clear() for k in rows])
    with pytest.raises(fastsnake.InputError, match="holds no games"):
        fastsnake.report(str(empty), str(tmp_path / "r.html"))
    not_a_sweep = tmp_path / "plain.parquet"
    pq.write_table(pa.table({"x": [1, 2]}), str(not_a_sweep))
    info = fastsnake.report([str(file), str(not_a_sweep)], str(tmp_path / "r.html"), worst=1, best=1, died=1,
                            random=1)
    assert len(info["problems"]) == 1 and "not a fastsnake sweep" in info["problems"][0]
    # A replay of another format version.
    other = tmp_path / "future.npz"
    game = fastsnake.play("greedy", 7, seed=1)
    game.save(other)
    with np.load(other) as z:
        fields = dict(z)
    fields["format"] = np.array("fastsnake-replay/9")
    np.savez(other, **fields)
    info = fastsnake.report([str(file), str(other)], str(tmp_path / "r.html"), worst=1, best=1, died=1, random=1)
    assert len(info["problems"]) == 1 and "fastsnake-replay/9" in info["problems"][0]


def test_a_folder_mid_resume_reports_its_finished_chunks(swept, tmp_path):
    import shutil

    _, dataset = swept
    partial = tmp_path / "partial"
    shutil.copytree(dataset, partial)
    (partial / "chunk-00000002.parquet").unlink()
    info = fastsnake.report(str(partial), str(tmp_path / "r.html"), worst=1, best=1, died=1, random=1)
    assert info["games"] == 3000 - 700
    assert any("holds 4 of its 5 chunks" in n for n in info["notes"])


def test_records_past_the_budget_are_listed_without_them(swept, tmp_path):
    file, _ = swept
    data = rp.build(rp.open_sources(str(file)), worst=10, best=0, died=0, random=0, sample=0, budget=200)
    embedded = [g for g in data["games"] if "data" in g]
    bare = [g for g in data["games"] if "data" not in g]
    assert bare and all("budget" in g["note"] for g in bare)
    assert sum(len(v) for g in embedded for v in g["data"].values()) <= 200


def test_the_page_is_self_contained_and_its_data_survives_script_breakers(tmp_path):
    data = {"kind": "player", "title": "</script><script>alert(1)</script>", "games": [], "problems": [],
            "notes": ["{{data}} </script> <!-- x"]}
    html = webpage.render(data)
    start = html.index('id="fastsnake-data">') + len('id="fastsnake-data">')
    block = html[start: html.index("</script>", start)]
    assert json.loads(block)["notes"] == data["notes"]
    assert "<script src" not in html and "<link" not in html


def test_cli_report_writes_the_page_and_words_problems_in_one_line(swept, tmp_path):
    file, _ = swept
    out = tmp_path / "r.html"
    run = subprocess.run([sys.executable, "-m", "fastsnake", "report", str(file), "--out", str(out), "--json",
                          "--worst", "2", "--best", "0", "--died", "2", "--random", "1", "--pick", "99999"],
                         capture_output=True, text=True)
    assert run.returncode == 2
    assert run.stderr.count("fastsnake: error:") == 1 and "game 99999 is not in the sweep" in run.stderr
    assert "Traceback" not in run.stderr
    result = json.loads(run.stdout)
    assert result["policies"] == ["greedy"] and out.exists()
    run = subprocess.run([sys.executable, "-m", "fastsnake", "report", str(file), "--out", str(tmp_path / "r.txt")],
                         capture_output=True, text=True)
    assert run.returncode == 2 and "*.html" in run.stderr


def test_sweep_result_report(tmp_path):
    result = fastsnake.sweep("cycle", 6, 50, seed=4)
    info = result.report(tmp_path / "mem.html", worst=1, best=1, died=0, random=1, sample=1)
    html = (tmp_path / "mem.html").read_text(encoding="utf-8")
    assert info["games"] == 50 and info["picked"] >= 2
    data = json.loads(html.split('id="fastsnake-data">')[1].split("</script>")[0])
    assert data["sections"][0]["summary"]["games_per_cpu_second"] > 0  # the run's timing, from memory
    assert PARQUET_META_KEY  # the file form records the same (next test)


def test_a_sweep_file_records_its_run_for_reports(tmp_path):
    out = tmp_path / "s.parquet"
    fastsnake.sweep("cycle", 6, 50, out=str(out))
    source = rp.open_sources(str(out))[0]
    assert source.run["games_per_cpu_second"] > 0 and source.run["machine"] and source.run["fastsnake"]
