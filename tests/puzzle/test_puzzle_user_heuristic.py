"""A user's heuristic, one file: registered by function or through the entry-point group
``fastsnake.heuristics``, refused with one line when it cannot be used, and checked for
admissibility (`check_admissible`).

The quick tests call the user's functions from Python only (numba compiles those small functions,
not a search kernel); the searches with a user's heuristic (each a copy of the IDA* or A* kernel: a
compile of tens of CPU-s) are marked slow."""

import sys
import textwrap

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from puzzle_naive import bfs_distances, manhattan, neighbours
from user_heuristic_source import user_module

from fastsnake.cli import main
from fastsnake.puzzle import (
    PuzzleInputError,
    UserHeuristicError,
    check_admissible,
    heuristic_names,
    register_heuristic,
    solve,
)
from fastsnake.puzzle import heuristics as H
from fastsnake.puzzle.solver import heuristic_context

USER_MODULE = "fs_test_user_manhattan"
SOURCE = user_module("A user's Manhattan distance, written to the contract (no import of fastsnake).",
                     with_update=True) + textwrap.dedent('''

    @njit
    def tripled(cells, goal, rows, cols):
        return 3 * evaluate(cells, goal, rows, cols)


    @njit
    def negative_off_goal(cells, goal, rows, cols):
        return -1 if evaluate(cells, goal, rows, cols) > 0 else 0


    @njit
    def raises_off_goal(cells, goal, rows, cols):
        if evaluate(cells, goal, rows, cols) > 0:
            raise ValueError("no value here")
        return 0


    @njit
    def one_at_goal(cells, goal, rows, cols):
        return evaluate(cells, goal, rows, cols) + 1


    def plain(cells, goal, rows, cols):
        return 0
''')
GOAL3 = np.arange(9, dtype=np.int8)


@pytest.fixture
def user_module(tmp_path, monkeypatch):
    (tmp_path / f"{USER_MODULE}.py").write_text(SOURCE)
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    module = importlib.import_module(USER_MODULE)
    yield module
    sys.modules.pop(USER_MODULE, None)


@pytest.fixture(autouse=True)
def _registry_left_as_found():
    before = dict(H.REGISTRY)
    yield
    H.REGISTRY.clear()
    H.REGISTRY.update(before)
    H.rediscover()


def _entry_points(tmp_path, monkeypatch, lines):
    """A fake installed distribution declaring `lines` in the group fastsnake.heuristics."""
    info = tmp_path / "site" / "fs_test_heuristics-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fs-test-heuristics\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[fastsnake.heuristics]\n" + "\n".join(lines) + "\n")
    monkeypatch.syspath_prepend(str(tmp_path / "site"))
    H.rediscover()


def test_a_plain_python_heuristic_is_refused_in_one_line(user_module):
    with pytest.raises(UserHeuristicError, match=r"decorate it with @numba\.njit") as info:
        register_heuristic("plain", user_module.plain)
    assert "\n" not in str(info.value) and isinstance(info.value, ValueError)
    with pytest.raises(UserHeuristicError, match="decorate"):
        register_heuristic("plain", user_module.evaluate, update=user_module.plain)
    assert "plain" not in H.REGISTRY


def test_a_builtin_name_cannot_be_taken(user_module):
    with pytest.raises(UserHeuristicError, match="built-in"):
        register_heuristic("manhattan", user_module.evaluate)
    with pytest.raises(UserHeuristicError, match="name"):
        register_heuristic("a,b", user_module.evaluate)


# The module is only read by the examples: one import for all of them.
@settings(max_examples=40, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), moves=st.integers(1, 40))
def test_the_users_values_and_updates_match_the_naive_twin(user_module, seed, moves):
    # The contract's two functions, as the kernels call them (cells show the move already),
    # against tests/puzzle/puzzle_naive.manhattan on random walks of 3x3 and 3x4 boards.
    register_heuristic("user-manhattan", user_module.evaluate, user_module.update)
    rng = np.random.default_rng(seed)
    for rows, cols in ((3, 3), (3, 4)):
        goal = np.arange(rows * cols, dtype=np.int8)
        hc, _ = heuristic_context("user-manhattan", rows, cols, goal)
        goalpos = hc[H.HC_GOALPOS]
        state = tuple(goal.tolist())
        h = 0
        for _ in range(moves):
            options = neighbours(state, rows, cols)
            _, nxt = options[int(rng.integers(len(options)))]
            src, dst = nxt.index(0), state.index(0)
            tile = state[src]
            cells = np.array(nxt, np.int8)
            h = int(user_module.update(h, cells, goalpos, np.int64(rows), np.int64(cols), np.int8(tile), src, dst))
            assert h == H.heuristic_value(cells, hc) == manhattan(nxt, tuple(goal.tolist()), rows, cols)
            state = nxt


