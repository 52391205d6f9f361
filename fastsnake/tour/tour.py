"""`find_tour`: the input checked, then the method asked for (`fastsnake.tour.methods`: Warnsdorff search,
the knight's construction, or a user's), or under ``auto`` construction or search.

The search's restarts (`restarts`, run by `fastsnake.tour.methods.search`):

Restarts: attempt i searches at most base * luby(i) nodes (1, 1, 2, 1, 1, 2, 4, ...)
with seed + i as the tie-break seed, alternating Roth's tie-break with a purely
random one. A bad early choice can trap the DFS in a subtree it would need ages to
exhaust; a fresh order usually avoids it. The Luby budgets grow without bound, so
the scheme stays complete: an attempt that exhausts its tree proves no tour
exists, whatever its order.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np

from fastsnake.sizes import SearchLimitError, parse_size
from fastsnake.tour import methods as registry
from fastsnake.tour.pieces import Piece, TourInputError, as_piece, as_square, square_name
from fastsnake.tour.search import EXHAUSTED, FOUND, SearchState

MAX_SIDE = 4000
DEFAULT_TIME_LIMIT = 10.0  # seconds of search before find_tour answers exists=None
MAX_JUMPS = 255
# Slice of work between clock checks: ~5-20 ms of kernel time.
WORK_SLICE = 1 << 19
# Knight boards at least this large use the construction in "auto" mode (search
# is already sub-millisecond below it, and keeps the seeded tie-break meaningful).
CONSTRUCT_MIN_CELLS = 2500


@dataclass
class TourResult:
    found: bool
    exists: bool | None
    path: np.ndarray | None
    seconds: float
    nodes: int
    rows: int
    cols: int
    piece: Piece
    start: int
    closed: bool
    reason: str
    method: str
    attempts: int = 0
    seed: int = 0
    extra: dict = field(default_factory=dict)
    compile_seconds: float = 0.0  # loading (or compiling) the kernels; not part of `seconds`
    limit_value: float | None = None  # the limit reached when exists is None

    def limit_error(self, cli: bool = False) -> "TourLimitError":
        """The one-line error of a search stopped at its limit (exists None); `cli` names
        the command-line option to raise."""
        kind = "a closed" if self.closed else "an open"
        limit = self.extra.get("limit", "time")
        what = (f"time limit of {self.limit_value:g} s" if limit == "time"
                else f"node limit of {self.limit_value:,} nodes")
        return TourLimitError(
            f"no verdict on {kind} {self.piece.name} tour of {self.rows}x{self.cols} from "
            f"{square_name(self.start, self.rows, self.cols)}: the search stopped at its {what} "
            f"({self.nodes:,} nodes) with no tour found and none ruled out; raise "
            + ({"time": "--time-limit", "nodes": "--max-nodes"}[limit] if cli else
               {"time": "time_limit", "nodes": "max_nodes"}[limit]),
            limit=limit, value=self.limit_value, result=self)

    def to_json(self, include_path: bool = True) -> dict:
        out = {
            "found": self.found,
            "exists": self.exists,
            "path": (self.path.tolist() if self.path is not None else None) if include_path else None,
            "seconds": round(self.seconds, 6),
            "compile_seconds": round(self.compile_seconds, 6),
            "nodes": self.nodes,
            "rows": self.rows,
            "cols": self.cols,
            "start": self.start,
            "closed": self.closed,
            "piece": {"name": self.piece.name, "jumps": [list(j) for j in self.piece.jump_list],
                      "directed": self.piece.directed},
            "method": self.method,
            "reason": self.reason,
            "attempts": self.attempts,
            "seed": self.seed,
        }
        if not include_path:
            out["path_omitted"] = self.path is not None
        out.update(self.extra)
        return out


_WARM: set = set()


def warm_up(construction: bool = False) -> float:
    """Load (or compile) the kernels once per process, so neither `seconds` nor the
    time limit is spent on numba: loading takes about a second, a cold compile more.
    Returns the seconds this call spent (0.0 once loaded), reported as `compile_seconds`."""
    if construction in _WARM:
        return 0.0
    t0 = time.perf_counter()
    if False not in _WARM:
        from fastsnake.tour.board import distances

        knight = Piece.leaper(1, 2)
        state = SearchState(1, 3, knight.jumps, False, False)
        state.reset(0)
        state.run(1, 0)
        SearchState(2, 2, Piece.from_jumps([(0, 1)], symmetric=False).jumps, True, False).reset(0)
        distances(1, 2, knight.jumps, 0)
        _WARM.add(False)
    if construction:
        from fastsnake.tour.construct import closed_knight_tour

        closed_knight_tour(12, 12)
        _WARM.add(True)
    return time.perf_counter() - t0


def _leaps(piece: Piece, cols: int, a, b) -> bool:
    (ar, ac), (br, bc) = divmod(int(a), cols), divmod(int(b), cols)
    return (br - ar, bc - ac) in set(piece.jump_list)


def luby(i: int) -> int:
    """The i-th term (1-based) of the Luby restart sequence 1, 1, 2, 1, 1, 2, 4, ..."""
    while True:
        k = i.bit_length()
        if i == (1 << k) - 1:
            return 1 << (k - 1)
        i -= (1 << (k - 1)) - 1


def validate_board(piece: Piece, rows: int, cols: int, start: int | None = None) -> None:
    parse_size((rows, cols), lo=1, hi=MAX_SIDE, error=TourInputError)
    if len(piece.jump_list) > MAX_JUMPS:
        raise TourInputError(f"piece has {len(piece.jump_list)} jumps; at most {MAX_JUMPS} are supported")
    if start is not None:
        as_square(start, rows, cols)


def resolve(piece, rows, cols=None, start=None) -> tuple[Piece, int, int, int | None]:
    """(Piece, rows, cols, start cell or None) from the inputs the CLI takes, for every tour
    function: a piece as a `Piece`, "1,2", (1, 2) or a list of leapers; the board as rows and
    cols, or `rows` alone as a size "RxC", N or (rows, cols) (the one size grammar of
    `fastsnake.sizes`); the start as a cell index, "R,C", chess notation "a1" or (r, c)."""
    piece = as_piece(piece)
    if cols is None:
        rows, cols = parse_size(rows, lo=1, hi=MAX_SIDE, error=TourInputError)
    else:
        for value in (rows, cols):
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
                raise TourInputError(f"board size {rows!r}x{cols!r}: rows and cols must be integers "
                                     "(or give one size 'RxC')")
        rows, cols = parse_size((int(rows), int(cols)), lo=1, hi=MAX_SIDE, error=TourInputError)
    validate_board(piece, rows, cols)
    return piece, rows, cols, (None if start is None else as_square(start, rows, cols))


class TourLimitError(TourInputError, SearchLimitError):
    """A tour search stopped at its time or node limit with no verdict (`result` holds it)."""


def check_limits(time_limit, max_nodes) -> None:
    if time_limit is not None and (isinstance(time_limit, bool) or not isinstance(time_limit, (int, float))
                                   or not time_limit > 0 or time_limit == float("inf")):
        raise TourInputError(f"time_limit {time_limit!r} must be a positive number of seconds (or None)")
    if max_nodes is not None and (isinstance(max_nodes, bool) or not isinstance(max_nodes, (int, np.integer))
                                  or max_nodes < 1):
        raise TourInputError(f"max_nodes {max_nodes!r} must be a positive integer (or None)")


_FACTS_CACHE_CELLS = 1 << 16


def board_facts(piece: Piece, rows: int, cols: int):
    """((out-degrees, in-degrees), connected) - `connected` only for an undirected
    piece, where it holds from every start; cached for small boards, whose callers
    (one call per start square) would otherwise redo it each time."""
    if rows * cols <= _FACTS_CACHE_CELLS:
        return _cached_facts(piece, rows, cols)
    return _facts(piece, rows, cols)


def _facts(piece: Piece, rows: int, cols: int):
    from fastsnake.tour.board import distances, jump_arrays
    from fastsnake.tour.search import board_degrees

    jr, jc = jump_arrays(piece.jumps)
    out, inn = board_degrees(rows, cols, jr, jc, piece.directed)
    out.flags.writeable = False
    inn.flags.writeable = False
    connected = None
    if not piece.directed:
        connected = bool((distances(rows, cols, piece.jumps, 0) >= 0).all())
    return (out, inn), connected


_cached_facts = lru_cache(maxsize=32)(_facts)


def construction_applies(piece: Piece, rows: int, cols: int) -> bool:
    """Whether the ``construct`` method applies (to an open or a closed tour alike)."""
    return registry.applies_to(registry.get_method("construct"), piece, rows, cols, False)


def method_names() -> list[str]:
    """What `find_tour`'s `method` takes: ``auto`` and every registered method (`fastsnake.tour.methods`)."""
    return [registry.AUTO, *registry.method_names()]


