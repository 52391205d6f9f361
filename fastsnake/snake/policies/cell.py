"""`cell`: the cell-tree agent: shortest paths that keep a Hamiltonian cycle possible.

Idea (twanvl/snake's cell tree agent, our own formulation): split the board
into 2×2 blocks and let the snake "drive on the right" inside each block, so
every cell has two moves: one within its block and one across its side into
the neighbouring block. The outline of any spanning tree of the blocks is then
a Hamiltonian cycle (`cycles.tree_outline_next`), and every right-hand walk is
a stretch of such an outline exactly when

    the block edges it crosses form a forest E1, and the block graph without
    the edges it passes along inside a block (E0) is still connected

(then E1 extends to a spanning tree avoiding E0, whose outline contains the
body as a contiguous segment). This test is exact and costs O(length + blocks).

Per apple the agent searches (shared A*, time-aware: a body cell is passable
once the tail has left it; heuristic: the right-hand distance on the empty
board) the shortest right-hand path to the apple that only enters blocks the
body will have left by then, or crosses back over an edge the body still uses.
The plan is accepted only if the body it leaves behind when it eats passes the
test above. If it cuts blocks off, the search detours through the nearest
cell of a cut-off block and tries the apple again, up to ``detours`` times.
Without an accepted plan the agent builds a spanning tree that contains the
body's crossings and walks its outline towards the apple. Detours and outline
walks are searched again every ``research_every`` moves and replaced only by a
shorter accepted plan; a shortest plan is kept to the apple.

Guarantee (both tail rules, any start length): every committed plan is a legal
sequence of moves (replayed against the moving tail) and ends in a position that
lies on a Hamiltonian cycle; from such a position the outline walk to the apple
is legal and ends in such a position again. The committed plan only gets
shorter, so each apple is eaten within N - L moves of appearing and the game is
won in fewer than N²/2 moves. Needs even rows and cols (blocks of 2×2); other
boards are refused. Options: ``detours`` (rounds per search, default 8) and
``research_every`` (default 8): fewer detours or rarer re-searches are faster
and a few moves longer.

The kernels are `grove`'s code (`fastsnake.snake.celltree`) built without its choices among
passing plans (`plan.cell_decide`), one pair for every board size; how they compare with `cell`'s
earlier kernels: docs/agents.md.
"""

from fastsnake.snake.celltree.link import link_kernels
from fastsnake.snake.celltree.params import check_board, pack
from fastsnake.snake.celltree.plan import CELL_SEARCH, cell_decide
from fastsnake.snake.celltree.workspace import WORKSPACE, alloc, reset, start_cells
from fastsnake.snake.policies.grove import COUNT_LIMIT
from fastsnake.snake.policies.kernels import engine_kernels
from fastsnake.snake.policies.protocol import Option

# Our policies in this module, name -> attribute: the registry reads this literal without an import.
BUILTIN = {"cell": "POLICY"}

# The tuned defaults (every board size); what they were measured against: docs/agents.md.
OPTIONS = (
    Option("detours", int, 8, "detour rounds per search", low=0, high=64),
    Option("research_every", int, 8, "moves between re-searches of a detour or an outline walk",
           low=1, high=COUNT_LIMIT),
)
# grove's options that cell does not take: its choices among passing plans off (no branch and bound
# or snug search, the one outline tree, no backoff; re-search rounds = detours).
GROVE_OFF = dict(backoff=1, backoff_on=3, budget=0, ties=0, snug=0, outline=0, snug_chain=0, snug_self=0,
                 research_rounds=-1, walk_rounds=-1)


def cell_params(config, values):
    """grove's parameter vector with only cell's search; detour chains are re-searched as often as walks."""
    check_board("cell", config)
    return pack(config, dict(GROVE_OFF, research_detours=values["research_every"], **values))


# grove's code without its choices among passing plans. One pair for every board size: its search is
# compiled once, outside the kernels (`link`), with every form of the outline test.
KERNELS = link_kernels(engine_kernels(alloc, reset, cell_decide, start_cells), CELL_SEARCH + WORKSPACE)


POLICY = KERNELS.policy("cell", __doc__, cell_params, guaranteed=True, options=OPTIONS, compile_cpu_range=(27.9, 29.4))
