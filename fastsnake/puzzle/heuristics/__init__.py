"""The heuristics of the sliding puzzle: one module each, registered here with no other edit.

Every module of this package (but those whose name starts with ``_``) is a heuristic: its
evaluation, its search hooks and its tables in one file, declared as ``HEURISTIC = Heuristic(...)``
(`fastsnake.puzzle.heuristic.Heuristic`) and registered in REGISTRY, in the order of their
codes, when the package is imported. Users' heuristics (an ``@njit`` ``evaluate`` and optional
``update``) are registered by `register_heuristic` or found through the entry-point group
``fastsnake.heuristics``, and searched with copies of the same kernels (`fastsnake.puzzle.user_kernels`).

A heuristic's context is a tuple whose first slots are shared (`fastsnake.puzzle.heuristic.HC_KIND`, ``HC_ROWS``,
``HC_COLS``, ``HC_GOALPOS``) and whose others are its module's. `context_of` builds it from a name,
`search_parts` gives the kernels and state makers a search runs for it, `heuristic_value` its value.
"""

from __future__ import annotations

import importlib
import pkgutil
import threading
from typing import Callable, NamedTuple

import numpy as np

from fastsnake import plugins
from fastsnake.puzzle.board import PuzzleInputError
from fastsnake.puzzle.heuristic import (
    HC_COLS,
    HC_FIRST,
    HC_GOALPOS,
    HC_KIND,
    HC_ROWS,
    MAX_H,
    Heuristic,
    UserHeuristicError,
    goal_board,
    no_astar_scratch,
    no_state,
    user_context,
    user_value,
    user_value_checked,
)

__all__ = ["ENTRY_POINT_GROUP", "HC_COLS", "HC_FIRST", "HC_GOALPOS", "HC_KIND", "HC_ROWS", "HEURISTICS", "MAX_H",
           "REGISTRY", "USER_CODE_BASE", "Heuristic", "HeuristicSpec", "SearchParts", "UnknownHeuristicError",
           "UserHeuristicError", "builtin_kernels", "check_evaluable", "context_of", "goal_board", "heuristic_code",
           "heuristic_names", "heuristic_value", "register_heuristic", "register_targets", "search_parts",
           "unregister_heuristic", "user_value", "user_value_checked"]


# ---------------------------------------------------------------- the registry
#
# Every heuristic is registered here once. The CLI's --heuristic choices, `solve`'s docstring,
# the searches and the tests all read REGISTRY; a built-in's entry holds its module's declaration
# (`impl`), whose hooks its kernels are specialised on.

class HeuristicSpec(NamedTuple):
    """One registered heuristic."""

    name: str  # the --heuristic / heuristic= name
    code: int  # its kind code (slot HC_KIND of its contexts)
    doc: str  # one line: the idea and its source
    # Its pure-Python twin in tests/puzzle/: "module:function"; a twin in puzzle_naive takes
    # (state, goal, rows, cols) and must return the kernel's value on every state.
    naive: str
    tables: str = ""  # a word for its tables (its module builds them): "", "pdb", "pdb-max", "walking"
    # A user's heuristic (`register_heuristic` with a function): its njit evaluate(cells, goal,
    # rows, cols) and optional update(h, cells, goal, rows, cols, tile, src, dst), and where it
    # came from ("function" or the entry point's package). Built-ins have None.
    evaluate: object = None
    update: object = None
    origin: str = "fastsnake"
    impl: Heuristic | None = None  # a built-in's declaration (its module's HEURISTIC)


REGISTRY: dict[str, HeuristicSpec] = {}
# Kind codes of users' heuristics start here.
USER_CODE_BASE = 100
ENTRY_POINT_GROUP = "fastsnake.heuristics"
_lock = threading.RLock()
_entry_points: dict | None = None  # name -> EntryPoint, discovered once


