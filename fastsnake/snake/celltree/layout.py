"""The cell-tree agents' working memory: three packed arrays, declared once as rows.

The workspace is the tuple (I int32, L int64, X int64, order int16): every array argument of
a njit call costs an atomic incref and decref per call, and a tuple of 30 arrays made each
move ~1000 cycles of reference counting, so everything lives in three arrays. Each array is
declared below as rows: fixed slots (scalars at fixed indices), then one header entry per
segment holding where the segment starts, an END entry (the array's size), then the segments.
A segment's size is linear in the board's cells n, blocks nb, rows of blocks hr (and n² for
the distance table, kept only on boards up to `params.DIST_TABLE_CELLS` cells).

Kernels read slot s as A[s], a field f of a slot that holds several (the parameter vector) as
A[s + f], and segment k as A[A[k] : A[k] + size], through `segment` where they can. Entries come
in rows where a size says WIDTH*unit (a row width below): entry f of row r of segment k is
at A[A[k] + WIDTH * r + f]. No kernel relies on one row following another: each is read through its
own name, within its own size (tests/snake/test_snake_celltree_layout.py scans the kernels for
that). The names below are the indices, looked up by name in the declaration (`Layout.index`), so
no name is paired with a size by position. `layout_markdown()` renders the tables of
docs/design.md.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from fastsnake.snake.celltree.params import P_COUNT

# Size coefficients: (n² when the distance table is kept, n, nb, hr, constant).
SIZE_TERMS = ("n²", "n", "nb", "hr", "")

# Row widths: segments whose entries come in rows of several fields, one row a cell or a block (or
# a row of blocks), declare their size as WIDTH*unit; entry f of row k is at start + WIDTH * k + f.
# right_hand: per cell, the neighbour each move 0..3 enters (-1: forbidden).
MOVES_ROW = 4
# leg_moves: per cell, its move within its block, its move across its side (-1: the border), the
# block that move enters and the block edge it crosses (`blocks.leg_table`).
LEG_IN, LEG_OUT, LEG_OUTBLK, LEG_EDGE = range(4)
LEG_ROW = LEG_EDGE + 1
# block_links: per block, for each direction d (moves 0..3) a pair at LINK_PAIR * d: the block next
# to it (LINK_BLOCK, -1: none) and the block edge between them (LINK_EDGE; `blocks.block_links`).
LINK_BLOCK, LINK_EDGE = range(2)
LINK_PAIR = LINK_EDGE + 1
LINK_ROW = 4 * LINK_PAIR
# open_rows, suffix_rows: two rows of hr words each, one word a row of blocks: the right edges
# (OPEN_RIGHT_ROW), then the down edges (OPEN_DOWN_ROW); `side_word` indexes these 2hr words.
OPEN_RIGHT_ROW, OPEN_DOWN_ROW = range(2)
OPEN_ROWS = OPEN_DOWN_ROW + 1
# stamps: rows of nb entries: blocks seen (row STAMPS_SEEN), crossed block edges (2 rows from
# STAMPS_CROSSED: edge e at STAMPS_CROSSED * nb + e), block edges passed along (2 rows from STAMPS_PASSED).
STAMPS_SEEN, STAMPS_CROSSED, STAMPS_PASSED = 0, 1, 3
STAMP_ROWS = STAMPS_PASSED + 2
# Named constants a size may use, alone or as a coefficient (``LEG_ROW*n``).
CONSTANTS = {"P_COUNT": P_COUNT, "MOVES_ROW": MOVES_ROW, "LEG_ROW": LEG_ROW, "LINK_ROW": LINK_ROW,
             "OPEN_ROWS": OPEN_ROWS, "STAMP_ROWS": STAMP_ROWS}


def size(table=0, n=0, nb=0, hr=0, const=0) -> tuple:
    return (table, n, nb, hr, const)


@dataclass(frozen=True)
class Row:
    name: str
    size: tuple  # coefficients of SIZE_TERMS
    meaning: str

    def size_text(self) -> str:
        parts = [f"{c}{t}" if t and c != 1 else (t or str(c)) for c, t in zip(self.size, SIZE_TERMS, strict=True) if c]
        text = " + ".join(parts) or "0"
        return text + (" (0 without the table)" if self.size[0] else "")


@dataclass(frozen=True)
class Layout:
    """One packed array: its dtype, fixed slots (each of a constant size), and segments."""

    array: str
    dtype: str
    slots: tuple[Row, ...]
    segments: tuple[Row, ...]

    def index(self, name: str) -> int:
        """The slot index of a slot, or the header index of a segment (A[index] is where it starts)."""
        at = 0
        for row in self.slots:
            if row.name == name:
                return at
            at += row.size[4]
        for k, row in enumerate(self.segments):
            if row.name == name:
                return at + k
        if name == "end":
            return at + len(self.segments)
        raise KeyError(f"{self.array} has no slot or segment {name!r}")

    def indices(self) -> tuple[int, ...]:
        """The index of every row in declaration order (slots, then segments), then of "end"."""
        return tuple(self.index(r.name) for r in self.slots + self.segments) + (self.index("end"),)

    def coefficients(self) -> np.ndarray:
        """Per segment its size coefficients; row 0 holds the first header index (the slots' size)."""
        out = np.zeros((len(self.segments) + 1, 5), np.int64)
        out[0, 4] = self.index("end") - len(self.segments)
        for k, row in enumerate(self.segments):
            out[k + 1] = row.size
        return out


def parse_size(text: str) -> tuple:
    """Size coefficients of an expression such as ``2n + 2``, ``5nb``, ``n²``, ``P_COUNT`` or
    ``LEG_ROW*n`` (a row width of `CONSTANTS` times a unit)."""
    coef = [0, 0, 0, 0, 0]
    for term in text.replace(" ", "").split("+"):
        if term in CONSTANTS:
            coef[4] += CONSTANTS[term]
            continue
        width, star, unit = term.partition("*")
        if star:
            coef[SIZE_TERMS.index(unit)] += CONSTANTS[width]
            continue
        digits = len(term) - len(term.lstrip("0123456789"))
        count, unit = int(term[:digits] or 1), term[digits:]
        coef[SIZE_TERMS.index(unit)] += count
    return tuple(coef)


def rows(table: str) -> tuple[Row, ...]:
    """Rows of a declaration: one a line, ``name | size | meaning``."""
    out = []
    for line in table.strip().splitlines():
        name, size_text, meaning = (part.strip() for part in line.split("|", 2))
        out.append(Row(name, parse_size(size_text), meaning))
    return tuple(out)


I_LAYOUT = Layout("I", "int32", slots=(), segments=rows("""
    right_hand    | MOVES_ROW*n | nbr restricted to right-hand moves in 2×2 blocks (-1: forbidden)
    block_of      | n      | the block of each cell
    side_edge     | n      | the block edge across each cell's own side (-1: the border)
    window        | 2n + 2 | the body at the apple, walked by the outline tests
    stamps        | STAMP_ROWS*nb | rows of nb stamps: blocks seen, crossed edges, passed-along edges (STAMPS_*)
    block_queue   | nb     | queue of blocks (BFS over the block graph, tree growth)
    tree_bits     | nb     | a spanning tree of blocks: per block bits 1 up, 2 right, 4 down, 8 left
    plan          | 2n + 2 | the committed plan's moves
    start_cells   | n      | the outline the body is laid on at the start of a game
    detour_cells  | 2n + 2 | the cells of a detour chain's legs so far
    trial_plan    | 2n + 2 | the moves of the plan a search returns
    astar_cost    | n      | snug A*: cost of each cell
    astar_parent  | n      | snug A*: parent of each cell
    astar_opened  | n      | snug A*: generation a cell was opened in
    astar_closed  | n      | snug A*: generation a cell was closed in
    leg_path      | n      | the cells a leg enters, in order
    manhattan_row | n      | distances to the goal without the distance table (Manhattan)
    block_links   | LINK_ROW*nb | per block and direction: the neighbouring block and their edge (-1: none)
    leg_moves     | LEG_ROW*n | leg table (a row a cell): moves within, across its block; block, edge crossed
    leg_stamps    | n      | A* legs: g of a queued cell relative to the leg's base, base once closed
    leg_parents   | n      | A* legs: parent of each cell
    route_cells   | n + 2  | branch and bound: the route's cells by depth
    distances     | n²     | right-hand distance from every cell (row) to every cell (last segment)
"""))

L_LAYOUT = Layout("L", "int64", slots=rows("""
    plan_length     | 1 | length of the committed plan
    plan_pos        | 1 | index of the plan's next move
    plan_apple      | 1 | the apple the plan goes to
    plan_move       | 1 | the move number the plan expects next
    stamp_gen       | 1 | generation of the stamps segment of I
    research        | 1 | 0: a shortest path (kept), 1: a detour chain's plan, 2: an outline walk
    shortest        | 1 | the last shortest path's length (even when refused), counting down
    detour_rounds   | 1 | detour rounds of the last search
    rows            | 1 | board rows
    cols            | 1 | board columns
    tail_rule       | 1 | the tail rule
    time_base       | 1 | time base of the current A* (entry time of the tail - slack)
    avoid           | 1 | the cell the current A* must not enter (-1: none)
    stamped_move    | 1 | the last move whose head was stamped
    undo_length     | 1 | entries in the undo log
    open_right_mask | 1 | blocks with a right neighbour as a bit mask (-1: no masks)
    open_down_mask  | 1 | blocks with a neighbour below as a bit mask
    rng             | 1 | the policy's random stream (uint64 bits)
    astar_gen       | 1 | generation of the snug A*'s opened / closed stamps
"""), segments=rows("""
    heap              | 4n + 4   | the snug A*'s heap
    block_of          | n        | the block of each cell (as in I)
    side_edge         | n        | the block edge across each cell's side (as in I)
    entry_times       | n        | move at which the head last entered each cell
    block_entry_times | nb       | move at which the head last entered each block
    edge_times        | 2nb      | move before the head last crossed each block edge
    undo_log          | 12n + 12 | (index, old value) pairs of a search's virtual stamps
"""))

X_LAYOUT = Layout("X", "int64", slots=rows("""
    params        | P_COUNT | the parameter vector (params.P_*: X[X_PARAMS + P_BUDGET] etc.)
    block_rows    | 1       | rows of blocks hr
    block_cols    | 1       | columns of blocks hc
    next_research | 1       | the plan position of the next re-search (backoff)
    research_gap  | 1       | the current gap between re-searches (backoff)
    search_id     | 1       | id of the current search (suffix tables' positions are id * POS_SPAN + p)
    suffix_closed | 1       | entries of passed_cells closed in suffix_rows
    passed_count  | 1       | entries in passed_cells
    leg_base      | 1       | the A* legs' stamp base
    suffix_made   | 1       | whether this search made its suffix tables
"""), segments=rows("""
    right_edges    | hr     | per row of blocks: blocks with a right neighbour
    down_edges     | hr     | per row of blocks: blocks with a neighbour below
    open_rows      | OPEN_ROWS*hr | right_edges, then down_edges, without the edges a walk passes along
    reached        | hr     | per row of blocks: blocks reached from the walk's last block
    side_word      | n      | the open-rows word of the edge along each cell's side
    side_bit       | n      | its bit in that word (0: the border)
    last_block_pos | nb     | suffix tables: last body position of each block
    last_cross_pos | 2nb    | suffix tables: last body position crossing each edge
    last_pass_pos  | 2nb    | suffix tables: last body position passing along each edge
    passed_cells   | 2nb    | suffix tables: cells whose side is passed along, latest first
    passed_pos     | 2nb    | suffix tables: their body positions
    suffix_blocks  | n      | suffix tables: distinct blocks of body[p:]
    suffix_crossed | n      | suffix tables: distinct crossed edges of body[p:]
    suffix_rows    | OPEN_ROWS*hr | open right, then down rows of the current suffix cut
    on_route       | n      | branch and bound: cells on the current route
    route_children | 2n + 4 | branch and bound: children still to try per depth
    snug_moves     | n      | snug A*: moves to each cell
    tree_parent    | nb     | tree growth: parent edge (or block distance) of each block
    tree_queue     | nb     | tree growth: a second queue of blocks
    leg_heap       | 4n + 4 | the A* legs' heap
    cell_row       | n      | the row of blocks of each cell
    cell_bit       | n      | its block's bit in that row
"""))

# The indices kernels use: one constant per declared row, in the rows' order, then END (the entry
# holding the array's size). A slot's constant is its index; a segment's is its header entry.
# tests/snake/test_snake_celltree_layout.py checks that each NAME is the index of row `name`.
(I_RIGHT_HAND, I_BLOCK_OF, I_SIDE_EDGE, I_WINDOW, I_STAMPS, I_BLOCK_QUEUE, I_TREE_BITS, I_PLAN,
 I_START_CELLS, I_DETOUR_CELLS, I_TRIAL_PLAN, I_ASTAR_COST, I_ASTAR_PARENT, I_ASTAR_OPENED, I_ASTAR_CLOSED,
 I_LEG_PATH, I_MANHATTAN_ROW, I_BLOCK_LINKS, I_LEG_MOVES, I_LEG_STAMPS, I_LEG_PARENTS, I_ROUTE_CELLS, I_DISTANCES,
 I_END) = I_LAYOUT.indices()
(L_PLAN_LENGTH, L_PLAN_POS, L_PLAN_APPLE, L_PLAN_MOVE, L_STAMP_GEN, L_RESEARCH, L_SHORTEST, L_DETOUR_ROUNDS, L_ROWS,
 L_COLS, L_TAIL_RULE, L_TIME_BASE, L_AVOID, L_STAMPED_MOVE, L_UNDO_LENGTH, L_OPEN_RIGHT_MASK, L_OPEN_DOWN_MASK,
 L_RNG, L_ASTAR_GEN, L_HEAP, L_BLOCK_OF, L_SIDE_EDGE, L_ENTRY_TIMES, L_BLOCK_ENTRY_TIMES, L_EDGE_TIMES,
 L_UNDO_LOG, L_END) = L_LAYOUT.indices()
(X_PARAMS, X_BLOCK_ROWS, X_BLOCK_COLS, X_NEXT_RESEARCH, X_RESEARCH_GAP, X_SEARCH_ID, X_SUFFIX_CLOSED, X_PASSED_COUNT,
 X_LEG_BASE, X_SUFFIX_MADE, X_RIGHT_EDGES, X_DOWN_EDGES, X_OPEN_ROWS, X_REACHED, X_SIDE_WORD,
 X_SIDE_BIT, X_LAST_BLOCK_POS, X_LAST_CROSS_POS, X_LAST_PASS_POS, X_PASSED_CELLS, X_PASSED_POS, X_SUFFIX_BLOCKS,
 X_SUFFIX_CROSSED, X_SUFFIX_ROWS, X_ON_ROUTE, X_ROUTE_CHILDREN, X_SNUG_MOVES, X_TREE_PARENT,
 X_TREE_QUEUE, X_LEG_HEAP, X_CELL_ROW, X_CELL_BIT, X_END) = X_LAYOUT.indices()
I_COEFFICIENTS, L_COEFFICIENTS, X_COEFFICIENTS = (lay.coefficients() for lay in (I_LAYOUT, L_LAYOUT, X_LAYOUT))

# The workspace tuple: I, L, X and the by-distance cell order.
W_I, W_L, W_X, W_ORDER = range(4)
# Body positions in the suffix tables' last_* entries: search id * POS_SPAN + position (older searches compare smaller).
POS_SPAN = 1 << 21
# L[L_RESEARCH] of an outline walk (a detour chain's plan has 1, a shortest path 0).
RESEARCH_WALK = 2
# A walk's first cell (index into the walk arrays of the outline tests).
WALK_START = 0
# Entry time of a cell nobody entered this game.
NEVER = -(1 << 40)


def layout_markdown() -> str:
    """The three arrays as markdown tables (docs/design.md)."""
    out = []
    for lay in (I_LAYOUT, L_LAYOUT, X_LAYOUT):
        out += [f"**{lay.array}** ({lay.dtype}): slots, then a header of segment starts, then the segments.", "",
                "| name | kind | size | holds |", "| --- | --- | --- | --- |"]
        for kind, group in (("slot", lay.slots), ("segment", lay.segments)):
            for r in group:
                meaning = r.meaning.replace("*", "\\*")  # A* keeps its star (two would be emphasis)
                out.append(f"| `{r.name}` | {kind} | {r.size_text()} | {meaning} |")
        out.append("")
    return "\n".join(out)


@njit(cache=True)
def segment_starts(coefficients, n, nb, hr, table):
    """The header of a packed array: where each segment starts, then the array's size.

    Parameters
    ----------
    coefficients : int64[:, 5]
        `Layout.coefficients()`: row 0 holds the first header index, row k + 1 segment k's size
        coefficients of (n² with the table, n, nb, hr, constant).
    n, nb, hr : int
        Cells, blocks, rows of blocks of the board.
    table : bool
        Whether the distance table (n²) is kept.
    """
    k = coefficients.shape[0] - 1
    first = coefficients[0, 4]
    out = np.empty(k + 1, np.int64)
    at = first + k + 1
    for s in range(k):
        c = coefficients[s + 1]
        out[s] = at
        at += c[0] * n * n * table + c[1] * n + c[2] * nb + c[3] * hr + c[4]
    out[k] = at
    return out


@njit(cache=True, inline="always")
def segment(A, k, length):
    """Segment k of a packed array A (its first `length` entries)."""
    return A[A[k]:A[k] + length]


@njit(cache=True)
def copy_into(A, start, src):
    """A[start:start + len(src)] = src, as a loop: numba compiles a slice assignment from an array with
    its broadcast checks and their error text (seconds of every cold compile)."""
    for i in range(src.shape[0]):
        A[start + i] = src[i]
