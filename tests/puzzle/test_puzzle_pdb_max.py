"""pdb-max (several PDB partitions maxed): against the single-partition heuristic and BFS."""

import numpy as np
import pytest
from puzzle_naive import bfs_distances, play

from fastsnake.puzzle import pdb as P
from fastsnake.puzzle import solve
from fastsnake.puzzle.heuristics import REGISTRY, heuristic_value
from fastsnake.puzzle.solver import heuristic_context


@pytest.mark.parametrize("rows, cols, goal_seed", [(3, 3, None), (3, 3, 5), (2, 4, 1)])
def test_pdb_max_is_the_max_of_its_partitions(rows, cols, goal_seed):
    n = rows * cols
    goal = (np.arange(n, dtype=np.int8) if goal_seed is None
            else np.random.default_rng(goal_seed).permutation(n).astype(np.int8))
    parts = P.parse_partitions(None, rows, cols, goal)
    assert len(parts) == 2 and parts[0] != parts[1]
    both, info = heuristic_context("pdb-max", rows, cols, goal)
    assert info["pdb"]["partitions"] == ["-".join(str(len(g)) for g in p) for p in parts]
    where = {c: int(goal[c]) for c in range(n)}
    singles = [heuristic_context("pdb", rows, cols, goal,
                                 "/".join(",".join(str(where[c]) for c in g) for g in p))[0] for p in parts]
    dist = bfs_distances(goal, rows, cols)
    states = list(dist)
    rng = np.random.default_rng(3)
    higher = 0
    for i in rng.choice(len(states), 2000, replace=False):
        s = np.array(states[i], np.int8)
        each = [heuristic_value(s, hc) for hc in singles]
        h = heuristic_value(s, both)
        assert h == max(each) <= dist[states[i]]
        higher += h > min(each)
    assert higher > 0  # the second partition adds something


def test_pdb_max_idastar_optimal_against_bfs_on_3x3():
    goal = np.array([8, 0, 6, 5, 4, 7, 2, 3, 1], np.int8)
    dist = bfs_distances(goal, 3, 3)
    ctx = heuristic_context("pdb-max", 3, 3, goal)
    states = list(dist)
    rng = np.random.default_rng(9)
    for i in rng.choice(len(states), 40, replace=False):
        start = np.array(states[i], np.int8)
        # IDA* only: pdb's A* kernel is compiled by the slow tests (tests/puzzle/test_puzzle_search.py).
        r = solve(start, goal, rows=3, cols=3, algorithm="idastar", heuristic="pdb-max", context=ctx)
        assert r.length == dist[states[i]] and r.optimal
        assert play(start, r.moves, 3, 3) == tuple(goal.tolist())


def test_pdb_max_partitions_by_name_and_errors():
    goal = np.arange(16, dtype=np.int8)
    parts = P.parse_partitions(None, 4, 4, goal)
    assert [[len(g) for g in p] for p in parts] == [[6, 6, 3], [5, 5, 5]]
    assert P.parse_partitions("7-8+6-6-3", 4, 4, goal)[0] == P.parse_partition("7-8", 4, 4, goal)
    five = P.parse_partitions(None, 5, 5, np.arange(25))
    assert five[0] == P.parse_partition("6-6-6-6", 5, 5, np.arange(25))
    assert five[1] == P.parse_partition("6-6-6-6b", 5, 5, np.arange(25)) != five[0]
    assert sorted(c for g in five[1] for c in g) == list(range(1, 25))
    with pytest.raises(P.PuzzleInputError, match="not a preset"):
        P.parse_partitions("6-6-3+nope", 4, 4, goal)
    with pytest.raises(P.PuzzleInputError, match="not a preset"):
        P.parse_partition("6-6-6-6b", 4, 4, goal)
    assert REGISTRY["pdb-max"].tables == "pdb-max"
    # Two partitions, each with its diagonal reflection: four lookups on 5x5, two tables
    # files per shared group at most once.
    groups = five[0] + five[1]
    pset = P.PdbSet(5, 5, 0, groups, [], [], parts=[[0, 1, 2, 3], [4, 5, 6, 7]])
    assert pset.lookup_arrays_count() == 4


def test_auto_on_5x5_picks_idastar_with_the_6666_tables_and_announces_a_build(tmp_path, monkeypatch):
    from fastsnake.puzzle import solver as S

    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("FASTSNAKE_MEMORY_BUDGET", raising=False)
    # A fresh solve holds about 150 MB; a test worker that ran hundreds of tests holds more, which would
    # (rightly) push the build over the default budget: stand in for the fresh process.
    from fastsnake.puzzle import pdb as P

    monkeypatch.setattr(P, "resident_bytes", lambda: 150 * 2**20)
    goal = np.arange(25, dtype=np.int8)
    said = []
    assert S.pdb_auto(5, 5, goal, None, said.append)  # buildable within 2 GiB: announced
    assert len(said) == 1 and "building the 4 missing table(s)" in said[0] and str(tmp_path) in said[0]
    assert "into a 976,562,500-byte file that later loads map" in said[0]  # the sparse set, 4 x 25**6
    assert not S.pdb_auto(5, 5, goal, "1G", said.append)  # a build would not fit: reduce
    assert not S.pdb_auto(4, 4, np.arange(16), None, said.append)
    # Cached tables (files present) are used without an announcement.
    for g in P.parse_partition(None, 5, 5, goal):
        path = P.table_path(P.table_key(5, 5, 0, g))
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"")
    said.clear()
    assert S.pdb_auto(5, 5, goal, None, said.append) and said == []
    # solve(auto) takes that choice: with tables it runs IDA* + pdb (here a stub search).
    calls = []

    def fake_search(start, goal, rows, cols, algorithm, heuristic, *a, **k):
        calls.append((algorithm, heuristic))
        return "solved", np.zeros(0, np.int8), 0, 0, 0, 1, 0, 0.0, {}, 0.0

    monkeypatch.setattr(S, "_search", fake_search)
    monkeypatch.setattr(S, "load_reduce_kernels", lambda *a: 0.0)
    start = np.array([1, 0] + list(range(2, 25)), np.int8)
    r = S.solve(start, goal, rows=5, cols=5)
    assert calls == [("idastar", "pdb")] and r.algorithm == "idastar"
