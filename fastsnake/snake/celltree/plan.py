"""The agent's decision: search a plan, keep or replace the committed one, fall back on an outline walk.

`chain_search` runs the detour chain (cell's search), `search` that and then the branch and bound;
`replan` decides when to re-search a committed plan (every few moves, with backoff) and commits;
`decide` is grove's per-move hook (the engine's `decide`) with the fast path for a standing plan,
`cell_decide` the same code over `chain_search` and the one outline tree: `cell`'s settings never
reach the branch and bound or the other trees, and leaving them out halves their compile time.
The kernels hold the fast path only: they call `replan` and `cell_replan` through named symbols
(`link`), so each search is compiled once a process, not again in every kernel; the searches call
their pieces (the chains, the branch and bound, the outline walks) the same way. The policies'
kernels are made of these in ``policies/grove.py`` and ``policies/cell.py``
(`policies.kernels.engine_kernels`, `link.link_kernels`).
"""

from numba import njit

from fastsnake.snake.celltree.chain import DETOUR_CHAIN, call_detour_chain, plain_chain
from fastsnake.snake.celltree.layout import (
    I_PLAN,
    I_TRIAL_PLAN,
    L_DETOUR_ROUNDS,
    L_PLAN_APPLE,
    L_PLAN_LENGTH,
    L_PLAN_MOVE,
    L_PLAN_POS,
    L_RESEARCH,
    L_SHORTEST,
    RESEARCH_WALK,
    W_I,
    W_L,
    W_ORDER,
    W_X,
    X_NEXT_RESEARCH,
    X_PARAMS,
    X_RESEARCH_GAP,
    X_SUFFIX_MADE,
    copy_into,
    segment,
)
from fastsnake.snake.celltree.link import SEARCH_SIG, symbol_call
from fastsnake.snake.celltree.outline import BIG_BOARD_TEST
from fastsnake.snake.celltree.params import (
    P_BACKOFF,
    P_BOWHICH,
    P_BUDGET,
    P_CHAIN,
    P_EVERY,
    P_OUTLINE,
    P_ROUNDS,
    P_RROUNDS,
    P_SNUG,
    P_TIES,
    P_WROUNDS,
    SNUG_ASTAR,
    TIES_OFF,
    TIES_ONLY,
)
from fastsnake.snake.celltree.snug import ENUMERATE_ROUTES, SNUG_ROUTE, call_enumerate_routes, call_snug_route
from fastsnake.snake.celltree.times import stamp_head, undo_virtual
from fastsnake.snake.celltree.trees import OUTLINE_BEST, OUTLINE_PLAN, call_outline_best, call_outline_plan
from fastsnake.snake.engine import G_BODY, compiled_only


@njit(cache=True, inline="always")
def chain_search_with(chain, I, L, X, order, body, st, bound, rounds):
    """The shortest path, else the detour chain (`chain`: `detour_chain` or `plain_chain`); its length."""
    X[X_SUFFIX_MADE] = 0  # the suffix tables are made at the first `suffix_test`
    steps = chain(I, L, X, order, body, st, bound, rounds)
    undo_virtual(L)
    return steps


@njit(cache=True, inline="always")
def chain_search(I, L, X, order, body, st, bound, rounds):
    """cell's plan: the shortest path, else the detour chain without snug legs (`plain_chain`)."""
    return chain_search_with(plain_chain, I, L, X, order, body, st, bound, rounds)


@njit(cache=True, inline="always")
def search(I, L, X, order, body, st, bound, rounds):
    """cell's plan with grove's snug chain legs (`detour_chain`), then the branch and bound (`enumerate_routes`): when
    the chain detoured, a shorter plan that also ends on an outline (not with TIES_ONLY); when the shortest
    path passed, the snuggest shortest path that passes (TIES_BOTH, TIES_ONLY). A plan replaces the
    chain's only if it passes the same outline test, so the guarantee is cell's."""
    steps = chain_search_with(call_detour_chain, I, L, X, order, body, st, bound, rounds)
    if X[X_PARAMS + P_BUDGET] > 0 and L[L_SHORTEST] > 0 and st.length + 1 < body.shape[0]:
        if (steps == 0 or L[L_DETOUR_ROUNDS] > 0) and X[X_PARAMS + P_TIES] != TIES_ONLY:
            limit = steps - 1 if steps > 0 else bound
            found = call_enumerate_routes(I, L, X, body, st, limit)
            if found > 0:
                steps = found
                L[L_DETOUR_ROUNDS] = 1  # may still be beaten once the tail has moved on
        elif X[X_PARAMS + P_TIES] != TIES_OFF and L[L_DETOUR_ROUNDS] == 0:
            if X[X_PARAMS + P_SNUG] == SNUG_ASTAR:
                found = call_snug_route(I, L, X, body, st, steps)
            else:
                found = call_enumerate_routes(I, L, X, body, st, steps)
            if found > 0:
                steps = found
    return steps


