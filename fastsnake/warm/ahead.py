"""`warm`: compile the named parts ahead of time, in parallel processes across the cores.

Processes are spawned, not forked: a fork after numba's OpenMP layer has started aborts the child.
A part marked as compiled for the installed sources, numba and CPU is not run at all, so warming a
warm cache costs no process start: about a second, spent finding out.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from concurrent.futures import ProcessPoolExecutor, as_completed

from fastsnake.warm import parts as P
from fastsnake.warm import store


def resolve_parts(policies=(), puzzle=False, tour=False, envs=False, everything=False) -> list[str]:
    """The part names of a request; ``everything`` is every built-in policy and every other part
    (the envs only when gymnasium is installed: they are an extra)."""
    from importlib.util import find_spec

    chosen = P.builtin_policy_parts() if everything else P.policy_parts(policies)
    if everything or puzzle:
        chosen += ["puzzle", "puzzle-large"]
    if everything or tour:
        chosen.append("tour")
    if envs or (everything and find_spec("gymnasium") is not None):
        chosen.append("envs")
    return list(dict.fromkeys(chosen))


def warm(parts, *, jobs: int | None = None, force: bool = False, progress=None) -> dict:
    """Compile `parts` (see `resolve_parts`); `progress(done, total, row)` after each part.

    Returns ``{"parts": [{"part", "seconds", "compiled", "cached", "error"}], "seconds", "jobs",
    "cache"}``; a part already marked warm has ``cached`` True and costs nothing.
    """
    t0 = time.perf_counter()
    marks = store.read_json(P.MARKS_FILE)
    todo = [p for p in parts if force or not P.is_marked(p, marks)]
    rows = {p: {"part": p, "seconds": 0.0, "compiled": False, "compile_seconds": 0.0, "error": None}
            for p in parts if p not in todo}
    jobs = max(1, min(jobs or os.cpu_count() or 1, len(todo) or 1))
    done = 0
    for row in rows.values():
        done += 1
        if progress is not None:
            progress(done, len(parts), dict(row, cached=True))
    if todo:
        # Big parts first: the longest compile should not start last.
        todo.sort(key=lambda p: p not in ("policy:grove", "policy:strongest", "policy:cell"))
        with ProcessPoolExecutor(max_workers=jobs, mp_context=multiprocessing.get_context("spawn")) as pool:
            futures = {pool.submit(P.run_part, p): p for p in todo}
            for future in as_completed(futures):
                row = future.result()
                rows[row["part"]] = row
                done += 1
                if progress is not None:
                    progress(done, len(parts), dict(row, cached=False))
        P.mark([p for p in todo if rows[p]["error"] is None])
    ordered = [dict(rows[p], cached=p not in todo) for p in parts]
    return {"parts": ordered, "seconds": round(time.perf_counter() - t0, 2), "jobs": jobs,
            "cache": str(store.cache_root())}

