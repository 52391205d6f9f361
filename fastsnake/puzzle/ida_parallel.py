"""Parallel IDA*: each iteration's tree split into work packets that N threads search at once.

The design is Reinefeld & Schnecke's AIDA*: for each bound, the top of the iteration's tree is
expanded into many more frontier nodes than threads (`PACKETS_PER_THREAD` a thread), and threads
take those subtrees (*packets*) in order from a shared counter. Nothing new is compiled: the top of
the tree and every packet are searched by the very kernel the serial search runs (the heuristic's
`idastar.ida_template` specialisation), which already keeps all of its state in arrays and stops
after a node budget:

- **The frontier** is the serial iteration itself, run one generated node at a time (``budget=1``):
  the moment it steps down to a node at the frontier depth, a copy of its whole state (board, stack,
  moves, the heuristic's per-depth state) is a packet, and the node's subtree is skipped
  (``nxt[depth] = 4``). A packet's copy has ``nxt`` exhausted above its own depth, so the kernel,
  resumed on it, searches exactly that node's subtree, in the serial order, with the serial
  search's parent and duplicate-path pruning, then unwinds to the root and reports the iteration
  done. The packets' subtrees and the top of the tree are therefore exactly the serial iteration's
  tree: every iteration but the last generates the serial search's nodes, to the node.
- **The threads** run packets in chunks of nodes (`CHUNK_SECONDS` of work each), the kernel without
  the GIL; between chunks a thread checks the shared stop conditions (a solution earlier in the
  serial order, a signal, a limit, another thread's error), so every thread stops within a chunk.
  The heuristic's tables are the context's arrays, read by every thread (no copy).
- **The answer is the serial search's.** Packets and frontier solutions are ordered as the serial
  search meets them; a solution found in packet k stops the packets after k, but the packets before
  k (which the serial search searches first) run on, and the earliest solution wins: the moves are
  the serial search's moves (and so the length).
- **So are the node counts, the last iteration's too.** Every item records the nodes the serial
  search generates (and expands) in the top of the tree up to its root (`Item.pre`), and a packet
  with a solution the nodes of its own search until it (`Item.found_at`). The serial search's count
  to the first solution is then the top of the tree up to the solving item, plus every packet before
  it whole, plus the solving packet to its solution: what the iteration reports, to the node,
  whatever the threads and their timing. The work the threads did beyond it (packets after k cut at
  a chunk boundary, the top of the tree after k) is reported apart (``searched_generated``). With
  ``whole_last_iteration`` every packet runs to its end, and the count is the whole last
  iteration's (the serial search reports the same with the same option).
- **The thread count may change between iterations**: `threads` is a number or a function called
  at the start of every iteration (a study's worker gives its search the cores its idle neighbours
  leave: `fastsnake.runs`); the counts are the serial search's whatever it returns.

Iterations smaller than `PARALLEL_MIN_NODES` (judged by the one before) run on one thread. Numba's
own parallel work queue is not used: it aborts when two threads call parallel kernels at once.
"""

from __future__ import annotations

import threading
import time

import numpy as np

from fastsnake.puzzle.idastar import (
    IDA_FOUND,
    IDA_ITERATION_DONE,
    S_BOUND,
    S_DEPTH,
    S_EXPANDED,
    S_GENERATED,
    S_NEXT_BOUND,
    IdaSearch,
)
from fastsnake.signals import OVERTIME_GRACE, leave_running

# Frontier nodes per thread an iteration is split into (AIDA*: many more than threads, so that one
# heavy packet does not leave the other threads idle). bench/bench_puzzle_parallel.py measures it.
PACKETS_PER_THREAD = 256
# An iteration runs on several threads when the one before it generated at least this many nodes
# (the next is several times bigger); smaller ones are not worth splitting.
PARALLEL_MIN_NODES = 1 << 17
# The frontier is made one node a kernel call (microseconds where the search takes tens of
# nanoseconds a node): it stops growing deeper once it has cost this share of the nodes of the
# iteration before (the one it splits is several times bigger), however few packets it has.
FRONTIER_SHARE = 2e-4
FRONTIER_MIN_NODES = 1 << 10
# A thread's chunk of nodes between two checks of the shared stop conditions: grown from the first
# size while a chunk takes less than CHUNK_SECONDS.
CHUNK_FIRST, CHUNK_MAX, CHUNK_SECONDS = 1 << 12, 1 << 22, 0.02
# How often the waiting main thread looks at the clock, the limits and the signals, and how long it
# waits for the threads once told to stop.
WAIT_SECONDS, STOP_WAIT = 0.05, 0.5

