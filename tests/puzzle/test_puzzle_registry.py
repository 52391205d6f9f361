"""The heuristic registry: one entry per heuristic, read by the CLI, `solve`'s docstring, the
searches and the tests; a kind no kernel evaluates is refused before any search (never h = 0)."""

import importlib

import numpy as np
import pytest
from puzzle_naive import bfs_distances

from fastsnake.cli import main
from fastsnake.puzzle import PuzzleInputError, heuristic_names, solve
from fastsnake.puzzle import board as B
from fastsnake.puzzle.astar import AStarSearch
from fastsnake.puzzle.heuristics import (
    HC_KIND,
    REGISTRY,
    UnknownHeuristicError,
    check_evaluable,
    heuristic_value,
    register_heuristic,
)
from fastsnake.puzzle.idastar import IdaSearch
from fastsnake.puzzle.solver import heuristic_context

GOAL = np.array([8, 0, 6, 5, 4, 7, 2, 3, 1], np.int8)
START = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8], np.int8)  # 31 moves from GOAL


def _with_kind(hc, kind):
    return (np.int64(kind),) + tuple(hc[1:])


@pytest.mark.parametrize("search", ["idastar", "astar"])
def test_a_kind_no_kernel_evaluates_is_refused_before_search(search):
    # Before the registry IDA* searched such a kind with h = 0 (its `else: nh = 0`): blind,
    # yet still optimal, so no length test noticed.
    hc, _ = heuristic_context("manhattan", 3, 3, GOAL)
    bad = _with_kind(hc, 99)
    nbr = B.neighbours(3, 3)
    with pytest.raises(UnknownHeuristicError, match="99") as info:
        if search == "idastar":
            IdaSearch(START, nbr, bad, 0)
        else:
            AStarSearch(START, GOAL, nbr, bad, 0, 1000)
    assert isinstance(info.value, PuzzleInputError) and isinstance(info.value, ValueError)


def test_a_registered_kind_without_a_kernel_branch_is_refused(monkeypatch):
    monkeypatch.setattr("fastsnake.puzzle.heuristics.REGISTRY", dict(REGISTRY))
    code = register_heuristic("scratch-only", 77, "a test entry with no kernel branch")
    hc, _ = heuristic_context("manhattan", 3, 3, GOAL)
    with pytest.raises(UnknownHeuristicError, match="scratch_heuristic"):
        check_evaluable(_with_kind(hc, code), "IDA*")


def test_registering_twice_is_an_error():
    with pytest.raises(ValueError, match="twice"):
        register_heuristic("manhattan", 123, "again")
    with pytest.raises(ValueError, match="twice"):
        register_heuristic("new-name", REGISTRY["pdb"].code, "same code")


def test_every_registered_heuristic_is_evaluable_and_matches_its_twin():
    dist = bfs_distances(GOAL, 3, 3)
    rng = np.random.default_rng(48)
    states = list(dist)
    sample = [states[i] for i in rng.choice(len(states), 300, replace=False)]
    for name in heuristic_names():
        spec = REGISTRY[name]
        assert spec.doc and spec.naive, name
        module, func = spec.naive.split(":")
        twin = getattr(importlib.import_module(module), func)  # the twin named exists
        hc, _ = heuristic_context(name, 3, 3, GOAL)
        assert int(hc[HC_KIND]) == spec.code
        check_evaluable(hc, "test")
        for s in sample:
            h = heuristic_value(np.array(s, np.int8), hc)
            assert 0 <= h <= dist[s]
            if module == "puzzle_naive":
                assert h == twin(s, tuple(GOAL.tolist()), 3, 3), (name, s)


def test_cli_and_docstring_read_the_registry(capsys):
    with pytest.raises(SystemExit):
        main(["puzzle", "solve", "--help"])
    out = capsys.readouterr().out
    assert "oneof" + ",".join([*heuristic_names(), "auto"]) in "".join(out.split())  # help wraps at hyphens
    for name in heuristic_names():
        assert f'"{name}"' in solve.__doc__
    assert "HEURISTIC_" not in solve.__doc__
    with pytest.raises(SystemExit) as info:
        main(["puzzle", "solve", "--size", "3", "--start", "0 1 2 3 4 5 6 7 8", "--heuristic", "nope"])
    assert info.value.code == 2
    with pytest.raises(PuzzleInputError, match="is not one of"):
        solve(START, GOAL, heuristic="nope")


def test_idastar_evaluates_a_kind_without_a_per_move_update_from_scratch():
    # "zero" has no IDA* branch of its own: it goes through the generic from-scratch path
    # (the one any newly registered heuristic takes) and stays optimal on every 2x3 state.
    goal = np.arange(6, dtype=np.int8)
    dist = bfs_distances(goal, 2, 3)
    for s, d in list(dist.items())[::37]:
        r = solve(np.array(s, np.int8), goal, rows=2, cols=3, algorithm="idastar", heuristic="zero")
        assert r.length == d and r.optimal
