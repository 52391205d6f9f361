"""`fastsnake warm`: stale cache folders, marks of compiled parts, the verb's inputs."""

import json
import os
import subprocess
import sys
import time

import pytest

from fastsnake._numba_cache import MANIFEST, fingerprint_folder, import_reach, write_manifest
from fastsnake.cli import main
from fastsnake.warm import clear_stale, stale_folders
from fastsnake.warm.store import KEEP_STALE, prune_stale


def _folder(root, name, age_seconds=0.0, size=10):
    path = root / name / "module"
    path.mkdir(parents=True)
    (path / "kernel.nbi").write_bytes(b"x" * size)
    stamp = time.time() - age_seconds
    for p in (path, path.parent):
        os.utime(p, (stamp, stamp))
    return path.parent


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    return tmp_path


def _current_folder(cache, module="fastsnake.snake.engine"):
    modules = import_reach(frozenset({module}))
    path = _folder(cache, fingerprint_folder(module, modules))
    write_manifest(path, modules)
    return path.name


def test_clear_removes_only_stale_fingerprints(cache):
    current = _current_folder(cache)
    edited = _folder(cache, current[:-1] + ("0" if current[-1] != "0" else "1"))
    write_manifest(edited, import_reach(frozenset({"fastsnake.snake.engine"})))  # a hash of other sources
    _folder(cache, "snake-0123456789abcdef", size=1000)
    (cache / "not-ours").mkdir()  # another library's numba cache shares NUMBA_CACHE_DIR
    assert [p.name for p in stale_folders()] == sorted([edited.name, "snake-0123456789abcdef"])
    manifest_bytes = (edited / MANIFEST).stat().st_size
    result = clear_stale()
    assert sorted(result["removed"]) == sorted([edited.name, "snake-0123456789abcdef"])
    assert result["freed_bytes"] == 1000 + 10 + manifest_bytes
    assert (cache / current).is_dir() and (cache / "not-ours").is_dir()
    assert clear_stale()["removed"] == []


def test_prune_keeps_the_newest_stale_folders_of_each_module(cache):
    names = [f"snake-{i:016x}" for i in range(KEEP_STALE + 2)]
    for age, name in enumerate(names):  # names[0] is the newest
        _folder(cache, name, age_seconds=86400 * (age + 2))
    _folder(cache, "tour-00000000000000ff", age_seconds=86400 * 9)
    removed = prune_stale()
    assert sorted(removed) == sorted(names[KEEP_STALE:])
    left = sorted(p.name for p in cache.iterdir())
    assert left == sorted(names[:KEEP_STALE] + ["tour-00000000000000ff"])


def test_prune_spares_folders_written_lately(cache):
    for i in range(KEEP_STALE + 2):
        _folder(cache, f"puzzle-{i:016x}")
    assert prune_stale() == []


def test_clear_verb_reports_what_it_freed(cache, capsys):
    _folder(cache, "envs-0123456789abcdef", size=500)
    assert main(["warm", "--clear", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["cleared"]["removed"] == ["envs-0123456789abcdef"] and out["cleared"]["freed_bytes"] == 500


@pytest.mark.parametrize("argv, words", [(["warm"], "--all"), (["warm", "--policy", "no-such-policy"],
                                                                "no-such-policy")])
def test_bad_requests_exit_2_naming_why(cache, capsys, argv, words):
    assert main(argv) == 2
    assert words in capsys.readouterr().err


@pytest.mark.slow
def test_warmed_part_is_marked_and_its_first_call_compiles_nothing(tmp_path):
    env = {k: v for k, v in os.environ.items() if k != "FASTSNAKE_QUIET_COMPILE"}
    env["NUMBA_CACHE_DIR"] = str(tmp_path)

    def run(*argv):
        proc = subprocess.run([sys.executable, "-m", "fastsnake", *argv], env=env, capture_output=True, text=True,
                              timeout=1800)
        assert proc.returncode == 0, proc.stderr
        return proc

    first = json.loads(run("warm", "--tour", "--json").stdout)
    assert [(r["part"], r["compiled"], r["cached"]) for r in first["parts"]] == [("tour", True, False)]
    again = json.loads(run("warm", "--tour", "--json").stdout)
    assert [(r["part"], r["cached"]) for r in again["parts"]] == [("tour", True)]
    tour = run("tour", "--piece", "1,2", "--size", "6", "--closed", "--json")
    assert "fastsnake: compiling" not in tour.stderr
