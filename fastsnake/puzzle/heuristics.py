"""Admissible heuristics for the sliding puzzle, as one context tuple every search kernel takes.

All heuristics are evaluated by `_h_full` (from scratch, used by A*) and updated
incrementally by the IDA* kernel. Every kernel receives the same context tuple
layout, whichever heuristic is chosen, so each search kernel compiles once.

Context tuple `hc` (built by `build_context`; kernels read it through the HC_* slot names):
  0 kind, 1 rows, 2 cols, 3 goalpos[tile] (cell), 4 md[tile*N + cell],
  5 pdb (uint8 tables of all groups, concatenated), 6 pdb offset per group,
  7 lk_grp[l*N + tile], 8 lk_mult[l*N + tile], 9 lk_cell[l*N + cell] (lookup l maps
  the state through a board symmetry that fixes the goal blank: l = 0 is the identity),
  10 number of lookups, 11 number of groups,
  12..14 walking distance along rows (dist, next, codes), 15..17 along columns,
  18 dcell[l*4 + move]: how far a tile's mirrored cell index shifts when the blank
  makes `move` (constant per lookup, as every lookup map is a board symmetry),
  19 lk_slot[l*N + tile] (the tile's position in its group), 20 group sizes,
  21 group is compact (indexed by rank, not sparse), 22 16-bit popcount table.
"""

from __future__ import annotations

import threading
from typing import NamedTuple

import numpy as np
from numba import njit

from fastsnake.puzzle.board import PuzzleInputError
from fastsnake.puzzle.pdb_build import MAX_GROUP, group_rank, popcount16_table

# Slots of the context tuple `hc` (see the module docstring). numba reads a tuple slot
# through a module-level int as it would a literal: the names cost nothing in a kernel.
(HC_KIND, HC_ROWS, HC_COLS, HC_GOALPOS, HC_MD, HC_PDB, HC_PDB_OFF, HC_LK_GRP, HC_LK_MULT,
 HC_LK_CELL, HC_NLK, HC_NGROUPS, HC_WDV_DIST, HC_WDV_NEXT, HC_WDV_CODES, HC_WDH_DIST,
 HC_WDH_NEXT, HC_WDH_CODES, HC_DCELL, HC_LK_SLOT, HC_GSIZE, HC_GCOMPACT, HC_POP) = range(23)
HC_SLOTS = 23
# Scratch for linear conflicts: a line of up to 36 goal positions, then their LIS lengths.
LINE_CONFLICT_BUF = 72


# ---------------------------------------------------------------- the registry
#
# Every heuristic is registered here once. The CLI's --heuristic choices, `solve`'s
# docstring, the searches and the tests all read REGISTRY; the kernels branch on `code`
# (`scratch_heuristic` evaluates every registered code from scratch; IDA* and A* keep
# per-move updates for some codes and evaluate any other from scratch, never as 0).

class HeuristicSpec(NamedTuple):
    """One registered heuristic."""

    name: str  # the --heuristic / heuristic= name
    code: int  # the kind the kernels branch on (slot HC_KIND of the context)
    doc: str  # one line: the idea and its source
    # Its pure-Python twin in tests/puzzle/: "module:function"; a twin in puzzle_naive takes
    # (state, goal, rows, cols) and must return the kernel's value on every state.
    naive: str
    tables: str = ""  # the tables `solver.heuristic_context` builds: "", "pdb", "pdb-max", "walking"
    # A user's heuristic (`register_heuristic` with a function): its njit evaluate(cells, goal,
    # rows, cols) and optional update(h, cells, goal, rows, cols, tile, src, dst), and where it
    # came from ("function" or the entry point's package). Built-ins have None.
    evaluate: object = None
    update: object = None
    origin: str = "fastsnake"


REGISTRY: dict[str, HeuristicSpec] = {}
# Kind codes of users' heuristics start here; the kernels take them to their `child_heuristic`.
USER_CODE_BASE = 100
ENTRY_POINT_GROUP = "fastsnake.heuristics"
_lock = threading.RLock()
_entry_points: dict | None = None  # name -> EntryPoint, discovered once


class UserHeuristicError(PuzzleInputError):
    """A user's heuristic that cannot be used: not njit, fails to import, returns a negative
    value or raises (a ValueError, as every PuzzleInputError)."""


