"""The examples in the package's docstrings (the API reference) run and print what they say: every module
with a ``>>>`` line in its source, found by reading the sources, so a new example is checked too."""

import doctest
import importlib
import re
from pathlib import Path

import pytest

import fastsnake

_PACKAGE = Path(fastsnake.__file__).resolve().parent
_EXAMPLE = re.compile(r"^\s*>>> ", re.MULTILINE)


def _modules_with_examples() -> list[str]:
    names = []
    for path in sorted(_PACKAGE.rglob("*.py")):
        if _EXAMPLE.search(path.read_text(encoding="utf-8")):
            parts = ["fastsnake", *path.relative_to(_PACKAGE).with_suffix("").parts]
            names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


MODULES = _modules_with_examples()


def test_the_modules_with_examples_are_found():
    """The two runners this one replaced checked these modules; each still has examples, found here."""
    assert set(MODULES) >= {
        "fastsnake.puzzle.board", "fastsnake.puzzle.solver", "fastsnake.puzzle.solution", "fastsnake.tour.pieces",
        "fastsnake.tour.tour", "fastsnake.tour.reach", "fastsnake.tour.count", "fastsnake.tour.verify",
        "fastsnake.tour.io", "fastsnake.snake.policies", "fastsnake.viewer.html_report", "fastsnake.snake.api.sweeps",
        "fastsnake.snake.api.games", "fastsnake.snake.api.inputs", "fastsnake.snake.policies.user"}


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)  # not an attribute: the `reach` of fastsnake.tour is the function
    failed, attempted = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert attempted > 0 and failed == 0