@njit(cache=True, inline="always")
def cell_walk(I, L, X, body, st):
    """cell's outline walk: the one tree of `outline_plan`; the plan's length."""
    return call_outline_plan(I, L, body, st)


@njit(cache=True, inline="always")
def walk(I, L, X, body, st):
    """The outline walk `P_OUTLINE` asks for: cell's one tree, or the best of several (`outline_best`)."""
    return call_outline_plan(I, L, body, st) if X[X_PARAMS + P_OUTLINE] == 0 else call_outline_best(I, L, X, body, st)


@njit(cache=True, inline="always")
def research_interval(L, X):
    """Moves between re-searches of the committed plan: an outline walk's, or a detour chain's."""
    return X[X_PARAMS + P_EVERY] if L[L_RESEARCH] == RESEARCH_WALK else X[X_PARAMS + P_CHAIN]


@njit(cache=True, inline="always")
def research_due(L, X, pos, every):
    """Is the committed plan due for a re-search at its move `pos`? (every `every` moves, or at the
    backoff's next move when backoff applies to this kind of plan)."""
    walk = L[L_RESEARCH] == RESEARCH_WALK
    if X[X_PARAMS + P_BACKOFF] > 1 and (X[X_PARAMS + P_BOWHICH] >> (1 if walk else 0)) & 1 != 0:
        return pos >= X[X_NEXT_RESEARCH]
    return pos % every == 0


@njit(cache=True, inline="always")
def replan_with(searcher, walker, I, L, X, order, body, st):
    """Re-search when due with `searcher` (`chain_search` or `search`), commit a shorter plan, else
    walk an outline (`walker`: `cell_walk` or `walk`); the next move. Inlined into `replan` and
    `cell_replan` only: a function passed to a compiled (not inlined) call would be a runtime
    object, which numba cannot cache."""
    n = body.shape[0]
    plan = segment(I, I_PLAN, 2 * n + 2)
    if L[L_PLAN_MOVE] != st.moves or L[L_PLAN_APPLE] != st.apple:
        L[L_PLAN_LENGTH] = 0
        L[L_PLAN_POS] = 0
    left = L[L_PLAN_LENGTH] - L[L_PLAN_POS]
    steps = 0
    every = research_interval(L, X)
    searched = left == 0 or (research_due(L, X, L[L_PLAN_POS], every) and L[L_SHORTEST] < left)
    if searched:
        # Re-searches may use fewer (or more) detour rounds: RROUNDS for a chain's plan, WROUNDS for a walk.
        rounds = X[X_PARAMS + P_ROUNDS]
        if left > 0:
            again = X[X_PARAMS + P_WROUNDS] if L[L_RESEARCH] == RESEARCH_WALK else X[X_PARAMS + P_RROUNDS]
            if again >= 0:
                rounds = again
        steps = searcher(I, L, X, order, body, st, left - 1 if left > 0 else n - st.length, rounds)
    if left == 0 or (searched and 0 < steps < left):
        X[X_RESEARCH_GAP] = every
        X[X_NEXT_RESEARCH] = every
    elif searched:  # a re-search found nothing shorter: wait longer for the next one
        X[X_RESEARCH_GAP] = min(2 * X[X_RESEARCH_GAP], every * X[X_PARAMS + P_BACKOFF])
        X[X_NEXT_RESEARCH] = L[L_PLAN_POS] + X[X_RESEARCH_GAP]
    if steps > 0 and (left == 0 or steps < left):
        copy_into(I, I[I_PLAN], segment(I, I_TRIAL_PLAN, steps))
        L[L_PLAN_LENGTH] = steps
        L[L_PLAN_POS] = 0
        L[L_RESEARCH] = 0 if L[L_DETOUR_ROUNDS] == 0 else 1
    elif left == 0:
        L[L_PLAN_LENGTH] = walker(I, L, X, body, st)
        L[L_PLAN_POS] = 0
        L[L_RESEARCH] = RESEARCH_WALK
        if L[L_SHORTEST] == 0:
            L[L_SHORTEST] = -1
    if L[L_SHORTEST] > 0:
        L[L_SHORTEST] -= 1
    move = plan[L[L_PLAN_POS]]
    L[L_PLAN_POS] += 1
    L[L_PLAN_MOVE] = st.moves + 1
    L[L_PLAN_APPLE] = st.apple
    return move


