"""Sampling a heuristic against true distances: the core of `admissible.check_admissible`, and
`vouch`, the verdict a search's "optimal" rests on for a user's heuristic.

This module imports no solver: the one that solves the random walks' states is passed in (`solve`),
so that `fastsnake.puzzle.solver` can ask for a verdict without an import cycle.

An optimal search is optimal only with an admissible heuristic (never above the true distance to
the goal). A user's heuristic is not trusted blindly: this samples states and compares. On boards
of at most `BFS_MAX_CELLS` cells every state's distance is known by a breadth-first search from
the goal, and states are drawn uniformly from all of them; on larger boards states are random
walks of 1..`max_walk` moves from the goal, each solved optimally with IDA* and Manhattan distance
(admissible by construction). A violation is a sampled state where h exceeds that distance; none
seen is evidence, not proof.
"""

from __future__ import annotations

from collections import deque
from dataclasses import asdict, dataclass, field

import numpy as np

from fastsnake.puzzle import board as B

# Boards up to this many cells are searched whole (3x3: 181,440 states, about 1 CPU-s).
BFS_MAX_CELLS = 9
DEFAULT_MAX_WALK = 30


@dataclass
class AdmissibilityReport:
    """What `check_admissible` found. `violations`: one dict per state where the heuristic is above
    the true distance, ``{"state": [tiles], "h": value, "distance": true distance}``, the worst first."""

    heuristic: str
    rows: int
    cols: int
    method: str  # "bfs" (uniform over every state) or "walks" (random walks from the goal)
    samples: int  # states compared
    seed: int
    violations: list = field(default_factory=list)
    # One dict per sampled state whose `cells` or `goal` argument the heuristic changed (a user's:
    # each call gets copies, compared after it), ``{"state": [tiles], "changed": "cells"}``.
    mutations: list = field(default_factory=list)

    @property
    def admissible(self) -> bool:
        """No sampled state has h above its distance, and the heuristic changed none of its arguments."""
        return not self.violations and not self.mutations

    def reason(self) -> str | None:
        """Why a search with this heuristic is not proven optimal (one clause), or None."""
        if self.mutations:
            m = self.mutations[0]
            return (f"heuristic {self.heuristic!r} changes its {m['changed']} argument (on {len(self.mutations):,} "
                    f"of {self.samples:,} sampled states)")
        if self.violations:
            v = self.violations[0]
            return (f"heuristic {self.heuristic!r} is not admissible: h = {v['h']} on a state {v['distance']} moves "
                    f"from the goal ({len(self.violations):,} of {self.samples:,} sampled states above their "
                    "true distance)")
        return None

    def as_dict(self) -> dict:
        return {**asdict(self), "admissible": self.admissible}


def _bfs_distances(goal: np.ndarray, rows: int, cols: int) -> dict:
    """Distance to `goal` of every state reachable from it (tuples of tiles)."""
    nbr = [[(r + dr) * cols + c + dc for dr, dc in ((-1, 0), (1, 0), (0, -1), (0, 1))
            if 0 <= r + dr < rows and 0 <= c + dc < cols] for r in range(rows) for c in range(cols)]
    start = tuple(goal.tolist())
    dist = {start: 0}
    queue = deque([(start, start.index(0))])
    while queue:
        state, blank = queue.popleft()
        d = dist[state] + 1
        for a in nbr[blank]:
            s = list(state)
            s[blank], s[a] = s[a], 0
            t = tuple(s)
            if t not in dist:
                dist[t] = d
                queue.append((t, a))
    return dist


