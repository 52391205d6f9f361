"""What `fastsnake warm` compiles: each part is a small first call that makes numba compile (or
load) every kernel its real calls need, run in a process of its own.

Parts are named ``policy:NAME``, ``puzzle``, ``puzzle-large`` (boards over 127 cells),
``tour`` and ``envs``. A part that ran is marked in the cache root with a hash of the sources its
kernels can reach (`sources_key`), the numba version and the CPU: a marked part is not run again
until one of those changes (what invalidates numba's cache invalidates the mark).
"""

from __future__ import annotations

import io
import os
import time

from fastsnake._numba_cache import import_reach, package_modules, part_fingerprint, sources_hash
from fastsnake.errors import InputError
from fastsnake.warm import store

MARKS_FILE = "warm-marks.json"
POLICY_PREFIX = "policy:"
OTHER_PARTS = ("puzzle", "puzzle-large", "tour", "envs")
# The source part (fingerprint folder) the kernels of a warm part live in.
_SOURCE_PART = {"puzzle": "puzzle", "puzzle-large": "puzzle", "tour": "tour", "envs": "envs"}


class WarmError(InputError):
    """A part to warm that does not exist (an unknown policy, say)."""


def builtin_policy_parts() -> list[str]:
    """``policy:NAME`` of each built-in policy, one name per kernel (aliases like `strongest` share
    their policy's kernels)."""
    from fastsnake.snake.policies import OWN_DISTRIBUTION, all_policies

    seen, names = set(), []
    for policy in all_policies():
        if policy.origin == OWN_DISTRIBUTION and id(policy.play_kernel) not in seen:
            seen.add(id(policy.play_kernel))
            names.append(POLICY_PREFIX + policy.name)
    return names


def policy_parts(names) -> list[str]:
    from fastsnake.snake.policies import get_policy

    for name in names:
        get_policy(name)  # an unknown name fails here, before any process starts
    return [POLICY_PREFIX + name for name in names]


def canonical_part(part: str) -> str:
    """The part `builtin_policy_parts` names for the kernels of `part`: an alias (``policy:strongest``)
    shares its policy's kernels (``policy:cell``); any other part is its own."""
    from fastsnake.warm.family import canonical

    return canonical(part)


def source_part(part: str) -> str:
    return "snake" if part.startswith(POLICY_PREFIX) else _SOURCE_PART[part]


def _policy_module(name: str) -> str | None:
    """The module of our policy `name` as the registry names it (no policy module imported), else None."""
    from fastsnake.snake.policies import builtin_module

    return builtin_module(name)


def part_modules(part: str) -> frozenset[str] | None:
    """The modules the kernels of `part` can reach (`fastsnake._numba_cache`): a policy's module and
    what it imports (its kernels' cache keys cover no more), a sub-package's modules and what they
    import; None for a policy not of ours."""
    if part.startswith(POLICY_PREFIX):
        module = _policy_module(part[len(POLICY_PREFIX):])
        return None if module is None else import_reach(frozenset({module}))
    return import_reach(package_modules(source_part(part)))


def sources_key(part: str) -> str:
    """A hash of the sources the kernels of `part` can reach (`part_modules`); a policy not of ours:
    the whole Snake part."""
    modules = part_modules(part)
    return part_fingerprint("snake") if modules is None else sources_hash(modules)


def mark_key(part: str) -> str:
    """What the compiled kernels of `part` depend on: sources, numba, Python and the CPU."""
    import platform
    from importlib.metadata import version

    import llvmlite.binding as llvm

    cpu = os.environ.get("NUMBA_CPU_NAME") or llvm.get_host_cpu_name()
    return "|".join((sources_key(part), version("numba"), platform.python_version(), cpu))


def _known(part: str) -> bool:
    return part.startswith(POLICY_PREFIX) or part in _SOURCE_PART


def is_marked(part: str, marks: dict | None = None) -> bool:
    marks = store.read_json(MARKS_FILE) if marks is None else marks
    return marks.get(part) == mark_key(part) and store.has_current_folder(source_part(part))