@compiled_only
def replan(I, L, X, order, body, st):
    """grove's re-search and commit (`replan_with` over `search` and `walk`)."""
    return replan_with(search, walk, I, L, X, order, body, st)


@compiled_only
def cell_replan(I, L, X, order, body, st):
    """cell's: over `chain_search` and the one outline tree."""
    return replan_with(chain_search, cell_walk, I, L, X, order, body, st)


# The kernels call the re-search and commit through these (`link`): compiled once, not in every kernel.
REPLAN_SYMBOL, CELL_REPLAN_SYMBOL = "fastsnake_celltree_replan_v1", "fastsnake_celltree_cell_replan_v1"
# The pieces each search calls through names in turn (bound before it compiles or loads).
REPLAN_NEEDS = (DETOUR_CHAIN, ENUMERATE_ROUTES, SNUG_ROUTE, OUTLINE_PLAN, OUTLINE_BEST)
CELL_REPLAN_NEEDS = (BIG_BOARD_TEST, OUTLINE_PLAN)
call_replan = symbol_call(REPLAN_SYMBOL, replan, SEARCH_SIG, REPLAN_NEEDS)
call_cell_replan = symbol_call(CELL_REPLAN_SYMBOL, cell_replan, SEARCH_SIG, CELL_REPLAN_NEEDS)
# What a policy's kernels made of `decide` or `cell_decide` call (`link.link_kernels`).
GROVE_SEARCH = ((REPLAN_SYMBOL, replan, SEARCH_SIG),)
CELL_SEARCH = ((CELL_REPLAN_SYMBOL, cell_replan, SEARCH_SIG),)


@njit(cache=True, inline="always")
def next_move(ws, g, st, replanner):
    """The committed plan's next move, or `replanner`'s (`replan`, `cell_replan`) when a (re-)search is due."""
    I, L, X, order, body = ws[W_I], ws[W_L], ws[W_X], ws[W_ORDER], g[G_BODY]
    stamp_head(L, body, st)
    pos = L[L_PLAN_POS]
    if pos < L[L_PLAN_LENGTH] and L[L_PLAN_MOVE] == st.moves and L[L_PLAN_APPLE] == st.apple:
        if L[L_RESEARCH] == 0:
            L[L_PLAN_POS] = pos + 1
            L[L_PLAN_MOVE] = st.moves + 1
            return I[I[I_PLAN] + pos]
        # A plan that may be re-searched, between re-searches: what `replan` does then, without the call.
        if not (research_due(L, X, pos, research_interval(L, X)) and L[L_SHORTEST] < L[L_PLAN_LENGTH] - pos):
            if L[L_SHORTEST] > 0:
                L[L_SHORTEST] -= 1
            L[L_PLAN_POS] = pos + 1
            L[L_PLAN_MOVE] = st.moves + 1
            return I[I[I_PLAN] + pos]
    return replanner(I, L, X, order, body, st)


@njit(cache=True, inline="always")
def decide(ws, g, st):
    """grove's per-move hook (the engine's `decide`)."""
    return next_move(ws, g, st, call_replan)


@njit(cache=True, inline="always")
def cell_decide(ws, g, st):
    """cell's per-move hook: no branch and bound, the one outline tree."""
    return next_move(ws, g, st, call_cell_replan)
