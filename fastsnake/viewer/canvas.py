"""Board geometry, colours and the drawing every view shares.

A board is drawn from a low-resolution colour grid of (2R+1) x (2C+1) pixels:
odd rows/columns are cells, even ones the gaps between them (the grid lines).
`Layout.upscale` blows it up with per-index repeats (cells `cell - gap` pixels,
gaps `gap` pixels), so a whole frame is a few numpy operations however large the
board, and a gap can take a cell's colour to join two cells (a snake's body).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Colours (RGB), shared with the browser report: one home, `fastsnake.palette`. Tests read pixels against these.
from fastsnake.palette import (  # noqa: F401
    APPLE,
    BACKGROUND,
    BODY_HEAD,
    BODY_TAIL,
    CRASH,
    CURRENT,
    CYCLE,
    DARK,
    EMPTY,
    GRID,
    HEAD,
    JUMP,
    LIGHT,
    PATH,
    REACH_FAR,
    REACH_NEAR,
    STATUS_BG,
    TARGET,
    TEXT,
    TEXT_DIM,
    TILE,
    TILE_HOME,
    TILE_MOVED,
    VISIT_NEW,
    VISIT_OLD,
)
from fastsnake.viewer import backend

STATUS_FONT = 20
STATUS_LINE = 22
STATUS_HEIGHT = 2 * STATUS_LINE + 10
MIN_WIDTH = 520
DEFAULT_BOARD_PIXELS = 760
MAX_VIEW_SIDE = 800  # one pixel a cell at the least; a bigger board does not fit a screen


def gap_for(cell: int) -> int:
    return 0 if cell < 5 else max(1, cell // 10)


@dataclass(frozen=True)
class Layout:
    """Where the board sits in a surface: cell pitch, gap, offsets, status bar."""

    rows: int
    cols: int
    cell: int  # pitch in pixels (cell plus one gap)
    gap: int
    ox: int
    oy: int
    width: int
    height: int

    @classmethod
    def fit(cls, rows: int, cols: int, width: int, height: int) -> "Layout":
        board_h = max(1, height - STATUS_HEIGHT)
        cell = max(1, min(width // cols, board_h // rows))
        while cell > 1 and (cols * cell + gap_for(cell) > width or rows * cell + gap_for(cell) > board_h):
            cell -= 1
        gap = gap_for(cell)
        bw, bh = cols * cell + gap, rows * cell + gap
        return cls(rows, cols, cell, gap, max(0, (width - bw) // 2), max(0, (board_h - bh) // 2), width, height)

    @property
    def board_size(self) -> tuple[int, int]:
        return self.cols * self.cell + self.gap, self.rows * self.cell + self.gap

    def cell_box(self, cell: int) -> tuple[int, int, int, int]:
        """(x, y, w, h) of the coloured part of `cell` (gaps excluded)."""
        r, c = divmod(int(cell), self.cols)
        inner = self.cell - self.gap
        return self.ox + c * self.cell + self.gap, self.oy + r * self.cell + self.gap, inner, inner

    def center(self, cell: int) -> tuple[int, int]:
        x, y, w, h = self.cell_box(cell)
        return x + w // 2, y + h // 2

    def centers(self, cells: np.ndarray) -> np.ndarray:
        """(k, 2) pixel centres of an array of cells, for polylines."""
        r, c = np.divmod(np.asarray(cells, dtype=np.int64), self.cols)
        half = self.gap + (self.cell - self.gap) // 2
        return np.stack([self.ox + c * self.cell + half, self.oy + r * self.cell + half], axis=1)

    def upscale(self, low: np.ndarray) -> np.ndarray:
        """(2R+1, 2C+1, 3) colour grid -> (H, W) packed 0xRRGGBB pixels."""
        inner = self.cell - self.gap
        packed = (low[..., 0].astype(np.uint32) << 16) | (low[..., 1].astype(np.uint32) << 8) | low[..., 2]
        reps_r = np.where(np.arange(2 * self.rows + 1) % 2 == 1, inner, self.gap)
        reps_c = np.where(np.arange(2 * self.cols + 1) % 2 == 1, inner, self.gap)
        return np.repeat(np.repeat(packed, reps_r, axis=0), reps_c, axis=1)


def window_size(rows: int, cols: int, cell: int | None = None, max_cell: int = 48) -> tuple[int, int]:
    """A window that shows the board at `cell` pixels a cell (default: about 760 px a side)."""
    if cell is None:
        cell = max(1, min(max_cell, DEFAULT_BOARD_PIXELS // max(rows, cols)))
    gap = gap_for(cell)
    return max(cols * cell + gap + 2, MIN_WIDTH), rows * cell + gap + 2 + STATUS_HEIGHT


def blank_grid(rows: int, cols: int, cell=EMPTY, gap=GRID) -> np.ndarray:
    low = np.empty((2 * rows + 1, 2 * cols + 1, 3), dtype=np.uint8)
    low[:] = gap
    low[1::2, 1::2] = cell
    return low


def cells_of(low: np.ndarray) -> np.ndarray:
    """The (R, C, 3) cell part of a low-resolution grid (a view)."""
    return low[1::2, 1::2]


def paint(low: np.ndarray, cells, colors) -> None:
    """Colour flat cell indices `cells` (one colour, or one per cell) in a low-resolution grid."""
    r, c = np.divmod(np.asarray(cells, dtype=np.int64), (low.shape[1] - 1) // 2)
    low[2 * r + 1, 2 * c + 1] = colors


def gradient(a, b, t: np.ndarray) -> np.ndarray:
    """Colours from a (t=0) to b (t=1), as (k, 3) uint8."""
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    t = np.asarray(t, dtype=np.float64)[:, None]
    return np.rint(a + (b - a) * t).astype(np.uint8)


_scratch: dict[tuple[int, int], object] = {}


def blit_grid(surface, layout: Layout, low: np.ndarray) -> None:
    pg = backend.pygame()
    pixels = layout.upscale(low)
    if pixels.size == 0:
        return
    size = (pixels.shape[1], pixels.shape[0])
    image = _scratch.get(size)
    if image is None:
        # A 32-bit 0xRRGGBB surface takes the packed pixels as they are (no per-channel copy).
        _scratch.clear()
        image = _scratch[size] = pg.Surface(size, depth=32, masks=(0xFF0000, 0xFF00, 0xFF, 0))
    pg.surfarray.blit_array(image, pixels.T)
    surface.blit(image, (layout.ox, layout.oy))


def numbers(surface, layout: Layout, cells, labels, color=TEXT) -> None:
    """Write `labels` centred in `cells` when the cells are big enough to read them."""
    inner = layout.cell - layout.gap
    if inner < 16 or len(cells) == 0:
        return
    digits = max(len(str(x)) for x in labels)
    size = int(min(inner * 0.55, inner * 1.7 / max(digits, 1)))
    if size < 10:
        return
    for cell, label in zip(cells, labels, strict=True):
        text(surface, str(label), layout.center(cell), size, color, center=True)


def polyline(surface, layout: Layout, cells, color, width: int | None = None, closed: bool = False) -> None:
    if len(cells) < 2:
        return
    pg = backend.pygame()
    if width is None:
        width = max(1, layout.cell // 8)
    points = layout.centers(cells).tolist()
    pg.draw.lines(surface, color, closed, points, width)


_text_cache: dict[tuple, object] = {}


def text(surface, message: str, pos, size: int, color=TEXT, center: bool = False) -> None:
    key = (message, size, color)
    image = _text_cache.get(key)
    if image is None:
        if len(_text_cache) > 4096:
            _text_cache.clear()
        image = backend.font(size).render(message, True, color)
        _text_cache[key] = image
    if center:
        pos = (pos[0] - image.get_width() // 2, pos[1] - image.get_height() // 2)
    surface.blit(image, pos)


def check_side(rows: int, cols: int, name: str) -> None:
    if max(rows, cols) > MAX_VIEW_SIDE:
        raise backend.ViewerError(f"{name!r}: board {rows}x{cols} is too large to draw "
                                  f"(at most {MAX_VIEW_SIDE} a side)")


class BoardView:
    """One file shown as a sequence of frames on a board.

    Subclasses set `kind`, `rows`, `cols`, `frames` and implement `draw_board`,
    `status` (two lines) and `summary`. `toggles` maps a key ('c', 'p') to an
    overlay name the view knows how to draw; `overlays` are the ones on at start.
    """

    kind = "board"
    max_cell = 48  # default pixels a cell at most (small boards)
    toggles: dict[str, str] = {}
    overlays: frozenset = frozenset()

    def __init__(self, rows: int, cols: int, frames: int, name: str):
        check_side(rows, cols, name)
        self.rows = rows
        self.cols = cols
        self.frames = max(1, int(frames))
        self.name = name

    def draw_board(self, surface, layout: Layout, frame: int, overlays) -> None:
        raise NotImplementedError

    def status(self, frame: int) -> tuple[str, str]:
        raise NotImplementedError

    def summary(self) -> dict:
        return {"kind": self.kind, "rows": self.rows, "cols": self.cols, "frames": self.frames}

    def window_size(self, cell: int | None = None) -> tuple[int, int]:
        return window_size(self.rows, self.cols, cell, self.max_cell)

    def render(self, surface, frame: int, overlays=None, note: str = "") -> Layout:
        """Draw frame `frame` (clamped) with the given overlays into `surface`."""
        frame = min(max(int(frame), 0), self.frames - 1)
        overlays = self.overlays if overlays is None else overlays
        width, height = surface.get_size()
        layout = Layout.fit(self.rows, self.cols, width, height)
        surface.fill(BACKGROUND)
        self.draw_board(surface, layout, frame, overlays)
        top = height - STATUS_HEIGHT
        surface.fill(STATUS_BG, (0, top, width, STATUS_HEIGHT))
        first, second = self.status(frame)
        if note:
            second = f"{second}  ·  {note}" if second else note
        text(surface, first, (8, top + 5), STATUS_FONT, TEXT)
        text(surface, second, (8, top + 5 + STATUS_LINE), STATUS_FONT, TEXT_DIM)
        return layout
