"""Parallel IDA* (`fastsnake.puzzle.ida_parallel`, `solve(..., threads=N)`): the serial search's moves,
the serial search's nodes in every iteration but the last (and in the last with
``whole_last_iteration``), a path that is a solution, and every thread stopped on an error or a signal.

The quick tests search small boards with Manhattan (the IDA* kernel the quick suite compiles anyway:
no new compile), splitting even tiny iterations (`PARALLEL_MIN_NODES` = 0, few packets a thread); the
comparisons on a few hundred random 4x4 instances and on Korf's first 25 are slow."""

from __future__ import annotations

import textwrap
import threading

import numpy as np
import pytest
from user_heuristic_source import user_module

from fastsnake.cli import main
from fastsnake.puzzle import PuzzleInputError, apply_moves, cores_allowed, parse_tiles, random_solvable, solve
from fastsnake.puzzle import ida_parallel as IP


def _ida_threads() -> list:
    return [t for t in threading.enumerate() if t.name.startswith("fastsnake-ida-")]


def _compare(start, goal, rows, cols, heuristic, threads=2, context=None):
    """Parallel against serial on one instance: the same moves (a solution), the same nodes in every
    iteration (the last one's to the first solution, and whole with whole_last_iteration); returns the
    parallel result."""
    kw = dict(rows=rows, cols=cols, algorithm="idastar", heuristic=heuristic, context=context)
    serial = solve(start, goal, per_iteration=True, **kw)
    par = solve(start, goal, threads=threads, **kw)
    assert par.threads == threads and serial.threads == 1
    assert par.moves == serial.moves and par.length == serial.length
    board, target = parse_tiles(start, rows, cols, "start"), parse_tiles(goal, rows, cols, "goal")
    assert np.array_equal(apply_moves(board, par.moves, rows, cols), target)
    s_its, p_its = serial.extra["iterations"], par.extra["iterations"]
    assert [i["bound"] for i in p_its] == [i["bound"] for i in s_its]
    assert [i["nodes_generated"] for i in p_its] == [i["nodes_generated"] for i in s_its]
    assert [i["nodes_expanded"] for i in p_its] == [i["nodes_expanded"] for i in s_its]
    assert (par.nodes_generated, par.nodes_expanded) == (serial.nodes_generated, serial.nodes_expanded)
    assert par.iterations == serial.iterations == len(s_its)
    assert par.nodes_generated == sum(i["nodes_generated"] for i in p_its)
    # What the threads searched is at least the serial count, and said apart.
    assert par.extra["nodes_generated_searched"] == sum(i["searched_generated"] for i in p_its)
    assert all(i["searched_generated"] >= i["nodes_generated"] for i in p_its)
    whole_s = solve(start, goal, whole_last_iteration=True, **kw)
    whole_p = solve(start, goal, threads=threads, whole_last_iteration=True, **kw)
    assert whole_p.moves == whole_s.moves == serial.moves
    assert [i["nodes_generated"] for i in whole_p.extra["iterations"]] == [
        i["nodes_generated"] for i in whole_s.extra["iterations"]]
    assert (whole_p.nodes_generated, whole_p.nodes_expanded) == (whole_s.nodes_generated, whole_s.nodes_expanded)
    assert whole_p.extra["last_iteration"] == "whole" and whole_s.extra["iterations"][-1]["complete"]
    assert whole_s.nodes_generated >= serial.nodes_generated
    return par


@pytest.fixture
def split_everything(monkeypatch):
    """Every iteration split into packets, however small, a few packets a thread."""
    monkeypatch.setattr(IP, "PARALLEL_MIN_NODES", 0)
    monkeypatch.setattr(IP, "PACKETS_PER_THREAD", 6)


def test_parallel_ida_gives_the_serial_moves_and_nodes_on_small_boards(split_everything):
    rng = np.random.default_rng(62)
    goal3 = np.arange(9, dtype=np.int8)
    packets = 0
    for _ in range(12):
        start = random_solvable(3, 3, goal3, rng)
        par = _compare(start, goal3, 3, 3, "manhattan")
        packets += sum(i["packets"] for i in par.extra["iterations"])
    assert packets > 100  # the iterations were split indeed
    # A few easy 4x4 instances (random walks from the goal) and another goal.
    goal4 = np.arange(16, dtype=np.int8)
    for seed in range(3):
        board = goal4.copy()
        walk = np.random.default_rng(seed)
        blank = 0
        for _ in range(40):
            r, c = divmod(blank, 4)
            options = [(r + dr) * 4 + c + dc for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
                       if 0 <= r + dr < 4 and 0 <= c + dc < 4]
            cell = options[int(walk.integers(len(options)))]
            board[blank], board[cell] = board[cell], 0
            blank = cell
        _compare(board, goal4, 4, 4, "manhattan")
    _compare("806 547 231", "012 345 678", 3, 3, "manhattan")
    assert not _ida_threads()


