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
    # Korf instances 5, 13, 16, 28 and 2: 31.3 M nodes with the duplicate-path automaton
    # (69.2 M with prune_depth=0). Target >= 50 M nodes/s.
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
    assert nodes == 31324933
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
    # Target <= 5 CPU-s for all 100; Korf & Felner: 617,555 nodes/instance. 63,718,046 nodes
    # with prune_depth=0, 37,760,647 with the duplicate-path automaton (docs/puzzle.md).
    _korf100_pdb(benchmark, "6-6-3", 37760647)


def _cached(partition):
    groups = P.parse_partition(partition, 4, 4, GOAL16)
    return all(P._path(P._key(4, 4, 0, g)).exists() for g in groups)


@pytest.mark.skipif(not _cached("7-8"), reason="7-8 tables not built (see the module docstring)")
def test_korf100_pdb_78(benchmark):
    # Korf & Felner: 36,710 nodes/instance. 4,071,216 nodes with prune_depth=0, 2,979,686 with the
    # duplicate-path automaton.
    _korf100_pdb(benchmark, "7-8", 2979686)


# --- reduce (any board, non-optimal) and batches -------------------------------------------

REDUCE_SIZES = [(5, 5, 10.0), (8, 8, 10.0), (3, 12, 10.0), (20, 20, 1.0)]  # (rows, cols, target s)


@pytest.mark.parametrize("rows, cols, target", REDUCE_SIZES)
def test_reduce_random_boards(benchmark, rows, cols, target):
    """Random start and random goal per instance; every solution replayed. The baseline,
    measured in the same run, is replaying the solution's moves in pure Python
    (`apply_moves`): reduce_ratio = solve time / replay time."""
    rng = np.random.default_rng(rows * 100 + cols)
    from fastsnake.puzzle import random_solvable

    cases = []
    for _ in range(5):
        goal = rng.permutation(rows * cols)
        cases.append((random_solvable(rows, cols, goal, rng), goal))
    solve(cases[0][0], cases[0][1], rows=rows, cols=cols, algorithm="reduce")  # compile

    def run():
        return [solve(s, g, rows=rows, cols=cols, algorithm="reduce") for s, g in cases]

    results = benchmark.pedantic(run, rounds=3, iterations=1)
    t0 = time.perf_counter()
    for (s, g), r in zip(cases, results, strict=True):
        assert apply_moves(s, r.moves, rows, cols).tolist() == g.tolist()
    replay = time.perf_counter() - t0
    worst = max(r.seconds for r in results)
    solve_total = sum(r.seconds for r in results)
    assert worst <= target
    lengths = [r.length for r in results]
    benchmark.extra_info.update(mean_length=float(np.mean(lengths)), worst_seconds=worst,
                                solve_over_python_replay=solve_total / replay)
    print(f"\nreduce {rows}x{cols}, random goals: mean length {np.mean(lengths):,.0f}, worst "
          f"{worst * 1000:.1f} ms (target {target:g} s), solving = {solve_total / replay:.2f}x "
          f"the time of replaying the moves in pure Python")


def test_reduce_korf_first_ten_ratio(benchmark):
    """Reduce lengths against the published optimal lengths of Korf #1-#10 (target mean <= 3)."""
    korf = _korf()
    solve(korf[1][2], rows=4, cols=4, algorithm="reduce")

    def run():
        return [solve(korf[i][2], rows=4, cols=4, algorithm="reduce") for i in range(1, 11)]

    results = benchmark.pedantic(run, rounds=3, iterations=1)
    ratios = [r.length / korf[i][0] for i, r in zip(range(1, 11), results, strict=True)]
    for r in results:
        assert apply_moves(r.start, r.moves, 4, 4).tolist() == GOAL16.tolist()
    assert np.mean(ratios) <= 3.0
    benchmark.extra_info.update(mean_ratio=float(np.mean(ratios)), lengths=[r.length for r in results])
    print(f"\nreduce on Korf #1-#10: lengths {[r.length for r in results]}, optimal "
          f"{[korf[i][0] for i in range(1, 11)]}, mean ratio {np.mean(ratios):.2f} "
          f"(max {max(ratios):.2f})")


def _korf_batch_cpu(tmp_path, threads, partition):
    """CPU-seconds (user + sys) of one `fastsnake puzzle solve --batch` process over Korf's
    100, start-up and database loading included (tables and kernels cached beforehand)."""
    import json
    import resource
    import subprocess

    korf = _korf()
    path = tmp_path / "korf100.txt"
    path.write_text("".join(korf[i][2] + "\n" for i in range(1, 101)))
    argv = [sys.executable, "-m", "fastsnake", "puzzle", "solve", "--size", "4x4", "--batch",
            str(path), "--json", "--quiet", "--heuristic", "pdb", "--partition", partition,
            "--threads", str(threads)]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(argv, capture_output=True, text=True, check=True)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    docs = json.loads(proc.stdout)
    assert [d["length"] for d in docs] == [korf[i][0] for i in range(1, 101)]
    assert all(d["optimal"] for d in docs)
    return cpu, wall, sum(d["nodes_generated"] for d in docs)


@pytest.mark.parametrize("threads", [1, 2])
def test_korf100_batch_one_process_663(benchmark, tmp_path, threads):
    """Korf's 100 optimal in one process: target <= 15 CPU-s including start-up and loading
    the 6-6-3 tables. Published anchor (Korf & Felner 2002, additive 7-8 PDB + reflection):
    36,710 nodes per instance; see docs/puzzle.md."""
    heuristic_context("pdb", 4, 4, GOAL16, "6-6-3")  # tables built beforehand
    _korf_batch_cpu(tmp_path, threads, "6-6-3")  # warm the kernel cache of the subprocess
    cpu, wall, nodes = benchmark.pedantic(_korf_batch_cpu, args=(tmp_path, threads, "6-6-3"),
                                          rounds=1, iterations=1)
    assert cpu <= 15.0
    benchmark.extra_info.update(cpu_seconds=cpu, wall_seconds=wall, nodes=nodes)
    print(f"\nKorf 100 batch, 6-6-3, {threads} thread(s): {cpu:.2f} CPU-s, {wall:.2f} s wall "
          f"(start-up and table loading included), {nodes:,} nodes")


@pytest.mark.skipif(not _cached("7-8"), reason="7-8 tables not built (see the module docstring)")
def test_korf100_batch_one_process_78(benchmark, tmp_path):
    _korf_batch_cpu(tmp_path, 1, "7-8")
    cpu, wall, nodes = benchmark.pedantic(_korf_batch_cpu, args=(tmp_path, 1, "7-8"),
                                          rounds=1, iterations=1)
    benchmark.extra_info.update(cpu_seconds=cpu, wall_seconds=wall, nodes=nodes)
    print(f"\nKorf 100 batch, 7-8: {cpu:.2f} CPU-s, {wall:.2f} s wall, {nodes:,} nodes")
