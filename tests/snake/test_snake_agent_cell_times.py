"""The `cell` policy's entry-time passability against its table definition.

`cell` keeps absolute entry times (cells, blocks, crossed block edges) in its
workspace, O(1) a move (`_stamp_head`), or rebuilt from the body (`_stamp_body`),
plus virtual stamps for planned legs that are undone after a search
(`_stamp_virtual`, `_undo_virtual`). `_passable` must answer exactly as the
older per-search tables (agent_naive.cell_passable_spec) computed from the body.
The body is driven through a ring buffer exactly as the engine moves it.
"""

from collections import Counter

import agent_naive
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from fastsnake.snake.board import GameConfig, neighbour_table
from fastsnake.snake.celltree import layout, times, workspace
from fastsnake.snake.celltree.blocks import block_tables, right_hand_table
from fastsnake.snake.engine import make_state
from fastsnake.snake.policies import get_policy

even = st.sampled_from([2, 4, 6])


# ---------------------------------------------------------------- njit drivers


@njit
def _state(body, head_i, tail_i, length, moves):
    n = body.shape[0]
    return make_state(body[head_i], body[tail_i], head_i, tail_i, length, -1, n - length, moves, 0, 0)


@njit
def stamp_head(L, body, head_i, tail_i, length, moves):
    times.stamp_head(L, body, _state(body, head_i, tail_i, length, moves))


@njit
def stamp_body(L, body, head_i, tail_i, length, moves):
    times.stamp_body(L, body, _state(body, head_i, tail_i, length, moves))


