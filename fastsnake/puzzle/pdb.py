"""Additive disjoint pattern databases (boards of up to 25 cells), built by a numba BFS.

A pattern is a group of goal cells; its tiles are the goal's tiles there. The
database of a group stores, for every placement of its k tiles, the fewest moves
OF THOSE TILES needed to reach the goal placement, minimised over blank positions;
moves of other tiles are free, which is what makes the groups' values additive
(Korf & Felner 2002). The BFS tracks the blank by its region (the connected free
cells it can roam at no cost), layer by layer over a table indexed by the compact
rank of the placement (see `_regions_layer`).

Groups with N**k <= SPARSE_MAX (up to 6 tiles on 4x4) are kept in memory in a sparse
layout, index = sum(cell_i * N**i), so IDA* updates an index with one multiply-add
per move; bigger groups (7 and 8 tiles) stay compact, N!/(N-k)! bytes, and IDA*
ranks the group's cells per lookup. On disk tables are compact with a blake2b
checksum, per (board, goal blank cell, group cells): any goal with the same blank
cell reuses them, since tiles are only labels. The folder is
$FASTSNAKE_CACHE_DIR/pdb, else $XDG_CACHE_HOME/fastsnake/pdb, else
~/.cache/fastsnake/pdb; a missing, truncated or corrupt file is rebuilt. A big sparse
set (6-6-6-6 on 5x5: 977 MB) is also kept there expanded, one file per set, and
memory-mapped read-only on load (`pdb_store.open_sparse_set`): a process starts its
search without reading or expanding the tables, and processes share one copy in the
page cache; a damaged, truncated or stale set file is rebuilt from the compact files.

Board symmetries that fix the goal blank cell give extra lookups (the diagonal
reflection of Korf & Felner on the standard 15-puzzle goal): the reflected state has
the same distance, so the maximum over the lookups stays admissible.

This module chooses partitions, checks the memory budget and assembles a `PdbSet`; the
BFS and the ranking are `pdb_build`'s, the cache files `pdb_store`'s (their public
names are importable from here too).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from fastsnake.published import MEASURED_ON
from fastsnake.puzzle.board import PuzzleInputError
from fastsnake.puzzle.pdb_build import (  # noqa: F401  (public names kept here)
    MAX_GROUP,
    UNSEEN,
    build_group,
    compact_to_sparse,
    convert_layout,
    group_rank,
    popcount16_table,
    state_dtype,
    symmetries,
)
from fastsnake.puzzle.pdb_store import (  # noqa: F401  (public names kept here)
    MAGIC,
    DamagedSetFile,
    cache_dir,
    load_table,
    measured_build,
    open_sparse_set,
    record_build,
    recorded_digest,
    save_table,
    set_path,
    table_key,
    table_path,
    write_sparse_set,
)
from fastsnake.sizes import MEMORY_BUDGET_ENV, memory_budget, resident_bytes

# The names these had before the split (bench/bench_puzzle.py reads _path and _key).
_key, _path, _load, _save, _symmetries = table_key, table_path, load_table, save_table, symmetries
MAX_CELLS = 25
# Groups whose sparse table (n**k bytes) is at most this big keep that layout in
# memory (one multiply-add per move in IDA*); bigger ones (7 and 8 tiles on 4x4)
# stay compact and are ranked per lookup.
SPARSE_MAX = 1 << 24
# On boards over 16 cells, groups whose sparse table is at most this big (6 tiles on 5x5:
# 25**6 = 244,140,625 bytes) are loaded sparse when every table of the set is cached and
# the sparse set fits the memory budget: IDA* then never ranks (10 -> 15 M nodes/CPU-s on
# Korf & Felner's 24-puzzles); else they stay compact, as while they are built.
SPARSE_MAX_BIG = 1 << 28
# Sets whose tables are all sparse and together at least this big (6-6-6-6 on 5x5: 977 MB; 6-6-3
# on 4x4: 34 MB) are memory-mapped from one expanded file in the cache (`pattern_databases(mapped=...)`
# forces it either way), by a single solve as by a batch: loading them costs a header check instead of
# reading, hashing and expanding them (4x4 6-6-3: 0.001 against 0.32-0.38 CPU-s a load; 5x5: 6-11
# CPU-s), and processes share the pages. Smaller sets (3x3) are not worth a file.
MAPPED_MIN_BYTES = 1 << 24

# CPU seconds of building one table of k tiles on R x C, (lowest, highest) measured on MEASURED_ON, quoted
# until this machine has built one (docs/puzzle.md, "The 24-puzzle"): 6 tiles on 5x5 (the
# 6-6-6-6 default): docs/puzzle.md's 425.8 CPU-s for the four, issue 55's trial 450, and issue 55's fix
# session 425.4 (409.9 user + 15.5 sys, 44 min wall at load 8-10, kernels and a solve included).
PUBLISHED_BUILD_CPU = {(5, 5, 6): (104, 113)}

# Partitions of the 4x4 goal with the blank in cell 0, as cells. 6-6-3 is the shape
# used with Korf & Felner's results (two staircase sixes and the bottom-left three):
# its mean h over Korf's 100 starts (with the reflection) is 42.79 against their
# 42.92, and 637 k nodes/instance against 617 k. The earlier guess, two 2x3 blocks
# under the top row, scored 42.23 and needed twice the nodes. 5-5-5 is the analogous
# staircase (mean h 42.25; the rows-first split {1,2,3,6,7}... scored 41.21). 7-8 is
# tiles 1-7 / 8-15 as in the papers.
_PRESET_BLANK_CELL = 0  # the presets are drawn for the goal blank in cell 0 (top-left)
_PRESETS_4X4 = {
    "6-6-3": [[1, 2, 4, 5, 8, 9], [3, 6, 7, 10, 11, 15], [12, 13, 14]],
    "5-5-5": [[1, 2, 4, 5, 8], [3, 6, 7, 10, 11], [9, 12, 13, 14, 15]],
    "7-8": [[1, 2, 3, 4, 5, 6, 7], [8, 9, 10, 11, 12, 13, 14, 15]],
}
# The 5x5 6-6-6-6 partition of Korf & Felner (2002) for the goal with the blank top-left;
# it is not its own diagonal reflection, so the reflected lookup adds information.
_PRESETS_5X5 = {
    "6-6-6-6": [[1, 2, 5, 6, 7, 12], [3, 4, 8, 9, 13, 14], [10, 11, 15, 16, 20, 21],
                [17, 18, 19, 22, 23, 24]],
}
# A second 6-6-6-6 of the same goal for `pdb-max`: its groups cut across the first's and
# across the first's reflection (the top 2x3 block without the corner, the right and left
# columns each with two inner cells, the centre with the bottom row); it is not its own
# reflection either, so with both partitions h is the max of four additive sums.
_PRESETS_5X5["6-6-6-6b"] = [[1, 2, 3, 6, 7, 8], [4, 9, 13, 14, 18, 19], [5, 10, 11, 15, 16, 20],
                            [12, 17, 21, 22, 23, 24]]
_PRESETS = {4: _PRESETS_4X4, 5: _PRESETS_5X5}
# `pdb-max`: the partitions maxed together by default ("+" joins partitions in a name).
MAX_PRESETS = {(4, 4): "6-6-3+5-5-5", (5, 5): "6-6-6-6+6-6-6-6b"}


# ---------------------------------------------------------------- partitions

def default_partition(rows: int, cols: int, blank_cell: int, name: str | None = None) -> list[list[int]]:
    """Groups of goal cells. 4x4 and 5x5 presets are Korf & Felner's shapes (6-6-3 and
    6-6-6-6 by default), moved by a board symmetry when the goal blank is in another
    corner; otherwise row-major runs of at most 6 cells (e.g. 6-5 on 3x4)."""
    explicit = name is not None
    name = name or ("6-6-6-6" if rows == cols == 5 else "6-6-3")
    n = rows * cols
    presets = _PRESETS.get(rows, {}) if rows == cols else {}
    if name in presets:
        for sym in symmetries(rows, cols):
            if sym[_PRESET_BLANK_CELL] == blank_cell:
                return [sorted(int(sym[c]) for c in g) for g in presets[name]]
    if name == "runs-b":
        # pdb-max's second default partition off the presets: row-major runs that start
        # with a half group, so its boundaries differ from the default runs'.
        cells = [c for c in range(n) if c != blank_cell]
        first = max(1, min(3, len(cells) - 1))
        rest = cells[first:]
        return [cells[:first]] + [rest[i:i + 6] for i in range(0, len(rest), 6)]
    sizes = [int(x) for x in name.split("-")] if name and all(p.isdigit() for p in name.split("-")) else None
    cells = [c for c in range(n) if c != blank_cell]
    if explicit and (sizes is None or sum(sizes) != len(cells) or min(sizes) < 1):
        # Never replace a partition the caller named by another one.
        raise PuzzleInputError(f"partition {name!r} does not cover the {len(cells)} tiles of a {rows}x{cols} "
                               f"board exactly (its groups hold {sum(sizes or [0])} tiles)")
    if sizes is None or sum(sizes) != len(cells):
        groups = max(1, math.ceil(len(cells) / 6))
        sizes = [6] * (groups - 1) + [len(cells) - 6 * (groups - 1)]
    out, at = [], 0
    for s in sizes:
        out.append(cells[at:at + s])
        at += s
    return out


def parse_partition(text, rows: int, cols: int, goal) -> list[list[int]]:
    """None / a preset name ('6-6-3', '5-5-5', '7-8', sizes) / '1,2,3/4,5,…' (goal tiles)."""
    goal = np.asarray(goal)
    blank_cell = int(np.flatnonzero(goal == 0)[0])
    n = rows * cols
    if text is None or (isinstance(text, str) and "/" not in text and "," not in text):
        presets = _PRESETS.get(rows, {}) if rows == cols else {}
        if (text is not None and text not in presets and text != "runs-b"
                and not all(p.isdigit() for p in str(text).split("-"))):
            raise PuzzleInputError(f"partition {text!r} is not a preset (6-6-3, 5-5-5, 7-8; 6-6-6-6 on 5x5) "
                                   "or tile groups")
        groups = default_partition(rows, cols, blank_cell, text)
    else:
        where = {int(t): i for i, t in enumerate(goal)}
        groups = []
        try:
            for part in str(text).split("/"):
                groups.append(sorted(where[int(t)] for t in part.replace(",", " ").split()))
        except (ValueError, KeyError):
            raise PuzzleInputError(f"partition {text!r}: groups must list tiles 1..{n - 1}") from None
    flat = sorted(c for g in groups for c in g)
    if flat != sorted(c for c in range(n) if c != blank_cell):
        raise PuzzleInputError(f"partition {text!r} must use every tile 1..{n - 1} exactly once")
    big = max(len(g) for g in groups)
    if big > MAX_GROUP:
        raise PuzzleInputError(f"partition {text!r}: groups of {big} tiles are too large "
                               f"(at most {MAX_GROUP})")
    return groups


def parse_partitions(text, rows: int, cols: int, goal) -> list[list[list[int]]]:
    """`pdb-max`'s partitions: None (the board's default pair, MAX_PRESETS, else the
    default runs and runs starting with a half group) or partitions joined by '+', each
    as `parse_partition` takes it (e.g. '6-6-6-6+6-6-6-6b', '6-6-3+5-5-5')."""
    if text is None:
        text = MAX_PRESETS.get((rows, cols))
        if text is None:
            return [parse_partition(None, rows, cols, goal), parse_partition("runs-b", rows, cols, goal)]
    return [parse_partition(part.strip(), rows, cols, goal) for part in str(text).split("+")]


def _warn(message: str, progress=None) -> None:
    """A warning: on the progress line when there is one (the CLI), else a RuntimeWarning."""
    if progress is not None:
        progress(f"warning: {message}")
    else:
        import warnings

        warnings.warn(message, RuntimeWarning, stacklevel=3)


announce = _warn  # public: solver's `auto` announces a table build through it


def is_sparse(n: int, k: int, big: bool = False) -> bool:
    return n ** k <= (SPARSE_MAX_BIG if big and n > 16 else SPARSE_MAX)


def table_size(n: int, k: int, big: bool = False) -> int:
    """Entries of a group's in-memory table (sparse n**k or compact n!/(n-k)!)."""
    return n ** k if is_sparse(n, k, big) else math.perm(n, k)


