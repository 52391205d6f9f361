"""`phc`: John Tapsell's perturbed Hamiltonian cycle.

Idea: read the Hamiltonian cycle as a 1-D track. While the body lies on the
track in order (tail, body, head, then the free cells ahead up to the tail),
the head may jump ahead to any free neighbour that is still before the tail,
and under the follow rule the snake can never run into itself: the cell ahead
on the track is free or is the tail. Each move takes the free neighbour
furthest along the track within a budget: never past the apple, never onto or
past the tail, and no shortcut at all once the snake covers half the board.
Tapsell's budget also keeps a buffer of 3 cells to the tail, 1 more for the
growth when the apple comes first and 10 more when the apple is far ahead;
under the follow rule these cost moves (1596 instead of 1441 mean on 10x10)
and buy no safety, so `phc` drops them there. Source: J. Tapsell, "Nokia 6110
part 3 - algorithms" (johnflux.com, 2015); the `phc` agent of twanvl/snake.
Guarantee: never loses. Under the follow rule the order is the proof. Under
the blocked rule no shortcut is safe: it leaves free cells ("holes") inside
the body's stretch of track, and if every later apple falls just ahead of the
head the tail never moves, the head reaches the cell behind the tail with
holes left, and dies (docs/snake.md). So under the blocked rule
`phc` only shortcuts while the snake is one cell long (eating from the apple's
predecessor on the track, which leaves no hole) and then follows the cycle.
`phc-faithful` is Tapsell's budget unchanged under both rules: much faster
than `phc` under the blocked rule, and it loses a rare blocked-rule game (no
guarantee). Option ``cycle``: ``zigzag`` or ``random`` (a new random cycle
per game).
"""

import dataclasses

import numpy as np
from numba import njit

from fastsnake.snake.cycles import CYCLE_KINDS, check_cycle_board
from fastsnake.snake.engine import G_NBR, G_OCC
from fastsnake.snake.policies.cycle import (
    CYCLE_OPTION,
    W_MOVE,
    W_ORDER,
    W_PARAMS,
    cycle_kernels,
    cycle_workspace_k,
)

# Our policies in this module, name -> attribute: the registry reads this literal without an import.
BUILTIN = {"phc": "PHC", "phc-faithful": "PHC_FAITHFUL"}

# params: [cycle kind, mode]; the mode folds in the tail rule so a move reads one number.
PARAM_MODE = 1  # after cycle.PARAM_CYCLE
FOLLOW_SAFE, BLOCKED_SAFE, FAITHFUL = 0, 1, 2
BUFFER = 3  # Tapsell's buffer between the head and the tail


@njit(cache=True, inline="always")
def ahead(order, n, origin, cell):
    """Moves from the cycle position `origin` forward to `cell` (0 for the origin itself)."""
    d = order[cell] - origin
    return d + n if d < 0 else d


@njit(cache=True, inline="always")
def tail_distance(order, n, st):
    """Track distance from the head forward to the tail; a one-cell snake has the whole lap."""
    if st.length == 1:
        return n
    return ahead(order, n, order[st.head], st.tail)


@njit(cache=True, inline="always")
def phc_budget(n, length, dist_apple, dist_tail):
    """Tapsell's limit on how far along the track one move may jump."""
    if 2 * length > n:
        return 0
    limit = min(dist_apple, dist_tail - BUFFER)
    if dist_apple < dist_tail:
        limit -= 1
        if (dist_tail - dist_apple) * 4 > n - length:
            limit -= 10
    return limit


@njit(cache=True, inline="always")
def furthest_within(nbr, occ, order, n, head, limit, default):
    """Move to the free neighbour furthest ahead on the track within `limit` (> 1), else `default`.

    Written without data-dependent branches (an off-board neighbour -1 reads
    the last cell, then fails the test): the choice is unpredictable, and
    mispredicted branches cost more than the four loads.
    """
    origin = order[head]
    best, best_d = default, 1
    for move in range(4):
        v = nbr[head * 4 + move]
        d = order[v] - origin
        d += n & (d >> 31)
        good = (v >= 0) & (occ[v] == 0) & (d > best_d) & (d <= limit)
        best = move if good else best
        best_d = d if good else best_d
    return best


@njit(cache=True, inline="always")
def _decide(ws, g, st):
    """The furthest cycle-order shortcut the mode's safety rule allows, else the cycle's next move."""
    order = ws[W_ORDER]
    n = order.shape[0]
    head = st.head
    default = ws[W_MOVE][head]
    # Past half the board every variant follows the cycle: decide that first, it is most moves.
    if 2 * st.length > n:
        return default
    mode = ws[W_PARAMS][PARAM_MODE]
    origin = order[head]
    dist_apple = ahead(order, n, origin, st.apple)
    if mode == FOLLOW_SAFE:
        limit = min(dist_apple, tail_distance(order, n, st) - 1)
    elif mode == FAITHFUL:
        limit = phc_budget(n, st.length, dist_apple, tail_distance(order, n, st))
    elif st.length == 1:
        # Blocked rule: only moves that leave no hole (see the module docstring).
        limit = dist_apple - 1
    else:
        return default
    if limit <= 1:
        return default
    return furthest_within(g[G_NBR], g[G_OCC], order, n, head, limit, default)


@njit(cache=True)
def _alloc(cfg, nbr, params):
    """The cycle policy's workspace (`cycle.cycle_workspace`): phc keeps nothing else."""
    return cycle_workspace_k(cfg, nbr, params)


KERNELS = cycle_kernels(_alloc, _decide)


def safety_params(faithful):
    """make_params of a cycle-order policy: [cycle kind, mode]; the mode picks the safety rule
    for the game's tail rule, or the faithful (unsafe) original."""

    def make(config, options) -> np.ndarray:
        check_cycle_board(config.rows, config.cols)
        mode = FAITHFUL if faithful else (FOLLOW_SAFE if config.tail_rule == "follow" else BLOCKED_SAFE)
        return np.array([CYCLE_KINDS.index(options["cycle"]), mode], dtype=np.int64)

    return make


PHC = KERNELS.policy("phc", __doc__, safety_params(False), guaranteed=True, options=(CYCLE_OPTION,),
                     compile_cpu_range=(12.2, 13.8))
# The same kernels with the original's (unsafe) shortcut budget.
PHC_FAITHFUL = dataclasses.replace(PHC, name="phc-faithful", make_params=safety_params(True), guaranteed=False)
