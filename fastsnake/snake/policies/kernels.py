"""The kernel template of every built-in policy: two compiled kernels from four njit parts.

A built-in policy is four ``@njit`` functions, its *parts* (`Parts`): ``alloc(cfg, nbr, params)``
makes the workspace, ``reset(ws, g)`` lays the start body, ``decide(ws, g, st)`` returns each move
and ``cycle_of(ws)`` the cycle a replay shows (an empty array for none). `engine_kernels` turns
them into the two kernels the sweep, play and dask code call (`EnginePolicy.sweep_kernel`,
`EnginePolicy.play_kernel`): the engine's `sweep_chunk` and `play_recorded` with the parts inlined.
`by_params` is the one dispatcher for a policy with several kernel pairs (the random or the
zig-zag cycle, `cycle.cycle_kernels`): it picks a pair by the
game's parameter vector, so a run compiles only the pair it uses.

Why not one generic cached kernel taking the parts as arguments: numba's cache index would record
every function it was ever called with, and loading it would import all of them. Why not a
closure per policy: numba keys a closure's cache entry by its captured values, and a captured
dispatcher pickles with a fresh id in every process, so the entry would never be found again.
So each policy's kernels are copies of the two template functions below (`_sweep`, `_play`, same
code) whose *globals* are that policy's parts, under a name of their own (`kernel_name`): numba
compiles a global as a direct call, inlines it, and caches each copy in a file named after it,
invalidated with the modules the parts reach (`fastsnake._numba_cache`). Users' numba policies
get their kernels the same way from a generated module (`user_cache`), since numba would not see
edits to their sources.
"""

from __future__ import annotations

import hashlib
import types
from typing import Callable, NamedTuple

from numba import njit
from numba.core.dispatcher import Dispatcher

from fastsnake.snake.engine import play_recorded, sweep_chunk
from fastsnake.snake.policies.protocol import EnginePolicy, no_params

# The template's free names: each policy's copy of `_sweep` and `_play` binds them to its parts.
alloc = reset = decide = cycle_of = None
PART_NAMES = ("alloc", "reset", "decide", "cycle_of")
OWN_PACKAGE = "fastsnake."


def _sweep(cfg, nbr, params, base_seed, first, out, nblocks):
    """Games first .. first+len(out)-1 of a sweep, one row of `out` each (`engine.sweep_chunk`)
    over this kernel's `alloc`, `reset` and `decide`."""
    sweep_chunk(alloc, reset, decide, cfg, nbr, params, base_seed, first, out, nblocks)


def _play(cfg, nbr, params, seed):
    """One game from `seed`, recorded for its replay (`engine.play_recorded`): (outcome, start body
    tail first, moves, apples, the cycle `cycle_of` shows)."""
    return play_recorded(alloc, reset, decide, cycle_of, cfg, nbr, params, seed)


class Parts(NamedTuple):
    """The four njit functions a built-in policy is made of (see the module's docstring)."""

    alloc: Callable
    reset: Callable
    decide: Callable
    cycle_of: Callable


class Kernels(NamedTuple):
    """A policy's two kernel entries: ``sweep(cfg, nbr, params, base_seed, first, out, nblocks)``
    and ``play(cfg, nbr, params, seed) -> (outcome, body0, moves, apples, cycle)``."""

    sweep: Callable
    play: Callable

    def policy(self, name: str, summary: str, make_params: Callable = no_params, **fields) -> EnginePolicy:
        """The `EnginePolicy` that plays these kernels: every built-in policy is declared by this one call
        (its module's ``KERNELS.policy("name", __doc__, make_params, guaranteed=..., options=...)``);
        `fields` are `EnginePolicy`'s others (``compile_cpu_range``, ``alias_of`` ...)."""
        return EnginePolicy(name=name, summary=summary, sweep_kernel=self.sweep, play_kernel=self.play,
                            make_params=make_params, **fields)