def build_bytes(n: int, k: int) -> int:
    """Bytes a group's BFS needs beyond the tables: the (placement, region) state rows,
    plus the compact table it fills when the group is kept sparse in memory."""
    size = math.perm(n, k)
    return size * 3 * np.dtype(state_dtype(n, k)).itemsize + (size if is_sparse(n, k) else 0)


def build_cost(rows: int, cols: int, k: int, count: int = 1) -> str | None:
    """What building `count` tables of `k` tiles on `rows` x `cols` costs, measured: this machine's last
    build of one (`pdb_store.record_build`), else the published range and the machine it was measured
    on (`PUBLISHED_BUILD_CPU`); None when neither exists (small tables: seconds)."""
    each = "" if count == 1 else f" each, {count} to build"
    found = measured_build(rows, cols, k)
    if found is not None:
        return (f"the last one built here took {found['cpu_seconds']:.0f} CPU-s, {found['wall_seconds']:.0f} s "
                f"wall{each}")
    published = PUBLISHED_BUILD_CPU.get((rows, cols, k))
    if published is None:
        return None
    low, high = published
    return f"measured {low}-{high} CPU-s{each} on {MEASURED_ON}, none built here yet"


class PdbMemoryError(PuzzleInputError):
    """Pattern databases whose tables and build would not fit the memory budget."""


