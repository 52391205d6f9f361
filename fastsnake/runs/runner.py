"""Running a list of work units in chunks: here, on a pool of worker processes, or on a dask cluster.

A run hands `run` its units (any picklable values, in the order their results are wanted) and a
`Job`: a top-level `work(state, unit)` function returning a unit's result (a JSON value when the run
has a folder), and optionally `setup(spec)`, run once per worker process to make the state every
unit of that process shares (tables mapped, kernels loaded). The units are cut into chunks of
`chunk_size`; chunks go to

- this process, one after another, when there is one worker and no cluster (no process is started);
- a pool of `workers` processes started by *spawn* (never fork: numba's threading layers do not
  survive a fork), at most two chunks per worker submitted at a time;
- a dask cluster (`fastsnake.runs.cluster`), ``local:N`` or a scheduler's address.

Each finished chunk is handed to `on_chunk` in the order chunks finish, and written whole into the
run's folder when it has one (`fastsnake.runs.folder.RunFolder`): a rerun on that folder computes
only the missing chunks. The results come back in unit order, so what a problem makes of them is
the same whatever the number of workers. A worker process that dies (out of memory, killed) is
said on stderr and the chunks it held are run again, at most `MAX_LOSSES` times each. Ctrl-C (or
SIGTERM) stops the run within a second: the workers are stopped, the finished chunks kept, and the
outcome says ``interrupted``.

**Spare cores.** A unit's work may ask how many cores it may use right now (`spare_cores`): in a
worker of the local pool, 1 plus its fair share of the pool's idle workers, a worker being idle when
no chunk is left to start and it holds none (the tail of a run; a run of fewer chunks than workers,
whose pool starts fewer processes, has the rest idle from the start). The idle ones are shared
evenly among the busy ones (the first busy ones, by slot, get one more when they do not divide), so
the shares add up to at most `workers`, and never past the cores this process may use
(`fastsnake.runs.cores.available_cores`). The pool's shared memory says which worker holds a chunk
and how many chunks each has started (`PoolCores`: written only by the worker it describes, no
lock). In this process (one worker) and on a dask cluster (whose workers know nothing of each
other) a unit has 1 core: there `core_share` is None.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time
import uuid
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable

from fastsnake.errors import FastsnakeError, Terminated
from fastsnake.runs.cores import available_cores
from fastsnake.runs.progress import ProgressLine

# How often the parent looks at its workers (and so how soon Ctrl-C is answered).
POLL_SECONDS = 0.25
# Chunks submitted per worker process at a time (a queue of one behind the running one).
QUEUED_PER_WORKER = 2
# Times one chunk may be lost with a dying worker before the run stops.
MAX_LOSSES = 3


class RunError(FastsnakeError):
    """The run could not go on (a chunk lost with its worker too often); what finished is kept."""


@dataclass(frozen=True)
class Job:
    """What every worker does: ``state = setup(spec)`` once per process (the state is `spec` itself
    without a `setup`), then ``work(state, unit)`` per unit, then ``finish(state, results)`` once per
    chunk on the chunk's results (in unit order; it returns what the chunk hands back: e.g. what only
    a whole chunk can decide, such as which results keep a bulky field). All must be top-level
    functions (they are pickled to the workers), `spec` picklable."""

    work: Callable
    spec: Any = None
    setup: Callable | None = None
    token: str = field(default_factory=lambda: uuid.uuid4().hex)
    # The `fastsnake warm` parts whose compiled kernels a cluster's workers get from this machine.
    kernels: tuple = ()
    finish: Callable | None = None

    def chunk(self, state, units) -> list:
        """The results of a chunk's `units` worked in this process with `state`."""
        results = [self.work(state, unit) for unit in units]
        return self.finish(state, results) if self.finish is not None else results


@dataclass
class RunOutcome:
    """What `run` did: ``results`` (one per unit, in unit order; None where its chunk did not
    finish), ``finished`` (chunk indices done, found or computed), ``computed`` (chunks computed by
    this call), ``resumed`` (chunks a folder already held), ``redone`` (chunks run again after their
    worker died), ``interrupted`` (and ``signal``: ``"SIGINT"`` or ``"SIGTERM"``), ``workers``,
    ``seconds`` (wall)."""

    results: list
    finished: set = field(default_factory=set)
    computed: int = 0
    resumed: int = 0
    redone: int = 0
    interrupted: bool = False
    signal: str | None = None
    workers: int = 1
    seconds: float = 0.0


# -- the cores a unit may use -----------------------------------------------------------------------
def fair_share(busy, me: int, unstarted: int) -> int:
    """The cores the busy worker of slot `me` may use: 1 while a chunk is left to start (`unstarted`
    > 0: every worker gets one soon), else 1 plus its share of the idle slots (``busy[k]`` false),
    shared evenly among the busy ones, the first busy slots one more when they do not divide."""
    if unstarted > 0:
        return 1
    held = [k for k in range(len(busy)) if busy[k] or k == me]
    idle = len(busy) - len(held)
    if idle <= 0:
        return 1
    rank = held.index(me) if me in held else len(held) - 1
    return 1 + idle // len(held) + (1 if rank < idle % len(held) else 0)


