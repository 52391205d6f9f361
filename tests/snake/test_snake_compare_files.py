"""Compare files are sweep data (issue 45): `verify` checks each run (policy and board), `replay`
re-creates any game, `read_sweep` and `report` read them, and a multi-size compare keeps every game."""

import hashlib
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import fastsnake
from fastsnake.cli import main
from fastsnake.errors import InputError
from fastsnake.snake import store
from fastsnake.snake.store import sweepfile
from fastsnake.snake.store.sweepfile import IDENTITY_COLUMNS, IDENTITY_COLUMNS_2, schema_names


@pytest.fixture(scope="module")
def two_boards(tmp_path_factory):
    path = tmp_path_factory.mktemp("compare") / "c.parquet"
    table = fastsnake.compare(["cycle", "greedy"], "6,4x6", 40, seed=3, out=str(path), threads=1)
    assert table.num_rows == 4
    return path


def test_a_multi_size_compare_keeps_every_game(two_boards):
    rows = store.read_sweep(two_boards)[1]
    assert rows.num_rows == 160 and tuple(rows.column_names) == schema_names()
    boards = set(zip(rows.column("policy").to_pylist(), rows.column("rows").to_pylist(),
                     rows.column("cols").to_pylist(), strict=True))
    assert boards == {("cycle", 6, 6), ("greedy", 6, 6), ("cycle", 4, 6), ("greedy", 4, 6)}
    report = fastsnake.report(str(two_boards), str(two_boards.with_suffix(".html")))
    assert report["games"] == 160 and len(report["policies"]) == 4


def test_verify_checks_every_run_of_a_compare_file(two_boards, capsys):
    report = fastsnake.verify_sweep(two_boards)
    assert report["complete"] and report["kind"] == "compare" and report["games"] == report["rows"] == 160
    assert [(s["policy"], s["board"], s["games"], s["rows"]) for s in report["sections"]] == [
        ("cycle", "6x6", 40, 40), ("greedy", "6x6", 40, 40), ("cycle", "4x6", 40, 40), ("greedy", "4x6", 40, 40)]
    assert main(["verify", str(two_boards)]) == 0
    out = capsys.readouterr().out
    assert out.count(": complete: 40 rows of 40 games") == 4 and "[greedy 4x6]" in out


def test_replay_recreates_any_game_of_a_compare_file(two_boards, tmp_path, capsys):
    game = fastsnake.replay_game(two_boards, 7, policy="greedy", size="4x6")
    played = fastsnake.play("greedy", (4, 6), seed=3, game=7)
    assert (game.rows, game.cols, game.game) == (4, 6, 7)
    assert np.array_equal(game.moves, played.moves) and game.outcome == played.outcome
    with pytest.raises(InputError, match="several runs"):
        fastsnake.replay_game(two_boards, 7, policy="greedy")
    with pytest.raises(InputError, match="no run"):
        fastsnake.replay_game(two_boards, 7, policy="phc", size=6)
    out = tmp_path / "g.npz"
    assert main(["replay", "--from", str(two_boards), "--policy", "cycle", "--size", "6", "--game", "3",
                 "--out", str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["game"] == 3 and fastsnake.load_game(out).rows == 6


def test_a_damaged_run_is_named(two_boards, tmp_path):
    table = pq.read_table(two_boards)
    moves = table.column("moves").to_numpy().copy()
    moves[100] = -1  # a game of the third run (cycle 4x6)
    bad = tmp_path / "bad.parquet"
    pq.write_table(table.set_column(3, "moves", pa.array(moves)), bad, write_page_checksum=True)
    report = fastsnake.verify_sweep(bad)
    assert not report["ok"] and [s["ok"] for s in report["sections"]] == [True, True, False, True]
    assert "[cycle 4x6]" in report["problems"][0]
    with pytest.raises(InputError, match="cycle 4x6"):
        store.read_sweep(bad)


def _as_previous_compare(path, out):
    """A one-board compare file as the previous release wrote it: `policy` first as a plain string,
    format /2's identity columns, no run id."""
    table = pq.read_table(path)
    meta = dict(table.schema.metadata)
    params = json.loads(meta[sweepfile.PARQUET_META_KEY])
    for key in ("run_id", "version"):
        params.pop(key, None)
    params["format"] = "fastsnake-sweep/2"
    raw = json.dumps(params).encode()
    policy = table.column("policy_asked").cast(pa.string())
    drop = [c for c in IDENTITY_COLUMNS if c not in IDENTITY_COLUMNS_2 or c == "policy"]
    old = table.drop_columns(drop).add_column(0, "policy", policy)
    meta[sweepfile.PARQUET_META_KEY] = raw
    meta[sweepfile.PARQUET_META_HASH_KEY] = hashlib.sha256(raw).hexdigest().encode()
    pq.write_table(old.replace_schema_metadata(meta), out, write_page_checksum=True)


def test_a_compare_file_of_the_previous_release_reads_verifies_and_replays(tmp_path):
    new = tmp_path / "new.parquet"
    fastsnake.compare(["cycle", "greedy"], 6, 30, seed=2, out=str(new), threads=1)
    old = tmp_path / "old.parquet"
    _as_previous_compare(new, old)
    assert pq.read_schema(old).names[0] == "policy" and pq.read_schema(old).field("policy").type == pa.string()
    assert fastsnake.verify_sweep(old)["complete"]  # was: "DAMAGED row 30 holds game 0"
    rows = store.read_sweep(old)[1]
    assert tuple(rows.column_names) == schema_names() and rows.column("run_id").null_count == 0
    assert rows.drop_columns(["run_id", "fastsnake_version"]).to_pydict() == (
        store.read_sweep(new)[1].drop_columns(["run_id", "fastsnake_version"]).to_pydict())
    assert fastsnake.replay_game(old, 4, policy="greedy").game == 4


def test_a_multi_size_compare_to_a_folder_keeps_one_file_per_board(tmp_path, capsys):
    folder = tmp_path / "study"
    assert main(["compare", "--size", "6,4x6", "--games", "20", "--policies", "cycle,greedy", "--seed", "1",
                 "--threads", "1", "--out", str(folder)]) == 0
    capsys.readouterr()
    assert sorted(p.name for p in folder.iterdir()) == ["compare-4x6.parquet", "compare-6x6.parquet"]
    assert all(fastsnake.verify_sweep(p)["complete"] for p in folder.iterdir())
    report = fastsnake.report(str(folder), str(tmp_path / "r.html"))
    assert report["games"] == 80 and len(report["policies"]) == 4