def check_budget(rows: int, cols: int, groups, names: str, budget=None, cached=None,
                 mapped: bool | None = None) -> int:
    """Bytes the pattern databases of `groups` need in memory, refused up front when that is over the
    memory budget (`budget`, else FASTSNAKE_MEMORY_BUDGET, else 2 GiB): PdbMemoryError naming both.

    The rule (docs/puzzles.md, "Memory"): what the process holds now (`sizes.resident_bytes`: the
    interpreter, numpy, the loaded kernels) plus the most the tables will add at any moment. Missing
    tables (not in `cached`, a set of group indices whose files exist) are built one at a time before
    anything is loaded, each saved and dropped: one table and its BFS (`build_bytes`). Then the set is loaded:
    `mapped` (the set's sparse file in the cache, memory-mapped read-only; None: as `pattern_databases`
    decides by default) adds the largest compact
    table, read once to write that file; the mapped pages themselves are the page cache's, shared and
    dropped by the kernel under pressure, so they are not counted. Else the tables in memory count,
    with the largest compact table a sparse one is expanded from."""
    n = rows * cols
    cached = set() if cached is None else set(cached)
    if mapped is None:
        mapped = _maps(n, groups, budget, None)
    build = max((table_size(n, len(g)) + build_bytes(n, len(g)) for i, g in enumerate(groups) if i not in cached),
                default=0)
    if mapped:
        load = max(math.perm(n, len(g)) for g in groups)
    else:
        load = (sum(table_size(n, len(g)) for g in groups)
                + max((math.perm(n, len(g)) if is_sparse(n, len(g)) else 0 for g in groups), default=0))
    own = resident_bytes()
    need = own + max(build, load)
    limit = memory_budget(budget)
    if need > limit:
        how = "building" if build > load else "loading"
        raise PdbMemoryError(
            f"pattern databases {names} on {rows}x{cols}: {how} them needs {need:,} bytes ({own:,} this "
            f"process holds already), over the memory budget of {limit:,} bytes (raise it with "
            f"{MEMORY_BUDGET_ENV}, or use a partition of smaller groups such as 6-6-3)")
    return need


