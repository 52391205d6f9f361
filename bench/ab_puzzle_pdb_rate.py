"""IDA* + pdb (6-6-3 with its reflection) on Korf's 100: total nodes and CPU-s in one process, for an A/B of
two trees run alternately (`PYTHONPATH=TREE python bench/ab_puzzle_pdb_rate.py [IDS]`)."""
import json
import sys
import time
from pathlib import Path

import numpy as np

from fastsnake.puzzle import solve
from fastsnake.puzzle.solver import heuristic_context

rows = {}
for line in open(Path(__file__).resolve().parents[1] / "tests" / "puzzle" / "golden" / "korf100.csv"):
    if line[0].isdigit():
        i, length, nodes, tiles = line.strip().split(",")
        rows[int(i)] = (int(length), tiles)
ids = [int(x) for x in sys.argv[1].split(",")] if len(sys.argv) > 1 else list(range(1, 101))
ctx = heuristic_context("pdb", 4, 4, np.arange(16, dtype=np.int8))
solve(rows[12][1], rows=4, cols=4, algorithm="idastar", heuristic="pdb", context=ctx)  # warm
nodes = 0
c0 = time.process_time()
for i in ids:
    r = solve(rows[i][1], rows=4, cols=4, algorithm="idastar", heuristic="pdb", context=ctx)
    assert r.length == rows[i][0]
    nodes += r.nodes_generated
cpu = time.process_time() - c0
print(json.dumps({"nodes": nodes, "cpu": cpu, "rate": nodes / cpu}))