class PoolCores:
    """What a local pool's workers share to know who is idle: one slot a worker (`workers` of
    them, however many processes the pool starts), ``busy[slot]`` while it holds a chunk and
    ``started[slot]`` the chunks it started, each written only by its own worker; `chunks` is the
    number of chunks the pool is given (fixed: a pool that loses a worker is replaced). Made by the
    parent with its multiprocessing `context` and handed to every worker as it starts."""

    def __init__(self, context, workers: int, chunks: int):
        self.busy = context.RawArray("b", int(workers))
        self.started = context.RawArray("q", int(workers))
        self.chunks = int(chunks)
        self.next_slot = context.Value("i", 0)

    def join(self) -> int:
        """A slot of its own for the worker process that calls this (once, as it starts)."""
        with self.next_slot.get_lock():
            slot = self.next_slot.value
            self.next_slot.value += 1
        return slot if slot < len(self.busy) else -1

    def begin(self, slot: int) -> None:
        if 0 <= slot < len(self.busy):
            self.busy[slot] = 1  # busy first: a worker that looks in between counts it busy
            self.started[slot] += 1

    def end(self, slot: int) -> None:
        if 0 <= slot < len(self.busy):
            self.busy[slot] = 0

    def share(self, slot: int) -> int:
        """`fair_share` of the worker of `slot`, as the pool is now."""
        if not 0 <= slot < len(self.busy):
            return 1
        return fair_share(list(self.busy), slot, self.chunks - sum(self.started))


# This process's pool and slot, when it is a worker of a local pool (`_pool_init`); else None.
_CORES = None


def spare_cores() -> int:
    """The cores the unit being worked in this process may use now, at least 1: in a worker of a
    local pool, 1 plus its fair share of the pool's idle workers (`fair_share`); elsewhere 1. Never
    more than the cores this process may use. Cheap (shared memory, no lock): call it as often as
    work is split (e.g. at each IDA* iteration)."""
    here = _CORES
    if here is None:
        return 1
    cores, slot = here
    return max(1, min(cores.share(slot), available_cores()))


def core_share():
    """`spare_cores` when this process is a worker of a local pool (where idle workers leave cores
    to the busy ones), else None: in this process (one worker) and on a dask cluster a unit has one
    core, whatever it asks."""
    return spare_cores if _CORES is not None else None


# -- in the worker processes ------------------------------------------------------------------------
_STATES: dict = {}
_STATE_LOCK = threading.Lock()


def _state_of(job: Job):
    with _STATE_LOCK:
        if job.token not in _STATES:
            _STATES.clear()  # one run's state at a time per process
            _STATES[job.token] = job.setup(job.spec) if job.setup is not None else job.spec
        return _STATES[job.token]


def run_chunk(job: Job, index: int, units: list):
    """(index, results, pid): the chunk's units worked in order, in this process."""
    state = _state_of(job)
    return index, job.chunk(state, units), os.getpid()


def pool_chunk(job: Job, index: int, units: list):
    """`run_chunk` in a worker of the local pool, the worker busy while it runs (`PoolCores`)."""
    here = _CORES
    if here is not None:
        here[0].begin(here[1])
    try:
        return run_chunk(job, index, units)
    finally:
        if here is not None:
            here[0].end(here[1])


def _pool_init(job: Job, cores: PoolCores | None = None) -> None:
    import signal

    global _CORES
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides, and stops us
    _die_with_parent()
    if cores is not None:
        _CORES = (cores, cores.join())
    _state_of(job)


def _die_with_parent() -> None:
    """Linux: this worker is killed when the process that started it dies (even by SIGKILL), so a
    killed run leaves no search running on; elsewhere a worker ends after its chunk."""
    import ctypes
    import signal

    with contextlib.suppress(Exception):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL))  # PR_SET_PDEATHSIG
        if os.getppid() == 1:  # the parent died before the line above
            os._exit(1)