def group_table(rows: int, cols: int, blank_cell: int, cells, progress=None,
                into: np.ndarray | None = None, max_build_bytes: int | None = None,
                big: bool = False) -> tuple[np.ndarray, dict]:
    """The in-memory table of one group (goal cells `cells`), from the cache or built,
    written into `into` (table_size entries) when given. A build that would need more than
    `max_build_bytes` beyond the table (a cached file found corrupt) raises PdbMemoryError."""
    n = rows * cols
    k = len(cells)
    key = table_key(rows, cols, blank_cell, cells)
    path = table_path(key)
    compact_size = math.perm(n, k)
    sparse = is_sparse(n, k, big)
    table = np.zeros(table_size(n, k, big), np.uint8) if into is None else into
    info = {"cells": [int(c) for c in cells], "file": str(path), "bytes": compact_size,
            "layout": "sparse" if sparse else "compact"}
    t0 = time.perf_counter()
    compact = np.empty(compact_size, np.uint8) if sparse else table
    existed = path.exists()
    if load_table(path, key, compact):
        if sparse:
            table[:] = 0
            compact_to_sparse(compact, table, n, k)
        info["source"] = "cache"
        info["seconds"] = time.perf_counter() - t0
        return table, info
    if existed:
        _warn(f"pdb: cached database {str(path)!r} is corrupt or truncated (checksum); rebuilding it", progress)
    if max_build_bytes is not None and build_bytes(n, k) > max_build_bytes:
        raise PdbMemoryError(
            f"pattern database of {k} tiles on {rows}x{cols}: building it needs {build_bytes(n, k):,} bytes "
            f"beyond the tables, over the {max_build_bytes:,} bytes the memory budget leaves (raise it "
            f"with {MEMORY_BUDGET_ENV})")
    if progress is not None:
        cost = build_cost(rows, cols, k)
        progress(f"pdb: building {rows}x{cols} group of {k} tiles at cells {list(cells)} "
                 f"({compact_size:,} placements; {build_bytes(n, k):,} bytes "
                 f"of BFS state{'; ' + cost if cost else ''})")
    t_build, cpu_build = time.perf_counter(), time.process_time()
    built, seen = build_group(rows, cols, blank_cell, cells, progress, None if sparse else table)
    took = (time.process_time() - cpu_build, time.perf_counter() - t_build)
    seconds = time.perf_counter() - t0
    if sparse:
        table[:] = 0
        compact_to_sparse(built, table, n, k)
    try:
        save_table(path, key, built, seconds)
        saved = f"saved {compact_size:,} bytes to {path}"
        record_build(rows, cols, k, *took)  # beside the table it saved: a full disk keeps neither
    except OSError as exc:
        saved = f"not saved: cannot write {path} ({exc.strerror or exc})"
    info.update(source="built", seconds=seconds, bfs_states=seen, max=int(built.max()))
    if progress is not None:
        progress(f"pdb: built in {seconds:.1f} s, {saved}")
    return table, info


