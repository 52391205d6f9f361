"""pdb: additive disjoint pattern databases, the max over the board's symmetric lookups (Korf &
Felner 2002); its tables are built, cached and mapped by `fastsnake.puzzle.pdb`. `pdb_max` reuses
its context (with several partitions) and its hooks.

IDA* keeps, per lookup l and group g, the table index idx[l*G + g] and the lookup's sum hl[l] of the
current node, and each group's table value in idx[L*G + l*G + g] (L lookups, G groups); a step down
saves the entries it overwrites in sv_idx[(depth*L + l)*2 ...]/sv_hl[depth*L + l], so stepping back
restores them without any table access. Compact groups (indexed by rank) are ranked from the
mirrored cells of their tiles, pc, kept up to date as tiles move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from fastsnake.puzzle.heuristic import HC_COLS, HC_FIRST, HC_ROWS, Heuristic, base_context
from fastsnake.puzzle.pdb_build import MAX_GROUP, group_rank, popcount16_table

CODE = 5
# Its slots after the shared ones: the uint8 tables of all groups concatenated, each group's offset,
# lk_grp[l*N + tile], lk_mult[l*N + tile], lk_cell[l*N + cell] (lookup l maps the state through a
# board symmetry that fixes the goal blank: l = 0 is the identity), the number of lookups, of groups,
# dcell[l*4 + move] (how far a tile's mirrored cell shifts when the blank makes `move`: constant per
# lookup, as every lookup map is a board symmetry), lk_slot[l*N + tile] (the tile's position in its
# group), group sizes, group is compact (indexed by rank, not sparse), the 16-bit popcount table.
(HC_PDB, HC_PDB_OFF, HC_LK_GRP, HC_LK_MULT, HC_LK_CELL, HC_NLK, HC_NGROUPS, HC_DCELL, HC_LK_SLOT, HC_GSIZE,
 HC_GCOMPACT, HC_POP) = range(HC_FIRST, HC_FIRST + 12)


def pdb_context(code: int, rows: int, cols: int, goal, pdb) -> tuple:
    """The context of a `fastsnake.puzzle.pdb.PdbSet` (pdb's and pdb-max's)."""
    n = rows * cols
    goal = np.asarray(goal, dtype=np.int8)
    (tables, offsets, lk_grp, lk_mult, lk_cell, nlk, ngroups, lk_slot, gsize,
     gcompact) = pdb.lookup_arrays(goal)
    # Read-only always: tables memory-mapped from the PDB cache (and the batch workers' maps) are,
    # and one array type for every context keeps each search kernel compiled once.
    tables = tables.view()
    tables.flags.writeable = False
    dcell = np.zeros(max(4 * nlk, 4), np.int64)
    for l in range(nlk):
        sym = lk_cell[l * n:(l + 1) * n].astype(np.int64)
        for m, (dr, dc) in enumerate(((-1, 0), (1, 0), (0, -1), (0, 1))):
            # Blank move m: the tile goes from blank+delta to blank, i.e. shifts by -delta.
            pairs = [(r * cols + c, (r + dr) * cols + c + dc) for r in range(rows) for c in range(cols)
                     if 0 <= r + dr < rows and 0 <= c + dc < cols]
            shifts = {int(sym[b] - sym[a]) for b, a in pairs}
            if len(shifts) > 1:
                raise AssertionError("a PDB lookup map is not a board symmetry")
            dcell[l * 4 + m] = shifts.pop() if shifts else 0
    return base_context(code, rows, cols, goal) + (
        tables, offsets, lk_grp, lk_mult, lk_cell, np.int64(nlk), np.int64(ngroups), dcell, lk_slot, gsize,
        gcompact, popcount16_table())


def tables_context(code: int, several: bool, rows: int, cols: int, goal, partition=None, progress=None,
                   memory_budget=None, mapped=None, **options):
    """Build or load the pattern databases (`fastsnake.puzzle.pdb.pattern_databases`), then the context."""
    from fastsnake.puzzle import pdb as P

    pset = P.pattern_databases(rows, cols, goal, partition, progress=progress, budget=memory_budget,
                               several=several, mapped=mapped)
    return pdb_context(code, rows, cols, goal, pset), {"pdb": pset.describe()}


def context(rows: int, cols: int, goal, **options):
    return tables_context(CODE, False, rows, cols, goal, **options)


def share_tables(several: bool, rows: int, cols: int, goal, **options):
    """A batch's tables for its worker processes: (what the workers' spec holds, the tables'
    description, the bytes to write to a temporary file the workers map, or None when they map the
    set's cached file)."""
    from fastsnake.puzzle import pdb as P

    pset = P.pattern_databases(rows, cols, goal, options.get("partition"), progress=options.get("progress"),
                               budget=options.get("memory_budget"), several=several, mapped=options.get("mapped"))
    shared = dict(blank_cell=pset.blank_cell, groups=pset.groups, sizes=[len(t) for t in pset.tables],
                  parts=pset.parts)
    data = None
    if pset.mapped is not None:
        header_keys = [P.table_key(rows, cols, pset.blank_cell, g) for g in pset.groups]
        digests = [P.recorded_digest(P.table_path(k), k, int(i["bytes"]))
                   for k, i in zip(header_keys, pset.infos, strict=True)]
        shared.update(pdb_file=pset.mapped["file"], pdb_set=(header_keys, [len(t) for t in pset.tables], digests))
    else:
        data = pset.data
    return shared, pset.describe(), data


