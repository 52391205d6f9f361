"""Batches over worker processes: one instance per worker at a time, one set of tables.

`solve_processes` solves instances of one board and goal with an optimal search on the runner
every problem shares (`fastsnake.runs.run`: one instance a chunk, `workers` processes started by
*spawn*, or this process for one worker). Pattern databases are loaded (or built) once by the
calling process; every worker memory-maps them read-only, so the operating system keeps one copy
of the tables whatever the number of workers: the set's sparse file in the PDB cache when the
parent mapped one (6-6-6-6 on 5x5; see `pdb.pattern_databases`), else a temporary copy of the
parent's tables (in /dev/shm where there is one). Each result carries the instance's length,
nodes generated, the CPU-seconds of its search and the threads that searched it (IDA* takes the
cores of idle workers, as a puzzle study does: `study_units`). A KeyboardInterrupt (Ctrl-C) stops
the workers and returns the instances already finished.
"""

from __future__ import annotations

import os
import tempfile
import time
from dataclasses import dataclass, field

import numpy as np

from fastsnake.puzzle import board as B
from fastsnake.puzzle.heuristics import REGISTRY, heuristic_code
from fastsnake.signals import forget_received


@dataclass
class BatchOutcome:
    results: list  # one dict per finished instance, in the order they finished
    interrupted: bool = False
    setup_seconds: float = 0.0
    tables: dict = field(default_factory=dict)


def worker_setup(spec: dict) -> dict:
    """A worker's state (`runs.Job.setup`, once per process; in this process with one worker): the
    user's heuristic registered, the parent's verdict on it remembered, the context on the parent's
    tables (mapped read-only) or built here for a heuristic without tables to share, and the search
    kernels loaded (a one-move solve on the real tables: `board.one_move`) before any instance, so
    that no instance's CPU-seconds include a load."""
    rows, cols, goal = spec["rows"], spec["cols"], np.array(spec["goal"], np.int8)
    if spec.get("user") and spec["heuristic"] not in REGISTRY:  # registered already in this process
        from fastsnake.puzzle.heuristics import register_targets

        register_targets(spec["heuristic"], spec["user"])
    if spec.get("verdict") is not None:  # the parent sampled the user's heuristic once for every worker
        from fastsnake.puzzle.sampling import remember, verdict_key

        remember(verdict_key(spec["heuristic"], rows, cols, goal, spec["samples"]), spec["verdict"])
    if spec["pdb_file"] is not None:  # the parent's tables, shared by its heuristic's module (`share`)
        context = REGISTRY[spec["heuristic"]].impl.attach(spec, worker_tables(spec))
    else:
        from fastsnake.puzzle.solver import heuristic_context

        context = heuristic_context(spec["heuristic"], rows, cols, goal)
    state = {"spec": spec, "context": context}
    _search(state, B.one_move(goal, rows, cols), 1)
    return state


def worker_tables(spec: dict) -> np.ndarray:
    """The tables a worker searches with: the set's cached sparse file mapped (checked again,
    cheaply: the parent stamped it), or the parent's temporary copy mapped. Should the cached
    file have changed since the parent checked it (a damaged file, or another process's
    rebuild), this worker loads the compact tables and expands them itself rather than fail
    its start (a worker that cannot start loses its instances: the runner stops after three)."""
    from fastsnake.puzzle import pdb as P

    if spec.get("pdb_set") is None:
        return np.asarray(np.memmap(spec["pdb_file"], dtype=np.uint8, mode="r"))
    try:
        return P.map_set(spec["pdb_file"], *spec["pdb_set"])
    except (P.DamagedSetFile, OSError):
        data = np.zeros(sum(spec["sizes"]), np.uint8)
        at = 0
        for cells, size in zip(spec["groups"], spec["sizes"], strict=True):
            P.group_table(spec["rows"], spec["cols"], spec["blank_cell"], cells, into=data[at:at + size], big=True)
            at += size
        return data


