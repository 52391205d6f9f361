"""Pattern databases: values against a pure-Python Dijkstra, additivity, caching, symmetry."""

import json

import numpy as np
import pytest
from pdb_checks import assert_contexts_agree
from puzzle_naive import bfs_distances
from puzzle_naive_pdb import pattern_distances

from fastsnake.puzzle import pdb as P
from fastsnake.puzzle import solve
from fastsnake.puzzle.heuristics import heuristic_value
from fastsnake.puzzle.solver import heuristic_context


@pytest.mark.parametrize("rows, cols, partition", [
    (3, 3, "1,2,3/4,5,6/7,8"),
    (2, 4, "1,2,3,4/5,6,7"),
    (3, 3, "2,5,8,7/1,3,4,6"),
])
def test_group_tables_match_naive(rows, cols, partition, tmp_path, monkeypatch):
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))  # always build, never load
    rng = np.random.default_rng(len(partition))
    goal = rng.permutation(rows * cols).astype(np.int8)
    pset = P.pattern_databases(rows, cols, goal, partition)
    n = rows * cols
    for cells, table in zip(pset.groups, pset.tables, strict=True):
        tiles = [int(goal[c]) for c in cells]
        naive = pattern_distances(rows, cols, goal, tiles)
        for placement, d in naive.items():
            idx = sum(c * n ** i for i, c in enumerate(placement))
            assert table[idx] == d, (cells, placement)


def test_pdb_heuristic_admissible_on_3x3():
    # Storing the minimum over blank positions keeps the tables admissible but not
    # consistent (a move can cut the blank off the region that attained the minimum),
    # so only admissibility is a property; A* reopens nodes, IDA* does not care.
    goal = np.array([1, 2, 3, 4, 5, 6, 7, 8, 0], np.int8)
    dist = bfs_distances(goal, 3, 3)
    hc, _ = heuristic_context("pdb", 3, 3, goal, "1,2,3,4/5,6,7,8")
    rng = np.random.default_rng(2)
    states = list(dist)
    total = 0
    for i in rng.choice(len(states), 4000, replace=False):
        s = states[i]
        h = heuristic_value(np.array(s, np.int8), hc)
        assert h <= dist[s]
        total += h
    assert total > 0.6 * sum(dist[states[i]] for i in rng.choice(len(states), 4000))


def test_single_group_is_exact_on_2x3():
    goal = np.array([3, 1, 0, 5, 2, 4], np.int8)
    dist = bfs_distances(goal, 2, 3)
    hc, info = heuristic_context("pdb", 2, 3, goal)
    assert info["pdb"]["sizes"] == "5"
    for s, d in dist.items():
        assert heuristic_value(np.array(s, np.int8), hc) == d


def test_cache_reuse_and_corruption_rebuild(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    goal = np.arange(9, dtype=np.int8)
    first = P.pattern_databases(3, 3, goal, "1,2,3,4/5,6,7,8")
    assert [i["source"] for i in first.infos] == ["built", "built"]
    again = P.pattern_databases(3, 3, goal, "1,2,3,4/5,6,7,8")
    assert [i["source"] for i in again.infos] == ["cache", "cache"]
    for a, b in zip(first.tables, again.tables, strict=True):
        assert np.array_equal(a, b)
    # Flip one payload byte: the checksum fails and the table is rebuilt, identical.
    path = tmp_path / "pdb" / first.infos[0]["file"].split("/")[-1]
    raw = bytearray(path.read_bytes())
    raw[-1] ^= 0xFF
    path.write_bytes(bytes(raw))
    (tmp_path / "pdb" / first.infos[1]["file"].split("/")[-1]).write_bytes(b"FSPDB1\n{}")
    rebuilt = P.pattern_databases(3, 3, goal, "1,2,3,4/5,6,7,8")
    assert [i["source"] for i in rebuilt.infos] == ["built", "built"]
    for a, b in zip(first.tables, rebuilt.tables, strict=True):
        assert np.array_equal(a, b)
    header = json.loads(path.read_bytes()[len(b"FSPDB1\n"):].split(b"\n", 1)[0])
    assert header["key"]["cells"] == first.groups[0]


def test_same_blank_cell_goals_share_files_and_relabel():
    # Two goals with the blank in the same cell use the same files; both solve optimally.
    g1 = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8], np.int8)
    g2 = np.array([0, 8, 7, 6, 5, 4, 3, 2, 1], np.int8)
    p1 = P.pattern_databases(3, 3, g1, None)
    p2 = P.pattern_databases(3, 3, g2, None)
    assert [i["file"] for i in p1.infos] == [i["file"] for i in p2.infos]
    dist = bfs_distances(g2, 3, 3)
    rng = np.random.default_rng(0)
    states = list(dist)
    ctx = heuristic_context("pdb", 3, 3, g2)
    for i in rng.choice(len(states), 25, replace=False):
        r = solve(np.array(states[i], np.int8), g2, rows=3, cols=3, algorithm="idastar",
                  heuristic="pdb", context=ctx)
        assert r.length == dist[states[i]]


