"""The cell-tree agents' machinery: shortest plans that keep a Hamiltonian cycle possible.

The presets `fastsnake.snake.policies.cell` and `grove` are settings of these kernels (the
parameter vector of `params`). Where things live:

- `blocks`: the board as 2×2 blocks (right-hand moves, block sides and links, the leg table,
  cells by right-hand distance);
- `layout`: the packed workspace arrays I, L, X and the slots and segments in them;
- `params`: the parameter vector's slots and mode values, and `pack` (options to the vector);
- `times`: entry times of the body and `passable` (a move's legality against the moving tail);
- `outline`: the outline test (is the body at the apple on some spanning tree's outline?);
- `legs`: the A* legs (`leg`, and the snug `snug_astar`);
- `chain`: the detour chain (shortest path, else detours through cut-off blocks);
- `trees`: the outline-walk fallback (spanning trees through the body's crossings);
- `snug`: the branch and bound and the snug A* among passing routes;
- `plan`: search, re-search and commit, the per-move `decide`, the sweep and play kernels;
- `workspace`: allocation and per-game reset.
"""
