"""Kernel families: what a compile is for, what it costs, and one process compiling it at a time.

A *family* is the set of kernels one name stands for, keyed as `fastsnake warm` names its parts:
``policy:NAME`` (a built-in policy's kernels; an alias such as ``strongest`` is its policy's family),
``puzzle``, ``tour``, ``envs``, and ``snake`` (the Snake engine's own helpers).

- `family_of(py_func)`: the family of a kernel numba is about to compile (None: not ours).
- Estimates are CPU seconds per family (`CPU_FILE` in the cache root, this machine's own once
  measured; `TYPICAL_CPU_SECONDS` before), turned into an expected wall time by the cores free now
  (`expected_wall`): a compile runs on one core, and on a machine busier than its cores it gets a share.
- `guard_compiles()`: while it is on, a process that misses numba's cache for a kernel of a family
  takes that family's lock (``compile-<family>.lock`` in the cache root, `fcntl.flock`; released by
  the kernel, so a killed process never leaves it held) before compiling; a second process that
  finds it held says so on stderr, waits, then tries the cache again, and loads what the first
  compiled instead of compiling it too.
"""

from __future__ import annotations

import fcntl
import os
import re
import sys
import threading
import time
from dataclasses import dataclass

from fastsnake.warm import store

CPU_FILE = "compile-cpu-seconds.json"
POLICY_PREFIX = "policy:"
# Cold compile CPU seconds per family (cold - warm CPU time of a first run), used until this machine
# recorded its own: docs/performance.md's cold-start table (wall seconds at load 2.4-3 on 2 cores,
# halved). A policy's figure is declared with it (`EnginePolicy.compile_cpu_seconds`), read from the registry.
TYPICAL_CPU_SECONDS = {"snake": 5, "puzzle": 12, "tour": 5, "envs": 8}
# Compiles of less CPU than this leave no estimate behind: a stray helper compiled in a warm run
# must not teach the next cold run that a family takes a second.
RECORD_AT_LEAST = 2.0

# What the variants of a policy whose kernels differ by a parameter are (`kernels.by_params`), by
# the rule that picks them: the notice says which one compiles, and why there are several.
VARIANT_WORDS = {
    "random_cycle": ("cycle kind", "a random Hamiltonian cycle", "the zig-zag cycle",
                     "the zig-zag cycle never compiles the random cycle's builder"),
}

MODULE_FAMILIES = (("fastsnake.puzzle", "puzzle"), ("fastsnake.tour", "tour"), ("fastsnake.envs", "envs"),
                    ("fastsnake.snake", "snake"), ("fastsnake.search", "snake"))
_WORDS = {
    "snake": "the Snake engine's kernels",
    "puzzle": "the sliding-puzzle solvers",
    "tour": "the leaper-tour kernels",
    "envs": "the Gymnasium env kernels",
}


@dataclass(frozen=True)
class Family:
    """A kernel's family (`key`), in words, and for a kernel variant (`kernels.ChosenKernel`) which one."""

    key: str
    words: str
    variant: str | None = None  # "for boards of ...: why" when another variant is cached (`variant_words`)


def words_of(key: str) -> str:
    if key.startswith(POLICY_PREFIX):
        return f"policy {key[len(POLICY_PREFIX):]}'s kernels"
    return _WORDS.get(key, f"the kernels of {key}")


# --- which family a kernel belongs to ---------------------------------------------------------------

_known: dict[int, tuple] = {}  # id(py_func) -> (py_func, its family): the function kept, so its id stays its own
_known_lock = threading.Lock()


def family_of(py_func) -> Family | None:
    """The family of the kernel whose Python function is `py_func`; None for code that is not ours
    (a user's policy, a test's function)."""
    with _known_lock:
        known = _known.get(id(py_func))
        if known is not None and known[0] is py_func:
            return known[1]
    family = _policy_family(py_func)
    if family is None:
        module = getattr(py_func, "__module__", "") or ""
        key = next((k for prefix, k in MODULE_FAMILIES if module == prefix or module.startswith(prefix + ".")),
                   None)
        family = None if key is None else Family(key, words_of(key))
    with _known_lock:
        _known[id(py_func)] = (py_func, family)
    return family


