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


def test_the_summary_table_is_the_one_compare_prints(swept, tmp_path):
    file, _ = swept
    data = rp.build(rp.open_sources(str(file)), worst=1, best=1, died=1, random=1, sample=2)
    header, rows = fastsnake.snake.summary_rows([fastsnake.sweep("greedy", 7, 3000, seed=11).summary])
    assert data["summary_table"]["header"] == header
    timing = header.index("games/s")
    assert [c for i, c in enumerate(data["summary_table"]["rows"][0]) if i != timing] == \
        [c for i, c in enumerate(rows[0]) if i != timing]


def test_compare_sections_and_paired_difference(tmp_path):
    out = tmp_path / "c.parquet"
    fastsnake.compare(["cycle", "greedy"], 6, 400, seed=2, out=str(out))
    sources = rp.open_sources(str(out))
    assert [s.policy for s in sources] == ["cycle", "greedy"]
    data = rp.build(sources, worst=2, best=2, died=2, random=2, sample=3)
    (pair,) = data["paired"]
    table = pq.read_table(str(out)).to_pandas()
    a = table[table.policy == "cycle"].set_index("game").moves
    b = table[table.policy == "greedy"].set_index("game").moves
    diff = (b - a).to_numpy()
    assert pair["games"] == 400 and sum(pair["counts"]) == 400
    assert pair["mean"] == pytest.approx(diff.mean())
    assert (pair["b_fewer"], pair["b_more"], pair["ties"]) == ((diff < 0).sum(), (diff > 0).sum(), (diff == 0).sum())
    edges = np.asarray(pair["edges"])
    assert np.histogram(diff, bins=edges - 0.5)[0].tolist() == pair["counts"]
    assert {g["policy"] for g in data["games"]} == {"cycle", "greedy"}


def test_every_picked_game_is_re_played_as_its_row_says(swept):
    file, _ = swept
    data = rp.build(rp.open_sources(str(file)), worst=3, best=3, died=3, random=3, picks=["longest", "41", "died"])
    rows = {r["game"]: r for r in pq.read_table(str(file)).to_pylist()}
    assert data["problems"] == []
    assert any("pick 41" in g["why"] for g in data["games"] if g["game"] == 41)
    first_died = min(r["game"] for r in rows.values() if r["outcome"] == "died")
    assert any("pick died" in g["why"] for g in data["games"] if g["game"] == first_died)
    with pytest.warns(DeprecationWarning, match="pick='died'"):
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
    assert len(info["problems"]) == 1 and f"game {worst['game']} no longer replays" in info["problems"][0]
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
