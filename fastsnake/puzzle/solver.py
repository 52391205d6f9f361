"""`solve`: validate a start/goal pair, pick algorithm and heuristic, run the search."""

from __future__ import annotations

import math
import threading
import time
from dataclasses import asdict, dataclass, field

import numpy as np

from fastsnake.errors import FastsnakeWarning
from fastsnake.puzzle import board as B
from fastsnake.puzzle import prune as PR
from fastsnake.puzzle.astar import A_BUDGET, A_EXHAUSTED, A_FOUND, A_GROW, AStarSearch
from fastsnake.puzzle.heuristic import UserHeuristicError, goal_changed
from fastsnake.puzzle.heuristics import REGISTRY, context_of, heuristic_code, heuristic_value, search_parts
from fastsnake.puzzle.idastar import IDA_BUDGET, IDA_FOUND, IdaSearch
from fastsnake.signals import Deadline, Overtime, within
from fastsnake.sizes import MEMORY_BUDGET_ENV, parse_size
from fastsnake.sizes import memory_budget as memory_budget_of

ALGORITHMS = ("astar", "idastar", "bfs", "reduce")
OPTIMAL_ALGORITHMS = ("astar", "idastar", "bfs")
# Generated nodes before an optimal search gives up (IDA*: 20 s to a few minutes; A* and
# BFS meet the memory budget long before).
DEFAULT_MAX_NODES = 2_000_000_000
# `auto` searches optimally up to this many cells (4x4 with pattern databases: at most
# seconds); above, and when an optimal search stops at a limit, it reduces.
AUTO_OPTIMAL_MAX_CELLS = 16
_ASTAR_CHUNK = 1 << 17
_IDA_CHUNK = 1 << 24


@dataclass
class SolveResult:
    rows: int
    cols: int
    start: list
    goal: list
    solvable: bool
    length: int | None
    moves: str | None
    nodes_generated: int
    nodes_expanded: int
    seconds: float
    algorithm: str
    heuristic: str
    optimal: bool
    status: str  # solved | unsolvable (a limit raises PuzzleLimitError; its `result` has the limit's status)
    h_start: int | None = None
    memory_bytes: int = 0
    iterations: int | None = None
    setup_seconds: float = 0.0
    compile_seconds: float = 0.0  # loading (or compiling) the numba kernels, first solve of a process
    extra: dict = field(default_factory=dict)
    threads: int = 1  # the threads that searched (IDA* with threads=N; every other search: 1)
    # Why a solved result of an optimal search is not said optimal (a user's heuristic not shown
    # admissible: `admissible.vouch` and the checks of its path), else None.
    optimal_reason: str | None = None

    def as_dict(self) -> dict:
        return asdict(self)


class NotProvenOptimal(FastsnakeWarning):
    """An optimal search with a user's heuristic found a path it cannot call optimal (the heuristic
    was seen above a true distance, changed its arguments, or was not checked): the result says
    ``optimal=False`` and ``optimal_reason``; one warning line says why."""


def not_proven_line(reason: str, count: int = 1, length: int | None = None) -> str:
    """The one warning line of results that are not proven optimal."""
    what = (f"length {length}, not proven optimal" if count == 1 and length is not None
            else f"{count:,} result{'s' if count != 1 else ''} not proven optimal")
    return f"{reason}: {what} (optimal=false)"


def choose_algorithm(rows: int, cols: int) -> str:
    # A* keeps every state: fine below 12 cells; IDA* needs no memory beyond.
    return "astar" if rows * cols < 12 else "idastar"


def auto_algorithm(rows: int, cols: int, heuristic: str = "auto") -> str:
    """`auto`: optimal search up to 16 cells (or up to 36 when a heuristic is named),
    `reduce` above."""
    limit = AUTO_OPTIMAL_MAX_CELLS if heuristic == "auto" else B.MAX_CELLS
    return "reduce" if rows * cols > limit else choose_algorithm(rows, cols)


def pdb_auto(rows: int, cols: int, goal, memory_budget=None, progress=None) -> bool:
    """`auto` on 5x5: True when the default pattern databases (6-6-6-6 and its reflection)
    are cached or can be built within the memory budget, so auto searches optimally with
    IDA* instead of reducing; a build to come is announced (on `progress`, else as a
    RuntimeWarning): which tables, where, how long and how big."""
    if not rows == cols == 5:
        return False
    from fastsnake.puzzle import pdb as P

    goal = np.asarray(goal)
    blank_cell = int(np.flatnonzero(goal == 0)[0])
    groups = P.parse_partition(None, rows, cols, goal)
    missing = [g for g in groups if not P.table_path(P.table_key(rows, cols, blank_cell, g)).exists()]
    cached = {i for i, g in enumerate(groups) if g not in missing}
    try:
        need = P.check_budget(rows, cols, groups, "-".join(str(len(g)) for g in groups), memory_budget, cached)
    except P.PdbMemoryError as exc:  # said before anything starts: the budget is the user's
        P.announce(f"auto on {rows}x{cols}: {exc}; solving with reduce instead (a short, not optimal solution)",
                   progress)
        return False
    if missing:
        n = rows * cols
        each = math.perm(n, len(missing[0]))
        cost = P.build_cost(rows, cols, len(missing[0]), len(missing)) or "no build measured yet"
        P.announce(f"auto on {rows}x{cols}: IDA* with pattern databases "
                f"{'-'.join(str(len(g)) for g in groups)}; building the {len(missing)} missing "
                f"table(s) once into {P.cache_dir()} ({cost}; one at a time, {need:,} bytes of memory at "
                f"most with this process, and a {each:,}-byte file each), then expands them once "
                f"into a {sum(n ** len(g) for g in groups):,}-byte file that later loads map", progress)
    return True