@pytest.mark.parametrize(("function", "message"), [
    ("negative_off_goal", "returned -1"),
    ("raises_off_goal", "raised ValueError: no value here"),
    ("one_at_goal", "is 1 at the goal"),
])
def test_a_heuristic_that_is_negative_raises_or_is_not_zero_at_the_goal_is_refused(user_module, function, message):
    register_heuristic("bad", getattr(user_module, function))
    for algorithm in ("idastar", "astar"):
        with pytest.raises(UserHeuristicError, match=message) as info:
            solve("806 547 231", algorithm=algorithm, heuristic="bad")
        assert "\n" not in str(info.value) and "'bad'" in str(info.value)


def test_check_admissible_finds_an_inadmissible_heuristic(user_module):
    register_heuristic("tripled", user_module.tripled)
    register_heuristic("user-manhattan", user_module.evaluate, user_module.update)
    dist = bfs_distances(tuple(range(6)), 2, 3)
    good = check_admissible("user-manhattan", 2, 3, samples=60, seed=1)
    assert good.admissible and good.method == "bfs" and good.samples == 60 and good.violations == []
    bad = check_admissible("tripled", 2, 3, samples=60, seed=1)
    assert not bad.admissible and bad.samples == 60
    for v in bad.violations:  # every violation is a true one, against the twin's BFS
        assert v["h"] == 3 * manhattan(v["state"], tuple(range(6)), 2, 3) > dist[tuple(v["state"])] == v["distance"]
    excess = [v["h"] - v["distance"] for v in bad.violations]
    assert excess == sorted(excess, reverse=True)
    assert bad.as_dict()["admissible"] is False
    # The same seed, the same states.
    assert check_admissible("tripled", 2, 3, samples=60, seed=1).violations == bad.violations
    with pytest.raises(PuzzleInputError, match="samples"):
        check_admissible("tripled", 2, 3, samples=0)


def test_check_admissible_walks_on_bigger_boards():
    report = check_admissible("linear-conflict", 3, 4, samples=6, seed=3, max_walk=12)
    assert report.method == "walks" and report.samples == 6 and report.admissible


def test_an_entry_point_names_a_function_or_an_object(user_module, tmp_path, monkeypatch):
    _entry_points(tmp_path, monkeypatch, [f"ep-function = {USER_MODULE}:evaluate",
                                          f"ep-module = {USER_MODULE}",
                                          "ep-broken = fs_test_no_such_module:evaluate"])
    names = heuristic_names()
    assert {"ep-function", "ep-module", "ep-broken"} <= set(names)
    assert "ep-module" not in H.REGISTRY  # listed, not imported until used
    hc, _ = heuristic_context("ep-module", 3, 3, GOAL3)
    spec = H.REGISTRY["ep-module"]
    assert spec.evaluate is user_module.evaluate and spec.update is user_module.update
    assert spec.origin == f"entry point {USER_MODULE}"
    assert H.REGISTRY[H.REGISTRY["ep-module"].name].code >= H.USER_CODE_BASE
    heuristic_context("ep-function", 3, 3, GOAL3)
    assert H.REGISTRY["ep-function"].update is None
    with pytest.raises(UserHeuristicError, match="'ep-broken'.*failed to import: ModuleNotFoundError") as info:
        solve("806 547 231", heuristic="ep-broken")
    assert "\n" not in str(info.value)


def test_the_cli_refuses_a_broken_entry_point_with_exit_2(user_module, tmp_path, monkeypatch, capsys):
    _entry_points(tmp_path, monkeypatch, ["ep-broken = fs_test_no_such_module:evaluate"])
    code = main(["puzzle", "solve", "--size", "3", "--start", "8 0 6 5 4 7 2 3 1", "--heuristic", "ep-broken"])
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith("fastsnake: error:") and "ep-broken" in err[0]


