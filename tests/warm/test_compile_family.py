"""Notices that tell the truth (issue 44): estimates in CPU seconds per kernel family, scaled by the
cores free now; the policy or verb named, never a module; why a family compiles again for another
board class; one process compiling a family at a time (a second waits, says so, then loads)."""

import io
import json
import os
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

from fastsnake.warm import family as F
from fastsnake.warm import notice


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_an_estimate_is_cpu_seconds_turned_into_wall_time_by_the_cores_free_now():
    assert F.about(29, load=0.3, cores=2) == "about 29 CPU-s, about 29 s"
    # Load 8 on 2 cores: a new job gets 2 / 9 of a core.
    assert F.expected_wall(29, load=8.0, cores=2) == pytest.approx(29 * 9 / 2)
    assert F.about(29, load=8.0, cores=2) == "about 29 CPU-s, about 2.2 min at load 8.0 on 2 cores"
    assert F.about(120, load=0.0, cores=4) == "about 2.0 CPU-min, about 2.0 min"
    assert F.about(None) == "up to a few minutes"


def test_estimates_are_kept_per_family_in_cpu_seconds(cache):
    from fastsnake.snake.policies import get_policy

    (cache).mkdir(parents=True)
    # The old file held wall seconds at the cache root, one figure whatever compiled: never read again.
    (cache / "compile-seconds.json").write_text(json.dumps({"policy:strongest": 666.7, "fastsnake.snake": 600}))
    assert notice.typical_seconds("policy:cell") == get_policy("cell").compile_cpu_seconds
    F.record({"policy:grove": 88.4, "tour": 0.5}, {"policy:grove": 130.2})  # tour: a warm run's stray helper
    assert json.loads((cache / F.MEASURED_FILE).read_text()) == {
        "policy:grove": {"cpu_seconds": 88.4, "wall_seconds": 130.2}}
    assert notice.typical_seconds("policy:strongest") == 88.4  # an alias is its policy's family
    assert notice.typical_seconds("policy:cell") == get_policy("cell").compile_cpu_seconds
    assert notice.typical_seconds("tour") == F.TYPICAL_CPU_SECONDS["tour"]
    assert get_policy("cell").compile_cpu_seconds > get_policy("greedy").compile_cpu_seconds > 0  # declared


def test_an_announced_cost_is_this_machines_last_compile_or_a_published_range_with_its_machine(cache):
    """Issue 55: "about 1.5 CPU-min" was a constant (grove took 67 CPU-s, 110 s). A notice quotes this
    machine's last compile of the family, CPU and wall, else the published range and where it was measured."""
    cold = F.cost(["policy:grove"], load=0.3, cores=2)
    low, high = F.published_range("policy:grove")
    assert (low, high) == (35.7, 48.4)  # grove's declaration (policies/grove.py)
    assert cold == f"measured {_n(low)}-{_n(high)} CPU-s on {F.MEASURED_ON}, none here yet; up to about 48 s now"
    assert "AMD EPYC" in cold
    assert F.cost(["policy:grove"], load=8.0, cores=2).endswith("up to about 3.6 min at load 8.0 on 2 cores now")
    F.record({"policy:grove": 67.0}, {"policy:grove": 110.0})
    assert F.cost(["policy:strongest"], load=0.3, cores=2) == ("the last compile here took 67 CPU-s, 1.8 min "
                                                               "wall; about 67 s now")
    # Several parts: measured only when every one was; else the ranges add up.
    assert F.cost(["policy:grove", "tour"], load=0.3, cores=2).startswith(
        f"measured {_n(low + F.PUBLISHED_CPU_RANGE['tour'][0])}-{_n(high + F.PUBLISHED_CPU_RANGE['tour'][1])} CPU-s")
    F.record({"tour": 4.0}, {"tour": 5.5})
    assert F.cost(["policy:grove", "tour"], load=0.3, cores=2).startswith(
        "their last compiles here took 71 CPU-s, 1.9 min wall")
    # A record from before wall times were kept still counts, as CPU seconds.
    (cache / F.MEASURED_FILE).unlink()
    (cache / F.CPU_FILE).write_text(json.dumps({"policy:cell": 40.5}))
    assert F.cost(["policy:cell"], load=0.3, cores=2) == "the last compile here took 40 CPU-s; about 40 s now"


def _n(x):
    return f"{x:.0f}" if x >= 10 else f"{x:.1f}".rstrip("0").rstrip(".")