def choose_method(method: str, piece: Piece, rows: int, cols: int, closed: bool) -> registry.TourMethod:
    """The registered method `method` names; ``auto``: ``construct`` where it applies and the tour is closed
    or the board has at least `CONSTRUCT_MIN_CELLS` squares, else ``search``."""
    if not isinstance(method, str) or method != registry.AUTO and method not in registry.method_names():
        raise TourInputError(f"method {method!r} is not one of {', '.join(method_names())}")
    if method != registry.AUTO:
        return registry.get_method(method)
    construct = registry.get_method("construct")
    if (closed or rows * cols >= CONSTRUCT_MIN_CELLS) and registry.applies_to(construct, piece, rows, cols, closed):
        return construct
    return registry.get_method("search")


def find_tour(piece, rows, cols=None, start=0, *, closed: bool = False,
              time_limit: float | None = DEFAULT_TIME_LIMIT, seed: int = 0, method: str = "auto",
              max_nodes: int | None = None) -> TourResult:
    """A tour of the piece over the board from `start`, open or closed.

    exists is True (found), False (proven impossible; `reason` says how) or None
    (time limit or node limit reached first; `limit` in `extra` names it, and
    `limit_error()` gives the one-line `TourLimitError` the CLI raises then).

    Parameters
    ----------
    piece : Piece, str or (int, int)
        The jumping piece: a `Piece`, "1,2", (1, 2) or a list of leapers (see `parse_piece`).
    rows, cols : int
        Board size, up to 4000x4000; or `rows` alone as a size "RxC", N or (rows, cols).
    start : int, str or (int, int), optional
        Start square: a cell index, "R,C" (0-based), chess notation "a1" or (r, c).
    closed : bool, optional
        Ask for a closed tour (the last square one jump from the first).
    time_limit : float or None, optional
        Seconds before the search gives up (default 10; ``None``: no limit).
    seed : int, optional
        Seed of the randomised restarts.
    method : str, optional
        ``"auto"`` (construction when one applies, else search) or a registered method
        (`fastsnake.tour.methods`): ``"search"``, ``"construct"``, or a user's.
    max_nodes : int, optional
        Node limit of the search.

    Returns
    -------
    TourResult
        ``found``, ``exists``, ``path`` (cell indices), ``reason``, ``method``,
        ``nodes`` and ``seconds``.

    Raises
    ------
    TourInputError
        A bad board, start square or option; `fastsnake.tour.methods.MethodInapplicable` (a
        TourInputError) when the method asked for does not apply here.

    Examples
    --------
    >>> from fastsnake.tour import parse_piece
    >>> r = find_tour(parse_piece("1,2"), 5, 5, 0)
    >>> r.found, len(r.path)
    (True, 25)
    >>> find_tour("1,2", "5x5", start="c3").found
    True
    >>> find_tour(parse_piece("1,2"), 4, 4, 0).exists
    False
    """
    piece, rows, cols, start = resolve(piece, rows, cols, 0 if start is None else start)
    chosen = choose_method(method, piece, rows, cols, closed)
    check_limits(time_limit, max_nodes)
    n = rows * cols
    trivial = n == 1 and not closed
    if not trivial and not registry.applies_to(chosen, piece, rows, cols, closed):
        raise registry.inapplicable(chosen, piece, rows, cols, closed)
    compile_seconds = _warm(chosen)
    t0 = time.perf_counter()

    def result(found, exists, path, reason, how, nodes=0, attempts=0):
        out = TourResult(found, exists, path, time.perf_counter() - t0, nodes, rows, cols, piece, start,
                         closed, reason, how, attempts, seed, compile_seconds=compile_seconds)
        # an open request may be answered by a closed tour (the construction): say so
        out.extra["reentrant"] = bool(path is not None and n >= 3 and _leaps(piece, cols, path[-1], path[0]))
        return out

    if trivial:
        return result(True, True, np.array([start], dtype=np.int32), "a single square", "trivial")
    task = registry.TourTask(piece, rows, cols, start, bool(closed), seed,
                             None if time_limit is None else t0 + float(time_limit), max_nodes, time_limit)
    answer = chosen.run(task)
    out = result(answer.found, answer.exists, answer.path, answer.reason, answer.how, answer.nodes, answer.attempts)
    if answer.limit is not None:
        out.limit_value = answer.limit_value
        out.extra["limit"] = answer.limit
    out.extra.update(answer.extra)
    return out


