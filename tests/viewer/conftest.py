"""Viewer test fixtures: real replays made by `fastsnake play` (see golden/README)."""

from pathlib import Path

import pytest

GOLDEN = Path(__file__).resolve().parent / "golden"


@pytest.fixture(scope="session")
def pg():
    from fastsnake.viewer import backend

    return backend.pygame()


@pytest.fixture(scope="session")
def views():
    """Views of the golden replays, opened once (loading re-plays each file)."""
    from fastsnake.viewer.files import open_view

    cache = {}

    def get(name):
        if name not in cache:
            cache[name] = open_view(GOLDEN / name)
        return cache[name]

    return get


@pytest.fixture
def surface(pg):
    def make(view, cell=None):
        return pg.Surface(view.window_size(cell))

    return make
