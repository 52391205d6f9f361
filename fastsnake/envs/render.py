"""Frames of an environment's position, drawn with the viewer's colours and grid.

`frame` builds the viewer's low-resolution colour grid (cells and the gaps
between them, the body joined through its gaps, shaded tail to head) and blows
it up with `canvas.Layout.upscale`: plain numpy, so ``rgb_array`` needs no
pygame. ``human`` shows the same frames in a pygame window with a status line.
"""

from __future__ import annotations

import numpy as np

from fastsnake.viewer import canvas

MAX_FRAME_PIXELS = 512  # a frame's longer side, about (small boards get at most 32 px a cell)


def cell_pitch(rows: int, cols: int) -> int:
    return max(2, min(32, MAX_FRAME_PIXELS // max(rows, cols)))


def frame(rows: int, cols: int, body: np.ndarray, apple: int, crash: int = -1) -> np.ndarray:
    """(H, W, 3) uint8 picture of a position: `body` tail first, head last; `apple` -1 for none;
    `crash` the cell a fatal move ran into (-1: none; the head when it left the board)."""
    low = canvas.blank_grid(rows, cols)
    body = np.asarray(body, dtype=np.int64)
    r, c = np.divmod(body, cols)
    shade = canvas.gradient(canvas.BODY_TAIL, canvas.BODY_HEAD, np.linspace(0.0, 1.0, len(body)))
    low[2 * r + 1, 2 * c + 1] = shade
    if len(body) > 1:
        low[r[1:] + r[:-1] + 1, c[1:] + c[:-1] + 1] = shade[1:]
    low[2 * r[-1] + 1, 2 * c[-1] + 1] = canvas.HEAD
    if apple >= 0:
        canvas.paint(low, [apple], canvas.APPLE)
    if crash >= 0:
        canvas.paint(low, [crash], canvas.CRASH)
    pitch = cell_pitch(rows, cols)
    layout = canvas.Layout(rows, cols, pitch, canvas.gap_for(pitch), 0, 0, 0, 0)
    packed = layout.upscale(low)
    rgb = np.empty(packed.shape + (3,), np.uint8)
    rgb[..., 0] = packed >> 16
    rgb[..., 1] = (packed >> 8) & 0xFF
    rgb[..., 2] = packed & 0xFF
    return rgb


class Window:
    """A pygame window showing frames with a status line (render_mode "human")."""

    def __init__(self, title: str, fps: int):
        from fastsnake.viewer import backend

        self.pg = backend.pygame()
        self.title = title
        self.fps = fps
        self.screen = None
        self.clock = None

    def show(self, rgb: np.ndarray, status: str) -> None:
        pg = self.pg
        height, width = rgb.shape[:2]
        window_width = max(width, 320)
        size = (window_width, height + canvas.STATUS_LINE + 8)
        if self.screen is None or self.screen.get_size() != size:
            pg.display.init()
            pg.display.set_caption(self.title)
            self.screen = pg.display.set_mode(size)
            self.clock = pg.time.Clock()
        pg.event.pump()
        self.screen.fill(canvas.BACKGROUND)
        self.screen.blit(pg.surfarray.make_surface(rgb.swapaxes(0, 1)), ((window_width - width) // 2, 0))
        canvas.text(self.screen, status, (6, height + 4), canvas.STATUS_FONT, canvas.TEXT)
        pg.display.flip()
        self.clock.tick(self.fps)

    def close(self) -> None:
        if self.screen is not None:
            self.pg.display.quit()
            self.screen = None