def share(rows: int, cols: int, goal, **options):
    return share_tables(False, rows, cols, goal, **options)


def attach_tables(code: int, spec: dict, data):
    """A worker's context on the tables `data` its batch shared (`share_tables`)."""
    from fastsnake.puzzle import pdb as P

    rows, cols = spec["rows"], spec["cols"]
    pset = P.attach(rows, cols, spec["blank_cell"], spec["groups"], spec["sizes"], data, spec.get("parts"))
    return pdb_context(code, rows, cols, np.array(spec["goal"], np.int8), pset), {"pdb": pset.describe()}


def attach(spec: dict, data):
    return attach_tables(CODE, spec, data)


@njit(cache=True)
def pdb_cells(board, n, lk_grp, lk_slot, lk_cell, nlk, ngroups, pc):
    """pc[(l*G + g)*MAX_GROUP + slot] = the mirrored cell of each group tile, per lookup."""
    for l in range(nlk):
        for cell in range(n):
            t = board[cell]
            if t != 0:
                g = lk_grp[l * n + t]
                pc[(l * ngroups + g) * MAX_GROUP + lk_slot[l * n + t]] = lk_cell[l * n + cell]


@njit(cache=True)
def _pdb_h(board, n, pdb, p_off, lk_grp, lk_mult, lk_cell, nlk, ngroups, idx, hl,
           lk_slot, gsize, gcompact, pop, pc):
    """Fill idx[l*G + g] and hl[l] from scratch; return max over lookups. `pc` is
    scratch of nlk*G*MAX_GROUP cells (left holding the mirrored cells)."""
    pdb_cells(board, n, lk_grp, lk_slot, lk_cell, nlk, ngroups, pc)
    best = 0
    used = np.zeros(max(ngroups, 1), np.bool_)
    for l in range(nlk):
        # The groups of this lookup's partition (pdb-max: a lookup uses some groups only).
        used[:] = False
        for t in range(1, n):
            used[lk_grp[l * n + t]] = True
        for g in range(ngroups):
            idx[l * ngroups + g] = 0
            if gcompact[g] and used[g]:
                idx[l * ngroups + g] = group_rank(pc, (l * ngroups + g) * MAX_GROUP, gsize[g], n, pop)
        for cell in range(n):
            t = board[cell]
            if t == 0:
                continue
            g = lk_grp[l * n + t]
            if not gcompact[g]:
                idx[l * ngroups + g] += lk_cell[l * n + cell] * lk_mult[l * n + t]
        s = 0
        for g in range(ngroups):
            if used[g]:
                s += pdb[p_off[g] + idx[l * ngroups + g]]
        hl[l] = s
        if s > best:
            best = s
    return best


@njit(cache=True)
def value(board, hc, idx, hl, pc):
    """The value of `board` from scratch; idx/hl are left holding its per-lookup indices and sums."""
    return _pdb_h(board, hc[HC_ROWS] * hc[HC_COLS], hc[HC_PDB], hc[HC_PDB_OFF], hc[HC_LK_GRP], hc[HC_LK_MULT],
                  hc[HC_LK_CELL], hc[HC_NLK], hc[HC_NGROUPS], idx, hl, hc[HC_LK_SLOT], hc[HC_GSIZE],
                  hc[HC_GCOMPACT], hc[HC_POP], pc)


