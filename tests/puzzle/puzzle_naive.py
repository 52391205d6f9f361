"""Slow, obviously-correct pure-Python references for the sliding puzzle tests."""

from collections import deque

MOVES = "UDLR"
DELTAS = {"U": (-1, 0), "D": (1, 0), "L": (0, -1), "R": (0, 1)}


def neighbours(state, rows, cols):
    """(move, next state) for each legal blank move of a tuple state."""
    b = state.index(0)
    r, c = divmod(b, cols)
    out = []
    for m in MOVES:
        dr, dc = DELTAS[m]
        rr, cc = r + dr, c + dc
        if 0 <= rr < rows and 0 <= cc < cols:
            j = rr * cols + cc
            s = list(state)
            s[b], s[j] = s[j], 0
            out.append((m, tuple(s)))
    return out


def bfs_distances(goal, rows, cols):
    """Distance to `goal` of every state that can reach it (moves are reversible)."""
    goal = tuple(int(t) for t in goal)
    dist = {goal: 0}
    queue = deque([goal])
    while queue:
        s = queue.popleft()
        for _, t in neighbours(s, rows, cols):
            if t not in dist:
                dist[t] = dist[s] + 1
                queue.append(t)
    return dist


def play(state, moves, rows, cols):
    state = tuple(int(t) for t in state)
    for m in moves:
        nxt = dict(neighbours(state, rows, cols))
        assert m in nxt, f"illegal move {m}"
        state = nxt[m]
    return state


def goal_cells(goal):
    return {int(t): i for i, t in enumerate(goal)}


def misplaced(state, goal, rows=None, cols=None):
    return sum(1 for i, t in enumerate(state) if t != 0 and goal[i] != t)


def manhattan(state, goal, rows, cols):
    where = goal_cells(goal)
    total = 0
    for i, t in enumerate(state):
        if t:
            g = where[int(t)]
            total += abs(i // cols - g // cols) + abs(i % cols - g % cols)
    return total


def _lis(seq):
    best = []
    for i, x in enumerate(seq):
        best.append(1 + max([best[j] for j in range(i) if seq[j] < x], default=0))
    return max(best, default=0)


def linear_conflict(state, goal, rows, cols):
    """Manhattan + 2 * (tiles to lift out of each line so its home tiles are in order)."""
    where = goal_cells(goal)
    extra = 0
    for r in range(rows):
        seq = [where[t] % cols for t in state[r * cols:(r + 1) * cols] if t and where[t] // cols == r]
        extra += len(seq) - _lis(seq)
    for c in range(cols):
        seq = [where[t] // cols for t in state[c::cols] if t and where[t] % cols == c]
        extra += len(seq) - _lis(seq)
    return manhattan(state, goal, rows, cols) + 2 * extra


def walking_distance(state, goal, rows, cols):
    """Takahashi's walking distance by BFS over (line occupancy by goal line, blank line)."""
    where = goal_cells(goal)

    def one(nlines, line_of):
        def table(s):
            counts = [[0] * nlines for _ in range(nlines)]
            blank = None
            for i, t in enumerate(s):
                if t == 0:
                    blank = line_of(i)
                else:
                    counts[line_of(i)][line_of(where[int(t)])] += 1
            return tuple(tuple(r) for r in counts), blank

        target = table(tuple(int(t) for t in goal))
        start = table(state)
        seen = {start: 0}
        queue = deque([start])
        while queue:
            counts, blank = queue.popleft()
            if (counts, blank) == target:
                return seen[(counts, blank)]
            for other in (blank - 1, blank + 1):
                if not 0 <= other < nlines:
                    continue
                for g in range(nlines):
                    if counts[other][g]:
                        c = [list(r) for r in counts]
                        c[other][g] -= 1
                        c[blank][g] += 1
                        nxt = (tuple(tuple(r) for r in c), other)
                        if nxt not in seen:
                            seen[nxt] = seen[(counts, blank)] + 1
                            queue.append(nxt)
        raise AssertionError("goal table unreachable")

    return one(rows, lambda i: i // cols) + one(cols, lambda i: i % cols)


def states_along(state, moves, rows, cols):
    """Every state from `state` through `moves` (each move checked legal)."""
    out = [tuple(int(t) for t in state)]
    for m in moves:
        nxt = dict(neighbours(out[-1], rows, cols))
        assert m in nxt, f"illegal move {m} at step {len(out)}"
        out.append(nxt[m])
    return out


def cut_loops(state, moves, rows, cols):
    """The reduce post-pass, slowly: from each state jump to its last visit, then move on."""
    seq = states_along(state, moves, rows, cols)
    last = {s: i for i, s in enumerate(seq)}
    out = []
    i = last[seq[0]]
    while i < len(moves):
        out.append(moves[i])
        i = last[seq[i + 1]]
    return "".join(out)
