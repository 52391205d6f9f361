"""Pattern databases on 5x5 boards (up to 25 cells): the same builder and IDA* path as on
3x3/4x4, checked with groups small enough for the quick suite; the 6-6-6-6 tables
(127,512,000 entries each) are built only by the tests marked slow."""

import numpy as np
import pytest
from puzzle_naive import play
from puzzle_naive_pdb import pattern_distances

from fastsnake.puzzle import apply_moves, solve
from fastsnake.puzzle import pdb as P
from fastsnake.puzzle.heuristics import heuristic_value
from fastsnake.puzzle.solver import heuristic_context

KORF_FELNER_24 = [[1, 2, 5, 6, 7, 12], [3, 4, 8, 9, 13, 14], [10, 11, 15, 16, 20, 21],
                  [17, 18, 19, 22, 23, 24]]


def _walk(goal, steps, seed, rows=5, cols=5):
    """A start `steps` random blank moves (no immediate undo) away from `goal`."""
    rng = np.random.default_rng(seed)
    board = np.array(goal, np.int8)
    last = None
    undo = {"U": "D", "D": "U", "L": "R", "R": "L"}
    done = 0
    while done < steps:
        m = "UDLR"[rng.integers(4)]
        if last is not None and m == undo[last]:
            continue
        try:
            board = apply_moves(board, m, rows, cols)
        except ValueError:
            continue
        last = m
        done += 1
    return board


@pytest.mark.parametrize("blank", [0, 12, 7])
def test_5x5_small_groups_match_naive_dijkstra(blank, tmp_path, monkeypatch):
    # 2-tile groups on 25 cells leave 23 free cells: the BFS rows are uint32 (region names
    # need a bit per free cell), a path 4x4 never takes.
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    rng = np.random.default_rng(blank)
    goal = rng.permutation(25).astype(np.int8)
    goal[[int(np.flatnonzero(goal == 0)[0]), blank]] = goal[[blank, int(np.flatnonzero(goal == 0)[0])]]
    tiles = [int(t) for t in goal if t != 0]
    text = "/".join(",".join(map(str, tiles[i:i + 2])) for i in range(0, 24, 2))
    pset = P.pattern_databases(5, 5, goal, text)
    assert P.state_dtype(25, 2) == np.uint32
    for cells, table in list(zip(pset.groups, pset.tables, strict=True))[:3]:
        naive = pattern_distances(5, 5, goal, [int(goal[c]) for c in cells])
        assert len(naive) == 25 * 24
        for placement, d in naive.items():
            assert table[sum(c * 25 ** i for i, c in enumerate(placement))] == d, (cells, placement)


def test_5x5_compact_rank_matches_naive(tmp_path, monkeypatch):
    # A 3-tile group kept compact (as 6-tile 5x5 groups are): table[rank] against Dijkstra.
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    goal = np.arange(25, dtype=np.int8)
    table, _ = P.build_group(5, 5, 0, [1, 7, 19])
    pop = P.popcount16_table()
    naive = pattern_distances(5, 5, goal, [1, 7, 19])
    for placement, d in naive.items():
        assert table[P.group_rank(np.array(placement, np.int64), 0, 3, 25, pop)] == d


