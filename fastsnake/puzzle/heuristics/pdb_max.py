"""pdb-max: the max of several additive pattern-database partitions, each with its symmetric lookups
(5x5: two 6-6-6-6; Holte et al. 2006). The context of `pdb` with several partitions, and its kernels."""

from __future__ import annotations

from fastsnake.puzzle.heuristic import Heuristic
from fastsnake.puzzle.heuristics import pdb

CODE = 6


def context(rows: int, cols: int, goal, **options):
    return pdb.tables_context(CODE, True, rows, cols, goal, **options)


def share(rows: int, cols: int, goal, **options):
    return pdb.share_tables(True, rows, cols, goal, **options)


def attach(spec: dict, data):
    return pdb.attach_tables(CODE, spec, data)


HEURISTIC = Heuristic("pdb-max", CODE, "the max of several additive PDB partitions, each with its symmetric "
                      "lookups (5x5: two 6-6-6-6; Holte et al. 2006)", "puzzle_naive_pdb:pattern_distances",
                      context=context, evaluate=pdb.evaluate, ida_scratch=pdb.ida_scratch, ida_child=pdb.ida_child,
                      ida_down=pdb.ida_down, ida_up=pdb.ida_up, ida_state=pdb.ida_state,
                      astar_child=pdb.astar_child, astar_scratch=pdb.astar_scratch, tables="pdb-max", share=share,
                      attach=attach, kernels_of=pdb.HEURISTIC, module=__name__)