@dataclass
class PdbSet:
    rows: int
    cols: int
    blank_cell: int
    groups: list
    tables: list  # per group: views into `data` (sparse or compact, see is_sparse)
    infos: list = field(default_factory=list)
    data: np.ndarray | None = None  # all tables, one after the other
    # Partitions maxed together (pdb-max): lists of indices into `groups`; None = one
    # partition of every group.
    parts: list | None = None
    # The sparse set file `data` is mapped from (`pdb_store.MappedSet.describe()`), or None.
    mapped: dict | None = None

    def partitions(self) -> list:
        return self.parts if self.parts is not None else [list(range(len(self.groups)))]

    def describe(self) -> dict:
        out = {"groups": self.groups, "sizes": "-".join(str(len(g)) for g in self.groups),
               "tables": self.infos, "lookups": int(self.lookup_arrays_count())}
        if self.parts is not None:
            out["partitions"] = ["-".join(str(len(self.groups[g])) for g in part) for part in self.parts]
            out["sizes"] = "+".join(out["partitions"])
        if self.mapped is not None:
            out["mapped"] = self.mapped
        return out

    def _sym_maps(self, part=None):
        """Symmetries fixing the goal blank cell that give a different partition (of the
        groups `part`, default all)."""
        groups = [self.groups[g] for g in (part if part is not None else range(len(self.groups)))]
        maps = []
        shapes = {tuple(sorted(g)) for g in groups}
        for sym in symmetries(self.rows, self.cols):
            if sym[self.blank_cell] != self.blank_cell:
                continue
            image = {tuple(sorted(int(sym[c]) for c in g)) for g in groups}
            if maps and image == shapes:
                continue  # identical partition: the lookup would repeat the first
            maps.append(sym)
        return maps

    def lookup_arrays_count(self) -> int:
        return sum(len(self._sym_maps(part)) for part in self.partitions())

    def lookup_arrays(self, goal):
        n = self.rows * self.cols
        goal = np.asarray(goal, np.int64)
        if int(np.flatnonzero(goal == 0)[0]) != self.blank_cell:
            raise PuzzleInputError("pattern databases were built for another goal blank cell")
        goalpos = np.empty(n, np.int64)
        goalpos[goal] = np.arange(n)
        offsets = np.zeros(len(self.tables), np.int64)
        for g in range(1, len(self.tables)):
            offsets[g] = offsets[g - 1] + len(self.tables[g - 1])
        tables = self.data if self.data is not None else np.concatenate(self.tables)
        gsize = np.array([len(g) for g in self.groups], np.int64)
        # A table is compact when it does not have the sparse n**k entries (see is_sparse).
        gcompact = np.array([len(t) != n ** len(g) for t, g in zip(self.tables, self.groups, strict=True)],
                            np.bool_)
        # One lookup per (partition, symmetry giving a different partition); a lookup's
        # tiles map to groups of its partition only.
        lookups = []
        for part in self.partitions():
            slot_group = np.full(n, -1, np.int64)
            slot_index = np.zeros(n, np.int64)
            for gi in part:
                for i, c in enumerate(self.groups[gi]):
                    t = int(goal[c])
                    slot_group[t] = gi
                    slot_index[t] = i
            lookups += [(sym, slot_group, slot_index) for sym in self._sym_maps(part)]
        nlk = len(lookups)
        lk_grp = np.full(nlk * n, -1, np.int8)
        lk_mult = np.zeros(nlk * n, np.int64)
        lk_slot = np.zeros(nlk * n, np.int64)
        lk_cell = np.zeros(nlk * n, np.int16)
        for l, (sym, slot_group, slot_index) in enumerate(lookups):
            for t in range(1, n):
                tau = int(goal[sym[goalpos[t]]])  # the tile that t becomes in the mirrored state
                lk_grp[l * n + t] = slot_group[tau]
                lk_slot[l * n + t] = slot_index[tau]
                lk_mult[l * n + t] = n ** slot_index[tau]
            lk_cell[l * n:(l + 1) * n] = sym
        return (tables, offsets, lk_grp, lk_mult, lk_cell, nlk, len(self.groups), lk_slot, gsize,
                gcompact)


