"""Compile CPU-seconds of the puzzle searches' kernels, per heuristic and search, in one process.

    NUMBA_CACHE_DIR=$(mktemp -d) NUMBA_OPT=1 PYTHONPATH=. python bench/bench_puzzle_compile.py [HEURISTICS]

Run it with an empty numba cache folder (a warm one measures loading). Each heuristic's context is
built first (tables for 3x3: small), then one 8-puzzle is solved by IDA* and by A*: the CPU-seconds
of each solve are its kernel's compile (with the heuristic's evaluation the first time) and a search
of a few hundred nodes. `NUMBA_OPT=1` is the tests' level (tests/conftest.py); without it, numba's
default. Prints one JSON object: CPU-s per "heuristic/search" and the total.
"""

from __future__ import annotations

import json
import sys
import time

import numpy as np


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    from fastsnake.puzzle import solve
    from fastsnake.puzzle.heuristics import heuristic_names
    from fastsnake.puzzle.solver import heuristic_context

    names = argv[0].split(",") if argv else heuristic_names()
    goal = np.arange(9, dtype=np.int8)
    out = {}
    t0 = time.process_time()
    for h in names:
        ctx = heuristic_context(h, 3, 3, goal, "4-4" if h.startswith("pdb") else None)
        for algorithm in ("idastar", "astar"):
            c = time.process_time()
            solve("806 547 231", goal, rows=3, cols=3, algorithm=algorithm, heuristic=h, context=ctx)
            out[f"{h}/{algorithm}"] = round(time.process_time() - c, 2)
    out["total"] = round(time.process_time() - t0, 2)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