# Search outcomes of `ParallelIdaSearch.run`.
FOUND, NODES, TIME = "solved", "nodes", "time"


class Item:
    """One entry of an iteration's frontier, in the serial search's order: a packet (the state of
    the search at one frontier node) or a solution met while the frontier was made."""

    __slots__ = ("arrays", "prefix", "moves", "generated", "expanded", "next_bound", "done", "cancelled", "found_at",
                 "pre")

    def __init__(self, none: int, arrays=None, prefix=b"", moves=None, pre=(0, 0)):
        self.arrays = arrays
        self.prefix = prefix
        self.moves = moves  # the first solution met in it (blank moves from the root), or None
        self.generated = self.expanded = 0
        self.next_bound = none
        self.done = arrays is None
        self.cancelled = False
        self.found_at = None  # its nodes (generated, expanded) until its first solution
        # The nodes (generated, expanded) the serial search makes in the top of the iteration's tree up
        # to this item's root (or solution), the packets before it not counted.
        self.pre = pre


def _copy_state(arrays, none: int, depth: int | None = None):
    """A copy of a search state (board, st, path, nxt, hst, fsm, hs); with `depth`, a packet's:
    the moves above `depth` exhausted, its counters and next bound fresh (`none`: no bound yet)."""
    board, st, path, nxt, hst, fsm, hs = arrays
    out = (board.copy(), st.copy(), path.copy(), nxt.copy(), hst.copy(), fsm.copy(),
           tuple(a.copy() if isinstance(a, np.ndarray) else a for a in hs))
    if depth is not None:
        out[3][:depth] = 4
        out[1][S_NEXT_BOUND] = none
        out[1][S_GENERATED] = 0
        out[1][S_EXPANDED] = 0
    return out


class _Stop(Exception):
    """The node limit was reached while the frontier was made."""


