"""Batches: `solve_many` and `fastsnake puzzle solve --batch`: input order, thread-count
independence, bad lines reported by line number while the others are solved."""

import json

import numpy as np
import pytest
from test_puzzle_korf import korf100

from fastsnake.cli import main
from fastsnake.puzzle import PuzzleInputError, apply_moves, random_solvable, solve, solve_many

KEYS = {"line", "length", "moves", "nodes_expanded", "seconds", "optimal"}


def _mixed_3x3(count, seed):
    """Instances as batch lines, some with their own goal after ';'."""
    rng = np.random.default_rng(seed)
    lines = []
    for i in range(count):
        goal = rng.permutation(9) if i % 3 == 0 else np.arange(9)
        start = random_solvable(3, 3, goal, rng)
        text = " ".join(map(str, start))
        lines.append(text + (" ; " + " ".join(map(str, goal)) if i % 3 == 0 else ""))
    return lines


def _signature(results):
    return [(r.length, r.moves, r.nodes_generated, r.algorithm, r.heuristic) for r in results]


def test_solve_many_order_and_threads_independence():
    lines = _mixed_3x3(24, 1)
    one = solve_many(lines, rows=3, cols=3, threads=1)
    two = solve_many(lines, rows=3, cols=3, threads=2)
    four = solve_many(lines, rows=3, cols=3, threads=4)
    assert _signature(one) == _signature(two) == _signature(four)
    for text, r in zip(lines, one, strict=True):  # each result belongs to its own line, solved alone alike
        start, _, goal = text.partition(";")
        alone = solve(start, goal or None, rows=3, cols=3)
        assert (r.length, r.moves) == (alone.length, alone.moves) and r.optimal
        assert apply_moves(r.start, r.moves, 3, 3).tolist() == r.goal


def test_solve_many_korf_easy_with_shared_pdb():
    rows = [r for r in korf100() if r[0] in (12, 55, 79, 42, 97)]
    res = solve_many([r[3] for r in rows], rows=4, cols=4, threads=2, partition="5-5-5")
    assert [r.length for r in res] == [r[1] for r in rows]
    assert all(r.optimal and r.heuristic == "pdb" for r in res)


def test_solve_many_reduce_big_boards_threads():
    rng = np.random.default_rng(4)
    goal = rng.permutation(400)
    starts = [random_solvable(20, 20, goal, rng) for _ in range(4)]
    one = solve_many([(s, goal) for s in starts], rows=20, cols=20, threads=1)
    two = solve_many([(s, goal) for s in starts], rows=20, cols=20, threads=2)
    assert _signature(one) == _signature(two)
    for s, r in zip(starts, one, strict=True):
        assert r.algorithm == "reduce" and not r.optimal
        assert apply_moves(s, r.moves, 20, 20).tolist() == goal.tolist()


def test_solve_many_bad_instances():
    good = "1 0 2 3 4 5 6 7 8"
    with pytest.raises(PuzzleInputError, match="instance 2: start '1 2' has 2 tiles"):
        solve_many([good, "1 2", good], rows=3, cols=3)
    res = solve_many([good, "1 2", good, "0 1 2 3 4 5 6 7 8 ; 0 1 2 3 4 5 6 7 7"],
                     rows=3, cols=3, errors="keep")
    assert res[0].length == 1 and res[2].length == 1
    assert isinstance(res[1], PuzzleInputError) and "instance 2" in str(res[1])
    assert isinstance(res[3], PuzzleInputError) and "appears twice" in str(res[3])
    with pytest.raises(PuzzleInputError, match="threads"):
        solve_many([good], rows=3, cols=3, threads=0)


def _batch_file(tmp_path, lines):
    path = tmp_path / "batch.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_cli_batch_json_order(tmp_path, capsys):
    lines = _mixed_3x3(9, 2)
    path = _batch_file(tmp_path, ["# nine 3x3 instances", *lines[:4], "", *lines[4:]])
    for threads in ("1", "2"):
        assert main(["puzzle", "solve", "--size", "3x3", "--batch", str(path), "--json",
                     "--threads", threads]) == 0
        out = capsys.readouterr().out
        assert out.count("\n") == 1
        docs = json.loads(out)
        assert [d["line"] for d in docs] == [2, 3, 4, 5, 7, 8, 9, 10, 11]
        assert all(KEYS <= set(d) and d["optimal"] for d in docs)
        if threads == "1":
            first = [d["moves"] for d in docs]
        else:
            assert [d["moves"] for d in docs] == first


def test_cli_batch_bad_lines_exit_2_after_solving_the_rest(tmp_path, capsys):
    good = "1 0 2 3 4 5 6 7 8"
    path = _batch_file(tmp_path, [good, "1 2 3", good, "0 1 2 3 4 5 6 7 x", "1 0 2 3 4 5 6 8 7"])
    assert main(["puzzle", "solve", "--size", "3x3", "--batch", str(path), "--json"]) == 2
    captured = capsys.readouterr()
    docs = json.loads(captured.out)
    assert [d["line"] for d in docs] == [1, 2, 3, 4, 5]
    assert docs[0]["length"] == 1 and docs[2]["length"] == 1
    assert "has 3 tiles" in docs[1]["error"] and "must be integers" in docs[3]["error"]
    assert docs[4]["solvable"] is False
    err = captured.err
    assert err.count("\n") == 1 and err.startswith("fastsnake: error:")
    assert "2 bad lines" in err and "line 2:" in err and "line 4:" in err
    # text mode: a line per instance, the same exit code
    assert main(["puzzle", "solve", "--size", "3x3", "--batch", str(path)]) == 2
    out = capsys.readouterr().out
    assert "line 2: error:" in out and "line 5: unsolvable" in out


@pytest.mark.parametrize("argv, fragment", [
    (["--batch", "missing.txt", "--size", "3x3"], "cannot read batch file"),
    (["--start", "012 345 678", "--threads", "2", "--algorithm", "astar"], "only IDA* searches on several threads"),
    (["--size", "3x3"], "exactly one of --start and --batch"),
])
def test_cli_batch_usage_errors(capsys, argv, fragment):
    assert main(["puzzle", "solve", *argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and fragment in captured.err and captured.err.count("\n") == 1


def test_cli_reduce_big_board_save_and_check(tmp_path, capsys):
    rng = np.random.default_rng(8)
    start = random_solvable(20, 20, np.arange(400), rng)
    path = tmp_path / "big.json"
    assert main(["puzzle", "solve", "--size", "20x20", "--start", " ".join(map(str, start)),
                 "--json", "--save", str(path)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["algorithm"] == "reduce" and doc["optimal"] is False and doc["status"] == "solved"
    assert main(["puzzle", "check", str(path), "--json"]) == 0
    check = json.loads(capsys.readouterr().out)
    assert check["valid"] and check["length"] == doc["length"] and check["optimal"] is False