def register_heuristic(name: str, h, update=None, doc: str = "", naive: str = "", tables: str = "",
                       *, origin: str = "function") -> int:
    """Add a heuristic to REGISTRY; returns its kind code.

    A user's heuristic: ``register_heuristic(name, h, update=None, doc="")`` where `h` is a
    numba ``@njit`` function ``h(cells, goal, rows, cols) -> int`` (``cells[i]`` the tile on cell
    i, 0 the blank; ``goal[t]`` tile t's goal cell) and `update`, optional, an ``@njit``
    ``update(h, cells, goal, rows, cols, tile, src, dst) -> int``: the value after `tile` moved
    from cell `src` to cell `dst` (`cells` already shows the move). The searches then run copies
    of their kernels with these functions inlined (`fastsnake.puzzle.user_kernels`).

    The built-ins' form ``register_heuristic(name, code, doc, naive, tables)`` (an int code) names
    a heuristic with no module: the searches refuse it. The package registers its modules with
    ``register_heuristic(name, heuristic)`` (a `Heuristic`).
    """
    with _lock:
        if isinstance(h, Heuristic):
            if name in REGISTRY or any(s.code == h.code for s in REGISTRY.values()):
                raise ValueError(f"heuristic {name!r} (code {h.code}) is registered twice")
            REGISTRY[name] = HeuristicSpec(name, h.code, h.doc, h.naive, h.tables, impl=h)
            return h.code
        if isinstance(h, (int, np.integer)) and not isinstance(h, bool):
            # The built-ins' positional form (name, code, doc, naive, tables).
            code, doc, naive, tables = (int(h), update or "", doc or naive,
                                        (tables or naive) if doc else tables)
            if name in REGISTRY or any(s.code == code for s in REGISTRY.values()):
                raise ValueError(f"heuristic {name!r} (code {code}) is registered twice")
            if tables not in ("", "pdb", "pdb-max", "walking"):
                raise ValueError(f"heuristic {name!r}: unknown tables {tables!r}")
            REGISTRY[name] = HeuristicSpec(name, code, doc, naive, tables)
            return code
        if not isinstance(name, str) or not name or name == "auto" or any(c.isspace() or c == "," for c in name):
            raise UserHeuristicError(f"heuristic name {name!r} must be a non-empty word without spaces or "
                                     "commas, not 'auto'")
        _check_njit(name, h, "h(cells, goal, rows, cols)")
        if update is not None:
            _check_njit(name, update, "update(h, cells, goal, rows, cols, tile, src, dst)")
        old = REGISTRY.get(name)
        if old is not None:
            if old.evaluate is None:
                raise UserHeuristicError(f"heuristic {name!r} is a built-in: choose another name")
            if old.evaluate is h and old.update is update:
                return old.code
            code = old.code  # a user's heuristic registered again (edited): same name, same code
        else:
            code = max([USER_CODE_BASE - 1, *(s.code for s in REGISTRY.values())]) + 1
        REGISTRY[name] = HeuristicSpec(name, code, doc or f"a user's heuristic ({origin})", naive, "",
                                       h, update, origin)
        return code


def _check_njit(name: str, fn, signature: str) -> None:
    from numba.core.dispatcher import Dispatcher

    if not isinstance(fn, Dispatcher):
        what = getattr(fn, "__name__", type(fn).__name__)
        raise UserHeuristicError(f"heuristic {name!r}: {what} is not a numba function; decorate it with "
                                 f"@numba.njit ({signature} -> int)")


def unregister_heuristic(name: str) -> None:
    """Forget a user's heuristic (built-ins stay)."""
    with _lock:
        spec = REGISTRY.get(name)
        if spec is not None and spec.evaluate is not None:
            del REGISTRY[name]


def is_user_kind(kind) -> bool:
    return int(kind) >= USER_CODE_BASE


def spec_of_kind(kind) -> HeuristicSpec | None:
    kind = int(kind)
    for spec in REGISTRY.values():
        if spec.code == kind:
            return spec
    return None


