"""Snake frames: the timeline against a plain re-play, and pixels of rendered frames."""

from itertools import pairwise

import numpy as np
import pytest
import viewer_naive as naive
from hypothesis import given, settings
from hypothesis import strategies as st

from fastsnake.viewer import canvas

GAMES = ("greedy10.npz", "cycle10.npz")


def reference(view, wanted=None):
    rp = view.replay
    return naive.positions(rp.rows, rp.cols, rp.body, rp.moves, rp.apples, rp.tail_rule, wanted)


@pytest.mark.parametrize("name", GAMES)
def test_timeline_matches_plain_replay_on_every_frame(views, name):
    view = views(name)
    tl = view.timeline
    assert tl.frames == len(view.replay.moves) + 1
    for t, (body, apple) in reference(view).items():
        assert tuple(tl.body(t).tolist()) == body, t
        assert tl.head(t) == body[-1]
        assert tl.apple(t) == (-1 if apple is None else apple), t
        assert tl.length(t) == len(body)


@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_timeline_seeks_anywhere_in_a_long_game(views, data):
    view = views("cycle30.npz")
    tl = view.timeline
    assert tl.frames > 50_000
    wanted = data.draw(st.lists(st.integers(0, tl.frames - 1), min_size=1, max_size=4))
    wanted += [0, tl.frames - 1]
    for t, (body, apple) in reference(view, wanted).items():
        assert tuple(tl.body(t).tolist()) == body
        assert tl.apple(t) == (-1 if apple is None else apple)


@pytest.mark.parametrize("name", GAMES)
def test_route_runs_from_the_head_to_the_next_apple(views, name):
    tl = views(name).timeline
    cols = tl.cols
    for t in range(0, tl.frames - 1, 7):
        route = tl.route(t).tolist()
        assert route[0] == tl.head(t)
        for a, b in pairwise(route):
            assert abs(a // cols - b // cols) + abs(a % cols - b % cols) == 1
        if t < tl.eaten_at[-1]:
            assert route[-1] == tl.apple(t)  # the apple stays put until eaten


def pixel(surface, xy):
    return tuple(surface.get_at(xy))[:3]


def check_frame(view, surface, frame, overlays=frozenset()):
    layout = view.render(surface, frame, overlays)
    body, apple = reference(view, [frame])[frame]
    head = body[-1]
    assert pixel(surface, layout.center(head)) == canvas.HEAD
    if apple is not None:
        assert pixel(surface, layout.center(apple)) == canvas.APPLE
    occupied = set(body) | ({apple} if apple is not None else set())
    for cell in range(view.rows * view.cols):
        colour = pixel(surface, layout.center(cell))
        if cell in occupied:
            assert colour != canvas.EMPTY
        else:
            assert colour == canvas.EMPTY, cell
    # Consecutive body cells are joined across the grid line between them.
    for a, b in pairwise(body[:-1]):
        (xa, ya), (xb, yb) = layout.center(a), layout.center(b)
        assert pixel(surface, ((xa + xb) // 2, (ya + yb) // 2)) not in (canvas.GRID, canvas.EMPTY)
    return layout


@pytest.mark.parametrize("name", GAMES)
@pytest.mark.parametrize("where", ("first", "middle", "last"))
def test_rendered_frame_shows_head_apple_and_empty_cells(views, surface, name, where):
    view = views(name)
    frame = {"first": 0, "middle": view.frames // 2, "last": view.frames - 1}[where]
    check_frame(view, surface(view), frame)


@pytest.mark.parametrize("cell", (3, 6, 17, 40))
def test_pixels_hold_at_any_cell_size(views, surface, cell):
    view = views("greedy10.npz")
    layout = check_frame(view, surface(view, cell), 120)
    assert layout.cell == cell


def test_resized_surface_refits_the_board(views, pg):
    view = views("greedy10.npz")
    for size in ((300, 700), (900, 400), (1200, 1200)):
        layout = check_frame(view, pg.Surface(size), 60)
        bw, bh = layout.board_size
        assert bw <= size[0] and bh <= size[1] - canvas.STATUS_HEIGHT
        assert bw + 2 * layout.cell > size[0] or bh + 2 * layout.cell > size[1] - canvas.STATUS_HEIGHT


def test_death_is_marked_on_the_last_frame(views, surface):
    view = views("greedy10.npz")
    tl = view.timeline
    assert view.replay.outcome == "died" and tl.died
    s = surface(view)
    layout = view.render(s, tl.frames - 1)
    x, y, w, h = layout.cell_box(tl.crash if tl.crash >= 0 else tl.head(tl.frames - 1))
    assert pixel(s, (x, y + h // 2)) == canvas.CRASH
    view.render(s, tl.frames - 2)
    assert pixel(s, (x, y + h // 2)) != canvas.CRASH


def test_overlays_draw_the_cycle_and_the_route(views, surface):
    view = views("cycle10.npz")
    s = surface(view)
    frame = 1000
    plain = view.render(s, frame, frozenset())
    before = pg_array(s)
    view.render(s, frame, {"cycle"})
    with_cycle = pg_array(s)
    assert (with_cycle == np.array(canvas.CYCLE)).all(axis=2).sum() > 0
    assert not (before == np.array(canvas.CYCLE)).all(axis=2).any()
    view.render(s, frame, {"path"})
    route = view.timeline.route(frame)
    assert len(route) > 1
    (xa, ya), (xb, yb) = plain.center(route[0]), plain.center(route[1])
    assert pixel(s, ((xa + xb) // 2, (ya + yb) // 2)) == canvas.PATH


def pg_array(surface):
    from fastsnake.viewer import backend

    return backend.pygame().surfarray.array3d(surface)


def test_summary_names_the_game(views):
    summary = views("greedy10.npz").summary()
    assert summary["kind"] == "snake"
    assert (summary["policy"], summary["outcome"], summary["moves"]) == ("greedy", "died", 189)
    assert summary["frames"] == 190 and summary["cycle"] is False
    assert views("cycle10.npz").summary()["cycle"] is True


@pytest.mark.slow
@pytest.mark.parametrize("name,policy,size", [("greedy10.npz", "greedy", 10), ("cycle10.npz", "cycle", 10),
                                              ("cycle30.npz", "cycle", 30)])
def test_golden_replays_are_current(views, name, policy, size):
    from fastsnake.snake.board import GameConfig
    from fastsnake.snake.replay import play_game

    fresh, _ = play_game(policy, GameConfig(size, size), seed=1)
    old = views(name).replay
    assert np.array_equal(fresh.moves, old.moves) and np.array_equal(fresh.apples, old.apples)
    assert np.array_equal(fresh.body, old.body)
