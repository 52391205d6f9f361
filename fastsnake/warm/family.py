"""Kernel families: what a compile is for, what it costs, and one process compiling it at a time.

A *family* is the set of kernels one name stands for, keyed as `fastsnake warm` names its parts:
``policy:NAME`` (a built-in policy's kernels; an alias such as ``strongest`` is its policy's family),
``puzzle``, ``tour``, ``envs``, and ``snake`` (the Snake engine's own helpers).

- `family_of(py_func)`: the family of a kernel numba is about to compile (None: not ours).
- Costs are measurements (`cost`): this machine's last compile of a family, CPU and wall seconds
  (`MEASURED_FILE` in the cache root), once there is one; before, the published range of CPU seconds and
  the machine it was measured on (`PUBLISHED_CPU_RANGE`, `MEASURED_ON`). Either is turned into an
  expected wall time by the cores free now (`expected_wall`): a compile runs on one core, and on a
  machine busier than its cores it gets a share.
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

from fastsnake.published import MEASURED_ON
from fastsnake.warm import store

# This machine's last compile of each family: ``{key: {"cpu_seconds": c, "wall_seconds": w}}``, written
# atomically beside the cache after every command that compiled; a notice quotes it once there is one.
MEASURED_FILE = "compile-measured.json"
CPU_FILE = "compile-cpu-seconds.json"  # before: CPU seconds only, still read where no measurement is
POLICY_PREFIX = "policy:"
# Cold compile CPU seconds of the parts that are not policies, on MEASURED_ON, as (lowest, highest) of
# the measurements we have, quoted until this machine recorded its own: docs/performance.md's cold-start
# table (measured quiet, where a single-threaded compile has a core: CPU between cold - warm and cold;
# snake: `replay --check`, puzzle: a 3x3 solve to a 5x5 reduce, tour: `tour` and `reach`) and, for tour
# and envs, `bench/compile_times.py`. A policy declares its own range with it
# (`EnginePolicy.compile_cpu_range`), read from the registry (`published_range`).
PUBLISHED_CPU_RANGE = {"snake": (8.2, 9.0), "puzzle": (3.2, 15.3), "tour": (2.5, 4.3), "envs": (5.2, 5.9)}
# The estimate a wall time is worked out from before a measurement here: the top of the range.
TYPICAL_CPU_SECONDS = {key: high for key, (_, high) in PUBLISHED_CPU_RANGE.items()}
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

def measured(key: str) -> dict | None:
    """This machine's last compile of family `key`: ``{"cpu_seconds", "wall_seconds"}`` (wall None when
    an older version recorded CPU only), or None before the first."""
    entry = store.read_json(MEASURED_FILE).get(key)
    if (isinstance(entry, dict) and _positive(entry.get("cpu_seconds"))
            and (entry.get("wall_seconds") is None or _positive(entry.get("wall_seconds")))):
        return {"cpu_seconds": float(entry["cpu_seconds"]),
                "wall_seconds": None if entry.get("wall_seconds") is None else float(entry["wall_seconds"])}
    legacy = store.read_json(CPU_FILE).get(key)
    if _positive(legacy):
        return {"cpu_seconds": float(legacy), "wall_seconds": None}
    return None


def _positive(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > 0


def cpu_seconds(key: str) -> float | None:
    """This machine's last measured CPU seconds for compiling `key`, else the top of the published range."""
    found = measured(key)
    if found is not None:
        return found["cpu_seconds"]
    published = published_range(key)
    return None if published is None else float(published[1])


def published_range(key: str) -> tuple[float, float] | None:
    """The (lowest, highest) cold-compile CPU seconds measured for family `key` on MEASURED_ON: a policy's
    as it declares it (`EnginePolicy.compile_cpu_range`), another part's from PUBLISHED_CPU_RANGE."""
    if not key.startswith(POLICY_PREFIX):
        return PUBLISHED_CPU_RANGE.get(key)
    from fastsnake.snake.policies import PolicyError, get_policy

    try:
        return get_policy(key[len(POLICY_PREFIX):]).compile_cpu_range
    except PolicyError:
        return None


def record(cpu_by_family: dict[str, float], wall_by_family: dict[str, float] | None = None) -> None:
    """Keep each family's compile CPU and wall seconds of this process as its next announced cost."""
    wall_by_family = wall_by_family or {}
    kept = {k: {"cpu_seconds": round(v, 1), "wall_seconds": (round(wall_by_family[k], 1) if k in wall_by_family
                                                              else None)}
            for k, v in cpu_by_family.items() if v >= RECORD_AT_LEAST}
    if kept:
        times = store.read_json(MEASURED_FILE)
        times.update(kept)
        store.write_json(MEASURED_FILE, times)


def _number(x: float) -> str:
    return f"{x:.0f}" if x >= 10 else f"{x:.1f}".rstrip("0").rstrip(".")


def cost(keys, load: float | None = None, cores: int | None = None) -> str:
    """What compiling families `keys` costs, from a measurement: this machine's last compiles when every
    one was recorded here ("the last compile here took 67 CPU-s, 110 s wall; about 2.1 min at load 3.0 on
    2 cores now"), else the published range with the machine it was measured on ("measured 35-92 CPU-s on
    a 2-core AMD EPYC VM; up to about 3.1 min at load 3.0 on 2 cores now")."""
    keys = list(dict.fromkeys(canonical(key) for key in keys))
    cores = cores or os.cpu_count() or 1
    if load is None:
        try:
            load = os.getloadavg()[0]
        except OSError:
            load = 0.0
    now = f" at load {load:.1f} on {cores} cores now" if free_cores(load, cores) < 1.0 else " now"
    found = [measured(k) for k in keys]
    if keys and all(f is not None for f in found):
        cpu = sum(f["cpu_seconds"] for f in found)
        walls = [f["wall_seconds"] for f in found]
        wall = "" if None in walls else f", {_duration(sum(walls))} wall"
        last = "the last compile here" if len(keys) == 1 else "their last compiles here"
        return (f"{last} took {_number(cpu)} CPU-s{wall}; about {_duration(expected_wall(cpu, load, cores))}"
                f"{now}")
    ranges = [published_range(k) for k in keys]
    if not keys or None in ranges:
        return "a compile of unknown length (none measured yet)"
    low, high = sum(r[0] for r in ranges), sum(r[1] for r in ranges)
    span = _number(high) if low == high else f"{_number(low)}-{_number(high)}"
    return (f"measured {span} CPU-s on {MEASURED_ON}, none here yet; up to about "
            f"{_duration(expected_wall(high, load, cores))}{now}")


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
    # locks) must not wait for another process's compile to end (a SIGINT once took 30 s to answer).
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
