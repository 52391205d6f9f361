"""The compile notice: one line when numba compiles, none when everything loads from the cache."""

import io
import json
import os
import subprocess
import sys

import numba
import pytest

from fastsnake.warm import compile_notice
from fastsnake.warm.notice import describe

NOTICE = "fastsnake: compiling"


def _fresh_function():
    # A new function object each call: numba has compiled nothing for it yet.
    @numba.njit
    def add_one(x):
        return x + 1

    return add_one


def test_first_compile_prints_one_line_and_counts_it():
    stream = io.StringIO()
    add_one, other = _fresh_function(), _fresh_function()
    with compile_notice(stream=stream, tick=False) as watch:
        add_one(1)
        other(1)  # a second compile in the same command says nothing more
        add_one(2)  # compiled already: no event at all
    lines = stream.getvalue().splitlines()
    assert len(lines) == 1 and lines[0].startswith(NOTICE)
    assert "cache" in lines[0]
    assert watch.compiles == 2 and watch.seconds > 0


def test_no_compile_no_line():
    add_one = _fresh_function()
    add_one(1)
    stream = io.StringIO()
    with compile_notice(stream=stream, tick=False) as watch:
        add_one(3)
    assert stream.getvalue() == "" and watch.compiles == 0


def test_ticker_clears_its_line():
    stream = io.StringIO()
    with compile_notice(stream=stream, tick=True):
        _fresh_function()(1)
    assert stream.getvalue().splitlines()[0].startswith(NOTICE)
    assert stream.getvalue().endswith("\r\033[K")


def test_describe_names_the_part():
    assert "grove" in describe("fastsnake.snake.policies.grove")
    assert "puzzle" in describe("fastsnake.puzzle.astar")
    assert "my_policy" in describe("my_policy")


def _run(cache_dir, *argv):
    env = {k: v for k, v in os.environ.items() if k != "FASTSNAKE_QUIET_COMPILE"}
    env["NUMBA_CACHE_DIR"] = str(cache_dir)
    return subprocess.run([sys.executable, "-m", "fastsnake", *argv], env=env, capture_output=True, text=True,
                          timeout=900)


def test_cold_command_says_it_compiles_once_warm_one_says_nothing(tmp_path):
    argv = ("tour", "--piece", "1,2", "--size", "5", "--json")
    cold = _run(tmp_path, *argv)
    assert cold.returncode == 0, cold.stderr
    notices = [line for line in cold.stderr.splitlines() if line.startswith(NOTICE)]
    assert len(notices) == 1 and str(tmp_path) in notices[0]
    # The verb's kernels in words, never a module; the estimate in CPU seconds, kept per family.
    # A first compile here quotes the published range and the machine it was measured on (issue 55).
    assert notices[0].startswith("fastsnake: compiling the leaper-tour kernels (fastsnake tour) once (measured ")
    assert "CPU-s on a 2-core" in notices[0] and "fastsnake.tour" not in notices[0]
    recorded = json.loads((tmp_path / "compile-measured.json").read_text())
    assert set(recorded) <= {"tour", "snake"}
    assert all(r["cpu_seconds"] >= 2.0 and r["wall_seconds"] >= r["cpu_seconds"] * 0.5 for r in recorded.values())
    assert not (tmp_path / "compile-seconds.json").exists()
    assert json.loads(cold.stdout)["found"] is True  # stdout holds the JSON value alone
    warm = _run(tmp_path, *argv)
    assert warm.returncode == 0, warm.stderr
    assert NOTICE not in warm.stderr
    assert json.loads(warm.stdout)["path"] == json.loads(cold.stdout)["path"]


def test_an_expectation_names_what_is_compiled_and_is_forgotten_after():
    from fastsnake.warm import expect

    stream = io.StringIO()
    expect("policy example's kernels", "policy:example")
    with compile_notice(stream=stream, tick=False):
        _fresh_function()(1)
    assert "policy example's kernels" in stream.getvalue()
    stream = io.StringIO()
    with compile_notice(stream=stream, tick=False):
        _fresh_function()(1)
    assert "example" not in stream.getvalue()


@pytest.mark.slow
def test_the_default_zigzag_cycle_never_compiles_the_random_cycle_builder(tmp_path):
    code = ("import fastsnake; fastsnake.sweep('phc', 6, 4, threads=1)\n"
            "for name in ('cycle', 'dhcr', 'snake-ai', 'thesis-shortcut'): fastsnake.play(name, 6)\n"
            "from fastsnake.snake.cycles import random_cells, random_cells_k\n"
            "print(len(random_cells.signatures), len(random_cells_k.signatures))")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["0", "0"]  # the kernels' copy (`random_cells_k`) neither
