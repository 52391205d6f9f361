"""`fastsnake tour` / `fastsnake reach`: one JSON object on stdout, one-line errors."""

import json

import pytest
from tour_naive import check_tour

from fastsnake.cli import main
from fastsnake.tour.io import load_tour

KNIGHT = [(dr, dc) for dr, dc in ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1))]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    lines = out.strip().splitlines()
    assert len(lines) == 1
    return json.loads(lines[0])


def test_tour_json(capsys):
    data = run_json(capsys, "tour", "--piece", "1,2", "--size", "8", "--start", "a1")
    assert data["found"] is True and data["exists"] is True
    assert data["path"][0] == 56 and data["nodes"] >= 63 and data["seconds"] >= 0
    assert check_tour(8, 8, KNIGHT, data["path"]) is None


def test_tour_closed_and_impossible(capsys):
    data = run_json(capsys, "tour", "--piece", "1,2", "--size", "10x12", "--closed", "--start", "3,4")
    assert check_tour(10, 12, KNIGHT, data["path"], closed=True) is None and data["closed"]
    data = run_json(capsys, "tour", "--piece", "1,2", "--size", "4x9", "--closed")
    assert data["exists"] is False and data["found"] is False and data["path"] is None
    assert "Schwenk" in data["reason"]
    data = run_json(capsys, "tour", "--piece", "1,3", "--size", "8")
    assert data["exists"] is False and "colour" in data["reason"]


def test_tour_asymmetric_and_compound(capsys):
    data = run_json(capsys, "tour", "--moves", "0,1;1,0;-1,-1", "--asymmetric", "--size", "4", "--start", "0,0")
    assert data["piece"]["directed"] is True
    if data["found"]:
        assert check_tour(4, 4, [(0, 1), (1, 0), (-1, -1)], data["path"]) is None
    data = run_json(capsys, "tour", "--piece", "1,2", "--piece", "0,1", "--size", "5")
    assert data["found"] and len(data["piece"]["jumps"]) == 12


def test_tour_count(capsys):
    data = run_json(capsys, "tour", "--piece", "1,2", "--size", "5", "--count", "--start", "a1")
    assert data["count"] == 304 and data["complete"] is True
    data = run_json(capsys, "tour", "--piece", "1,2", "--size", "5x6", "--count", "--closed")
    assert data["count"] == 8 and data["directed_count"] == 16


def test_tour_no_path_and_save(capsys, tmp_path):
    target = tmp_path / "big.npz"
    data = run_json(capsys, "tour", "--piece", "1,2", "--size", "200x300", "--no-path", "--save", str(target))
    assert data["path"] is None and data["path_omitted"] is True and data["method"] == "construct"
    assert load_tour(target)["path"].shape == (60000,)


def test_tour_human_output(capsys):
    code, out, err = run(capsys, "tour", "--piece", "1,2", "--size", "5", "--start", "c3")
    assert code == 0 and "found" in out and " a  b  c  d  e" in out
    code, out, err = run(capsys, "reach", "--piece", "1,2", "--size", "8", "--start", "a1", "--jumps", "2")
    assert code == 0 and out.startswith("9 squares at exactly 2 jumps")


def test_reach_json(capsys):
    data = run_json(capsys, "reach", "--piece", "1,2", "--size", "8", "--start", "a1", "--jumps", "5")
    assert data["count"] == 10 and len(data["cells"]) == 10
    data = run_json(capsys, "reach", "--piece", "1,2", "--size", "8", "--start", "0,0", "-n", "3", "--walk")
    assert data["count"] == 2 + 20 and data["walk"] is True  # odd squares within 3 jumps
    data = run_json(capsys, "reach", "--moves", "0,1", "--asymmetric", "--size", "1x9", "-n", "4")
    assert data["cells"] == [4]


@pytest.mark.parametrize("argv,needle", [
    (["tour", "--piece", "1,2", "--size", "0"], "size"),
    (["tour", "--piece", "1,2", "--size", "4001"], "4001"),
    (["tour", "--piece", "1-2", "--size", "8"], "'1-2'"),
    (["tour", "--piece", "1,2", "--size", "8", "--start", "j1"], "'j1'"),
    (["tour", "--piece", "1,2", "--size", "8", "--time-limit", "0"], "'0'"),
    (["tour", "--piece", "1,2", "--size", "8", "--save", "x.txt"], ".npz or .json"),
    (["tour", "--piece", "1,2", "--size", "30x30", "--method", "construct", "--closed", "--start", "0,0",
      "--piece", "0,1"], "no construct for piece 'wazir+knight'"),
    (["reach", "--piece", "1,2", "--size", "8"], "--jumps"),
    (["reach", "--piece", "1,2", "--size", "8", "-n", "-1"], "'-1'"),
])
def test_errors_are_one_line(capsys, argv, needle):
    code, out, err = run_raw(capsys, argv)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("fastsnake: error:") and needle in err


def run_raw(capsys, argv):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse-level errors exit from the parser
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def test_a_newline_in_a_saved_path_is_not_printed_raw(capsys, tmp_path):
    """Issue 37 item 9: a crafted file name cannot forge another line of the output."""
    target = tmp_path / "a\nb.json"
    code, out, err = run(capsys, "tour", "--piece", "1,2", "--size", "5", "--start", "c3", "--save", str(target))
    assert code == 0 and target.exists()
    assert "a\nb" not in out + err and "a\\nb" in out
