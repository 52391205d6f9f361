"""Slow, obviously-correct reference for `fastsnake.study.picks.pickable`: each word's `pick` over
each arm's finished rows, one word at a time (as `pickable` was first written)."""

from __future__ import annotations

from fastsnake.study.picks import PICK_WORDS, pick_key


def pickable(rows, *, length, nodes, ok, arm) -> set[int]:
    kept = set()
    arms = []
    for r in rows:
        if ok(r) and arm(r) not in arms:
            arms.append(arm(r))
    for a in arms:
        mine = [k for k, r in enumerate(rows) if ok(r) and arm(r) == a]
        for word in PICK_WORDS:
            key = pick_key(word, length, nodes)
            best = mine[0]
            for k in mine[1:]:
                if key(rows[k]) > key(rows[best]):
                    best = k
            kept.add(best)
    return kept