def pattern_databases(rows: int, cols: int, goal, partition=None, progress=None, budget=None,
                      several: bool = False, mapped: bool | None = None) -> PdbSet:
    """The additive PDB set for this board/goal/partition (loaded, or built and cached).

    `several` (the heuristic pdb-max): `partition` names several partitions joined by '+'
    (default `parse_partitions`'), whose sums are maxed; a group two partitions share has
    one table. Refused up front (PdbMemoryError) when the tables plus the largest BFS still
    to run would pass the memory budget (`budget` bytes, else FASTSNAKE_MEMORY_BUDGET, else 2 GiB).

    `mapped`: when every table is cached and kept sparse, map them read-only from the set's
    expanded file in the cache (written from the checked compact files if it is missing,
    damaged or stale) instead of expanding them in memory; None (default) does so for sets
    of at least MAPPED_MIN_BYTES, True for any, False never. The tables' info then says
    source "mapped", and `describe()["mapped"]` names the file."""
    n = rows * cols
    if n > MAX_CELLS or min(rows, cols) < 2:
        raise PuzzleInputError(
            f"pattern databases support boards of 2..{MAX_CELLS} cells with 2+ rows and columns, "
            f"not {rows}x{cols}")
    goal = np.asarray(goal)
    blank_cell = int(np.flatnonzero(goal == 0)[0])
    parts = None
    if several:
        groups, parts = [], []
        for partition_groups in parse_partitions(partition, rows, cols, goal):
            part = []
            for g in partition_groups:
                if g not in groups:
                    groups.append(g)
                part.append(groups.index(g))
            parts.append(part)
        names = "+".join("-".join(str(len(groups[g])) for g in part) for part in parts)
    else:
        groups = parse_partition(partition, rows, cols, goal)
        names = "-".join(str(len(g)) for g in groups)
    cached = {i for i, g in enumerate(groups) if table_path(table_key(rows, cols, blank_cell, g)).exists()}
    check_budget(rows, cols, groups, names, budget, cached, mapped=_maps(n, groups, budget, mapped))
    built_here = {}
    if len(cached) < len(groups) and _writable(cache_dir()):
        # Missing tables are built one at a time, each saved and dropped, before any is loaded: the
        # most memory at any moment is one table and its BFS (`check_budget`), not every table with it.
        for i, g in enumerate(groups):
            if i not in cached:
                built_here[i] = group_table(rows, cols, blank_cell, g, progress)[1]  # budget checked above
        cached = {i for i, g in enumerate(groups) if table_path(table_key(rows, cols, blank_cell, g)).exists()}
    pset = _load_set(rows, cols, blank_cell, groups, parts, cached, n, budget, mapped, progress)
    for i, info in built_here.items():  # what this call did: built them (then loaded what it saved)
        pset.infos[i] = dict(pset.infos[i], **{k: v for k, v in info.items() if k in _BUILD_INFO})
    return pset


