"""Leaper tour speed against the issue's targets, each result checked.

    pytest bench/bench_tour.py --benchmark-columns=min,mean,max,rounds

Targets (issue 6): 8x8 from all 64 starts <= 5 ms in total; 1000x1000 open knight
tour <= 50 ms; 4000x4000 <= 1 s; a 2000x2000 closed tour (a Java library: 7.9 s);
a zebra / giraffe tour. The baseline measured in the same run is the seed's method
in plain Python (Warnsdorff, ties by move order, no backtracking).
"""

import sys
from pathlib import Path

import pytest

from fastsnake.tour import Piece, find_tour
from fastsnake.tour.verify import tour_problem

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "tour"))
import tour_naive as naive  # noqa: E402

KNIGHT = Piece.leaper(1, 2)
RESULTS = {}


def check(result, closed=False):
    assert result.found, result.reason
    assert tour_problem(result.rows, result.cols, result.piece.jumps, result.path, closed) is None


def all_starts_8x8():
    return [find_tour(KNIGHT, 8, 8, s, method="search") for s in range(64)]


def test_8x8_all_starts_python_baseline(benchmark):
    paths = benchmark.pedantic(lambda: [naive.warnsdorff(8, 8, KNIGHT.jump_list, s) for s in range(64)],
                               rounds=5, iterations=1)
    RESULTS["python_8x8"] = benchmark.stats.stats.mean
    assert sum(len(p) == 64 for p in paths) >= 60  # plain Warnsdorff fails from a few starts


def test_8x8_all_starts(benchmark):
    all_starts_8x8()  # compile / load the kernels outside the timing
    results = benchmark.pedantic(all_starts_8x8, rounds=20, iterations=1)
    for r in results:
        check(r)
    if "python_8x8" in RESULTS:
        benchmark.extra_info["speedup_vs_python"] = RESULTS["python_8x8"] / benchmark.stats.stats.mean


def test_8x8_closed(benchmark):
    find_tour(KNIGHT, 8, 8, 0, closed=True, method="search")
    check(benchmark.pedantic(lambda: find_tour(KNIGHT, 8, 8, 0, closed=True, method="search"), rounds=20),
          closed=True)


@pytest.mark.parametrize("method", ["auto", "search"])
def test_1000_open(benchmark, method):
    find_tour(KNIGHT, 1000, 1000, 0, method=method)  # kernels loaded, block tours built
    result = benchmark.pedantic(lambda: find_tour(KNIGHT, 1000, 1000, 0, method=method), rounds=5)
    check(result)
    benchmark.extra_info["method"] = result.method


@pytest.mark.parametrize("method", ["auto", "search"])
def test_4000_open(benchmark, method):
    find_tour(KNIGHT, 100, 100, 0, method=method)
    find_tour(KNIGHT, 100, 100, 0, method=method if method == "search" else "construct")
    rounds = 5 if method == "auto" else 1
    result = benchmark.pedantic(lambda: find_tour(KNIGHT, 4000, 4000, 0, method=method, time_limit=60),
                                rounds=rounds)
    check(result)
    benchmark.extra_info["method"] = result.method


def test_2000_closed(benchmark):
    find_tour(KNIGHT, 20, 20, 0, closed=True)
    result = benchmark.pedantic(lambda: find_tour(KNIGHT, 2000, 2000, 0, closed=True), rounds=5)
    check(result, closed=True)


@pytest.mark.parametrize("name,ab,size,closed", [
    ("zebra", (2, 3), 100, False),
    ("zebra", (2, 3), 100, True),
    ("giraffe", (1, 4), 50, False),
    ("giraffe", (1, 4), 16, True),
])
def test_other_leapers(benchmark, name, ab, size, closed):
    piece = Piece.leaper(*ab)
    find_tour(piece, 8, 8, 0, time_limit=1)
    result = benchmark.pedantic(lambda: find_tour(piece, size, size, 0, closed=closed, time_limit=30), rounds=3)
    check(result, closed)
    benchmark.extra_info["nodes"] = result.nodes
