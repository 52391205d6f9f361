"""A* (and, with the zero heuristic, uniform-cost BFS) over packed puzzle states.

A state is packed into W uint64 words: 4 bits per cell (16 cells per word) when the
board has at most 16 cells, so a 4x4 state is one word, else 6 bits per cell
(10 per word), so a 6x6 state is 4 words. Nodes live in flat arrays (state words,
g, h, parent, move); the closed/open set is an open-addressing hash table of node
indices with linear probing, and the open list is the shared int64 binary heap
keyed by (f, h, node) so ties prefer deeper nodes.

The kernel is resumable and never allocates: it stops with A_GROW before a step
could overflow its arrays, and the Python driver grows them (up to --max-nodes)
or reports "node limit reached"; between calls the driver checks the time limit.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
from numba import config, njit

from fastsnake.puzzle.heuristic import HC_COLS, HC_ROWS, specialise
from fastsnake.search.heap import heap_pop, heap_push
from fastsnake.signals import Overtime, stoppable

if config.DISABLE_JIT:  # interpreted, the uint64 hash sums are numpy scalars: they wrap (as intended) and warn
    warnings.filterwarnings("ignore", "overflow encountered", RuntimeWarning, re.escape(__name__))

A_BUDGET, A_FOUND, A_EXHAUSTED, A_GROW = range(4)
# Slots of the counter vector `st`.
C_NODES, C_HEAP, C_GENERATED, C_EXPANDED, C_GOAL = range(5)
ROOT = 0  # node index of the start state
_IDX_MASK = (1 << 32) - 1
_H_MASK = (1 << 16) - 1


def layout(ncells: int) -> tuple[int, int, int]:
    """(bits per cell, cells per word, words per state)."""
    bits = 4 if ncells <= 16 else 6
    per = 64 // bits
    return bits, per, -(-ncells // per)


@njit(cache=True, inline="always")
def _get(words, base, cell, bits, per):
    """Tile of `cell` in the packed state at `words[base:]` (`per` cells of `bits` bits a word)."""
    return np.int64((words[base + cell // per] >> np.uint64((cell % per) * bits))
                    & np.uint64((1 << bits) - 1))


@njit(cache=True)
def _pack(board, out, base, bits, per, nwords):
    """Pack `board` into `out[base:base+nwords]`, `per` cells of `bits` bits a word."""
    for w in range(nwords):
        out[base + w] = np.uint64(0)
    for cell in range(len(board)):
        out[base + cell // per] |= np.uint64(board[cell]) << np.uint64((cell % per) * bits)


@njit(cache=True, inline="always")
def _hash(words, base, nwords):
    """A mixed 64-bit hash of the packed state `words[base:base+nwords]` (the table's probe start)."""
    x = np.uint64(0x9E3779B97F4A7C15)
    for w in range(nwords):
        x ^= words[base + w]
        x *= np.uint64(0xBF58476D1CE4E5B9)
        x ^= x >> np.uint64(31)
    return x


@njit(cache=True, inline="always")
def _find(table, tkey, states, words, base, nwords):
    """Slot of the state words[base:base+nwords] in `table`: (slot, node or -1).

    `tkey[slot]` keeps the state's first word beside the node index, so a probe
    of a one-word state (up to 16 cells) never touches the node arrays.
    """
    mask = len(table) - 1
    first = words[base]
    slot = np.int64(_hash(words, base, nwords) & np.uint64(mask))
    while True:
        j = table[slot]
        if j < 0:
            return slot, -1
        if tkey[slot] == first:
            same = True
            for w in range(1, nwords):
                if states[j * nwords + w] != words[base + w]:
                    same = False
                    break
            if same:
                return slot, j
        slot = (slot + 1) & mask


@njit(cache=True)
def _rehash(table, tkey, states, nodes, nwords):
    """Rebuild the open-addressing table from the first `nodes` stored states (after it grew)."""
    table[:] = -1
    for j in range(nodes):
        slot, _ = _find(table, tkey, states, states, j * nwords, nwords)
        table[slot] = j
        tkey[slot] = states[j * nwords]


# The heuristic's hook (see `fastsnake.puzzle.heuristic.Heuristic`): each kernel is the
# template with it bound to one heuristic's function (`astar_kernel`).
h_astar_child = None


def astar_template(nbr, hc, goal_words, states, g, hv, parent, pmove, table, tkey, heap, st,
                   board, child, sc, budget):
    """Expand up to `budget` nodes. Returns A_FOUND (st[C_GOAL] = goal node),
    A_EXHAUSTED, A_BUDGET, or A_GROW (arrays need room before the next expansion).
    A child's value comes from the heuristic's hook `h_astar_child` (`sc`: its scratch)."""
    n = hc[HC_ROWS] * hc[HC_COLS]
    bits, per = (4, 16) if n <= 16 else (6, 10)
    nwords = len(goal_words)
    cap = len(g)
    hcap = len(heap)
    nodes = st[C_NODES]
    hsize = st[C_HEAP]
    generated = st[C_GENERATED]
    expanded = st[C_EXPANDED]
    stop = expanded + budget
    status = A_BUDGET
    while True:
        if hsize == 0:
            status = A_EXHAUSTED
            break
        if nodes + 4 > cap or hsize + 4 > hcap or 2 * (nodes + 4) > len(table):
            status = A_GROW
            break
        if expanded >= stop:
            break
        key, hsize = heap_pop(heap, hsize)
        j = key & _IDX_MASK
        hj = (key >> 32) & _H_MASK
        gj = (key >> 48) - hj
        if gj != g[j]:
            continue  # a stale entry: this node was reached again more cheaply
        if hj == 0:
            at_goal = True
            for w in range(nwords):
                if states[j * nwords + w] != goal_words[w]:
                    at_goal = False
                    break
            if at_goal:
                st[C_GOAL] = j
                status = A_FOUND
                break
        expanded += 1
        blank = 0
        for cell in range(n):
            t = _get(states, j * nwords, cell, bits, per)
            board[cell] = t
            if t == 0:
                blank = cell
        back = pmove[j] ^ 1
        for m in range(4):
            if m == back:
                continue
            a = nbr[blank * 4 + m]
            if a < 0:
                continue
            generated += 1
            t = board[a]
            # Child words: the parent's with the two changed cells rewritten.
            for w in range(nwords):
                child[w] = states[j * nwords + w]
            wa = a // per
            sa = np.uint64((a % per) * bits)
            wb = blank // per
            sb = np.uint64((blank % per) * bits)
            child[wa] &= ~(np.uint64((1 << bits) - 1) << sa)
            child[wb] |= np.uint64(t) << sb
            slot, k = _find(table, tkey, states, child, 0, nwords)
            ng = np.int64(g[j]) + 1
            if k >= 0:
                if ng >= g[k]:
                    continue
                g[k] = ng
                parent[k] = j
                pmove[k] = m
                hsize = heap_push(heap, hsize, ((ng + np.int64(hv[k])) << 48) | (np.int64(hv[k]) << 32) | k)
                continue
            h = h_astar_child(board, hc, sc, np.int64(hv[j]), t, a, blank)
            k = nodes
            nodes += 1
            for w in range(nwords):
                states[k * nwords + w] = child[w]
            g[k] = ng
            hv[k] = h
            parent[k] = j
            pmove[k] = m
            table[slot] = k
            tkey[slot] = child[0]
            hsize = heap_push(heap, hsize, ((ng + np.int64(h)) << 48) | (np.int64(h) << 32) | k)
    st[C_NODES] = nodes
    st[C_HEAP] = hsize
    st[C_GENERATED] = generated
    st[C_EXPANDED] = expanded
    return status


def astar_kernel(hooks: dict, name: str, **where):
    """The A* kernel `name` for a heuristic's hooks (``h_astar_child``; others are ignored):
    `astar_template` specialised on it (`fastsnake.puzzle.heuristic.specialise`; `where`: a
    user's generated module and file)."""
    return specialise(astar_template, name, {"h_astar_child": hooks["h_astar_child"]}, **where)


@njit(cache=True)
def _trace(parent, pmove, node):
    """The moves from the start to `node`, following `parent` links back (int8, in order)."""
    length = 0
    j = node
    while parent[j] >= 0:
        length += 1
        j = parent[j]
    out = np.empty(length, np.int8)
    j = node
    for i in range(length - 1, -1, -1):
        out[i] = pmove[j]
        j = parent[j]
    return out


class AStarSearch:
    """Python driver state of one A* search: owns the growable arrays.

    The arrays grow by doubling as long as the grown structures (and, while one array
    is copied, its old copy) stay within `max_bytes`; `grow` reports when they would not.
    """

    def __init__(self, start, goal, nbr, hc, h0, max_nodes: int, max_bytes: int | None = None, *, scratch,
                 run, on_error=None):
        # The kernel: the heuristic's (`heuristics.builtin_kernels`), or a user's copy (`user_kernels.kernels_of`).
        self.run = run
        self.on_error = on_error  # a user's heuristic: the error to raise when the kernel raised
        n = len(start)
        self.bits, self.per, self.nwords = layout(n)
        self.nbr = nbr
        self.hc = hc
        self.max_nodes = int(max_nodes)
        self.max_bytes = max_bytes
        cap = max(16, min(self.max_nodes, 1 << 12))
        self.states = np.zeros(cap * self.nwords, np.uint64)
        self.g = np.zeros(cap, np.int32)
        self.hv = np.zeros(cap, np.int16)
        self.parent = np.zeros(cap, np.int32)
        self.pmove = np.zeros(cap, np.int8)
        self.table = np.full(_pow2(4 * cap), -1, np.int32)
        self.tkey = np.zeros(len(self.table), np.uint64)
        self.heap = np.empty(cap, np.int64)
        self.st = np.zeros(5, np.int64)
        self.board = np.zeros(n, np.int8)
        self.child = np.zeros(self.nwords, np.uint64)
        self.sc = scratch  # the heuristic's (`fastsnake.puzzle.heuristics.search_parts`)
        self.goal_words = np.zeros(self.nwords, np.uint64)
        _pack(np.asarray(goal, np.int8), self.goal_words, 0, self.bits, self.per, self.nwords)
        # The root is node 0.
        _pack(np.asarray(start, np.int8), self.states, ROOT * self.nwords, self.bits, self.per, self.nwords)
        self.g[ROOT] = 0
        self.hv[ROOT] = h0
        self.parent[ROOT] = -1
        self.pmove[ROOT] = -4  # -4 ^ 1 is no move, so no child is skipped at the root
        _rehash(self.table, self.tkey, self.states, 1, self.nwords)
        self.heap[0] = (int(h0) << 48) | (int(h0) << 32) | ROOT
        self.st[C_NODES] = 1
        self.st[C_HEAP] = 1

    def node_bytes(self) -> int:
        """Bytes of the per-node arrays for one stored state (table and heap not counted)."""
        return 8 * self.nwords + 4 + 2 + 4 + 1

    def grow(self) -> bool:
        """Make room for the next expansion; False when the memory budget (`max_bytes`)
        forbids it: nothing is allocated then."""
        nodes = int(self.st[C_NODES])
        cap = len(self.g)
        new_cap = 2 * cap if nodes + 4 > cap else cap
        if new_cap >= 1 << 31:  # node indices are int32
            return False
        new_table = len(self.table)
        if 2 * (nodes + 4) > new_table or new_table < 2 * new_cap:
            new_table = _pow2(4 * new_cap)
        new_heap = 2 * len(self.heap) if int(self.st[C_HEAP]) + 4 > len(self.heap) else len(self.heap)
        if self.max_bytes is not None:
            after = new_cap * self.node_bytes() + new_table * 12 + new_heap * 8
            # While an array is copied its old copy is still alive: the largest one bounds the peak.
            old = [0]
            if new_cap != cap:
                old.append(self.states.nbytes)
            if new_heap != len(self.heap):
                old.append(self.heap.nbytes)
            if after + max(old) > self.max_bytes:
                return False
        if new_cap != cap:
            self.states = _grown(self.states, new_cap * self.nwords)
            self.g = _grown(self.g, new_cap)
            self.hv = _grown(self.hv, new_cap)
            self.parent = _grown(self.parent, new_cap)
            self.pmove = _grown(self.pmove, new_cap)
        if new_table != len(self.table):
            self.table = self.tkey = None  # free the old table before the new one is built
            self.table = np.full(new_table, -1, np.int32)
            self.tkey = np.zeros(new_table, np.uint64)
            _rehash(self.table, self.tkey, self.states, nodes, self.nwords)
        if new_heap != len(self.heap):
            self.heap = _grown(self.heap, new_heap)
        return True

    def step(self, budget: int) -> int:
        try:
            # Off the main thread, so that a signal (or a deadline) can leave a kernel that does not return.
            return stoppable(self.run, self.nbr, self.hc, self.goal_words, self.states, self.g, self.hv,
                             self.parent, self.pmove, self.table, self.tkey, self.heap, self.st, self.board,
                             self.child, self.sc, budget)
        except Overtime:
            raise
        except Exception as exc:
            if self.on_error is None:
                raise
            raise self.on_error(exc) from None

    def moves(self) -> np.ndarray:
        return _trace(self.parent, self.pmove, int(self.st[C_GOAL]))

    @property
    def generated(self) -> int:
        return int(self.st[C_GENERATED])

    @property
    def expanded(self) -> int:
        return int(self.st[C_EXPANDED])

    @property
    def nodes(self) -> int:
        return int(self.st[C_NODES])

    def memory_bytes(self) -> int:
        return sum(a.nbytes for a in (self.states, self.g, self.hv, self.parent, self.pmove,
                                      self.table, self.tkey, self.heap))


def _pow2(x: int) -> int:
    p = 1
    while p < x:
        p <<= 1
    return p


def _grown(arr: np.ndarray, size: int) -> np.ndarray:
    out = np.empty(size, arr.dtype)
    out[: len(arr)] = arr
    return out