_BUILD_INFO = ("source", "seconds", "bfs_states", "max")


def _load_set(rows, cols, blank_cell, groups, parts, cached, n, budget, mapped, progress) -> PdbSet:
    """The set of `groups` loaded: mapped from its sparse file, or in memory (tables not in `cached`
    are built into it)."""
    big = len(cached) == len(groups) and _big(n, groups, budget)
    sizes = [table_size(n, len(g), big) for g in groups]
    if (len(cached) == len(groups) and all(s == n ** len(g) for s, g in zip(sizes, groups, strict=True))
            and (mapped if mapped is not None else sum(sizes) >= MAPPED_MIN_BYTES)):
        pset = _mapped_set(rows, cols, blank_cell, groups, sizes, parts, progress)
        if pset is not None:
            return pset
    data = np.zeros(sum(sizes), np.uint8)
    tables, infos = [], []
    at = 0
    for cells, size in zip(groups, sizes, strict=True):
        table, info = group_table(rows, cols, blank_cell, cells, progress, into=data[at:at + size],
                                  max_build_bytes=memory_budget(budget) - len(data), big=big)
        at += size
        tables.append(table)
        infos.append(info)
    return PdbSet(rows, cols, blank_cell, groups, tables, infos, data, parts)


def _big(n: int, groups, budget) -> bool:
    """Whether a set whose tables are all cached loads every group sparse (boards over 16 cells): the
    sparse tables and one compact one fit the budget beside what the process holds."""
    return (n > 16 and sum(table_size(n, len(g), True) for g in groups) + max(math.perm(n, len(g)) for g in groups)
            + resident_bytes() <= memory_budget(budget))


def _maps(n: int, groups, budget, mapped: bool | None) -> bool:
    """Whether the set, once every table is cached, is mapped from its sparse file (`pattern_databases`)."""
    sizes = [table_size(n, len(g), _big(n, groups, budget)) for g in groups]
    return (all(s == n ** len(g) for s, g in zip(sizes, groups, strict=True))
            and bool(mapped if mapped is not None else sum(sizes) >= MAPPED_MIN_BYTES))


def _writable(folder) -> bool:
    """Whether tables can be saved in `folder` (or the first existing folder above it)."""
    import os

    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return os.access(probe, os.W_OK)


