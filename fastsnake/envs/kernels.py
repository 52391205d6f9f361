"""Batched njit kernels behind the Gymnasium environments: N games in 2-D arrays.

A batch is a tuple of arrays with one row per environment (slots ``B_*``): the
engine's game arrays (body ring, occupancy, free list, rng) as rows, the game's
scalars as an int64 row of `engine.State` fields (columns ``S_*``), the
observation grid, the action mask, and the seeding bookkeeping (base seed, game
index, a flag for a pending next-step reset).

Each move goes through the engine's own `play_until` (inlined, one move, the move
taken from a one-element box as `engine.apply_move` does), so the rules live in one
place; not through `run`, whose cancellation poll, once a move, cost the step 4.7x
(issue 38). Observations and masks are updated in the same pass: a move changes at
most five cells of the grid (old tail, old head, new tail, new head, new apple),
so a step costs O(1) whatever the board; a game's start writes its whole row.
"""

import numpy as np
from numba import njit
from numba.cpython.unsafe.tuple import tuple_setitem

from fastsnake.snake.board import CFG_TAIL_RULE, TAIL_FOLLOW
from fastsnake.snake.engine import (
    BOX_MOVE,
    DIED,
    RUNNING,
    STUCK,
    WON,
    State,
    borrowed_row,
    boxed_move,
    copy_rows,
    ix,
    play_until,
    start_default,
)
from fastsnake.snake.rng import game_seed

# Observation codes, one uint8 a cell.
EMPTY, BODY, HEAD, TAIL, APPLE = 0, 1, 2, 3, 4
CODE_NAMES = ("empty", "body", "head", "tail", "apple")

# Slots of the batch tuple (see `new_batch`).
(B_BODY, B_OCC, B_FREE, B_FREEPOS, B_RNG, B_STATE, B_GRID, B_MASK, B_SEED, B_GAME,
 B_PENDING) = range(11)

# Columns of a state row: the fields of `engine.State`, by name so the two cannot drift.
S_HEAD = State._fields.index("head")
S_TAIL = State._fields.index("tail")
S_HEAD_I = State._fields.index("head_i")
S_TAIL_I = State._fields.index("tail_i")
S_LENGTH = State._fields.index("length")
S_APPLE = State._fields.index("apple")
S_NFREE = State._fields.index("nfree")
S_MOVES = State._fields.index("moves")
S_APPLES = State._fields.index("apples")
S_OUTCOME = State._fields.index("outcome")
S_SIZE = len(State._fields)
_BLANK_STATE = State(*(np.int64(0),) * S_SIZE)  # what `load_state` fills

# Returned by `check_step` and `step_batch` when every env may step; NOT_STARTED when one has no game
# yet (it was never reset: game index -1). Otherwise they return the index of the first bad action.
ALL_VALID = -1
NOT_STARTED = -2


def cell_dtype(cells):
    """The narrowest integer type of the batch's cell arrays (body rings, free cells, free-list
    positions) on boards of `cells` cells: int16 up to 32,768 cells (181 x 181), else int32.

    Why narrow: at thousands of envs a step is bound by memory, not by its arithmetic. The cell
    arrays are most of an env's bytes (1.2 KB of 1.5 KB on 10x10 in int32), and halving them made
    the step 1.6-2.2x faster (docs/performance.md, "The vector env's step"). The engine's rules
    are generic over the arrays' integer type, so the games are the same.
    """
    return np.int16 if cells <= np.iinfo(np.int16).max + 1 else np.int32


def new_batch(num_envs, cells):
    """Arrays for `num_envs` games on boards of `cells` cells; no game is started.

    Game index -1 means "no game yet", so a first reset without a seed plays game 0.
    """
    cell = cell_dtype(cells)
    return (
        np.zeros((num_envs, cells), cell),  # body rings
        np.zeros((num_envs, cells), np.uint8),  # occupancy
        np.zeros((num_envs, cells), cell),  # free cells
        np.zeros((num_envs, cells), cell),  # position of each cell in `free`
        np.zeros((num_envs, 2), np.uint64),  # [stream state, game seed]
        np.zeros((num_envs, S_SIZE), np.int64),  # the State of each game
        np.zeros((num_envs, cells), np.uint8),  # observation grid (row-major cells)
        np.zeros((num_envs, 4), np.int8),  # action mask
        np.zeros(num_envs, np.uint64),  # base seed
        np.full(num_envs, -1, np.int64),  # game index within the base seed's sweep
        np.zeros(num_envs, np.bool_),  # ended last step: reset on the next (next-step autoreset)
    )