def test_a_compile_records_its_cpu_and_wall_seconds(cache):
    from fastsnake.snake import engine

    helper = next(v for v in vars(engine).values() if hasattr(v, "py_func") and hasattr(v, "_cache"))
    watch = notice.CompileWatch(stream=io.StringIO(), tick=False)
    watch.on_start(_start(helper))
    time.sleep(0.05)
    watch.on_end(_end())
    assert watch.wall_by_family["snake"] >= 0.05
    watch.cpu_by_family["snake"] = 3.0  # as a real compile's CPU (sleeping used none)
    watch.record()
    kept = json.loads((cache / F.MEASURED_FILE).read_text())["snake"]
    assert kept["cpu_seconds"] == 3.0 and kept["wall_seconds"] == round(watch.wall_by_family["snake"], 1)


def _start(dispatcher):
    return SimpleNamespace(is_start=True, data={"dispatcher": dispatcher})


def _end():
    return SimpleNamespace(is_start=False, data={}, exc_details=(None, None, None))


def test_a_compare_names_each_policy_it_compiles_never_a_module(cache, monkeypatch):
    """`compare` used to say "compiling the kernels of policy module kernels" (the template's module)."""
    from fastsnake.snake.policies import get_policy

    # No other variant cached: a kernel's cache paths were fixed when this process imported it, so an
    # earlier test's compile of the random cycle's kernels would add the variant words.
    monkeypatch.setattr(F, "_index_exists", lambda dispatcher: False)
    from fastsnake.snake.policies.kernels import compiled_kernels

    stream = io.StringIO()
    watch = notice.CompileWatch(stream=stream, tick=False, verb="compare")
    for name in ("cycle", "greedy", "strongest"):
        kernel = compiled_kernels(get_policy(name).sweep_kernel)[0]
        assert kernel.py_func.__module__ == "fastsnake.snake.policies.kernels"
        watch.on_start(_start(kernel))
        watch.on_end(_end())
    lines = stream.getvalue().splitlines()
    assert [line.split(" once (")[0] for line in lines] == [
        "fastsnake: compiling policy cycle's kernels", "fastsnake: compiling policy greedy's kernels",
        "fastsnake: compiling policy grove's kernels"]  # strongest is grove's alias: its kernels
    assert all("CPU-" in line and "module" not in line and "fastsnake." not in line for line in lines)
    assert set(watch.cpu_by_family) == {"policy:cycle", "policy:greedy", "policy:grove"}


def test_an_engine_helper_compiled_first_counts_for_the_expected_policy(cache):
    from fastsnake.snake import engine

    helper = next(v for v in vars(engine).values() if hasattr(v, "py_func") and hasattr(v, "_cache"))
    stream = io.StringIO()
    notice.expect("policy strongest's kernels", "policy:strongest")
    try:
        watch = notice.CompileWatch(stream=stream, tick=False)
        watch.on_start(_start(helper))
        watch.on_end(_end())
    finally:
        notice.expect_nothing()
    assert stream.getvalue().startswith("fastsnake: compiling policy strongest's kernels once (")
    assert list(watch.cpu_by_family) == ["policy:grove"]


def test_describe_never_names_the_kernel_template_module():
    assert notice.describe("fastsnake.snake.policies.kernels", verb="compare") == "the Snake engine's kernels"
    assert notice.describe("fastsnake.snake.policies.greedy_dynamic") == "policy greedy-dynamic's kernels"
    assert notice.describe("someones_module", verb="sweep") == "the kernels fastsnake sweep needs"


def test_a_policy_compiling_for_another_variant_says_why(monkeypatch):
    # cycle's kernels differ by the cycle kind (`kernels.by_params`; cell's board classes share one
    # pair since its search is compiled outside the kernels, `celltree.link`).
    from fastsnake.snake.policies import get_policy

    cycle = get_policy("cycle")
    zigzag = cycle.sweep_kernel.kernels[False]
    monkeypatch.setattr(F, "_index_exists", lambda dispatcher: False)
    assert F.variant_words(cycle, True) is None  # a first compile is just that
    monkeypatch.setattr(F, "_index_exists", lambda dispatcher: dispatcher is zigzag)
    words = F.variant_words(cycle, True)
    assert words.startswith("for a random Hamiltonian cycle: cycle compiles its kernels once per cycle kind (")
    assert words.endswith("; those for the zig-zag cycle are cached already")
    stream = io.StringIO()
    F._known.clear()
    watch = notice.CompileWatch(stream=stream, tick=False)
    watch.on_start(_start(cycle.sweep_kernel.kernels[True]))
    watch.on_end(_end())
    F._known.clear()
    assert stream.getvalue().startswith(f"fastsnake: compiling policy cycle's kernels {words} once (")


def test_cell_has_one_kernel_pair_for_every_board_size():
    from fastsnake.snake.policies import get_policy

    cell = get_policy("cell")
    assert F.variant_words(cell, True) is None and F.variant_words(cell, False) is None


