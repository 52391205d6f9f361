"""`grove`: the cell-tree agent, choosing snug routes among those that keep a Hamiltonian escape.

`cell`'s search and guarantee: right-hand paths in 2×2 blocks; a plan is committed only if
it is legal move by move against the moving tail and the body it leaves when the apple is
eaten lies on the outline of some spanning tree of the blocks (a Hamiltonian cycle); else
a detour chain through the cut-off blocks; with no such plan the snake walks an outline.
`grove` only chooses differently among plans that pass the same tests:

- the snuggest shortest path: among shortest routes that pass, the one with the most sides
  against the border, the body still there at the apple (and, on small boards, itself):
  a branch and bound (`_enumerate`, ``budget`` nodes) on boards of at most 63 blocks, which
  also takes passing routes shorter than the detour chain; one A* (`_snug`) above;
- on boards of more than 63 blocks: snug legs in detour chains (``snug_chain``), 32 detour
  rounds (``detours``), the outline walk over the shortest of 13 spanning trees
  (``outline``), re-searched every 4th move (``research_every``; detour-chain plans every 8th);
- kernels: the outline test on row masks with per-search suffix tables, detour targets from
  a by-distance cell order, and an A* specialised to right-hand moves (`_fast_leg`).

Guarantee (both tail rules, any start length): `cell`'s; the game is won in fewer than N²/2
moves. Needs even rows and cols. With ``budget=0 detours=8 outline=0 research_every=8`` it plays
`cell`'s games move for move (tested). Options: ``detours``, ``research_every`` as for `cell`
(on boards of more than 63 blocks outline walks default to every 4th move); ``budget``,
``ties`` (0: only shorter than the detour chain, 1: that and the snuggest shortest path, 2:
only the latter), ``snug`` (0: branch and bound, 1: A*), ``snug_chain``, ``snug_self``,
``outline``; re-searches: ``backoff`` (wait twice as long after each re-search that found
nothing shorter, up to ``research_every × backoff`` moves), ``backoff_on``, ``research_detours``,
``research_rounds``, ``walk_rounds``. Defaults: the table `OPTIONS` below; the measurements
behind them: docs/agents.md.
"""

import dataclasses

import numpy as np

from fastsnake.snake.celltree.options import Option, check_board, is_big, read_options
from fastsnake.snake.celltree.params import (
    BITS_BLOCKS,
    DIST_TABLE_CELLS,
    P_BACKOFF,
    P_BITS,
    P_BOWHICH,
    P_BUDGET,
    P_CHAIN,
    P_COUNT,
    P_EVERY,
    P_OUTLINE,
    P_ROUNDS,
    P_ROWS,
    P_RROUNDS,
    P_SELFK,
    P_SNUG,
    P_SNUGCHAIN,
    P_TABLE,
    P_TIES,
    P_WROUNDS,
    ROW_BLOCKS,
    ROWS_SUFFIX,
    SNUG_ASTAR,
    TIES_ONLY,
)
from fastsnake.snake.celltree.plan import play_kernel, sweep_kernel
from fastsnake.snake.policies import EnginePolicy

# The tuned defaults: (small boards of at most 63 blocks, bigger boards). What each choice was
# measured against is in docs/agents.md ("How grove's defaults were chosen").
OPTIONS = (
    Option("detours", 0, 64, 8, 32, "detour rounds per search"),
    Option("research_every", 1, 1 << 30, 8, 4, "moves between re-searches of an outline walk", auto=True),
    Option("research_detours", 1, 1 << 30, 8, 8,
           "moves between re-searches of a detour chain's plan (default: research_every when given)", auto=True),
    Option("backoff", 1, 1 << 20, 1, 1,
           "after a re-search found nothing shorter wait twice as long, up to research_every x backoff", auto=True),
    Option("backoff_on", 0, 3, 3, 3, "which plans back off (bits: 1 detour-chain plans, 2 outline walks)"),
    Option("budget", 0, 1 << 30, 2000, 10_000, "branch-and-bound nodes per search (0: no branch and bound)"),
    Option("ties", 0, TIES_ONLY, 1, 2, "0: only shorter than the chain, 1: also the snuggest shortest, 2: only that"),
    Option("snug", 0, SNUG_ASTAR, 0, 1, "the snuggest shortest path by 0: branch and bound, 1: A*"),
    Option("outline", 0, 1 << 20, 0, 2, "outline-walk trees (0: cell's one tree, k: 4(k+1) trees and a greedy one)"),
    Option("snug_chain", 0, 7, 0, 3, "snug detour-chain legs (bits: 1 the last leg, 2 detour legs, 4 at leg end)"),
    Option("snug_self", 0, 1 << 20, 0, 0, "snug A*: sides against the route's own last k cells"),
    Option("research_rounds", -1, 64, -1, -1, "detour rounds of a re-search of a chain plan (-1: detours)"),
    Option("walk_rounds", -1, 64, -1, -1, "detour rounds of a re-search of an outline walk (-1: detours)"),
)


def grove_params(config, options, name="grove", table=OPTIONS) -> np.ndarray:
    """The parameter vector of the cell-tree kernels for `config` and the options of `table`.

    An option `table` does not declare is off: no backoff, no branch and bound or snug search, the
    one outline tree, detour chains' plans re-searched every `research_every` moves (`cell`'s table).
    """
    check_board(name, config)
    big = is_big(config)
    value, given = read_options(name, table, options, big)
    get = value.get
    params = np.zeros(P_COUNT, np.int64)
    params[P_ROUNDS] = get("detours")
    params[P_EVERY] = get("research_every")
    params[P_TABLE] = config.cells <= DIST_TABLE_CELLS
    params[P_BITS] = (config.rows // 2) * (config.cols // 2) <= BITS_BLOCKS
    params[P_ROWS] = ROWS_SUFFIX if not params[P_BITS] and config.cols // 2 <= ROW_BLOCKS else 0
    params[P_BACKOFF] = get("backoff", 1)
    # A detour chain's plan: every `research_every` moves when only that is given (or no separate option).
    own = "research_detours" in given or ("research_every" not in given and "research_detours" in value)
    params[P_CHAIN] = value["research_detours"] if own else params[P_EVERY]
    params[P_BUDGET] = get("budget", 0)
    params[P_TIES] = get("ties", 0)
    params[P_SNUG] = get("snug", 0)
    params[P_OUTLINE] = get("outline", 0)
    # Snug chain legs need the snug search, which budget 0 turns off.
    params[P_SNUGCHAIN] = get("snug_chain", 0) if "snug_chain" in given or params[P_BUDGET] > 0 else 0
    params[P_SELFK] = get("snug_self", 0)
    params[P_RROUNDS] = get("research_rounds", -1)
    params[P_WROUNDS] = get("walk_rounds", -1)
    params[P_BOWHICH] = get("backoff_on", 3)
    return params


POLICY = EnginePolicy(
    name="grove",
    summary=__doc__,
    sweep_kernel=sweep_kernel,
    play_kernel=play_kernel,
    make_params=grove_params,
    guaranteed=True,
    options={opt.name: opt.registry_entry() for opt in OPTIONS},
)

# The strongest guaranteed agent we have: `grove` (the lowest mean moves of our agents).
STRONGEST = dataclasses.replace(
    POLICY, name="strongest",
    summary="Alias of `grove`: the strongest guaranteed agent (cell-tree games, fastest kernels).\n\n" + __doc__,
)
