"""Issue 63, item 1: "optimal" only where it is known. A user's heuristic is sampled wherever it is
used (`solve`, `solve_many`, `puzzle solve`, `puzzle batch`): seven times Manhattan (above the true
distance) and a heuristic that reorders its `goal` argument make every result "length N, not proven
optimal" (``optimal`` False, ``optimal_reason``) with one warning line, on every algorithm.

The quick test samples with `vouch` only (small functions compiled, no search kernel); the searches
with a user's heuristic (a copy of the IDA* or A* kernel each: tens of CPU-seconds cold) are slow."""

import json
import sys
import textwrap
import warnings

import numpy as np
import pytest
from puzzle_naive import bfs_distances
from user_heuristic_source import user_module

from fastsnake.cli import main
from fastsnake.puzzle import NotProvenOptimal, apply_moves, register_heuristic, solve, solve_many
from fastsnake.puzzle import heuristics as H
from fastsnake.puzzle.sampling import vouch as vouch_with

MODULE = "fs_test_honest_heuristics"
SOURCE = user_module("Users' heuristics for the honest-optimal tests: one admissible, two that are not.",
                     "manhattan") + textwrap.dedent('''

    @njit
    def seven(cells, goal, rows, cols):
        return 7 * manhattan(cells, goal, rows, cols)


    @njit
    def reorder(cells, goal, rows, cols):
        """Manhattan, after swapping the goal cells of tiles 1 and 2 in the array it is given."""
        h = manhattan(cells, goal, rows, cols)
        if h > 0:
            a = goal[1]
            goal[1] = goal[2]
            goal[2] = a
        return h


    @njit
    def scribble(cells, goal, rows, cols):
        """Manhattan, after writing into the board it is given (and putting it back wrong)."""
        h = manhattan(cells, goal, rows, cols)
        cells[0] = cells[0]
        if h > 3:
            t = cells[0]
            cells[0] = cells[1]
            cells[1] = t
        return h
''')
EIGHT = "8 6 7 2 5 4 3 0 1"  # the instance: optimum 27
GOAL = np.arange(9, dtype=np.int8)


@pytest.fixture
def module(tmp_path, monkeypatch):
    (tmp_path / f"{MODULE}.py").write_text(SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    before = dict(H.REGISTRY)
    mod = importlib.import_module(MODULE)
    yield mod
    sys.modules.pop(MODULE, None)
    H.REGISTRY.clear()
    H.REGISTRY.update(before)


def vouch(*args, **kwargs):
    return vouch_with(*args, **kwargs, solve=solve)


def test_vouch_sees_a_value_above_the_distance_and_a_changed_argument(module):
    register_heuristic("t-seven", module.seven)
    register_heuristic("t-reorder", module.reorder)
    register_heuristic("t-scribble", module.scribble)
    seven = vouch("t-seven", 2, 3, np.arange(6), samples=20)
    assert seven["checked"] == "sampled" and seven["samples"] == 20 and "not admissible" in seven["reason"]
    # the worst violation it names is a real one: 7 x Manhattan against the breadth-first distance
    dist = bfs_distances(tuple(range(6)), 2, 3)
    h, far = (int(x) for x in seven["reason"].split("h = ")[1].split(" moves")[0].split(" on a state "))
    assert h > far and far in dist.values() and h % 7 == 0
    assert "changes its goal argument" in vouch("t-reorder", 2, 3, np.arange(6), samples=20)["reason"]
    assert "changes its cells argument" in vouch("t-scribble", 2, 3, np.arange(6), samples=20)["reason"]
    assert "not checked" in vouch("t-seven", 2, 3, np.arange(6), samples=0)["reason"]
    assert vouch("manhattan", 2, 3, np.arange(6)) == {"checked": "built-in", "samples": 0, "method": None,
                                                        "reason": None}


def _path_ok(r) -> bool:
    return np.array_equal(apply_moves(np.array(r.start, np.int8), r.moves, 3, 3), GOAL)


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["astar", "idastar"])
@pytest.mark.parametrize("name", ["seven", "reorder"])
def test_solve_says_not_proven_optimal_with_one_warning(module, algorithm, name):
    register_heuristic(f"t-{name}", getattr(module, name))
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        r = solve(EIGHT, rows=3, cols=3, algorithm=algorithm, heuristic=f"t-{name}")
    said = [w for w in seen if issubclass(w.category, NotProvenOptimal)]
    assert len(said) == 1 and "not proven optimal" in str(said[0].message)
    assert r.status == "solved" and r.optimal is False and r.optimal_reason and r.length >= 27 and _path_ok(r)
    assert r.extra["admissibility"] == {"checked": "sampled", "samples": 40, "method": "bfs"}
    # the same heuristic unsampled: not checked, so not optimal either
    r0 = solve(EIGHT, rows=3, cols=3, algorithm=algorithm, heuristic=f"t-{name}", admissibility_samples=0,
               warn=False)
    assert r0.optimal is False and r0.optimal_reason


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["astar", "idastar"])
def test_an_admissible_users_heuristic_is_optimal_after_its_checks(module, algorithm):
    register_heuristic("t-manhattan", module.manhattan)
    r = solve(EIGHT, rows=3, cols=3, algorithm=algorithm, heuristic="t-manhattan")
    assert (r.length, r.optimal, r.optimal_reason) == (27, True, None) and _path_ok(r)


@pytest.mark.slow
def test_solve_many_warns_once_for_the_batch(module):
    register_heuristic("t-seven", module.seven)
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        out = solve_many([EIGHT, "1 2 0 3 4 5 6 7 8"], size=3, algorithm="idastar", heuristic="t-seven", threads=2)
    said = [w for w in seen if issubclass(w.category, NotProvenOptimal)]
    assert len(said) == 1 and "2 results not proven optimal" in str(said[0].message)
    assert all(r.optimal is False and r.optimal_reason for r in out)


@pytest.mark.slow
@pytest.mark.parametrize("algorithm", ["astar", "idastar"])
def test_the_cli_says_not_proven_optimal(module, tmp_path, monkeypatch, capsys, algorithm):
    info = tmp_path / "site" / "fs-honest-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fs-honest\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[fastsnake.heuristics]\nseven = {MODULE}:seven\n"
                                           f"reorder = {MODULE}:reorder\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    H.rediscover()
    for name in ("seven", "reorder"):
        assert main(["puzzle", "solve", "--start", EIGHT, "--algorithm", algorithm, "--heuristic", name, "--json",
                     "--quiet"]) == 0
        captured = capsys.readouterr()
        doc = json.loads(captured.out)
        assert doc["optimal"] is False and doc["optimal_reason"] and doc["length"] >= 27
        warned = [line for line in captured.err.splitlines() if line.startswith("fastsnake: warning:")]
        assert len(warned) == 1 and f"length {doc['length']}, not proven optimal" in warned[0]
    batch = tmp_path / "b.txt"
    batch.write_text(f"{EIGHT}\n1 2 0 3 4 5 6 7 8\n")
    assert main(["puzzle", "batch", str(batch), "--algorithm", algorithm, "--heuristic", "seven", "--workers", "2",
                 "--json", "--quiet"]) == 0
    captured = capsys.readouterr()
    doc = json.loads(captured.out)
    assert all(r["optimal"] is False and "not admissible" in r["optimal_reason"] for r in doc["results"])
    assert captured.err.count("fastsnake: warning:") == 1 and "2 results not proven optimal" in captured.err
    H.rediscover()
