"""Viewer speed: seeking backwards through a 30x30 game of 202,961 moves, and GIF export.

Run: SDL_VIDEODRIVER=dummy pytest bench/bench_viewer.py --benchmark-only
"""

import os
from pathlib import Path

import pytest

os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
GOLDEN = Path(__file__).resolve().parents[1] / "tests" / "viewer" / "golden"


@pytest.fixture(scope="module")
def long_game():
    from fastsnake.viewer.files import open_view

    return open_view(GOLDEN / "cycle30.npz")


def test_bench_step_back_render(benchmark, long_game):
    from fastsnake.viewer import backend

    pg = backend.pygame()
    surface = pg.Surface(long_game.window_size())
    last = long_game.frames - 1

    def back_100():
        for k in range(100):
            long_game.render(surface, last - k, {"cycle"})
        return last - 99

    frame = benchmark.pedantic(back_100, rounds=5, iterations=1)
    assert len(long_game.timeline.body(frame)) == long_game.timeline.length(frame)


def test_bench_seek_only(benchmark, long_game):
    tl = long_game.timeline
    frames = range(tl.frames - 1, tl.frames - 10_001, -1)

    def seek():
        return sum(len(tl.body(t)) for t in frames)

    total = benchmark.pedantic(seek, rounds=3, iterations=1)
    assert total == sum(tl.length(t) for t in frames)


def test_bench_open_long_game(benchmark):
    from fastsnake.viewer.files import open_view

    view = benchmark.pedantic(open_view, args=(GOLDEN / "cycle30.npz",), rounds=3, iterations=1)
    assert view.frames == 202_962


def test_bench_gif_export(benchmark, tmp_path):
    from PIL import Image

    from fastsnake.viewer.export import export_frames
    from fastsnake.viewer.files import open_view

    view = open_view(GOLDEN / "greedy10.npz")
    out = tmp_path / "g.gif"
    info = benchmark.pedantic(export_frames, args=(view, out), rounds=2, iterations=1)
    with Image.open(out) as im:
        assert im.n_frames == info["written"] == 190
