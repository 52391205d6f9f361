"""Puzzle solutions, tours and reach files: format sniffing, frames and pixels."""

import json
import random

import numpy as np
import pytest
import viewer_naive as naive

from fastsnake.cli import main
from fastsnake.errors import InputError
from fastsnake.viewer import canvas
from fastsnake.viewer.files import open_view


def pixel(surface, xy):
    return tuple(surface.get_at(xy))[:3]


def corner(layout, cell):
    x, y, _, _ = layout.cell_box(cell)
    return x + 1, y + 1  # clear of the numbers and jump lines drawn through the centre


@pytest.fixture(scope="module")
def puzzle_file(tmp_path_factory):
    rows, cols = 3, 4
    goal = list(range(rows * cols))
    rng = random.Random(7)
    walk = ""
    board = goal[:]
    for _ in range(60):  # a random walk of the blank from the goal, then the way back
        b = board.index(0)
        r, c = divmod(b, cols)
        ch = rng.choice([m for m, (dr, dc) in naive.BLANK_STEP.items() if 0 <= r + dr < rows and 0 <= c + dc < cols])
        board = list(naive.puzzle_boards(board, ch, rows, cols)[-1])
        walk += ch
    back = "".join({"U": "D", "D": "U", "L": "R", "R": "L"}[ch] for ch in reversed(walk))
    path = tmp_path_factory.mktemp("puzzle") / "solution.json"
    path.write_text(json.dumps({"format": "fastsnake-puzzle/1", "rows": rows, "cols": cols, "start": board,
                                "goal": goal, "moves": back, "length": len(back), "optimal": False,
                                "algorithm": "test", "heuristic": None}))
    return path


def test_puzzle_frames_show_each_board(puzzle_file, surface):
    view = open_view(puzzle_file)
    doc = json.loads(puzzle_file.read_text())
    boards = naive.puzzle_boards(doc["start"], doc["moves"], 3, 4)
    assert view.kind == "puzzle" and view.frames == len(boards) == 61
    s = surface(view)
    for frame in (0, 1, 30, 60):
        layout = view.render(s, frame)
        for cell, tile in enumerate(boards[frame]):
            colour = pixel(s, corner(layout, cell))
            if tile == 0:
                assert colour == canvas.EMPTY
            elif frame and boards[frame - 1][cell] == 0:
                assert colour == canvas.TILE_MOVED
            else:
                assert colour == (canvas.TILE_HOME if tile == doc["goal"][cell] else canvas.TILE)
    assert view.status(60)[1].endswith("solved")
    assert view.status(1)[0].endswith(f"last move {doc['moves'][0]}")


@pytest.fixture(scope="module")
def tour_file(tmp_path_factory):
    path = naive.knight_tour(5, 5, 0)
    out = tmp_path_factory.mktemp("tour") / "tour.json"
    out.write_text(json.dumps({"format": "fastsnake-tour/1", "rows": 5, "cols": 5, "start": 0, "closed": False,
                               "found": True, "exists": True, "method": "test", "reason": None,
                               "jumps": naive.KNIGHT_JUMPS, "directed": False, "piece": "knight", "path": path}))
    return out, path


def test_tour_frames_visit_in_order(tour_file, surface):
    file, path = tour_file
    view = open_view(file)
    assert view.kind == "tour" and view.frames == 25
    s = surface(view)
    for frame in (0, 7, 24):
        layout = view.render(s, frame)
        for k, cell in enumerate(path):
            colour = pixel(s, corner(layout, cell))
            if k == frame:
                assert colour == canvas.CURRENT
            elif k < frame:
                assert colour not in (canvas.LIGHT, canvas.DARK, canvas.CURRENT)
            else:
                assert colour in (canvas.LIGHT, canvas.DARK)
    view.render(s, 5, {"path"})
    (xa, ya), (xb, yb) = layout.center(path[2]), layout.center(path[3])
    assert pixel(s, ((xa + xb) // 2, (ya + yb) // 2)) == canvas.JUMP


def test_tour_without_a_path(tmp_path, surface):
    out = tmp_path / "none.json"
    out.write_text(json.dumps({"format": "fastsnake-tour/1", "rows": 4, "cols": 4, "start": 0, "closed": True,
                               "found": False, "exists": False, "method": "test", "reason": "odd board",
                               "jumps": naive.KNIGHT_JUMPS, "directed": False, "piece": "knight", "path": None}))
    view = open_view(out)
    assert view.frames == 1 and view.status(0)[0] == "no tour: odd board"
    view.render(surface(view), 0)


@pytest.mark.parametrize("n", (0, 2, 3, 50))
def test_reach_colours_by_jump_count(tmp_path, surface, n):
    dist = naive.knight_distances(6, 6, 14)
    cells = [c for c, d in enumerate(dist) if d == n]
    out = tmp_path / "reach.json"
    out.write_text(json.dumps({"format": "fastsnake-reach/1", "rows": 6, "cols": 6, "start": 14, "n": n,
                               "walk": False, "count": len(cells), "jumps": naive.KNIGHT_JUMPS,
                               "directed": False, "piece": "knight", "cells": cells}))
    view = open_view(out)
    assert view.kind == "reach" and view.frames == min(n, max(dist)) + 1
    s = surface(view)
    for frame in range(view.frames):
        layout = view.render(s, frame)
        for cell, d in enumerate(dist):
            colour = pixel(s, corner(layout, cell))
            if frame == view.frames - 1 and cell not in cells:
                assert max(colour) <= 0.35 * 255 + 1  # dimmed: not in the answer
            elif 0 <= d <= frame:
                assert colour == tuple(view.shade[d])
            else:
                assert colour in (canvas.LIGHT, canvas.DARK)


def test_sniffing_and_errors_for_board_files(tmp_path, puzzle_file, tour_file, capsys):
    doc = json.loads(puzzle_file.read_text())
    doc["moves"] = doc["moves"][:-1]
    doc["length"] -= 1
    (tmp_path / "wrong.json").write_text(json.dumps(doc))
    with pytest.raises(InputError, match="goal"):
        open_view(tmp_path / "wrong.json")
    tour = json.loads(tour_file[0].read_text())
    tour["path"][3], tour["path"][4] = tour["path"][4], tour["path"][3]
    (tmp_path / "broken_tour.json").write_text(json.dumps(tour))
    tour["format"] = "fastsnake-tour/7"
    (tmp_path / "future_tour.json").write_text(json.dumps(tour))
    big = {"format": "fastsnake-reach/1", "rows": 900, "cols": 900, "start": 0, "n": 1, "walk": False, "count": 0,
           "jumps": naive.KNIGHT_JUMPS, "directed": False, "piece": "knight", "cells": []}
    (tmp_path / "huge_reach.json").write_text(json.dumps(big))
    np.savez(tmp_path / "meta.npz", meta=np.array(json.dumps({"format": "fastsnake-tour/1"})))
    for name in ("wrong.json", "broken_tour.json", "future_tour.json", "huge_reach.json", "meta.npz"):
        code = main(["view", str(tmp_path / name)])
        err = capsys.readouterr().err
        assert code == 2 and err.count("\n") == 1 and name in err, (name, err)
