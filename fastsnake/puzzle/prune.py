"""Duplicate-path pruning for IDA* on sliding puzzles: a finite-state machine over blank moves.

IDA* keeps no visited set, so it walks every path to a state, not only the shortest. Taylor and
Korf (1993) cut most of that with an automaton over the moves made so far: a move string that
reaches the same position as a shorter string, or as an equally long one that comes first in a
fixed order of strings, is never extended. This module finds those strings for one board shape
and builds the automaton IDA*'s kernel steps through (`fastsnake.puzzle.idastar`).

Why it keeps every optimal solution. Order move strings by length, then lexicographically (move
0 < 1 < 2 < 3). A string B is *dominated from cell c* when, with the blank at c, some string A that
comes before B reaches the same position (the same tiles on the same cells). B is *pruned* when
it is dominated from every cell where the blank can make its moves at all. Take the solution that
comes first in that order among the optimal ones; if it contained a pruned B, starting from some
cell c, then putting A in B's place would give a solution that is shorter (impossible) or as
long and earlier in the order (impossible too). So the first optimal solution has no pruned
string in it, and IDA* with the automaton still reaches it in the iteration whose bound is the
optimal length (and no earlier bound is skipped: that path's nodes are never pruned).

The automaton is cached in the PDB cache (`prune-RxC-dD.bin`, a PDB table file: checked on every load) since
finding the strings takes seconds on 5x5. The strings are found by brute force on the real board:
from each blank cell, every move string up to `depth` moves (no move undoing the one before,
which the kernel already skips), in order, remembering the first string that reached each
position; a string is dominated from that cell when its position was reached before. The
automaton is Aho-Corasick's over the minimal pruned strings (none containing another):
``table[state * 4 + move]`` is the next state, or -1 when the move completes a pruned string.
State 0 is the start. Tested against the definition on small
boards (`tests/puzzle/test_puzzle_prune.py`).
"""

from __future__ import annotations

import threading
import time
from collections import deque
from functools import lru_cache

import numpy as np

from fastsnake.puzzle.board import PuzzleInputError, neighbours

# Longest pruned string looked for, by the number of cells. Longer strings prune more nodes
# (docs/puzzle.md, "Duplicate-path pruning", with the measurements) but take longer to find:
# the search costs about 3^depth moves per blank cell.
PRUNE_DEPTH_BY_CELLS = ((9, 14), (25, 12), (36, 10))
# Boards past the last entry: the shallowest depth that still prunes something (the 2x2 loops).
PRUNE_DEPTH_LARGE = 6
# The deepest a caller may ask for: finding the strings grows about 3x a move (16 takes minutes).
MAX_PRUNE_DEPTH = 16


def check_depth(depth) -> int:
    """`depth` when it is a whole number from 0 to `MAX_PRUNE_DEPTH`, else PuzzleInputError."""
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or not 0 <= depth <= MAX_PRUNE_DEPTH:
        raise PuzzleInputError(f"prune depth {depth!r} is not a whole number from 0 to {MAX_PRUNE_DEPTH}")
    return int(depth)


def prune_depth(rows: int, cols: int) -> int:
    """The default longest pruned string for a rows x cols board (`PRUNE_DEPTH_BY_CELLS`)."""
    n = rows * cols
    for cells, depth in PRUNE_DEPTH_BY_CELLS:
        if n <= cells:
            return depth
    return PRUNE_DEPTH_LARGE


def pruned_strings(rows: int, cols: int, depth: int) -> list[tuple[int, ...]]:
    """Every move string of at most `depth` moves that is dominated from each cell where it can be
    made (see the module's docstring), shortest first, then in order."""
    n = rows * cols
    nbr = neighbours(rows, cols).tolist()
    # A position is one integer: the label of the tile on cell k in bits [k*w, k*w+w); the blank's
    # label is 0, the others 1..n-1, so the blank's move from b to a adds t<<(b*w) and takes t<<(a*w).
    w = max(n - 1, 1).bit_length()
    mask = (1 << w) - 1
    # A string is one integer too: 1 followed by two bits a move (so strings of any length differ).
    made = set()  # strings that can be made from some cell
    kept = set()  # strings not dominated from some cell where they can be made
    for cell in range(n):
        start = sum((k + 1 if k < cell else k) << (k * w) for k in range(n) if k != cell)  # labels 1..n-1
        seen = {start}
        layer = [(1, cell, start)]
        for _ in range(depth):
            following = []
            for code, blank, position in layer:
                undo = (code & 3) ^ 1 if code > 1 else -1
                for m in range(4):
                    if m == undo:
                        continue
                    to = nbr[blank * 4 + m]
                    if to < 0:
                        continue
                    tile = (position >> (to * w)) & mask
                    after = position + (tile << (blank * w)) - (tile << (to * w))
                    longer = code * 4 + m
                    made.add(longer)
                    if after not in seen:
                        seen.add(after)
                        kept.add(longer)
                    following.append((longer, to, after))
            layer = following
    return sorted((_moves(code) for code in made - kept), key=lambda s: (len(s), s))