@njit
def passability(L, nbr2, base, avoid, gmax):
    """out[frm*4 + move, gm] = _passable(frm, nbr2[frm*4+move], gm) for gm in 1..gmax (0 where no edge)."""
    L[layout.L_TIME_BASE] = base
    L[layout.L_AVOID] = avoid
    out = np.zeros((nbr2.shape[0], gmax + 1), np.int8)
    for k in range(nbr2.shape[0]):
        to = nbr2[k]
        if to < 0:
            continue
        for gm in range(1, gmax + 1):
            out[k, gm] = 1 if times.passable(L, k // 4, to, gm) else 0
    return out


# ---------------------------------------------------------------- the reference side


def spec_table(rows, cols, nbr2, seq, slack, avoid, gmax, tally=None):
    """The same table from the reference definition; tally counts which clause decided."""
    passable = agent_naive.cell_passable_spec(rows, cols, seq, slack, avoid)
    out = np.zeros((nbr2.shape[0], gmax + 1), np.int8)
    for k, to in enumerate(nbr2.tolist()):
        if to < 0:
            continue
        for gm in range(1, gmax + 1):
            out[k, gm] = passable(k // 4, to, gm)
            if tally is not None:
                tally[_clause(rows, cols, seq, slack, avoid, k // 4, to, gm, passable)] += 1
    return out


def _clause(rows, cols, seq, slack, avoid, frm, to, gm, passable):
    """Which part of the definition decided the answer (for the coverage check)."""
    block = agent_naive.block_of
    if to == avoid:
        return "avoid"
    if to in seq and gm < seq.index(to) + slack:
        return "cell busy"
    if block(rows, cols, frm) == block(rows, cols, to):
        return "same block"
    in_block = [k + slack for k, c in enumerate(seq) if block(rows, cols, c) == block(rows, cols, to)]
    if not in_block:
        return "untouched block"
    if max(in_block) <= gm:
        return "block left"
    return "edge back" if passable(frm, to, gm) else "closed"


def first_difference(got, expected, nbr2):
    k, gm = np.argwhere(got != expected)[0].tolist()
    return dict(frm=k // 4, to=int(nbr2[k]), gm=gm, kernel=bool(got[k, gm]), spec=bool(expected[k, gm]))


def legal_steps(rows, cols, seq, grow, tail):
    """Right-hand moves from the head that keep the body window free of repeats (and legal under `tail`)."""
    if grow or tail == "blocked":
        forbidden = set(seq)
    else:
        forbidden = set(seq[1:])  # the tail leaves as the head enters
    return [c for c in agent_naive.right_hand_moves(rows, cols, seq[-1]) if c not in forbidden]


def random_continuation(rows, cols, seq, tail, rng, steps):
    """A legal path of up to `steps` moves from the head without eating."""
    window = list(seq)
    length = len(seq)
    path = []
    while len(path) < steps:
        options = legal_steps(rows, cols, window, False, tail)
        if not options:
            break
        nxt = int(rng.choice(options))
        path.append(nxt)
        window = (window + [nxt])[-length:]
    return path


def ring_cells(body, tail_i, length):
    n = body.shape[0]
    return [int(body[(tail_i + k) % n]) for k in range(length)]


def drive(rows, cols, tail, seed, start_length, grow_p, moves_wanted, gaps, tally=None):
    """Walk a random right-hand snake, stamping as the engine would, and check `_passable` all along.

    Returns the number of positions checked."""
    rng = np.random.default_rng(seed)
    n = rows * cols
    nbr2 = right_hand_table(neighbour_table(rows, cols), rows, cols)
    slack = 1 if tail == "follow" else 2
    gmax = n + 2

    # Start body: a random self-avoiding right-hand walk, tail first.
    seq = [int(rng.integers(n))]
    while len(seq) < start_length:
        options = [c for c in agent_naive.right_hand_moves(rows, cols, seq[-1]) if c not in seq]
        if not options:
            break
        seq.append(int(rng.choice(options)))
    config = GameConfig(rows, cols, len(seq), tail)
    cfg, nbr = config.arrays()
    L = workspace.alloc(cfg, nbr, get_policy("cell").params(config))[layout.W_L]
    L[layout.L_STAMPED_MOVE] = -2  # as _reset does

    body = np.zeros(n, np.int32)
    body[:len(seq)] = seq
    head_i, tail_i, length, moves = len(seq) - 1, 0, len(seq), 0
    checked = 0

    for _ in range(moves_wanted + 1):
        if moves > 0:
            grow = length < n - 1 and rng.random() < grow_p
            options = legal_steps(rows, cols, seq, grow, tail)
            if not options:
                break
            # Prefer moves after which the walk can go on (it lasts longer), else any.
            stays = seq if grow else seq[1:]
            onward = [c for c in options if legal_steps(rows, cols, stays + [c], False, tail)]
            target = int(rng.choice(onward or options))
            # The engine's move: the head takes the next ring slot; the tail slot
            # advances unless the snake grows.
            head_i = (head_i + 1) % n
            body[head_i] = target
            seq.append(target)
            if grow:
                length += 1
            else:
                tail_i = (tail_i + 1) % n
                seq.pop(0)
        assert ring_cells(body, tail_i, length) == seq
        # Now and then the policy is not asked at a move (a gap): the next stamp rebuilds.
        if gaps and moves > 0 and rng.random() < 0.15:
            moves += 1
            continue
        stamp_head(L, body, head_i, tail_i, length, moves)
        assert L[layout.L_STAMPED_MOVE] == moves
        tail_time = moves - length + 1
        free = [c for c in range(n) if c not in seq]

        # 1. Incremental stamps answer as the spec.
        avoid = int(rng.choice(free)) if free and rng.random() < 0.5 else -1
        got = passability(L, nbr2, tail_time - slack, avoid, gmax)
        expected = spec_table(rows, cols, nbr2, seq, slack, avoid, gmax, tally)
        assert np.array_equal(got, expected), dict(
            what="incremental", seq=seq, moves=moves, tail=tail, avoid=avoid, **first_difference(got, expected, nbr2))

        # 2. A full rebuild answers the same.
        if rng.random() < 0.5:
            full = L.copy()
            stamp_body(full, body, head_i, tail_i, length, moves)
            assert full[layout.L_STAMPED_MOVE] == moves
            again = passability(full, nbr2, tail_time - slack, avoid, gmax)
            assert np.array_equal(again, got), dict(what="rebuild", seq=seq, moves=moves, avoid=avoid)

        # 3. Virtual legs from the head: the spec on the body after them; undo restores L.
        if rng.random() < 0.5:
            path = random_continuation(rows, cols, seq, tail, rng, int(rng.integers(1, 2 * n + 1)))
            if path:
                snapshot = L.copy()
                cuts = sorted(set(rng.integers(1, len(path) + 1, size=int(rng.integers(0, 3))).tolist()) | {len(path)})
                start, done = seq[-1], 0
                for cut in cuts:  # chained legs, as the detours of a search
                    leg = np.array(path[done:cut], np.int32)
                    times.stamp_virtual(L, leg, len(leg), start, moves + done)
                    start, done = path[cut - 1], cut
                assert not np.array_equal(L, snapshot)
                # The undo log (3 entries of 2 slots a step at most) is scratch space.
                log_from, log_used = L[layout.L_UNDO_LOG], L[layout.L_UNDO_LENGTH]
                assert 0 < log_used <= 6 * len(path)
                outside_log = np.ones(L.shape[0], bool)
                outside_log[log_from:log_from + log_used] = False
                vseq = (seq + path)[-length:]
                vfree = [c for c in range(n) if c not in vseq]
                vavoid = int(rng.choice(vfree)) if vfree and rng.random() < 0.5 else -1
                got_v = passability(L, nbr2, tail_time + len(path) - slack, vavoid, gmax)
                expected_v = spec_table(rows, cols, nbr2, vseq, slack, vavoid, gmax, tally)
                assert np.array_equal(got_v, expected_v), dict(
                    what="virtual", seq=seq, path=path, cuts=cuts, moves=moves, tail=tail, avoid=vavoid,
                    **first_difference(got_v, expected_v, nbr2))
                L[layout.L_TIME_BASE], L[layout.L_AVOID] = snapshot[layout.L_TIME_BASE], snapshot[layout.L_AVOID]
                times.undo_virtual(L)
                assert L[layout.L_UNDO_LENGTH] == 0
                assert np.array_equal(L[outside_log], snapshot[outside_log]), np.flatnonzero(L != snapshot)
        checked += 1
        moves += 1
    return checked


# ---------------------------------------------------------------- tests


@settings(max_examples=120, deadline=None)
@given(even, even, st.sampled_from(["follow", "blocked"]), st.integers(0, 2**32), st.integers(1, 35),
       st.sampled_from([0.0, 0.1, 0.3]), st.integers(10, 120), st.booleans())
def test_passable_agrees_with_the_table_definition(rows, cols, tail, seed, start_length, grow_p, moves, gaps):
    n = rows * cols
    checked = drive(rows, cols, tail, seed, min(start_length, n - 1), grow_p, moves, gaps)
    assert checked >= 1


def test_every_clause_of_the_definition_is_exercised():
    """Fixed walks on 4x4 to 6x6: each part of the definition decides some answers."""
    tally = Counter()
    for seed in range(6):
        for tail in ("follow", "blocked"):
            drive(6 if seed % 2 else 4, 6 if seed % 3 else 4, tail, seed, 3 + 2 * seed, 0.2, 40, False, tally)
    for clause in ("avoid", "cell busy", "same block", "untouched block", "block left", "edge back", "closed"):
        assert tally[clause] > 0, tally


def kernel_table(rows, cols, seq, tail, avoid=-1):
    """_passable for a body laid at the start of a game (moves = 0), every right-hand edge and gm."""
    n = rows * cols
    config = GameConfig(rows, cols, len(seq), tail)
    cfg, nbr = config.arrays()
    L = workspace.alloc(cfg, nbr, get_policy("cell").params(config))[layout.W_L]
    L[layout.L_STAMPED_MOVE] = -2
    body = np.zeros(n, np.int32)
    body[:len(seq)] = seq
    stamp_head(L, body, len(seq) - 1, 0, len(seq), 0)
    slack = 1 if tail == "follow" else 2
    nbr2 = right_hand_table(nbr, rows, cols)
    return passability(L, nbr2, (1 - len(seq)) - slack, avoid, n + 2), nbr2


def test_crossing_back_over_an_edge_the_body_still_uses():
    """4x4, blocks 0 = {0,1,4,5}, 1 = {2,3,6,7}, 2 = {8,9,12,13}, 3 = {10,11,14,15}.

    The head is at 2 (block 1); its right-hand move left enters 1 (block 0) across edge 0."""
    rows, cols = 4, 4
    left_of_2 = 2 * 4 + 3
    cases = [
        # Body left block 0 across edge 0 (5 -> 6, k = 3): crossing back is fine at once
        # (edge used until move (3 - 1 + slack) - 1), then block 0 is free (move 2 + slack on).
        ([0, 4, 5, 6, 7, 3, 2], "follow", [True] * 6),
        ([0, 4, 5, 6, 7, 3, 2], "blocked", [True] * 6),
        # Body left block 0 downwards (4 -> 8) and came round through blocks 2, 3, 1:
        # entering block 0 across edge 0 would close a block loop until the body has
        # left block 0 (move 3 + slack), though cell 1 itself is free from move 1 + slack.
        ([5, 1, 0, 4, 8, 12, 13, 14, 15, 11, 7, 3, 2], "follow", [False, False, False, True, True, True]),
        ([5, 1, 0, 4, 8, 12, 13, 14, 15, 11, 7, 3, 2], "blocked", [False, False, False, False, True, True]),
    ]
    for seq, tail, expected in cases:
        slack = 1 if tail == "follow" else 2
        passable = agent_naive.cell_passable_spec(rows, cols, seq, slack)
        assert [passable(2, 1, gm) for gm in range(1, 7)] == expected
        for avoid in (-1, 10):
            got, nbr2 = kernel_table(rows, cols, seq, tail, avoid)
            assert got[left_of_2, 1:7].tolist() == [int(e) for e in expected]
            table = spec_table(rows, cols, nbr2, seq, slack, avoid, rows * cols + 2)
            assert np.array_equal(got, table), first_difference(got, table, nbr2)


@settings(max_examples=20, deadline=None)
@given(st.sampled_from([2, 4, 6, 8]), st.sampled_from([2, 4, 6, 8]))
def test_block_tables_match_the_reference_blocks_and_sides(rows, cols):
    blk, side = block_tables(rows, cols)
    n = rows * cols
    assert blk.tolist() == [agent_naive.block_of(rows, cols, c) for c in range(n)]
    assert side.tolist() == [agent_naive.side_edge(rows, cols, c) for c in range(n)]
    # A right-hand move changes block exactly when it leaves across the cell's own side.
    nbr2 = right_hand_table(neighbour_table(rows, cols), rows, cols)
    for c in range(n):
        for to in nbr2[c * 4:c * 4 + 4].tolist():
            if to >= 0 and blk[to] != blk[c]:
                assert side[c] >= 0
                a, b = sorted((blk[c], blk[to]))
                hc = cols // 2
                assert side[c] == (2 * a if a // hc == b // hc else 2 * a + 1)  # right or down of a
