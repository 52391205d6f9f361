"""`fastsnake puzzle …`: JSON keys, one-line errors, solution files."""

import json

import numpy as np
import pytest

from fastsnake.cli import main
from fastsnake.puzzle import PuzzleInputError, heuristic_names, load_solution

JSON_KEYS = {"solvable", "length", "moves", "nodes_generated", "nodes_expanded", "seconds",
             "algorithm", "heuristic", "optimal"}


def _json(capsys, argv):
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    return json.loads(out)


def test_solve_json_and_save_then_check(capsys, tmp_path):
    path = tmp_path / "sol.json"
    doc = _json(capsys, ["puzzle", "solve", "--start", "012 345 678", "--goal", "806 547 231",
                         "--algorithm", "astar", "--heuristic", "manhattan", "--json", "--save", str(path)])
    assert JSON_KEYS <= set(doc)
    assert doc["length"] == 31 and doc["optimal"] and doc["solvable"]
    assert len(doc["moves_seed"]) == 31
    sol = load_solution(path)
    assert sol.moves == doc["moves"] and len(sol.states()) == 32
    check = _json(capsys, ["puzzle", "check", str(path), "--json"])
    assert check["valid"] and check["length"] == 31


def test_solve_text_output(capsys):
    assert main(["puzzle", "solve", "--rows", "2", "--cols", "4", "--start", "0123 4567",
                 "--goal", "3254 7610", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "optimal length: 36" in out


def test_unsolvable_json(capsys):
    doc = _json(capsys, ["puzzle", "solve", "--start", "012 345 687", "--json"])
    assert doc["solvable"] is False and doc["length"] is None and doc["nodes_generated"] == 0


@pytest.mark.parametrize("argv, fragment", [
    (["--start", "012 345 677"], "appears twice"),
    (["--start", "0 1 2 3 4 5 6 7", "--rows", "3", "--cols", "3"], "has 8 tiles"),
    (["--start", "0 1 2 3 4 5 6 7 8", "--goal", "0 1 2 3 4 5 6 7 9"], "outside 0..8"),
    (["--start", "0 1 2 3 4 5 6 7"], "--rows and --cols"),
    (["--start", "012 345 678", "--heuristic", "pdb", "--partition", "1,2/3"], "exactly once"),
    (["--start", "012 345 678", "--heuristic", "pdb", "--pdb", "1,2,3,4,5,6,7,8,9/10"], "must list tiles 1..8"),
    (["--size", "5x5", "--start", " ".join(map(str, range(25))), "--heuristic", "walking-distance"],
     "walking distance"),
])
def test_bad_input_one_line_exit_2(capsys, argv, fragment):
    assert main(["puzzle", "solve", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith("fastsnake: error:")
    assert fragment in captured.err


def test_compare_agrees(capsys):
    # IDA* with every heuristic but misplaced tiles: kernels the quick suite compiles anyway.
    names = [h for h in heuristic_names() if h != "misplaced"]
    doc = _json(capsys, ["puzzle", "compare", "--rows", "3", "--cols", "3", "--count", "4",
                         "--seed", "2", "--heuristics", ",".join(names), "--algorithm", "idastar", "--json", "--quiet"])
    assert doc["lengths_agree"] is True
    assert set(doc["heuristics"]) == set(names)
    assert all(v["solved"] == 4 for v in doc["heuristics"].values())
    assert (doc["heuristics"]["linear-conflict"]["mean_nodes_generated"]
            <= doc["heuristics"]["manhattan"]["mean_nodes_generated"])


def test_random_verb(capsys):
    doc = _json(capsys, ["puzzle", "random", "--size", "4x4", "--count", "3", "--seed", "9", "--json"])
    from fastsnake.puzzle import is_solvable
    assert len(doc["instances"]) == 3
    for b in doc["instances"]:
        assert is_solvable(np.array(b), np.array(doc["goal"]), 4, 4)


@pytest.mark.parametrize("mutate, fragment", [
    (lambda d: d.update(format="other/1"), "format"),
    (lambda d: d.update(moves=d["moves"][:-1], length=len(d["moves"]) - 1), "do not end at the goal"),
    (lambda d: d.update(start=d["start"][:-1]), "tiles"),
    (lambda d: d.update(moves="UUUUUUUU", length=8), "leaves the board"),
    (lambda d: d.pop("goal"), "missing 'goal'"),
])
def test_load_solution_rejects_bad_files(tmp_path, mutate, fragment, capsys):
    path = tmp_path / "s.json"
    _json(capsys, ["puzzle", "solve", "--start", "0123 4567", "--goal", "1023 4567", "--json",
                   "--save", str(path)])
    doc = json.loads(path.read_text())
    mutate(doc)
    path.write_text(json.dumps(doc))
    with pytest.raises(PuzzleInputError, match=fragment):
        load_solution(path)
    assert main(["puzzle", "check", str(path)]) == 2


def test_load_solution_not_json(tmp_path):
    path = tmp_path / "x.json"
    path.write_text("{nope")
    with pytest.raises(PuzzleInputError, match="not JSON"):
        load_solution(path)


def test_check_verifies_an_optimal_claim(capsys, tmp_path):
    """A file saying "optimal": true of a longer path is not believed: check searches and says so."""
    from fastsnake.puzzle import apply_moves

    path = tmp_path / "sol.json"
    _json(capsys, ["puzzle", "solve", "--start", "012 345 678", "--goal", "806 547 231", "--algorithm", "astar",
                   "--json", "--save", str(path)])
    doc = json.loads(path.read_text())
    start = np.array(doc["start"])
    detour = next(m + back for m, back in ("UD", "DU", "LR", "RL") if _legal(apply_moves, start, m))
    doc["moves"] = detour + doc["moves"]
    doc["length"] = len(doc["moves"])
    path.write_text(json.dumps(doc))
    assert main(["puzzle", "check", str(path), "--json"]) == 2
    out, err = capsys.readouterr()
    report = json.loads(out.splitlines()[0])
    assert report["optimal"] is False and report["optimal_claimed"] is True and report["optimal_length"] == 31
    assert "the optimum is 31" in err


def _legal(apply_moves, board, move) -> bool:
    try:
        apply_moves(board, move, 3, 3)
    except ValueError:
        return False
    return True


def test_a_newline_in_a_saved_path_is_not_printed_raw(capsys, tmp_path):
    """Issue 37 item 9: a crafted file name cannot forge another line of the output."""
    path = tmp_path / "a\nb.json"
    assert main(["puzzle", "solve", "--start", "012 345 678", "--goal", "102 345 678", "--save", str(path)]) == 0
    assert main(["puzzle", "check", str(path)]) == 0
    out = capsys.readouterr().out
    assert "a\nb" not in out and out.count("a\\nb") == 2