def _policy_family(py_func) -> Family | None:
    """The built-in policy whose sweep or play kernel (or one of their variants) `py_func` is."""
    if "fastsnake.snake.policies" not in sys.modules:
        return None
    from fastsnake.snake.policies import OWN_DISTRIBUTION, all_policies
    from fastsnake.snake.policies.kernels import ChosenKernel

    try:
        policies = all_policies(errors=[])  # a broken plugin is the registry's to report, not a compile's
    except Exception:  # noqa: BLE001 - naming a family must never fail a compile
        return None
    for policy in policies:
        if policy.origin != OWN_DISTRIBUTION:
            continue
        for entry in (policy.sweep_kernel, policy.play_kernel):
            variants = entry.kernels if isinstance(entry, ChosenKernel) else {None: entry}
            for key, kernel in variants.items():
                if getattr(kernel, "py_func", None) is py_func:
                    family = canonical(POLICY_PREFIX + policy.name)
                    variant = None if key is None else variant_words(policy, key)
                    return Family(family, words_of(family), variant)
    return None


def canonical(key: str) -> str:
    """An alias's family is its policy's (``policy:strongest`` -> ``policy:grove``)."""
    if not key.startswith(POLICY_PREFIX):
        return key
    from fastsnake.snake.policies import OWN_DISTRIBUTION, PolicyError, all_policies, get_policy

    try:
        kernel = get_policy(key[len(POLICY_PREFIX):]).play_kernel
    except PolicyError:
        return key
    for policy in all_policies():
        if policy.origin == OWN_DISTRIBUTION and policy.play_kernel is kernel:
            return POLICY_PREFIX + policy.name
    return key


def variant_words(policy, key) -> str | None:
    """When another variant of `policy`'s kernels than `key` is cached already (the command compiles
    only because its games need variant `key`): which variant compiles and why there are several."""
    from fastsnake.snake.policies.kernels import ChosenKernel

    entry = policy.sweep_kernel
    if not isinstance(entry, ChosenKernel):
        return None
    rule = getattr(entry.rule, "__name__", "")
    kind, yes, no, why = VARIANT_WORDS.get(rule, ("game class", f"{rule} {key}", f"{rule} {not key}",
                                                  "they differ by the games' parameters"))
    if "{BITS_BLOCKS}" in yes:
        from fastsnake.snake.celltree.params import BITS_BLOCKS

        yes = yes.format(BITS_BLOCKS=BITS_BLOCKS)
    this, other = (yes, no) if key else (no, yes)
    others = [k for k in entry.kernels if k != key]
    if not any(_index_exists(kernels.kernels[k]) for kernels in (policy.sweep_kernel, policy.play_kernel)
               if isinstance(kernels, ChosenKernel) for k in others if k in kernels.kernels):
        return None
    return (f"for {this}: {policy.name} compiles its kernels once per {kind} ({why}); those for {other} "
            f"are cached already")


def _index_exists(dispatcher) -> bool:
    """Whether numba's cache holds an index for `dispatcher` (numba's private cache API: False if it moved)."""
    try:
        return os.path.exists(dispatcher._cache._cache_file._index_path)
    except AttributeError:
        return False


# --- estimates ----------------------------------------------------------------------------------------

def cpu_seconds(key: str) -> float | None:
    """This machine's last measured CPU seconds for compiling `key`, else the typical figure."""
    recorded = store.read_json(CPU_FILE).get(key)
    if isinstance(recorded, (int, float)) and recorded > 0:
        return float(recorded)
    typical = _policy_typical(key[len(POLICY_PREFIX):]) if key.startswith(POLICY_PREFIX) \
        else TYPICAL_CPU_SECONDS.get(key)
    return None if typical is None else float(typical)


def _policy_typical(name: str) -> float | None:
    """The typical compile CPU seconds a policy declares (`EnginePolicy.compile_cpu_seconds`), else None."""
    from fastsnake.snake.policies import PolicyError, get_policy

    try:
        return get_policy(name).compile_cpu_seconds
    except PolicyError:
        return None


def record(cpu_by_family: dict[str, float]) -> None:
    """Keep each family's compile CPU seconds of this process as its next estimate."""
    kept = {k: round(v, 1) for k, v in cpu_by_family.items() if v >= RECORD_AT_LEAST}
    if kept:
        times = store.read_json(CPU_FILE)
        times.update(kept)
        store.write_json(CPU_FILE, times)


def free_cores(load: float | None = None, cores: int | None = None) -> float:
    """The share of one core a new single-threaded job gets now: 1 while the load leaves a core free,
    else cores / (load + 1) (the run queue, us included, shares the cores)."""
    cores = cores or os.cpu_count() or 1
    if load is None:
        try:
            load = os.getloadavg()[0]
        except OSError:
            load = 0.0
    return min(1.0, cores / max(load + 1.0, 1.0))


def expected_wall(cpu: float, load: float | None = None, cores: int | None = None) -> float:
    return cpu / free_cores(load, cores)


def _duration(seconds: float) -> str:
    if seconds < 90:
        return f"{max(1, round(seconds)):.0f} s"
    return f"{seconds / 60:.1f} min"