def _moves(code: int) -> tuple[int, ...]:
    """The move string an integer of `pruned_strings` stands for."""
    out = []
    while code > 1:
        out.append(code & 3)
        code >>= 2
    return tuple(reversed(out))


def minimal_strings(strings: list[tuple[int, ...]]) -> list[tuple[int, ...]]:
    """The strings that contain no other string of the list (the automaton needs only these)."""
    known = set(strings)
    out = []
    for s in strings:
        k = len(s)
        if not any(s[i:j] in known for i in range(k) for j in range(i + 1, k + 1) if j - i < k):
            out.append(s)
    return out


def automaton(strings: list[tuple[int, ...]]) -> np.ndarray:
    """Aho-Corasick's automaton over moves 0..3 for `strings`: int32 ``table[state * 4 + move]``,
    -1 where the move ends one of the strings. State 0 is the start."""
    goto = [[-1] * 4]
    final = [False]
    for s in strings:
        q = 0
        for m in s:
            if goto[q][m] < 0:
                goto.append([-1] * 4)
                final.append(False)
                goto[q][m] = len(goto) - 1
            q = goto[q][m]
        final[q] = True
    fail = [0] * len(goto)
    queue = deque()
    for m in range(4):
        if goto[0][m] < 0:
            goto[0][m] = 0
        else:
            queue.append(goto[0][m])
    while queue:
        q = queue.popleft()
        final[q] = final[q] or final[fail[q]]
        for m in range(4):
            r = goto[q][m]
            if r < 0:
                goto[q][m] = goto[fail[q]][m]
            else:
                fail[r] = goto[fail[q]][m]
                queue.append(r)
    table = np.array(goto, dtype=np.int32).reshape(-1)
    table[np.array(final)[table]] = -1
    return table


# The automaton that prunes nothing: one state, every move stays in it. Read-only, as every
# automaton `move_pruning` returns: one array type, so the IDA* kernel compiles once.
NO_PRUNING = np.zeros(4, dtype=np.int32)
NO_PRUNING.setflags(write=False)


# Bump when the strings or the automaton's layout change: a file of another version is not read.
FORMAT = "fastsnake-prune-1"


def automaton_path(rows: int, cols: int, depth: int):
    from fastsnake.puzzle.pdb_store import cache_dir

    return cache_dir() / f"prune-{rows}x{cols}-d{depth}.bin"


def _key(rows: int, cols: int, depth: int) -> dict:
    return {"format": FORMAT, "rows": rows, "cols": cols, "depth": depth}


def _load(path, rows: int, cols: int, depth: int) -> np.ndarray | None:
    """The automaton stored at `path` when it is whole and ours (the PDB files' header, size and
    checksum, `pdb_store.read_checked`; every transition a state or -1), else None: a damaged
    automaton could prune an optimal path."""
    from fastsnake.puzzle.pdb_store import read_checked

    data = read_checked(path, _key(rows, cols, depth))
    if data is None or len(data) == 0 or len(data) % 16:
        return None
    table = data.view("<i4").astype(np.int32)
    if table.min() < -1 or table.max() >= len(table) // 4:
        return None
    return table


def _save(path, table: np.ndarray, rows: int, cols: int, depth: int, seconds: float) -> None:
    from fastsnake.puzzle.pdb_store import save_table

    try:
        save_table(path, _key(rows, cols, depth), table.astype("<i4").view(np.uint8), seconds)
    except OSError:
        pass  # a read-only or full cache: the automaton is rebuilt next time, the search is the same


_BUILDING = threading.Lock()  # one thread finds and writes an automaton at a time (`solve_many`'s threads)


@lru_cache(maxsize=16)
def _pruning(rows: int, cols: int, depth: int) -> np.ndarray:
    if depth < 6:  # no string shorter than 6 moves is ever dominated (the 2x2 loops are 12 long)
        return NO_PRUNING
    path = automaton_path(rows, cols, depth)
    with _BUILDING:
        table = _load(path, rows, cols, depth)
        if table is None:
            t0 = time.process_time()
            table = automaton(minimal_strings(pruned_strings(rows, cols, depth)))
            _save(path, table, rows, cols, depth, time.process_time() - t0)
    table.setflags(write=False)
    return table


def move_pruning(rows: int, cols: int, depth: int | None = None) -> np.ndarray:
    """The pruning automaton for a rows x cols board (see the module's docstring); `depth`, the
    longest pruned string, defaults to `prune_depth(rows, cols)`; 0 prunes nothing."""
    depth = prune_depth(rows, cols) if depth is None else check_depth(depth)
    return _pruning(int(rows), int(cols), int(depth))