def mark(parts) -> None:
    marks = store.read_json(MARKS_FILE)
    # Marks of sources no longer installed go with them.
    marks = {p: k for p, k in marks.items() if isinstance(k, str) and _known(p) and k == mark_key(p)}
    marks.update({part: mark_key(part) for part in parts})
    store.write_json(MARKS_FILE, marks)


def _policy(name: str) -> None:
    import fastsnake

    fastsnake.play(name, 10)
    fastsnake.sweep(name, 10, 4, threads=1)
    # A board of more than 63 2x2 blocks too (the cell-tree searches take the row-mask outline test
    # there, compiled in the same kernels): a warmed policy compiles nothing at any size.
    big = big_board()
    fastsnake.play(name, big)
    fastsnake.sweep(name, big, 1, threads=1)


def big_board() -> int:
    """The smallest even square board of more than `BITS_BLOCKS` 2x2 blocks (the single-word masks' limit)."""
    from fastsnake.snake.celltree.params import BITS_BLOCKS

    side = 2
    while (side // 2) ** 2 <= BITS_BLOCKS:
        side += 2
    return side


def _puzzle(large: bool) -> None:
    from fastsnake.puzzle.solver import load_reduce_kernels, solve

    if large:
        load_reduce_kernels(144)
        return
    load_reduce_kernels(9)
    # Each heuristic has its own search kernels: those a small board may be solved with while they
    # compile (`cli.puzzle._TIER_HEURISTICS`), then those `auto` picks by board size (and their tables).
    for heuristic in ("misplaced", "manhattan", "linear-conflict"):
        for algorithm in ("astar", "idastar"):
            solve([1, 0, 2, 3], rows=2, cols=2, algorithm=algorithm, heuristic=heuristic)
    solve([1, 0, 2, 3], rows=2, cols=2, algorithm="bfs")  # A* with the zero heuristic
    solve([1, 2, 5, 3, 4, 0, 6, 7, 8], rows=3, cols=3)
    solve([1, 2, 3, 0, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], rows=4, cols=4)


def _tour() -> None:
    from fastsnake.tour import Piece, count_tours, find_tour, reach

    knight = Piece.leaper(1, 2)
    find_tour(knight, 8, 8, 0, closed=True)
    find_tour(knight, 40, 40, 0, closed=True)  # the construction for big boards
    reach(knight, 8, 8, 0, 3)
    reach(knight, 8, 8, 0, 3, walk=True)
    count_tours(knight, 5, 5, 0)


def _envs() -> None:
    import gymnasium
    import numpy as np

    import fastsnake.envs  # noqa: F401 - registers the id

    envs = gymnasium.make_vec("fastsnake/Snake-v0", num_envs=2, vectorization_mode="vector_entry_point", size=10)
    envs.reset(seed=0)
    envs.step(np.zeros(2, dtype=np.int64))
    env = gymnasium.make("fastsnake/Snake-v0", size=10)
    env.reset(seed=0)
    env.step(0)


def run_part(part: str) -> dict:
    """Compile (or load) one part in this process: ``{"part", "seconds", "compiled", "error"}``."""
    from fastsnake.warm.notice import compile_notice

    t0 = time.perf_counter()
    error = None
    with compile_notice(stream=io.StringIO(), tick=False) as watch:
        try:
            if part.startswith(POLICY_PREFIX):
                _policy(part[len(POLICY_PREFIX):])
            elif part in ("puzzle", "puzzle-large"):
                _puzzle(part == "puzzle-large")
            elif part == "tour":
                _tour()
            elif part == "envs":
                _envs()
            else:
                raise WarmError(f"unknown part {part!r}")
        except ImportError as exc:  # e.g. the envs without gymnasium
            error = f"{type(exc).__name__}: {exc}"
        except Exception as exc:  # noqa: BLE001 - a failed part is reported, the others go on
            error = f"{type(exc).__name__}: {exc}"
    return {"part": part, "seconds": round(time.perf_counter() - t0, 2), "compiled": watch.compiles > 0,
            "compile_seconds": round(watch.seconds, 2), "error": error}
