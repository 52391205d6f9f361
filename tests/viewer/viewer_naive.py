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