def test_mirror_lookup_used_when_goal_allows():
    goal = np.arange(16, dtype=np.int8)
    pset = P.PdbSet(4, 4, 0, P.default_partition(4, 4, 0, "6-6-3"), [], [])
    assert pset.lookup_arrays_count() == 2  # identity + the main-diagonal reflection
    pset = P.PdbSet(4, 4, 5, P.default_partition(4, 4, 5, "6-6-3"), [], [])
    assert pset.lookup_arrays_count() == 2  # cell 5 lies on the main diagonal too
    pset = P.PdbSet(3, 4, 1, P.default_partition(3, 4, 1), [], [])
    assert pset.lookup_arrays_count() == 1  # no symmetry of 3x4 fixes cell 1
    assert goal is not None


def test_partition_errors():
    goal = np.arange(16, dtype=np.int8)
    with pytest.raises(P.PuzzleInputError, match="exactly once"):
        P.parse_partition("1,2,3/3,4", 4, 4, goal)
    with pytest.raises(P.PuzzleInputError, match="too large"):
        P.parse_partition("1,2,3,4,5,6,7,8,9/10,11,12,13,14,15", 4, 4, goal)
    assert [len(g) for g in P.parse_partition("7-8", 4, 4, goal)] == [7, 8]
    with pytest.raises(P.PuzzleInputError, match="not a preset"):
        P.parse_partition("big", 4, 4, goal)
    with pytest.raises(P.PuzzleInputError, match="support boards"):
        P.pattern_databases(6, 6, np.arange(36), None)


def test_compact_layout_matches_sparse(monkeypatch, tmp_path):
    # 7- and 8-tile groups are kept compact (ranked per lookup); force that layout on
    # small boards and check h and the IDA* incremental ranks against the sparse one.
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    goal = np.array([1, 2, 3, 4, 0, 5, 6, 7, 8], np.int8)  # blank in the centre: 8 lookups
    dist = bfs_distances(goal, 3, 3)
    with monkeypatch.context() as m:
        m.setattr(P, "SPARSE_MAX", 0)
        compact_ctx = heuristic_context("pdb", 3, 3, goal, "1,2,3,4/5,6,7,8")  # built compact
    sparse_ctx = heuristic_context("pdb", 3, 3, goal, "1,2,3,4/5,6,7,8")  # loaded, made sparse
    assert [t["source"] for t in sparse_ctx[1]["pdb"]["tables"]] == ["cache", "cache"]
    assert [t["layout"] for t in compact_ctx[1]["pdb"]["tables"]] == ["compact", "compact"]
    assert [t["layout"] for t in sparse_ctx[1]["pdb"]["tables"]] == ["sparse", "sparse"]
    assert compact_ctx[1]["pdb"]["lookups"] > 2
    # IDA* only: A* evaluates each child as `heuristic_value` does (checked on 300 states above).
    assert_contexts_agree(compact_ctx, sparse_ctx, dist, goal, seed=5, values=300, searches=20)


def test_a_failed_cache_write_says_not_saved_and_leaves_nothing(tmp_path, monkeypatch):
    """A full disk while caching a built table: no "saved" message, no half file under any name."""
    import resource

    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    messages = []
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (64, hard))  # writes past 64 bytes fail with EFBIG
    try:
        table, info = P.group_table(3, 3, 8, [0, 1, 2], progress=messages.append)
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    assert info["source"] == "built" and table.any()
    assert not any("saved " in m for m in messages) and any("not saved" in m for m in messages)
    assert [p for p in (tmp_path / "pdb").rglob("*") if p.is_file()] == []
