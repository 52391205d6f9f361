"""Which solutions a study's page may show, and so which rows keep their moves.

A study's report picks solutions by a word (`PICK_WORDS`: the longest, the shortest, the one with
the most nodes, the fewest) over the finished rows. The study keeps the moves of exactly the rows
such a word can pick, so the page never searches again: for every arm (a heuristic and algorithm,
a method and seed), the row each word picks among that arm's rows (`pickable`). The row a word picks
over the whole study is one of these (the first maximum of all rows is the first maximum of its
arm's), so any pooled part of a study (a chunk, a file) that keeps its own keeps the study's.
`keep_pickable_moves` sets the moves of every other row to None before the rows are written.
"""

from __future__ import annotations

from collections.abc import Callable

# The words a report's `picks` take; each orders the finished rows, the largest is picked.
PICK_WORDS = ("longest", "shortest", "most-nodes", "fewest-nodes")
# The picks a page makes unless told otherwise.
DEFAULT_PICKS = ("longest", "most-nodes")
# The rows column holding a kept solution's moves (None where not kept).
MOVES_COLUMN = "moves"


def pick_key(word: str, length: str, nodes: str) -> Callable[[dict], tuple]:
    """The ordering `word` picks by (the row with the largest key), ties broken by the other measure."""
    def n(r, k):
        return r[k] or 0

    return {"longest": lambda r: (n(r, length), n(r, nodes)),
            "shortest": lambda r: (-n(r, length), -n(r, nodes)),
            "most-nodes": lambda r: (n(r, nodes), n(r, length)),
            "fewest-nodes": lambda r: (-n(r, nodes), -n(r, length))}[word]


def pick(rows: list[dict], word: str, length: str, nodes: str) -> dict | None:
    """The first row of `rows` with the largest key of `word` (None for no rows)."""
    return max(rows, key=pick_key(word, length, nodes)) if rows else None


def pickable(rows: list[dict], *, length: str, nodes: str, ok: Callable[[dict], bool],
             arm: Callable[[dict], object]) -> set[int]:
    """Indices into `rows` of the rows a pick word can choose: per arm, each word's row among that
    arm's finished (`ok`) rows (`length` and `nodes` numbers or None, never NaN)."""
    by_arm: dict = {}
    for k, r in enumerate(rows):
        if ok(r):
            by_arm.setdefault(arm(r), []).append(k)
    kept = set()
    for ks in by_arm.values():
        # `pick_key`'s orders, each key made once per row and compared in C: the largest (length,
        # nodes) is the longest, the smallest the shortest (the first of equals, as `max` of the
        # negated key gives); likewise (nodes, length) for the most and the fewest nodes.
        lengths = [rows[k][length] or 0 for k in ks]
        counts = [rows[k][nodes] or 0 for k in ks]
        span = range(len(ks))
        for keys in (list(zip(lengths, counts, strict=True)), list(zip(counts, lengths, strict=True))):
            kept.add(ks[max(span, key=keys.__getitem__)])
            kept.add(ks[min(span, key=keys.__getitem__)])
    return kept


def keep_pickable_moves(rows: list[dict], **how) -> list[dict]:
    """`rows` with `MOVES_COLUMN` None outside `pickable(rows, **how)` (copies of the rows changed)."""
    kept = pickable(rows, **how)
    return [r if k in kept or r.get(MOVES_COLUMN) is None else {**r, MOVES_COLUMN: None}
            for k, r in enumerate(rows)]