def choose_heuristic(rows: int, cols: int) -> str:
    """pdb on 12-16 cells (6-6-3 on 4x4) and on 5x5 (6-6-6-6, built once: minutes of CPU),
    linear-conflict otherwise."""
    n = rows * cols
    if (12 <= n <= 16 and min(rows, cols) >= 2) or rows == cols == 5:
        return "pdb"
    return "linear-conflict"


def prepare(start, goal, rows: int, cols: int, max_cells: int = B.MAX_CELLS):
    """Validated (start, goal) flat boards (int8; int16 above 127 cells); goal None = identity."""
    B.check_size(rows, cols, max_cells)
    start = B.parse_tiles(start, rows, cols, "start", max_cells)
    goal = (B.goal_default(rows, cols) if goal is None
            else B.parse_tiles(goal, rows, cols, "goal", max_cells))
    return start, goal


def heuristic_context(name: str, rows: int, cols: int, goal, partition=None, progress=None,
                      memory_budget=None, mapped: bool | None = None):
    """(context tuple, setup info dict) for a heuristic name (not 'auto'); pattern databases
    that would not fit `memory_budget` (see `fastsnake.sizes.memory_budget`) are refused.
    `mapped` as `pdb.pattern_databases` takes it (None: big sparse sets are memory-mapped)."""
    t0 = time.perf_counter()
    hc, info = context_of(name, rows, cols, goal, partition=partition, progress=progress,
                          memory_budget=memory_budget, mapped=mapped)
    info["setup_seconds"] = time.perf_counter() - t0
    return hc, info


def board_size(start, rows=None, cols=None, size=None) -> tuple[int, int]:
    """(rows, cols) from `size` ("RxC", N or a pair), from rows and cols, or inferred from
    the tiles as the CLI does (the short form "012 345 678", or a square number of tiles)."""
    if size is not None:
        if rows is not None or cols is not None:
            raise B.PuzzleInputError("give either size or rows/cols, not both")
        return parse_size(size, lo=1, hi=B.MAX_SIDE_ANY, error=B.PuzzleInputError)
    if rows is not None and cols is not None:
        return rows, cols
    inferred = B.infer_size(start)
    if (rows is not None and rows != inferred[0]) or (cols is not None and cols != inferred[1]):
        raise B.PuzzleInputError(f"board {start!r} is {inferred[0]}x{inferred[1]}, not rows={rows} cols={cols}")
    return inferred


_WARM: set = set()
_WARM_LOCK = threading.RLock()  # re-entered: warming `reduce` solves its final block with A*


def load_reduce_kernels(ncells: int = 9) -> float:
    """Load (or, with a cold numba cache, compile) reduce's kernels once per process, on a small
    board of the same tile type; the seconds it took (0.0 when they were already loaded). `solve`
    reports them as `compile_seconds`, so `seconds` is the search alone. (The optimal searches'
    kernels are specialised on their heuristic; `_search` loads those.)"""
    key = B.tile_dtype(ncells) == np.int16
    if key in _WARM:
        return 0.0
    with _WARM_LOCK:
        if key in _WARM:
            return 0.0
        t0 = time.perf_counter()
        from fastsnake.puzzle.reduce import solve_reduce

        side = 12 if key else 4  # int16 tiles above 127 cells
        goal = B.goal_default(side, side)
        start = B.random_solvable(side, side, goal, np.random.default_rng(0))
        solve_reduce(start, goal, side, side, _solve_final_block, variants=(0,))
        _WARM.add(key)
        return time.perf_counter() - t0


def limit_message(limit: str, value, result, cli: bool = False) -> str:
    """One line: which optimal search stopped at which limit, and what to do instead.
    `cli` words the advice with the command-line options, else with `solve`'s arguments."""
    what = {"nodes": f"node limit of {value:,} generated nodes",
            "memory": f"memory budget of {value:,} bytes ({result.memory_bytes:,} bytes in use)",
            "time": f"time limit of {value:g} s"}[limit]
    if cli:
        raise_it = {"nodes": "raise --max-nodes", "memory": f"raise --memory-budget (or {MEMORY_BUDGET_ENV})",
                    "time": "raise --time-limit"}[limit]
        other = "--algorithm reduce"
    else:
        raise_it = {"nodes": "raise max_nodes", "memory": f"raise the memory budget ({MEMORY_BUDGET_ENV})",
                    "time": "raise time_limit"}[limit]
        other = "the algorithm 'reduce'"
    name = ("BFS" if result.algorithm == "bfs"
            else f"{_NAMES.get(result.algorithm, result.algorithm)} + {result.heuristic}")
    return (f"{name} stopped at its {what} on a {result.rows}x{result.cols} board before finding a solution "
            f"({result.nodes_generated:,} nodes, {result.seconds:.2f} s): {raise_it}, or use {other} "
            "for a short, not optimal solution")


def _limit_error(limit, value, result):
    return B.PuzzleLimitError(limit_message(limit, value, result), limit=limit, value=value, result=result)


_NAMES = {"astar": "A*", "idastar": "IDA*"}


