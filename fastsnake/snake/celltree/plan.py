"""The agent's decision: search a plan, keep or replace the committed one, fall back on an outline walk.

`search` runs the detour chain and then the branch and bound; `replan` decides when to re-search
a committed plan (every few moves, with backoff) and commits; `decide` is the engine's per-move
hook with the fast path for a standing plan. `sweep_kernel` and `play_kernel` are the compiled
entry points of the presets.
"""

from numba import njit

from fastsnake.snake.celltree.chain import detour_chain
from fastsnake.snake.celltree.layout import (
    M_APPLE,
    M_DETOUR,
    M_DIRECT,
    M_LEN,
    M_MOVES,
    M_PARAMS,
    M_POS,
    M_RESEARCH,
    O_PLAN,
    O_TRY,
    RESEARCH_WALK,
    W_I,
    W_L,
    W_ORDER,
    W_X,
    X_BACKOFF,
    X_BOWHICH,
    X_BUDGET,
    X_CHAIN,
    X_GAP,
    X_NEXT,
    X_OUTLINE,
    X_RROUNDS,
    X_SNUG,
    X_TABLED,
    X_TIES,
    X_WROUNDS,
    segment,
)
from fastsnake.snake.celltree.params import P_EVERY, P_ROUNDS, SNUG_ASTAR, TIES_OFF, TIES_ONLY
from fastsnake.snake.celltree.snug import enumerate_routes, snug_route
from fastsnake.snake.celltree.times import stamp_head, undo_virtual
from fastsnake.snake.celltree.trees import outline_best, outline_plan
from fastsnake.snake.celltree.workspace import alloc, reset, start_cells
from fastsnake.snake.engine import G_BODY, play_recorded, sweep_chunk


@njit(cache=True)
def search(I, L, X, order, body, st, bound, rounds):
    """cell's plan (shortest path, else the detour chain), then the branch and bound (`enumerate_routes`): when
    the chain detoured, a shorter plan that also ends on an outline (not with TIES_ONLY); when the shortest
    path passed, the snuggest shortest path that passes (TIES_BOTH, TIES_ONLY). A plan replaces the
    chain's only if it passes the same outline test, so the guarantee is cell's."""
    X[X_TABLED] = 0  # the suffix tables are made at the first `suffix_test`
    steps = detour_chain(I, L, X, order, body, st, bound, rounds)
    undo_virtual(L)
    if X[X_BUDGET] > 0 and L[M_DIRECT] > 0 and st.length + 1 < body.shape[0]:
        if (steps == 0 or L[M_DETOUR] > 0) and X[X_TIES] != TIES_ONLY:
            limit = steps - 1 if steps > 0 else bound
            found = enumerate_routes(I, L, X, body, st, limit)
            if found > 0:
                steps = found
                L[M_DETOUR] = 1  # may still be beaten once the tail has moved on
        elif X[X_TIES] != TIES_OFF and L[M_DETOUR] == 0:
            if X[X_SNUG] == SNUG_ASTAR:
                found = snug_route(I, L, X, body, st, steps)
            else:
                found = enumerate_routes(I, L, X, body, st, steps)
            if found > 0:
                steps = found
    return steps


@njit(cache=True, inline="always")
def research_interval(L, X):
    """Moves between re-searches of the committed plan: an outline walk's, or a detour chain's."""
    return L[M_PARAMS + P_EVERY] if L[M_RESEARCH] == RESEARCH_WALK else X[X_CHAIN]


@njit(cache=True, inline="always")
def research_due(L, X, pos, every):
    """Is the committed plan due for a re-search at its move `pos`? (every `every` moves, or at the
    backoff's next move when backoff applies to this kind of plan)."""
    walk = L[M_RESEARCH] == RESEARCH_WALK
    if X[X_BACKOFF] > 1 and (X[X_BOWHICH] >> (1 if walk else 0)) & 1 != 0:
        return pos >= X[X_NEXT]
    return pos % every == 0


