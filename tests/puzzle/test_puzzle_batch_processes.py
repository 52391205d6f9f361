"""`fastsnake puzzle batch FILE` / `solve_processes`: worker processes (spawn), one set of
tables memory-mapped by every worker, per-instance nodes and CPU-s, Ctrl-C keeps the
finished instances."""

import json

import numpy as np
import pytest
from puzzle_naive import bfs_distances, play

from fastsnake.cli import main
from fastsnake.puzzle import PuzzleInputError, random_solvable, solve_processes

GOAL = np.arange(9, dtype=np.int8)


@pytest.fixture(scope="module")
def dist():
    return bfs_distances(GOAL, 3, 3)


def _starts(count, seed):
    rng = np.random.default_rng(seed)
    return [random_solvable(3, 3, GOAL, rng) for _ in range(count)]


def test_cli_batch_json_lengths_optimal_and_replayed(tmp_path, capsys, dist, monkeypatch):
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    starts = _starts(5, 1)
    path = tmp_path / "eight.txt"
    path.write_text("# five 8-puzzles\n" + "\n".join(" ".join(map(str, s)) for s in starts) + "\n\n")
    code = main(["puzzle", "batch", str(path), "--json", "--quiet", "--heuristic", "pdb",
                 "--algorithm", "idastar", "--workers", "2"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["line"] for r in doc["results"]] == [2, 3, 4, 5, 6]
    assert len({r["worker"] for r in doc["results"]}) <= 2
    for r, s in zip(doc["results"], starts, strict=True):
        assert r["length"] == dist[tuple(s.tolist())] and r["optimal"]
        assert play(s, r["moves"], 3, 3) == tuple(GOAL.tolist())
        assert r["cpu_seconds"] >= 0 and r["nodes_generated"] >= r["length"]
    assert doc["summary"]["solved"] == 5 and not doc["summary"]["interrupted"]
    assert doc["tables"]["sizes"] == "6-2"


@pytest.mark.parametrize("workers", [1, 2])
def test_interrupt_keeps_the_finished_instances(tmp_path, monkeypatch, dist, workers):
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    starts = _starts(6, 2)
    seen = []

    def on_result(res):
        seen.append(res)
        raise KeyboardInterrupt  # as Ctrl-C in the parent while it waits for the next one

    out = solve_processes(starts, rows=3, cols=3, heuristic="manhattan", workers=workers, on_result=on_result)
    assert out.interrupted and out.results == seen and len(seen) == 1
    r = out.results[0]
    assert r["length"] == dist[tuple(starts[r["index"]].tolist())]


def test_bad_batches_are_refused_before_any_worker(tmp_path, capsys):
    with pytest.raises(PuzzleInputError, match="instance 2: not solvable"):
        solve_processes(["1 0 2 3 4 5 6 7 8", "1 0 2 3 4 5 6 8 7"], rows=3, cols=3)
    with pytest.raises(PuzzleInputError, match="one goal"):
        solve_processes(["1 0 2 3 4 5 6 7 8 ; 1 0 2 3 4 5 6 7 8"], rows=3, cols=3)
    path = tmp_path / "bad.txt"
    path.write_text("1 2 3\n")
    assert main(["puzzle", "batch", str(path)]) == 2
    assert "fastsnake: error:" in capsys.readouterr().err


def test_an_interrupt_the_batch_answers_is_not_raised_again_by_the_cli(tmp_path, monkeypatch, dist):
    """The CLI raises again, at the end of a verb, a signal whose exception the code it interrupted
    swallowed (`signals.raise_if_received`, issue 46); the batch answers its Ctrl-C itself (the
    finished instances printed, exit 130), so it marks the signal answered."""
    import signal

    from fastsnake import cli, signals

    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    cli._install_signal_handlers()
    try:
        out = solve_processes(_starts(6, 2), rows=3, cols=3, heuristic="manhattan", workers=1,
                              on_result=lambda res: signal.raise_signal(signal.SIGINT))
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    assert out.interrupted and len(out.results) == 1
    assert signals.signal_received() is None


def test_workers_map_the_cached_sparse_set_file(tmp_path, monkeypatch, dist):
    """A set kept as a sparse file in the cache (6-6-6-6 on 5x5 by size; here `mapped=True`) is
    mapped by the workers from that file, checked as the parent checked it (its stamp)."""
    from fastsnake.puzzle import pdb as P

    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    P.pattern_databases(3, 3, GOAL, "1,2,3,4/5,6,7,8")  # the compact files
    starts = _starts(4, 3)
    out = solve_processes(starts, rows=3, cols=3, heuristic="pdb", algorithm="idastar", workers=2,
                          partition="1,2,3,4/5,6,7,8", mapped=True)
    assert out.tables["mapped"]["file"].startswith(str(tmp_path / "pdb"))
    assert [t["source"] for t in out.tables["tables"]] == ["mapped", "mapped"]
    assert len(out.results) == 4
    for r in out.results:
        s = starts[r["index"]]
        assert r["length"] == dist[tuple(s.tolist())]
        assert play(s, r["moves"], 3, 3) == tuple(GOAL.tolist())


def test_a_worker_whose_set_file_changed_expands_the_compact_tables(tmp_path, monkeypatch):
    """The parent checked the set file; if it is damaged before a worker maps it, the worker
    loads the compact tables itself (same layout) instead of failing its start."""
    from fastsnake.puzzle import batch
    from fastsnake.puzzle import pdb as P
    from fastsnake.puzzle import pdb_store as S

    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    P.pattern_databases(3, 3, GOAL, "1,2,3,4/5,6,7,8")
    pset = P.pattern_databases(3, 3, GOAL, "1,2,3,4/5,6,7,8", mapped=True)
    keys = [P.table_key(3, 3, 0, g) for g in pset.groups]
    sizes = [len(t) for t in pset.tables]
    spec = {"rows": 3, "cols": 3, "blank_cell": 0, "groups": pset.groups, "sizes": sizes,
            "pdb_file": pset.mapped["file"],
            "pdb_set": (keys, sizes, [P.recorded_digest(P.table_path(k), k, 3024) for k in keys])}
    good = np.array(pset.data)
    mapped = batch.worker_tables(spec)
    assert not mapped.flags.writeable and np.array_equal(mapped, good)
    with open(pset.mapped["file"], "r+b") as fh:
        fh.truncate(S.SET_HEADER_BYTES + 100)
    expanded = batch.worker_tables(spec)
    assert expanded.flags.writeable and np.array_equal(expanded, good)


# -- on the runner (`fastsnake.runs.run`, issue 61): the results of single solves, whatever the workers,
# and IDA* on the cores of idle workers (issue 62), as a puzzle study's searches --------------------------
MEASURED = ("cpu_seconds", "nodes_per_cpu_second", "seconds", "worker", "threads")


def _same(results):
    """The results by input position, but what may differ between two runs (CPU, time, process, threads)."""
    return {r["index"]: {k: v for k, v in r.items() if k not in MEASURED} for r in results}


def _single(start, **kw):
    """The result `solve` gives one instance, in a batch result's keys (but the measured ones)."""
    from fastsnake.puzzle import solve

    r = solve(start, GOAL, rows=3, cols=3, warn=False, **kw)
    return {"length": r.length, "moves": r.moves, "optimal": r.optimal, "optimal_reason": r.optimal_reason,
            "nodes_generated": r.nodes_generated, "nodes_expanded": r.nodes_expanded, "h_start": r.h_start,
            "algorithm": r.algorithm, "heuristic": r.heuristic}


@pytest.fixture
def two_cores(monkeypatch):
    """This process's searches handed 2 threads at every iteration (as a pool worker whose neighbour is
    idle), every iteration split however small; calls of `batch._search` recorded (threads asked, the
    threads the search used, whether a limit stopped it)."""
    from fastsnake import runs
    from fastsnake.puzzle import batch
    from fastsnake.puzzle import ida_parallel as IP

    monkeypatch.setattr(runs, "core_share", lambda: (lambda: 2))
    monkeypatch.setattr(IP, "PARALLEL_MIN_NODES", 0)
    monkeypatch.setattr(IP, "PACKETS_PER_THREAD", 4)
    calls = []
    search = batch._search

    def spy(state, start, threads):
        r, cpu, exc = search(state, start, threads)
        calls.append((threads if not callable(threads) else "share", r.threads, exc is not None))
        return r, cpu, exc

    monkeypatch.setattr(batch, "_search", spy)
    return calls


def test_threaded_idastar_results_are_those_of_single_solves(tmp_path, monkeypatch, two_cores):
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    starts = _starts(6, 61)
    out = solve_processes(starts, rows=3, cols=3, heuristic="manhattan", algorithm="idastar", workers=1)
    assert [r["index"] for r in out.results] == list(range(6))  # one worker: input order
    assert {r["threads"] for r in out.results} == {2}  # every search split (PARALLEL_MIN_NODES = 0)
    assert all(r["cpu_seconds"] > 0 and "error" not in r for r in out.results)
    same = _same(out.results)
    for i, s in enumerate(starts):
        assert same[i] == {"index": i, **_single(s, algorithm="idastar", heuristic="manhattan")}
    # A* searches on one thread, whatever the cores
    astar = solve_processes(starts[:2], rows=3, cols=3, heuristic="manhattan", algorithm="astar", workers=1)
    assert {r["threads"] for r in astar.results} == {1}


def test_a_threaded_search_stopped_by_the_node_limit_is_searched_again_on_one_thread(tmp_path, monkeypatch,
                                                                                   two_cores, dist):
    """Threads stopped by the node limit did not search the serial search's first nodes: the instance is
    searched again on one thread, its result the serial one's (threads 1, the one-thread limit error)."""
    from fastsnake import runs

    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    starts = _starts(8, 9)
    out = solve_processes(starts, rows=3, cols=3, heuristic="manhattan", algorithm="idastar", workers=1,
                          max_nodes=600)
    stopped = [r for r in out.results if "error" in r]
    solved = [r for r in out.results if "error" not in r]
    assert stopped and solved  # both kinds are played
    assert all(r["threads"] == 1 and r["limit"] == "nodes" and "raise --max-nodes" in r["error"] for r in stopped)
    # solved on 2 threads, or on 1 when the threads' limit stopped them where one thread solves it
    assert {r["threads"] for r in solved} == {1, 2}
    for r in solved:
        assert r["length"] == dist[tuple(starts[r["index"]].tolist())]
    # a search on the cores' share stopped on 2 threads is searched again at once, on 1 thread
    again = [k for k, c in enumerate(two_cores) if c[0] == "share" and c[2]]
    assert len(again) >= len(stopped)
    assert all(two_cores[k][1] == 2 and two_cores[k + 1][0] == 1 for k in again)
    monkeypatch.setattr(runs, "core_share", lambda: None)  # this process: one core
    plain = solve_processes(starts, rows=3, cols=3, heuristic="manhattan", algorithm="idastar", workers=1,
                            max_nodes=600)
    assert {r["threads"] for r in plain.results} == {1}
    assert _same(plain.results) == _same(out.results)


def test_one_and_two_workers_give_the_results_of_single_solves(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    starts = _starts(6, 62)
    kw = dict(rows=3, cols=3, heuristic="manhattan", algorithm="idastar")
    one = solve_processes(starts, workers=1, **kw)
    two = solve_processes(starts, workers=2, **kw)
    assert _same(one.results) == _same(two.results) and len(two.results) == 6
    assert {r["threads"] for r in one.results} == {1} and {r["threads"] for r in two.results} <= {1, 2}
    for i, s in enumerate(starts):
        assert _same(two.results)[i] == {"index": i, **_single(s, algorithm="idastar", heuristic="manhattan")}


def test_sigterm_stops_the_batch_as_before(tmp_path, monkeypatch):
    """SIGTERM is not a Ctrl-C: the batch stops with `Terminated` (exit 143), the finished ones in it."""
    from fastsnake.errors import Terminated

    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))

    def on_result(res):
        raise Terminated()

    with pytest.raises(Terminated) as caught:
        solve_processes(_starts(4, 2), rows=3, cols=3, heuristic="manhattan", workers=1, on_result=on_result)
    assert len(caught.value.result.results) == 1