class ParallelIdaSearch(IdaSearch):
    """IDA* whose iterations are searched by `threads` threads (see the module's docstring).

    Same constructor as `IdaSearch` plus `threads`; `run(...)` searches to the end. After it:
    `moves()`, `generated`, `expanded`, `iterations`, and `log`: one dict per iteration (bound,
    nodes_generated, nodes_expanded, packets, frontier_depth, complete, packet_nodes)."""

    def __init__(self, *args, threads=2, packets_per_thread: int | None = None,
                 min_parallel_nodes: int | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        # A number, or a function giving the threads of each iteration at its start.
        self._threads = threads if callable(threads) else int(threads)
        self.threads = 1 if callable(threads) else max(1, self._threads)  # the current iteration's
        self.threads_used = 1  # the most threads an iteration ran on
        # All the nodes the threads generated and expanded (the counters are the serial search's).
        self.searched_generated = self.searched_expanded = 0
        self.packets_per_thread = PACKETS_PER_THREAD if packets_per_thread is None else int(packets_per_thread)
        self.min_parallel_nodes = PARALLEL_MIN_NODES if min_parallel_nodes is None else int(min_parallel_nodes)
        self.log: list[dict] = []
        # The serial search's "no next bound yet", as it starts every iteration with it.
        self._none = int(self.st[S_NEXT_BOUND])
        self._depth = 1  # the last frontier depth
        self._prev_nodes = 0
        self._found_moves = None

    def _threads_now(self) -> int:
        return max(1, int(self._threads() if callable(self._threads) else self._threads))

    # ------------------------------------------------------------------ one kernel call
    def _call(self, arrays, budget: int) -> int:
        board, st, path, nxt, hst, fsm, hs = arrays
        try:
            return self.run(board, self.nbr, self.hc, hs, st, path, nxt, hst, self.prune, fsm, budget)
        except Exception as exc:  # a user's heuristic raised inside the kernel
            if self.on_error is None:
                raise
            raise self.on_error(exc) from None

    def _main(self):
        return (self.board, self.st, self.path, self.nxt, self.hst, self.fsm, self.hs)

    # ------------------------------------------------------------------ the frontier
    def _split(self, arrays, depth: int, out: list, whole: bool, left: list, base=(0, 0)) -> bool:
        """Append to `out`, in the serial order, the packets at `depth` below state `arrays` (and the
        solutions met above it); its own counters then hold the nodes generated on the way. True
        when a solution was met and the rest is not needed (not `whole`). `left[0]`: nodes the
        limit still allows (the split stops with `_Stop` at 0). `base`: the serial search's nodes
        (generated, expanded) in the top of the tree before `arrays`' counters started; each item's
        `pre` adds those generated on the way to it."""
        st, nxt = arrays[1], arrays[3]
        origin = (int(st[S_GENERATED]), int(st[S_EXPANDED]))

        def pre():
            return (base[0] + int(st[S_GENERATED]) - origin[0], base[1] + int(st[S_EXPANDED]) - origin[1])

        while True:
            if left[0] <= 0:
                raise _Stop
            g0 = st[S_GENERATED]
            status = self._call(arrays, 1)
            left[0] -= int(st[S_GENERATED] - g0)
            if status == IDA_FOUND:
                out.append(Item(self._none, moves=arrays[2][:int(st[S_DEPTH])].copy(), pre=pre()))
                if not whole:
                    return True
                continue
            if status == IDA_ITERATION_DONE:
                return False
            if st[S_DEPTH] == depth:
                out.append(Item(self._none, _copy_state(arrays, self._none, depth), arrays[2][:depth].tobytes(),
                                pre=pre()))
                nxt[depth] = 4

    def _frontier(self, tally: dict, whole: bool, left: list, threads: int) -> list:
        """The iteration's items: packets at a depth that gives at least `threads *
        packets_per_thread` of them (or the bound), and the solutions met above it."""
        bound = int(self.st[S_BOUND])
        target = threads * self.packets_per_thread
        depth = max(1, min(self._depth - 2, bound))
        items: list = []
        main = self._main()
        g0, e0 = int(self.st[S_GENERATED]), int(self.st[S_EXPANDED])
        try:
            stopped = self._split(main, depth, items, whole, left)
        finally:
            tally["generated"] += int(self.st[S_GENERATED]) - g0
            tally["expanded"] += int(self.st[S_EXPANDED]) - e0
            tally["next_bound"] = min(tally["next_bound"], int(self.st[S_NEXT_BOUND]))
        most = max(FRONTIER_MIN_NODES, int(self._prev_nodes * FRONTIER_SHARE))
        while (not stopped and depth < bound and 0 < sum(i.arrays is not None for i in items) < target
               and tally["generated"] < most):
            depth += 1
            finer: list = []
            # The top-of-tree nodes the serial search makes in the items before this one, below their
            # roots (their splits): each finer item's `pre` is its coarse item's plus these.
            below = (0, 0)
            for item in items:
                if item.arrays is None:
                    item.pre = (item.pre[0] + below[0], item.pre[1] + below[1])
                    finer.append(item)
                    if not whole:
                        stopped = True
                        break
                    continue
                st = item.arrays[1]
                try:
                    stopped = self._split(item.arrays, depth, finer, whole, left,
                                          (item.pre[0] + below[0], item.pre[1] + below[1]))
                finally:
                    tally["generated"] += int(st[S_GENERATED])
                    tally["expanded"] += int(st[S_EXPANDED])
                    tally["next_bound"] = min(tally["next_bound"], int(st[S_NEXT_BOUND]))
                below = (below[0] + int(st[S_GENERATED]), below[1] + int(st[S_EXPANDED]))
                if stopped:
                    break
            items = finer
        self._depth = depth
        return items

    # ------------------------------------------------------------------ the packets
    def _packets(self, items: list, threads: int, whole: bool, max_left: int, deadline, progress, t0) -> str | None:
        """Search the items' packets on `threads` threads; None, or NODES / TIME when a limit stopped them."""
        lock = threading.Lock()
        budget = threading.Condition(lock)  # a thread waits on it for nodes another thread has been granted
        # "left": nodes of the limit not granted to a thread; "granted": granted and not yet given back.
        shared = {"next": 0, "best": min((k for k, i in enumerate(items) if i.moves is not None), default=len(items)),
                  "stop": False, "left": max_left, "granted": 0, "limit": None, "error": None}
        done_nodes = [0] * threads

        def wanted(k):
            return whole or k < shared["best"]

        def work(slot):
            chunk = CHUNK_FIRST
            try:
                while not shared["stop"]:
                    with lock:
                        k = shared["next"]
                        while k < len(items) and items[k].done:
                            k += 1
                        if k >= len(items) or not wanted(k):
                            return
                        shared["next"] = k + 1
                    item = items[k]
                    arrays = item.arrays
                    st = arrays[1]
                    while True:
                        if shared["stop"] or not wanted(k):
                            item.cancelled = True
                            break
                        grant = self._grant(shared, budget, chunk)
                        if grant <= 0:
                            item.cancelled = True
                            break
                        g0 = int(st[S_GENERATED])
                        c0 = time.perf_counter()
                        try:
                            status = self._call(arrays, grant)
                        finally:
                            used = int(st[S_GENERATED]) - g0
                            with budget:
                                shared["left"] += grant - used
                                shared["granted"] -= grant
                                budget.notify_all()
                        took = time.perf_counter() - c0
                        done_nodes[slot] += used
                        if took < CHUNK_SECONDS and chunk < CHUNK_MAX:
                            chunk *= 2
                        if status == IDA_FOUND:
                            if item.moves is None:
                                item.moves = arrays[2][:int(st[S_DEPTH])].copy()
                                item.found_at = (int(st[S_GENERATED]), int(st[S_EXPANDED]))
                            with lock:
                                shared["best"] = min(shared["best"], k)
                            if whole:
                                continue
                            break
                        if status == IDA_ITERATION_DONE:
                            item.done = True
                            break
                    item.generated = int(st[S_GENERATED])
                    item.expanded = int(st[S_EXPANDED])
                    item.next_bound = int(st[S_NEXT_BOUND])
                    if item.moves is not None and not whole:
                        item.done = True
                    item.arrays = None  # searched (or cut): its state is not needed again
            except BaseException as exc:  # noqa: BLE001 - handed to the main thread, which raises it
                shared["error"] = exc
                shared["stop"] = True
                with budget:
                    budget.notify_all()

        pool = [threading.Thread(target=work, args=(slot,), name=f"fastsnake-ida-{slot}", daemon=True)
                for slot in range(threads)]
        for t in pool:
            t.start()
        next_report = time.perf_counter() + 5.0
        try:
            for t in pool:
                while t.is_alive():
                    t.join(WAIT_SECONDS)
                    now = time.perf_counter()
                    if deadline is not None and now > deadline and not shared["stop"]:
                        shared["limit"] = TIME
                        shared["stop"] = True
                    if deadline is not None and now > deadline + OVERTIME_GRACE:
                        break  # a kernel that does not return (a user's heuristic): left below
                    if progress is not None and now > next_report:
                        next_report = now + 5.0
                        progress(f"idastar ({threads} threads): bound {self.bound}, "
                                 f"{self.generated + sum(done_nodes):,} nodes so far, {now - t0:.0f} s")
        finally:
            with budget:
                shared["stop"] = True  # a signal (KeyboardInterrupt, Terminated) in the wait: every thread stops
                budget.notify_all()
            # within a chunk. A user's kernel that never returns cannot be stopped: its daemon thread is
            # left behind after STOP_WAIT seconds rather than hanging the caller (and the process then ends
            # without the interpreter's teardown: `fastsnake.signals.leave_running`).
            until = time.perf_counter() + STOP_WAIT
            for t in pool:
                t.join(max(0.0, until - time.perf_counter()))
                if t.is_alive():
                    leave_running()
        if shared["error"] is not None:
            raise shared["error"]
        return shared["limit"]

    @staticmethod
    def _grant(shared: dict, budget: threading.Condition, chunk: int) -> int:
        """Nodes a thread may search next (at most `chunk`), or 0 when it must stop: told to, or the node
        limit is spent. Nodes granted to another thread and not yet used come back to the limit when that
        thread's call returns, so a thread finding none left waits for them rather than calling the
        limit reached (it is reached when none is left and none is out)."""
        with budget:
            while not shared["stop"]:
                grant = min(chunk, shared["left"])
                if grant > 0:
                    shared["left"] -= grant
                    shared["granted"] += grant
                    return grant
                if shared["granted"] <= 0:
                    shared["limit"] = NODES
                    shared["stop"] = True
                    budget.notify_all()
                    break
                budget.wait(WAIT_SECONDS)
            return 0

    # ------------------------------------------------------------------ the search
    def run_search(self, max_nodes: int, deadline=None, progress=None, whole_last_iteration: bool = False) -> str:
        """Search until a solution (FOUND), the node limit (NODES) or the deadline (TIME); the
        counters and `log` say how far it got. AssertionError when no bound is left (an unsolvable
        pair: the caller checks parity first)."""
        t0 = time.perf_counter()
        while True:
            bound = int(self.st[S_BOUND])
            self._base = (int(self.st[S_GENERATED]), int(self.st[S_EXPANDED]))
            tally = {"generated": 0, "expanded": 0, "next_bound": self._none}
            left = [max_nodes - self.generated]
            threads = self.threads = self._threads_now()
            parallel = threads > 1 and self._prev_nodes >= self.min_parallel_nodes
            try:
                if parallel:
                    items = self._frontier(tally, whole_last_iteration, left, threads)
                else:
                    items = [Item(self._none, _copy_state(self._main(), self._none, 0))]
            except _Stop:
                self._record(bound, tally, False, [], threads)
                return NODES
            if parallel:
                self.threads_used = max(self.threads_used, threads)
            limit = self._packets(items, threads if parallel else 1, whole_last_iteration, left[0],
                                  deadline, progress, t0)
            for item in items:
                tally["generated"] += item.generated
                tally["expanded"] += item.expanded
                tally["next_bound"] = min(tally["next_bound"], item.next_bound)
            found = next((k for k, i in enumerate(items) if i.moves is not None), None)
            searched = (tally["generated"], tally["expanded"])
            if found is not None and limit is None and not whole_last_iteration:
                # The serial search's nodes to its first solution (the module's docstring).
                solver = items[found]
                at = solver.found_at or (0, 0)  # (0, 0): a solution met in the top of the tree
                tally["generated"] = solver.pre[0] + at[0] + sum(i.generated for i in items[:found])
                tally["expanded"] = solver.pre[1] + at[1] + sum(i.expanded for i in items[:found])
            complete = limit is None and (found is None or whole_last_iteration)
            self._record(bound, tally, complete, items if parallel else None, threads, searched)
            found = None if found is None else items[found]
            if found is not None and limit is None:
                self._found_moves = found.moves
                return FOUND
            if limit is not None:
                return limit
            if tally["next_bound"] >= self._none:
                raise AssertionError("search exhausted a solvable instance")  # a bug of ours
            self._prev_nodes = tally["generated"]
            self.st[S_BOUND] = tally["next_bound"]
            self._start_iteration()
            if progress is not None:
                progress(f"idastar ({self.threads} threads): bound {self.bound}, {self.generated:,} nodes so far, "
                         f"{time.perf_counter() - t0:.0f} s (node limit {max_nodes:,})")
            if deadline is not None and time.perf_counter() > deadline:
                return TIME

    def _record(self, bound: int, tally: dict, complete: bool, items=None, threads: int = 1,
                searched=None) -> None:
        """One iteration's entry of `log` (items: its frontier, None when it ran on one thread;
        `searched`: the nodes the threads generated and expanded, when more than the tally's)."""
        # The main state's counters ran on through the frontier (counted in the tally too).
        self.st[S_GENERATED] = self._base[0] + tally["generated"]
        self.st[S_EXPANDED] = self._base[1] + tally["expanded"]
        searched = searched or (tally["generated"], tally["expanded"])
        self.searched_generated += searched[0]
        self.searched_expanded += searched[1]
        self.log.append({"bound": bound, "nodes_generated": tally["generated"], "nodes_expanded": tally["expanded"],
                         # the nodes the threads made (more than the serial search's when they went on
                         # past the first solution)
                         "searched_generated": searched[0], "searched_expanded": searched[1],
                         "threads": threads if items is not None else 1,
                         "packets": len(items) if items is not None else 0,
                         "frontier_depth": self._depth if items is not None else 0, "complete": complete,
                         "packet_nodes": [i.generated for i in items] if items is not None else None,
                         # nodes of a packet until its first solution (0: a solution met in the frontier)
                         "packet_found_at": ([0 if i.moves is not None and i.found_at is None else
                                              (i.found_at[0] if i.found_at is not None else None)
                                              for i in items] if items is not None else None),
                         "packet_prefixes": [i.prefix for i in items] if items is not None else None})

    def moves(self) -> np.ndarray:
        return np.zeros(0, np.int8) if self._found_moves is None else self._found_moves.copy()


def on_spare_cores(share, attempt):
    """``attempt(threads)`` (a search: a tuple whose first item is its result or None) on `share`: the
    function giving each iteration the cores it may use (`fastsnake.runs.core_share` on a worker of the
    local pool, for IDA*), or None for one thread. Threads stopped by the node limit did not search the
    serial search's first nodes (only a solution's counts are the serial search's whatever the
    threads), so such a search is made again on one thread: the result, and the CPU it reports, are
    then the ones any number of workers gives."""
    out = attempt(share if share is not None else 1)
    r = out[0]
    if r is not None and r.threads > 1 and r.status == "node limit reached":
        out = attempt(1)
    return out
