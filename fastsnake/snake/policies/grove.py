"""`grove`: the cell-tree agent, choosing snug routes among those that keep a Hamiltonian escape.

`cell`'s search and guarantee: right-hand paths in 2×2 blocks; a plan is committed only if
it is legal move by move against the moving tail and the body it leaves when the apple is
eaten lies on the outline of some spanning tree of the blocks (a Hamiltonian cycle); else
a detour chain through the cut-off blocks; with no such plan the snake walks an outline.
`grove` only chooses differently among plans that pass the same tests:

- the snuggest shortest path: among shortest routes that pass, the one with the most sides
  against the border, the body still there at the apple (and, on small boards, itself):
  a branch and bound (`snug.enumerate_routes`, ``budget`` nodes) on boards of at most 63 blocks,
  which also takes passing routes shorter than the detour chain; one A* (`snug.snug_route`) above;
- on boards of more than 63 blocks: snug legs in detour chains (``snug_chain``), 32 detour
  rounds (``detours``), the outline walk over the shortest of 13 spanning trees
  (``outline``), re-searched every 4th move (``research_every``; detour-chain plans every 8th);
- kernels: the outline test on row masks with per-search suffix tables (`outline.suffix_test`),
  detour targets from a by-distance cell order, and an A* specialised to right-hand moves
  (`legs.leg`).

Guarantee (both tail rules, any start length): `cell`'s; the game is won in fewer than N²/2
moves. Needs even rows and cols. With ``budget=0 detours=8 outline=0 research_every=8`` it plays
`cell`'s games move for move (tested). Options: ``detours``, ``research_every`` as for `cell`
(on boards of more than 63 blocks outline walks default to every 4th move); ``budget``,
``ties`` (0: only shorter than the detour chain, 1: that and the snuggest shortest path, 2:
only the latter), ``snug`` (0: branch and bound, 1: A*), ``snug_chain``, ``snug_self``,
``outline``; re-searches: ``backoff`` (wait twice as long after each re-search that found
nothing shorter, up to ``research_every × backoff`` moves), ``backoff_on``, ``research_detours``,
``research_rounds``, ``walk_rounds``. Defaults: the table `OPTIONS` of this module (``fastsnake
policies --json`` lists it); the measurements behind them: docs/agents.md.
"""

import dataclasses

from fastsnake.snake.celltree.link import link_kernels
from fastsnake.snake.celltree.params import BITS_BLOCKS, SNUG_ASTAR, TIES_ONLY, check_board, is_big, pack
from fastsnake.snake.celltree.plan import GROVE_SEARCH, decide
from fastsnake.snake.celltree.workspace import WORKSPACE, alloc, reset, start_cells
from fastsnake.snake.policies.kernels import engine_kernels
from fastsnake.snake.policies.protocol import BySize, Option

# Our policies in this module, name -> attribute: the registry reads this literal without an import.
BUILTIN = {"grove": "POLICY", "strongest": "STRONGEST"}

COUNT_LIMIT = 1 << 30  # bound of the options that count moves or nodes (no practical limit)


def by_blocks(small, big) -> BySize:
    """`small` on boards of at most BITS_BLOCKS 2×2 blocks (the single-word masks' limit), else `big`."""
    return BySize(lambda config, values, given: big if is_big(config) else small,
                  f"{small} up to {BITS_BLOCKS} 2x2 blocks, else {big}")


def given_or(option: str, otherwise) -> BySize:
    """The value the caller gave `option` (an option above this one), else `otherwise`."""
    return BySize(lambda config, values, given: values[option] if option in given else otherwise,
                  f"{option} when given, else {otherwise}")


def off_without(option: str, default: BySize) -> BySize:
    """0 when `option` (an option above this one) is 0, else `default`."""
    return BySize(lambda config, values, given: default.rule(config, values, given) if values[option] > 0 else 0,
                  f"{default.text}; 0 when {option} is 0")


# The tuned defaults; what each choice was measured against is in docs/agents.md ("How grove's
# defaults were chosen"). A default may depend on options above it (the table's order).
OPTIONS = (
    Option("detours", int, by_blocks(8, 32), "detour rounds per search", low=0, high=64),
    Option("research_every", int, by_blocks(8, 4), "moves between re-searches of an outline walk",
           low=1, high=COUNT_LIMIT),
    Option("research_detours", int, given_or("research_every", 8),
           "moves between re-searches of a detour chain's plan", low=1, high=COUNT_LIMIT),
    Option("backoff", int, 1, "after a re-search found nothing shorter wait twice as long, "
           "up to research_every x backoff", low=1, high=1 << 20),
    Option("backoff_on", int, 3, "which plans back off (bits: 1 detour-chain plans, 2 outline walks)", low=0, high=3),
    Option("budget", int, by_blocks(2000, 10_000), "branch-and-bound nodes per search (0: no branch and bound)",
           low=0, high=COUNT_LIMIT),
    Option("ties", int, by_blocks(1, 2), "0: only shorter than the chain, 1: also the snuggest shortest, 2: only that",
           low=0, high=TIES_ONLY),
    Option("snug", int, by_blocks(0, 1), "the snuggest shortest path by 0: branch and bound, 1: A*",
           low=0, high=SNUG_ASTAR),
    Option("outline", int, by_blocks(0, 2), "outline-walk trees (0: cell's one tree, k: 4(k+1) trees and a greedy one)",
           low=0, high=1 << 20),
    # Snug chain legs need the snug search, which budget 0 turns off.
    Option("snug_chain", int, off_without("budget", by_blocks(0, 3)),
           "snug detour-chain legs (bits: 1 the last leg, 2 detour legs, 4 at leg end)", low=0, high=7),
    Option("snug_self", int, 0, "snug A*: sides against the route's own last k cells", low=0, high=1 << 20),
    Option("research_rounds", int, -1, "detour rounds of a re-search of a chain plan (-1: detours)", low=-1, high=64),
    Option("walk_rounds", int, -1, "detour rounds of a re-search of an outline walk (-1: detours)", low=-1, high=64),
)


def grove_params(config, values):
    check_board("grove", config)
    return pack(config, values)


KERNELS = link_kernels(engine_kernels(alloc, reset, decide, start_cells), GROVE_SEARCH + WORKSPACE)


POLICY = KERNELS.policy("grove", __doc__, grove_params, guaranteed=True, options=OPTIONS,
                        compile_cpu_range=(35.7, 48.4))

# The strongest guaranteed agent we have: `grove` (the lowest mean moves of our agents).
STRONGEST = dataclasses.replace(
    POLICY, name="strongest", alias_of="grove",
    summary="Alias of `grove`: the strongest guaranteed agent (cell-tree games, fastest kernels).\n\n" + __doc__,
)
