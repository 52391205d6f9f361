"""Exact tour counts by exhaustive search (the search kernel in count mode).

Open tours are counted as directed paths from a start (all starts: their sum; a
board symmetry that maps the jump set to itself maps tours from a square onto tours
from its image, so only one square per symmetry orbit is searched).
Closed tours are counted once per cycle: every closed tour passes through any
fixed square, so the count from one square is the number of directed cycles;
for a symmetric piece each undirected tour is one of two directions.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field

from fastsnake import grid
from fastsnake.tour import checks
from fastsnake.tour.pieces import Piece
from fastsnake.tour.search import EXHAUSTED, SearchState
from fastsnake.tour.tour import WORK_SLICE, board_facts, check_limits, resolve, warm_up


@dataclass
class CountResult:
    count: int | None
    complete: bool
    closed: bool
    rows: int
    cols: int
    piece: Piece
    starts: list[int]
    per_start: dict[int, int] = field(default_factory=dict)
    nodes: int = 0
    seconds: float = 0.0
    directed_count: int | None = None
    compile_seconds: float = 0.0  # loading the kernels; not part of `seconds`

    def to_json(self) -> dict:
        return {
            "count": self.count,
            "complete": self.complete,
            "exists": (self.count > 0) if self.complete else (True if self.count else None),
            "closed": self.closed,
            "rows": self.rows,
            "cols": self.cols,
            "piece": {"name": self.piece.name, "jumps": [list(j) for j in self.piece.jump_list],
                      "directed": self.piece.directed},
            "what": ("undirected closed tours" if self.closed and not self.piece.directed
                     else "directed closed tours" if self.closed else "directed open tours"),
            "starts": self.starts,
            "per_start": {str(k): v for k, v in self.per_start.items()},
            "directed_count": self.directed_count,
            "nodes": self.nodes,
            "seconds": round(self.seconds, 6),
            "compile_seconds": round(self.compile_seconds, 6),
        }


def symmetries(piece: Piece, rows: int, cols: int) -> list[grid.Symmetry]:
    """Board symmetries (transpose?, flip rows?, flip cols?) that keep the jump set."""
    jumps = set(piece.jump_list)
    out = []
    for sym in grid.symmetries(rows, cols):
        swap, fr, fc = sym
        moved = set()
        for dr, dc in jumps:
            if swap:
                dr, dc = dc, dr
            moved.add((-dr if fr else dr, -dc if fc else dc))
        if moved == jumps:
            out.append(sym)
    return out


def count_tours(piece, rows, cols=None, start=None, *, closed: bool = False,
                time_limit: float | None = None) -> CountResult:
    """Count every tour; `complete` is False if the time limit cut the search short
    (then `count` is a lower bound).

    Parameters
    ----------
    piece : Piece, str or (int, int)
        The jumping piece (as `find_tour` takes it).
    rows, cols : int
        Board size (small boards: the count is exhaustive); or `rows` alone as "RxC".
    start : int, str or (int, int), optional
        Count tours from this square only (cell index, "R,C" or "a1"); default every start.
    closed : bool, optional
        Count closed tours.
    time_limit : float, optional
        Seconds before the count stops.

    Returns
    -------
    CountResult
        ``count``, ``complete``, ``per_start``, ``nodes`` and ``seconds``.

    Raises
    ------
    TourInputError
        A bad board or start square.

    Examples
    --------
    >>> from fastsnake.tour import parse_piece
    >>> count_tours(parse_piece("1,2"), 5, 5, 0).count
    304
    """
    piece, rows, cols, start = resolve(piece, rows, cols, start)
    check_limits(time_limit, None)
    compile_seconds = warm_up()
    t0 = time.perf_counter()
    n = rows * cols
    deadline = None if time_limit is None else t0 + float(time_limit)
    if closed:
        starts = [0 if start is None else int(start)]
    else:
        starts = list(range(n)) if start is None else [int(start)]
    degrees, connected = board_facts(piece, rows, cols)
    outdeg, indeg = degrees
    state = SearchState(rows, cols, piece.jumps, piece.directed, closed, degrees)
    per_start: dict[int, int] = {}
    complete = True
    nodes = 0
    maps = symmetries(piece, rows, cols)
    for s in starts:
        if s in per_start:
            continue
        if n == 1:
            per_start[s] = 0 if closed else 1
            continue
        if checks.impossibility(piece, rows, cols, s, closed, outdeg, indeg, connected):
            per_start[s] = 0
            continue
        state.reset(s)
        status = 0
        while status != EXHAUSTED:
            status = state.run(WORK_SLICE, 0, True)
            if deadline is not None and time.perf_counter() >= deadline:
                break
        nodes += state.nodes
        per_start[s] = state.count
        if status != EXHAUSTED:
            complete = False
            break
        if start is None and not closed:
            for m in maps:
                per_start.setdefault(grid.image(s, rows, cols, m), state.count)
    total = int(sum(per_start.values()))
    directed_total = total
    if closed and not piece.directed:
        total //= 2
    return CountResult(total, complete, closed, rows, cols, piece, starts, per_start, nodes,
                       time.perf_counter() - t0, directed_total, compile_seconds)
