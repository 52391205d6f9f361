"""`replay --check` ties a replay file to its game (issue 46, item 4): the golden 10x10 greedy game
with its rows set to 11, 12, 20 or 255, its seed or game index changed, its first apple moved from
cell 36 to 15, a move changed, or its outcome changed is refused, naming the field. Each was
accepted before ("valid ... died after 189 moves", exit 0): only the rules were checked.
"""

from pathlib import Path

import numpy as np
import pytest

import fastsnake
from fastsnake.cli import main
from fastsnake.snake.replay import ReplayError

GOLDEN = Path(__file__).resolve().parents[1] / "viewer" / "golden" / "greedy10.npz"


def altered(tmp_path, name, **changes):
    with np.load(GOLDEN, allow_pickle=False) as data:
        fields = {k: data[k] for k in data.files}
    for key, change in changes.items():
        if callable(change):
            fields[key] = change(fields[key])
        else:
            fields[key] = np.array(change) if isinstance(change, str) else np.asarray(change, fields[key].dtype)
    path = tmp_path / f"{name}.npz"
    np.savez_compressed(path, **fields)
    return path


def moved_first_apple(apples):
    apples = apples.copy()
    assert apples[0] == 36
    apples[0] = 15
    return apples


def changed_move(moves):
    moves = moves.copy()
    moves[3] = (moves[3] + 1) % 4
    return moves


CASES = {
    "rows-11": (dict(rows=11), "field 'body'|field 'apples'"),
    "rows-12": (dict(rows=12), "field 'body'|field 'apples'"),
    "rows-20": (dict(rows=20), "field 'body'|field 'apples'"),
    "rows-255": (dict(rows=255), "field 'body'|field 'apples'"),
    "seed": (dict(seed=lambda s: np.uint64(int(s) + 1)), "field 'body'|field 'apples'"),
    "game": (dict(game=lambda g: np.uint64(int(g) + 1)), "field 'body'|field 'apples'"),
    "first-apple": (dict(apples=moved_first_apple), "field 'apples': apple 0 is 15 in the file, 36"),
}


def test_the_golden_file_is_its_game():
    game = fastsnake.check_game(GOLDEN)
    assert (game.policy, game.rows, game.cols, game.outcome, len(game.moves)) == ("greedy", 10, 10, "died", 189)


@pytest.mark.parametrize("case", sorted(CASES))
def test_an_altered_replay_is_refused_naming_the_field(tmp_path, capsys, case):
    changes, words = CASES[case]
    path = altered(tmp_path, case, **changes)
    with pytest.raises(ReplayError, match=words):
        fastsnake.check_game(path)
    capsys.readouterr()
    assert main(["replay", "--check", str(path)]) == 2
    err = capsys.readouterr().err
    assert "is not the game of 'greedy'" in err and "field '" in err


def test_another_policys_game_or_a_changed_move_is_refused(tmp_path):
    """The golden game named as another policy's (cycle: its own start and moves), and a changed
    move: refused by the rules or by the re-play, never accepted."""
    path = altered(tmp_path, "relabelled", policy="cycle")
    with pytest.raises(ReplayError, match="field '"):
        fastsnake.check_game(path)
    path = altered(tmp_path, "move", moves=changed_move)
    with pytest.raises(ReplayError, match="field '|breaks the rules"):
        fastsnake.check_game(path)


def test_the_viewer_still_reads_a_file_of_a_policy_it_cannot_play(tmp_path):
    """`load_game` (the viewer's, the report's player) checks the rules only: a file of a policy not
    installed here still shows; `check_game` says it cannot be checked."""
    path = altered(tmp_path, "unknown", policy="no-such-policy")
    assert fastsnake.load_game(path).policy == "no-such-policy"
    with pytest.raises(fastsnake.PolicyError, match="no-such-policy"):
        fastsnake.check_game(path)