def about(cpu: float | None, load: float | None = None, cores: int | None = None) -> str:
    """'about 29 CPU-s, about 2.2 min at load 8.0 on 2 cores', or 'about 29 CPU-s, about 29 s' on a
    machine with a core free."""
    if cpu is None:
        return "up to a few minutes"
    cores = cores or os.cpu_count() or 1
    if load is None:
        try:
            load = os.getloadavg()[0]
        except OSError:
            load = 0.0
    wall = expected_wall(cpu, load, cores)
    text = f"about {_duration(cpu).replace(' s', ' CPU-s').replace(' min', ' CPU-min')}"
    if free_cores(load, cores) < 1.0:
        return f"{text}, about {_duration(wall)} at load {load:.1f} on {cores} cores"
    return f"{text}, about {_duration(wall)}"


# --- one process compiles a family at a time ----------------------------------------------------------

LOCK_PREFIX = "compile-"
_POLL_SECONDS = 0.2  # a wait polls, so that Ctrl-C stops it at once on any thread
_state_lock = threading.RLock()
_held: dict[str, tuple] = {}  # family key -> (the open lock file it is held by, id of the kernel taking it)
_say = [None]  # the function the guard speaks through (the active CompileWatch's), None: guard off


def lock_path(key: str):
    return store.cache_root() / f"{LOCK_PREFIX}{re.sub(r'[^A-Za-z0-9_.-]', '_', key)}.lock"


def acquire(family: Family, say=None, owner=None) -> bool:
    """Take `family`'s lock for the compile of `owner` (a kernel's function; its save releases it);
    when another process holds it, say so through `say` and wait. Returns whether this call had to
    wait (the caller then tries the cache again)."""
    with _state_lock:
        if _held:  # one lock per process at most (a kernel's nested compiles are under its lock)
            return False
        path = lock_path(family.key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            fh = open(path, "a")  # noqa: SIM115 - held until `release`
        except OSError:  # a read-only cache: compile unguarded
            return False
    # The wait holds no lock of this process: a compile waits on a worker thread (`cancel.call_kernel`)
    # while the main thread answers Ctrl-C, and its way out (`compile_notice` releases the family
    # locks) must not wait for another process's compile to end (issue 46: 30 s to answer a SIGINT).
    waited = False
    try:
        try:
            fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            if say is not None:
                say(f"fastsnake: another process is compiling {family.words} now; waiting for it, then "
                    f"loading them from the cache ({path})\n")
            waited = True
            while True:
                time.sleep(_POLL_SECONDS)
                try:
                    fcntl.flock(fh, fcntl.LOCK_EX | fcntl.LOCK_NB)
                    break
                except OSError:
                    continue
    except BaseException:
        fh.close()
        raise
    with _state_lock:
        if _held:  # another thread of this process took one meanwhile: it guards this compile too
            fh.close()
            return waited
        _held[family.key] = (fh, id(owner))
    return waited


def release(key: str | None = None) -> None:
    """Release the family lock this process holds (`key`, or any)."""
    with _state_lock:
        for held in [k for k in _held if key is None or k == key]:
            fh, _ = _held.pop(held)
            try:
                fcntl.flock(fh, fcntl.LOCK_UN)
            finally:
                fh.close()


def held() -> list[str]:
    with _state_lock:
        return sorted(_held)


def guard_compiles(say):
    """Turn the guard on (`say(text)` reports a wait) or off (None); returns the `say` it replaces
    (a nested `compile_notice` restores it). Installs the hooks once."""
    _install()
    previous, _say[0] = _say[0], say
    return previous


def _install() -> None:
    """Wrap numba's cache load and save (numba's private `caching.Cache` API, like the cache locator of
    `fastsnake._numba_cache`; pyproject.toml caps numba at the versions tested)."""
    from numba.core import caching

    if getattr(caching.Cache, "_fastsnake_guard", False):
        return
    load, save = caching.Cache.load_overload, caching.Cache.save_overload

    def load_overload(self, sig, target_context):
        data = load(self, sig, target_context)
        say = _say[0]
        if data is not None or say is None or _held:
            return data
        family = family_of(self._py_func)
        if family is None:
            return data
        acquire(family, say, owner=self._py_func)
        if family.key in _held:
            # Saved meanwhile by the process we waited for (or by one that finished just before we asked)?
            data = load(self, sig, target_context)
            if data is not None:
                release(family.key)
        return data

    def save_overload(self, sig, data):
        try:
            save(self, sig, data)
        finally:
            with _state_lock:
                mine = [k for k, (_, owner) in _held.items() if owner == id(self._py_func)]
            for key in mine:
                release(key)

    caching.Cache.load_overload = load_overload
    caching.Cache.save_overload = save_overload
    caching.Cache._fastsnake_guard = True
