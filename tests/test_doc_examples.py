"""The examples in the puzzle, tour and policy-registry docstrings (the API reference) run as written."""

import doctest

import pytest

import fastsnake.puzzle.board
import fastsnake.puzzle.solution
import fastsnake.puzzle.solver
import fastsnake.snake.policies
import fastsnake.tour.pieces
import fastsnake.tour.tour

MODULES = [
    fastsnake.puzzle.board,
    fastsnake.puzzle.solver,
    fastsnake.puzzle.solution,
    fastsnake.tour.pieces,
    fastsnake.tour.tour,
    fastsnake.snake.policies,
]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples(module):
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert attempted > 0 and failed == 0