def _search(start, goal, rows, cols, algorithm, heuristic, max_nodes, max_bytes, deadline, progress,
            context, time_limit=None, partition=None, prune_depth=None, threads=1, whole_last_iteration=False,
            per_iteration=False, clock=None):
    """Run an optimal search on validated, solvable boards. Returns (status, moves or None,
    generated, expanded, memory bytes, iterations, h0, setup seconds, extra info, search seconds);
    status is "solved" or the limit reached ("nodes", "memory", "time"). IDA* with `threads` > 1
    searches each iteration on that many threads (`fastsnake.puzzle.ida_parallel`); `per_iteration`
    puts each iteration's nodes in extra["iterations"] (always with threads > 1) and
    `whole_last_iteration` searches the last one to its end. `clock` (`fastsnake.signals.Deadline`) holds
    the time limit, counted from the caller's start but for building tables and compiling."""
    clock = clock if clock is not None else Deadline(time_limit)
    if context is None:
        with clock.paused():  # building tables is not the search
            hc, info = heuristic_context(heuristic, rows, cols, goal, partition, progress, max_bytes)
    else:
        hc, info = context
    setup = info.get("setup_seconds", 0.0) if context is None else 0.0
    nbr = B.neighbours(rows, cols)
    extra = {k: v for k, v in info.items() if k != "setup_seconds"}
    t_first = time.perf_counter()
    try:
        with within(clock):
            h0 = heuristic_value(start, hc)
            # The kernels specialised on the heuristic (a user's is probed first).
            parts = search_parts(hc, _NAMES.get(algorithm, algorithm))
    except Overtime:  # a user's heuristic that did not return in time
        return "time", None, 0, 0, 0, None, None, setup, extra, time.perf_counter() - t_first
    prune = None
    if algorithm == "idastar":
        depth = PR.prune_depth(rows, cols) if prune_depth is None else prune_depth
        extra["prune_depth"] = depth
        prune = PR.move_pruning(rows, cols, depth)
    # Load (or compile) the kernel with a search of no node, so that `seconds` is the search alone
    # (0.0 when this process had it already).
    run = parts.ida if algorithm == "idastar" else parts.astar
    loaded = len(getattr(run, "signatures", ()))
    c0 = time.perf_counter()
    # `threads`: a number, or a function giving each iteration's (a study's tail: `fastsnake.runs`).
    threaded = algorithm == "idastar" and (callable(threads) or threads > 1)
    if threaded:
        from fastsnake.puzzle.ida_parallel import ParallelIdaSearch

        search = ParallelIdaSearch(start, nbr, hc, h0, parts.ida_state, run, prune=prune, on_error=parts.on_error,
                                   threads=threads)
    elif algorithm == "idastar":
        search = IdaSearch(start, nbr, hc, h0, parts.ida_state, run, prune=prune, on_error=parts.on_error)
    else:
        search = AStarSearch(start, goal, nbr, hc, h0, max_nodes, max_bytes, scratch=parts.astar_scratch, run=run,
                             on_error=parts.on_error)
    with clock.paused():  # a compile is not the search (a signal still stops it)
        search.step(0)
    extra["compile_seconds"] = time.perf_counter() - c0 if len(getattr(run, "signatures", ())) > loaded else 0.0
    t0 = time.perf_counter()
    if clock.at is not None:
        deadline = clock.at
    if np.array_equal(start, goal):
        return "solved", np.zeros(0, np.int8), 0, 0, 0, None, h0, setup, extra, time.perf_counter() - t0
    next_report = t0 + _PROGRESS_EVERY
    label = "bfs" if algorithm == "bfs" else algorithm
    if threaded:
        status = search.run_search(max_nodes, deadline, progress, whole_last_iteration)
        moves = search.moves() if status == "solved" else None
        gen, exp, mem, iters = search.generated, search.expanded, 0, search.iterations
        extra["threads"] = search.threads_used if callable(threads) else threads
        # All the nodes the threads made: past the serial search's count when they went on beyond the
        # first solution (the counters above are the serial search's, to the node).
        extra["nodes_generated_searched"] = search.searched_generated
        extra["iterations"] = [{k: v for k, v in it.items() if not k.startswith("packet_")} for it in search.log]
        extra["last_iteration"] = _last_iteration_words(search.log, whole_last_iteration)
    elif algorithm == "idastar":
        status = None
        log = [] if per_iteration or whole_last_iteration else None
        seen, base, base_exp, bound_was, found, closed = search.iterations, 0, 0, search.bound, None, False
        shown = search.bound
        chunk = 1 << 20
        while status is None:
            left = max_nodes - search.generated
            if left <= 0:
                status = "nodes"
                break
            tc = time.perf_counter()
            step = min(chunk, left)
            if deadline is not None and search.generated:
                # No chunk runs far past the deadline: at most what the rate so far allows.
                rate = search.generated / max(tc - t0, 1e-6)
                step = max(1 << 14, min(step, int(rate * max(deadline - tc, 0.0)) + 1))
            try:
                with within(clock):
                    code = search.step(step)
            except Overtime:  # a step that did not return by the deadline (a user's heuristic)
                status = "time"
                break
            now = time.perf_counter()
            if now - tc < 0.1 and chunk < _IDA_CHUNK:
                chunk *= 2  # slow heuristics get small chunks, so time limits hold
            if log is not None and search.iterations != seen:  # an iteration ended in this step
                log.append({"bound": bound_was, "nodes_generated": search.generated - base,
                            "nodes_expanded": search.expanded - base_exp, "complete": True})
                seen, base, base_exp, bound_was = search.iterations, search.generated, search.expanded, search.bound
                if found is not None:  # whole_last_iteration: the iteration of the solution is done
                    status, closed = "solved", True
                    break
            if code == IDA_FOUND and whole_last_iteration:
                found = search.moves() if found is None else found  # the first solution; search on to the end
            elif code == IDA_FOUND:
                status = "solved"
            elif code != IDA_BUDGET:  # bound ran past every f: cannot happen for solvable input
                raise _exhausted(heuristic)
            elif deadline is not None and now > deadline:
                status = "time"
            elif progress is not None and (search.bound != shown or now > next_report):
                shown = search.bound
                next_report = now + _PROGRESS_EVERY
                progress(f"idastar: bound {search.bound}, {search.generated:,} nodes so far, "
                         f"{now - t0:.0f} s (node limit {max_nodes:,})")
        if found is not None:  # the solution of an iteration searched to its end (or to a limit after it)
            status, moves = "solved", found
        else:
            moves = search.moves() if status == "solved" else None
        gen, exp, mem, iters = search.generated, search.expanded, 0, search.iterations
        if log is not None:
            if not closed:  # the last iteration, to its solution or to a limit
                log.append({"bound": bound_was, "nodes_generated": search.generated - base,
                            "nodes_expanded": search.expanded - base_exp, "complete": False})
            iters = len(log)
            extra["iterations"] = log
            extra["last_iteration"] = _last_iteration_words(log, whole_last_iteration)
        extra["bound"] = search.bound
    else:
        status = None
        while status is None:
            # Each expansion generates at most 4 nodes: never pass max_nodes.
            left = (max_nodes - search.generated) // 4
            if left <= 0:
                status = "nodes"
                break
            try:
                with within(clock):
                    code = search.step(min(_ASTAR_CHUNK, left))
            except Overtime:  # a step that did not return by the deadline (a user's heuristic)
                status = "time"
                break
            if code == A_FOUND:
                status = "solved"
            elif code == A_EXHAUSTED:
                raise _exhausted(heuristic)
            elif code == A_GROW and not search.grow():
                status = "memory"
            elif code == A_BUDGET:
                now = time.perf_counter()
                if deadline is not None and now > deadline:
                    status = "time"
                elif progress is not None and now > next_report:
                    next_report = now + _PROGRESS_EVERY
                    progress(f"{label}: {search.generated:,} nodes so far, {search.nodes:,} stored in "
                             f"{search.memory_bytes() / 2**20:,.0f} MiB, {now - t0:.0f} s (node limit "
                             f"{max_nodes:,}, memory budget {max_bytes / 2**20:,.0f} MiB)")
        moves = search.moves() if status == "solved" else None
        gen, exp, mem, iters = search.generated, search.expanded, search.memory_bytes(), None
    if status == "solved" and REGISTRY[heuristic].impl is None:
        try:
            with within(clock):
                reason = _path_doubt(heuristic, hc, start, goal, moves, rows, cols)
        except Overtime:
            reason = f"heuristic {heuristic!r} did not return in time on a state of its path"
        if reason is not None:
            extra["path_doubt"] = reason
    return status, moves, gen, exp, mem, iters, h0, setup, extra, time.perf_counter() - t0


