"""Sliding-puzzle solutions: the board after each blank move."""

from __future__ import annotations

import numpy as np

from fastsnake.viewer import canvas
from fastsnake.viewer.canvas import BoardView, Layout


class PuzzleView(BoardView):
    kind = "puzzle"
    max_cell = 120

    def __init__(self, solution, name: str = "solution"):
        self.solution = solution
        self.states = np.array(solution.states(), dtype=np.int64)  # (moves + 1, cells); boards are <= 36 cells
        super().__init__(solution.rows, solution.cols, len(self.states), name)
        self.goal = np.asarray(solution.goal, dtype=np.int64)

    def tiles(self, frame: int) -> np.ndarray:
        return self.states[frame]

    def moved(self, frame: int) -> int:
        """The cell of the tile that slid into place on move `frame` (-1 on frame 0)."""
        if frame == 0:
            return -1
        return int(np.flatnonzero(self.states[frame - 1] == 0)[0])

    def draw_board(self, surface, layout: Layout, frame: int, overlays) -> None:
        board = self.tiles(frame)
        low = canvas.blank_grid(self.rows, self.cols)
        tile = board != 0
        canvas.paint(low, np.flatnonzero(tile), canvas.TILE)
        canvas.paint(low, np.flatnonzero(tile & (board == self.goal)), canvas.TILE_HOME)
        moved = self.moved(frame)
        if moved >= 0:
            canvas.paint(low, moved, canvas.TILE_MOVED)
        canvas.blit_grid(surface, layout, low)
        where = np.flatnonzero(tile)
        canvas.numbers(surface, layout, where, board[where].tolist())

    def status(self, frame: int) -> tuple[str, str]:
        sol = self.solution
        last = self.frames - 1
        move = f"   last move {sol.moves[frame - 1]}" if frame else ""
        first = f"move {frame}/{last}{move}"
        how = " ".join(str(x) for x in (sol.algorithm, sol.heuristic) if x)
        optimal = {True: "optimal", False: "not proven optimal"}.get(sol.optimal, "")
        second = " · ".join(x for x in (f"{sol.rows}x{sol.cols} puzzle", how, optimal) if x)
        if frame == last:
            second += " · solved"
        return first, second

    def summary(self) -> dict:
        sol = self.solution
        return dict(super().summary(), moves=len(sol.moves), optimal=sol.optimal, algorithm=sol.algorithm,
                    heuristic=sol.heuristic)
