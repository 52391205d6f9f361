"""`GameSettings` (the one value for the settings sweep, compare and play share), the public
`read_sweep`, and the shape of the API package (a module a concern, an index of names)."""

from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import fastsnake
from fastsnake.snake import timing_free

API = Path(fastsnake.__file__).resolve().parent / "snake" / "api"


def _same_games(a, b) -> bool:
    return a.drop_columns(["run_id"]).equals(b.drop_columns(["run_id"]))


def test_a_settings_value_plays_the_games_its_keywords_play():
    rules = fastsnake.GameSettings(6, seed=4, start_length=2, tail="blocked", max_moves=500)
    by_value = fastsnake.sweep("greedy", rules, 120)
    by_keywords = fastsnake.sweep("greedy", 6, 120, 4, start_length=2, tail="blocked", max_moves=500)
    assert timing_free(by_value.summary) == timing_free(by_keywords.summary)
    assert _same_games(by_value.table, by_keywords.table)
    assert by_value.summary["tail_rule"] == "blocked" and by_value.summary["max_moves"] == 500
    game = fastsnake.play("greedy", rules, game=17)
    assert game.summary == fastsnake.play("greedy", 6, 4, 17, start_length=2, tail="blocked", max_moves=500).summary
    assert game.moves.size == by_keywords.table.column("moves")[17].as_py()


def test_keywords_beside_a_settings_value_override_its_fields():
    rules = fastsnake.GameSettings(6, seed=4, tail="blocked")
    changed = fastsnake.sweep("greedy", rules, 60, 9, tail="follow")
    assert changed.summary["seed"] == 9 and changed.summary["tail_rule"] == "follow"
    assert _same_games(changed.table, fastsnake.sweep("greedy", 6, 60, 9).table)


def test_compare_takes_a_settings_value_of_several_boards():
    rules = fastsnake.GameSettings("6,7x6", seed=3, start_length=2)
    results = fastsnake.snake.compare_runs(["cycle", "greedy"], rules, 40)
    assert [(r.summary["rows"], r.summary["cols"]) for r in results] == [(6, 6), (6, 6), (7, 6), (7, 6)]
    assert all(r.summary["start_length"] == 2 and r.summary["seed"] == 3 for r in results)
    table = fastsnake.compare(["cycle", "greedy"], rules, 40)
    assert table.column("moves_mean").to_pylist() == [r.summary["moves_mean"] for r in results]


def test_a_settings_value_is_checked_like_the_keywords():
    with pytest.raises(ValueError, match="tail"):
        fastsnake.sweep("cycle", fastsnake.GameSettings(6, tail="sideways"), 10)
    with pytest.raises(ValueError, match="start_length"):
        fastsnake.sweep("cycle", fastsnake.GameSettings(6, start_length=1.5), 10)


def test_read_sweep_reads_files_folders_and_compare_files(tmp_path):
    path, folder, compared = tmp_path / "s.parquet", tmp_path / "folder", tmp_path / "c.parquet"
    fastsnake.sweep("greedy", 6, 150, 2, out=path)
    fastsnake.sweep("greedy", 6, 150, 2, out=folder, chunk_size=40)
    fastsnake.compare(["cycle", "greedy"], 6, 50, 2, out=compared)
    file_rows, folder_rows = fastsnake.read_sweep(path), fastsnake.read_sweep(folder)
    assert isinstance(file_rows, pa.Table) and file_rows.num_rows == 150
    assert file_rows.select(["game", "seed", "outcome", "moves"]).equals(
        folder_rows.select(["game", "seed", "outcome", "moves"]))
    both = fastsnake.read_sweep(compared)
    assert both.num_rows == 100 and set(both.column("policy").to_pylist()) == {"cycle", "greedy"}


def test_read_sweep_refuses_what_verify_calls_damaged(tmp_path):
    path = tmp_path / "s.parquet"
    fastsnake.sweep("greedy", 6, 200, 2, out=path)
    table = pq.read_table(path)
    meta = table.schema.metadata
    moved = table.set_column(0, "game", pa.array([g + 1 for g in table.column("game").to_pylist()], pa.int64()))
    pq.write_table(moved.replace_schema_metadata(meta), path)  # every game one place off: no page checksum sees it
    assert not fastsnake.verify_sweep(path)["ok"]
    with pytest.raises(fastsnake.InputError, match="s.parquet"):
        fastsnake.read_sweep(path)
    with pytest.raises(fastsnake.InputError, match="does not exist"):
        fastsnake.read_sweep(tmp_path / "none.parquet")


def test_the_api_is_a_module_a_concern_and_an_index():
    lines = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in API.glob("*.py")}
    assert lines.pop("__init__.py") <= 150, "the api package's __init__ is an index of the public names"
    assert lines and max(lines.values()) <= 500, lines
    assert not (API.parent / "api.py").exists()
    for name in ("sweep", "compare", "play", "read_sweep", "GameSettings", "verify_sweep", "resume_sweep"):
        assert getattr(fastsnake, name) is getattr(fastsnake.snake.api, name)