def register_heuristic(name: str, h, update=None, doc: str = "", naive: str = "", tables: str = "",
                       *, origin: str = "function") -> int:
    """Add a heuristic to REGISTRY; returns its kind code.

    A user's heuristic: ``register_heuristic(name, h, update=None, doc="")`` where `h` is a
    numba ``@njit`` function ``h(cells, goal, rows, cols) -> int`` (``cells[i]`` the tile on cell
    i, 0 the blank; ``goal[t]`` tile t's goal cell) and `update`, optional, an ``@njit``
    ``update(h, cells, goal, rows, cols, tile, src, dst) -> int``: the value after `tile` moved
    from cell `src` to cell `dst` (`cells` already shows the move). The searches then run copies
    of their kernels with these functions inlined (`fastsnake.puzzle.user_kernels`).

    The built-ins' form ``register_heuristic(name, code, doc, naive, tables)`` (an int code the
    kernels branch on) is the module's own.
    """
    with _lock:
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
            from importlib.metadata import entry_points

            found: dict = {}
            for ep in entry_points(group=ENTRY_POINT_GROUP):
                found.setdefault(ep.name, ep)
            _entry_points = found
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


H_ZERO = register_heuristic("zero", 0, "0 everywhere: uniform-cost search (algorithm bfs)")
H_MISPLACED = register_heuristic("misplaced", 1, "tiles not on their goal cell", "puzzle_naive:misplaced")
H_MANHATTAN = register_heuristic("manhattan", 2, "sum of the tiles' row and column distances", "puzzle_naive:manhattan")
H_LINEAR = register_heuristic("linear-conflict", 3, "Manhattan + 2 per tile to lift out of its goal "
                              "row or column (Hansson, Mayer & Yung 1992)", "puzzle_naive:linear_conflict")
H_WALKING = register_heuristic("walking-distance", 4, "walking distance: BFS over rows' and columns' "
                               "tile counts (Takahashi)", "puzzle_naive:walking_distance", tables="walking")
H_PDB = register_heuristic("pdb", 5, "additive disjoint pattern databases, max with the board's "
                           "symmetric lookups (Korf & Felner 2002)", "puzzle_naive_pdb:pattern_distances", tables="pdb")
H_PDB_MAX = register_heuristic("pdb-max", 6, "the max of several additive PDB partitions, each with "
                               "its symmetric lookups (5x5: two 6-6-6-6; Holte et al. 2006)",
                               "puzzle_naive_pdb:pattern_distances", tables="pdb-max")
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


def check_evaluable(hc, search: str, copied: bool = False) -> None:
    """Raise UnknownHeuristicError unless the kernels evaluate the context's kind: the
    searches call this before they start, so no kind is ever searched as h = 0. A user's
    kind is evaluated only by the kernels' copies made for it (`copied`)."""
    kind = int(hc[HC_KIND])
    if kind not in {s.code for s in REGISTRY.values()}:
        raise UnknownHeuristicError(f"{search}: heuristic code {kind} is not registered")
    if is_user_kind(kind):
        if not copied:
            raise UnknownHeuristicError(f"{search}: heuristic code {kind} is a user's: search it with the "
                                        "kernels `fastsnake.puzzle.user_kernels.kernels_of` makes")
        return  # `user_kernels.kernels_of` probed it
    n = int(hc[HC_ROWS]) * int(hc[HC_COLS])
    goal = np.zeros(n, np.int8)
    goalpos = np.asarray(hc[HC_GOALPOS])
    goal[goalpos[1:]] = np.arange(1, n, dtype=np.int8)
    if int(_h_full(goal, hc)) < 0:
        raise UnknownHeuristicError(f"{search}: heuristic code {kind} has no branch in scratch_heuristic")


class WalkingTable(NamedTuple):
    """One direction's walking-distance table (`fastsnake.puzzle.walking` builds them).

    BFS distance per state, successor ids, sorted state codes.
    """

    dist: np.ndarray  # uint8, per state id
    next: np.ndarray  # int32, next[(id*2 + dir)*L + goal line], -1 where the move is impossible
    codes: np.ndarray  # uint64, sorted: the id of a code is its position


def _empty_wd():
    return WalkingTable(np.zeros(1, np.uint8), np.full(1, -1, np.int32), np.zeros(1, np.uint64))