def sample(name: str, rows: int, cols: int | None = None, samples: int = 200, seed: int = 0, goal=None,
           max_walk: int = DEFAULT_MAX_WALK, *, solve) -> AdmissibilityReport:
    """`admissible.check_admissible`, with `solve` (`fastsnake.puzzle.solver.solve`) the solver of the
    random walks' states on boards above `BFS_MAX_CELLS` cells."""
    from fastsnake.puzzle.heuristics import REGISTRY, context_of, heuristic_code, heuristic_value, user_value_checked

    cols = rows if cols is None else cols
    B.check_size(rows, cols, B.MAX_CELLS)
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
        raise B.PuzzleInputError(f"samples {samples!r} must be a positive integer")
    if isinstance(max_walk, bool) or not isinstance(max_walk, (int, np.integer)) or max_walk < 1:
        raise B.PuzzleInputError(f"max_walk {max_walk!r} must be a positive integer")
    heuristic_code(name)
    goal = B.goal_default(rows, cols) if goal is None else B.parse_tiles(goal, rows, cols, "goal")
    hc, _ = context_of(name, rows, cols, goal)
    rng = np.random.default_rng(seed)
    pairs = []  # (state, true distance)
    if rows * cols <= BFS_MAX_CELLS:
        method = "bfs"
        dist = _distances(goal, rows, cols)
        states = list(dist)
        for i in rng.choice(len(states), min(int(samples), len(states)), replace=False):
            pairs.append((np.array(states[i], np.int8), dist[states[i]]))
    else:
        method = "walks"
        nbr = B.neighbours(rows, cols)
        for _ in range(int(samples)):
            state = goal.copy()
            blank = int(np.flatnonzero(state == 0)[0])
            for _ in range(int(rng.integers(1, max_walk + 1))):
                moves = [a for a in nbr[blank * 4:blank * 4 + 4] if a >= 0]
                a = int(moves[int(rng.integers(len(moves)))])
                state[blank], state[a] = state[a], 0
                blank = a
            length = solve(state, goal, rows=rows, cols=cols, algorithm="idastar", heuristic="manhattan").length
            pairs.append((state, length))
    violations, mutations = [], []
    user = REGISTRY[name].impl is None
    for state, d in pairs:
        if user:  # on copies of its arguments, compared after the call
            h, changed = user_value_checked(REGISTRY[name], state, hc)
            if changed:
                mutations.append({"state": state.tolist(), "changed": changed})
        else:
            h = heuristic_value(state, hc)
        if h > d:
            violations.append({"state": state.tolist(), "h": int(h), "distance": int(d)})
    violations.sort(key=lambda v: (v["distance"] - v["h"], v["state"]))
    return AdmissibilityReport(name, rows, cols, method, len(pairs), int(seed), violations, mutations)


_DISTANCES: dict = {}  # (rows, cols, goal bytes) -> every state's distance, kept for the process
_DISTANCES_KEPT = 2


def _distances(goal: np.ndarray, rows: int, cols: int) -> dict:
    """`_bfs_distances`, kept for the last `_DISTANCES_KEPT` boards and goals of this process (a 3x3
    board's is a CPU-second; a batch of solves with a user's heuristic samples it once)."""
    key = (rows, cols, np.asarray(goal, np.int8).tobytes())
    if key not in _DISTANCES:
        while len(_DISTANCES) >= _DISTANCES_KEPT:
            del _DISTANCES[next(iter(_DISTANCES))]
        _DISTANCES[key] = _bfs_distances(goal, rows, cols)
    return _DISTANCES[key]


# States `vouch` samples per user's heuristic, board and goal by default: what a study samples.
DEFAULT_SAMPLES = 40
_VERDICTS: dict = {}  # vouch's key -> its verdict, for the process


def verdict_key(name: str, rows: int, cols: int, goal, samples: int) -> tuple:
    """What a `vouch` verdict holds for: the heuristic (its functions: a re-registered heuristic is
    checked again), the board, the goal and the sample size."""
    from fastsnake.puzzle.heuristics import REGISTRY

    spec = REGISTRY.get(name)
    funcs = (id(spec.evaluate), id(spec.update)) if spec is not None else ()
    return (name, funcs, int(rows), int(cols), np.asarray(goal, np.int8).tobytes(), int(samples))


def vouch(name: str, rows: int, cols: int, goal, samples: int = DEFAULT_SAMPLES, *, solve) -> dict:
    """Whether an optimal search with heuristic `name` on this board and goal may say "optimal":
    ``{"checked": ..., "samples": n, "method": ..., "reason": None or why not}``.

    A built-in heuristic is admissible by construction (no states sampled, ``checked`` "built-in").
    A user's is sampled (`sample`, `samples` states, seed 0: the same states every time; `solve` as there),
    once a process for a board and goal: a sampled value above the true distance, or a changed
    argument (cells, goal), is a `reason`; so is ``samples=0`` (not checked). None seen is evidence,
    not proof: ``checked`` is "sampled"."""
    from fastsnake.puzzle.heuristics import REGISTRY, heuristic_code

    heuristic_code(name)
    if REGISTRY[name].impl is not None or name == "zero":
        return {"checked": "built-in", "samples": 0, "method": None, "reason": None}
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 0:
        raise B.PuzzleInputError(f"admissibility_samples {samples!r} must be a whole number >= 0")
    key = verdict_key(name, rows, cols, goal, samples)
    if key not in _VERDICTS:
        if samples == 0:
            _VERDICTS[key] = {"checked": "no", "samples": 0, "method": None,
                              "reason": f"heuristic {name!r} was not checked for admissibility (0 sampled states)"}
        else:
            report = sample(name, rows, cols, samples=int(samples), seed=0, goal=np.asarray(goal), solve=solve)
            _VERDICTS[key] = {"checked": "sampled", "samples": report.samples, "method": report.method,
                              "reason": report.reason()}
    return dict(_VERDICTS[key])


def remember(key: tuple, verdict: dict) -> None:
    """Keep `verdict` for `key` (`verdict_key`): a batch's worker takes its parent's."""
    _VERDICTS[key] = dict(verdict)