def test_5x5_default_is_korf_felner_6666_with_its_reflection(monkeypatch):
    goal = np.arange(25)
    assert P.parse_partition(None, 5, 5, goal) == KORF_FELNER_24
    pset = P.PdbSet(5, 5, 0, KORF_FELNER_24, [])
    assert pset.lookup_arrays_count() == 2  # identity and the main-diagonal reflection
    # Another corner blank: the same shape moved by a board symmetry.
    goal2 = np.array(list(range(1, 25)) + [0])
    groups = P.parse_partition(None, 5, 5, goal2)
    assert sorted(c for g in groups for c in g) == list(range(24))
    assert sorted(len(g) for g in groups) == [6, 6, 6, 6]
    # Memory: built one at a time, a table of 127,512,000 bytes and its BFS (uint32 rows), then mapped
    # (the largest compact table read once to write the sparse file), beside what the process holds.
    monkeypatch.setattr(P, "resident_bytes", lambda: 200_000_000)
    need = P.check_budget(5, 5, KORF_FELNER_24, "6-6-6-6", budget=2 << 30)
    assert need == 200_000_000 + 127_512_000 + 3 * 4 * 127_512_000
    assert P.check_budget(5, 5, KORF_FELNER_24, "6-6-6-6", cached={0, 1, 2, 3}) == 200_000_000 + 127_512_000
    with pytest.raises(P.PdbMemoryError, match="6-6-6-6 on 5x5"):
        P.check_budget(5, 5, KORF_FELNER_24, "6-6-6-6", budget=1 << 30)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_5x5_idastar_with_small_group_pdbs_is_optimal(seed, tmp_path, monkeypatch):
    # The IDA* incremental path (compact 3-tile groups ranked per lookup, two lookups)
    # against linear conflict on 5x5 starts 34 random moves from the goal.
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    goal = np.arange(25, dtype=np.int8)
    ctx = heuristic_context("pdb", 5, 5, goal, "3-3-3-3-3-3-3-3")
    assert ctx[1]["pdb"]["lookups"] == 2
    start = _walk(goal, 34, seed)
    ref = solve(start, goal, rows=5, cols=5, algorithm="idastar", heuristic="linear-conflict")
    r = solve(start, goal, rows=5, cols=5, algorithm="idastar", heuristic="pdb", context=ctx)
    assert r.length == ref.length and r.optimal
    assert play(start, r.moves, 5, 5) == tuple(goal.tolist())
    assert heuristic_value(start, ctx[0]) == r.h_start <= r.length


@pytest.mark.slow
def test_5x5_6666_tables_solve_optimally():
    # Builds (or loads from the user's cache) the four 127.5 MB tables: minutes of CPU.
    goal = np.arange(25, dtype=np.int8)
    ctx = heuristic_context("pdb", 5, 5, goal)
    assert ctx[1]["pdb"]["sizes"] == "6-6-6-6"
    for seed in (4, 5):
        start = _walk(goal, 50, seed)
        ref = solve(start, goal, rows=5, cols=5, algorithm="idastar", heuristic="linear-conflict")
        r = solve(start, goal, rows=5, cols=5, algorithm="idastar", heuristic="pdb", context=ctx)
        assert r.length == ref.length
        assert r.nodes_generated <= ref.nodes_generated
        assert play(start, r.moves, 5, 5) == tuple(goal.tolist())


def test_korf_felner_24_instances_are_well_formed():
    # The 50 starts of bench/bench_puzzle24.py: permutations of 0..24, solvable for the
    # standard goal, the published optimum never below Manhattan nor of the wrong parity.
    from pathlib import Path

    from fastsnake.puzzle import is_solvable

    golden = Path(__file__).parent / "golden" / "korf_felner_24.csv"
    rows = [line.split(",") for line in golden.read_text().splitlines() if line[:1].isdigit()]
    assert [int(r[0]) for r in rows] == list(range(1, 51))
    goal = np.arange(25, dtype=np.int8)
    hc, _ = heuristic_context("linear-conflict", 5, 5, goal)
    for _, length, nodes, tiles in rows:
        start = np.array([int(t) for t in tiles.split()], np.int8)
        assert sorted(start.tolist()) == list(range(25)) and int(nodes) > 0
        assert is_solvable(start, goal, 5, 5)
        h = heuristic_value(start, hc)
        assert h <= int(length) and (int(length) - h) % 2 == 0


@pytest.mark.parametrize("n, k", [(9, 3), (16, 2), (25, 2), (6, 5)])
def test_compact_to_sparse_matches_the_decoding_conversion(n, k):
    import math

    rng = np.random.default_rng(n * k)
    compact = rng.integers(1, 200, math.perm(n, k)).astype(np.uint8)
    fast = np.zeros(n ** k, np.uint8)
    slow = np.zeros(n ** k, np.uint8)
    assert P.compact_to_sparse(compact, fast, n, k) == len(compact)
    P.convert_layout(slow, compact, n, k, False)
    assert np.array_equal(fast, slow)


@pytest.mark.slow
def test_5x5_6666_mapped_set_equals_the_tables_expanded_in_memory():
    # Builds (or loads from the user's cache) the four tables; the default maps their sparse set.
    goal = np.arange(25, dtype=np.int8)
    mapped = P.pattern_databases(5, 5, goal)
    memory = P.pattern_databases(5, 5, goal, mapped=False)
    assert mapped.mapped is not None and memory.mapped is None
    assert [t["source"] for t in mapped.infos] == ["mapped"] * 4
    assert [t["layout"] for t in memory.infos] == ["sparse"] * 4
    assert np.array_equal(mapped.data, memory.data)