def _mapped_set(rows, cols, blank_cell, groups, sizes, parts, progress) -> PdbSet | None:
    """The set mapped from its sparse file (written first when missing or unusable), or None
    when a compact file fails its checks or the file cannot be written: the caller then
    loads (or rebuilds) the compact tables and expands them in memory."""
    n = rows * cols
    keys = [table_key(rows, cols, blank_cell, g) for g in groups]
    compact_sizes = [math.perm(n, len(g)) for g in groups]
    digests = [recorded_digest(table_path(k), k, c) for k, c in zip(keys, compact_sizes, strict=True)]
    if None in digests:
        return None
    path = set_path(keys)
    written = False
    try:
        found = open_sparse_set(path, keys, sizes, digests)
    except FileNotFoundError:
        found = None
    except (DamagedSetFile, OSError) as exc:
        _warn(f"pdb: sparse tables {str(path)!r} {exc}; rebuilding the file from the compact tables", progress)
        found = None
    if found is None:
        t0 = time.perf_counter()

        def fill(data):
            compact = np.empty(max(compact_sizes), np.uint8)
            checked = []
            at = 0
            for key, csize, size in zip(keys, compact_sizes, sizes, strict=True):
                header = {}
                if not load_table(table_path(key), key, compact[:csize], header):
                    return None  # a compact file is damaged: the in-memory path rebuilds it
                compact_to_sparse(compact[:csize], data[at:at + size], n, len(key["cells"]))
                checked.append(header["blake2b"])
                at += size
            return checked

        if progress is not None:
            progress(f"pdb: expanding {len(keys)} cached table(s) into {sum(sizes):,} bytes of sparse "
                     f"tables at {path} (once: later loads map that file)")
        try:
            digest = write_sparse_set(path, keys, sizes, fill)
        except OSError as exc:
            _warn(f"pdb: cannot write sparse tables {str(path)!r} ({exc.strerror or exc}); "
                  "expanding them in memory", progress)
            return None
        if digest is None:
            return None
        written = True
        if progress is not None:
            progress(f"pdb: wrote {path} in {time.perf_counter() - t0:.1f} s")
        digests = [recorded_digest(table_path(k), k, c) for k, c in zip(keys, compact_sizes, strict=True)]
        try:
            found = open_sparse_set(path, keys, sizes, digests)
        except (DamagedSetFile, OSError) as exc:  # replaced meanwhile by another process's
            _warn(f"pdb: sparse tables {str(path)!r} {exc}; expanding them in memory", progress)
            return None
    tables, infos, at = [], [], 0
    for g, key, size, csize in zip(groups, keys, sizes, compact_sizes, strict=True):
        tables.append(found.data[at:at + size])
        infos.append({"cells": [int(c) for c in g], "file": str(table_path(key)), "bytes": csize,
                      "layout": "sparse", "source": "mapped", "seconds": found.seconds})
        at += size
    desc = found.describe()
    desc["written"] = written
    return PdbSet(rows, cols, blank_cell, groups, tables, infos, found.data, parts, desc)


def map_set(path, keys, sizes, compact_digests) -> np.ndarray:
    """The data of a sparse set file another process checked or wrote (the batch's workers),
    checked again as `pdb_store.open_sparse_set` does (cheap within one boot)."""
    return open_sparse_set(path, keys, sizes, compact_digests).data


def attach(rows: int, cols: int, blank_cell: int, groups, sizes, data: np.ndarray, parts=None) -> PdbSet:
    """A PdbSet over tables already in `data` (`sizes` entries each, one after the other,
    as a `PdbSet.data` holds them; e.g. memory-mapped from a file another process wrote):
    nothing is loaded or built."""
    n = rows * cols
    tables, at = [], 0
    for size in sizes:
        tables.append(data[at:at + size])
        at += size
    infos = [{"cells": [int(c) for c in g], "source": "shared",
              "layout": "sparse" if size == n ** len(g) else "compact"}
             for g, size in zip(groups, sizes, strict=True)]
    return PdbSet(rows, cols, blank_cell, [list(g) for g in groups], tables, infos, data, parts)