@njit(cache=True, inline="always")
def game_of(cfg, nbr, batch, i):
    """Env i's game as the engine's game tuple (row views, no copies, no reference counts: `borrowed_row`)."""
    return (cfg, nbr, borrowed_row(batch[B_BODY], i), borrowed_row(batch[B_OCC], i), borrowed_row(batch[B_FREE], i),
            borrowed_row(batch[B_FREEPOS], i), borrowed_row(batch[B_RNG], i))


@njit(cache=True, inline="always")
def load_state(batch, i):
    """The engine `State` of env `i`, read from its row of the batch's state array (every field, by
    `State._fields`: a field added to `State` is loaded with no edit here). Field by field into a blank
    state: the same machine code as naming each field (`numba`'s `to_fixed_tuple` adds a size check)."""
    row = borrowed_row(batch[B_STATE], i)
    st = _BLANK_STATE
    for j in range(S_SIZE):
        st = tuple_setitem(st, j, row[j])
    return st


@njit(cache=True, inline="always")
def store_state(batch, i, st):
    """Write `st` into env `i`'s row of the batch's state array (the inverse of `load_state`)."""
    row = borrowed_row(batch[B_STATE], i)
    for j in range(S_SIZE):
        row[j] = st[j]


@njit(cache=True, inline="always")
def write_mask(cfg, nbr, occ, st, mask):
    """mask[m] = 1 where move m does not kill at once: on the board, and into an empty
    cell or (tail rule follow) the cell the tail leaves. The apple is always empty.

    Written without branches: whether a neighbour is free is a coin toss to the branch predictor,
    and each wrong guess also throws away the work the CPU had begun on the next envs. The
    branching form made the step about 20 % slower (docs/performance.md, "The vector env's step")."""
    follow = np.int64(cfg[CFG_TAIL_RULE] == TAIL_FOLLOW)
    base = st.head * 4
    for m in range(4):
        t = np.int64(nbr[base + m])
        on_board = np.int64(t >= 0)
        cell = t & ~(t >> 63)  # t, or 0 off the board: read, then ignored
        empty = np.int64(occ[ix(cell)] == 0)
        mask[m] = on_board & (empty | (follow & np.int64(cell == st.tail)))


@njit(cache=True)
def write_grid(occ, st, grid):
    """The whole observation of a position (at a game's start)."""
    for c in range(grid.shape[0]):
        grid[c] = BODY if occ[c] != 0 else EMPTY
    if st.length >= 2:
        grid[st.tail] = TAIL
    grid[st.head] = HEAD
    if st.apple >= 0:
        grid[st.apple] = APPLE


@njit(cache=True, inline="always")
def update_grid(old, new, grid):
    """The observation after one move from `old` to `new` (a fatal move changes nothing)."""
    if new.outcome == DIED:
        return
    ate = new.length > old.length
    if not ate:
        grid[old.tail] = EMPTY
    if new.length >= 2:
        grid[old.head] = BODY
        grid[new.tail] = TAIL
    grid[new.head] = HEAD
    if ate and new.apple >= 0:
        grid[new.apple] = APPLE


@njit(cache=True)
def start_env(cfg, nbr, path, batch, i):
    """Start env i's game (its base seed and game index are set): the engine's
    `start_default`, as `greedy` and every policy without a cycle start."""
    g = game_of(cfg, nbr, batch, i)
    seed = game_seed(batch[B_SEED][i], np.uint64(batch[B_GAME][i]))
    st = start_default(g, seed, path)
    store_state(batch, i, st)
    write_grid(batch[B_OCC][i], st, batch[B_GRID][i])
    write_mask(cfg, nbr, batch[B_OCC][i], st, batch[B_MASK][i])
    batch[B_PENDING][i] = False


@njit(cache=True)
def reset_batch(cfg, nbr, path, batch, which, seeds, games):
    """Start game games[i] of base seed seeds[i] in every env with which[i]."""
    for i in range(which.shape[0]):
        if which[i]:
            batch[B_SEED][i] = seeds[i]
            batch[B_GAME][i] = games[i]
            start_env(cfg, nbr, path, batch, i)


# Observation kinds computed for a whole batch (`observations.encode`): a fresh array a call, as
# the envs return observations the caller may keep. In kernels rather than numpy expressions: numpy's
# one-hot compare and the features' dozen passes cost more than the step itself (docs/envs.md, "Speed").
PLANES = len(CODE_NAMES)


