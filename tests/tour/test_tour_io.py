"""Versioned save files: round trips in both encodings and rejection of bad files."""

import json

import numpy as np
import pytest

from fastsnake.tour import Piece, find_tour
from fastsnake.tour.io import REACH_FORMAT, TOUR_FORMAT, SaveFileError, load_reach, load_tour, save_reach, save_tour
from fastsnake.tour.pieces import TourInputError
from fastsnake.tour.reach import reach

KNIGHT = Piece.leaper(1, 2)


@pytest.mark.parametrize("ext", ["npz", "json"])
def test_tour_round_trip(tmp_path, ext):
    result = find_tour(KNIGHT, 6, 7, 5, method="search")
    target = tmp_path / f"t.{ext}"
    save_tour(target, result)
    loaded = load_tour(target)
    assert loaded["format"] == TOUR_FORMAT
    assert loaded["rows"] == 6 and loaded["cols"] == 7 and loaded["start"] == 5
    assert np.array_equal(loaded["path"], result.path)
    assert loaded["jumps"].tolist() == [list(j) for j in KNIGHT.jump_list]


def test_unsolved_tour_saves_without_path(tmp_path):
    result = find_tour(KNIGHT, 4, 4, 0)
    save_tour(tmp_path / "t.json", result)
    loaded = load_tour(tmp_path / "t.json")
    assert loaded["found"] is False and loaded["path"] is None and loaded["exists"] is False


@pytest.mark.parametrize("ext", ["npz", "json"])
def test_reach_round_trip(tmp_path, ext):
    result = reach(KNIGHT, 8, 8, 0, 3)
    save_reach(tmp_path / f"r.{ext}", result)
    loaded = load_reach(tmp_path / f"r.{ext}")
    assert loaded["format"] == REACH_FORMAT and loaded["n"] == 3
    assert loaded["cells"].tolist() == result.cells.tolist()


def test_rejects_bad_files(tmp_path):
    result = find_tour(KNIGHT, 5, 5, 0)
    good = tmp_path / "t.json"
    save_tour(good, result)
    body = json.loads(good.read_text())

    def write(**change):
        bad = dict(body, **change)
        target = tmp_path / "bad.json"
        target.write_text(json.dumps(bad))
        return target

    with pytest.raises(SaveFileError, match="format"):
        load_tour(write(format="fastsnake-tour/2"))
    swapped = list(body["path"])
    swapped[3], swapped[4] = swapped[4], swapped[3]
    with pytest.raises(SaveFileError, match="not a valid tour"):
        load_tour(write(path=swapped))
    with pytest.raises(SaveFileError, match="board"):
        load_tour(write(rows=0))
    with pytest.raises(SaveFileError, match="reach"):
        load_reach(good)
    garbage = tmp_path / "g.npz"
    garbage.write_bytes(b"not a zip")
    with pytest.raises(SaveFileError):
        load_tour(garbage)
    with pytest.raises(TourInputError, match=".npz or .json"):
        save_tour(tmp_path / "t.txt", result)


def test_fractional_squares_are_refused(tmp_path):
    """56.5 is no square: a JSON tour must not be read as if it said 56."""
    target = tmp_path / "t.json"
    save_tour(target, find_tour(KNIGHT, 6, 7, 5, method="search"))
    doc = json.loads(target.read_text())
    doc["path"][3] = doc["path"][3] + 0.5
    target.write_text(json.dumps(doc))
    with pytest.raises(SaveFileError, match="whole square indices"):
        load_tour(target)
