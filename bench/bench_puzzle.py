"""Sliding-puzzle benchmarks: the seed's 2x5 A*, IDA* node rate, Korf's 100 with PDBs.

The 7-8 benchmark runs only when its tables are in the cache (build them once with
`fastsnake puzzle solve --size 4x4 --start "…" --heuristic pdb --pdb 7-8`: ~6 CPU-minutes,
2.7 GB peak, 577 MB of files).

Run: .venv/bin/pytest bench/bench_puzzle.py --benchmark-only -s
Node counts are deterministic and asserted; rates and totals go to extra_info.
"""

import os
import sys
import time
from pathlib import Path

import numpy as np
import pytest

_REPO = Path(__file__).resolve().parents[1]
os.environ.setdefault("FASTSNAKE_CACHE_DIR", str(_REPO / ".cache"))
sys.path.insert(0, str(_REPO / "tests" / "puzzle"))

from fastsnake.puzzle import apply_moves, solve  # noqa: E402
from fastsnake.puzzle import pdb as P  # noqa: E402
from fastsnake.puzzle.solver import heuristic_context  # noqa: E402

GOAL16 = np.arange(16, dtype=np.int8)


def _korf():
    rows = {}
    for line in (_REPO / "tests" / "puzzle" / "golden" / "korf100.csv").read_text().splitlines():
        if line and line[0].isdigit():
            i, length, nodes, tiles = line.split(",")
            rows[int(i)] = (int(length), int(nodes), tiles)
    return rows


def _naive_astar_3x3():
    """The seed's algorithm in pure Python (A* + Manhattan, dict closed set): the baseline."""
    import heapq

    from puzzle_naive import manhattan, neighbours

    goal = (8, 0, 6, 5, 4, 7, 2, 3, 1)
    start = tuple(range(9))
    g = {start: 0}
    heap = [(manhattan(start, goal, 3, 3), 0, start)]
    created = 0
    while heap:
        f, gs, s = heapq.heappop(heap)
        if gs != g[s]:
            continue
        if s == goal:
            return gs, created
        for _, t in neighbours(s, 3, 3):
            created += 1
            if gs + 1 < g.get(t, 1 << 30):
                g[t] = gs + 1
                heapq.heappush(heap, (gs + 1 + manhattan(t, goal, 3, 3), gs + 1, t))


def test_seed_3x3_pure_python_baseline(benchmark):
    length, created = benchmark.pedantic(_naive_astar_3x3, rounds=3, iterations=1)
    assert length == 31
    benchmark.extra_info["nodes_generated"] = created


def test_seed_3x3_astar_manhattan(benchmark):
    solve("012 345 678", "806 547 231", rows=3, cols=3, algorithm="astar", heuristic="manhattan")
    r = benchmark(solve, "012 345 678", "806 547 231", rows=3, cols=3, algorithm="astar",
                  heuristic="manhattan")
    assert r.length == 31 and r.nodes_generated == 5793


def test_seed_2x5_astar_manhattan(benchmark):
    # Seed: pure-Python A* + Manhattan, 1,674,337 nodes created, 75 s. Target <= 0.5 s.
    solve("012 345 678", "806 547 231", rows=3, cols=3, algorithm="astar", heuristic="manhattan")
    r = benchmark.pedantic(solve, args=("01234 56789", "43261 98750"),
                           kwargs=dict(rows=2, cols=5, algorithm="astar", heuristic="manhattan"),
                           rounds=5, iterations=1)
    assert r.length == 55 and r.nodes_generated == 1587362 and r.nodes_expanded == 998689
    benchmark.extra_info.update(seconds=r.seconds, memory_mib=r.memory_bytes / 2**20)


def test_idastar_manhattan_node_rate(benchmark):
    # Korf instances 5, 13, 16, 28 and 2: 69.2 M nodes. Target >= 50 M nodes/s.
    korf = _korf()
    ids = (2, 5, 13, 16, 28)
    solve(korf[28][2], rows=4, cols=4, algorithm="idastar", heuristic="manhattan")

    def run():
        t0 = time.perf_counter()
        nodes = 0
        for i in ids:
            r = solve(korf[i][2], rows=4, cols=4, algorithm="idastar", heuristic="manhattan")
            assert r.length == korf[i][0]
            nodes += r.nodes_generated
        return nodes, time.perf_counter() - t0

    nodes, seconds = benchmark.pedantic(run, rounds=3, iterations=1)
    assert nodes == 69195026
    benchmark.extra_info.update(nodes=nodes, mnodes_per_s=nodes / seconds / 1e6)
    print(f"\nIDA* Manhattan: {nodes:,} nodes in {seconds:.3f} s = {nodes / seconds / 1e6:.1f} M nodes/s")


def _korf100_pdb(benchmark, partition, expected_nodes):
    t0 = time.perf_counter()
    ctx = heuristic_context("pdb", 4, 4, GOAL16, partition, progress=print)
    setup = time.perf_counter() - t0
    korf = _korf()

    def run():
        nodes = 0
        t1 = time.process_time()
        for i in range(1, 101):
            r = solve(korf[i][2], rows=4, cols=4, algorithm="idastar", heuristic="pdb", context=ctx)
            assert r.length == korf[i][0], i
            assert apply_moves(r.start, r.moves, 4, 4).tolist() == GOAL16.tolist()
            nodes += r.nodes_generated
        return nodes, time.process_time() - t1

    nodes, cpu = benchmark.pedantic(run, rounds=1, iterations=1)
    assert nodes == expected_nodes
    benchmark.extra_info.update(nodes=nodes, nodes_per_instance=nodes / 100, cpu_seconds=cpu,
                                pdb_setup_seconds=setup)
    print(f"\nKorf 100 ({partition} + reflection): {nodes:,} nodes ({nodes / 100:,.0f}/instance), "
          f"{cpu:.2f} CPU s; PDB load/build {setup:.1f} s")


def test_korf100_pdb_663(benchmark):
    # Target <= 5 CPU-s for all 100; Korf & Felner: 617,555 nodes/instance.
    _korf100_pdb(benchmark, "6-6-3", 63718046)


def _cached(partition):
    groups = P.parse_partition(partition, 4, 4, GOAL16)
    return all(P._path(P._key(4, 4, 0, g)).exists() for g in groups)


@pytest.mark.skipif(not _cached("7-8"), reason="7-8 tables not built (see the module docstring)")
def test_korf100_pdb_78(benchmark):
    # Korf & Felner: 36,710 nodes/instance.
    _korf100_pdb(benchmark, "7-8", 4071216)