@njit(cache=True)
def planes_of(grids):
    """(N, R, C) cell codes -> (N, PLANES, R, C) uint8 one-hot planes, plane k = code k."""
    n, rows, cols = grids.shape
    out = np.zeros((n, PLANES, rows, cols), np.uint8)
    for i in range(n):
        for r in range(rows):
            for c in range(cols):
                out[i, grids[i, r, c], r, c] = 1
    return out


# The egocentric window's planes (obs="egocentric"), in this order; the head is always the centre
# cell, so it has none. A cell off the board is wall; the head's own cell shows nothing.
EGO_PLANE_NAMES = ("wall", "body", "tail", "apple")
EGO_WALL, EGO_BODY, EGO_TAIL, EGO_APPLE = range(len(EGO_PLANE_NAMES))


# Heading-relative play (``relative=True``): turn t (0 left, 1 ahead, 2 right of the heading) is the
# absolute move (heading + t - 1) mod 4, written (heading + t + 3) % 4; moves are 0 up ... 3 left.
TURNS = 3
TURN_NAMES = ("left", "ahead", "right")


@njit(cache=True, inline="always")
def heading_at(body, st_row, cols):
    """The heading of one game: the direction of its last move, read from the body ring (the cell
    before the head is where the head came from). At a game's start, before any move, the direction
    from the cell behind the head to the head; a one-cell snake that has not moved heads up (0).
    A fatal move changes nothing in the game, the heading included."""
    length, moves = st_row[S_LENGTH], st_row[S_MOVES]
    moved = moves - np.int64(st_row[S_OUTCOME] == DIED)  # a fatal move moved nothing
    if length < 2 and moved <= 0:
        return np.int64(0)
    n = body.shape[0]
    before = st_row[S_HEAD_I] - 1
    if before < 0:
        before += n
    head, neck = st_row[S_HEAD], np.int64(body[before])
    dr = head // cols - neck // cols
    dc = head % cols - neck % cols
    if dr < 0:
        return np.int64(0)
    if dc > 0:
        return np.int64(1)
    if dr > 0:
        return np.int64(2)
    return np.int64(3)


@njit(cache=True)
def headings_of(body, state, cols):
    """The heading (`heading_at`) of every game of a batch: its (N, cells) body rings and (N, S_SIZE)
    states on boards `cols` wide, as (N,) int64 moves 0..3."""
    n = state.shape[0]
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = heading_at(body[i], state[i], cols)
    return out


@njit(cache=True)
def absolute_moves(body, state, cols, turns):
    """The absolute move (0..3) of each game's turn (0 left, 1 ahead, 2 right of its heading; checked
    by the caller)."""
    n = turns.shape[0]
    out = np.empty(n, np.int64)
    for i in range(n):
        out[i] = (heading_at(body[i], state[i], cols) + turns[i] + 3) % 4
    return out


@njit(cache=True)
def relative_masks(body, state, cols, masks):
    """(N, TURNS) int8 action masks of heading-relative play: the absolute (N, 4) mask's entries for
    the moves left, ahead and right of each game's heading (turning back is never offered)."""
    n = masks.shape[0]
    out = np.empty((n, TURNS), np.int8)
    for i in range(n):
        h = heading_at(body[i], state[i], cols)
        for k in range(TURNS):
            out[i, k] = masks[i, (h + k + 3) % 4]
    return out


# The turned window's map to the board, per heading 0..3 (`egocentric_of`): window offset (a, b) from
# the head is board offset (dr, dc) = (a * _ROW_A + b * _ROW_B, a * _COL_A + b * _COL_B). A rotation,
# so its inverse is its transpose: a = dr * _ROW_A + dc * _COL_A, b = dr * _ROW_B + dc * _COL_B.
_ROW_A = (1, 0, -1, 0)
_ROW_B = (0, 1, 0, -1)
_COL_A = (0, -1, 0, 1)
_COL_B = (1, 0, -1, 0)


@njit(cache=True, inline="always")
def _ego_cell(grids, out, i, y, x, r, c):
    """Window cell (y, x) of game i from board cell (r, c): wall off the board, else its code's plane."""
    rows, cols = grids.shape[1], grids.shape[2]
    if r < 0 or r >= rows or c < 0 or c >= cols:
        out[i, EGO_WALL, y, x] = 1
        return
    code = grids[i, r, c]
    if code == BODY:
        out[i, EGO_BODY, y, x] = 1
    elif code == TAIL:
        out[i, EGO_TAIL, y, x] = 1
    elif code == APPLE:
        out[i, EGO_APPLE, y, x] = 1