# -- in the parent ----------------------------------------------------------------------------------
def run(units, job: Job, *, workers: int = 1, cluster: str | None = None, chunk_size: int = 1, folder=None,
        order=None, progress=None, on_chunk=None, state=None, label: str = "run", warn=None) -> RunOutcome:
    """Work every unit of `units` (see the module's docstring); returns a `RunOutcome`.

    `folder`: a `RunFolder` made for this run (its chunk size wins); its finished chunks are read
    (and handed to `on_chunk`) first. `order`: the chunk indices in the order to start them (default
    first to last; e.g. the longest first, so no worker is left with a long tail). `progress`: True
    draws one line on stderr when it is a terminal, a callable gets ``(done units, total units)``.
    `on_chunk(index, first unit, results)` hears each finished chunk. `state`: the state units run
    with in this process (one worker, no cluster) instead of ``setup(spec)``. `warn(line)` hears
    what goes wrong with workers (default: stderr)."""
    units = list(units)
    started = time.monotonic()
    warn = warn or (lambda line: sys.stderr.write(line + "\n"))
    if folder is not None:
        chunk_size = folder.chunk_size
        if folder.units != len(units):
            raise RunError(f"the run has {len(units)} units, its folder {folder.units}")
    n_chunks = -(-len(units) // chunk_size)
    out = RunOutcome([None] * len(units), workers=workers if not cluster else 0)
    line = None
    total_done = [0, 0]  # units done, units computed by this call

    def chunk_units(index):
        return units[index * chunk_size:(index + 1) * chunk_size]

    def accept(index, results, fresh):
        if index in out.finished:
            return
        if fresh and folder is not None:
            folder.write_chunk(index, results)
        first = index * chunk_size
        out.results[first:first + len(results)] = results
        out.finished.add(index)
        total_done[0] += len(results)
        if fresh:
            out.computed += 1
            total_done[1] += len(results)
        else:
            out.resumed += 1
        if on_chunk is not None:
            on_chunk(index, first, results)
        if callable(progress):
            progress(total_done[0], len(units))
        elif line is not None:
            line.update(total_done[0], total_done[1], force=total_done[0] == len(units))

    with folder.writing() if folder is not None else contextlib.nullcontext():
        if folder is not None:
            for index, results in sorted(folder.scan().items()):
                accept(index, results, False)
        todo = [i for i in (order if order is not None else range(n_chunks)) if i not in out.finished]
        if progress is True and todo and ProgressLine.wanted():
            line = ProgressLine(label, len(units), workers if not cluster else 0)
            line.update(total_done[0], 0, force=True)
        try:
            if not todo:
                pass
            elif cluster:
                _run_cluster(cluster, job, todo, chunk_units, accept, out, line)
            elif workers <= 1:
                here = state if state is not None else _state_of(job)
                for index in todo:
                    accept(index, job.chunk(here, chunk_units(index)), True)
            else:
                _run_pool(job, workers, todo, chunk_units, accept, out, warn)
        except KeyboardInterrupt:
            out.interrupted, out.signal = True, "SIGINT"
        except Terminated:
            out.interrupted, out.signal = True, "SIGTERM"
        finally:
            if line is not None:
                line.close()
    out.seconds = time.monotonic() - started
    return out


def _run_pool(job, workers, todo, chunk_units, accept, out, warn) -> None:
    import concurrent.futures as cf
    import multiprocessing
    from concurrent.futures.process import BrokenProcessPool

    context = multiprocessing.get_context("spawn")
    queue = deque(todo)
    losses: dict = {}
    while queue:
        # The workers' slots are `workers`, however many processes start: with fewer chunks than
        # workers, the slots never taken are idle cores for the busy workers' units (`spare_cores`).
        cores = PoolCores(context, workers, len(queue))
        pool = cf.ProcessPoolExecutor(max_workers=min(workers, len(queue)), mp_context=context,
                                      initializer=_pool_init, initargs=(job, cores))
        running: dict = {}
        lost: list = []
        try:
            while queue or running:
                while queue and len(running) < QUEUED_PER_WORKER * workers:
                    index = queue.popleft()
                    running[pool.submit(pool_chunk, job, index, chunk_units(index))] = index
                done, _ = cf.wait(running, timeout=POLL_SECONDS, return_when=cf.FIRST_COMPLETED)
                for future in sorted(done, key=lambda f: running[f]):
                    index = running.pop(future)
                    try:
                        _, results, _ = future.result()
                    except BrokenProcessPool:
                        lost.append(index)
                        continue
                    accept(index, results, True)
                if lost:
                    break
        finally:
            _stop_pool(pool)
        if lost:
            lost += list(running.values())
            lost.sort()
            for index in lost:
                losses[index] = losses.get(index, 0) + 1
            worst = max(lost, key=lambda i: losses[i])
            if losses[worst] >= MAX_LOSSES:
                raise RunError(f"a worker process died {losses[worst]} times while chunk {worst} was running "
                               "(out of memory? killed?); stopped, the finished chunks are kept")
            warn(f"fastsnake: warning: a worker process died; its chunk{'s' if len(lost) > 1 else ''} "
                 f"{', '.join(map(str, lost))} {'are' if len(lost) > 1 else 'is'} run again")
            out.redone += len(lost)
            queue.extendleft(reversed(lost))


def _stop_pool(pool) -> None:
    """Stop a pool now: queued chunks cancelled, its processes terminated (a running search too)."""
    processes = list((getattr(pool, "_processes", None) or {}).values())
    with contextlib.suppress(Exception):
        pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            process.terminate()
    deadline = time.monotonic() + 1.0
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(max(0.0, deadline - time.monotonic()))
            if process.is_alive():
                process.kill()


def _run_cluster(text, job, todo, chunk_units, accept, out, line) -> None:
    from fastsnake.runs.cluster import Cluster

    with Cluster(text, 1, kernels=job.kernels) as cluster:
        out.workers = cluster.workers()
        if line is not None:
            line.workers = out.workers
        tasks = ((f"chunk-{index}", (job, index, chunk_units(index))) for index in todo)
        for item in cluster.stream(run_chunk, tasks, prefix=f"fastsnake-{job.token[:12]}"):
            if item is not None:
                index, results, _ = item
                accept(index, results, True)
