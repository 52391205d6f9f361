"""A puzzle study's searches as the runner's work units (`fastsnake.runs`).

A unit is one (instance, heuristic) search, carried whole (board, tiles, heuristic), so a worker
needs nothing else; `search_row` solves it and returns its row (`study.ROW_COLUMNS`), the CPU-seconds
those of that search alone, in the process that ran it (its process CPU time: every thread of the
search, and a worker runs one search at a time). An IDA* search in a worker of the local pool gets
the cores the pool's idle workers leave (`fastsnake.runs.core_share`, asked at the start of every
iteration: the tail of a study, or a study of fewer instances than workers, searches on several
threads); its row's ``threads`` says the most it used (1 for A*, in this process and on a cluster).
Its moves and node counts are the serial search's whatever the threads; threads stopped by the node
limit are not (they searched other nodes than the serial search's first), so such a search is
searched again on one thread, and its row is the serial one's.

`worker_setup` runs once per worker process: it makes every heuristic's context — pattern databases
the study's process built once and shared (`share_tables`: a temporary file, or the set's cached
sparse file, memory-mapped read-only by every worker of the machine, as `puzzle batch` does); on a
cluster machine that lacks that file, the cached tables of that machine, built by its first worker
under a machine-wide lock (once a machine, never once a worker) — and loads the search kernels with a
one-move solve before any unit, so no unit's CPU-seconds include a load.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time

import numpy as np

from fastsnake.puzzle import board as B


def tiles_text(tiles) -> str:
    return " ".join(str(int(t)) for t in tiles)


# The goal with its blank moved once: a solve of it loads the kernels a study uses.
one_move = B.one_move


# A search stopped at `stop_nodes` (a run checked against a baseline: `study.stop_caps`), and the
# key of the result of a unit not searched because its heuristic was already decided worse.
STOP_STATUS = "stopped past the baseline's nodes"
SKIPPED = "skipped"


def unit_of(inst, heuristic: str, algorithm: str, stop_nodes: int | None = None) -> dict:
    """The unit of one search: everything its row needs from the instance; `stop_nodes`: where it
    stops, as worse than the baseline (None: at the study's node limit)."""
    unit = {"instance_set": inst.set, "instance_id": inst.id, "rows": inst.rows, "cols": inst.cols,
            "start": list(inst.start), "goal": list(inst.goal), "published_length": inst.optimum,
            "heuristic": heuristic, "algorithm": algorithm}
    if stop_nodes is not None:
        unit["stop_nodes"] = int(stop_nodes)
    return unit


def key_of(unit: dict) -> tuple:
    return (unit["heuristic"], unit["rows"], unit["cols"], tuple(unit["goal"]))


def search_row(state: dict, unit: dict) -> dict:
    """Solve `unit` with the state's context for its heuristic and board; its row."""
    from fastsnake import __version__, runs

    key = key_of(unit)
    decided = state.setdefault("decided", set())  # heuristics this process saw stop past the baseline
    if unit["heuristic"] in decided and state.get("skip_decided"):
        return {SKIPPED: True, "heuristic": unit["heuristic"], "instance_id": unit["instance_id"]}
    limits = dict(state["limits"])
    stop = unit.get("stop_nodes") is not None and unit["stop_nodes"] < limits["max_nodes"]
    if stop:
        limits["max_nodes"] = unit["stop_nodes"]
    from fastsnake.puzzle.ida_parallel import on_spare_cores

    # IDA* on a worker of the local pool: each iteration on the cores the idle workers leave
    share = runs.core_share() if unit["algorithm"] == "idastar" else None
    r, cpu = on_spare_cores(share, lambda threads: _solve(unit, state, key, limits, threads))
    if stop and r.status == "node limit reached":
        r.status = STOP_STATUS
        decided.add(unit["heuristic"])
    solved = r.status == "solved"
    return {"instance_set": unit["instance_set"], "instance_id": unit["instance_id"], "rows": unit["rows"],
            "cols": unit["cols"], "start": tiles_text(unit["start"]), "goal": tiles_text(unit["goal"]),
            "heuristic": unit["heuristic"], "algorithm": r.algorithm, "options": state["options_text"],
            # a user's heuristic is judged by the study (its sampling, its paths: `mark_inadmissible`), not by
            # `solve`, which is asked not to sample it here (its "not checked" is no finding)
            "length": int(r.length) if solved else None,
            "optimal": bool(solved and (r.optimal or r.optimal_reason is not None)),
            "published_length": unit["published_length"], "nodes_generated": int(r.nodes_generated),
            "nodes_expanded": int(r.nodes_expanded), "cpu_seconds": cpu, "threads": int(r.threads),
            "table_cpu_seconds": state["table_cpu_seconds"][key], "status": r.status, "moves": solution_moves(r),
            "fastsnake_version": __version__, "run_id": state["run_id"]}


def _solve(unit: dict, state: dict, key: tuple, limits: dict, threads):
    """(result, CPU-seconds) of the unit's search on `threads` (a number, or `runs.spare_cores`); a
    limit's result too (``status`` says which)."""
    from fastsnake.puzzle.solver import solve

    c0 = time.process_time()  # the process's CPU: every thread of this search (the only one running here)
    try:
        r = solve(np.array(unit["start"], np.int8), np.array(unit["goal"], np.int8), rows=unit["rows"],
                  cols=unit["cols"], algorithm=unit["algorithm"], heuristic=unit["heuristic"],
                  context=state["contexts"][key], prune_depth=state["prune_depth"], admissibility_samples=0, warn=False,
                  threads=threads, **limits)
    except B.PuzzleLimitError as exc:
        r = exc.result
    return r, time.process_time() - c0


def solution_moves(result) -> str | None:
    """A search's solution as a rows file keeps it: the blank's moves, letters U D L R (the notation
    `fastsnake puzzle check` reads), one a move; None when it did not solve."""
    return result.moves if result.status == "solved" else None


def share_tables(name: str, rows: int, cols: int, goal, *, partition=None, memory_budget=None, progress=None):
    """(the spec workers attach the tables with or None, the temporary file to remove or None,
    the parent's own context): tables built (or loaded) once here for the workers to map."""
    from fastsnake.puzzle.heuristics import REGISTRY
    from fastsnake.puzzle.solver import heuristic_context

    impl = REGISTRY[name].impl
    if impl is None or impl.share is None:
        return None, None, heuristic_context(name, rows, cols, np.array(goal), partition=partition,
                                             progress=progress, memory_budget=memory_budget)
    spec = {"rows": rows, "cols": cols, "goal": list(goal), "heuristic": name, "partition": partition,
            "memory_budget": memory_budget, "pdb_file": None}
    shared, _, data = impl.share(rows, cols, np.array(goal, np.int8), partition=partition, progress=progress,
                                 memory_budget=memory_budget, mapped=None)
    spec.update(shared)
    tmp = None
    if data is not None:
        fd, tmp = tempfile.mkstemp(prefix="fastsnake-pdb-", suffix=".bin",
                                   dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
        with os.fdopen(fd, "wb") as fh:
            fh.write(memoryview(data))
        spec["pdb_file"] = tmp
        del data
    return spec, tmp, attach(spec)


def attach(spec: dict):
    """A context on the shared tables `spec` names (mapped read-only); on a machine without that
    file, this machine's cached tables, built by one process at a time (`_machine_lock`)."""
    from fastsnake.puzzle.batch import worker_tables
    from fastsnake.puzzle.heuristics import REGISTRY
    from fastsnake.puzzle.solver import heuristic_context

    if spec.get("pdb_file") and os.path.exists(spec["pdb_file"]):
        return REGISTRY[spec["heuristic"]].impl.attach(spec, worker_tables(spec))
    with _machine_lock():
        return heuristic_context(spec["heuristic"], spec["rows"], spec["cols"], np.array(spec["goal"], np.int8),
                                 partition=spec["partition"], memory_budget=spec["memory_budget"])


@contextlib.contextmanager
def _machine_lock():
    """One process of this machine at a time builds (and caches) tables; the next loads them."""
    import fcntl

    from fastsnake.puzzle.pdb_store import cache_dir

    folder = cache_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd = os.open(folder / ".study-build.lock", os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield
        return
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)


def worker_setup(spec: dict) -> dict:
    """A worker's state: contexts of every (heuristic, board) of the study, kernels loaded."""
    from fastsnake.puzzle.heuristics import register_targets
    from fastsnake.puzzle.solver import heuristic_context, solve

    for name, targets in spec["user"].items():
        register_targets(name, targets)
    contexts = {}
    for key, shared in spec["boards"]:
        name, rows, cols, goal = key
        key = (name, rows, cols, tuple(goal))
        if shared is not None:
            contexts[key] = attach(shared)
        else:
            contexts[key] = heuristic_context(name, rows, cols, np.array(goal), partition=spec["partition"],
                                              memory_budget=spec["memory_budget"])
        solve(one_move(goal, rows, cols), np.array(goal), rows=rows, cols=cols, algorithm=spec["algorithms"][key],
              heuristic=name, context=contexts[key], prune_depth=spec["prune_depth"])
    return dict(spec, contexts=contexts)