@njit(cache=True)
def egocentric_of(grids, head, view, heading):
    """(N, R, C) cell codes and the N heads -> (N, 4, view, view) uint8 planes (`EGO_PLANE_NAMES`) of
    the view x view window centred on each head (view odd). `heading`: empty for windows with north
    up, else each game's heading (0..3), the window turned so the heading points up (row 0 is ahead,
    column 0 the snake's left): window offset (a, b) from the centre is board offset (a, b), (b, -a),
    (-a, -b) or (-b, a) for headings up, right, down, left (np.rot90 of the unturned window by the
    heading, counter-clockwise)."""
    n, rows, cols = grids.shape
    out = np.zeros((n, len(EGO_PLANE_NAMES), view, view), np.uint8)
    half = view // 2
    turned = heading.shape[0] > 0
    for i in range(n):
        head_row, head_col = head[i] // cols, head[i] % cols
        h = heading[i] if turned else 0
        if h == 0:  # north up: the plain loop (the general loop below made it 1.8x slower)
            for y in range(view):
                r = head_row + y - half
                for x in range(view):
                    _ego_cell(grids, out, i, y, x, r, head_col + x - half)
            continue
        # Board order (the board cells of row r in turn, as the unturned window reads them), each cell
        # written where the turn puts it: window (y, x) = (half + a, half + b) of board offset (dr, dc),
        # (a, b) by the inverse map (`_ROW_A`).
        y_r, y_c = _ROW_A[h], _COL_A[h]
        x_r, x_c = _ROW_B[h], _COL_B[h]
        for dr in range(-half, half + 1):
            r = head_row + dr
            y = half + y_r * dr - y_c * half
            x = half + x_r * dr - x_c * half
            for v in range(view):
                _ego_cell(grids, out, i, y, x, r, head_col + v - half)
                y += y_c
                x += x_c
    return out


# What obs="features" holds, one float32 each in [-1, 1], in this order (`features_of`).
FEATURE_NAMES = (
    "safe_up", "safe_right", "safe_down", "safe_left",  # the action mask
    "apple_rows", "apple_cols",  # (apple - head) / (rows - 1, cols - 1); 0 when there is no apple
    "tail_rows", "tail_cols",  # (tail - head) likewise; 0 for a one-cell snake
    "head_row", "head_col",  # head / (rows - 1, cols - 1), scaled to [-1, 1]
    "fill",  # length / cells
)
N_FEATURES = len(FEATURE_NAMES)


