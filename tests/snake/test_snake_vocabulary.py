"""One vocabulary: a game that ends by collision "died" in outcomes, columns, options, keys and docs
(0.1.0's old spellings, deprecated then, are gone in 0.2.0); `summary` is a dict on every result; library
errors name values, not command-line flags; the envs page's first example is a move that lives."""

import ast
import json
import re
from pathlib import Path

import numpy as np
import pytest

import fastsnake
from fastsnake.cli import main
from fastsnake.snake.stats import SummaryAccumulator

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def greedy_sweep(tmp_path_factory):
    path = tmp_path_factory.mktemp("vocabulary") / "greedy.parquet"
    return path, fastsnake.sweep("greedy", 6, 60, 3, out=path, tail="blocked")


def test_the_count_column_option_and_outcome_all_say_died(greedy_sweep, tmp_path, capsys):
    path, result = greedy_sweep
    outcomes = result.table.column("outcome").to_pylist()
    assert result.summary["deaths"] == outcomes.count("died") > 0
    first_died = outcomes.index("died")
    assert fastsnake.replay_game(path, "died").game == first_died == fastsnake.replay_game(path).game
    assert main(["compare", "--policies", "greedy", "--size", "6", "--games", "60", "--seed", "3",
                 "--tail", "blocked"]) == 0
    header = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("policy"))
    assert "died %" in header and "lost" not in header
    assert main(["replay", "--from", str(path), "--pick", "died", "--out", str(tmp_path / "d.npz"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["game"] == first_died


def test_the_spellings_deprecated_in_0_1_0_are_gone_in_0_2_0(greedy_sweep, tmp_path, capsys):
    path, result = greedy_sweep
    with pytest.raises(KeyError):
        result.summary["losses"]  # noqa: B018 - the read is the test
    assert result.summary.get("losses") is None
    with pytest.raises(ValueError, match="lost"):
        fastsnake.replay_game(path, "lost")
    assert main(["replay", "--from", str(path), "--pick", "lost", "--out", str(tmp_path / "l.npz")]) == 2
    assert capsys.readouterr().err.startswith("fastsnake: error:") and not (tmp_path / "l.npz").exists()
    game = fastsnake.play("greedy", 6, 3)
    assert type(game.summary) is dict and not callable(game.summary)
    with pytest.raises(SystemExit) as stopped:
        main(["tour", "--jumps=1,2", "--size", "5"])
    assert stopped.value.code == 2 and "unrecognized arguments: --jumps" in capsys.readouterr().err


def test_statistics_stored_under_the_old_name_read_as_deaths():
    acc = SummaryAccumulator()
    acc.add(np.array([1, 2, 2, 3]), np.array([5, 6, 7, 8]), np.array([1, 1, 1, 1]), np.array([4, 4, 4, 4]))
    stored = acc.to_json()
    stored["losses"] = stored.pop("deaths")  # as sweep folders written before the rename hold them
    assert SummaryAccumulator.from_json(stored).as_dict()["deaths"] == 2


def test_summary_is_a_dict_on_every_result(greedy_sweep):
    _, result = greedy_sweep
    game = fastsnake.play("greedy", 6, 3)
    assert isinstance(result.summary, dict) and isinstance(game.summary, dict)
    assert game.summary["moves"] == len(game.moves)


def _raised_texts(tree):
    for node in ast.walk(tree):
        if isinstance(node, ast.Raise) and isinstance(node.exc, ast.Call):
            for arg in node.exc.args:
                for part in ast.walk(arg):
                    if isinstance(part, ast.Constant) and isinstance(part.value, str):
                        yield node.lineno, part.value


def test_library_errors_name_values_not_command_line_flags(greedy_sweep):
    flag = re.compile(r"(^|[\s('\"])--[a-z]")
    found = []
    for source in (ROOT / "fastsnake").rglob("*.py"):
        if "cli" in source.relative_to(ROOT / "fastsnake").parts:
            continue
        found += [f"{source.name}:{line}: {text}" for line, text in _raised_texts(ast.parse(source.read_text()))
                  if flag.search(text)]
    assert found == []
    with pytest.raises(fastsnake.InputError, match="pick='best' is not 'died'") as info:
        fastsnake.replay_game(greedy_sweep[0], "best")
    assert "--" not in str(info.value)


def test_the_envs_page_first_example_is_a_move_that_lives():
    pytest.importorskip("gymnasium")
    text = (ROOT / "docs" / "envs.md").read_text()
    code = re.search(r"```python\n(.*?)\n```", text, re.S)[1]
    namespace: dict = {}
    exec(compile(code.replace("num_envs=4096", "num_envs=8"), "envs.md", "exec"), namespace)
    assert namespace["reward"] == 0  # the single env's step: -1 had the snake died
    assert namespace["action"] in np.flatnonzero(namespace["info"]["action_mask"][0] >= 0)
    assert not np.any(namespace["terminated"]) and np.all(namespace["rewards"] >= 0)