def _last_iteration_words(log: list, whole: bool) -> str:
    """What the last iteration's node count is: the whole iteration, or the serial search's nodes to
    its first solution (the same with any threads), or those until a limit stopped it."""
    if log and log[-1]["complete"]:
        return "whole"
    return "to first solution" if not whole else "to a limit"


def _exhausted(heuristic: str) -> Exception:
    """A search that ran out of states on a solvable instance: a user's heuristic that changes its
    arguments can do that (bad input, one line); with a built-in it is a bug of ours."""
    if REGISTRY[heuristic].impl is None:
        return UserHeuristicError(f"heuristic {heuristic!r} made the search end without reaching the goal of a "
                                  "solvable instance (does it write into its arguments?)")
    return AssertionError("search exhausted a solvable instance")  # a bug of ours


def _path_doubt(heuristic, hc, start, goal, moves, rows, cols) -> str | None:
    """Why the path a search with a user's heuristic found is not proven optimal, or None: the
    heuristic changed the goal it was given during the search, or is above the true distance on a
    state of the path (at most the moves left from it). A path that does not reach the goal (the
    heuristic wrote into the search's board) is an error (UserHeuristicError)."""
    from fastsnake.puzzle.heuristics import user_value_checked

    changed = goal_changed(hc)
    nbr = B.neighbours(rows, cols)
    board = np.array(start, np.int8)
    blank = int(np.flatnonzero(board == 0)[0])
    states = [board.copy()]
    for m in moves:
        a = int(nbr[blank * 4 + int(m)])
        if a < 0:
            break
        board[blank], board[a] = board[a], 0
        blank = a
        states.append(board.copy())
    if len(states) != len(moves) + 1 or not np.array_equal(states[-1], goal):
        raise UserHeuristicError(f"heuristic {heuristic!r} corrupted the search: the path it found does not reach "
                                 "the goal (does it write into its cells argument?)")
    if changed:
        return f"heuristic {heuristic!r} changed its goal argument during the search"
    spec = REGISTRY[heuristic]
    for k, state in enumerate(states):
        h, what = user_value_checked(spec, state, hc)
        if what is not None:
            return f"heuristic {heuristic!r} changes its {what} argument (on a state of its path)"
        if h > len(moves) - k:
            return (f"heuristic {heuristic!r} is not admissible: h = {h} on a state of its path "
                    f"{len(moves) - k} moves from the goal")
    return None


