"""IDA*: iterative deepening on f = g + h, with an explicit stack and incremental heuristics.

No transposition or visited set is kept (a visited set shared across branches cuts
off paths that reach a state again with a smaller g and breaks optimality); paths
are pruned by moves only: never undoing the previous move, and the duplicate-path
automaton of `fastsnake.puzzle.prune` (strings of moves that reach a position some
earlier string reaches too; every optimal length is kept). The kernel is resumable: it runs
until a node budget is spent, the iteration's bound is exhausted or the goal is
reached, with all of its state in arrays, so the Python driver can enforce a time
limit between calls.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fastsnake.puzzle.heuristics import (
    H_LINEAR,
    H_MANHATTAN,
    H_MISPLACED,
    H_PDB,
    H_PDB_MAX,
    H_WALKING,
    HC_COLS,
    HC_DCELL,
    HC_GCOMPACT,
    HC_GOALPOS,
    HC_GSIZE,
    HC_KIND,
    HC_LK_CELL,
    HC_LK_GRP,
    HC_LK_MULT,
    HC_LK_SLOT,
    HC_MD,
    HC_NGROUPS,
    HC_NLK,
    HC_PDB,
    HC_PDB_OFF,
    HC_POP,
    HC_ROWS,
    HC_WDH_DIST,
    HC_WDH_NEXT,
    HC_WDV_DIST,
    HC_WDV_NEXT,
    LINE_CONFLICT_BUF,
    check_evaluable,
    child_heuristic,
    line_conflicts,
    pdb_cells,
    user_failure,
)
from fastsnake.puzzle.pdb_build import MAX_GROUP, group_rank
from fastsnake.puzzle.prune import NO_PRUNING

# Kernel results.
IDA_BUDGET, IDA_FOUND, IDA_ITERATION_DONE = 0, 1, 2
# Slots of the state vector `st`.
S_DEPTH, S_BLANK, S_BOUND, S_NEXT_BOUND, S_GENERATED, S_EXPANDED = range(6)
_INF = 1 << 30


@njit(cache=True, inline="always")
def _pdb_child(t, m, n, pdb, p_off, lk_grp, lk_mult, dcell, nlk, ngroups, idx, hl, limit,
               new_idx, new_hl, ranked, lk_slot, gsize, gcompact, pop, pc, new_val):
    """h of the child in which tile t moves (blank move m): the max over lookups of the
    additive sums. (Rounding h up to the parity of the blank's distance would gain
    nothing: a group's value already has the parity of its tiles' Manhattan sum.)

    Returns as soon as a lookup alone exceeds `limit`: that child is pruned, so the
    other lookups (and new_idx/new_hl, which are then incomplete) are not needed. The
    partial max is still a lower bound of h, so the next bound taken from it never
    passes the true minimum f and optimality holds (at worst an iteration repeats)."""
    best = 0
    for l in range(nlk):
        g = lk_grp[l * n + t]
        old = idx[l * ngroups + g]
        if ranked and gcompact[g]:
            base = (l * ngroups + g) * MAX_GROUP
            at = base + lk_slot[l * n + t]
            was = pc[at]
            pc[at] = was + dcell[l * 4 + m]
            nw = group_rank(pc, base, gsize[g], n, pop)
            pc[at] = was
        else:
            nw = old + dcell[l * 4 + m] * lk_mult[l * n + t]
        # The parent's value of the group is carried in idx[K + slot] (K = nlk * ngroups),
        # not read again: after the searches below the parent it may have left the cache.
        v = np.int64(pdb[p_off[g] + nw])
        s = hl[l] - idx[nlk * ngroups + l * ngroups + g] + v
        new_idx[l] = nw
        new_hl[l] = s
        new_val[l] = v
        if s > best:
            best = s
            if best > limit:
                return best
    return best


@njit(cache=True, nogil=True)
def _ida_run(board, nbr, hc, st, path, nxt, hst, wdv, wdh, idx, hl, sv_idx, sv_hl, prune, fsm, budget):
    """Continue the current iteration for at most `budget` generated nodes.

    prune is the duplicate-path automaton (`fastsnake.puzzle.prune`): a child whose move makes
    prune[fsm[d] * 4 + m] negative is never generated; fsm[d] is the automaton's state at depth d.

    PDB state: idx[l*G + g] / hl[l] hold the current node's table indices and sums, and
    idx[L*G + l*G + g] each group's table value (L lookups, G groups); a step down saves
    the entries it overwrites in sv_idx[(depth*L + l)*2 ...]/sv_hl[depth*L + l], so
    stepping back restores them without any table access."""
    kind = hc[HC_KIND]
    if kind == H_PDB_MAX:
        kind = H_PDB  # evaluated alike: more lookups
    rows = hc[HC_ROWS]
    cols = hc[HC_COLS]
    goalpos = hc[HC_GOALPOS]
    md = hc[HC_MD]
    pdb = hc[HC_PDB]
    p_off = hc[HC_PDB_OFF]
    lk_grp = hc[HC_LK_GRP]
    lk_mult = hc[HC_LK_MULT]
    nlk = hc[HC_NLK]
    ngroups = hc[HC_NGROUPS]
    dcell = hc[HC_DCELL]
    wdv_next = hc[HC_WDV_NEXT]
    wdv_dist = hc[HC_WDV_DIST]
    wdh_next = hc[HC_WDH_NEXT]
    wdh_dist = hc[HC_WDH_DIST]
    lk_slot = hc[HC_LK_SLOT]
    gsize = hc[HC_GSIZE]
    gcompact = hc[HC_GCOMPACT]
    pop = hc[HC_POP]
    n = rows * cols
    new_idx = np.empty(max(nlk, 1), np.int64)
    new_hl = np.empty(max(nlk, 1), np.int64)
    new_val = np.empty(max(nlk, 1), np.int64)
    kk = nlk * ngroups
    buf = np.empty(LINE_CONFLICT_BUF, np.int64)
    sc_idx = np.empty(max(nlk * ngroups, 1), np.int64)
    sc_hl = np.empty(max(nlk, 1), np.int64)
    # Mirrored cells of every group's tiles (compact groups are ranked from them).
    pc = np.empty(max(nlk * ngroups * MAX_GROUP, 1), np.int64)
    ranked = False  # some group is compact: keep pc up to date
    if kind == H_PDB:
        pdb_cells(board, n, lk_grp, lk_slot, hc[HC_LK_CELL], nlk, ngroups, pc)
        for g in range(ngroups):
            ranked |= gcompact[g]

    d = st[S_DEPTH]
    blank = st[S_BLANK]
    bound = st[S_BOUND]
    next_bound = st[S_NEXT_BOUND]
    generated = st[S_GENERATED]
    expanded = st[S_EXPANDED]
    stop = generated + budget
    status = IDA_BUDGET
    while True:
        m = nxt[d]
        if m >= 4:
            if d == 0:
                status = IDA_ITERATION_DONE
                break
            # Undo the move that led here: the blank steps back.
            prev = nbr[blank * 4 + (path[d - 1] ^ 1)]
            t = board[prev]
            if kind == H_PDB:
                back = path[d - 1]
                for l in range(nlk):
                    g = lk_grp[l * n + t]
                    idx[l * ngroups + g] = sv_idx[((d - 1) * nlk + l) * 2]
                    idx[kk + l * ngroups + g] = sv_idx[((d - 1) * nlk + l) * 2 + 1]
                    hl[l] = sv_hl[(d - 1) * nlk + l]
                    if ranked:
                        pc[(l * ngroups + g) * MAX_GROUP + lk_slot[l * n + t]] -= dcell[l * 4 + back]
            board[blank] = t
            board[prev] = 0
            blank = prev
            d -= 1
            continue
        nxt[d] = m + 1
        if d > 0 and m == (path[d - 1] ^ 1):
            continue
        a = nbr[blank * 4 + m]
        if a < 0:
            continue
        q = prune[fsm[d] * 4 + m]
        if q < 0:
            continue
        if generated >= stop:
            nxt[d] = m
            break
        generated += 1
        t = board[a]
        h = hst[d]
        iv = 0
        ih = 0
        # Tile t slides from cell a into cell `blank`.
        if kind == H_MANHATTAN:
            nh = h + md[t * n + blank] - md[t * n + a]
        elif kind == H_PDB:
            nh = _pdb_child(t, m, n, pdb, p_off, lk_grp, lk_mult, dcell, nlk, ngroups, idx, hl,
                            bound - d - 1, new_idx, new_hl, ranked, lk_slot, gsize, gcompact, pop,
                            pc, new_val)
        elif kind == H_LINEAR:
            nh = h + md[t * n + blank] - md[t * n + a]
            # Only the tile's own goal line can change its conflicts, and only when
            # the tile enters or leaves that line.
            if m < 2:
                line = goalpos[t] // cols
                crosses = line == a // cols or line == blank // cols
            else:
                line = goalpos[t] % cols
                crosses = line == a % cols or line == blank % cols
            if crosses:
                before = line_conflicts(board, goalpos, rows, cols, line, m < 2, buf)
                board[blank] = t
                board[a] = 0
                after = line_conflicts(board, goalpos, rows, cols, line, m < 2, buf)
                board[a] = t
                board[blank] = 0
                nh += 2 * (after - before)
        elif kind == H_WALKING:
            iv = wdv[d]
            ih = wdh[d]
            if m < 2:
                iv = wdv_next[(iv * 2 + m) * rows + goalpos[t] // cols]
            else:
                ih = wdh_next[(ih * 2 + (m - 2)) * cols + goalpos[t] % cols]
            nh = np.int64(wdv_dist[iv]) + np.int64(wdh_dist[ih])
        elif kind == H_MISPLACED:
            nh = h
            if goalpos[t] != blank:
                nh += 1
            if goalpos[t] != a:
                nh -= 1
        else:
            # Any other registered heuristic: evaluated from scratch on the child, never
            # taken as 0 (IdaSearch refuses a kind the kernels cannot evaluate); in the
            # copies made for a user's heuristic (`user_kernels`), its update.
            nh = child_heuristic(board, hc, sc_idx, sc_hl, buf, h, t, a, blank)
        f = d + 1 + nh
        if f > bound:
            if f < next_bound:
                next_bound = f
            continue
        if kind == H_PDB:
            for l in range(nlk):
                g = lk_grp[l * n + t]
                slot = l * ngroups + g
                sv_idx[(d * nlk + l) * 2] = idx[slot]
                sv_idx[(d * nlk + l) * 2 + 1] = idx[kk + slot]
                idx[kk + slot] = new_val[l]
                sv_hl[d * nlk + l] = hl[l]
                idx[slot] = new_idx[l]
                hl[l] = new_hl[l]
                if ranked:
                    pc[slot * MAX_GROUP + lk_slot[l * n + t]] += dcell[l * 4 + m]
        elif kind == H_WALKING:
            wdv[d + 1] = iv
            wdh[d + 1] = ih
        board[blank] = t
        board[a] = 0
        blank = a
        path[d] = m
        d += 1
        fsm[d] = q
        hst[d] = nh
        nxt[d] = 0
        if nh == 0:
            at_goal = True
            for tt in range(1, n):
                if board[goalpos[tt]] != tt:
                    at_goal = False
                    break
            if at_goal:
                status = IDA_FOUND
                break
        expanded += 1
    st[S_DEPTH] = d
    st[S_BLANK] = blank
    st[S_NEXT_BOUND] = next_bound
    st[S_GENERATED] = generated
    st[S_EXPANDED] = expanded
    return status


# The kernel under its public name: `user_kernels` copies it for a user's heuristic.
ida_run = _ida_run


def kind_is_pdb(hc) -> bool:
    return int(hc[HC_KIND]) in (H_PDB, H_PDB_MAX)


class IdaSearch:
    """Python driver state of one IDA* search (see `fastsnake.puzzle.solver.solve`)."""

    def __init__(self, start, nbr, hc, h0, wd_ids=(0, 0), pdb_state=None, prune=NO_PRUNING, run=None):
        check_evaluable(hc, "IDA*", copied=run is not None)
        # The kernel: `_ida_run`, or its copy for a user's heuristic (`user_kernels.kernels_of`).
        self.run = _ida_run if run is None else run
        self.prune = prune
        self.root = np.array(start, dtype=np.int8)
        self.board = self.root.copy()
        self.nbr = nbr
        self.hc = hc
        self.h0 = int(h0)
        self.st = np.zeros(6, np.int64)
        self.st[S_BLANK] = int(np.flatnonzero(self.root == 0)[0])
        self.st[S_BOUND] = self.h0
        self.wd_ids = wd_ids
        nlk, ngroups = int(hc[HC_NLK]), int(hc[HC_NGROUPS])
        idx0, self.hl0 = pdb_state if pdb_state is not None else (
            np.zeros(max(nlk * ngroups, 1), np.int64), np.zeros(max(nlk, 1), np.int64))
        # The kernel carries each group's table value after the indices (see _ida_run).
        kk = nlk * ngroups
        values = np.zeros(max(kk, 1), np.int64)
        if kind_is_pdb(hc) and kk:
            pdb, p_off = hc[HC_PDB], hc[HC_PDB_OFF]
            gi = np.tile(np.arange(ngroups), nlk)
            values[:kk] = pdb[p_off[gi] + idx0[:kk]]
        self.idx0 = np.concatenate([np.asarray(idx0[:max(kk, 1)], np.int64), values])
        self.iterations = 0
        self._start_iteration()

    def _start_iteration(self):
        bound = int(self.st[S_BOUND])
        depth = bound + 2
        self.path = np.zeros(depth, np.int8)
        self.nxt = np.zeros(depth, np.int8)
        self.hst = np.zeros(depth, np.int64)
        self.wdv = np.zeros(depth, np.int64)
        self.wdh = np.zeros(depth, np.int64)
        self.fsm = np.zeros(depth, np.int32)
        self.wdv[0], self.wdh[0] = self.wd_ids
        self.hst[0] = self.h0
        self.idx = self.idx0.copy()
        self.hl = self.hl0.copy()
        nlk = max(int(self.hc[HC_NLK]), 1)
        self.sv_idx = np.zeros(depth * nlk * 2, np.int64)
        self.sv_hl = np.zeros(depth * nlk, np.int64)
        self.st[S_DEPTH] = 0
        self.st[S_NEXT_BOUND] = _INF
        self.iterations += 1

    def step(self, budget: int) -> int:
        """Run up to `budget` generated nodes; returns IDA_FOUND, IDA_BUDGET, or
        IDA_ITERATION_DONE after moving on to the next bound (never returns it when
        the next bound would exceed every reachable f: then IDA_ITERATION_DONE with
        bound = _INF means the goal is unreachable)."""
        try:
            status = self.run(self.board, self.nbr, self.hc, self.st, self.path, self.nxt, self.hst,
                              self.wdv, self.wdh, self.idx, self.hl, self.sv_idx, self.sv_hl, self.prune,
                              self.fsm, budget)
        except Exception as exc:
            if self.run is _ida_run:
                raise
            raise user_failure(self.hc, exc) from None
        if status == IDA_ITERATION_DONE:
            nb = int(self.st[S_NEXT_BOUND])
            if nb >= _INF:
                return status
            self.st[S_BOUND] = nb
            self._start_iteration()
            return IDA_BUDGET
        return status

    @property
    def bound(self) -> int:
        return int(self.st[S_BOUND])

    @property
    def generated(self) -> int:
        return int(self.st[S_GENERATED])

    @property
    def expanded(self) -> int:
        return int(self.st[S_EXPANDED])

    def moves(self) -> np.ndarray:
        return self.path[: int(self.st[S_DEPTH])].copy()