def test_threads_are_checked():
    for bad in (0, -1, 1.5, True, "2", cores_allowed() + 1):
        with pytest.raises(PuzzleInputError, match="threads"):
            solve("806 547 231", algorithm="idastar", threads=bad)
    for algorithm in ("astar", "bfs", "reduce"):
        with pytest.raises(PuzzleInputError, match=f"not {algorithm}"):
            solve("806 547 231", algorithm=algorithm, threads=2)
    # auto picks A* on 3x3: one thread searched, and the result says so
    assert solve("806 547 231", threads=2).threads == 1


def test_the_cli_searches_one_instance_on_threads(split_everything, capsys):
    import json

    assert main(["puzzle", "solve", "--start", "806 547 231", "--algorithm", "idastar", "--heuristic", "manhattan",
                 "--threads", "2", "--json", "--quiet"]) == 0
    doc = json.loads(capsys.readouterr().out)
    serial = solve("806 547 231", algorithm="idastar", heuristic="manhattan")
    assert doc["threads"] == 2 and doc["moves"] == serial.moves
    assert doc["extra"]["last_iteration"] == "to first solution"
    assert len(doc["extra"]["iterations"]) == serial.iterations
    assert main(["puzzle", "solve", "--start", "806 547 231", "--algorithm", "idastar", "--heuristic", "manhattan",
                 "--threads", "2", "--per-iteration", "--whole-last-iteration", "--quiet"]) == 0
    out = capsys.readouterr().out
    assert "2 threads" in out and "packets" in out and "bound 31:" in out


def test_a_node_or_time_limit_stops_every_thread(split_everything):
    from fastsnake.puzzle import PuzzleLimitError

    with pytest.raises(PuzzleLimitError) as info:
        solve("806 547 231", algorithm="idastar", heuristic="manhattan", threads=2, max_nodes=3000)
    assert info.value.limit == "nodes" and info.value.result.nodes_generated <= 3000
    assert not _ida_threads()
    # The limit is spent, not called reached while another thread still holds nodes it was granted
    # (it was: 0.6-1.05 M of 3 M, as the first thread had taken the rest in one grant).
    korf16 = "1 3 2 5 10 9 15 6 8 14 13 11 12 4 7 0"
    for threads in (1, 2):
        with pytest.raises(PuzzleLimitError) as info:
            solve(korf16, algorithm="idastar", heuristic="manhattan", threads=threads, max_nodes=3_000_000)
        assert info.value.limit == "nodes" and info.value.result.nodes_generated == 3_000_000, threads
    assert not _ida_threads()
    korf88 = "15 2 12 11 14 13 9 5 1 3 8 7 0 10 6 4"  # tens of seconds with Manhattan
    with pytest.raises(PuzzleLimitError) as info:
        solve(korf88, algorithm="idastar", heuristic="manhattan", threads=2, time_limit=0.2)
    assert info.value.limit == "time" and info.value.result.seconds < 5.0
    assert not _ida_threads()


# ---------------------------------------------------------------- slow: many instances, errors, signals

@pytest.mark.slow
def test_parallel_ida_matches_serial_on_random_4x4_with_pdb(monkeypatch):
    from fastsnake.puzzle.solver import heuristic_context

    monkeypatch.setattr(IP, "PARALLEL_MIN_NODES", 2000)
    monkeypatch.setattr(IP, "PACKETS_PER_THREAD", 16)
    goal = np.arange(16, dtype=np.int8)
    ctx = heuristic_context("pdb", 4, 4, goal)
    rng = np.random.default_rng(2062)
    split = 0
    for _ in range(300):
        par = _compare(random_solvable(4, 4, goal, rng), goal, 4, 4, "pdb", context=ctx)
        split += any(i["packets"] for i in par.extra["iterations"])
    assert split > 200


@pytest.mark.slow
def test_parallel_ida_matches_serial_on_korfs_first_25():
    from pathlib import Path

    from fastsnake.puzzle.solver import heuristic_context

    golden = Path(__file__).resolve().parent / "golden" / "korf100.csv"
    rows = [line.strip().split(",") for line in golden.read_text().splitlines() if line[:1].isdigit()]
    goal = np.arange(16, dtype=np.int8)
    ctx = heuristic_context("pdb", 4, 4, goal)
    for i, length, _, tiles in rows[:25]:
        start = np.array(tiles.split(), np.int8)
        par = _compare(start, goal, 4, 4, "pdb", context=ctx)
        assert par.length == int(length), i