def solve(start, goal=None, *, rows: int | None = None, cols: int | None = None, size=None,
          algorithm: str = "auto", heuristic: str = "auto", max_nodes: int = DEFAULT_MAX_NODES,
          time_limit: float | None = None, memory_budget=None, partition=None, progress=None,
          context=None, prune_depth: int | None = None, threads: int = 1, whole_last_iteration: bool = False,
          per_iteration: bool = False, admissibility_samples: int | None = None, warn: bool = True) -> SolveResult:
    """Find a shortest sequence of blank moves from `start` to `goal` (or, with
    algorithm="reduce", a short one on boards up to 100x100).

    `start`/`goal` are strings ("1 2 3 …", "1,2,…" or "012 345 678") or sequences; the
    board size is `size`, or `rows` and `cols`, or inferred from `start` as the CLI does
    (the short form gives its shape, any other list of R*R tiles a square board).
    `algorithm`: astar | idastar | bfs | reduce | auto; `heuristic`: HEURISTIC_BARS | auto
    (ignored by bfs and reduce; one line each in `fastsnake.puzzle.heuristics.REGISTRY`).
    The optimal searches stop at `max_nodes` generated nodes (default 2,000,000,000), at
    the memory budget (A* and BFS: the nodes, hash table and heap they store; default
    2 GiB, else `memory_budget` or the FASTSNAKE_MEMORY_BUDGET environment variable) or
    after `time_limit` seconds, and then raise `PuzzleLimitError` (a `SearchLimitError`)
    naming the limit; its `result` holds the node counts so far.
    `auto` searches optimally on boards of at most 16 cells (A* below 12 cells, IDA*
    from 12; up to 36 cells when `heuristic` is named), on 5x5 with IDA* and the 6-6-6-6
    pattern databases when they are cached or fit the memory budget to build (`pdb_auto`,
    which announces a build), and reduces above, or when the optimal
    search stops at one of its limits (then `optimal` is False and `extra["fallback"]` names the limit).
    Unsolvable pairs are answered by the parity rule without searching.
    `context` reuses a `heuristic_context(...)` result (it must match the goal).
    IDA* skips move strings that reach a position an earlier string reaches
    (`fastsnake.puzzle.prune`: every optimal length is kept); `prune_depth` is the longest
    such string (default by board size, `extra["prune_depth"]`; 0: only never undoing a move).
    `seconds` is the search alone: loading the compiled kernels (first call in a process)
    is `compile_seconds`, loading or building heuristic tables `setup_seconds`.
    `threads` > 1 searches each IDA* iteration on that many threads (parallel IDA*,
    `fastsnake.puzzle.ida_parallel`; at most the cores this process may use): the same moves as
    one thread and the same nodes, to the node, in every iteration (the last one's to its first
    solution, or whole with `whole_last_iteration`; what the threads searched past the solution is
    ``extra["nodes_generated_searched"]``); `extra["iterations"]` lists each iteration's bound and
    nodes (with one thread too when `per_iteration`). A*, BFS and reduce run on one thread
    (``result.threads`` says how many searched).
    `time_limit` counts from the call, but for building tables and compiling: a user's heuristic
    that does not return is left running on its thread when it passes (the limit's error follows).

    "Optimal" is said only where it is known: the built-in heuristics are admissible by
    construction; a user's heuristic is first sampled on `admissibility_samples` states of the
    board (default 40, once a process per board and goal: `admissible.vouch`), each compared
    with its true distance and checked for writing into its arguments, and its path is checked
    after the search (the heuristic at most the moves left on every state of it, the goal it was
    given unchanged). Anything seen against it makes a solved result ``optimal=False`` with
    ``optimal_reason`` saying why (and a `NotProvenOptimal` warning, unless `warn` is False);
    ``extra["admissibility"]`` says what was checked.

    Parameters
    ----------
    start : str or sequence of int
        The start board (see `parse_tiles`).
    goal : str or sequence of int, optional
        The goal board; default the identity, blank top-left.
    rows, cols : int, optional
        Board size (default: inferred from `start`).
    size : str, int or (int, int), optional
        Board size as "RxC", N or (rows, cols), instead of rows and cols.
    algorithm : {"auto", "astar", "idastar", "bfs", "reduce"}, optional
    heuristic : {"auto", HEURISTIC_SET}, optional
    max_nodes : int, optional
        Limit on generated nodes of the optimal searches (default 2,000,000,000).
    time_limit : float, optional
        Seconds before any search stops.
    memory_budget : int or str, optional
        Bytes A*/BFS may store ("512M", "4G"); default FASTSNAKE_MEMORY_BUDGET or 2 GiB.
    partition : str, optional
        Pattern-database partition ("5-5-5", "6-6-3", "7-8" or explicit tile groups).
    progress : callable, optional
        Called with progress lines while pattern databases are built and, every few
        seconds, during a long search.
    context : optional
        A `heuristic_context(...)` result to reuse.
    prune_depth : int, optional
        IDA*'s longest pruned duplicate move string.
    threads : int or callable, optional
        Threads of one IDA* search (default 1; 1..the cores allowed), or a function called
        with no argument at the start of every iteration that gives that iteration's threads
        (``result.threads`` is then the most any iteration used). The moves and node counts
        are the same whatever the threads.
    whole_last_iteration : bool, optional
        IDA*: search the last iteration to its end after its first solution (its node count is
        then the whole iteration's; the moves are still the first solution's).
    per_iteration : bool, optional
        IDA*: each iteration's bound and nodes in ``extra["iterations"]`` (always with threads > 1).
    admissibility_samples : int, optional
        States a user's heuristic is sampled on before it may be called optimal (default 40;
        0: not checked, so its results are not optimal).
    warn : bool, optional
        Warn (`NotProvenOptimal`, one line) when a solved result is not proven optimal.

    Returns
    -------
    SolveResult
        ``moves`` (letters U D L R, ``None`` when unsolvable), ``length``, ``optimal``,
        ``status``, node counts, ``seconds`` and the algorithm and heuristic used.

    Raises
    ------
    PuzzleInputError
        A bad board, size, algorithm, heuristic or limit.
    PuzzleLimitError
        (a PuzzleInputError and a `fastsnake.sizes.SearchLimitError`) An optimal search
        (not `auto`) stopped at its node, memory or time limit.

    Examples
    --------
    >>> r = solve("012 345 678", "806 547 231")
    >>> r.length, r.optimal, r.algorithm, (r.rows, r.cols)
    (31, True, 'astar', (3, 3))
    """
    if algorithm not in ALGORITHMS and algorithm != "auto":
        raise B.PuzzleInputError(f"algorithm {algorithm!r} is not one of {', '.join(ALGORITHMS)}, auto")
    if prune_depth is not None:
        PR.check_depth(prune_depth)
    threads = check_threads(threads)
    if algorithm in ("astar", "bfs", "reduce") and (callable(threads) or threads > 1):
        raise B.PuzzleInputError(f"threads={threads}: only IDA* searches on several threads, not {algorithm}")
    rows, cols = board_size(start, rows, cols, size)
    big = algorithm in ("reduce", "auto")
    start, goal = prepare(start, goal, rows, cols, B.MAX_CELLS_ANY if big else B.MAX_CELLS)
    auto = algorithm == "auto"
    if auto:
        algorithm = auto_algorithm(rows, cols, heuristic)
        if (algorithm == "reduce" and heuristic == "auto" and context is None
                and B.is_solvable(start, goal, rows, cols) and pdb_auto(rows, cols, goal, memory_budget, progress)):
            algorithm = "idastar"  # 5x5: optimal with the 6-6-6-6 tables, reduce if a limit stops it
        elif algorithm == "reduce" and heuristic == "auto" and context is not None and rows == cols == 5:
            algorithm = "idastar"  # the caller's tables (solve_many) were chosen by pdb_auto
    if time_limit is not None and not (isinstance(time_limit, (int, float)) and time_limit > 0
                                       and math.isfinite(time_limit)):
        raise B.PuzzleInputError(f"time_limit {time_limit!r} must be a positive number of seconds")
    if algorithm == "reduce":
        compile_seconds = load_reduce_kernels(rows * cols)
        out = _solve_reduce(start, goal, rows, cols)
        out.compile_seconds = compile_seconds
        return out
    if algorithm == "bfs":
        heuristic = "zero"
    elif heuristic == "auto":
        heuristic = choose_heuristic(rows, cols)
    else:
        heuristic_code(heuristic)
    if isinstance(max_nodes, bool) or not isinstance(max_nodes, (int, np.integer)) or max_nodes < 16:
        raise B.PuzzleInputError(f"max_nodes {max_nodes!r} must be an integer of at least 16")
    max_bytes = memory_budget_of(memory_budget)
    base = dict(rows=rows, cols=cols, start=start.tolist(), goal=goal.tolist(),
                algorithm=algorithm, heuristic=("none" if heuristic == "zero" else heuristic))
    t_start = time.perf_counter()
    if not B.is_solvable(start, goal, rows, cols):
        return SolveResult(**base, solvable=False, length=None, moves=None, nodes_generated=0,
                           nodes_expanded=0, seconds=time.perf_counter() - t_start,
                           optimal=True, status="unsolvable")
    clock = Deadline(time_limit)
    verdict = None
    status = None
    if REGISTRY[heuristic].impl is None:  # a user's heuristic: sampled before it may say "optimal"
        from fastsnake.puzzle.sampling import DEFAULT_SAMPLES, vouch

        samples = DEFAULT_SAMPLES if admissibility_samples is None else admissibility_samples
        try:
            with within(clock):
                verdict = vouch(heuristic, rows, cols, goal, samples, solve=solve)
        except Overtime:
            status, moves, gen, exp, mem, iters, h0, setup, extra, seconds = (
                "time", None, 0, 0, 0, None, None, 0.0, {}, float(time_limit or 0.0))
    if status is None:
        status, moves, gen, exp, mem, iters, h0, setup, extra, seconds = _search(
            start, goal, rows, cols, algorithm, heuristic, int(max_nodes), max_bytes, None, progress,
            context, time_limit=time_limit, partition=partition, prune_depth=prune_depth,
            threads=threads if algorithm == "idastar" else 1, whole_last_iteration=bool(whole_last_iteration),
            per_iteration=bool(per_iteration), clock=clock)
    # `_search` loaded (or compiled) the kernel specialised on the heuristic.
    compile_seconds = extra.pop("compile_seconds", 0.0)
    searched_by = extra.pop("threads", 1)
    doubt = extra.pop("path_doubt", None)
    reason = None
    if verdict is not None:
        extra["admissibility"] = {k: verdict[k] for k in ("checked", "samples", "method")}
        reason = verdict["reason"] or doubt
    text = "".join(B.MOVES[m] for m in moves) if moves is not None else None
    result = SolveResult(**base, solvable=True, length=(len(text) if text is not None else None),
                         moves=text, nodes_generated=gen, nodes_expanded=exp, seconds=seconds,
                         optimal=(status == "solved" and reason is None), status=_STATUS[status], h_start=h0,
                         memory_bytes=mem, iterations=iters, setup_seconds=setup,
                         compile_seconds=compile_seconds, extra=extra, threads=searched_by,
                         optimal_reason=reason if status == "solved" else None)
    if status == "solved":
        if warn and result.optimal_reason:
            import warnings

            warnings.warn(NotProvenOptimal(not_proven_line(result.optimal_reason, 1, result.length)), stacklevel=2)
        return result
    if auto:
        out = _solve_reduce(start, goal, rows, cols)
        out.nodes_generated += gen
        out.nodes_expanded += exp
        out.seconds += seconds
        out.setup_seconds = setup
        out.compile_seconds = compile_seconds + load_reduce_kernels(rows * cols)
        out.extra["fallback"] = f"{algorithm} + {base['heuristic']}: {_STATUS[status]}"
        return out
    value = {"nodes": int(max_nodes), "memory": max_bytes, "time": time_limit}[status]
    raise _limit_error(status, value, result)


