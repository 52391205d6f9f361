"""The crew of threads that steps a vector env's slices (fastsnake/envs/crew.py) and the atomics under it."""

import gc
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest
from numba import njit

import fastsnake.envs as E
from fastsnake.envs import crew as C
from fastsnake.envs import kernels as K
from fastsnake.envs.atomics import address_of, array_at, atomic_load, atomic_store, cpu_yield, spin_pause
from fastsnake.envs.games import MIN_ENVS_PER_THREAD, Games
from fastsnake.errors import InputError


def crew_threads():
    return [t for t in threading.enumerate() if t.name.startswith("fastsnake-env-")]


def wait_until(condition, what, limit=60.0):
    """Poll `condition` until it holds; fail after `limit` seconds (a hang, not a timing assertion)."""
    deadline = time.monotonic() + limit
    while not condition():
        assert time.monotonic() < deadline, f"still not {what} after {limit} s"
        time.sleep(0.002)


def asleep(games):
    """Every worker asleep, and staying so: its awake flag down and its wake event clear, twice 20 ms apart.
    (A wake left set by an earlier step lets a worker that just lowered its flag pass its wait and spin
    once more: seen alone, the flag can say asleep while the worker is about to be awake.)"""
    crew = games._crew
    awake = C.control_slots(crew.workers)[3]

    def now():
        return all(crew.ctrl[awake + k] == 0 and not crew.wakes[k].is_set() for k in range(crew.workers))

    if not now():
        return False
    time.sleep(0.02)
    return now()


def test_three_threads_play_the_games_of_one_through_sleeps_and_wakes():
    # Games directly: the envs allow no more threads than numba has, two on a two-core machine.
    n = 3 * MIN_ENVS_PER_THREAD + 5
    config = E.SnakeVectorEnv(1, size=(4, 5)).config
    one, three = Games(config, n, threads=1), Games(config, n, threads=3)
    assert three._crew.workers == 2
    seeds = list(range(11, 11 + n))
    for games in (one, three):
        games.reset(np.ones(n, np.bool_), seeds)
    rng = np.random.default_rng(3)
    woken = 0
    for step in range(40):
        if step % 8 == 7:
            # Let every worker fall asleep, so this step goes through the wake path.
            wait_until(lambda: asleep(three), "asleep")
            woken += 1
        legal = one.masks
        actions = np.where(rng.random(n) < 0.05, rng.integers(0, 4, n), np.argmax(legal + rng.random((n, 4)), 1))
        outs = [games.step(actions, grids=True) for games in (one, three)]
        for a, b in zip(*outs, strict=True):
            assert np.array_equal(a, b)
        for a, b in zip(one.batch, three.batch, strict=True):
            assert np.array_equal(a, b)
    assert woken == 5
    three.close()


def test_an_interrupted_step_still_moves_every_env_once(monkeypatch):
    # Ctrl-C while a step is published: the exception comes after every env has moved (so the games
    # stay in step) and no worker writes into the step's arrays any more. Made deterministic by an
    # interrupt raised where the caller wakes the sleeping worker, before its own slice is stepped.
    n = 2 * MIN_ENVS_PER_THREAD + 3
    config = E.SnakeVectorEnv(1, size=(5, 4)).config
    one, two = Games(config, n, threads=1), Games(config, n, threads=2)
    for games in (one, two):
        games.reset(np.ones(n, np.bool_), list(range(n)))
    wait_until(lambda: asleep(two), "asleep")
    interrupts = []
    wake = C.Crew._wake_sleepers

    def interrupted(crew):
        if not interrupts:
            interrupts.append(1)
            raise KeyboardInterrupt
        wake(crew)

    monkeypatch.setattr(C.Crew, "_wake_sleepers", interrupted)
    actions = np.argmax(one.masks, 1).astype(np.int64)
    with pytest.raises(KeyboardInterrupt):
        two.step(actions, grids=True)
    assert interrupts
    one.step(actions, grids=True)
    for a, b in zip(one.batch, two.batch, strict=True):
        assert np.array_equal(a, b)
    actions = np.argmax(one.masks, 1).astype(np.int64)
    for a, b in zip(one.step(actions, grids=True), two.step(actions, grids=True), strict=True):
        assert np.array_equal(a, b)
    two.close()


def test_a_closed_or_dropped_env_ends_its_threads():
    before = len(crew_threads())
    env = E.SnakeVectorEnv(2 * MIN_ENVS_PER_THREAD, size=4, threads=2)
    env.reset(seed=0)
    env.step(np.zeros(env.num_envs, np.int64))
    assert len(crew_threads()) == before + 1
    env.close()
    assert len(crew_threads()) == before  # close joins them
    env = E.SnakeVectorEnv(2 * MIN_ENVS_PER_THREAD, size=4, threads=2)
    env.reset(seed=0)
    env.step(np.ones(env.num_envs, np.int64))
    del env
    gc.collect()
    assert len(crew_threads()) == before


def test_a_bad_step_on_many_threads_moves_nothing():
    env = E.SnakeVectorEnv(2 * MIN_ENVS_PER_THREAD, size=4, threads=2)
    env.reset(seed=5)
    state = env._games.batch[K.B_STATE].copy()
    actions = np.zeros(env.num_envs, np.int64)
    actions[-1] = 4
    with pytest.raises(InputError, match="action 4"):
        env.step(actions)
    assert np.array_equal(state, env._games.batch[K.B_STATE])
    env.step(np.zeros(env.num_envs, np.int64))  # the crew still works
    env.close()


@njit
def _through_atomics(a, b, values):
    # Writes `values` into b through a view made from b's address, and into a with atomic stores;
    # reads a back atomically.
    view = array_at(address_of(b), b.shape[0], b)
    total = 0
    for i in range(values.shape[0]):
        view[i] = values[i]
        atomic_store(a, i, values[i])
        total += atomic_load(a, i)
        spin_pause()
    cpu_yield()
    return total


def test_atomics_compiled_do_what_plain_python_does():
    values = np.arange(7, dtype=np.int64) * 3 - 5
    for run in (_through_atomics, _through_atomics.py_func):
        a, b = np.zeros(7, np.int64), np.zeros(7, np.int64)
        assert run(a, b, values) == values.sum()
        assert np.array_equal(a, values) and np.array_equal(b, values)
    grid = np.arange(12, dtype=np.uint8).reshape(3, 4)
    assert np.array_equal(array_at(address_of(grid), (3, 4), grid), grid)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this platform")
def test_a_forked_child_gets_an_error_not_a_hang():
    # In a fresh interpreter: a forked child has only the thread that forked, not the env's workers.
    script = """
import os, sys, numpy as np
import fastsnake.envs as E
env = E.SnakeVectorEnv(1024, size=4, threads=2)
env.reset(seed=0)
env.step(np.zeros(1024, np.int64))
pid = os.fork()
if pid == 0:
    try:
        env.step(np.zeros(1024, np.int64))
    except RuntimeError as exc:
        os._exit(0 if "forked" in str(exc) else 3)
    os._exit(4)
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