def _warm(method) -> float:
    """Seconds `method.warm` spent loading (or compiling) its kernels: the float it returns (ours: 0.0
    once loaded, `warm_up`), else as timed here."""
    if method.warm is None:
        return 0.0
    t0 = time.perf_counter()
    spent = method.warm()
    return float(spent) if isinstance(spent, (int, float)) else time.perf_counter() - t0


def restarts(state, start, n, seed, deadline, max_nodes):
    """Warnsdorff runs from `start` (`_restarts`): (status, nodes, attempts, None or the limit reached)."""
    return _restarts(state, start, n, seed, deadline, max_nodes)


def _restarts(state, start, n, seed, deadline, max_nodes):
    """Warnsdorff runs from `start`, each capped at a Luby multiple of the board's size and
    alternating Roth and random tie-breaks, until one finds a tour or proves there is none, or
    a limit is reached: (status, nodes, attempts, None or the limit reached, "time" or "nodes")."""
    base = max(4 * n, 1 << 14)
    attempt = 0
    total = 0
    while True:
        state.reset(start)
        cap = base * luby(attempt + 1)
        used = 0
        status = 0
        while used < cap:
            step = min(WORK_SLICE, cap - used)
            if max_nodes is not None:
                step = min(step, max_nodes - total)
                if step <= 0:
                    break
            status = state.run(step, seed + attempt, roth=attempt % 2 == 0)
            done = state.nodes - used
            used += done
            total += done
            if status != 0:
                break
            if deadline is not None and time.perf_counter() >= deadline:
                break
        attempt += 1
        if status in (FOUND, EXHAUSTED):
            return status, total, attempt, None
        if deadline is not None and time.perf_counter() >= deadline:
            return status, total, attempt, "time"
        if max_nodes is not None and total >= max_nodes:
            return status, total, attempt, "nodes"
