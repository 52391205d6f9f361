"""Chunk-wise statistics equal the statistics of all rows at once."""

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from fastsnake.snake.stats import SummaryAccumulator


@given(st.lists(st.lists(st.integers(1, 5000), min_size=1, max_size=60), min_size=1, max_size=6))
def test_chunked_summary_equals_numpy(chunks):
    acc = SummaryAccumulator()
    other = SummaryAccumulator()
    for k, chunk in enumerate(chunks):
        moves = np.array(chunk)
        outcome = np.where(moves % 3 == 0, 2, 1)
        (acc if k % 2 == 0 else other).add(outcome, moves, moves // 10, moves // 10 + 3)
    acc.merge(SummaryAccumulator.from_json(other.to_json()))
    everything = np.concatenate([np.array(c) for c in chunks])
    d = acc.as_dict()
    assert d["games"] == everything.size
    assert d["deaths"] == int((everything % 3 == 0).sum())
    assert np.isclose(d["moves_mean"], everything.mean())
    if everything.size > 1:
        assert np.isclose(d["moves_std"], everything.std(ddof=1))
    for key, q in (("moves_q25", 0.25), ("moves_median", 0.5), ("moves_q75", 0.75)):
        assert np.isclose(d[key], np.quantile(everything, q))
    assert (d["moves_min"], d["moves_max"]) == (everything.min(), everything.max())
