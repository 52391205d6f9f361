"""Walking distance (Ken'ichiro Takahashi): a table heuristic built by BFS over line occupancy.

Vertical walking distance: group the board into its R rows and count, for every
row r and goal row g, how many tiles now in row r belong in row g, plus the row of
the blank. A vertical move takes one tile from the row next to the blank into the
blank's row, whichever tile it is; horizontal moves do not change the counts. The
BFS distance of these count tables to the goal's table is therefore a lower bound
on the number of vertical moves, and the same over columns bounds the horizontal
ones: their sum is admissible for any goal (tiles only matter by goal line).

A table depends only on (lines, cells per line, the goal blank's line), so the
columns use the same builder with the board transposed. States are coded as in
`heuristics.walking_distance.walking_code` (base cells+1 digits for counts[line][goal line], the last
goal line left out as it follows from the others, then the blank line) and stored
sorted by code, so the from-scratch evaluation finds a state by binary search;
IDA* follows next[(id*2 + dir)*L + goal line] (dir 0: blank to line-1, 1: to line+1).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit, types
from numba.typed import Dict

from fastsnake.puzzle.board import PuzzleInputError


class WalkingTable(NamedTuple):
    """One direction's walking-distance table: BFS distance per state, successor ids, sorted state codes."""

    dist: np.ndarray  # uint8, per state id
    next: np.ndarray  # int32, next[(id*2 + dir)*L + goal line], -1 where the move is impossible
    codes: np.ndarray  # uint64, sorted: the id of a code is its position


# Above this many table states the build stops (4x4: 24,964; 4x6: 377,872; 5x5: more).
MAX_STATES = 4_000_000
_CACHE: dict = {}


@njit(cache=True)
def _encode(counts, blank, nl, base):
    """One integer for a walking-distance state: the tile counts per line and group, then the blank's line."""
    code = np.uint64(0)
    for line in range(nl):
        for gl in range(nl - 1):
            code = code * np.uint64(base) + np.uint64(counts[line * nl + gl])
    return code * np.uint64(nl) + np.uint64(blank)


@njit(cache=True)
def _decode(code, counts, nl, width, base):
    """The tile counts of state `code` into `counts` (the inverse of `_encode`); returns the blank's line."""
    blank = np.int64(code % np.uint64(nl))
    code //= np.uint64(nl)
    for line in range(nl - 1, -1, -1):
        for gl in range(nl - 2, -1, -1):
            counts[line * nl + gl] = np.int64(code % np.uint64(base))
            code //= np.uint64(base)
    for line in range(nl):
        rest = width - (1 if line == blank else 0)
        for gl in range(nl - 1):
            rest -= counts[line * nl + gl]
        counts[line * nl + nl - 1] = rest
    return blank


@njit(cache=True)
def _wd_bfs(nl, width, goal_blank, max_states):
    """BFS from the goal table. Returns (codes, dist, next) in BFS order, or empty
    arrays if more than max_states states exist."""
    base = width + 1
    counts = np.zeros(nl * nl, np.int64)
    for line in range(nl):
        counts[line * nl + line] = width - (1 if line == goal_blank else 0)
    ids = Dict.empty(key_type=types.uint64, value_type=types.int64)
    codes = np.empty(1024, np.uint64)
    dist = np.empty(1024, np.uint8)
    nxt = np.full(1024 * 2 * nl, -1, np.int32)
    start = _encode(counts, goal_blank, nl, base)
    ids[start] = 0
    codes[0] = start
    dist[0] = 0
    size = 1
    head = 0
    while head < size:
        blank = _decode(codes[head], counts, nl, width, base)
        for direction in range(2):
            other = blank - 1 if direction == 0 else blank + 1
            if other < 0 or other >= nl:
                continue
            for gl in range(nl):
                if counts[other * nl + gl] == 0:
                    continue
                # A tile of goal line gl walks from `other` into the blank's line.
                counts[other * nl + gl] -= 1
                counts[blank * nl + gl] += 1
                code = _encode(counts, other, nl, base)
                counts[other * nl + gl] += 1
                counts[blank * nl + gl] -= 1
                j = ids.get(code, -1)
                if j < 0:
                    if size == max_states:
                        return codes[:0], dist[:0], nxt[:0]
                    j = size
                    ids[code] = j
                    if size == len(codes):
                        codes2 = np.empty(2 * size, np.uint64)
                        codes2[:size] = codes
                        codes = codes2
                        dist2 = np.empty(2 * size, np.uint8)
                        dist2[:size] = dist
                        dist = dist2
                        nxt2 = np.full(2 * size * 2 * nl, -1, np.int32)
                        nxt2[:size * 2 * nl] = nxt
                        nxt = nxt2
                    codes[j] = code
                    dist[j] = dist[head] + 1
                    size += 1
                nxt[(head * 2 + direction) * nl + gl] = j
        head += 1
    return codes[:size], dist[:size], nxt[:size * 2 * nl]


def line_table(lines: int, width: int, goal_blank_line: int):
    """(dist uint8, next int32, codes uint64), sorted by code, for `lines` lines of
    `width` cells with the goal blank in line `goal_blank_line`."""
    key = (lines, width, goal_blank_line)
    if key in _CACHE:
        return _CACHE[key]
    # The code must fit in 64 bits; and tables known (measured) to pass MAX_STATES
    # (5 lines of 4+ cells, 6 of 3+) are refused before a long BFS.
    if ((width + 1) ** (lines * (lines - 1)) * lines >= 2 ** 64
            or (lines >= 5 and width >= 4) or (lines >= 6 and width >= 3)):
        raise PuzzleInputError(f"walking distance: a table of {lines} lines of {width} cells is too big "
                               "(use linear-conflict or pdb)")
    codes, dist, nxt = _wd_bfs(lines, width, goal_blank_line, MAX_STATES)
    if len(codes) == 0:
        raise PuzzleInputError(f"walking distance: a table of {lines} lines of {width} cells has more "
                               f"than {MAX_STATES:,} states (use linear-conflict or pdb)")
    order = np.argsort(codes, kind="stable")
    rank = np.empty(len(order), np.int32)
    rank[order] = np.arange(len(order), dtype=np.int32)
    moves = nxt.reshape(len(codes), 2 * lines)[order]
    moves = np.where(moves >= 0, rank[np.maximum(moves, 0)], -1).astype(np.int32)
    table = WalkingTable(dist[order].copy(), moves.ravel().copy(), codes[order].copy())
    _CACHE[key] = table
    return table


def walking_tables(rows: int, cols: int, goal):
    """The (vertical, horizontal) tables for this board and goal."""
    goal = np.asarray(goal)
    blank = int(np.flatnonzero(goal == 0)[0])
    return line_table(rows, cols, blank // cols), line_table(cols, rows, blank % cols)
