"""Playback state and the window's event loop.

`Player` is the whole interactive state (frame, play/pause, speed, overlays) and
reacts to pygame events; it never touches the display, so tests drive it with
synthetic events. `run_window` is the thin loop that feeds it real events and
draws a frame only when something on screen changed.
"""

from __future__ import annotations

from pathlib import Path

from fastsnake.viewer import backend
from fastsnake.viewer.backend import ViewerError

SPEEDS = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000)
MIN_SPEED, MAX_SPEED = SPEEDS[0], SPEEDS[-1]
NOTE_SECONDS = 2.5


def check_speed(speed) -> int:
    speed = int(speed)
    if not MIN_SPEED <= speed <= MAX_SPEED:
        raise ViewerError(f"speed {speed} is outside {MIN_SPEED}..{MAX_SPEED} moves/s")
    return speed


class Player:
    def __init__(self, view, speed: int = 20, shots_dir=".", stem: str = "fastsnake"):
        self.view = view
        self.frame = 0
        self.playing = False
        self.speed = check_speed(speed)
        self.overlays = set(view.overlays)
        self.quit = False
        self.shots_dir = Path(shots_dir)
        self.stem = stem
        self.shots: list[Path] = []
        self._carry = 0.0
        self._clock = 0.0
        self._note = ""
        self._note_until = 0.0

    @property
    def last(self) -> int:
        return self.view.frames - 1

    def seek(self, frame: int) -> None:
        self.frame = min(max(int(frame), 0), self.last)
        self._carry = 0.0

    def say(self, message: str) -> None:
        self._note = message
        self._note_until = self._clock + NOTE_SECONDS

    def note(self) -> str:
        state = "playing" if self.playing else "paused"
        base = f"{state} {self.speed:,} moves/s"
        if self._note and self._clock < self._note_until:
            return f"{base} · {self._note}"
        return base

    def handle(self, event, surface=None) -> None:
        pg = backend.pygame()
        if event.type == pg.QUIT:
            self.quit = True
            return
        if event.type != pg.KEYDOWN:
            return
        key = event.key
        if key in (pg.K_q, pg.K_ESCAPE):
            self.quit = True
        elif key == pg.K_SPACE:
            if not self.playing and self.frame >= self.last:
                self.seek(0)  # play again from the start
            self.playing = not self.playing
            self._carry = 0.0
        elif key == pg.K_RIGHT:
            self.playing = False
            self.seek(self.frame + 1)
        elif key == pg.K_LEFT:
            self.playing = False
            self.seek(self.frame - 1)
        elif key == pg.K_UP:
            self.speed = next((s for s in SPEEDS if s > self.speed), MAX_SPEED)
        elif key == pg.K_DOWN:
            self.speed = next((s for s in reversed(SPEEDS) if s < self.speed), MIN_SPEED)
        elif key == pg.K_HOME:
            self.seek(0)
        elif key == pg.K_END:
            self.playing = False
            self.seek(self.last)
        elif key in (pg.K_c, pg.K_p):
            self._toggle(pg.key.name(key))
        elif key == pg.K_s and surface is not None:
            self.screenshot(surface)

    def _toggle(self, key: str) -> None:
        overlay = self.view.toggles.get(key)
        if overlay is None:
            self.say(f"'{key}' does nothing for this file")
        elif overlay in self.overlays:
            self.overlays.discard(overlay)
            self.say(f"{overlay} off")
        else:
            self.overlays.add(overlay)
            self.say(f"{overlay} on")

    def tick(self, seconds: float) -> None:
        """Advance the clock; while playing, move on speed x seconds frames (skipping draws)."""
        self._clock += seconds
        if not self.playing:
            return
        self._carry += seconds * self.speed
        steps = int(self._carry)
        self._carry -= steps
        if steps:
            self.frame = min(self.frame + steps, self.last)
        if self.frame >= self.last:
            self.playing = False

    def render(self, surface):
        return self.view.render(surface, self.frame, self.overlays, self.note())

    def screenshot(self, surface) -> Path:
        pg = backend.pygame()
        self.render(surface)
        path = self.shots_dir / f"{self.stem}-{self.frame:06d}.png"
        try:
            pg.image.save(surface, str(path))
        except (pg.error, OSError) as exc:
            self.say(f"screenshot failed: {exc}")
            return path
        self.shots.append(path)
        self.say(f"saved {path}")
        return path


def run_window(view, *, speed: int = 20, cell: int | None = None, shots_dir=".", stem: str = "fastsnake",
               fps: int = 60, play: bool = False, overlays=None) -> Player:
    """Show `view` in a resizable window until q, Esc or the window is closed."""
    pg = backend.pygame()
    player = Player(view, speed, shots_dir, stem)
    player.playing = play
    if overlays is not None:
        player.overlays = set(overlays)
    try:
        pg.display.init()
        screen = pg.display.set_mode(view.window_size(cell), pg.RESIZABLE)
    except pg.error as exc:
        raise ViewerError(f"cannot open a window ({exc}); export the frames to a file instead") from None
    pg.display.set_caption(f"fastsnake view · {view.name}")
    pg.key.set_repeat(250, 25)
    clock = pg.time.Clock()
    shown = None
    try:
        while not player.quit:
            for event in pg.event.get():
                if event.type == pg.VIDEORESIZE:
                    screen = pg.display.get_surface()
                    shown = None
                player.handle(event, screen)
            player.tick(clock.tick(fps) / 1000.0)
            state = (player.frame, frozenset(player.overlays), player.note(), screen.get_size())
            if state != shown:
                player.render(screen)
                pg.display.flip()
                shown = state
    finally:
        pg.display.quit()
    return player