_FAILING = user_module(None) + textwrap.dedent('''

    @njit
    def negative(cells, goal, rows, cols):
        h = evaluate(cells, goal, rows, cols)
        return -5 if h > 10 else h


    @njit
    def raises(cells, goal, rows, cols):
        h = evaluate(cells, goal, rows, cols)
        if h > 10:
            raise ValueError("deep trouble")
        return h
''')


@pytest.mark.slow
@pytest.mark.parametrize("function, message", [("negative", "outside"), ("raises", "deep trouble")])
def test_a_users_heuristic_failing_in_a_thread_stops_every_thread(tmp_path, monkeypatch, capsys, function, message):
    # Manhattan (6 at the start) until a node's value passes 10, at depth 5 or more: below the frontier
    # (one packet a thread: depth 1 or 2), so inside a thread's packet.
    import importlib
    import sys

    from fastsnake.puzzle import UserHeuristicError, register_heuristic
    from fastsnake.puzzle.heuristics import unregister_heuristic

    monkeypatch.setattr(IP, "PARALLEL_MIN_NODES", 0)
    monkeypatch.setattr(IP, "PACKETS_PER_THREAD", 1)
    (tmp_path / "fs_test_par_failing.py").write_text(_FAILING)
    monkeypatch.syspath_prepend(str(tmp_path))
    module = importlib.import_module("fs_test_par_failing")
    start = "0 2 1 5 4 3 6 7 8"
    try:
        register_heuristic("par-failing", getattr(module, function))
        with pytest.raises(UserHeuristicError, match=f"'par-failing' failed during the search.*{message}"):
            # no sampling first (it would meet the bad values before the search does)
            solve(start, algorithm="idastar", heuristic="par-failing", threads=2, admissibility_samples=0)
        assert not _ida_threads()
        assert main(["puzzle", "solve", "--start", start, "--algorithm", "idastar",
                     "--heuristic", "par-failing", "--threads", "2", "--admissibility-samples", "0", "--quiet"]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "par-failing" in err[0] and err[0].startswith("fastsnake: error:")
        assert not _ida_threads()
    finally:
        unregister_heuristic("par-failing")
        sys.modules.pop("fs_test_par_failing", None)


@pytest.mark.slow
@pytest.mark.skipif(cores_allowed() < 2, reason="needs 2 cores")
@pytest.mark.parametrize("signame, status", [("SIGINT", 130), ("SIGTERM", 143)])
def test_a_signal_stops_a_threaded_solve_within_a_second(signame, status):
    import os
    import signal
    import subprocess
    import sys
    import time

    korf88 = "15 2 12 11 14 13 9 5 1 3 8 7 0 10 6 4"  # tens of seconds with Manhattan
    read_fd, write_fd = os.pipe()
    env = dict(os.environ, FASTSNAKE_READY_FD=f"{write_fd}:{os.fstat(write_fd).st_ino}")
    proc = subprocess.Popen([sys.executable, "-m", "fastsnake", "puzzle", "solve", "--start", korf88,
                             "--algorithm", "idastar", "--heuristic", "manhattan", "--threads", "2"],
                            env=env, pass_fds=(write_fd,), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    os.close(write_fd)
    with os.fdopen(read_fd) as ready:
        assert ready.readline().strip() == "cli"
    time.sleep(8.0)  # past the kernel's load and the first iterations: the threads search
    assert proc.poll() is None
    t0 = time.perf_counter()
    proc.send_signal(getattr(signal, signame))
    out, err = proc.communicate(timeout=30)
    took = time.perf_counter() - t0
    assert proc.returncode == status, err
    assert took < 1.0, took
    assert out == "" and "Traceback" not in err


def test_threads_may_change_between_iterations_and_the_counts_stay_the_serial_ones(split_everything):
    # A study's worker gives its search a function: each iteration asks how many threads it may use.
    rng = np.random.default_rng(2063)
    goal3 = np.arange(9, dtype=np.int8)
    for trial in range(8):
        start = random_solvable(3, 3, goal3, rng)
        serial = solve(start, goal3, algorithm="idastar", heuristic="manhattan", per_iteration=True)
        asked = []

        def plan(trial=trial, asked=asked):
            asked.append(len(asked))
            return [1, 2, 2, 1, 2][(len(asked) + trial) % 5]

        par = solve(start, goal3, algorithm="idastar", heuristic="manhattan", threads=plan)
        assert par.moves == serial.moves
        assert (par.nodes_generated, par.nodes_expanded) == (serial.nodes_generated, serial.nodes_expanded)
        its = par.extra["iterations"]
        assert len(asked) == len(its) == serial.iterations  # asked once an iteration
        assert [i["nodes_generated"] for i in its] == [i["nodes_generated"] for i in serial.extra["iterations"]]
        used = [i["threads"] for i in its]
        assert par.threads == max(used) and set(used) <= {1, 2}
    assert not _ida_threads()
