"""`solve`: validate a start/goal pair, pick algorithm and heuristic, run the search."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field

import numpy as np

from fastsnake.puzzle import board as B
from fastsnake.puzzle.astar import A_BUDGET, A_EXHAUSTED, A_FOUND, A_GROW, AStarSearch
from fastsnake.puzzle.heuristics import _LC_BUF, H_PDB, H_WALKING, _h_eval, build_context, heuristic_code
from fastsnake.puzzle.idastar import IDA_BUDGET, IDA_FOUND, IdaSearch

ALGORITHMS = ("astar", "idastar", "bfs", "reduce")
OPTIMAL_ALGORITHMS = ("astar", "idastar", "bfs")
DEFAULT_MAX_NODES = 20_000_000
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
    status: str  # solved | unsolvable | node limit reached | time limit reached
    h_start: int | None = None
    memory_bytes: int = 0
    iterations: int | None = None
    setup_seconds: float = 0.0
    extra: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return asdict(self)


def choose_algorithm(rows: int, cols: int) -> str:
    # A* keeps every state: fine below 12 cells; IDA* needs no memory beyond.
    return "astar" if rows * cols < 12 else "idastar"


def auto_algorithm(rows: int, cols: int, heuristic: str = "auto") -> str:
    """`auto`: optimal search up to 16 cells (or up to 36 when a heuristic is named),
    `reduce` above."""
    limit = AUTO_OPTIMAL_MAX_CELLS if heuristic == "auto" else B.MAX_CELLS
    return "reduce" if rows * cols > limit else choose_algorithm(rows, cols)


def choose_heuristic(rows: int, cols: int) -> str:
    n = rows * cols
    if 12 <= n <= 16 and min(rows, cols) >= 2:
        return "pdb"
    return "linear-conflict"


def prepare(start, goal, rows: int, cols: int, max_cells: int = B.MAX_CELLS):
    """Validated (start, goal) flat boards (int8; int16 above 127 cells); goal None = identity."""
    B.check_size(rows, cols, max_cells)
    start = B.parse_tiles(start, rows, cols, "start", max_cells)
    goal = (B.goal_default(rows, cols) if goal is None
            else B.parse_tiles(goal, rows, cols, "goal", max_cells))
    return start, goal


def heuristic_context(name: str, rows: int, cols: int, goal, partition=None, progress=None):
    """(context tuple, setup info dict) for a heuristic name (not 'auto')."""
    kind = heuristic_code(name)
    info = {}
    pdb = wd = None
    t0 = time.perf_counter()
    if kind == H_PDB:
        from fastsnake.puzzle import pdb as P

        pdb = P.pattern_databases(rows, cols, goal, partition, progress=progress)
        info["pdb"] = pdb.describe()
    elif kind == H_WALKING:
        from fastsnake.puzzle import walking as W

        wd = W.walking_tables(rows, cols, goal)
        info["walking_states"] = [len(wd[0][0]), len(wd[1][0])]
    info["setup_seconds"] = time.perf_counter() - t0
    return build_context(kind, rows, cols, goal, pdb=pdb, wd=wd), info


def solve(start, goal=None, *, rows: int, cols: int, algorithm: str = "auto",
          heuristic: str = "auto", max_nodes: int = DEFAULT_MAX_NODES,
          time_limit: float | None = None, partition=None, progress=None,
          context=None) -> SolveResult:
    """Find a shortest sequence of blank moves from `start` to `goal` (or, with
    algorithm="reduce", a short one on boards up to 100x100).

    `start`/`goal` are strings ("1 2 3 …", "1,2,…" or "012 345 678") or sequences.
    `algorithm`: astar | idastar | bfs | reduce | auto; `heuristic`: misplaced | manhattan |
    linear-conflict | walking-distance | pdb | auto (ignored by bfs and reduce). A* stops
    with status "node limit reached" once it would store more than `max_nodes` states;
    any search stops with "time limit reached" after `time_limit` seconds.
    `auto` searches optimally on boards of at most 16 cells (A* below 12 cells, IDA*
    from 12; up to 36 cells when `heuristic` is named) and reduces above, or when the optimal
    search stops at one of its limits (then `optimal` is False and `extra["fallback"]` names the limit).
    Unsolvable pairs are answered by the parity rule without searching.
    `context` reuses a `heuristic_context(...)` result (it must match the goal).

    Parameters
    ----------
    start : str or sequence of int
        The start board (see `parse_tiles`).
    goal : str or sequence of int, optional
        The goal board; default the identity, blank top-left.
    rows, cols : int
        Board size.
    algorithm : {"auto", "astar", "idastar", "bfs", "reduce"}, optional
    heuristic : {"auto", "misplaced", "manhattan", "linear-conflict", "walking-distance", "pdb"}, optional
    max_nodes : int, optional
        A*'s limit on stored states.
    time_limit : float, optional
        Seconds before any search stops.
    partition : str, optional
        Pattern-database partition ("5-5-5", "6-6-3", "7-8" or explicit tile groups).
    progress : callable, optional
        Called with progress lines while pattern databases are built.
    context : optional
        A `heuristic_context(...)` result to reuse.

    Returns
    -------
    SolveResult
        ``moves`` (letters U D L R, ``None`` when not found), ``length``, ``optimal``,
        ``status``, node counts, ``seconds`` and the algorithm and heuristic used.

    Raises
    ------
    PuzzleInputError
        A bad board, size, algorithm, heuristic or limit.

    Examples
    --------
    >>> r = solve("012 345 678", "806 547 231", rows=3, cols=3)
    >>> r.length, r.optimal, r.algorithm
    (31, True, 'astar')
    """
    if algorithm not in ALGORITHMS and algorithm != "auto":
        raise B.PuzzleInputError(f"algorithm {algorithm!r} is not one of {', '.join(ALGORITHMS)}, auto")
    big = algorithm in ("reduce", "auto")
    start, goal = prepare(start, goal, rows, cols, B.MAX_CELLS_ANY if big else B.MAX_CELLS)
    auto = algorithm == "auto"
    if auto:
        algorithm = auto_algorithm(rows, cols, heuristic)
    if algorithm == "reduce":
        if time_limit is not None and not time_limit > 0:
            raise B.PuzzleInputError(f"time_limit {time_limit!r} must be positive")
        return _solve_reduce(start, goal, rows, cols)
    if algorithm == "bfs":
        heuristic = "zero"
    elif heuristic == "auto":
        heuristic = choose_heuristic(rows, cols)
    else:
        heuristic_code(heuristic)
    if max_nodes < 16:
        raise B.PuzzleInputError(f"max_nodes {max_nodes} must be at least 16")
    if time_limit is not None and not time_limit > 0:
        raise B.PuzzleInputError(f"time_limit {time_limit!r} must be positive")
    base = dict(rows=rows, cols=cols, start=start.tolist(), goal=goal.tolist(),
                algorithm=algorithm, heuristic=("none" if heuristic == "zero" else heuristic))
    t_start = time.perf_counter()
    if not B.is_solvable(start, goal, rows, cols):
        return SolveResult(**base, solvable=False, length=None, moves=None, nodes_generated=0,
                           nodes_expanded=0, seconds=time.perf_counter() - t_start,
                           optimal=True, status="unsolvable")
    if context is None:
        hc, info = heuristic_context(heuristic, rows, cols, goal, partition, progress)
    else:
        hc, info = context
    setup = info.get("setup_seconds", 0.0) if context is None else 0.0
    nbr = B.neighbours(rows, cols)
    nlk, ngroups = int(hc[10]), int(hc[11])
    idx = np.zeros(max(nlk * ngroups, 1), np.int64)
    hl = np.zeros(max(nlk, 1), np.int64)
    h0 = int(_h_eval(start, hc, idx, hl, np.zeros(_LC_BUF, np.int64)))
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + time_limit
    extra = {k: v for k, v in info.items() if k != "setup_seconds"}
    if np.array_equal(start, goal):
        return SolveResult(**base, solvable=True, length=0, moves="", nodes_generated=0,
                           nodes_expanded=0, seconds=time.perf_counter() - t0, optimal=True,
                           status="solved", h_start=h0, setup_seconds=setup, extra=extra)
    if algorithm == "idastar":
        wd_ids = (0, 0)
        if int(hc[0]) == H_WALKING:
            from fastsnake.puzzle.walking import state_ids

            wd_ids = state_ids(start, hc)
        search = IdaSearch(start, nbr, hc, h0, wd_ids=wd_ids, pdb_state=(idx, hl))
        status = "time limit reached"
        shown = search.bound
        chunk = 1 << 20
        while True:
            tc = time.perf_counter()
            code = search.step(chunk)
            if time.perf_counter() - tc < 0.1 and chunk < _IDA_CHUNK:
                chunk *= 2  # slow heuristics get small chunks, so time limits hold
            if code == IDA_FOUND:
                status = "solved"
                break
            if code != IDA_BUDGET:  # bound ran past every f: cannot happen for solvable input
                status = "exhausted"
                break
            if progress is not None and search.bound != shown:
                shown = search.bound
                progress(f"idastar: bound {search.bound}, {search.generated:,} nodes so far")
            if deadline is not None and time.perf_counter() > deadline:
                break
        moves = search.moves() if status == "solved" else None
        gen, exp, mem, iters = search.generated, search.expanded, 0, search.iterations
    else:
        search = AStarSearch(start, goal, nbr, hc, h0, max_nodes)
        status = "time limit reached"
        while True:
            code = search.step(_ASTAR_CHUNK)
            if code == A_FOUND:
                status = "solved"
                break
            if code == A_EXHAUSTED:
                status = "exhausted"
                break
            if code == A_GROW and not search.grow():
                status = "node limit reached"
                break
            if code == A_BUDGET and deadline is not None and time.perf_counter() > deadline:
                break
        moves = search.moves() if status == "solved" else None
        gen, exp, mem, iters = search.generated, search.expanded, search.memory_bytes(), None
    seconds = time.perf_counter() - t0
    text = "".join(B.MOVES[m] for m in moves) if moves is not None else None
    if status == "exhausted":
        raise AssertionError("search exhausted a solvable instance")  # a bug of ours
    if auto and status != "solved":
        out = _solve_reduce(start, goal, rows, cols)
        out.nodes_generated += gen
        out.nodes_expanded += exp
        out.seconds += seconds
        out.setup_seconds = setup
        out.extra["fallback"] = f"{algorithm} + {base['heuristic']}: {status}"
        return out
    return SolveResult(**base, solvable=True, length=(len(text) if text is not None else None),
                       moves=text, nodes_generated=gen, nodes_expanded=exp, seconds=seconds,
                       optimal=(status == "solved"), status=status, h_start=h0,
                       memory_bytes=mem, iterations=iters, setup_seconds=setup, extra=extra)


def _solve_reduce(start, goal, rows: int, cols: int) -> SolveResult:
    """`reduce` on validated boards (see `fastsnake.puzzle.reduce`)."""
    from fastsnake.puzzle.reduce import solve_reduce

    t0 = time.perf_counter()
    base = dict(rows=rows, cols=cols, start=start.tolist(), goal=goal.tolist(), algorithm="reduce")
    if not B.is_solvable(start, goal, rows, cols):
        return SolveResult(**base, heuristic="none", solvable=False, length=None, moves=None,
                           nodes_generated=0, nodes_expanded=0, seconds=time.perf_counter() - t0,
                           optimal=True, status="unsolvable")
    text, info = solve_reduce(start, goal, rows, cols)
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


def solve_many(instances, goal=None, *, rows: int, cols: int, algorithm: str = "auto",
               heuristic: str = "auto", threads: int = 1, errors: str = "raise",
               max_nodes: int = DEFAULT_MAX_NODES, time_limit: float | None = None,
               partition=None, progress=None) -> list:
    """Solve many instances on one board size in one process; results in input order.

    `instances`: strings ("tiles" or "tiles ; goal"), (start, goal) pairs or tile
    sequences; `goal` is the goal of instances that give none (default: identity).
    Heuristic tables (pattern databases, walking distance) are built or loaded once
    per distinct goal and shared. `threads` > 1 solves instances in parallel (the
    search kernels release the GIL); every result is the same whatever `threads` is
    (only `seconds` differ). `errors="raise"` raises the first bad instance's
    PuzzleInputError (prefixed "instance i:", 1-based) before solving anything;
    `errors="keep"` puts that exception in the instance's slot and solves the rest.
    Other options as `solve`.

    Parameters
    ----------
    instances : iterable
        Strings ("tiles" or "tiles ; goal"), (start, goal) pairs or tile sequences.
    goal : str or sequence of int, optional
        Goal of the instances that give none; default the identity.
    rows, cols : int
        Board size, the same for every instance.
    threads : int, optional
        Instances solved in parallel.
    errors : {"raise", "keep"}, optional
        Raise on the first bad instance, or keep its exception in its slot.
    algorithm, heuristic, max_nodes, time_limit, partition, progress
        As in `solve`.

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
    >>> [r.length for r in solve_many(["1 0 2 3 4 5", "0 1 2 3 4 5 ; 3 4 5 0 1 2"], rows=2, cols=3)]
    [1, 21]
    """
    import threading
    from concurrent.futures import ThreadPoolExecutor

    if errors not in ("raise", "keep"):
        raise B.PuzzleInputError(f"errors {errors!r} is not 'raise' or 'keep'")
    if not isinstance(threads, (int, np.integer)) or threads < 1:
        raise B.PuzzleInputError(f"threads {threads!r} must be a positive integer")
    if algorithm not in ALGORITHMS and algorithm != "auto":
        raise B.PuzzleInputError(f"algorithm {algorithm!r} is not one of {', '.join(ALGORITHMS)}, auto")
    big = algorithm in ("reduce", "auto")
    max_cells = B.MAX_CELLS_ANY if big else B.MAX_CELLS
    B.check_size(rows, cols, max_cells)
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
                contexts[key] = heuristic_context(hname, rows, cols, g, partition, progress)
            return contexts[key]

    def run(i):
        item = parsed[i]
        if isinstance(item, Exception):
            return item
        start, g = item
        return solve(start, g, rows=rows, cols=cols, algorithm=algorithm, heuristic=heuristic,
                     max_nodes=max_nodes, time_limit=time_limit, partition=partition,
                     context=context_for(g))

    if threads == 1 or len(parsed) <= 1:
        return [run(i) for i in range(len(parsed))]
    with ThreadPoolExecutor(max_workers=int(threads)) as pool:
        return list(pool.map(run, range(len(parsed))))