_made: dict[str, Parts] = {}  # kernel name -> the parts it was made of, in this process


def _where(fn) -> str:
    """``module.name`` of a part (a numba dispatcher or, with the JIT off, the function itself)."""
    py = getattr(fn, "py_func", fn)
    module, name = getattr(py, "__module__", None), getattr(py, "__qualname__", "")
    if not module or not module.startswith(OWN_PACKAGE) or "<" in name or "." in name:
        raise ValueError(f"kernel part {fn!r} is not a module-level function of fastsnake: a user's "
                         f"policy is a fastsnake.Policy (its kernels come from policies.user_cache)")
    return f"{module}.{name}"


def unique_name(functions) -> str:
    """A name for code made of `functions`: the last one's module, then a hash of their import names
    (the same in every process, so numba finds the cached copy again)."""
    wheres = [_where(fn) for fn in functions]
    digest = hashlib.blake2b(" ".join(wheres).encode(), digest_size=6).hexdigest()
    return f"{wheres[-1].split('.')[-2]}_{digest}"


def kernel_name(parts: Parts) -> str:
    """The name of the kernels made of `parts` (`unique_name`, the decide function's module first)."""
    return unique_name([parts.alloc, parts.reset, parts.cycle_of, parts.decide])


def specialise(template, name: str, functions: dict, **options):
    """`template` as a cached njit function `name` whose globals named in `functions` are those:
    how every kernel of this module and of a policy's template (`cycle.cycle_kernels`) is made.
    `name` must be unique to the functions (`unique_name`): numba files the copy's cache by it."""
    namespace = dict(template.__globals__)
    namespace.update(functions)
    fn = types.FunctionType(template.__code__, namespace, name, template.__defaults__)
    fn.__qualname__ = name
    fn.__doc__ = template.__doc__
    return njit(cache=True, nogil=True, **options)(fn)


def engine_kernels(alloc, reset, decide, cycle_of) -> Kernels:
    """The sweep and play kernels of a policy made of these parts (module-level njit functions of
    fastsnake; the same parts always give the same kernels)."""
    parts = Parts(alloc, reset, decide, cycle_of)
    name = kernel_name(parts)
    if _made.setdefault(name, parts) != parts:  # pragma: no cover - a hash collision
        raise ValueError(f"kernel name {name!r} is taken by other parts")
    functions = parts._asdict()
    return Kernels(specialise(_sweep, f"{name}_sweep", functions, parallel=True),
                   specialise(_play, f"{name}_play", functions))


class ChosenKernel:
    """A kernel entry that calls ``kernels[rule(params)]``: numba compiles a kernel on its first call,
    so a run compiles only the variant its games need."""

    def __init__(self, rule: Callable, kernels: dict):
        self.rule = rule
        self.kernels = kernels

    def __call__(self, cfg, nbr, params, *rest):
        return self.kernels[self.rule(params)](cfg, nbr, params, *rest)

    def __repr__(self) -> str:
        return f"ChosenKernel({self.rule.__name__}, {sorted(self.kernels)})"


def by_params(rule: Callable, variants: dict) -> Kernels:
    """One sweep and one play entry over several `Kernels` (`variants`, keyed by what
    ``rule(params)`` returns for the games each is built for): the one dispatcher of every policy
    whose kernels differ by a parameter (the cycle kind)."""
    return Kernels(ChosenKernel(rule, {key: k.sweep for key, k in variants.items()}),
                   ChosenKernel(rule, {key: k.play for key, k in variants.items()}))


def compiled_kernels(entry) -> list:
    """The numba kernels behind a kernel entry (`EnginePolicy.sweep_kernel` or ``play_kernel``): the
    entry itself, or the variants a `ChosenKernel` chooses among."""
    if isinstance(entry, ChosenKernel):
        return [k for key in sorted(entry.kernels) for k in compiled_kernels(entry.kernels[key])]
    return [entry] if isinstance(entry, Dispatcher) else []
