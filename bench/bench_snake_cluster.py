"""Sweep folders: games/s of a local run vs a 2-process dask LocalCluster on the same machine.

The cluster's start-up (spawning workers, importing fastsnake, loading the cached kernel)
is measured apart from the sweep, so the ratio shows the per-chunk overhead only:

    pytest bench/bench_snake_cluster.py -s
"""

import shutil
import tempfile
import time

import numba
import pytest

from fastsnake.snake.dataset import SweepDataset, SweepSpec, compute_chunk, run_dataset_sweep

GAMES = 400_000
CHUNK = 20_000
SPEC = SweepSpec("cycle", 10, 10, 3, "follow", 10_000, 1, GAMES, 0, {"cycle": "zigzag"}, CHUNK)
RESULTS = {}


def fresh_folder():
    return SweepDataset.open(tempfile.mkdtemp(prefix="fs-bench-") + "/d", SPEC)


def sweep(runner=None, threads=2):
    dataset = fresh_folder()
    try:
        source = runner.chunk_source(SPEC.to_json()) if runner else None
        acc, seconds, cpu, interrupted = run_dataset_sweep(dataset, threads=threads, chunk_source=source)
        assert acc.games == GAMES and acc.wins == GAMES and not interrupted
        return acc
    finally:
        shutil.rmtree(dataset.path.parent)


def test_local_folder_sweep(benchmark):
    compute_chunk(SPEC.to_json(), 0, 1)  # compile / load the kernel first
    threads = min(2, numba.config.NUMBA_NUM_THREADS)
    benchmark.pedantic(sweep, kwargs={"threads": threads}, rounds=3, iterations=1)
    RESULTS["local"] = GAMES / benchmark.stats.stats.mean
    benchmark.extra_info.update(games_per_second=RESULTS["local"], threads=threads)


def test_local_cluster_2_workers(benchmark):
    pytest.importorskip("distributed")
    from fastsnake.snake.cluster import ClusterRunner

    t0 = time.perf_counter()
    with ClusterRunner("local:2", threads_per_worker=1) as runner:
        runner.client.run(compute_chunk, SPEC.to_json(), 0, 1)  # warm every worker's kernel
        startup = time.perf_counter() - t0
        benchmark.pedantic(sweep, kwargs={"runner": runner}, rounds=3, iterations=1)
    rate = GAMES / benchmark.stats.stats.mean
    benchmark.extra_info.update(games_per_second=rate, startup_seconds=startup,
                                vs_local=rate / RESULTS["local"] if "local" in RESULTS else None)
    print(f"\nlocal {RESULTS.get('local', float('nan')):,.0f} games/s; cluster local:2 {rate:,.0f} games/s "
          f"(start-up {startup:.1f} s)")