def solve_unit(state: dict, unit) -> dict:
    """The result of one instance (`runs.Job.work`): ``unit`` is (input index, start tiles). IDA* in
    a worker of the local pool searches on the cores the pool's idle workers leave
    (`fastsnake.runs.core_share`, asked at every iteration: a batch's tail, or a batch of fewer
    instances than workers); ``threads`` says the most it used. Its moves and node counts are the
    serial search's whatever the threads; threads stopped by the node limit are not (they searched
    other nodes than the serial search's first), so such a search is searched again on one thread,
    and its result (and CPU-seconds) is the serial one's."""
    from fastsnake import runs
    from fastsnake.puzzle.ida_parallel import on_spare_cores
    from fastsnake.puzzle.solver import limit_message

    index, start = unit
    share = runs.core_share() if state["spec"]["algorithm"] == "idastar" else None
    r, cpu, exc = on_spare_cores(share, lambda threads: _search(state, start, threads))
    threads = int(r.threads) if r is not None else 1
    if exc is not None:
        return {"index": index, "error": limit_message(exc.limit, exc.value, exc.result, cli=True),
                "limit": exc.limit, "threads": threads}
    return {"index": index, "length": r.length, "moves": r.moves, "optimal": r.optimal,
            "optimal_reason": r.optimal_reason,
            "nodes_generated": r.nodes_generated, "nodes_expanded": r.nodes_expanded,
            "cpu_seconds": cpu, "nodes_per_cpu_second": (r.nodes_generated / cpu if cpu > 0 else None),
            "seconds": r.seconds, "h_start": r.h_start, "algorithm": r.algorithm, "heuristic": r.heuristic,
            "worker": os.getpid(), "threads": threads}


def _search(state: dict, start, threads):
    """(result, CPU-seconds, limit error or None) of one search on `threads` (a number or
    `runs.spare_cores`); the CPU is the process's (every thread of the search, the only one
    running here)."""
    from fastsnake.puzzle.board import PuzzleLimitError
    from fastsnake.puzzle.solver import solve

    spec = state["spec"]
    c0 = time.process_time()
    try:
        r = solve(np.array(start, np.int8), np.array(spec["goal"], np.int8), rows=spec["rows"],
                  cols=spec["cols"], algorithm=spec["algorithm"], heuristic=spec["heuristic"],
                  max_nodes=spec["max_nodes"], time_limit=spec["time_limit"], context=state["context"],
                  admissibility_samples=spec["samples"], warn=False, threads=threads)
    except PuzzleLimitError as exc:
        return exc.result, time.process_time() - c0, exc
    return r, time.process_time() - c0, None