def _discover() -> dict:
    """The entry points of the group `fastsnake.heuristics` (name -> EntryPoint; first one wins)."""
    global _entry_points
    with _lock:
        if _entry_points is None:
            _entry_points = plugins.discover(ENTRY_POINT_GROUP, own=None)
        return _entry_points


def rediscover() -> None:
    """Forget the discovered entry points (e.g. after installing a package in a running process);
    heuristics loaded from them are dropped too."""
    global _entry_points
    with _lock:
        for name in list(_entry_points or ()):
            spec = REGISTRY.get(name)
            if spec is not None and spec.origin.startswith("entry point"):
                del REGISTRY[name]
        _entry_points = None


def _load_entry_point(name: str) -> bool:
    """Register the heuristic entry point `name` names; False when there is none."""
    ep = _discover().get(name)
    if ep is None or name in REGISTRY:
        return ep is not None
    try:
        obj = ep.load()
    except Exception as exc:  # an outside package: any failure to import is its own
        raise UserHeuristicError(f"heuristic {name!r}: entry point {ep.value!r} failed to import: "
                                 f"{type(exc).__name__}: {exc}".splitlines()[0]) from None
    from numba.core.dispatcher import Dispatcher

    if isinstance(obj, Dispatcher) or callable(obj) and not hasattr(obj, "evaluate"):
        evaluate, update = obj, None
    else:
        evaluate, update = getattr(obj, "evaluate", None), getattr(obj, "update", None)
        if evaluate is None:
            raise UserHeuristicError(f"heuristic {name!r}: entry point {ep.value!r} names neither an @njit "
                                     "function nor an object with an `evaluate` attribute")
    doc = (getattr(obj, "__doc__", None) or "").strip().splitlines()
    register_heuristic(name, evaluate, update, doc=doc[0] if doc else "", origin=f"entry point {ep.value}")
    return True


def _register_modules() -> None:
    """Register every heuristic module of this package (its ``HEURISTIC``) not registered yet, in the
    order of their codes."""
    known = {spec.impl.module for spec in REGISTRY.values() if spec.impl is not None}
    found = []
    for info in pkgutil.iter_modules(__path__):
        name = f"{__name__}.{info.name}"
        if not info.name.startswith("_") and name not in known:
            found.append(importlib.import_module(name).HEURISTIC)
    for h in sorted(found, key=lambda h: h.code):
        register_heuristic(h.name, h)


_register_modules()
# name -> code (kept for callers of the old dict)
HEURISTICS = {name: spec.code for name, spec in REGISTRY.items()}


def heuristic_names() -> list[str]:
    """The names a caller may pass as heuristic= (all but 'zero', which bfs uses), in order:
    the built-ins, the users' registered ones, then the entry points of `fastsnake.heuristics`."""
    names = [name for name in REGISTRY if name != "zero"]
    return names + [name for name in _discover() if name not in REGISTRY and name != "auto"]


class UnknownHeuristicError(PuzzleInputError):
    """A heuristic name that is not registered, or a code no search kernel evaluates."""


def heuristic_code(name: str) -> int:
    """The kind code of `name` (an entry point of `fastsnake.heuristics` is loaded on first use)."""
    if name not in REGISTRY and isinstance(name, str):
        _load_entry_point(name)
    try:
        return REGISTRY[name].code
    except (KeyError, TypeError):
        raise UnknownHeuristicError(
            f"heuristic {name!r} is not one of {', '.join(heuristic_names())}, auto") from None


def check_evaluable(hc, search: str) -> HeuristicSpec:
    """The context's registered heuristic; UnknownHeuristicError when its kind is not registered or
    has no module (a name registered with a bare code): the searches ask before they start, so no
    kind is ever searched as h = 0."""
    spec = spec_of_kind(hc[HC_KIND])
    if spec is None:
        raise UnknownHeuristicError(f"{search}: heuristic code {int(hc[HC_KIND])} is not registered")
    if spec.impl is None and spec.evaluate is None:
        raise UnknownHeuristicError(f"{search}: heuristic {spec.name!r} (code {spec.code}) has no module of "
                                    "hooks in fastsnake.puzzle.heuristics and no evaluate function")
    return spec


