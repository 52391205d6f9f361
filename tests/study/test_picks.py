"""`fastsnake.study.picks.pickable` keeps the rows the slow reference (`picks_naive`) keeps: ties
(the first of equals), None as 0, floats (-0.0, infinities), several arms."""

import math

import picks_naive
from hypothesis import given, settings
from hypothesis import strategies as st

from fastsnake.study.picks import keep_pickable_moves, pickable

# Numbers as the studies count them (never NaN: a key of NaN has no largest).
VALUES = st.none() | st.integers(-3, 3) | st.sampled_from([0.5, -0.0, 0.0, math.inf, -math.inf, 2**70])
ROWS = st.lists(st.fixed_dictionaries({"arm": st.sampled_from("ab"), "ok": st.booleans(), "length": VALUES,
                                       "nodes": VALUES, "moves": st.none() | st.text(max_size=2)}), max_size=30)
HOW = {"length": "length", "nodes": "nodes", "ok": lambda r: r["ok"], "arm": lambda r: r["arm"]}


@settings(max_examples=300, deadline=None)
@given(ROWS)
def test_pickable_is_the_reference(rows):
    assert pickable(rows, **HOW) == picks_naive.pickable(rows, **HOW)
    same = dict(HOW, nodes="length")  # a tour study's: one measure for both
    assert pickable(rows, **same) == picks_naive.pickable(rows, **same)


@settings(max_examples=100, deadline=None)
@given(ROWS)
def test_keep_pickable_moves_keeps_the_moves_of_those_rows_only(rows):
    kept = picks_naive.pickable(rows, **HOW)
    out = keep_pickable_moves(rows, **HOW)
    assert [r["moves"] for r in out] == [r["moves"] if k in kept else None for k, r in enumerate(rows)]
    assert all(o == dict(r, moves=o["moves"]) for o, r in zip(out, rows, strict=True))