@njit(cache=True)
def features_of(rows, cols, head, tail, apple, length, masks):
    """(N, N_FEATURES) float32 features (`FEATURE_NAMES`) from per-env arrays of the
    position: the mask; apple and tail minus head, in rows and columns over (rows - 1, cols - 1)
    (0 when there is no apple, or a one-cell snake); the head scaled to [-1, 1]; length / cells."""
    n = head.shape[0]
    out = np.empty((n, N_FEATURES), np.float32)
    span_r, span_c = max(rows - 1, 1), max(cols - 1, 1)
    for i in range(n):
        h = head[i]
        t = tail[i] if length[i] >= 2 else h
        a = apple[i] if apple[i] >= 0 else h
        hr, hc = h // cols, h % cols
        for m in range(4):
            out[i, m] = masks[i, m]
        out[i, 4] = (a // cols - hr) / span_r
        out[i, 5] = (a % cols - hc) / span_c
        out[i, 6] = (t // cols - hr) / span_r
        out[i, 7] = (t % cols - hc) / span_c
        out[i, 8] = 2.0 * hr / span_r - 1.0
        out[i, 9] = 2.0 * hc / span_c - 1.0
        out[i, 10] = length[i] / (rows * cols)
    return out


# The state fields an env's info reports, in the order `info_columns` returns them.
INFO_FIELDS = ("apples", "length", "moves")
INFO_APPLES, INFO_LENGTH, INFO_MOVES = range(len(INFO_FIELDS))
_INFO_SLOTS = tuple(State._fields.index(name) for name in INFO_FIELDS)


@njit(cache=True)
def info_columns(state):
    """The `INFO_FIELDS` columns of a batch's (N, S_SIZE) state array as fresh int64 arrays, in one
    pass over its rows (three column copies read the whole array three times)."""
    n = state.shape[0]
    out = np.empty((len(_INFO_SLOTS), n), np.int64)
    for i in range(n):
        for k in range(len(_INFO_SLOTS)):
            out[k, i] = state[i, _INFO_SLOTS[k]]
    return out


@njit(cache=True)
def check_step(batch, actions):
    """ALL_VALID; NOT_STARTED when an env has no game yet; else the index of the first action
    outside 0..3. In one kernel with the step (`step_batch`), a step pays one call for both."""
    game = batch[B_GAME]
    for i in range(game.shape[0]):
        if game[i] < 0:
            return NOT_STARTED
    for i in range(actions.shape[0]):
        if actions[i] < 0 or actions[i] > 3:
            return i
    return ALL_VALID


# Slots of a step's outputs (`new_outputs`), one entry per env in each: the reward, the two end
# flags, the `INFO_FIELDS` after the step (rows of an (len(INFO_FIELDS), N) array) and, when the
# caller wants fresh grid observations, each env's grid after the step ((N, cells); (0, cells) for
# none). The step writes them while the env's rows are in cache, and each thread its own envs'.
O_REWARD, O_TERMINATED, O_TRUNCATED, O_INFO, O_GRIDS = range(5)


def new_outputs(num_envs, cells, grids=False):
    """Fresh arrays for one step's outputs (slots O_*); `grids`: also a copy of every env's grid."""
    return (np.empty(num_envs, np.float64), np.empty(num_envs, np.bool_), np.empty(num_envs, np.bool_),
            np.empty((len(INFO_FIELDS), num_envs), np.int64),
            np.empty((num_envs if grids else 0, cells), np.uint8))


@njit(cache=True)
def step_batch(cfg, nbr, path, batch, actions, out):
    """One step of every env, or, when `check_step` finds a reason not to, nothing at all: returns
    what `check_step` returned. See `step_range`."""
    verdict = check_step(batch, actions)
    if verdict == ALL_VALID:
        step_range(cfg, nbr, path, batch, actions, out, 0, actions.shape[0])
    return verdict


# Envs stepped between two copies of their grid rows into the step's output (`step_range`): one
# memcpy of a block of rows still in the caches. 64 rows of 100 cells cost a quarter less than a copy
# per env, and less than blocks of 16 or 256 (docs/performance.md, "The vector env's step").
GRID_COPY_BLOCK = 64


@njit(cache=True, nogil=True)
def step_range(cfg, nbr, path, batch, actions, out, lo, hi):
    """One step of envs lo..hi-1 (actions already checked), its results in their entries of the
    outputs `out` (`new_outputs`). Without the GIL and touching only those envs' rows, so disjoint
    ranges run in parallel threads.

    An env whose game ended on the previous step is reset instead (next-step
    autoreset: its action is ignored, reward 0, not terminated or truncated).
    Reward: +1 an apple, -1 death, else 0; terminated: died or won; truncated:
    stuck at the move cap.
    """
    reward, terminated, truncated, info, grids = out
    copy_grids = grids.shape[0] > 0
    box = np.empty(1, np.int64)
    pending = batch[B_PENDING]
    for first in range(lo, hi, GRID_COPY_BLOCK):
        end = min(first + GRID_COPY_BLOCK, hi)
        for i in range(first, end):
            if pending[i]:
                batch[B_GAME][i] += 1
                start_env(cfg, nbr, path, batch, i)
                new = load_state(batch, i)
                reward[i] = 0.0
                terminated[i] = False
                truncated[i] = False
            else:
                g = game_of(cfg, nbr, batch, i)
                old = load_state(batch, i)
                box[BOX_MOVE] = actions[i]
                new = play_until(g, box, boxed_move, old, old.moves + 1, None, None)
                store_state(batch, i, new)
                update_grid(old, new, borrowed_row(batch[B_GRID], i))
                write_mask(cfg, nbr, borrowed_row(batch[B_OCC], i), new, borrowed_row(batch[B_MASK], i))
                r = 0.0
                if new.apples > old.apples:
                    r = 1.0
                elif new.outcome == DIED:
                    r = -1.0
                reward[i] = r
                terminated[i] = new.outcome == DIED or new.outcome == WON
                truncated[i] = new.outcome == STUCK
                pending[i] = new.outcome != RUNNING
            info[INFO_APPLES, i] = new.apples
            info[INFO_LENGTH, i] = new.length
            info[INFO_MOVES, i] = new.moves
        if copy_grids:
            copy_rows(grids, batch[B_GRID], first, end)
