"""The parameter vector of the cell-tree kernels: its slots, the values of its mode slots, board limits.

A preset (`fastsnake.snake.policies.cell`, `grove`) resolves its declared options and `pack`s
them into this int64 vector; the kernels copy it into the workspace (L from M_PARAMS on, X's
setting slots) at allocation.
"""

import numpy as np

from fastsnake.snake.board import BoardError

# Slots: detour rounds, re-search interval (of outline walks), keep the distance table, test
# outlines on single-word bit masks, the row-mask outline test, backoff, branch-and-bound budget,
# ties, snug search, re-search interval of detour-chain plans, outline trees, snug chain legs,
# snug self contact, detour rounds of re-searches (chain plans, walks), which plans back off.
(P_ROUNDS, P_EVERY, P_TABLE, P_BITS, P_ROWS, P_BACKOFF, P_BUDGET, P_TIES, P_SNUG, P_CHAIN, P_OUTLINE, P_SNUGCHAIN,
 P_SELFK, P_RROUNDS, P_WROUNDS, P_BOWHICH) = range(16)
P_COUNT = P_BOWHICH + 1
# Boards up to this many cells keep every right-hand distance (n² int32: 25 MB at 2,500).
DIST_TABLE_CELLS = 2500
# Boards with at most this many blocks test connectivity on 64-bit masks.
BITS_BLOCKS = 63
# Row masks hold one row of blocks in a 64-bit word (bit 63 stays clear: arithmetic shifts).
ROW_BLOCKS = 63
# P_ROWS: 0 no row masks, 1 row masks over a walk of the window, 2 the body part from per-search
# suffix tables (`outline.suffix_test`).
ROWS_WALKED, ROWS_SUFFIX = 1, 2
# P_TIES, what the branch and bound (`snug.enumerate_routes`) looks for: TIES_OFF only a plan shorter
# than the detour chain's; TIES_BOTH that, and among shortest paths the snuggest (`snug.hug`);
# TIES_ONLY only the snuggest shortest path (the detour chain's plan is kept).
TIES_OFF, TIES_BOTH, TIES_ONLY = range(3)
# P_SNUG, how the snuggest shortest path is looked for: the branch and bound, or one A* on the cost
# 5 - sides per cell (`snug.snug_route`).
SNUG_ENUMERATE, SNUG_ASTAR = range(2)
# P_OUTLINE, the outline-walk fallback: OUTLINE_CELL the one tree of `trees.outline_plan`; k >= 1: the
# shortest walk to the apple over 4(k+1) breadth-first trees (`trees.bfs_tree`) and the tree grown
# while walking (`trees.greedy_tree`); 1000 + k: the first k of those and the greedy one.
OUTLINE_CELL = 0
# P_SNUGCHAIN bits: SNUG_CHAIN_APPLE the final leg of a detour chain is the snuggest shortest one
# (if it passes the outline test); SNUG_CHAIN_DETOUR so are the legs to the detour targets (sides
# against the body still there at the estimated apple time); SNUG_CHAIN_LEG_END (with DETOUR): the
# body still there at the detour leg's end instead.
SNUG_CHAIN_APPLE, SNUG_CHAIN_DETOUR, SNUG_CHAIN_LEG_END = 1, 2, 4


def check_board(policy: str, config) -> None:
    if config.rows % 2 or config.cols % 2:
        raise BoardError(f"policy {policy!r} needs even rows and cols (2x2 blocks); "
                         f"board {config.rows}x{config.cols} has an odd side")


def is_big(config) -> bool:
    """More than BITS_BLOCKS 2×2 blocks: the presets' big-board defaults apply."""
    return (config.rows // 2) * (config.cols // 2) > BITS_BLOCKS


def single_word_masks(params) -> bool:
    """Do games with `params` test outlines on single-word masks only (`P_BITS` without
    `ROWS_SUFFIX`: boards of at most BITS_BLOCKS 2x2 blocks)? (`cell` once chose a kernel pair by it;
    its one pair now serves every board size, its search compiled once outside the kernels.)"""
    return bool(params[P_BITS] != 0 and params[P_ROWS] != ROWS_SUFFIX)


def pack(config, values: dict) -> np.ndarray:
    """The parameter vector for `config` from the value of every option `grove` declares."""
    params = np.zeros(P_COUNT, np.int64)
    params[P_ROUNDS] = values["detours"]
    params[P_EVERY] = values["research_every"]
    params[P_TABLE] = config.cells <= DIST_TABLE_CELLS
    params[P_BITS] = not is_big(config)
    params[P_ROWS] = ROWS_SUFFIX if not params[P_BITS] and config.cols // 2 <= ROW_BLOCKS else 0
    params[P_BACKOFF] = values["backoff"]
    params[P_CHAIN] = values["research_detours"]
    params[P_BUDGET] = values["budget"]
    params[P_TIES] = values["ties"]
    params[P_SNUG] = values["snug"]
    params[P_OUTLINE] = values["outline"]
    params[P_SNUGCHAIN] = values["snug_chain"]
    params[P_SELFK] = values["snug_self"]
    params[P_RROUNDS] = values["research_rounds"]
    params[P_WROUNDS] = values["walk_rounds"]
    params[P_BOWHICH] = values["backoff_on"]
    return params
