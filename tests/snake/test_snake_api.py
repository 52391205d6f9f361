"""The public Snake API: the same rows and summaries as the CLI, errors in library words."""

import json

import pyarrow.parquet as pq
import pytest

import fastsnake
from fastsnake.cli import main
from fastsnake.cli.common import RENAMED_JSON_KEYS
from fastsnake.snake import timing_free


def _cli_json(capsys, *argv):
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_sweep_summary_and_rows_are_what_the_cli_prints_and_writes(tmp_path, capsys):
    out = tmp_path / "cli.parquet"
    printed = _cli_json(capsys, "sweep", "--policy", "greedy", "--size", "7x6", "--games", "300", "--seed", "5",
                        "--tail", "blocked", "--start-length", "2", "--out", str(out))
    result = fastsnake.sweep("greedy", (7, 6), 300, 5, tail="blocked", start_length=2)
    for old, new in RENAMED_JSON_KEYS.items():  # the JSON prints a renamed key's old name beside it for a release
        if old in printed:
            assert printed.pop(old) == printed[new]
    assert timing_free(result.summary) == timing_free(printed)
    assert set(result.summary) == set(printed)
    assert result.table.drop_columns(["run_id"]).equals(pq.read_table(out).drop_columns(["run_id"]))  # two runs
    assert result.table.column_names[:6] == ["game", "seed", "outcome", "moves", "apples", "length"]


def test_sizes_in_every_form_are_the_same_board():
    tables = [fastsnake.sweep("cycle", size, 50, 2).table for size in (6, (6, 6), "6x6", "6", [6, 6])]
    # the same games; each run has its own run id
    assert all(t.drop_columns(["run_id"]).equals(tables[0].drop_columns(["run_id"])) for t in tables)


@pytest.mark.parametrize("policy, options", [("greedy", {}), ("cycle", {"cycle": "random"}), ("phc", {})])
def test_play_k_is_game_k_of_the_sweep(policy, options):
    table = fastsnake.sweep(policy, 6, 40, 13, **options).table
    for k in (0, 17, 39):
        game = fastsnake.play(policy, 6, 13, game=k, **options)
        row = table.slice(k, 1).to_pylist()[0]
        assert (game.outcome, len(game.moves), game.apples, game.length, game.seed, game.game) == (
            row["outcome"], row["moves"], row["apples"], row["length"], 13, k)
        assert game.moves.dtype.name == "uint8"
    assert (fastsnake.play("cycle", 6).cycle is not None) and fastsnake.play("greedy", 6).cycle is None


def test_compare_is_a_row_per_policy_with_the_sweep_summaries(tmp_path, capsys):
    out = tmp_path / "cmp.parquet"
    table = fastsnake.compare(["cycle", "greedy"], 6, 120, 4, out=out, cycle="random")
    assert table.column("policy").to_pylist() == ["cycle", "greedy"]
    for name, row in zip(["cycle", "greedy"], table.to_pylist(), strict=True):
        options = {"cycle": "random"} if name == "cycle" else {}
        alone = fastsnake.sweep(name, 6, 120, 4, **options).summary
        assert row["moves_mean"] == alone["moves_mean"] and row["win_rate"] == alone["win_rate"]
        assert json.loads(row["options"]) == alone["options"]
    assert pq.read_table(out).num_rows == 240
    printed = _cli_json(capsys, "compare", "--policies", "cycle,greedy", "--size", "6", "--games", "120", "--seed", "4",
                        "--cycle", "random")
    assert [p["moves_mean"] for p in printed] == table.column("moves_mean").to_pylist()


def test_to_pandas_and_folder_results():
    pytest.importorskip("pandas")
    result = fastsnake.sweep("greedy", 5, 60, 1)
    frame = result.to_pandas()
    assert list(frame["moves"]) == result.table.column("moves").to_pylist()
    assert result.summary_frame()["games"][0] == 60


def test_a_folder_sweep_reads_back_the_same_rows(tmp_path):
    memory = fastsnake.sweep("greedy", 5, 90, 8)
    folder = fastsnake.sweep("greedy", 5, 90, 8, out=tmp_path / "f", chunk_size=40)
    assert folder.summary["chunks"] == 3 and folder.summary["moves_mean"] == memory.summary["moves_mean"]
    assert folder.table.column_names == memory.table.column_names
    assert folder.table.drop_columns(["run_id"]).equals(memory.table.drop_columns(["run_id"]))
    again = fastsnake.resume_sweep(tmp_path / "f")
    assert again.summary["games"] == 90