def test_a_users_kind_gets_its_own_kernels(user_module):
    # A user's heuristic is searched by copies of the templates made for it, never by a built-in's
    # kernels (those are specialised on their own module's hooks); nothing is compiled here.
    register_heuristic("user-manhattan", user_module.evaluate, user_module.update)
    hc, _ = heuristic_context("user-manhattan", 3, 3, GOAL3)
    parts = H.search_parts(hc)
    builtins = {k for spec in H.REGISTRY.values() if spec.impl is not None for k in H.builtin_kernels(spec.impl)}
    assert parts.ida not in builtins and parts.astar not in builtins and parts.on_error is not None
    assert parts.ida.py_func.__globals__["h_ida_child"].py_func.__globals__["_child_value"] is not None


# ---------------------------------------------------------------- searches (a kernel copy each: slow)

@pytest.mark.slow
@pytest.mark.parametrize("with_update", [True, False])
def test_a_users_manhattan_searches_as_the_builtin(user_module, with_update):
    # The same paths and node counts as the built-in Manhattan, A* and IDA*; optimal on 2x3 (BFS).
    register_heuristic("user-manhattan", user_module.evaluate, user_module.update if with_update else None)
    rng = np.random.default_rng(54)
    from fastsnake.puzzle import random_solvable

    for algorithm in ("idastar", "astar"):
        for _ in range(4):
            start = random_solvable(3, 3, GOAL3, rng)
            ours = solve(start, GOAL3, rows=3, cols=3, algorithm=algorithm, heuristic="manhattan")
            theirs = solve(start, GOAL3, rows=3, cols=3, algorithm=algorithm, heuristic="user-manhattan")
            assert (theirs.moves, theirs.nodes_generated, theirs.nodes_expanded) == (
                ours.moves, ours.nodes_generated, ours.nodes_expanded)
            assert theirs.heuristic == "user-manhattan" and theirs.h_start == ours.h_start
    goal = np.arange(6, dtype=np.int8)
    for state, d in list(bfs_distances(goal, 2, 3).items())[::29]:
        r = solve(np.array(state, np.int8), goal, rows=2, cols=3, algorithm="idastar", heuristic="user-manhattan")
        assert r.length == d and r.optimal


@pytest.mark.slow
def test_a_heuristic_negative_inside_the_search_stops_it_in_one_line(tmp_path, monkeypatch):
    # Zero near the goal (so the start checks pass; the start has Manhattan 6 and many moves to go), negative from
    # Manhattan 7 on, which the blind deepening reaches: the kernel's check reports it.
    (tmp_path / "fs_test_deep_negative.py").write_text(SOURCE + textwrap.dedent('''

        @njit
        def deep_negative(cells, goal, rows, cols):
            return -5 if evaluate(cells, goal, rows, cols) > 6 else 0
    '''))
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    module = importlib.import_module("fs_test_deep_negative")
    try:
        register_heuristic("deep-negative", module.deep_negative)
        with pytest.raises(UserHeuristicError, match="'deep-negative' failed during the search"):
            solve("0 2 1 5 4 3 6 7 8", GOAL3, rows=3, cols=3, algorithm="idastar", heuristic="deep-negative",
                  admissibility_samples=0)  # (sampled, a state of Manhattan 7 is refused before the search)
        with pytest.raises(UserHeuristicError, match="'deep-negative' returned -5 on"):
            solve("0 2 1 5 4 3 6 7 8", GOAL3, rows=3, cols=3, algorithm="idastar", heuristic="deep-negative")
    finally:
        sys.modules.pop("fs_test_deep_negative", None)


@pytest.mark.slow
def test_the_cli_solves_with_an_entry_point(user_module, tmp_path, monkeypatch, capsys):
    _entry_points(tmp_path, monkeypatch, [f"ep-module = {USER_MODULE}"])
    main(["puzzle", "solve", "--size", "3", "--start", "8 0 6 5 4 7 2 3 1", "--algorithm", "idastar",
          "--heuristic", "ep-module", "--json"])
    import json

    doc = json.loads(capsys.readouterr().out)
    ours = solve("8 0 6 5 4 7 2 3 1", algorithm="idastar", heuristic="manhattan")
    assert doc["heuristic"] == "ep-module" and doc["length"] == ours.length
    assert doc["nodes_generated"] == ours.nodes_generated


