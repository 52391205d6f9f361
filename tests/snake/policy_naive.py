"""Slow, plain-Python references for the cycle-shortcut policies' decisions.

Each reference takes a `snake_naive.Game` (body tail first in `game.body`) and
the cycle as `order[cell]`, and returns the move; `drive` replays a recorded
game through a reference and reports the first decision that differs.
"""

from __future__ import annotations

from collections import deque
from itertools import pairwise

import snake_naive as naive


def ahead(order, origin_cell, cell):
    n = len(order)
    return (order[cell] - order[origin_cell]) % n


def cycle_next_move(game, order):
    n = len(order)
    head = game.body[-1]
    for m in range(4):
        v = naive.neighbour(game.rows, game.cols, head, m)
        if v is not None and order[v] == (order[head] + 1) % n:
            return m
    raise AssertionError("head has no cycle successor")


def tail_gap(game, order):
    """Track distance head -> tail; the whole lap for a one-cell snake."""
    if len(game.body) == 1:
        return len(order)
    return ahead(order, game.body[-1], game.body[0])


def phc_move(game, order, faithful):
    n = len(order)
    body = game.body
    length = len(body)
    default = cycle_next_move(game, order)
    if 2 * length > n:
        return default
    da = ahead(order, body[-1], game.apple)
    dt = tail_gap(game, order)
    if faithful:
        limit = min(da, dt - 3)
        if da < dt:
            limit -= 1
            if (dt - da) * 4 > n - length:
                limit -= 10
    elif game.tail_rule == "follow":
        limit = min(da, dt - 1)
    elif length == 1:
        limit = da - 1
    else:
        return default
    best, best_d = default, 1
    occupied = set(body)
    for m in range(4):
        v = naive.neighbour(game.rows, game.cols, body[-1], m)
        if v is None or v in occupied:
            continue
        d = ahead(order, body[-1], v)
        if best_d < d <= limit:
            best, best_d = m, d
    return best


def drive(replay, choose):
    """Re-play a recorded game through the reference `choose(game)`.

    Returns None when every move matches, else a description of the first mismatch.
    """
    game = naive.Game(replay.rows, replay.cols, [int(c) for c in replay.body], replay.tail_rule,
                      replay.max_moves, apples=[int(a) for a in replay.apples])
    for t, recorded in enumerate(int(m) for m in replay.moves):
        if game.outcome != "running":
            return f"game over at move {t} but moves continue"
        expected = choose(game)
        if expected != recorded:
            return f"move {t}: kernel {recorded}, reference {expected} (body {list(game.body)}, apple {game.apple})"
        game.step(recorded)
    if game.outcome != replay.outcome:
        return f"reference ends {game.outcome}, kernel {replay.outcome}"
    return None


def in_order(body, order):
    """Every body cell within the track stretch from the tail to the head, in order."""
    n = len(order)
    tail = body[0]
    span = [(order[c] - order[tail]) % n for c in body]
    return all(a < b for a, b in pairwise(span))


bfs_path_length = naive.bfs_path_length


SCAN = (0, 2, 3, 1)  # up, down, left, right: the original's neighbour order


def is_ordered(order, segments_tail_first):
    """illayyy/snake_ai's test: every segment within the cycle stretch from the tail to the head."""
    tail, head = segments_tail_first[0], segments_tail_first[-1]
    lo, hi = order[tail], order[head]
    if hi > lo:
        return all(lo <= order[c] <= hi for c in segments_tail_first)
    return not any(hi < order[c] < lo for c in segments_tail_first)


def snake_ai_move(game, order, faithful):
    n = len(order)
    body = list(game.body)
    head, apple = body[-1], game.apple
    occupied = set(body)
    default = cycle_next_move(game, order)
    if faithful:
        target = naive.neighbour(game.rows, game.cols, head, default)
        if target in occupied:
            for m in SCAN:
                v = naive.neighbour(game.rows, game.cols, head, m)
                if v is not None and v not in occupied:
                    default, target = m, v
                    break
        best, best_dist = default, order[apple] - order[target]
        if len(body) >= 0.85 * n:
            return best
        for m in SCAN:
            v = naive.neighbour(game.rows, game.cols, head, m)
            if v is None or v in occupied or not is_ordered(order, body + [v]):
                continue
            dist = (order[apple] - order[v]) % n
            if dist < best_dist:
                best, best_dist = m, dist
        return best
    if len(body) >= 0.85 * n:
        return default
    if game.tail_rule == "blocked" and len(body) > 1:
        return default
    best, best_dist = default, (order[apple] - order[head] - 1) % n
    for m in SCAN:
        v = naive.neighbour(game.rows, game.cols, head, m)
        if v is None or v in occupied:
            continue
        if game.tail_rule == "blocked":
            if ahead(order, head, v) >= ahead(order, head, apple):
                continue  # a one-cell snake eats only from the apple's predecessor
        elif not in_order(body + [v], order):
            continue
        dist = (order[apple] - order[v]) % n
        if dist < best_dist:
            best, best_dist = m, dist
    return best


def timed_bfs(rows, cols, body, goal, tail_rule):
    """Exact shortest path for a body that moves along it (state: the whole body), or -1."""
    start = tuple(body)
    seen = {start}
    queue = deque([(start, 0)])
    while queue:
        snake, d = queue.popleft()
        for m in range(4):
            v = naive.neighbour(rows, cols, snake[-1], m)
            if v is None:
                continue
            blocked = set(snake[1:]) if tail_rule == "follow" else set(snake)
            if v in blocked:
                continue
            if v == goal:
                return d + 1
            nxt = snake[1:] + (v,)
            if nxt not in seen:
                seen.add(nxt)
                queue.append((nxt, d + 1))
    return -1


def walk_is_legal(rows, cols, body, path, tail_rule):
    """Moving the body along `path` (no eating) never enters its own body."""
    snake = deque(body)
    for v in path:
        if abs(v // cols - snake[-1] // cols) + abs(v % cols - snake[-1] % cols) != 1:
            return False
        blocked = set(list(snake)[1:]) if tail_rule == "follow" else set(snake)
        if v in blocked:
            return False
        snake.popleft()
        snake.append(v)
    return True