def cores_allowed() -> int:
    """The cores this process may run on (its CPU affinity), at least 1."""
    import os

    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def check_threads(threads):
    """`threads` when it is a whole number from 1 to the cores allowed, or a function (called with no
    argument at the start of every IDA* iteration, giving that iteration's threads: a study's worker
    hands its search the cores its idle neighbours leave), else PuzzleInputError."""
    if callable(threads):
        return threads
    cores = cores_allowed()
    if isinstance(threads, bool) or not isinstance(threads, (int, np.integer)) or threads < 1:
        raise B.PuzzleInputError(f"threads {threads!r} must be a whole number from 1 to {cores} (the cores "
                                 "this process may use)")
    if threads > cores:
        raise B.PuzzleInputError(f"threads {int(threads)} is more than the {cores} core{'s' if cores > 1 else ''} "
                                 "this process may use")
    return int(threads)


def _doc_heuristics(doc: str | None) -> str | None:
    """A docstring with HEURISTIC_SET / HEURISTIC_BARS filled from the registry."""
    names = [n for n in REGISTRY if n != "zero"]
    if doc is None:  # python -OO
        return None
    return (doc.replace("HEURISTIC_SET", ", ".join(f'"{n}"' for n in names))
            .replace("HEURISTIC_BARS", " | ".join(names)))


