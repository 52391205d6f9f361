"""The Python API takes the CLI's inputs (piece, size and square grammars); tour searches
stop at their time / node limit with one line naming it; the jump list is --moves; foreign
.npz files are one-line errors; kernel loading is reported apart from `seconds`."""

import json

import numpy as np
import pytest

from fastsnake.cli import main
from fastsnake.sizes import SearchLimitError
from fastsnake.tour import Piece, TourInputError, find_tour, parse_piece
from fastsnake.tour.count import count_tours
from fastsnake.tour.io import load_reach, load_tour
from fastsnake.tour.reach import reach
from fastsnake.tour.tour import TourLimitError

KNIGHT = Piece.leaper(1, 2)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_api_takes_the_cli_grammars():
    assert parse_piece("1,2") == parse_piece((1, 2)) == KNIGHT
    assert parse_piece("1,2;0,1") == parse_piece([(1, 2), (0, 1)]) == parse_piece(["1,2", "0,1"])
    assert parse_piece(jumps=[(0, 1), (1, 0)], asymmetric=True).directed
    a = find_tour("1,2", "5x5", start="c3")
    b = find_tour((1, 2), 5, 5, start=(2, 2))
    c = find_tour(KNIGHT, 5, 5, 12)
    assert a.found and a.start == b.start == c.start == 12 and a.path.tolist() == c.path.tolist()
    assert find_tour(KNIGHT, (3, 4), start="a1").start == 8
    assert count_tours("1,2", "5", start="a1").count == 304
    assert reach("1,2", "8x8", start="a1", n=2).count == 9


@pytest.mark.parametrize("call, fragment", [
    (lambda: find_tour(KNIGHT, 5, 5, start="z9"), "square 'z9' is off the 5x5 board"),
    (lambda: find_tour(KNIGHT, 5, 5, start=25), "start square 25 is off the 5x5 board"),
    (lambda: find_tour(KNIGHT, 5, 5, start="middle"), "neither 'R,C'"),
    (lambda: find_tour(KNIGHT, "0x5"), "size '0x5': rows=0 is outside 1..4000"),
    (lambda: find_tour(KNIGHT, 0, 5), "size '0x5': rows=0 is outside 1..4000"),
    (lambda: find_tour(KNIGHT, "5x5", time_limit=0), "time_limit 0 must be a positive number"),
    (lambda: find_tour("1", 5, 5), "piece '1' is neither two integers"),
    (lambda: find_tour(None, 5, 5), "no piece given"),
    (lambda: reach(KNIGHT, 8, 8, 0), "number of jumps None"),
])
def test_api_errors_name_the_input(call, fragment):
    with pytest.raises(TourInputError, match=fragment):
        call()


def test_limits_give_no_verdict_and_a_one_line_error():
    r = find_tour(KNIGHT, 7, 7, 0, method="search", max_nodes=10)
    assert r.exists is None and r.extra["limit"] == "nodes"
    err = r.limit_error()
    assert isinstance(err, TourLimitError) and isinstance(err, SearchLimitError) and err.result is r
    assert "node limit of 10 nodes" in str(err) and "max_nodes" in str(err)
    r = find_tour("2,3", 12, 12, 0, time_limit=0.05)
    assert r.exists is None and "time limit of 0.05 s" in str(r.limit_error()) and r.compile_seconds >= 0


def test_cli_limit_is_one_line_exit_2_or_3_for_time(capsys):
    # issue 63: a time limit is not bad input: exit 3, one line, and what the search did on stdout
    code, out, err = run(capsys, "tour", "--piece", "2,3", "--size", "12", "--time-limit", "0.05", "--json")
    assert code == 3 and err.count("\n") == 1
    assert err.startswith("fastsnake: no verdict on an open zebra tour of 12x12 from a12")
    assert "time limit of 0.05 s" in err and "raise --time-limit" in err
    doc = json.loads(out)
    assert doc["exists"] is None and doc["found"] is False
    code, out, err = run(capsys, "tour", "--piece", "1,2", "--size", "7", "--method", "search", "--max-nodes", "10")
    assert code == 2 and "node limit of 10 nodes" in err and "--max-nodes" in err


def test_moves_is_the_jump_list_and_jumps_the_count(capsys):
    code, out, err = run(capsys, "tour", "--moves", "0,1;1,0;-1,-1", "--asymmetric", "--size", "4", "--json")
    assert code == 0 and err == "" and json.loads(out)["found"]
    with pytest.raises(SystemExit) as stopped:  # 0.1.0's spelling of --moves in `tour`, removed in 0.2.0
        run(capsys, "tour", "--jumps=0,1;1,0;-1,-1", "--asymmetric", "--size", "4", "--json")
    assert stopped.value.code == 2 and "unrecognized arguments: --jumps" in capsys.readouterr().err
    code, out, err = run(capsys, "reach", "--moves", "1,2", "--size", "8", "--start", "a1", "--jumps", "2", "--json")
    assert code == 0 and json.loads(out)["count"] == 9
    code, out, err = run(capsys, "tour", "--piece", "1,2", "--asymmetric", "--size", "4")
    assert code == 2 and "--asymmetric applies to --moves only" in err


def test_seconds_exclude_kernel_loading(capsys):
    code, out, err = run(capsys, "tour", "--piece", "1,2", "--size", "5", "--json")
    doc = json.loads(out)
    assert code == 0 and "compile_seconds" in doc and doc["seconds"] < 1


@pytest.mark.parametrize("loader", [load_tour, load_reach])
def test_foreign_npz_is_one_line_without_numpy_advice(tmp_path, loader, capsys):
    pickled = tmp_path / "pickled.npz"
    np.savez(pickled, meta=np.array([{"format": "x"}], dtype=object), path=np.arange(3))
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(pickled.read_bytes()[:40])
    text = tmp_path / "text.npz"
    text.write_text("not an archive")
    for path in (pickled, truncated, text):
        with pytest.raises(TourInputError) as info:
            loader(path)
        message = str(info.value)
        assert "allow_pickle" not in message and "\n" not in message and str(path) in message