def build_context(kind: int, rows: int, cols: int, goal, pdb=None, wd=None):
    """The heuristic context tuple for `kind` on this board and goal.

    `pdb` is a `fastsnake.puzzle.pdb.PdbSet` (needed for H_PDB), `wd` a pair of
    walking-distance tables from `fastsnake.puzzle.walking` (needed for H_WALKING).
    """
    n = rows * cols
    goal = np.asarray(goal, dtype=np.int8)
    goalpos = np.empty(n, np.int16)
    goalpos[goal] = np.arange(n, dtype=np.int16)
    cells = np.arange(n)
    md = np.zeros(n * n, np.int16)
    for t in range(1, n):
        g = int(goalpos[t])
        md[t * n:(t + 1) * n] = np.abs(cells // cols - g // cols) + np.abs(cells % cols - g % cols)
    if pdb is not None:
        (tables, offsets, lk_grp, lk_mult, lk_cell, nlk, ngroups, lk_slot, gsize,
         gcompact) = pdb.lookup_arrays(goal)
    else:
        tables = np.zeros(1, np.uint8)
        offsets = np.zeros(1, np.int64)
        lk_grp = np.full(n, -1, np.int8)
        lk_mult = np.zeros(n, np.int64)
        lk_cell = np.zeros(n, np.int16)
        lk_slot = np.zeros(n, np.int64)
        gsize = np.zeros(1, np.int64)
        gcompact = np.zeros(1, np.bool_)
        nlk, ngroups = 0, 0
    # Read-only always: tables memory-mapped from the PDB cache (and the batch workers' maps)
    # are, and one array type for every context keeps each search kernel compiled once.
    tables = tables.view()
    tables.flags.writeable = False
    wdv, wdh = wd if wd is not None else (_empty_wd(), _empty_wd())
    dcell = np.zeros(max(4 * nlk, 4), np.int64)
    for l in range(nlk):
        sym = lk_cell[l * n:(l + 1) * n].astype(np.int64)
        for m, (dr, dc) in enumerate(((-1, 0), (1, 0), (0, -1), (0, 1))):
            # Blank move m: the tile goes from blank+delta to blank, i.e. shifts by -delta.
            pairs = [(r * cols + c, (r + dr) * cols + c + dc) for r in range(rows) for c in range(cols)
                     if 0 <= r + dr < rows and 0 <= c + dc < cols]
            shifts = {int(sym[b] - sym[a]) for b, a in pairs}
            if len(shifts) > 1:
                raise AssertionError("a PDB lookup map is not a board symmetry")
            dcell[l * 4 + m] = shifts.pop() if shifts else 0
    return (np.int64(kind), np.int64(rows), np.int64(cols), goalpos, md,
            tables, offsets, lk_grp, lk_mult, lk_cell, np.int64(nlk), np.int64(ngroups),
            wdv.dist, wdv.next, wdv.codes, wdh.dist, wdh.next, wdh.codes, dcell, lk_slot, gsize, gcompact,
            popcount16_table() if pdb is not None else np.zeros(1, np.uint8))


@njit(cache=True)
def line_conflicts(board, goalpos, rows, cols, line, is_row, buf):
    """Tiles to lift out of one row/column so the rest of its home tiles are in order.

    Counts k - LIS over the tiles of the line whose goal is in this line (by goal
    column for a row, goal row for a column); each lifted tile costs 2 moves that
    Manhattan distance does not count. `buf` is scratch of LINE_CONFLICT_BUF int64.
    """
    length = cols if is_row else rows
    k = 0
    for i in range(length):
        cell = line * cols + i if is_row else i * cols + line
        t = board[cell]
        if t == 0:
            continue
        g = goalpos[t]
        if is_row:
            if g // cols == line:
                buf[k] = g % cols
                k += 1
        else:
            if g % cols == line:
                buf[k] = g // cols
                k += 1
    if k < 2:
        return 0
    longest = 0
    for i in range(k):
        b = 1
        for j in range(i):
            if buf[j] < buf[i] and buf[36 + j] + 1 > b:
                b = buf[36 + j] + 1
        buf[36 + i] = b
        if b > longest:
            longest = b
    return k - longest


@njit(cache=True)
def walking_code(board, goalpos, rows, cols, along_rows):
    """Walking-distance state code: counts[line][goal line] (last goal line dropped), blank line.

    `along_rows` = True groups tiles by row (the vertical walking distance).
    """
    nl = rows if along_rows else cols
    width = cols if along_rows else rows
    counts = np.zeros(36, np.int64)
    blank_line = 0
    for cell in range(rows * cols):
        t = board[cell]
        line = cell // cols if along_rows else cell % cols
        if t == 0:
            blank_line = line
            continue
        g = goalpos[t]
        gl = g // cols if along_rows else g % cols
        counts[line * nl + gl] += 1
    code = np.uint64(0)
    base = np.uint64(width + 1)
    for line in range(nl):
        for gl in range(nl - 1):
            code = code * base + np.uint64(counts[line * nl + gl])
    return code * np.uint64(nl) + np.uint64(blank_line)


@njit(cache=True)
def walking_index(codes, code):
    """Index of `code` in the sorted walking-distance `codes`, or -1 when absent."""
    i = np.searchsorted(codes, code)
    if i < len(codes) and codes[i] == code:
        return i
    return -1


@njit(cache=True)
def pdb_cells(board, n, lk_grp, lk_slot, lk_cell, nlk, ngroups, pc):
    """pc[(l*G + g)*MAX_GROUP + slot] = the mirrored cell of each group tile, per lookup."""
    for l in range(nlk):
        for cell in range(n):
            t = board[cell]
            if t != 0:
                g = lk_grp[l * n + t]
                pc[(l * ngroups + g) * MAX_GROUP + lk_slot[l * n + t]] = lk_cell[l * n + cell]


@njit(cache=True)
def _pdb_h(board, n, pdb, p_off, lk_grp, lk_mult, lk_cell, nlk, ngroups, idx, hl,
           lk_slot, gsize, gcompact, pop, pc):
    """Fill idx[l*G + g] and hl[l] from scratch; return max over lookups. `pc` is
    scratch of nlk*G*MAX_GROUP cells (left holding the mirrored cells)."""
    pdb_cells(board, n, lk_grp, lk_slot, lk_cell, nlk, ngroups, pc)
    best = 0
    used = np.zeros(max(ngroups, 1), np.bool_)
    for l in range(nlk):
        # The groups of this lookup's partition (pdb-max: a lookup uses some groups only).
        used[:] = False
        for t in range(1, n):
            used[lk_grp[l * n + t]] = True
        for g in range(ngroups):
            idx[l * ngroups + g] = 0
            if gcompact[g] and used[g]:
                idx[l * ngroups + g] = group_rank(pc, (l * ngroups + g) * MAX_GROUP, gsize[g], n, pop)
        for cell in range(n):
            t = board[cell]
            if t == 0:
                continue
            g = lk_grp[l * n + t]
            if not gcompact[g]:
                idx[l * ngroups + g] += lk_cell[l * n + cell] * lk_mult[l * n + t]
        s = 0
        for g in range(ngroups):
            if used[g]:
                s += pdb[p_off[g] + idx[l * ngroups + g]]
        hl[l] = s
        if s > best:
            best = s
    return best


@njit(cache=True)
def _h_full(board, hc):
    """The heuristic value of `board` computed from scratch."""
    nlk = hc[HC_NLK]
    ngroups = hc[HC_NGROUPS]
    idx = np.empty(max(nlk * ngroups, 1), np.int64)
    hl = np.empty(max(nlk, 1), np.int64)
    buf = np.empty(LINE_CONFLICT_BUF, np.int64)
    return scratch_heuristic(board, hc, idx, hl, buf)


@njit(cache=True)
def scratch_heuristic(board, hc, idx, hl, buf):
    """The heuristic value of `board` from scratch; PDB lookups use the scratch idx/hl
    (left holding this board's per-lookup indices and sums), linear conflicts `buf`."""
    kind = hc[HC_KIND]
    rows = hc[HC_ROWS]
    cols = hc[HC_COLS]
    goalpos = hc[HC_GOALPOS]
    md = hc[HC_MD]
    n = rows * cols
    if kind == H_ZERO:
        return 0
    if kind == H_MISPLACED:
        h = 0
        for cell in range(n):
            t = board[cell]
            if t != 0 and goalpos[t] != cell:
                h += 1
        return h
    if kind == H_MANHATTAN or kind == H_LINEAR:
        h = 0
        for cell in range(n):
            h += md[board[cell] * n + cell]
        if kind == H_LINEAR:
            for r in range(rows):
                h += 2 * line_conflicts(board, goalpos, rows, cols, r, True, buf)
            for c in range(cols):
                h += 2 * line_conflicts(board, goalpos, rows, cols, c, False, buf)
        return h
    if kind == H_WALKING:
        iv = walking_index(hc[HC_WDV_CODES], walking_code(board, goalpos, rows, cols, True))
        ih = walking_index(hc[HC_WDH_CODES], walking_code(board, goalpos, rows, cols, False))
        return np.int64(hc[HC_WDV_DIST][iv]) + np.int64(hc[HC_WDH_DIST][ih])
    if kind != H_PDB and kind != H_PDB_MAX:
        return -1  # not evaluated here: `check_evaluable` refuses it before any search
    # The cells scratch reuses `buf` when it is big enough (A* calls this per node).
    need = max(hc[HC_NLK] * hc[HC_NGROUPS] * MAX_GROUP, 1)
    pc = buf if need <= len(buf) else np.empty(need, np.int64)
    return _pdb_h(board, n, hc[HC_PDB], hc[HC_PDB_OFF], hc[HC_LK_GRP], hc[HC_LK_MULT], hc[HC_LK_CELL],
                  hc[HC_NLK], hc[HC_NGROUPS], idx, hl, hc[HC_LK_SLOT], hc[HC_GSIZE], hc[HC_GCOMPACT],
                  hc[HC_POP], pc)


@njit(cache=True, inline="always")
def child_heuristic(board, hc, idx, hl, buf, h, tile, src, dst):
    """h of the child in which `tile` moved from cell `src` to cell `dst` (the blank), for the kinds
    the search kernels do not update themselves: from scratch on the child (`board` is left as it
    was). A user's heuristic replaces this function in its copies of the kernels
    (`fastsnake.puzzle.user_kernels`), with its own update."""
    board[dst] = tile
    board[src] = 0
    nh = scratch_heuristic(board, hc, idx, hl, buf)
    board[src] = tile
    board[dst] = 0
    return nh


# The largest value a heuristic may take: A* keys nodes by 16-bit h.
MAX_H = 32767


def user_value(spec: HeuristicSpec, board, hc) -> int:
    """A user's heuristic on `board` (called from Python), checked: an int in 0..MAX_H."""
    try:
        value = spec.evaluate(board, hc[HC_GOALPOS], hc[HC_ROWS], hc[HC_COLS])
    except Exception as exc:  # the user's code: whatever it raises is reported as its failure
        raise UserHeuristicError(f"heuristic {spec.name!r} raised {type(exc).__name__}: {exc}".splitlines()[0]
                                 ) from None
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise UserHeuristicError(f"heuristic {spec.name!r} returned {value!r}, not an int")
    if not 0 <= int(value) <= MAX_H:
        raise UserHeuristicError(f"heuristic {spec.name!r} returned {int(value)} on "
                                 f"{' '.join(map(str, np.asarray(board).tolist()))}: it must be 0..{MAX_H}")
    return int(value)


def user_failure(hc, exc: Exception) -> UserHeuristicError:
    """The error a search raises when a user's heuristic raised (or left 0..MAX_H) inside a kernel."""
    spec = spec_of_kind(hc[HC_KIND])
    name = spec.name if spec is not None else f"code {int(hc[HC_KIND])}"
    return UserHeuristicError(f"heuristic {name!r} failed during the search: {type(exc).__name__}: "
                              f"{exc}".splitlines()[0])


def root_value(board, hc, idx, hl) -> int:
    """The heuristic's value of a search's start (the PDB's idx/hl are left describing it)."""
    if is_user_kind(hc[HC_KIND]):
        return user_value(spec_of_kind(hc[HC_KIND]), np.asarray(board, dtype=np.int8), hc)
    return int(scratch_heuristic(board, hc, idx, hl, np.zeros(LINE_CONFLICT_BUF, np.int64)))


def heuristic_value(board, ctx) -> int:
    if is_user_kind(ctx[HC_KIND]):
        return user_value(spec_of_kind(ctx[HC_KIND]), np.asarray(board, dtype=np.int8), ctx)
    return int(_h_full(np.asarray(board, dtype=np.int8), ctx))
