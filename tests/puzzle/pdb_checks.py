"""Checks the PDB tests share."""

import numpy as np

from fastsnake.puzzle import solve
from fastsnake.puzzle.heuristics import heuristic_value


def assert_contexts_agree(ctx, other, dist, goal, seed, values, searches, algorithms=("idastar",)):
    """`ctx` and `other` (two heuristic contexts of the same tables, 3×3) give the same h on `values`
    random states of `dist` (BFS distances), never above the distance, and searches from `searches`
    of them the optimal length with the same nodes generated."""
    rng = np.random.default_rng(seed)
    states = list(dist)
    for i in rng.choice(len(states), values, replace=False):
        b = np.array(states[i], np.int8)
        assert heuristic_value(b, ctx[0]) == heuristic_value(b, other[0]) <= dist[states[i]]
    for i in rng.choice(len(states), searches, replace=False):
        b = np.array(states[i], np.int8)
        for alg in algorithms:
            r = solve(b, goal, rows=3, cols=3, algorithm=alg, heuristic="pdb", context=ctx)
            r0 = solve(b, goal, rows=3, cols=3, algorithm=alg, heuristic="pdb", context=other)
            assert r.length == dist[states[i]]
            assert r.nodes_generated == r0.nodes_generated