def astar_scratch(hc):
    nlk, ngroups = int(hc[HC_NLK]), int(hc[HC_NGROUPS])
    return (np.zeros(max(nlk * ngroups, 1), np.int64), np.zeros(max(nlk, 1), np.int64),
            np.zeros(max(nlk * ngroups * MAX_GROUP, 1), np.int64))


@njit(cache=True)
def evaluate(board, hc):
    """The value of `board` from scratch (its own scratch arrays)."""
    nlk = hc[HC_NLK]
    ngroups = hc[HC_NGROUPS]
    return value(board, hc, np.empty(max(nlk * ngroups, 1), np.int64), np.empty(max(nlk, 1), np.int64),
                 np.empty(max(nlk * ngroups * MAX_GROUP, 1), np.int64))


def ida_state(hc, board, depth):
    """(idx, hl, sv_idx, sv_hl) at the root `board` (see the module's docstring)."""
    idx0, hl, pc = astar_scratch(hc)
    value(np.asarray(board, np.int8), hc, idx0, hl, pc)
    nlk, ngroups = int(hc[HC_NLK]), int(hc[HC_NGROUPS])
    kk = nlk * ngroups
    values = np.zeros(max(kk, 1), np.int64)
    if kk:
        gi = np.tile(np.arange(ngroups), nlk)
        values[:kk] = hc[HC_PDB][hc[HC_PDB_OFF][gi] + idx0[:kk]]
    idx = np.concatenate([idx0[:max(kk, 1)], values])
    nl = max(nlk, 1)
    return (idx, hl, np.zeros(depth * nl * 2, np.int64), np.zeros(depth * nl, np.int64))


@njit(cache=True, inline="always")
def _pdb_child(t, m, n, pdb, p_off, lk_grp, lk_mult, dcell, nlk, ngroups, idx, hl, limit,
               new_idx, new_hl, ranked, lk_slot, gsize, gcompact, pop, pc, new_val):
    """h of the child in which tile t moves (blank move m): the max over lookups of the
    additive sums. (Rounding h up to the parity of the blank's distance would gain
    nothing: a group's value already has the parity of its tiles' Manhattan sum.)

    Returns as soon as a lookup alone exceeds `limit`: that child is pruned, so the
    other lookups (and new_idx/new_hl, which are then incomplete) are not needed. The
    partial max is still a lower bound of h, so the next bound taken from it never
    passes the true minimum f and optimality holds (at worst an iteration repeats)."""
    best = 0
    for l in range(nlk):
        g = lk_grp[l * n + t]
        old = idx[l * ngroups + g]
        if ranked and gcompact[g]:
            base = (l * ngroups + g) * MAX_GROUP
            at = base + lk_slot[l * n + t]
            was = pc[at]
            pc[at] = was + dcell[l * 4 + m]
            nw = group_rank(pc, base, gsize[g], n, pop)
            pc[at] = was
        else:
            nw = old + dcell[l * 4 + m] * lk_mult[l * n + t]
        # The parent's value of the group is carried in idx[K + slot] (K = nlk * ngroups),
        # not read again: after the searches below the parent it may have left the cache.
        v = np.int64(pdb[p_off[g] + nw])
        s = hl[l] - idx[nlk * ngroups + l * ngroups + g] + v
        new_idx[l] = nw
        new_hl[l] = s
        new_val[l] = v
        if s > best:
            best = s
            if best > limit:
                return best
    return best


@njit(cache=True, inline="always")
def ida_scratch(board, hc, hs):
    """(new_idx, new_hl, new_val: a child's per-lookup values until it is stepped into; pc, the
    mirrored cells; whether some group is compact, so pc is kept up to date)."""
    nlk = hc[HC_NLK]
    ngroups = hc[HC_NGROUPS]
    gcompact = hc[HC_GCOMPACT]
    pc = np.empty(max(nlk * ngroups * MAX_GROUP, 1), np.int64)
    pdb_cells(board, hc[HC_ROWS] * hc[HC_COLS], hc[HC_LK_GRP], hc[HC_LK_SLOT], hc[HC_LK_CELL], nlk, ngroups, pc)
    ranked = False
    for g in range(ngroups):
        ranked |= gcompact[g]
    return (np.empty(max(nlk, 1), np.int64), np.empty(max(nlk, 1), np.int64), np.empty(max(nlk, 1), np.int64),
            pc, ranked)


