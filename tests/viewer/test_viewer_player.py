"""The event loop driven by synthetic key events."""

import pytest

from fastsnake.viewer.backend import ViewerError
from fastsnake.viewer.player import MAX_SPEED, MIN_SPEED, SPEEDS, Player, run_window


def key(pg, name):
    return pg.event.Event(pg.KEYDOWN, key=getattr(pg, f"K_{name}"), mod=0, unicode="", scancode=0)


def press(player, pg, *names, surface=None):
    for name in names:
        player.handle(key(pg, name), surface)


def test_step_back_and_ends(views, pg):
    p = Player(views("greedy10.npz"))
    press(p, pg, "RIGHT", "RIGHT", "RIGHT")
    assert p.frame == 3
    press(p, pg, "LEFT")
    assert p.frame == 2
    press(p, pg, "LEFT", "LEFT", "LEFT")
    assert p.frame == 0  # clamped
    press(p, pg, "END")
    assert p.frame == p.last == 189
    press(p, pg, "RIGHT")
    assert p.frame == 189
    press(p, pg, "HOME")
    assert p.frame == 0


def test_stepping_back_through_a_long_game(views, pg, surface):
    view = views("cycle30.npz")
    p = Player(view)
    s = surface(view)
    press(p, pg, "END")
    for k in range(1, 301):
        press(p, pg, "LEFT")
        p.render(s)
        assert p.frame == p.last - k
    assert view.timeline.length(p.frame) == len(view.timeline.body(p.frame))


def test_play_advances_speed_times_seconds_and_stops_at_the_end(views, pg):
    p = Player(views("greedy10.npz"), speed=20)
    press(p, pg, "SPACE")
    assert p.playing
    p.tick(0.5)
    assert p.frame == 10
    p.tick(0.025)
    p.tick(0.025)
    assert p.frame == 11  # fractions of a move carry over
    press(p, pg, "SPACE")
    p.tick(10.0)
    assert p.frame == 11 and not p.playing
    press(p, pg, "SPACE")
    p.tick(100.0)
    assert p.frame == p.last and not p.playing
    press(p, pg, "SPACE")  # at the end, play starts over
    assert p.playing and p.frame == 0


def test_frame_skipping_at_top_speed(views, pg):
    p = Player(views("cycle30.npz"), speed=MAX_SPEED)
    press(p, pg, "SPACE")
    p.tick(1 / 60)
    assert p.frame == MAX_SPEED // 60
    press(p, pg, "RIGHT")
    assert not p.playing


def test_speed_keys_walk_the_ladder_within_bounds(views, pg):
    p = Player(views("greedy10.npz"), speed=1)
    seen = [p.speed]
    for _ in range(len(SPEEDS) + 2):
        press(p, pg, "UP")
        seen.append(p.speed)
    assert seen[: len(SPEEDS)] == list(SPEEDS) and seen[-1] == MAX_SPEED
    for _ in range(len(SPEEDS) + 2):
        press(p, pg, "DOWN")
    assert p.speed == MIN_SPEED
    p = Player(views("greedy10.npz"), speed=30)
    press(p, pg, "UP")
    assert p.speed == 50
    with pytest.raises(ViewerError, match="10001"):
        Player(views("greedy10.npz"), speed=10_001)


def test_overlay_toggles(views, pg):
    p = Player(views("cycle10.npz"))
    press(p, pg, "c")
    assert p.overlays == {"cycle"}
    press(p, pg, "p")
    assert p.overlays == {"cycle", "path"}
    press(p, pg, "c", "p")
    assert p.overlays == set()


def test_screenshot_and_quit(views, pg, surface, tmp_path):
    view = views("greedy10.npz")
    p = Player(view, shots_dir=tmp_path, stem="g")
    press(p, pg, "RIGHT", "RIGHT")
    press(p, pg, "s", surface=surface(view))
    assert [x.name for x in p.shots] == ["g-000002.png"]
    assert pg.image.load(str(p.shots[0])).get_size() == surface(view).get_size()
    assert "saved" in p.note()
    press(p, pg, "q")
    assert p.quit
    p = Player(view)
    press(p, pg, "ESCAPE")
    assert p.quit
    p = Player(view)
    p.handle(pg.event.Event(pg.QUIT))
    assert p.quit


def test_window_loop_with_posted_events(views, pg, tmp_path):
    view = views("cycle10.npz")
    pg.display.init()
    try:
        for name in ("RIGHT", "RIGHT", "RIGHT", "LEFT", "c", "s", "q"):
            pg.event.post(key(pg, name))
        player = run_window(view, shots_dir=tmp_path, stem="c")
    finally:
        pg.display.quit()
    assert player.quit and player.frame == 2 and player.overlays == {"cycle"}
    assert [x.name for x in player.shots] == ["c-000002.png"]
