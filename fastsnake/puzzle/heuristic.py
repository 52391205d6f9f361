"""What every heuristic module shares: the context's first slots, its declaration, the no-op hooks,
and how a search kernel is specialised on a heuristic's hooks (`specialise`).

A heuristic's context is a tuple whose first `HC_FIRST` slots are the same for every heuristic
(its kind code, the board's rows and columns, each tile's goal cell); the slots after them are its
module's own, named there. The searches' kernels (`idastar.ida_template`, `astar.astar_template`)
read only the shared slots and hand the context to the heuristic's hooks, so each heuristic's
kernels are the templates specialised on its hooks (`fastsnake.puzzle.heuristics.builtin_kernels`):
no kernel branches on a heuristic it was not made for. A user's heuristic (an ``@njit`` evaluate and
update) gets its copies the same way (`fastsnake.puzzle.user_kernels`).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from numba import njit

from fastsnake.puzzle.board import PuzzleInputError

# The shared slots of every context tuple (numba reads a tuple slot through a module-level int as
# it would a literal: the names cost nothing in a kernel).
HC_KIND, HC_ROWS, HC_COLS, HC_GOALPOS = range(4)
HC_FIRST = 4  # a heuristic module's own slots start here
# A user's heuristic's context: the shared slots, then a copy of the goal cells, which is what the
# user's functions are given in a search (`user_kernels._child`): the search's goal test reads
# HC_GOALPOS, which a heuristic writing into its `goal` argument thus cannot move.
HC_USER_GOAL = HC_FIRST
# ... and a one-slot flag the search sets when the user's function changed that copy (which it puts
# right again before the next call: a changed goal never accumulates over a search).
HC_USER_CHANGED = HC_FIRST + 1
# The largest value a heuristic may take: A* keys nodes by 16-bit h.
MAX_H = 32767


class UserHeuristicError(PuzzleInputError):
    """A user's heuristic that cannot be used: not njit, fails to import, returns a negative
    value or raises (a ValueError, as every PuzzleInputError)."""


_twins: dict = {}


def nogil_twin(fn):
    """A user's ``@njit`` function `fn` compiled again with ``nogil=True`` (its other options kept; not
    cached on disk), once a process: called from Python, a numba function holds the GIL until it
    returns, so one that never returns would leave no thread able to run Python, not even the main
    thread's signal handlers. Called through its twin on a daemon thread (`fastsnake.signals.stoppable`),
    it can be left there. A function declared ``@njit(nogil=True)`` is its own twin (no second
    compile); anything else is returned as it is."""
    twin = _twins.get(fn)
    if twin is None:
        py_func = getattr(fn, "py_func", None)
        if py_func is None or getattr(fn, "targetoptions", {}).get("nogil"):
            return fn  # not numba's, or already ``nogil=True``: no second compile
        from numba import jit

        options = {k: v for k, v in getattr(fn, "targetoptions", {}).items() if k not in ("cache", "nogil")}
        twin = _twins[fn] = jit(**{**options, "nopython": True, "nogil": True})(py_func)
    return twin


def user_value(spec, board, hc) -> int:
    """A user's heuristic (a registry entry with `evaluate`) on `board`, called from Python and
    checked: an int in 0..MAX_H. Called on copies of its arguments, through its ``nogil`` twin and
    stoppably (`fastsnake.signals.stoppable`: a signal, or the thread's deadline, leaves it)."""
    return user_value_checked(spec, board, hc)[0]


def user_value_checked(spec, board, hc) -> tuple[int, str | None]:
    """(value, what it changed): `user_value`, and which of its arguments the heuristic changed
    (``"cells"``, ``"goal"``, ``"cells and goal"``; None when neither): a heuristic that writes into
    the board or the goal it is given corrupts the search that calls it."""
    from fastsnake.signals import Overtime, stoppable

    board = np.asarray(board, dtype=np.int8)
    goalpos = np.asarray(hc[HC_GOALPOS])
    cells, goal = board.copy(), goalpos.copy()
    try:
        value = stoppable(nogil_twin(spec.evaluate), cells, goal, hc[HC_ROWS], hc[HC_COLS])
    except Overtime:
        raise
    except Exception as exc:  # the user's code: whatever it raises is reported as its failure
        raise UserHeuristicError(f"heuristic {spec.name!r} raised {type(exc).__name__}: {exc}".splitlines()[0]
                                 ) from None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise UserHeuristicError(f"heuristic {spec.name!r} returned {value!r}, not an int")
    if not 0 <= int(value) <= MAX_H:
        raise UserHeuristicError(f"heuristic {spec.name!r} returned {int(value)} on "
                                 f"{' '.join(map(str, board.tolist()))}: it must be 0..{MAX_H}")
    changed = [name for name, before, after in (("cells", board, cells), ("goal", goalpos, goal))
               if not np.array_equal(before, after)]
    return int(value), " and ".join(changed) or None


def user_context(kind: int, rows: int, cols: int, goal) -> tuple:
    """A user's heuristic's context: the shared slots, a copy of the goal cells (`HC_USER_GOAL`) and
    the flag saying the user's function changed it (`HC_USER_CHANGED`)."""
    hc = base_context(kind, rows, cols, goal)
    return (*hc, hc[HC_GOALPOS].copy(), np.zeros(1, np.int64))


def goal_changed(hc) -> bool:
    """Whether a user's heuristic changed the goal it was given in a search (its context's copy,
    `HC_USER_GOAL`); the copy is put right again, so the context can serve the next search."""
    if len(hc) <= HC_USER_CHANGED:
        return False
    flag, mine = hc[HC_USER_CHANGED], hc[HC_USER_GOAL]
    changed = bool(flag[0]) or not np.array_equal(mine, hc[HC_GOALPOS])
    mine[:] = hc[HC_GOALPOS]
    flag[0] = 0
    return changed


def base_context(kind: int, rows: int, cols: int, goal) -> tuple:
    """The shared slots: (kind, rows, cols, goalpos[tile] = its goal cell)."""
    n = rows * cols
    goal = np.asarray(goal, dtype=np.int8)
    goalpos = np.empty(n, np.int16)
    goalpos[goal] = np.arange(n, dtype=np.int16)
    return (np.int64(kind), np.int64(rows), np.int64(cols), goalpos)


def distance_table(rows: int, cols: int, goalpos) -> np.ndarray:
    """md[tile*N + cell]: the Manhattan distance of `tile` on `cell` from its goal cell (0 for the blank)."""
    n = rows * cols
    cells = np.arange(n)
    md = np.zeros(n * n, np.int16)
    for t in range(1, n):
        g = int(goalpos[t])
        md[t * n:(t + 1) * n] = np.abs(cells // cols - g // cols) + np.abs(cells % cols - g % cols)
    return md


def goal_board(hc) -> np.ndarray:
    """The goal board of context `hc` (tile per cell)."""
    n = int(hc[HC_ROWS]) * int(hc[HC_COLS])
    goal = np.zeros(n, np.int8)
    goalpos = np.asarray(hc[HC_GOALPOS])
    goal[goalpos[1:]] = np.arange(1, n, dtype=np.int8)
    return goal


# --- hooks a heuristic without state of its own takes ----------------------------------------------

@njit(cache=True, inline="always")
def no_scratch(board, hc, hs):
    """IDA*'s scratch of a heuristic that keeps none."""
    return 0


@njit(cache=True, inline="always")
def no_step(hc, hs, sc, d, tile, move):
    """IDA*'s step down (or back) of a heuristic that keeps no per-depth state."""


def no_state(hc, board, depth):
    """IDA*'s per-iteration state of a heuristic that keeps none (a one-slot array)."""
    return (np.zeros(1, np.int64),)


def no_astar_scratch(hc):
    """A*'s scratch of a heuristic that keeps none."""
    return (np.zeros(1, np.int64),)


class Heuristic:
    """One heuristic, declared by its module of `fastsnake.puzzle.heuristics` (``HEURISTIC =
    Heuristic(...)``) and registered by that package with no other edit; its kernels are the searches'
    templates specialised on its hooks (`fastsnake.puzzle.heuristics.builtin_kernels`).

    - `context(rows, cols, goal, partition, progress, memory_budget, mapped)` -> (context tuple, info
      dict): builds or loads its tables (the shared slots first, `base_context`);
    - `evaluate(board, hc)`: an ``@njit`` value from scratch;
    - IDA*'s hooks (``@njit``, inlined): `ida_scratch(board, hc, hs)` the kernel's scratch, made at
      each call of the kernel; `ida_child(board, hc, hs, sc, d, h, tile, src, dst, move, limit)` the
      child's value (`tile` slides from `src` to `dst`, the blank; `board` as the parent; above
      `limit` the child is pruned, so a lower bound may be returned); `ida_down(hc, hs, sc, d, tile,
      move)` the step down to that child; `ida_up(hc, hs, sc, d, tile, move)` the step back up to
      depth d; and `ida_state(hc, board, depth)` (Python) the per-iteration state `hs` (a tuple of
      arrays) at the root `board`;
    - A*'s hook `astar_child(board, hc, sc, h, tile, src, dst)` (``@njit``) and `astar_scratch(hc)`.
    - `kernels_of`: another heuristic whose hooks these are (its kernels are shared);
    - `tables`: a word describing its tables ("", "pdb", "pdb-max", "walking"); `share(...)` and
      `attach(spec)` (optional): how a batch's parent shares its tables with its worker processes
      (`fastsnake.puzzle.batch`), else each worker builds its context itself.
    """

    def __init__(self, name: str, code: int, doc: str, naive: str, *, context: Callable, evaluate,
                 ida_child, astar_child, ida_scratch=no_scratch, ida_down=no_step, ida_up=no_step,
                 ida_state: Callable = no_state, astar_scratch: Callable = no_astar_scratch, tables: str = "",
                 share: Callable | None = None, attach: Callable | None = None, kernels_of=None,
                 module: str = ""):
        self.name, self.code, self.doc, self.naive, self.tables = name, code, doc, naive, tables
        self.context, self.evaluate = context, evaluate
        self.hooks = {"h_ida_scratch": ida_scratch, "h_ida_child": ida_child, "h_ida_down": ida_down,
                      "h_ida_up": ida_up, "h_astar_child": astar_child}
        self.ida_state, self.astar_scratch = ida_state, astar_scratch
        self.share, self.attach = share, attach
        self.module = module
        self.kernels_of = kernels_of  # another Heuristic whose kernels these hooks are (pdb-max: pdb's)

    def value(self, board, hc) -> int:
        """The value of `board` from scratch (called from Python)."""
        return int(self.evaluate(np.asarray(board, dtype=np.int8), hc))

    def __repr__(self) -> str:
        return f"Heuristic({self.name!r}, {self.module})"


def specialise(template, name: str, functions: dict, *, cache: bool = True, module: str | None = None,
               filename: str | None = None):
    """`template` (a plain function) as an ``@njit`` kernel `name` whose globals named in `functions`
    are those: how every search kernel is made, for built-in heuristics (filed under the template's
    module, its cache key covering the modules of `functions`: `fastsnake._numba_cache.kernel_modules`)
    and users' (filed under their generated module: `module` and `filename`). `name` must be unique
    to the functions: numba files a kernel's cache by its name."""
    import types

    namespace = dict(template.__globals__)
    namespace.update(functions)
    code = template.__code__
    if filename is not None:
        code = code.replace(co_filename=filename, co_name=name)
    fn = types.FunctionType(code, namespace, name, template.__defaults__)
    fn.__qualname__ = name
    fn.__doc__ = template.__doc__
    if module is not None:
        fn.__module__ = module
    return njit(cache=cache, nogil=True)(fn)