def solve_processes(instances, goal=None, *, rows: int, cols: int, heuristic: str = "auto",
                    algorithm: str = "auto", workers: int = 2, partition=None,
                    max_nodes: int | None = None, time_limit: float | None = None, memory_budget=None,
                    progress=None, on_result=None, mapped: bool | None = None,
                    admissibility_samples: int | None = None, bar: bool = False) -> BatchOutcome:
    """Solve `instances` (tile sequences or strings, all of this board and goal) optimally,
    one per worker process at a time; `on_result(dict)` is called as each finishes.

    `algorithm` auto is A* below 12 cells and IDA* from 12; `heuristic` auto as `solve`
    chooses it (pattern databases on 4x4 and 5x5). Results: `index` (0-based input
    position), `length`, `moves`, `nodes_generated`, `cpu_seconds` (the CPU time of that
    instance's search, every thread of it), `nodes_per_cpu_second` and `threads` (IDA*: 1 plus
    the idle workers' cores it took, `solve_unit`), or `error` when a limit stopped the search.
    Unsolvable instances are refused up front (PuzzleInputError). `mapped` as
    `pdb.pattern_databases` takes it (whether the workers map the set's cached sparse file).
    A user's heuristic is sampled once, here, on `admissibility_samples` states (default 40, as
    `solve`): a result it cannot call optimal has ``optimal`` False and ``optimal_reason`` (the
    caller warns once). `bar`: the runner's progress line on stderr (a terminal only)."""
    from fastsnake.puzzle.solver import (
        DEFAULT_MAX_NODES,
        choose_algorithm,
        choose_heuristic,
        parse_instance,
        prepare,
    )

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise B.PuzzleInputError(f"workers {workers!r} must be a positive integer")
    _, goal = prepare(np.arange(rows * cols), goal, rows, cols)
    starts = []
    for i, item in enumerate(instances):
        try:
            start, own_goal = parse_instance(item, rows, cols, B.MAX_CELLS)
        except B.PuzzleInputError as exc:
            raise B.PuzzleInputError(f"instance {i + 1}: {exc}") from None
        if own_goal is not None and own_goal.tolist() != goal.tolist():
            raise B.PuzzleInputError(f"instance {i + 1}: a batch shares one goal (its tables); give it "
                                     "with the batch's goal, not per line")
        if not B.is_solvable(start, goal, rows, cols):
            raise B.PuzzleInputError(f"instance {i + 1}: not solvable for this goal (parity)")
        starts.append(start.tolist())
    if algorithm == "auto":
        algorithm = choose_algorithm(rows, cols)
    if algorithm not in ("astar", "idastar"):
        raise B.PuzzleInputError(f"algorithm {algorithm!r}: a batch runs astar or idastar (or auto)")
    heuristic = choose_heuristic(rows, cols) if heuristic == "auto" else heuristic
    heuristic_code(heuristic)
    from fastsnake.puzzle.sampling import DEFAULT_SAMPLES, vouch
    from fastsnake.puzzle.solver import solve

    samples = DEFAULT_SAMPLES if admissibility_samples is None else admissibility_samples
    verdict = vouch(heuristic, rows, cols, goal, samples, solve=solve) if REGISTRY[heuristic].impl is None else None
    spec = {"rows": rows, "cols": cols, "goal": goal.tolist(), "heuristic": heuristic, "algorithm": algorithm,
            "max_nodes": int(max_nodes or DEFAULT_MAX_NODES), "time_limit": time_limit, "pdb_file": None,
            "samples": samples, "verdict": verdict}
    if REGISTRY[heuristic].evaluate is not None and not REGISTRY[heuristic].origin.startswith("entry point"):
        from fastsnake.puzzle.user_kernels import import_targets

        spec["user"] = import_targets(REGISTRY[heuristic])  # the workers register it again
    t0 = time.perf_counter()
    tables: dict = {}
    tmp = None
    try:
        impl = REGISTRY[heuristic].impl
        if impl is not None and impl.share is not None:  # tables the workers map rather than build
            shared, tables, data = impl.share(rows, cols, goal, partition=partition, progress=progress,
                                              memory_budget=memory_budget, mapped=mapped)
            spec.update(shared)
            if data is not None:
                fd, tmp = tempfile.mkstemp(prefix="fastsnake-pdb-", suffix=".bin",
                                           dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
                with os.fdopen(fd, "wb") as fh:
                    fh.write(memoryview(data))
                spec.update(pdb_file=tmp)
                del data
        setup = time.perf_counter() - t0
        return _run(spec, starts, workers, on_result, setup, tables, bar)
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _run(spec, starts, workers, on_result, setup, tables, bar) -> BatchOutcome:
    """The instances on the runner (`fastsnake.runs.run`): one a chunk, `workers` processes (one:
    this process), each result handed to `on_result` as its instance finishes."""
    from fastsnake import runs
    from fastsnake.errors import Terminated

    out = BatchOutcome([], False, setup, tables)
    if not starts:
        return out

    def on_chunk(index, first, results):
        for res in results:
            out.results.append(res)
            if on_result is not None:
                on_result(res)

    job = runs.Job(solve_unit, spec, worker_setup, kernels=("puzzle",))
    # One worker: this process, on a state of its own (dropped with the run: no mapped tables kept).
    here = worker_setup(spec) if workers == 1 else None
    outcome = runs.run(list(enumerate(starts)), job, workers=workers, chunk_size=1, progress=bar or None,
                       on_chunk=on_chunk, state=here, label="puzzle batch")
    if outcome.signal == "SIGTERM":
        raise Terminated(result=out)  # SIGTERM stops the command (exit 143); what finished was handed out
    if outcome.interrupted:
        out.interrupted = True
        forget_received()  # answered here: the caller keeps the finished ones and says so (exit 130)
    return out
