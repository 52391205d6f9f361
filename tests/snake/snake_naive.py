"""Slow, obviously-correct pure-Python references for the Snake kernels."""

from __future__ import annotations

from collections import deque
from itertools import pairwise

MASK = (1 << 64) - 1
GAMMA = 0x9E3779B97F4A7C15
DR = (-1, 0, 1, 0)
DC = (0, 1, 0, -1)


def mix64(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def game_seed(base: int, index: int) -> int:
    return mix64(mix64(base) ^ ((index * GAMMA + GAMMA) & MASK))


class SplitMix:
    def __init__(self, seed: int):
        self.state = seed & MASK

    def next(self) -> int:
        self.state = (self.state + GAMMA) & MASK
        return mix64(self.state)

    def below(self, n: int) -> int:
        """Lemire's exact bounded integer from the top 32 bits of each draw."""
        while True:
            m = (self.next() >> 32) * n
            if (m & 0xFFFFFFFF) >= (2**32 - n) % n:
                return m >> 32


def neighbour(rows, cols, cell, move):
    r, c = divmod(cell, cols)
    r, c = r + DR[move], c + DC[move]
    if 0 <= r < rows and 0 <= c < cols:
        return r * cols + c
    return None


class Game:
    """The rules, written plainly: a deque body and a sorted scan for free cells.

    The apple falls on free[k] where free is kept in the same order as the engine's
    swap-remove list, so both draw the same cell from the same random number.
    """

    def __init__(self, rows, cols, body, tail_rule="follow", max_moves=None, seed=0, apples=None):
        self.rows, self.cols = rows, cols
        self.body = deque(body)  # tail first
        self.tail_rule = tail_rule
        self.max_moves = max_moves if max_moves is not None else (rows * cols) ** 2
        self.rng = SplitMix(seed)
        self.listed = list(apples) if apples is not None else None
        self.moves = 0
        self.eaten = 0
        self.outcome = "running"
        occupied = set(self.body)
        self.free = [c for c in range(rows * cols) if c not in occupied]
        self.apple = None
        if not self.free:
            self.outcome = "won"
        else:
            self.apple = self._next_apple()

    def _next_apple(self):
        if self.listed is not None:
            if self.eaten >= len(self.listed):
                raise ValueError("apple list ran out")
            cell = self.listed[self.eaten]
            if cell in self.body:
                raise ValueError("listed apple on the snake")
            return cell
        return self.free[self.rng.below(len(self.free))]

    def _swap_remove(self, cell):
        i = self.free.index(cell)
        self.free[i] = self.free[-1]
        self.free.pop()

    def step(self, move):
        assert self.outcome == "running"
        self.moves += 1
        head = self.body[-1]
        target = neighbour(self.rows, self.cols, head, move)
        if target is None:
            self.outcome = "died"
            return
        if target == self.apple:
            self.body.append(target)
            self._swap_remove(target)
            self.eaten += 1
            if not self.free:
                self.apple = None
                self.outcome = "won"
                return
            self.apple = self._next_apple()
        else:
            tail = self.body[0]
            enters_leaving_tail = target == tail and self.tail_rule == "follow"
            if target in self.body and not enters_leaving_tail:
                self.outcome = "died"
                return
            self.body.popleft()
            self.body.append(target)
            if target != tail:
                self.free[self.free.index(target)] = tail
        if self.moves >= self.max_moves:
            self.outcome = "stuck"


def check_replay(rows, cols, body, moves, apples, outcome, tail_rule):
    """Independent re-play: moves legal, no collision, apples only on empty cells,
    'won' only with a full board. Returns None or the first problem found."""
    n = rows * cols
    snake = deque(int(c) for c in body)
    if len(set(snake)) != len(snake):
        return "start body repeats a cell"
    for a, b in pairwise(snake):
        if abs(a // cols - b // cols) + abs(a % cols - b % cols) != 1:
            return "start body not connected"
    apples = [int(a) for a in apples]
    if not apples:
        return "no apple"
    if apples[0] in snake:
        return "first apple on the snake"
    k = 0
    result = "running"
    for t, move in enumerate(int(m) for m in moves):
        if result != "running":
            return f"moves continue after the game ended at move {t}"
        target = neighbour(rows, cols, snake[-1], move)
        if target is None:
            result = "died"
            continue
        if target == apples[k]:
            snake.append(target)
            k += 1
            if len(snake) == n:
                result = "won"
            else:
                if k >= len(apples):
                    return f"apple list ends at move {t}"
                if apples[k] in snake:
                    return f"apple {apples[k]} dropped on the snake at move {t}"
            continue
        tail = snake[0]
        if target in snake and not (target == tail and tail_rule == "follow"):
            result = "died"
            continue
        snake.popleft()
        snake.append(target)
    if result == "running":
        result = "stuck"
    if result == "won" and len(snake) != n:
        return "won without a full board"
    if result != outcome:
        return f"re-play ends {result!r}, file says {outcome!r}"
    if result != "won" and k != len(apples) - 1:
        return "unused apples listed"
    return None


def is_hamiltonian_cycle(cells, rows, cols) -> bool:
    n = rows * cols
    cells = [int(c) for c in cells]
    if sorted(cells) != list(range(n)):
        return False
    for k in range(n):
        a, b = cells[k], cells[(k + 1) % n]
        if abs(a // cols - b // cols) + abs(a % cols - b % cols) != 1:
            return False
    return True


def bfs_path_length(rows, cols, passable, start, goal):
    """Shortest path length start->goal with a per-edge predicate passable(frm, to); -1 if none."""
    if start == goal:
        return 0
    seen = {start}
    queue = deque([(start, 0)])
    while queue:
        cell, d = queue.popleft()
        for move in range(4):
            nxt = neighbour(rows, cols, cell, move)
            if nxt is None or nxt in seen or not passable(cell, nxt):
                continue
            if nxt == goal:
                return d + 1
            seen.add(nxt)
            queue.append((nxt, d + 1))
    return -1


def bfs_distance(rows, cols, blocked, start, goal):
    """Shortest path length start->goal avoiding blocked cells (start/goal may be free)."""
    return bfs_path_length(rows, cols, lambda frm, to: to not in blocked, start, goal)


def region_size(rows, cols, blocked, start):
    seen = {start}
    queue = deque([start])
    while queue:
        cell = queue.popleft()
        for move in range(4):
            nxt = neighbour(rows, cols, cell, move)
            if nxt is not None and nxt not in seen and nxt not in blocked:
                seen.add(nxt)
                queue.append(nxt)
    return len(seen)


def check(replay):
    """`check_replay` of a fastsnake Replay object."""
    return check_replay(replay.rows, replay.cols, replay.body, replay.moves, replay.apples,
                        replay.outcome, replay.tail_rule)