TINY = "from numba import njit\n\n\n@njit(cache=True)\ndef add_one(x):\n    return x + 1\n"


def test_numba_keeps_the_index_the_board_class_check_reads(tmp_path):
    (tmp_path / "tiny_index_mod.py").write_text(TINY)
    code = ("import sys, fastsnake.warm.family as F; sys.path.insert(0, sys.argv[1]); import tiny_index_mod as m\n"
            "before = F._index_exists(m.add_one); m.add_one(1); print(before, F._index_exists(m.add_one))")
    proc = subprocess.run([sys.executable, "-c", code, str(tmp_path)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["False", "True"]


HOLDER = """
import pathlib, sys, time
sys.path.insert(0, sys.argv[1])
from fastsnake.warm import compile_notice, family as F
F.MODULE_FAMILIES += (("tiny_family_mod", "tiny"),)
with compile_notice(tick=False) as watch:
    F.acquire(F.Family("tiny", "the tiny kernels"))  # as if its compile had started
    print("locked", flush=True)
    go = pathlib.Path(sys.argv[2])
    while not go.exists():
        time.sleep(0.05)
    import tiny_family_mod
    print(tiny_family_mod.add_one(1), watch.compiles, flush=True)
"""
WAITER = """
import sys
sys.path.insert(0, sys.argv[1])
from fastsnake.warm import compile_notice, family as F
F.MODULE_FAMILIES += (("tiny_family_mod", "tiny"),)
with compile_notice(tick=False) as watch:
    import tiny_family_mod
    print(tiny_family_mod.add_one(1), watch.compiles, flush=True)
"""


def test_a_second_process_waits_for_the_family_being_compiled_then_loads_it(tmp_path):
    (tmp_path / "tiny_family_mod.py").write_text(TINY)
    env = {k: v for k, v in os.environ.items() if k != "FASTSNAKE_QUIET_COMPILE"}
    env["NUMBA_CACHE_DIR"] = str(tmp_path / "cache")
    go = tmp_path / "go"
    holder = subprocess.Popen([sys.executable, "-c", HOLDER, str(tmp_path), str(go)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert holder.stdout.readline().strip() == "locked"
        waiter_err = tmp_path / "waiter.err"
        with open(waiter_err, "w") as err:
            waiter = subprocess.Popen([sys.executable, "-c", WAITER, str(tmp_path)], stdout=subprocess.PIPE,
                                      stderr=err, text=True, env=env)
        deadline = time.monotonic() + 300
        while "waiting for it" not in waiter_err.read_text():
            assert waiter.poll() is None and time.monotonic() < deadline, waiter_err.read_text()
            time.sleep(0.05)
        go.touch()
        holder_out, holder_err = holder.communicate(timeout=300)
        waiter_out, _ = waiter.communicate(timeout=300)
    finally:
        for proc in (holder, locals().get("waiter")):
            if proc is not None and proc.poll() is None:
                proc.kill()
    assert holder.returncode == 0 and waiter.returncode == 0, holder_err
    assert holder_out.split() == ["2", "1"]  # the holder compiled add_one
    assert waiter_out.split() == ["2", "0"]  # the waiter loaded it: no compile of its own
    said = waiter_err.read_text()
    assert said.count("fastsnake: another process is compiling the kernels of tiny now; waiting for it") == 1
    assert "fastsnake: compiling" not in said
    assert str(F.LOCK_PREFIX + "tiny.lock") in said


def test_a_compile_waiting_for_another_process_holds_no_lock_of_this_one(cache):
    """A compile waits for another process's on a worker thread (`cancel.call_kernel`); Ctrl-C on the
    main thread then unwinds through `compile_notice`, which releases the family locks: that must not
    wait for the other process's compile to end (issue 46: a SIGINT answered after 30 s)."""
    import fcntl
    import threading

    family = F.Family("tiny-wait", "the tiny kernels")
    path = F.lock_path(family.key)
    path.parent.mkdir(parents=True, exist_ok=True)
    other = open(path, "a")  # another process's compile, as flock sees it: another open file
    fcntl.flock(other, fcntl.LOCK_EX)
    waiting = threading.Event()
    waiter = threading.Thread(target=F.acquire, args=(family, lambda text: waiting.set()), daemon=True)
    waiter.start()
    try:
        assert waiting.wait(timeout=300)  # a deadline for a stuck thread, not a measurement
        assert F._state_lock.acquire(blocking=False), "the waiting thread holds the family state lock"
        F._state_lock.release()
        F.release()  # what the main thread's way out does: returns while the other still compiles
        assert F.held() == []
    finally:
        other.close()  # the other compile ends: the waiter takes the lock
        waiter.join(timeout=300)
    assert F.held() == [family.key]
    F.release()
    assert F.held() == []