@pytest.mark.parametrize(
    "call, needle",
    [
        (lambda: fastsnake.sweep("nope", 6, 10), "unknown policy 'nope'; available: cell, cycle"),
        (lambda: fastsnake.sweep("cycle", 5, 10), "a 5x5 board has no Hamiltonian cycle"),
        (lambda: fastsnake.sweep("cycle", 6, -3), "games=-3: a sweep needs at least 1 game"),
        (lambda: fastsnake.sweep("cycle", 6, 2.5), "games=2.5 is not a whole number"),
        (lambda: fastsnake.sweep("cycle", 6, 10, tail="sideways"),
         "tail rule 'sideways' is not one of follow, blocked"),
        (lambda: fastsnake.sweep("greedy", 6, 10, speed=3), "policy 'greedy' takes no option 'speed'"),
        (lambda: fastsnake.sweep("cycle", 6, 10, cycle="spiral"), "cycle='spiral' is not one of zigzag, random"),
        (lambda: fastsnake.sweep("cycle", "1x5", 10), "size '1x5': rows=1 is outside 2..256"),
        (lambda: fastsnake.sweep("cycle", "six", 10), "size 'six' is not RxC, N or (rows, cols)"),
        (lambda: fastsnake.sweep("cycle", 6, 10, seed=-1), "seed -1 must be between 0 and 2**64-1"),
        (lambda: fastsnake.sweep("cycle", 6, 10, start_length=36), "start length 36 must be between 1 and 35"),
        (lambda: fastsnake.sweep("cycle", 6, 10, threads=999), "threads=999: this machine allows 1.."),
        (lambda: fastsnake.play("cycle", 6, game=-1), "game=-1 must be a whole number >= 0"),
        (lambda: fastsnake.compare(["cycle", "greedy"], 6, 5, room=3), "no compared policy takes option 'room'"),
        (lambda: fastsnake.sweep("cycle", 6, 5, out="/nonexistent/x.parquet"), "folder '/nonexistent' does not exist"),
    ],
)
def test_bad_input_raises_a_value_error_in_library_words(call, needle):
    with pytest.raises(ValueError) as info:
        call()
    assert isinstance(info.value, fastsnake.InputError)
    message = str(info.value)
    assert needle in message and "--" not in message and "\n" not in message


def test_the_other_problems_are_reachable_from_the_top():
    assert fastsnake.puzzle.__name__ == "fastsnake.puzzle" and fastsnake.tour.__name__ == "fastsnake.tour"
    assert {"sweep", "play", "compare", "policies", "register_policy", "Policy"} <= set(dir(fastsnake))


def test_unknown_policy_error_suggests_close_names_and_stays_one_short_line(monkeypatch):
    from fastsnake.snake import policies as registry

    with pytest.raises(fastsnake.InputError, match=r"did you mean 'strongest'\?"):
        fastsnake.sweep("stronges", 6, 10)
    many = [f"policy-number-{i:02d}" for i in range(40)]
    monkeypatch.setattr(registry, "available", lambda: many)
    with pytest.raises(fastsnake.InputError) as raised:
        fastsnake.sweep("zzz", 6, 10)
    message = str(raised.value)
    listed = message.split("available: ")[1].split(" and ")[0].split(", ")
    assert listed == many[: len(listed)] and len(", ".join(listed)) <= 120 < len(", ".join(many[: len(listed) + 1]))
    assert f"and {len(many) - len(listed)} more" in message
    assert len(message) < 240


def test_a_policy_object_still_plays_after_its_name_was_unregistered():
    from fastsnake.snake.policies import unregister_policy

    def always_right(state, ws):
        return 1

    policy = fastsnake.Policy(always_right)
    first = fastsnake.sweep(policy, 4, 3, rows=False).summary["games"]
    unregister_policy(fastsnake.snake.api.policy_name(policy))
    assert fastsnake.sweep(policy, 4, 3, rows=False).summary["games"] == first == 3
