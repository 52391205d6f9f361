"""Batches over worker processes: one instance per worker at a time, one set of tables.

`solve_processes` solves instances of one board and goal with an optimal search in
`workers` processes started by *spawn* (never fork: numba's threading layers do not
survive a fork). Pattern databases are loaded (or built) once by the calling process; every
worker memory-maps them read-only, so the operating system keeps one copy of the tables
whatever the number of workers: the set's sparse file in the PDB cache when the parent
mapped one (6-6-6-6 on 5x5; see `pdb.pattern_databases`), else a temporary copy of the
parent's tables (in /dev/shm where there is one). Each result carries
the instance's length, nodes generated and the worker's CPU-seconds for it. A
KeyboardInterrupt (Ctrl-C) stops the workers and returns the instances already finished.
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

_WORKER: dict = {}


@dataclass
class BatchOutcome:
    results: list  # one dict per finished instance, in the order they finished
    interrupted: bool = False
    setup_seconds: float = 0.0
    tables: dict = field(default_factory=dict)


def _worker_init(spec: dict) -> None:
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides; it terminates us
    rows, cols, goal = spec["rows"], spec["cols"], np.array(spec["goal"], np.int8)
    if spec.get("user"):
        from fastsnake.puzzle.heuristics import register_targets

        register_targets(spec["heuristic"], spec["user"])
    if spec.get("verdict") is not None:  # the parent sampled the user's heuristic once for every worker
        from fastsnake.puzzle.sampling import remember, verdict_key

        remember(verdict_key(spec["heuristic"], rows, cols, goal, spec["samples"]), spec["verdict"])
    if spec["pdb_file"] is not None:  # the parent's tables, shared by its heuristic's module (`share`)
        _WORKER["context"] = REGISTRY[spec["heuristic"]].impl.attach(spec, worker_tables(spec))
    else:
        from fastsnake.puzzle.solver import heuristic_context

        _WORKER["context"] = heuristic_context(spec["heuristic"], rows, cols, goal)
    _WORKER["spec"] = spec
    # Load the search kernel specialised on the heuristic (a first call on the real tables) before
    # any instance, so no instance's CPU-seconds include it.
    _worker_solve((-1, spec["goal"]))


def worker_tables(spec: dict) -> np.ndarray:
    """The tables a worker searches with: the set's cached sparse file mapped (checked again,
    cheaply: the parent stamped it), or the parent's temporary copy mapped. Should the cached
    file have changed since the parent checked it (a damaged file, or another process's
    rebuild), this worker loads the compact tables and expands them itself rather than fail
    (a pool whose initializer fails restarts it forever)."""
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


def _worker_solve(job):
    from fastsnake.puzzle.board import PuzzleLimitError
    from fastsnake.puzzle.solver import limit_message, solve

    index, start = job
    spec = _WORKER["spec"]
    c0 = time.process_time()
    try:
        r = solve(np.array(start, np.int8), np.array(spec["goal"], np.int8), rows=spec["rows"],
                  cols=spec["cols"], algorithm=spec["algorithm"], heuristic=spec["heuristic"],
                  max_nodes=spec["max_nodes"], time_limit=spec["time_limit"], context=_WORKER["context"],
                  admissibility_samples=spec["samples"], warn=False)
    except PuzzleLimitError as exc:
        return {"index": index, "error": limit_message(exc.limit, exc.value, exc.result, cli=True), "limit": exc.limit}
    cpu = time.process_time() - c0
    return {"index": index, "length": r.length, "moves": r.moves, "optimal": r.optimal,
            "optimal_reason": r.optimal_reason,
            "nodes_generated": r.nodes_generated, "nodes_expanded": r.nodes_expanded,
            "cpu_seconds": cpu, "nodes_per_cpu_second": (r.nodes_generated / cpu if cpu > 0 else None),
            "seconds": r.seconds, "h_start": r.h_start, "algorithm": r.algorithm, "heuristic": r.heuristic,
            "worker": os.getpid()}


def solve_processes(instances, goal=None, *, rows: int, cols: int, heuristic: str = "auto",
                    algorithm: str = "auto", workers: int = 2, partition=None,
                    max_nodes: int | None = None, time_limit: float | None = None, memory_budget=None,
                    progress=None, on_result=None, mapped: bool | None = None,
                    admissibility_samples: int | None = None) -> BatchOutcome:
    """Solve `instances` (tile sequences or strings, all of this board and goal) optimally,
    one per worker process at a time; `on_result(dict)` is called as each finishes.

    `algorithm` auto is A* below 12 cells and IDA* from 12; `heuristic` auto as `solve`
    chooses it (pattern databases on 4x4 and 5x5). Results: `index` (0-based input
    position), `length`, `moves`, `nodes_generated`, `cpu_seconds` (the worker's CPU
    time for that instance) and `nodes_per_cpu_second`, or `error` when a limit stopped
    the search. Unsolvable instances are refused up front (PuzzleInputError). `mapped` as
    `pdb.pattern_databases` takes it (whether the workers map the set's cached sparse file).
    A user's heuristic is sampled once, here, on `admissibility_samples` states (default 40, as
    `solve`): a result it cannot call optimal has ``optimal`` False and ``optimal_reason`` (the
    caller warns once)."""
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
        return _run_pool(spec, starts, workers, on_result, setup, tables)
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def _run_pool(spec, starts, workers, on_result, setup, tables) -> BatchOutcome:
    import multiprocessing

    out = BatchOutcome([], False, setup, tables)
    if not starts:
        return out
    ctx = multiprocessing.get_context("spawn")
    pool = ctx.Pool(min(workers, len(starts)), initializer=_worker_init, initargs=(spec,))
    try:
        for res in pool.imap_unordered(_worker_solve, list(enumerate(starts))):
            out.results.append(res)
            if on_result is not None:
                on_result(res)
        pool.close()
    except KeyboardInterrupt:
        out.interrupted = True
        pool.terminate()
        forget_received()  # answered here: the caller keeps the finished ones and says so (exit 130)
    except BaseException:
        pool.terminate()
        raise
    finally:
        pool.join()
    return out
