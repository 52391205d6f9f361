"""Leaper tours (visit order and jump lines, step by step) and reach sets (squares by jump count)."""

from __future__ import annotations

import numpy as np

from fastsnake.viewer import canvas
from fastsnake.viewer.canvas import BoardView, Layout


def _chequer(rows: int, cols: int) -> np.ndarray:
    low = canvas.blank_grid(rows, cols)
    r, c = np.indices((rows, cols))
    canvas.cells_of(low)[(r + c) % 2 == 1] = canvas.DARK
    canvas.cells_of(low)[(r + c) % 2 == 0] = canvas.LIGHT
    return low


def _square(cell: int, rows: int, cols: int) -> str:
    r, c = divmod(int(cell), cols)
    return f"{chr(ord('a') + c)}{rows - r}" if cols <= 26 else f"{r},{c}"


class TourView(BoardView):
    """Frame k: the first k+1 squares of the tour visited, with the k jumps between them."""

    kind = "tour"
    max_cell = 64
    toggles = {"p": "path"}

    def __init__(self, tour: dict, name: str = "tour"):
        self.tour = tour
        self.path = tour.get("path")
        if self.path is None:
            self.path = np.empty(0, dtype=np.int32)
        super().__init__(tour["rows"], tour["cols"], max(1, len(self.path)), name)
        self.overlays = frozenset({"path"})
        order = np.full(self.rows * self.cols, -1, dtype=np.int64)
        order[self.path] = np.arange(len(self.path))
        self.order = order
        self.shade = canvas.gradient(canvas.VISIT_OLD, canvas.VISIT_NEW,
                                     np.linspace(0.0, 1.0, max(len(self.path), 1)))

    def draw_board(self, surface, layout: Layout, frame: int, overlays) -> None:
        low = _chequer(self.rows, self.cols)
        if len(self.path) == 0:
            canvas.paint(low, self.tour["start"], canvas.CURRENT)
            canvas.blit_grid(surface, layout, low)
            return
        seen = self.path[: frame + 1]
        canvas.paint(low, seen, self.shade[: frame + 1])
        canvas.paint(low, seen[-1], canvas.CURRENT)
        canvas.blit_grid(surface, layout, low)
        if "path" in overlays:
            closed = bool(self.tour.get("closed")) and frame == self.frames - 1
            canvas.polyline(surface, layout, seen, canvas.JUMP, max(1, layout.cell // 16), closed=closed)
        canvas.numbers(surface, layout, seen, range(1, len(seen) + 1), canvas.TEXT)

    def status(self, frame: int) -> tuple[str, str]:
        t = self.tour
        piece = t.get("piece") or "piece"
        board = f"{piece} on {self.rows}x{self.cols} from {_square(t['start'], self.rows, self.cols)}"
        if len(self.path) == 0:
            reason = t.get("reason") or ("no tour exists" if t.get("exists") is False else "no tour found")
            return f"no tour: {reason}", board
        kind = "closed" if t.get("closed") else "open"
        here = _square(self.path[frame], self.rows, self.cols)
        first = f"square {frame + 1:,}/{len(self.path):,}   at {here}"
        second = f"{board} · {kind} tour" + (f" · {t['method']}" if t.get("method") else "")
        return first, second

    def summary(self) -> dict:
        t = self.tour
        return dict(super().summary(), found=bool(len(self.path)), closed=bool(t.get("closed")),
                    piece=t.get("piece"), start=int(t["start"]))


class ReachView(BoardView):
    """Frame k: every square within k jumps, coloured by its jump count; the last frame
    dims the squares outside the file's answer set (reached in exactly n jumps)."""

    kind = "reach"
    max_cell = 64

    def __init__(self, reach: dict, name: str = "reach"):
        from fastsnake.tour.board import distances

        self.reach = reach
        rows, cols = reach["rows"], reach["cols"]
        canvas.check_side(rows, cols, name)  # before the BFS allocates for the board
        self.dist = distances(rows, cols, np.asarray(reach["jumps"], dtype=np.int64), int(reach["start"]))
        self.cells = np.asarray(reach["cells"], dtype=np.int64)
        far = int(self.dist.max())
        # Every answer square (exact distance n, or a walk of n) lies within min(n, far) jumps.
        super().__init__(rows, cols, min(int(reach["n"]), far) + 1, name)
        self.shade = canvas.gradient(canvas.REACH_NEAR, canvas.REACH_FAR, np.linspace(0.0, 1.0, far + 1))
        self.answer = np.zeros(rows * cols, dtype=bool)
        self.answer[self.cells] = True

    def draw_board(self, surface, layout: Layout, frame: int, overlays) -> None:
        low = _chequer(self.rows, self.cols)
        cells = canvas.cells_of(low)  # a (R, C, 3) view: boolean masks of (R, C) write through
        near = ((self.dist >= 0) & (self.dist <= frame)).reshape(self.rows, self.cols)
        cells[near] = self.shade[self.dist.reshape(self.rows, self.cols)[near]]
        if frame == self.frames - 1:
            dim = ~self.answer.reshape(self.rows, self.cols)
            cells[dim] = (cells[dim] * 0.35).astype(np.uint8)
        canvas.blit_grid(surface, layout, low)
        where = np.flatnonzero(near.ravel())
        if len(where) <= 4096:
            canvas.numbers(surface, layout, where, self.dist[where].tolist(), canvas.BACKGROUND)

    def status(self, frame: int) -> tuple[str, str]:
        r = self.reach
        within = int(np.count_nonzero((self.dist >= 0) & (self.dist <= frame)))
        first = f"within {frame} jump{'s' if frame != 1 else ''}: {within:,} squares"
        mode = "walks of exactly" if r.get("walk") else "shortest distance exactly"
        second = (f"{r.get('piece') or 'piece'} on {self.rows}x{self.cols} from "
                  f"{_square(r['start'], self.rows, self.cols)} · {mode} {r['n']}: {len(self.cells):,} squares")
        return first, second

    def summary(self) -> dict:
        r = self.reach
        return dict(super().summary(), n=int(r["n"]), walk=bool(r.get("walk")), count=int(len(self.cells)),
                    piece=r.get("piece"), start=int(r["start"]))