@njit(cache=True)
def replan(I, L, X, order, body, st):
    """cell's `replan` over this module's search."""
    n = body.shape[0]
    plan = segment(I, O_PLAN, 2 * n + 2)
    if L[M_MOVES] != st.moves or L[M_APPLE] != st.apple:
        L[M_LEN] = 0
        L[M_POS] = 0
    left = L[M_LEN] - L[M_POS]
    steps = 0
    every = research_interval(L, X)
    searched = left == 0 or (research_due(L, X, L[M_POS], every) and L[M_DIRECT] < left)
    if searched:
        # Re-searches may use fewer (or more) detour rounds: RROUNDS for a chain's plan, WROUNDS for a walk.
        rounds = L[M_PARAMS + P_ROUNDS]
        if left > 0:
            again = X[X_WROUNDS] if L[M_RESEARCH] == RESEARCH_WALK else X[X_RROUNDS]
            if again >= 0:
                rounds = again
        steps = search(I, L, X, order, body, st, left - 1 if left > 0 else n - st.length, rounds)
    if left == 0 or (searched and 0 < steps < left):
        X[X_GAP] = every
        X[X_NEXT] = every
    elif searched:  # a re-search found nothing shorter: wait longer for the next one
        X[X_GAP] = min(2 * X[X_GAP], every * X[X_BACKOFF])
        X[X_NEXT] = L[M_POS] + X[X_GAP]
    if steps > 0 and (left == 0 or steps < left):
        plan[:steps] = segment(I, O_TRY, steps)
        L[M_LEN] = steps
        L[M_POS] = 0
        L[M_RESEARCH] = 0 if L[M_DETOUR] == 0 else 1
    elif left == 0:
        L[M_LEN] = outline_plan(I, L, body, st) if X[X_OUTLINE] == 0 else outline_best(I, L, X, body, st)
        L[M_POS] = 0
        L[M_RESEARCH] = RESEARCH_WALK
        if L[M_DIRECT] == 0:
            L[M_DIRECT] = -1
    if L[M_DIRECT] > 0:
        L[M_DIRECT] -= 1
    move = plan[L[M_POS]]
    L[M_POS] += 1
    L[M_MOVES] = st.moves + 1
    L[M_APPLE] = st.apple
    return move


@njit(cache=True, inline="always")
def decide(ws, g, st):
    I, L, X, order, body = ws[W_I], ws[W_L], ws[W_X], ws[W_ORDER], g[G_BODY]
    stamp_head(L, body, st)
    pos = L[M_POS]
    if pos < L[M_LEN] and L[M_MOVES] == st.moves and L[M_APPLE] == st.apple:
        if L[M_RESEARCH] == 0:
            L[M_POS] = pos + 1
            L[M_MOVES] = st.moves + 1
            return I[I[O_PLAN] + pos]
        # A plan that may be re-searched, between re-searches: what `replan` does then, without the call.
        if not (research_due(L, X, pos, research_interval(L, X)) and L[M_DIRECT] < L[M_LEN] - pos):
            if L[M_DIRECT] > 0:
                L[M_DIRECT] -= 1
            L[M_POS] = pos + 1
            L[M_MOVES] = st.moves + 1
            return I[I[O_PLAN] + pos]
    return replan(I, L, X, order, body, st)


@njit(cache=True, parallel=True)
def sweep_kernel(cfg, nbr, params, base_seed, first, out, nblocks):
    """The engine's sweep over the cell-tree agent (`engine.sweep_chunk`)."""
    sweep_chunk(alloc, reset, decide, cfg, nbr, params, base_seed, first, out, nblocks)


@njit(cache=True)
def play_kernel(cfg, nbr, params, seed):
    """One recorded game of the cell-tree agent (`engine.play_recorded`)."""
    return play_recorded(alloc, reset, decide, start_cells, cfg, nbr, params, seed)