solve.__doc__ = _doc_heuristics(solve.__doc__)


_STATUS = {"solved": "solved", "nodes": "node limit reached", "memory": "memory limit reached",
           "time": "time limit reached"}
_PROGRESS_EVERY = 5.0  # seconds between progress lines of a long search


def _solve_final_block(start, goal, rows: int, cols: int) -> SolveResult:
    """`reduce`'s last block (at most 3x3), solved optimally."""
    return solve(start, goal, rows=rows, cols=cols, algorithm="astar", heuristic="linear-conflict")


def _solve_reduce(start, goal, rows: int, cols: int) -> SolveResult:
    """`reduce` on validated boards (see `fastsnake.puzzle.reduce`)."""
    from fastsnake.puzzle.reduce import solve_reduce

    t0 = time.perf_counter()
    base = dict(rows=rows, cols=cols, start=start.tolist(), goal=goal.tolist(), algorithm="reduce")
    if not B.is_solvable(start, goal, rows, cols):
        return SolveResult(**base, heuristic="none", solvable=False, length=None, moves=None,
                           nodes_generated=0, nodes_expanded=0, seconds=time.perf_counter() - t0,
                           optimal=True, status="unsolvable")
    text, info = solve_reduce(start, goal, rows, cols, _solve_final_block)
    # Provably optimal only when nothing was reduced: a 1-wide board (the blank's walk is
    # the only way) or a board of at most 3x3 (the final block is the whole board).
    optimal = rows == 1 or cols == 1 or info["reduction_moves"] == 0 and rows <= 3 and cols <= 3
    gen = info.pop("nodes_generated")
    exp = info.pop("nodes_expanded")
    return SolveResult(**base, heuristic=("none" if rows == 1 or cols == 1 else "linear-conflict"),
                       solvable=True, length=len(text), moves=text, nodes_generated=gen,
                       nodes_expanded=exp, seconds=time.perf_counter() - t0, optimal=optimal,
                       status="solved", extra=info)


def parse_instance(item, rows: int, cols: int, max_cells: int = B.MAX_CELLS_ANY):
    """(start, goal or None) of one batch instance: "tiles" or "tiles ; goal tiles" (a
    string), a (start, goal) pair, or a sequence of tiles."""
    if isinstance(item, str):
        start, sep, goal = item.partition(";")
        if ";" in goal:
            raise B.PuzzleInputError(f"instance {item.strip()!r} has more than one ';'")
        goal = goal if sep and goal.strip() else None
        return (B.parse_tiles(start, rows, cols, "start", max_cells),
                None if goal is None else B.parse_tiles(goal, rows, cols, "goal", max_cells))
    if (isinstance(item, tuple) and len(item) == 2
            and not isinstance(item[0], (int, np.integer))):
        start, goal = item
        return (B.parse_tiles(start, rows, cols, "start", max_cells),
                None if goal is None else B.parse_tiles(goal, rows, cols, "goal", max_cells))
    return B.parse_tiles(item, rows, cols, "start", max_cells), None