@njit(cache=True, inline="always")
def ida_child(board, hc, hs, sc, d, h, tile, src, dst, move, limit):
    """IDA*'s hook: the child's value from the parent's carried indices and sums (`_pdb_child`)."""
    idx, hl, _, _ = hs
    new_idx, new_hl, new_val, pc, ranked = sc
    return _pdb_child(tile, move, hc[HC_ROWS] * hc[HC_COLS], hc[HC_PDB], hc[HC_PDB_OFF], hc[HC_LK_GRP],
                      hc[HC_LK_MULT], hc[HC_DCELL], hc[HC_NLK], hc[HC_NGROUPS], idx, hl, limit, new_idx, new_hl,
                      ranked, hc[HC_LK_SLOT], hc[HC_GSIZE], hc[HC_GCOMPACT], hc[HC_POP], pc, new_val)


@njit(cache=True, inline="always")
def _step_slots(hc):
    """What a step down or up reads of the context: cells, lookups, groups, lookups x groups (where the
    carried table values start in idx), each tile's group and slot per lookup, the cell shifts."""
    nlk = hc[HC_NLK]
    ngroups = hc[HC_NGROUPS]
    return (hc[HC_ROWS] * hc[HC_COLS], nlk, ngroups, nlk * ngroups, hc[HC_LK_GRP], hc[HC_LK_SLOT],
            hc[HC_DCELL])


@njit(cache=True, inline="always")
def ida_down(hc, hs, sc, d, t, m):
    """Step down to the child last valued: save what it overwrites at depth d, then take its values."""
    idx, hl, sv_idx, sv_hl = hs
    new_idx, new_hl, new_val, pc, ranked = sc
    n, nlk, ngroups, kk, lk_grp, lk_slot, dcell = _step_slots(hc)
    for l in range(nlk):
        g = lk_grp[l * n + t]
        slot = l * ngroups + g
        sv_idx[(d * nlk + l) * 2] = idx[slot]
        sv_idx[(d * nlk + l) * 2 + 1] = idx[kk + slot]
        idx[kk + slot] = new_val[l]
        sv_hl[d * nlk + l] = hl[l]
        idx[slot] = new_idx[l]
        hl[l] = new_hl[l]
        if ranked:
            pc[slot * MAX_GROUP + lk_slot[l * n + t]] += dcell[l * 4 + m]


@njit(cache=True, inline="always")
def ida_up(hc, hs, sc, d, t, back):
    """Step back up to depth d (tile t returns; `back` the move that had led down): restore the saved values."""
    idx, hl, sv_idx, sv_hl = hs
    pc = sc[3]
    ranked = sc[4]
    n, nlk, ngroups, kk, lk_grp, lk_slot, dcell = _step_slots(hc)
    for l in range(nlk):
        g = lk_grp[l * n + t]
        idx[l * ngroups + g] = sv_idx[(d * nlk + l) * 2]
        idx[kk + l * ngroups + g] = sv_idx[(d * nlk + l) * 2 + 1]
        hl[l] = sv_hl[d * nlk + l]
        if ranked:
            pc[(l * ngroups + g) * MAX_GROUP + lk_slot[l * n + t]] -= dcell[l * 4 + back]


@njit(cache=True, inline="always")
def astar_child(board, hc, sc, h, tile, src, dst):
    """From scratch on the child (`board` left as it was)."""
    idx, hl, pc = sc
    board[dst] = tile
    board[src] = 0
    nh = value(board, hc, idx, hl, pc)
    board[src] = tile
    board[dst] = 0
    return nh


HEURISTIC = Heuristic("pdb", CODE, "additive disjoint pattern databases, max with the board's symmetric lookups "
                      "(Korf & Felner 2002)", "puzzle_naive_pdb:pattern_distances", context=context,
                      evaluate=evaluate, ida_scratch=ida_scratch, ida_child=ida_child, ida_down=ida_down,
                      ida_up=ida_up, ida_state=ida_state, astar_child=astar_child, astar_scratch=astar_scratch,
                      tables="pdb", share=share, attach=attach, module=__name__)
