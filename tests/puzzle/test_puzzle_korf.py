"""Korf's (1985) 100 random 15-puzzle instances against their published optimal lengths."""

from pathlib import Path

import numpy as np
import pytest

from fastsnake.puzzle import apply_moves, solve
from fastsnake.puzzle.solver import heuristic_context

GOLDEN = Path(__file__).parent / "golden" / "korf100.csv"
GOAL = np.arange(16, dtype=np.int8)


def korf100():
    rows = []
    for line in GOLDEN.read_text().splitlines():
        if line and line[0].isdigit():
            i, length, nodes, tiles = line.split(",")
            rows.append((int(i), int(length), int(nodes), tiles))
    return rows


def test_golden_file_is_well_formed():
    rows = korf100()
    assert [r[0] for r in rows] == list(range(1, 101))
    assert sum(r[1] for r in rows) == 5305  # mean optimal length 53.05
    for _, _, _, tiles in rows:
        assert sorted(int(t) for t in tiles.split()) == list(range(16))


# The easiest instances by Korf's node counts: quick even with the small 5-5-5 tables.
EASY = (12, 55, 79, 42, 97)


def test_easy_instances_manhattan_and_pdb():
    ctx = heuristic_context("pdb", 4, 4, GOAL, "5-5-5")
    by_id = {r[0]: r for r in korf100()}
    for i in EASY:
        _, length, korf_nodes, tiles = by_id[i]
        r = solve(tiles, rows=4, cols=4, algorithm="idastar", heuristic="pdb", context=ctx)
        assert r.length == length and r.optimal
        assert apply_moves(r.start, r.moves, 4, 4).tolist() == GOAL.tolist()
    # IDA* + Manhattan generates about as many nodes as Korf's 1985 run (move order and
    # the last iteration's luck differ, so only within a factor of 3).
    _, length, korf_nodes, tiles = by_id[12]
    r = solve(tiles, rows=4, cols=4, algorithm="idastar", heuristic="manhattan")
    assert r.length == length
    assert korf_nodes / 3 < r.nodes_generated < korf_nodes * 3


@pytest.mark.slow
def test_all_100_with_663_pdb():
    ctx = heuristic_context("pdb", 4, 4, GOAL, "6-6-3")
    for i, length, _, tiles in korf100():
        r = solve(tiles, rows=4, cols=4, algorithm="idastar", heuristic="pdb", context=ctx)
        assert r.length == length, i
        assert apply_moves(r.start, r.moves, 4, 4).tolist() == GOAL.tolist()