def solve_many(instances, goal=None, *, rows: int | None = None, cols: int | None = None, size=None,
               algorithm: str = "auto", heuristic: str = "auto", threads: int = 1, errors: str = "raise",
               max_nodes: int = DEFAULT_MAX_NODES, time_limit: float | None = None,
               memory_budget=None, partition=None, progress=None, prune_depth: int | None = None,
               admissibility_samples: int | None = None) -> list:
    """Solve many instances on one board size in one process; results in input order.

    `instances`: strings ("tiles" or "tiles ; goal"), (start, goal) pairs or tile
    sequences; `goal` is the goal of instances that give none (default: identity).
    Heuristic tables (pattern databases, walking distance) are built or loaded once
    per distinct goal and shared. `threads` > 1 solves instances in parallel (the
    search kernels release the GIL); every result is the same whatever `threads` is
    (only `seconds` differ). `errors="raise"` raises the first bad instance's
    PuzzleInputError (prefixed "instance i:", 1-based) before solving anything, and
    stops at the first search that reaches a limit (PuzzleLimitError); `errors="keep"`
    puts that exception in the instance's slot and solves the rest. The board size is
    `size` or `rows`/`cols`, else inferred from the first instance. Other options as `solve`.

    Parameters
    ----------
    instances : iterable
        Strings ("tiles" or "tiles ; goal"), (start, goal) pairs or tile sequences.
    goal : str or sequence of int, optional
        Goal of the instances that give none; default the identity.
    rows, cols, size : optional
        Board size, the same for every instance (default: inferred from the first one).
    threads : int, optional
        Instances solved in parallel.
    errors : {"raise", "keep"}, optional
        Raise on the first bad instance, or keep its exception in its slot.
    algorithm, heuristic, max_nodes, time_limit, memory_budget, partition, progress, prune_depth
        As in `solve`.
    admissibility_samples : int, optional
        As in `solve`: a user's heuristic is sampled once for each goal; results it cannot call
        optimal say why (``optimal_reason``) and one `NotProvenOptimal` warning counts them.

    Returns
    -------
    list
        One `SolveResult` per instance, in input order (or a `PuzzleInputError` with
        ``errors="keep"``).

    Raises
    ------
    PuzzleInputError
        A bad option, or with ``errors="raise"`` a bad instance.

    Examples
    --------
    >>> [r.length for r in solve_many(["1 0 2 3 4 5", "0 1 2 3 4 5 ; 3 4 5 0 1 2"], size="2x3")]
    [1, 21]
    """
    import threading

    from fastsnake.signals import on_daemon_threads

    if errors not in ("raise", "keep"):
        raise B.PuzzleInputError(f"errors {errors!r} is not 'raise' or 'keep'")
    if not isinstance(threads, (int, np.integer)) or threads < 1:
        raise B.PuzzleInputError(f"threads {threads!r} must be a positive integer")
    if algorithm not in ALGORITHMS and algorithm != "auto":
        raise B.PuzzleInputError(f"algorithm {algorithm!r} is not one of {', '.join(ALGORITHMS)}, auto")
    instances = list(instances)
    if rows is None or cols is None or size is not None:
        first = instances[0] if instances else None
        if isinstance(first, str):
            first = first.partition(";")[0]
        elif isinstance(first, tuple) and len(first) == 2 and not isinstance(first[0], (int, np.integer)):
            first = first[0]
        rows, cols = board_size(first, rows, cols, size)
    big = algorithm in ("reduce", "auto")
    max_cells = B.MAX_CELLS_ANY if big else B.MAX_CELLS
    B.check_size(rows, cols, max_cells)
    memory_budget_of(memory_budget)  # a bad budget fails before any instance
    default_goal = (B.goal_default(rows, cols) if goal is None
                    else B.parse_tiles(goal, rows, cols, "goal", max_cells))
    parsed = []
    for i, item in enumerate(instances):
        try:
            start, g = parse_instance(item, rows, cols, max_cells)
            parsed.append((start, default_goal if g is None else g))
        except B.PuzzleInputError as exc:
            err = B.PuzzleInputError(f"instance {i + 1}: {exc}")
            if errors == "raise":
                raise err from None
            parsed.append(err)
    # Which heuristic tables the instances need (the same choice `solve` makes).
    alg = algorithm
    if alg == "auto":
        alg = auto_algorithm(rows, cols, heuristic)
        if alg == "reduce" and heuristic == "auto" and pdb_auto(rows, cols, default_goal, memory_budget, progress):
            alg = "idastar"
    hname = None
    if alg in ("astar", "idastar"):
        hname = choose_heuristic(rows, cols) if heuristic == "auto" else heuristic
        heuristic_code(hname)
    contexts = {}
    lock = threading.Lock()

    def context_for(g):
        if hname is None:
            return None
        key = g.tobytes()
        with lock:
            if key not in contexts:
                contexts[key] = heuristic_context(hname, rows, cols, g, partition, progress, memory_budget)
            return contexts[key]

    def run(i):
        item = parsed[i]
        if isinstance(item, Exception):
            return item
        start, g = item
        try:
            return solve(start, g, rows=rows, cols=cols, algorithm=algorithm, heuristic=heuristic,
                         max_nodes=max_nodes, time_limit=time_limit, memory_budget=memory_budget,
                         partition=partition, context=context_for(g), prune_depth=prune_depth,
                         admissibility_samples=admissibility_samples, warn=False)
        except B.PuzzleLimitError as exc:
            err = B.PuzzleLimitError(f"instance {i + 1}: {exc}", limit=exc.limit, value=exc.value,
                                     result=exc.result)
            if errors == "raise":
                raise err from None
            return err

    if threads == 1 or len(parsed) <= 1:
        out = [run(i) for i in range(len(parsed))]
    else:  # daemon threads: a search left running (a signal, a deadline) never holds the process
        out = on_daemon_threads(run, list(range(len(parsed))), int(threads))
    warn_not_proven(out)
    return out


def warn_not_proven(results) -> None:
    """One `NotProvenOptimal` warning for the results of a batch that are not proven optimal."""
    doubted = [r for r in results if isinstance(r, SolveResult) and r.optimal_reason]
    if doubted:
        import warnings

        warnings.warn(NotProvenOptimal(not_proven_line(doubted[0].optimal_reason, len(doubted),
                                                       doubted[0].length)), stacklevel=3)
