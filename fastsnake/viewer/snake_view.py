"""Snake replays: the timeline (pure numpy) and its view.

`SnakeTimeline` traces the replay once through the engine and then answers any
frame in O(length): the body after t moves is the last `length[t]` cells of the
head sequence (start body, then the head after each move), so seeking backwards
is as cheap as seeking forwards, whatever the game's length.
"""

from __future__ import annotations

import numpy as np

from fastsnake.snake.engine import DIED
from fastsnake.snake.replay import Replay, trace
from fastsnake.viewer import backend, canvas
from fastsnake.viewer.canvas import BoardView, Layout

_STEP = ((-1, 0), (0, 1), (1, 0), (0, -1))  # moves 0 up, 1 right, 2 down, 3 left


class SnakeTimeline:
    """Every frame of a replay: frame t is the position after t moves."""

    def __init__(self, replay: Replay):
        outcome, count, rec = trace(replay)
        self.replay = replay
        self.rows, self.cols = replay.rows, replay.cols
        moves, heads, lengths, apples = (np.asarray(a[:count]) for a in rec)
        body0 = np.asarray(replay.body, dtype=np.int32)
        self.len0 = len(body0)
        self.frames = count + 1
        self.seq = np.concatenate([body0, heads.astype(np.int32)])
        self.lengths = np.concatenate([[self.len0], lengths]).astype(np.int64)
        first_apple = int(replay.apples[0]) if len(replay.apples) else -1
        self.apples = np.concatenate([[first_apple], apples]).astype(np.int64)
        self.moves = moves.astype(np.int64)
        # A fatal move leaves the head where it was, so the last frame shows the
        # position before it plus the cell the snake ran into (-1: off the board).
        self.died = outcome == DIED and count > 0
        self.crash = -1
        if self.died:
            head = int(self.seq[self.len0 + count - 2]) if count > 1 else int(body0[-1])
            r, c = divmod(head, self.cols)
            dr, dc = _STEP[int(moves[-1])]
            if 0 <= r + dr < self.rows and 0 <= c + dc < self.cols:
                self.crash = (r + dr) * self.cols + c + dc
        grew = np.flatnonzero(np.diff(self.lengths) > 0) + 1
        self.eaten_at = grew  # frames right after an apple was eaten

    def _end(self, t: int) -> int:
        if self.died and t == self.frames - 1:
            t -= 1
        return t

    def body(self, t: int) -> np.ndarray:
        """Body cells after t moves, tail first, head last."""
        t = self._end(t)
        end = self.len0 + t
        return self.seq[end - int(self.lengths[t]) : end]

    def head(self, t: int) -> int:
        return int(self.seq[self.len0 + self._end(t) - 1])

    def apple(self, t: int) -> int:
        return int(self.apples[t])

    def length(self, t: int) -> int:
        return int(self.lengths[t])

    def route(self, t: int) -> np.ndarray:
        """Cells the head goes through from frame t until it eats the next apple."""
        k = int(np.searchsorted(self.eaten_at, t, side="right"))
        stop = int(self.eaten_at[k]) if k < len(self.eaten_at) else self._end(self.frames - 1)
        return self.seq[self.len0 + self._end(t) - 1 : self.len0 + stop]


class SnakeView(BoardView):
    kind = "snake"
    toggles = {"c": "cycle", "p": "path"}

    def __init__(self, replay: Replay, name: str = "replay"):
        self.timeline = SnakeTimeline(replay)
        super().__init__(replay.rows, replay.cols, self.timeline.frames, name)
        self.replay = replay
        self.cycle_cells = None
        if replay.cycle is not None:
            self.cycle_cells = np.argsort(replay.cycle, kind="stable")
        self.overlays = frozenset()

    def draw_board(self, surface, layout: Layout, frame: int, overlays) -> None:
        tl = self.timeline
        low = canvas.blank_grid(self.rows, self.cols)
        body = tl.body(frame)
        r, c = np.divmod(body.astype(np.int64), self.cols)
        shade = canvas.gradient(canvas.BODY_TAIL, canvas.BODY_HEAD, np.linspace(0.0, 1.0, len(body)))
        low[2 * r + 1, 2 * c + 1] = shade
        if len(body) > 1:
            # Colour the gap between consecutive body cells so the snake reads as one piece.
            low[r[1:] + r[:-1] + 1, c[1:] + c[:-1] + 1] = shade[1:]
        low[2 * r[-1] + 1, 2 * c[-1] + 1] = canvas.HEAD
        apple = tl.apple(frame)
        small = layout.cell - layout.gap < 8
        if apple >= 0 and small:
            ar, ac = divmod(apple, self.cols)
            low[2 * ar + 1, 2 * ac + 1] = canvas.APPLE
        canvas.blit_grid(surface, layout, low)
        pg = backend.pygame()
        if apple >= 0 and not small:
            x, y, w, _ = layout.cell_box(apple)
            pg.draw.circle(surface, canvas.APPLE, (x + w // 2, y + w // 2), max(2, w * 2 // 5))
        if "cycle" in overlays and self.cycle_cells is not None:
            canvas.polyline(surface, layout, self.cycle_cells, canvas.CYCLE, max(1, layout.cell // 12), closed=True)
        if "path" in overlays:
            canvas.polyline(surface, layout, tl.route(frame), canvas.PATH, max(1, layout.cell // 6))
        head = tl.head(frame)
        if layout.cell - layout.gap >= 12 and frame < tl.frames - 1:
            self._eyes(surface, layout, head, int(tl.moves[frame]))
        if frame == tl.frames - 1 and tl.died:
            box = tl.crash if tl.crash >= 0 else head
            x, y, w, h = layout.cell_box(box)
            pg.draw.rect(surface, canvas.CRASH, (x, y, w, h), max(1, w // 6))

    def _eyes(self, surface, layout: Layout, head: int, move: int) -> None:
        # Two dots towards the next move, off the cell's centre (tests read the centre).
        x, y, w, _ = layout.cell_box(head)
        dy, dx = _STEP[move]
        cx, cy, q = x + w / 2, y + w / 2, w / 4
        pg = backend.pygame()
        for side in (-1, 1):
            eye = (round(cx + (dx - side * dy) * q), round(cy + (dy + side * dx) * q))
            pg.draw.circle(surface, canvas.BACKGROUND, eye, max(1, w // 12))

    def status(self, frame: int) -> tuple[str, str]:
        tl, rp = self.timeline, self.replay
        last = tl.frames - 1
        apples = tl.length(frame) - tl.len0
        first = f"move {frame:,}/{last:,}   apples {apples:,}   length {tl.length(frame):,}"
        end = f"{rp.outcome} after {last:,} moves" if frame == last else f"ends {rp.outcome}"
        second = f"{rp.policy} · {rp.rows}x{rp.cols} · seed {rp.seed} game {rp.game} · {end}"
        return first, second

    def summary(self) -> dict:
        return dict(super().summary(), **self.replay.summary(), cycle=self.cycle_cells is not None)
