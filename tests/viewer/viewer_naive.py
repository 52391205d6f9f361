"""Slow, obviously-correct references for the viewer tests (no engine code)."""

from __future__ import annotations

from collections import deque

STEP = {0: (-1, 0), 1: (0, 1), 2: (1, 0), 3: (0, -1)}


def positions(rows, cols, body, moves, apples, tail_rule, wanted=None):
    """{frame: (body tuple tail->head, apple or None)} for the frames in `wanted` (default all).

    Frame t is the position after t moves; a fatal move leaves the position as it was.
    """
    snake = deque(int(c) for c in body)
    occupied = set(snake)
    apples = [int(a) for a in apples]
    eaten = 0
    apple = apples[0] if apples else None
    last = len(moves)
    wanted = set(range(last + 1)) if wanted is None else set(wanted)
    out = {}
    if 0 in wanted:
        out[0] = (tuple(snake), apple)
    for t, move in enumerate(moves, start=1):
        r, c = divmod(snake[-1], cols)
        dr, dc = STEP[int(move)]
        r, c = r + dr, c + dc
        if 0 <= r < rows and 0 <= c < cols:
            target = r * cols + c
            if target == apple:
                snake.append(target)
                occupied.add(target)
                eaten += 1
                apple = apples[eaten] if eaten < len(apples) else None
            elif target not in occupied or (target == snake[0] and tail_rule == "follow"):
                occupied.discard(snake.popleft())
                snake.append(target)
                occupied.add(target)
        if t in wanted:
            out[t] = (tuple(snake), apple)
    return out


def frame_indices(frames, every):
    picked = [t for t in range(frames) if t % every == 0]
    if frames - 1 not in picked:
        picked.append(frames - 1)
    return picked


BLANK_STEP = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


def puzzle_boards(start, moves, rows, cols):
    """Boards after each blank move (U D L R move the blank)."""
    board = list(start)
    out = [tuple(board)]
    for ch in moves:
        b = board.index(0)
        r, c = divmod(b, cols)
        dr, dc = BLANK_STEP[ch]
        t = (r + dr) * cols + c + dc
        board[b], board[t] = board[t], board[b]
        out.append(tuple(board))
    return out


def knight_moves(rows, cols, cell):
    r, c = divmod(cell, cols)
    for dr, dc in ((1, 2), (2, 1), (-1, 2), (-2, 1), (1, -2), (2, -1), (-1, -2), (-2, -1)):
        if 0 <= r + dr < rows and 0 <= c + dc < cols:
            yield (r + dr) * cols + c + dc


def knight_tour(rows, cols, start):
    """An open knight's tour by backtracking with Warnsdorff ordering (small boards)."""
    n = rows * cols
    path = [start]
    seen = {start}
    stack = [iter(sorted(knight_moves(rows, cols, start)))]
    while stack and len(path) < n:
        nxt = next(stack[-1], None)
        if nxt is None:
            stack.pop()
            seen.discard(path.pop())
            continue
        if nxt in seen:
            continue
        path.append(nxt)
        seen.add(nxt)
        options = [m for m in knight_moves(rows, cols, nxt) if m not in seen]
        options.sort(key=lambda m: sum(1 for x in knight_moves(rows, cols, m) if x not in seen))
        stack.append(iter(options))
    return path if len(path) == n else None


def knight_distances(rows, cols, start):
    dist = {start: 0}
    frontier = [start]
    while frontier:
        nxt = []
        for cell in frontier:
            for m in knight_moves(rows, cols, cell):
                if m not in dist:
                    dist[m] = dist[cell] + 1
                    nxt.append(m)
        frontier = nxt
    return [dist.get(c, -1) for c in range(rows * cols)]


KNIGHT_JUMPS = [[-2, -1], [-2, 1], [-1, -2], [-1, 2], [1, -2], [1, 2], [2, -1], [2, 1]]
