"""The duplicate-path automaton of IDA* (`fastsnake.puzzle.prune`) against its definition, and
IDA* with it against exhaustive BFS distances."""

from __future__ import annotations

import functools
import itertools
import json
from collections import deque

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastsnake.puzzle import prune as PR
from fastsnake.puzzle.board import PuzzleInputError, apply_moves, neighbours
from fastsnake.puzzle.solver import solve


def _walk(rows, cols, cell, moves):
    """The position after `moves` with the blank at `cell` (labels = start cells), or None if
    a move leaves the board. Plain Python."""
    pos = list(range(rows * cols))
    blank = cell
    for m in moves:
        r, c = divmod(blank, cols)
        dr, dc = ((-1, 0), (1, 0), (0, -1), (0, 1))[m]
        if not (0 <= r + dr < rows and 0 <= c + dc < cols):
            return None
        to = (r + dr) * cols + c + dc
        pos[blank], pos[to] = pos[to], pos[blank]
        blank = to
    return tuple(pos)


def _naive_pruned(rows, cols, depth):
    """Strings without a move undoing the one before, of 1..depth moves, dominated from every cell
    where they can be made: some string (any, reversals included) shorter, or as long and smaller,
    reaches the same position from that cell. Brute force over all 4^k strings."""
    n = rows * cols
    by_len = [list(itertools.product(range(4), repeat=k)) for k in range(depth + 1)]
    out = []
    for k in range(1, depth + 1):
        for s in by_len[k]:
            if any(s[i + 1] == s[i] ^ 1 for i in range(k - 1)):
                continue
            made = 0
            dominated = 0
            for cell in range(n):
                end = _walk(rows, cols, cell, s)
                if end is None:
                    continue
                made += 1
                earlier = (t for j in range(k + 1) for t in by_len[j] if (j, t) < (k, s))
                if any(_walk(rows, cols, cell, t) == end for t in earlier):
                    dominated += 1
            if made and dominated == made:
                out.append(s)
    return out


def test_the_moves_are_the_boards_moves():
    # The naive walk above must use the kernel's move numbering (0 up, 1 down, 2 left, 3 right).
    nbr = neighbours(3, 4)
    for cell, m in itertools.product(range(12), range(4)):
        end = _walk(3, 4, cell, (m,))
        to = int(nbr[cell * 4 + m])
        assert (end is None) == (to < 0)
        if end is not None:
            assert end[cell] == to and end[to] == cell


@pytest.mark.parametrize("rows, cols, depth", [(2, 2, 7), (2, 3, 7), (3, 2, 6), (3, 3, 6), (2, 4, 6)])
def test_pruned_strings_are_the_definitions(rows, cols, depth):
    assert PR.pruned_strings(rows, cols, depth) == _naive_pruned(rows, cols, depth)


def _naive_rejects(strings, moves):
    """The first position at which a string of `strings` ends in `moves`, or None."""
    for i in range(1, len(moves) + 1):
        if any(moves[max(0, i - len(s)):i] == s for s in strings):
            return i
    return None


@functools.cache
def _strings_and_table():
    strings = PR.minimal_strings(PR.pruned_strings(4, 4, 10))
    return strings, PR.automaton(strings)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=40))
def test_the_automaton_rejects_exactly_the_strings_ending_in_a_pruned_one(moves):
    strings, table = _strings_and_table()
    q = 0
    stopped = None
    for i, m in enumerate(moves, 1):
        q = int(table[q * 4 + m])
        if q < 0:
            stopped = i
            break
    assert stopped == _naive_rejects(strings, tuple(moves))


def test_minimal_strings_drop_only_strings_with_a_pruned_part():
    strings = PR.pruned_strings(3, 3, 10)
    kept = PR.minimal_strings(strings)
    known = set(strings)
    for s in strings:
        inner = any(s[i:j] in known for i in range(len(s)) for j in range(i + 1, len(s) + 1) if j - i < len(s))
        assert (s in kept) == (not inner)


def _bfs_distances(rows, cols):
    """Exact distance of every position reachable from the goal (blank at 0), plain Python."""
    goal = tuple(range(rows * cols))
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        pos = queue.popleft()
        blank = pos.index(0)
        r, c = divmod(blank, cols)
        for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1)):
            if 0 <= r + dr < rows and 0 <= c + dc < cols:
                to = (r + dr) * cols + c + dc
                nxt = list(pos)
                nxt[blank], nxt[to] = nxt[to], nxt[blank]
                nxt = tuple(nxt)
                if nxt not in dist:
                    dist[nxt] = dist[pos] + 1
                    queue.append(nxt)
    return dist


