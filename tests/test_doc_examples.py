"""The examples in the puzzle, tour and policy-registry docstrings (the API reference) run as written."""

import doctest
import importlib

import pytest

import fastsnake.puzzle.board
import fastsnake.puzzle.solution
import fastsnake.puzzle.solver
import fastsnake.snake.policies
import fastsnake.tour.count
import fastsnake.tour.io
import fastsnake.tour.pieces
import fastsnake.tour.reach
import fastsnake.tour.tour
import fastsnake.tour.verify

MODULES = [
    fastsnake.puzzle.board,
    fastsnake.puzzle.solver,
    fastsnake.puzzle.solution,
    fastsnake.tour.pieces,
    fastsnake.tour.tour,
    importlib.import_module("fastsnake.tour.reach"),  # the package's `reach` attribute is the function
    fastsnake.tour.count,
    fastsnake.tour.verify,
    fastsnake.tour.io,
    fastsnake.snake.policies,
    importlib.import_module("fastsnake.viewer.html_report"),
]


@pytest.mark.parametrize("module", MODULES, ids=lambda m: m.__name__)
def test_docstring_examples(module):
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert attempted > 0 and failed == 0
