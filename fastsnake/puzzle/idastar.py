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

from fastsnake.puzzle.heuristic import HC_COLS, HC_GOALPOS, HC_ROWS, specialise
from fastsnake.puzzle.prune import NO_PRUNING
from fastsnake.signals import Overtime, stoppable

# Kernel results.
IDA_BUDGET, IDA_FOUND, IDA_ITERATION_DONE = 0, 1, 2
# Slots of the state vector `st`.
S_DEPTH, S_BLANK, S_BOUND, S_NEXT_BOUND, S_GENERATED, S_EXPANDED = range(6)
_INF = 1 << 30


# The heuristic's hooks (see `fastsnake.puzzle.heuristic.Heuristic`): each kernel is the
# template with these names bound to one heuristic's functions (`ida_kernel`).
h_ida_scratch = h_ida_child = h_ida_down = h_ida_up = None


def ida_template(board, nbr, hc, hs, st, path, nxt, hst, prune, fsm, budget):
    """Continue the current iteration for at most `budget` generated nodes.

    prune is the duplicate-path automaton (`fastsnake.puzzle.prune`): a child whose move makes
    prune[fsm[d] * 4 + m] negative is never generated; fsm[d] is the automaton's state at depth d.
    `hs` is the heuristic's state for this iteration (its `ida_state`), kept up to date by its hooks:
    a child's value (`h_ida_child`, given the bound it must not pass), the step down to a child
    (`h_ida_down`) and the step back (`h_ida_up`)."""
    rows = hc[HC_ROWS]
    cols = hc[HC_COLS]
    goalpos = hc[HC_GOALPOS]
    n = rows * cols
    sc = h_ida_scratch(board, hc, hs)

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
            h_ida_up(hc, hs, sc, d - 1, t, path[d - 1])
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
        # Tile t slides from cell a into cell `blank`.
        nh = h_ida_child(board, hc, hs, sc, d, hst[d], t, a, blank, m, bound - d - 1)
        f = d + 1 + nh
        if f > bound:
            if f < next_bound:
                next_bound = f
            continue
        h_ida_down(hc, hs, sc, d, t, m)
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


def ida_kernel(hooks: dict, name: str, **where):
    """The IDA* kernel `name` for a heuristic's hooks (names ``h_ida_*``; others are ignored):
    `ida_template` specialised on them (`fastsnake.puzzle.heuristic.specialise`; `where`: a
    user's generated module and file)."""
    return specialise(ida_template, name, {k: v for k, v in hooks.items() if k.startswith("h_ida_")}, **where)


class IdaSearch:
    """Python driver state of one IDA* search (see `fastsnake.puzzle.solver.solve`).

    `state(hc, root, depth)` makes each iteration's heuristic state (its `ida_state`) and `run` is
    the kernel (`fastsnake.puzzle.heuristics.search_parts`: the template specialised on the heuristic)."""

    def __init__(self, start, nbr, hc, h0, state, run, prune=NO_PRUNING, on_error=None):
        self.run = run
        self.state = state
        self.on_error = on_error  # a user's heuristic: the error to raise when the kernel raised
        self.prune = prune
        self.root = np.array(start, dtype=np.int8)
        self.board = self.root.copy()
        self.nbr = nbr
        self.hc = hc
        self.h0 = int(h0)
        self.st = np.zeros(6, np.int64)
        self.st[S_BLANK] = int(np.flatnonzero(self.root == 0)[0])
        self.st[S_BOUND] = self.h0
        self.iterations = 0
        self._start_iteration()

    def _start_iteration(self):
        bound = int(self.st[S_BOUND])
        depth = bound + 2
        self.path = np.zeros(depth, np.int8)
        self.nxt = np.zeros(depth, np.int8)
        self.hst = np.zeros(depth, np.int64)
        self.fsm = np.zeros(depth, np.int32)
        self.hst[0] = self.h0
        self.hs = self.state(self.hc, self.root, depth)
        self.st[S_DEPTH] = 0
        self.st[S_NEXT_BOUND] = _INF
        self.iterations += 1

    def step(self, budget: int) -> int:
        """Run up to `budget` generated nodes; returns IDA_FOUND, IDA_BUDGET, or
        IDA_ITERATION_DONE after moving on to the next bound (never returns it when
        the next bound would exceed every reachable f: then IDA_ITERATION_DONE with
        bound = _INF means the goal is unreachable)."""
        try:
            # Off the main thread, so that a signal (or a deadline) can leave a kernel that does not return.
            status = stoppable(self.run, self.board, self.nbr, self.hc, self.hs, self.st, self.path, self.nxt,
                               self.hst, self.prune, self.fsm, budget)
        except Overtime:
            raise
        except Exception as exc:
            if self.on_error is None:
                raise
            raise self.on_error(exc) from None
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
