"""The heuristic registry: one entry per heuristic, read by the CLI, `solve`'s docstring, the
searches and the tests; a kind no kernel evaluates is refused before any search (never h = 0)."""

import importlib
import sys

import numpy as np
import pytest
from puzzle_naive import bfs_distances

from fastsnake.cli import main
from fastsnake.puzzle import PuzzleInputError, heuristic_names, solve
from fastsnake.puzzle.heuristics import (
    HC_KIND,
    REGISTRY,
    UnknownHeuristicError,
    builtin_kernels,
    check_evaluable,
    heuristic_value,
    register_heuristic,
    search_parts,
)
from fastsnake.puzzle.solver import heuristic_context

GOAL = np.array([8, 0, 6, 5, 4, 7, 2, 3, 1], np.int8)
START = np.array([0, 1, 2, 3, 4, 5, 6, 7, 8], np.int8)  # 31 moves from GOAL


def _with_kind(hc, kind):
    return (np.int64(kind),) + tuple(hc[1:])


def test_a_kind_no_kernel_evaluates_is_refused_before_search():
    # Before the registry IDA* searched such a kind with h = 0 (its `else: nh = 0`): blind,
    # yet still optimal, so no length test noticed. The searches ask `search_parts` for their kernels.
    hc, _ = heuristic_context("manhattan", 3, 3, GOAL)
    with pytest.raises(UnknownHeuristicError, match="99") as info:
        search_parts(_with_kind(hc, 99), "IDA*")
    assert isinstance(info.value, PuzzleInputError) and isinstance(info.value, ValueError)
    with pytest.raises(UnknownHeuristicError, match="99"):
        heuristic_value(START, _with_kind(hc, 99))


def test_a_registered_kind_without_a_module_is_refused(monkeypatch):
    monkeypatch.setattr("fastsnake.puzzle.heuristics.REGISTRY", dict(REGISTRY))
    code = register_heuristic("scratch-only", 77, "a test entry with no module")
    hc, _ = heuristic_context("manhattan", 3, 3, GOAL)
    with pytest.raises(UnknownHeuristicError, match="no module"):
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


def test_every_module_of_the_package_is_registered_and_every_builtin_is_a_module():
    import pkgutil

    import fastsnake.puzzle.heuristics as H

    modules = {f"{H.__name__}.{m.name}" for m in pkgutil.iter_modules(H.__path__) if not m.name.startswith("_")}
    builtins = {spec.impl.module for spec in REGISTRY.values() if spec.impl is not None}
    assert modules == builtins and modules  # counted from the package's folder, not written here
    for spec in REGISTRY.values():
        if spec.impl is not None:
            assert importlib.import_module(spec.impl.module).HEURISTIC is spec.impl


def test_a_module_added_to_the_package_is_registered_with_no_other_edit(tmp_path, monkeypatch):
    import fastsnake.puzzle.heuristics as H

    (tmp_path / "fs_test_twice_manhattan.py").write_text(
        "from fastsnake.puzzle.heuristics import manhattan as M\n"
        "from fastsnake.puzzle.heuristic import Heuristic\n"
        "HEURISTIC = Heuristic('fs-test-twice', 90, 'a test module', 'puzzle_naive:manhattan',\n"
        "                      context=M.context, evaluate=M.evaluate, ida_child=M.ida_child,\n"
        "                      astar_child=M.astar_child, module=__name__)\n")
    monkeypatch.setattr(H, "REGISTRY", dict(REGISTRY))
    monkeypatch.setattr(H, "__path__", [*H.__path__, str(tmp_path)])
    monkeypatch.delitem(sys.modules, "fastsnake.puzzle.heuristics.fs_test_twice_manhattan", raising=False)
    H._register_modules()  # what importing the package does
    assert "fs-test-twice" in H.heuristic_names() and H.heuristic_code("fs-test-twice") == 90
    assert list(H.REGISTRY)[:len(REGISTRY)] == list(REGISTRY)  # the built-ins, unchanged and first


def test_a_searchs_kernel_reaches_only_its_own_heuristic():
    # Each kernel is the template specialised on one module's hooks: manhattan's names no hook of
    # another heuristic, and its cache key covers no other heuristic's module (a pdb edit keeps it).
    from fastsnake._numba_cache import kernel_modules
    from fastsnake.puzzle import astar, idastar

    others = {spec.impl.module for spec in REGISTRY.values() if spec.impl is not None} - {
        "fastsnake.puzzle.heuristics.manhattan"}
    templates = (idastar.ida_template, astar.astar_template)
    for kernel, template in zip(builtin_kernels(REGISTRY["manhattan"].impl), templates, strict=True):
        hooks = {k: v for k, v in kernel.py_func.__globals__.items() if k.startswith("h_")}
        assert hooks and {v.py_func.__module__ for v in hooks.values()} <= {
            "fastsnake.puzzle.heuristics.manhattan", "fastsnake.puzzle.heuristic"}
        assert kernel.py_func.__code__ is template.__code__ and "HC_KIND" not in template.__code__.co_names
        reach = kernel_modules(kernel.py_func, idastar.__file__ if template is idastar.ida_template else astar.__file__)
        assert "fastsnake.puzzle.heuristics.manhattan" in reach and not reach & others
    assert builtin_kernels(REGISTRY["pdb-max"].impl) == builtin_kernels(REGISTRY["pdb"].impl)  # the same hooks, shared
