"""The interpreted tier: when a first call runs interpreted, what it starts in the background, and
that its output is the compiled command's (tests/warm/test_interpreted_results.py compares results)."""

import fcntl
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

import fastsnake
from fastsnake._numba_cache import fingerprint_folder, import_reach, write_manifest
from fastsnake.errors import InputError
from fastsnake.warm import background, parts, tier
from fastsnake.warm.store import read_json


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    return tmp_path


def _marked(cache, *names):
    for name in names:  # a current folder of a module of the part, as numba's first save leaves one
        module = f"fastsnake.{parts.source_part(name)}"
        modules = import_reach(frozenset({module}))
        write_manifest(cache / fingerprint_folder(module, modules), modules)
    parts.mark(names)


def test_a_small_cold_call_runs_interpreted_and_names_what_to_compile(cache):
    job = tier.snake_job(["cycle"], 10)
    assert tier.choose(job, {}) == ["policy:cycle"]
    assert tier.choose(job, {"FASTSNAKE_TIER": "compiled"}) is None
    assert tier.choose(job, {"NUMBA_DISABLE_JIT": "1"}) is None  # already interpreted: never again
    _marked(cache, "policy:cycle")
    assert tier.choose(job, {}) is None  # compiled: load the kernels
    assert tier.choose(job, {"FASTSNAKE_TIER": "interpreted"}) == []  # forced, nothing left to compile


def test_a_large_job_compiles_unless_the_tier_is_forced(cache):
    job = tier.snake_job(["cycle"], 10, games=1_000_000)
    assert job.work > job.limit
    assert tier.choose(job, {}) is None
    assert tier.choose(job, {"FASTSNAKE_TIER": "interpreted"}) == ["policy:cycle"]
    assert tier.choose(tier.snake_job(["cycle"], 24), {}) is None  # one game, but a big board
    assert tier.choose(tier.snake_job(["cycle"], 10, max_moves=10 ** 7), {}) is None  # a long game allowed
    assert tier.choose(tier.puzzle_job(4, 4, "astar"), {}) is None
    assert tier.choose(tier.puzzle_job(4, 4, "reduce"), {}) == ["puzzle"]
    assert tier.puzzle_job(3, 3, "bfs") is None


def test_an_alias_counts_as_compiled_with_its_policy(cache):
    strongest = tier.snake_job(["strongest"], 10)
    assert tier.choose(strongest, {}) == ["policy:strongest"]
    _marked(cache, parts.canonical_part("policy:strongest"))
    assert parts.canonical_part("policy:strongest") != "policy:strongest"
    assert tier.choose(strongest, {}) is None


def test_an_unknown_tier_is_bad_input(cache):
    with pytest.raises(InputError, match="FASTSNAKE_TIER='fast'"):
        tier.choose(tier.snake_job(["cycle"], 10), {"FASTSNAKE_TIER": "fast"})


def test_a_background_compile_started_while_one_runs_queues_its_parts(cache):
    with open(cache / tier.LOCK_FILE, "a") as runner:
        fcntl.flock(runner, fcntl.LOCK_EX)  # a runner is compiling
        assert tier.background_busy()
        assert background.main(["tour"]) == 0  # returns at once, compiling nothing
        assert background.main(["puzzle", "tour"]) == 0
    assert read_json(background.QUEUE_FILE) == {"parts": ["tour", "puzzle"]}
    assert not tier.background_busy()


def _cli(cache, *argv, cwd=None, **env):
    env = dict({k: v for k, v in os.environ.items() if k != "FASTSNAKE_QUIET_COMPILE"},
               NUMBA_CACHE_DIR=str(cache), **env)
    return subprocess.run([sys.executable, "-m", "fastsnake", *argv], env=env, capture_output=True, text=True,
                          timeout=900, cwd=cwd)


def test_the_interpreted_run_imports_this_fastsnake_not_one_in_the_working_directory(cache, tmp_path):
    _marked(cache, "tour")
    other = tmp_path / "checkout"
    (other / "fastsnake").mkdir(parents=True)
    (other / "fastsnake" / "__init__.py").write_text("raise ImportError('the wrong fastsnake')\n")
    import fastsnake.cli

    launcher = f"import sys; sys.path[0] = {str(Path(fastsnake.__file__).parents[1])!r}; import fastsnake.cli"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), FASTSNAKE_TIER="interpreted")
    done = subprocess.run([sys.executable, "-c", launcher + "; fastsnake.cli.run()", "reach", "--piece", "1,2",
                           "--size", "5", "--jumps", "1", "--json"], env=env, capture_output=True, text=True,
                          timeout=900, cwd=other)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["count"] == 2


def test_the_interpreted_run_prints_the_compiled_commands_output(cache):
    _marked(cache, "policy:cycle")  # nothing to compile in the background
    done = _cli(cache, "play", "--policy", "cycle", "--size", "6", "--seed", "4", "--json",
                FASTSNAKE_TIER="interpreted")
    assert done.returncode == 0, done.stderr
    assert "interpreted" in done.stderr and len(done.stderr.splitlines()) == 1
    game = json.loads(done.stdout)  # stdout holds the JSON value alone
    compiled = fastsnake.play("cycle", 6, 4)
    assert {k: game[k] for k in ("outcome", "moves", "apples")} == \
        {k: compiled.summary[k] for k in ("outcome", "moves", "apples")}
    bad = _cli(cache, "play", "--policy", "cycle", "--size", "6", "--start-length", "99", "--json",
               FASTSNAKE_TIER="interpreted")
    assert bad.returncode == 2 and "fastsnake: error:" in bad.stderr
    assert "error" in json.loads(bad.stdout)
    assert not (cache / tier.LOG_FILE).exists()  # no background compile was started


@pytest.mark.slow
def test_a_cold_tour_answers_interpreted_and_compiles_behind_it(cache):
    argv = ("tour", "--piece", "1,2", "--size", "5", "--json")
    cold = _cli(cache, *argv, FASTSNAKE_TIER="auto")
    assert cold.returncode == 0, cold.stderr
    assert "compile in the background" in cold.stderr and str(cache) in cold.stderr
    deadline = time.monotonic() + 600
    while not parts.is_marked("tour") and time.monotonic() < deadline:
        time.sleep(1)  # the background compile outlives the command
    assert parts.is_marked("tour"), (cache / tier.LOG_FILE).read_text()
    assert "tour: compiled" in (cache / tier.LOG_FILE).read_text()
    warm = _cli(cache, *argv, FASTSNAKE_TIER="auto")
    assert warm.returncode == 0 and warm.stderr == ""  # loaded: no line at all
    assert json.loads(warm.stdout)["path"] == json.loads(cold.stdout)["path"]


@pytest.mark.slow
def test_an_interpreted_search_out_of_time_runs_compiled_instead(cache):
    _marked(cache, "tour")  # no background compile; the compiled rerun compiles in the foreground
    argv = ("tour", "--piece", "2,3", "--size", "8", "--time-limit", "0.05", "--json")
    tiered = _cli(cache, *argv, FASTSNAKE_TIER="interpreted")
    compiled = _cli(cache, *argv, FASTSNAKE_TIER="compiled")
    assert "running it compiled instead" in tiered.stderr
    assert tiered.returncode == compiled.returncode
    drop = ("seconds", "compile_seconds")
    assert {k: v for k, v in json.loads(tiered.stdout).items() if k not in drop} == \
        {k: v for k, v in json.loads(compiled.stdout).items() if k not in drop}
