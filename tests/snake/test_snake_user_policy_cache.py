"""The on-disk cache of users' numba policies cannot poison: loading one policy's kernels never
imports another policy's module, `__main__` policies leave nothing on disk, and edits do not pile up."""

import importlib
import os
import subprocess
import sys
import textwrap

from fastsnake.snake.policies import user_cache

FIRST_FREE = textwrap.dedent("""
    from numba import njit


    def first_free_py(state, ws):
        for move in range(4):
            cell = state.neighbours[state.head, move]
            if cell >= 0 and state.occupied[cell] == 0:
                return move
        return 0


    first_free = njit(first_free_py)
""")

MAIN_POLICY = textwrap.dedent("""
    import fastsnake
    from numba import njit


    @njit
    def decide_other(state, ws):
        return 1 if state.neighbours[state.head, 1] >= 0 else 2


    print(fastsnake.sweep(decide_other, 5, 3).summary["games"])
""")


def _python(args, env, cwd):
    done = subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip()


def _files(folder):
    return {p.relative_to(folder) for p in folder.rglob("*") if p.is_file()}


def test_a_main_policy_runs_after_a_removed_modules_policies_filled_the_cache(tmp_path):
    modules, work, cache = tmp_path / "mods", tmp_path / "work", tmp_path / "numba"
    modules.mkdir()
    work.mkdir()
    (modules / "mypolmod.py").write_text(FIRST_FREE)
    (work / "main_policy.py").write_text(MAIN_POLICY)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["NUMBA_CACHE_DIR"] = str(cache)
    with_module = dict(env, PYTHONPATH=str(modules))
    # Not importable by its name (the dispatcher is made here), then importable under an alias.
    sweep = "import fastsnake, mypolmod; from numba import njit; print(fastsnake.sweep({}, 5, 3).summary['games'])"
    assert _python(["-c", sweep.format("njit(mypolmod.first_free_py)")], with_module, work) == "3"
    assert _python(["-c", sweep.format("mypolmod.first_free")], with_module, work) == "3"
    assert len(list(cache.glob("user-kernels/fastsnake_user_*.py"))) == 1  # one entry for the importable one
    (modules / "mypolmod.py").unlink()  # the package is gone (another venv, uninstalled, elsewhere)
    before = _files(cache)
    assert _python([str(work / "main_policy.py")], env, work) == "3"
    # A __main__ policy compiles per process and writes nothing, so a second run would meet the same cache.
    assert _files(cache) == before


def test_the_kernels_of_one_policy_keep_only_its_newest_versions(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "numba"))
    monkeypatch.syspath_prepend(str(tmp_path))
    source = tmp_path / "growing_policy.py"
    source.write_text(FIRST_FREE)
    module = importlib.import_module("growing_policy")
    try:
        for edit in range(user_cache.VERSIONS_KEPT + 3):
            source.write_text(FIRST_FREE + f"\nEDIT = {edit}\n")
            module = importlib.reload(module)
            assert user_cache.cached_kernels(module.first_free, None) is not None
        kept = list((tmp_path / "numba" / user_cache.FOLDER).glob(f"{user_cache.PREFIX}*.py"))
        assert len(kept) == user_cache.VERSIONS_KEPT
    finally:
        sys.modules.pop("growing_policy", None)