def test_a_batch_of_one_instance_on_two_workers_searches_it_on_two_threads(tmp_path, capsys):
    """One chunk: the pool starts one process, and its IDA* search takes the idle worker's core too
    (Korf's #16 with Manhattan: 6.8 M nodes, a tenth of a CPU-second); the moves and counts are the
    serial search's."""
    from fastsnake import runs
    from fastsnake.puzzle import load_instances, solve

    if runs.available_cores() < 2:
        pytest.skip("this process may use one core")
    korf16 = next(i for i in load_instances("korf100") if i.id == "16")
    path = tmp_path / "one.txt"
    path.write_text(" ".join(map(str, korf16.start)) + "\n")
    assert main(["puzzle", "batch", str(path), "--workers", "2", "--heuristic", "manhattan",
                 "--algorithm", "idastar", "--json", "--quiet"]) == 0
    doc = json.loads(capsys.readouterr().out)
    (r,) = doc["results"]
    serial = solve(korf16.start, korf16.goal, rows=4, cols=4, algorithm="idastar", heuristic="manhattan")
    assert r["threads"] == 2 and r["length"] == 42 == serial.length
    assert (r["moves"], r["nodes_generated"], r["nodes_expanded"]) == (
        serial.moves, serial.nodes_generated, serial.nodes_expanded)