def context_of(name: str, rows: int, cols: int, goal, **options):
    """(context tuple, info dict) of heuristic `name` on this board and goal: its module builds it
    (options: partition, progress, memory_budget, mapped); a user's is the shared slots alone."""
    code = heuristic_code(name)
    spec = REGISTRY[name]
    if spec.impl is None:
        hc = user_context(code, rows, cols, goal)
        check_evaluable(hc, "context")
        return hc, {}
    return spec.impl.context(rows, cols, goal, **options)


class SearchParts(NamedTuple):
    """What a search runs for its heuristic."""

    ida: object  # IDA*'s kernel
    astar: object  # A*'s kernel
    ida_state: Callable  # (hc, root board, depth) -> the per-iteration state tuple of IDA*
    astar_scratch: object  # A*'s scratch
    on_error: Callable | None  # a user's heuristic: exception -> the error to raise instead


def search_parts(hc, search: str = "search") -> SearchParts:
    """The kernels (the templates specialised on the heuristic's hooks) and state makers for context
    `hc`; a user's heuristic is probed first and gets its copies (`fastsnake.puzzle.user_kernels`)."""
    spec = check_evaluable(hc, search)
    if spec.impl is not None:
        ida, astar = builtin_kernels(spec.impl)
        return SearchParts(ida, astar, spec.impl.ida_state, spec.impl.astar_scratch(hc), None)
    from fastsnake.puzzle.user_kernels import kernels_of

    ida, astar = kernels_of(hc, spec)
    return SearchParts(ida, astar, no_state, no_astar_scratch(hc), lambda exc: user_failure(hc, exc))


_kernels: dict = {}  # Heuristic -> (IDA*'s, A*'s kernel), made once a process


def builtin_kernels(impl: Heuristic) -> tuple:
    """(IDA*'s, A*'s) kernels of a built-in heuristic: the templates specialised on its module's hooks
    (`idastar.ida_kernel`, `astar.astar_kernel`), cached with keys covering its module and the
    template's (`fastsnake._numba_cache`); those of `impl.kernels_of` when its hooks are another's."""
    if impl.kernels_of is not None:
        return builtin_kernels(impl.kernels_of)
    with _lock:
        if impl not in _kernels:
            from fastsnake.puzzle.astar import astar_kernel
            from fastsnake.puzzle.idastar import ida_kernel

            label = impl.name.replace("-", "_")
            _kernels[impl] = (ida_kernel(impl.hooks, f"ida_{label}"), astar_kernel(impl.hooks, f"astar_{label}"))
        return _kernels[impl]


def register_targets(name: str, targets) -> None:
    """Register `name` from `user_kernels.import_targets`' answer (in a worker process)."""
    fns = [None if t is None else getattr(importlib.import_module(t[0]), t[1]) for t in targets]
    register_heuristic(name, fns[0], fns[1])


def user_failure(hc, exc: Exception) -> UserHeuristicError:
    """The error a search raises when a user's heuristic raised (or left 0..MAX_H) inside a kernel."""
    spec = spec_of_kind(hc[HC_KIND])
    name = spec.name if spec is not None else f"code {int(hc[HC_KIND])}"
    return UserHeuristicError(f"heuristic {name!r} failed during the search: {type(exc).__name__}: "
                              f"{exc}".splitlines()[0])


def heuristic_value(board, ctx) -> int:
    """The value of `board` under context `ctx` (any registered heuristic's)."""
    spec = check_evaluable(ctx, "heuristic_value")
    board = np.asarray(board, dtype=np.int8)
    if spec.impl is None:
        return user_value(spec, board, ctx)
    return spec.impl.value(board, ctx)

