"""`celltree.link`: kernels call the cell-tree search through a named symbol bound at run time.

A toy search of the searches' signature stands in for `plan.replan` (its compile takes seconds, not
a minute); the agents' own games through the linked kernels are `test_snake_celltree_games.py`'s.
"""

import numpy as np
import pytest
from numba import config, njit
from numba.core.errors import TypingError

from fastsnake.snake.celltree import link
from fastsnake.snake.engine import make_state

pytestmark = pytest.mark.skipif(config.DISABLE_JIT, reason="symbols are compiled code's")


@njit
def toy_search(I, L, X, order, body, st):
    return np.int32(I[0] + L[1] + X[2] + order[0] + body[1] + st.moves)


call_toy = link.symbol_call("fastsnake_test_toy_search", toy_search)


@njit
def toy_kernel(I, L, X, order, body, moves):
    st = make_state(0, 0, 0, 0, 1, 0, 0, moves, 0, 0)
    return call_toy(I, L, X, order, body, st)


def _args():
    return (np.array([1], np.int32), np.array([0, 20], np.int64), np.array([0, 0, 300], np.int64),
            np.array([4000], np.int16), np.array([0, 50000], np.int32))


def test_a_linked_kernel_calls_the_target_bound_before_its_first_compile():
    kernel = njit(toy_kernel.py_func)
    link.link_kernels([kernel], [("fastsnake_test_toy_search", toy_search, link.SEARCH_SIG)])
    assert kernel(*_args(), 600000) == 654321
    assert link.is_linked("fastsnake_test_toy_search")
    # The same answer as calling the search itself.
    st = make_state(0, 0, 0, 0, 1, 0, 0, 600000, 0, 0)
    assert toy_search(*_args(), st) == 654321


def test_ensure_binds_once():
    link.ensure("fastsnake_test_toy_search", toy_search)
    address = link._linked["fastsnake_test_toy_search"]
    link.ensure("fastsnake_test_toy_search", toy_search)
    assert link._linked["fastsnake_test_toy_search"] == address != 0


def test_arguments_of_other_types_are_refused_at_compile_time():
    @njit
    def wrong(I, L, X, order, body, moves):
        st = make_state(0, 0, 0, 0, 1, 0, 0, moves, 0, 0)
        return call_toy(L, L, X, order, body, st)  # L is int64, the search takes int32 first

    with pytest.raises(TypingError, match="fastsnake_test_toy_search takes"):
        wrong(*_args(), 1)


@njit
def toy_leaf(I, start, limit):
    return np.int64(I[0] * 1000 + start * 10 + limit)


LEAF = ("fastsnake_test_toy_leaf", toy_leaf, link.INT(link.I32, link.INT, link.INT))
call_leaf = link.symbol_call(*LEAF)


@njit
def toy_middle(I, start, limit):
    # a literal, an int32 and an int64: converted to the leaf's int64, not a new specialisation
    return call_leaf(I, 0, limit) + call_leaf(I, np.int32(start), limit)


MIDDLE = ("fastsnake_test_toy_middle", toy_middle, link.INT(link.I32, link.INT, link.INT), (LEAF,))
call_middle = link.symbol_call(*MIDDLE)


@njit
def toy_top(I, start):
    return call_middle(I, start, 7)


def test_a_linked_piece_binds_the_names_its_own_code_calls_first():
    top = njit(toy_top.py_func)
    link.link_kernels([top], [MIDDLE])
    assert top(np.array([3], np.int32), 5) == 3007 + 3057
    assert link.is_linked("fastsnake_test_toy_middle") and link.is_linked("fastsnake_test_toy_leaf")
    # The leaf compiled once, for its signature: the literal and the int32 were converted.
    assert toy_leaf.signatures == [LEAF[2].args]


def test_narrowing_an_integer_is_refused():
    @njit
    def narrowing(I, start):
        return call_leaf(I, start, np.uint64(1))  # uint64 -> int64 is not a safe conversion

    with pytest.raises(TypingError, match="fastsnake_test_toy_leaf takes"):
        narrowing(np.array([3], np.int32), 5)