@pytest.mark.slow
def test_batch_workers_use_a_heuristic_registered_by_function(user_module):
    # Worker processes (spawned) import the user's module again and register the heuristic there.
    from fastsnake.puzzle import random_solvable, solve_processes

    register_heuristic("user-manhattan", user_module.evaluate, user_module.update)
    rng = np.random.default_rng(7)
    starts = [random_solvable(3, 3, GOAL3, rng) for _ in range(3)]
    outcome = solve_processes(starts, rows=3, cols=3, heuristic="user-manhattan", algorithm="idastar", workers=2)
    got = {r["index"]: r for r in outcome.results}
    for i, start in enumerate(starts):
        ours = solve(start, GOAL3, rows=3, cols=3, algorithm="idastar", heuristic="manhattan")
        assert (got[i]["moves"], got[i]["nodes_generated"]) == (ours.moves, ours.nodes_generated)
        assert got[i]["heuristic"] == "user-manhattan"


@pytest.mark.slow
def test_a_study_marks_an_inadmissible_users_heuristic_non_optimal(user_module, tmp_path, capsys):
    """3x Manhattan in `puzzle compare`: its sampled values above the true distance and its longer
    paths are warnings, its rows optimal=false, its lengths outside the agreement; the report says so."""
    import json

    import pyarrow.parquet as pq

    register_heuristic("tripled", user_module.tripled)
    out = tmp_path / "study.parquet"
    code = main(["puzzle", "compare", "--size", "3", "--count", "6", "--seed", "1", "--heuristics",
                 "manhattan,tripled", "--admissibility-samples", "30", "--out", str(out), "--json", "--quiet"])
    captured = capsys.readouterr()
    assert code == 0, captured.err
    doc = json.loads(captured.out)
    warnings = [line for line in captured.err.splitlines() if line.startswith("fastsnake: warning:")]
    assert len(warnings) == 2 and all("heuristic 'tripled' is not admissible" in w for w in warnings)
    seen = doc["admissibility"]["tripled"]
    assert not seen["admissible"] and seen["samples"] == 30 and seen["sample_violations"] > 0
    dist = bfs_distances(tuple(range(9)), 3, 3)
    for v in seen["violations"]:
        assert v["h"] == 3 * manhattan(v["state"], tuple(range(9)), 3, 3) > dist[tuple(v["state"])] == v["distance"]
    assert seen["longer_path_count"] > 0
    table = pq.read_table(out).to_pylist()
    by = {(r["heuristic"], r["instance_id"]): r for r in table}
    for f in seen["longer_paths"]:
        mine, ref = by[("tripled", f["instance_id"])], by[("manhattan", f["instance_id"])]
        assert mine["length"] == f["length"] > f["optimal_length"] == ref["length"]
        assert f["against"] == "manhattan found"
    assert any(f"found {f['length']} moves, manhattan found {f['optimal_length']}" in warnings[1]
               for f in seen["longer_paths"])
    assert all(not r["optimal"] for r in table if r["heuristic"] == "tripled")
    assert all(r["optimal"] for r in table if r["heuristic"] == "manhattan")
    assert doc["heuristics"]["tripled"]["optimal"] is False and doc["heuristics"]["manhattan"]["optimal"] is True
    assert doc["lengths"] == [by[("manhattan", i)]["length"] for i in doc["instance_ids"]]
    page = tmp_path / "study.html"
    assert main(["report", str(out), "--out", str(page), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert any(m.startswith("tripled is not admissible: ") for m in report["marks"])
    assert "tripled is not admissible" in page.read_text()
    # Without sampling, only the longer paths speak.
    assert main(["puzzle", "compare", "--size", "3", "--count", "6", "--seed", "1", "--heuristics",
                 "manhattan,tripled", "--admissibility-samples", "0", "--json", "--quiet"]) == 0
    captured = capsys.readouterr()
    seen = json.loads(captured.out)["admissibility"]["tripled"]
    assert seen["samples"] == 0 and seen["sample_violations"] == 0 and seen["longer_path_count"] > 0
    assert captured.err.count("fastsnake: warning:") == 1
