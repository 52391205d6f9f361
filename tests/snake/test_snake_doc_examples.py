"""The examples in the public API's docstrings run and print what they say."""

import doctest

import pytest

import fastsnake.snake.api
import fastsnake.snake.policies.user


@pytest.mark.parametrize("module", [fastsnake.snake.api, fastsnake.snake.policies.user], ids=lambda m: m.__name__)
def test_docstring_examples(module):
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert attempted > 0 and failed == 0