@pytest.mark.parametrize("rows, cols", [(2, 3), (3, 2)])
def test_idastar_with_pruning_is_optimal_on_every_position(rows, cols):
    dist = _bfs_distances(rows, cols)
    goal = list(range(rows * cols))
    for pos, d in dist.items():
        r = solve(list(pos), goal, rows=rows, cols=cols, algorithm="idastar", heuristic="manhattan")
        assert r.length == d, pos
        if d:
            assert r.extra["prune_depth"] == PR.prune_depth(rows, cols) > 6
        assert apply_moves(r.start, r.moves, rows, cols).tolist() == goal


def test_idastar_with_pruning_is_optimal_on_a_3x3_sample():
    dist = _bfs_distances(3, 3)
    rng = np.random.default_rng(5)
    positions = list(dist)
    goal = list(range(9))
    for k in rng.choice(len(positions), 150, replace=False):
        pos = positions[int(k)]
        for heuristic in ("manhattan", "linear-conflict"):
            r = solve(list(pos), goal, rows=3, cols=3, algorithm="idastar", heuristic=heuristic)
            assert r.length == dist[pos]


@settings(max_examples=10, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([(4, 4), (3, 4)]))
def test_pruning_keeps_the_length_and_generates_fewer_nodes(seed, shape):
    rows, cols = shape
    rng = np.random.default_rng(seed)
    goal = np.arange(rows * cols)
    # A random walk of 40 blank moves from the goal: a start IDA* solves in a moment.
    nbr = neighbours(rows, cols)
    pos = goal.copy()
    blank = 0
    for _ in range(40):
        to = -1
        while to < 0:
            to = int(nbr[blank * 4 + int(rng.integers(4))])
        pos[blank], pos[to] = pos[to], pos[blank]
        blank = to
    plain = solve(pos, goal, rows=rows, cols=cols, algorithm="idastar", heuristic="manhattan", prune_depth=0)
    pruned = solve(pos, goal, rows=rows, cols=cols, algorithm="idastar", heuristic="manhattan")
    assert pruned.length == plain.length
    assert pruned.nodes_generated <= plain.nodes_generated
    assert apply_moves(pruned.start, pruned.moves, rows, cols).tolist() == goal.tolist()


def test_a_damaged_cached_automaton_is_never_used(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    PR._pruning.cache_clear()
    fresh = PR.move_pruning(3, 4, 8).copy()
    path = PR.automaton_path(3, 4, 8)
    assert path.exists()
    assert np.array_equal(PR._load(path, 3, 4, 8), fresh)
    raw = bytearray(path.read_bytes())
    raw[-5] ^= 0x40  # a flipped bit in the transitions
    path.write_bytes(bytes(raw))
    assert PR._load(path, 3, 4, 8) is None
    path.write_bytes(bytes(raw[: len(raw) // 2]))  # truncated
    assert PR._load(path, 3, 4, 8) is None
    assert PR._load(path, 3, 4, 9) is None  # another depth's name is not this one's file
    PR._pruning.cache_clear()
    assert np.array_equal(PR.move_pruning(3, 4, 8), fresh)  # rebuilt and written again
    assert np.array_equal(PR._load(path, 3, 4, 8), fresh)
    PR._pruning.cache_clear()


@pytest.mark.parametrize("bad", [-1, PR.MAX_PRUNE_DEPTH + 1, 2.5, True, "8"])
def test_a_bad_prune_depth_is_refused_naming_it(bad):
    with pytest.raises(PuzzleInputError, match="prune depth"):
        solve("1 2 3 4 5 6 7 8 0", rows=3, cols=3, algorithm="idastar", prune_depth=bad)


def test_the_cli_takes_a_prune_depth_and_says_which_ran(capsys):
    from fastsnake.cli import main

    start = "8 6 7 2 5 4 3 0 1"  # 27 moves from the identity
    runs = {}
    for depth in ("0", None):
        argv = ["puzzle", "solve", "--size", "3", "--start", start, "--algorithm", "idastar",
                "--heuristic", "manhattan", "--json", "--quiet"] + (["--prune-depth", depth] if depth else [])
        assert main(argv) == 0
        runs[depth] = json.loads(capsys.readouterr().out)
    assert runs["0"]["length"] == runs[None]["length"] == 27
    assert runs["0"]["extra"]["prune_depth"] == 0 and runs[None]["extra"]["prune_depth"] == PR.prune_depth(3, 3)
    assert runs[None]["nodes_generated"] < runs["0"]["nodes_generated"]
    for bad in ("-1", "99", "x"):
        with pytest.raises(SystemExit) as exc:
            main(["puzzle", "solve", "--size", "3", "--start", start, "--prune-depth", bad])
        assert exc.value.code == 2
        assert "--prune-depth" in capsys.readouterr().err
