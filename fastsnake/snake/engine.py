"""The Snake rules as njit kernels over flat arrays.

A game is a tuple of arrays (see `new_game`): the body is a ring buffer of cells
(tail ... head), `occ` marks body cells, and `free`/`freepos` hold the empty cells
so the apple is placed uniformly in O(1) and each move updates them in O(1).

Policies plug in through three njit functions (`alloc`, `reset`, `decide`, see
`fastsnake.snake.policies`); `sweep_chunk` and `play_recorded` are inlined into
each policy's own two small kernels, so every policy gets a specialised, cached
game loop without the engine knowing any policy.
"""

from types import FunctionType
from typing import NamedTuple

import numpy as np
from numba import njit, prange
from numba.core import cgutils, types
from numba.core.errors import TypingError
from numba.core.typing.npydecl import parse_dtype
from numba.cpython.unsafe.tuple import tuple_setitem
from numba.extending import intrinsic, overload
from numba.np.arrayobj import _empty_nd_impl, _parse_shape, populate_array

from fastsnake.snake.board import (
    CFG_CANCEL,
    CFG_COLS,
    CFG_MAX_MOVES,
    CFG_ROWS,
    CFG_START_LENGTH,
    CFG_TAIL_RULE,
    TAIL_FOLLOW,
)
from fastsnake.snake.record import KERNEL_SLOTS
from fastsnake.snake.rng import RNG_SEED, RNG_STATE, below, game_seed

RUNNING, WON, DIED, STUCK = 0, 1, 2, 3
BROKEN = -1  # a replay whose apple list contradicts the rules
BAD_MOVE = -2  # a user policy returned something other than 0..3 (the game stops, nothing is moved)
CANCELLED = -3  # the run was cancelled (`CFG_CANCEL`) before the game ended: never a result, never recorded
# Moves between two looks at the cancellation slot: a cancelled game returns after at most this
# many moves of its policy. Looking costs one load per burst, not per move (`run`); the evidence for
# the figure (slowest moves, cost on engine speed) is in docs/performance.md, "Stopping a running game".
CANCEL_POLL_MOVES = 256
OUTCOME_NAMES = ("running", "won", "died", "stuck")

# Helpers only compiled code calls are built by `compiled_only`: numba makes no CPython wrapper for
# them, which every kernel that links them would otherwise optimise again (issue 44). Called from
# Python, such a function crashes the process: anything Python code or a test calls stays `njit`.
compiled_only = njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)


def kernel_copy(fn):
    """The njit function `fn` built again by `compiled_only`, under the name ``<name>_k`` (numba files
    each copy's cache by its name): for a helper that Python code or a test calls too. Python calls
    `fn`, compiled code the copy, so a cold kernel compiles no CPython wrapper for it (issue 44). With
    numba's JIT off, `fn` itself."""
    py = getattr(fn, "py_func", None)
    if py is None:
        return fn
    copy = FunctionType(py.__code__, py.__globals__, f"{py.__name__}_k", py.__defaults__)
    copy.__qualname__ = f"{py.__qualname__}_k"
    copy.__doc__ = py.__doc__
    return compiled_only(copy)

# Slots of the game tuple (arrays only; scalars travel in a `State` value).
G_CFG, G_NBR, G_BODY, G_OCC, G_FREE, G_FREEPOS, G_RNG = range(7)
# Slots of a game record (`new_record`): per move t, the move, the head after it, the length, the apple.
R_MOVE, R_HEAD, R_LENGTH, R_APPLE = range(4)
# Columns of a sweep's rows (`sweep_chunk`'s `out`, one row per game): declared in `record`.
ROW_OUTCOME, ROW_MOVES, ROW_APPLES, ROW_LENGTH = (KERNEL_SLOTS[n] for n in ("outcome", "moves", "apples", "length"))
# The one slot of a move box (`apply_move`): a one-element int64 array holding the move.
BOX_MOVE = 0


# The game's scalars the rules keep (`State`'s first fields, in this order).
ENGINE_FIELDS = ("head", "tail", "head_i", "tail_i", "length", "apple", "nfree", "moves", "apples", "outcome")
# Every kernel column of the game record (`record`) is copied from the `State` field of its name
# (`write_row`); one the rules do not keep is a counter of its own, a `State` field after theirs that is
# 0 when a game starts, carried through every move (`make_state`'s `was`) and filled by one kernel line.
STATE_FIELDS = ENGINE_FIELDS + tuple(name for name in KERNEL_SLOTS if name not in ENGINE_FIELDS)
State = NamedTuple("State", [(name, int) for name in STATE_FIELDS])
State.__doc__ = """The game's scalars (`STATE_FIELDS`), passed by value so the hot loop keeps them in registers.

head/tail are cells; head_i/tail_i their slots in the body ring; then the record's own counters.
"""
# The `State` field each column of a sweep's row is copied from, by kernel slot (`write_row`).
ROW_FIELDS = tuple(STATE_FIELDS.index(name) for name, _ in sorted(KERNEL_SLOTS.items(), key=lambda item: item[1]))
_COUNTERS_AT_START = (np.int64(0),) * (len(STATE_FIELDS) - len(ENGINE_FIELDS))
_ENGINE_SIZE = len(ENGINE_FIELDS)


class PolicyState(NamedTuple):
    """What a user policy's ``decide(state, ws)`` sees: the public face of a position.

    ``occupied`` (uint8, 1 = body) and ``neighbours`` (cells x 4, -1 off the board)
    are the engine's own arrays, shared, not copies: read them, never write them.
    ``seed`` is the game's seed (``game_seed(base, index)``), for policies that draw.
    The rules of the game: ``tail_follows`` is True when the head may enter the cell the
    tail leaves in the same move (``tail="follow"``), False when that cell is still body
    (``tail="blocked"``); ``max_moves`` is the move cap (a game reaching it ends "stuck");
    ``start_length`` the snake's length at the start.
    """

    rows: int
    cols: int
    head: int
    tail: int
    apple: int
    length: int
    moves: int
    occupied: np.ndarray
    neighbours: np.ndarray
    seed: int
    tail_follows: bool
    max_moves: int
    start_length: int


# Slots of the context a user policy's moves are asked through (see `user_move`).
U_WS, U_NEIGHBOURS, U_ERROR, U_ERROR_REAL = range(4)
# Slots of the error record a user policy leaves behind: what went wrong, the value returned
# (an integer; a float returned is in the context's U_ERROR_REAL) and how it was typed (MOVE_*).
E_KIND, E_VALUE, E_TYPE = range(3)
ERR_NONE, ERR_MOVE, ERR_CYCLE = 0, 1, 2
# The one slot of the context's U_ERROR_REAL record: a float the policy returned.
E_REAL = 0
# How the value a user policy returned is typed: only (signed or unsigned) integers are moves.
MOVE_INT, MOVE_UINT, MOVE_BOOL, MOVE_FLOAT = range(4)


# ``ix(i)``: `i` (known >= 0) as an unsigned index: numba then emits no negative-index fix-up (a shift,
# an and and an add per access, two of them on the move-to-move dependency chain). The cast itself, not
# an inline="always" function returning it: numba inlines such a function once per call site, each time
# through its untyped pipeline again, and the game loop has a dozen of them (issue 44).
ix = np.uint64


def load_relaxed(array, index):
    """array[index] read from memory each time (compiled: an atomic, monotonic load): another
    thread may write it while the kernel runs, and a plain load could be kept in a register for
    good. In plain Python (kernels run interpreted) a plain read is that already."""
    return array[index]


@overload(load_relaxed, inline="always")
def _load_relaxed_typed(array, index):
    return lambda array, index: _load_relaxed(array, index)


@intrinsic
def _load_relaxed(typingctx, array, index):
    if not isinstance(array, types.Array) or not isinstance(index, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        aryty, idxty = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        at = context.cast(builder, args[1], idxty, types.intp)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [at])
        return builder.load_atomic(ptr, "monotonic", aryty.dtype.bitwidth // 8)

    return array.dtype(array, index), codegen


def borrowed_row(array, i):
    """Row i of a C-contiguous 2-D array as a 1-D view. Compiled, the view holds no reference to the
    array's memory, so making and dropping it costs no reference count (numba counts every view it
    makes with an atomic increment and decrement, which cost a batched step more than its move):
    use it only inside one kernel call whose argument `array` is. In plain Python, an ordinary view."""
    return array[i]


# Not inline="always": numba 0.68's inlining of this overload loses writes through the row
# (test_borrowed_rows_write_where_indexing_writes); LLVM inlines the call anyway.
@overload(borrowed_row)
def _borrowed_row_typed(array, i):
    return lambda array, i: _borrowed_row(array, i)


@intrinsic
def _borrowed_row(typingctx, array, index):
    if not (isinstance(array, types.Array) and array.ndim == 2 and array.layout == "C"
            and isinstance(index, types.Integer)):
        return None
    row_type = array.copy(ndim=1, layout="C")

    def codegen(context, builder, signature, args):
        aryty, idxty = signature.args
        ary = context.make_array(aryty)(context, builder, args[0])
        at = context.cast(builder, args[1], idxty, types.intp)
        zero = context.get_constant(types.intp, 0)
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [at, zero])
        row = context.make_array(row_type)(context, builder)
        shape = cgutils.unpack_tuple(builder, ary.shape)
        strides = cgutils.unpack_tuple(builder, ary.strides)
        populate_array(row, data=ptr, shape=[shape[1]], strides=[strides[1]], itemsize=ary.itemsize, meminfo=None)
        return row._getvalue()

    return row_type(array, index), codegen


def zeros(n, dtype):
    """``np.zeros(n, dtype)``, 1-D. Compiled, the allocation and the clearing are the caller's own code:
    numba compiles ``np.zeros`` (and the ``np.empty`` under it) as a function of its own for each dtype,
    a tenth of a CPU-second each in every cold start (issue 44). In plain Python, ``np.zeros``."""
    return np.zeros(n, dtype)


@overload(zeros, inline="always")
def _zeros_typed(n, dtype):
    return lambda n, dtype: _zeros(n, dtype)


@intrinsic
def _zeros(typingctx, n, dtype):
    item = parse_dtype(dtype)
    if not isinstance(n, types.Integer) or item is None:
        return None
    array_type = types.Array(item, 1, "C")

    def codegen(context, builder, signature, args):
        shape = _parse_shape(context, builder, signature.args[0], args[0])
        ary = _empty_nd_impl(context, builder, array_type, shape)
        cgutils.memset(builder, ary.data, builder.mul(ary.itemsize, ary.nitems), 0)
        return ary._getvalue()

    return array_type(n, dtype), codegen


def copy_rows(dst, src, lo, hi):
    """dst[lo:hi] = src[lo:hi] for two C-contiguous 2-D arrays of one dtype and row length
    (0 <= lo <= hi <= both lengths, else IndexError). Compiled, one memcpy: a loop over
    the elements copies a 100-byte row eight bytes at a time, and a block of rows at once costs a
    quarter of the row-by-row loop in the envs' step (docs/performance.md). In plain Python, slices."""
    dst[lo:hi] = src[lo:hi]


@overload(copy_rows)
def _copy_rows_typed(dst, src, lo, hi):
    def impl(dst, src, lo, hi):
        if dst.shape[1] != src.shape[1] or not 0 <= lo <= hi <= min(dst.shape[0], src.shape[0]):
            raise IndexError("copy_rows: rows out of range, or rows of different lengths")
        _copy_rows(dst, src, lo, hi)

    return impl


@intrinsic
def _copy_rows(typingctx, dst, src, lo, hi):
    if not (isinstance(dst, types.Array) and isinstance(src, types.Array) and dst.ndim == src.ndim == 2
            and dst.layout == src.layout == "C" and dst.dtype == src.dtype and dst.mutable
            and isinstance(lo, types.Integer) and isinstance(hi, types.Integer)):
        return None

    def codegen(context, builder, signature, args):
        dst_type, src_type, lo_type, hi_type = signature.args
        dst_ary = context.make_array(dst_type)(context, builder, args[0])
        src_ary = context.make_array(src_type)(context, builder, args[1])
        first = context.cast(builder, args[2], lo_type, types.intp)
        end = context.cast(builder, args[3], hi_type, types.intp)
        zero = context.get_constant(types.intp, 0)
        to = cgutils.get_item_pointer(context, builder, dst_type, dst_ary, [first, zero])
        frm = cgutils.get_item_pointer(context, builder, src_type, src_ary, [first, zero])
        row_bytes = cgutils.unpack_tuple(builder, src_ary.strides)[0]
        cgutils.raw_memcpy(builder, to, frm, builder.mul(builder.sub(end, first), row_bytes),
                           context.get_constant(types.intp, 1))
        return context.get_dummy_value()

    return types.none(dst, src, lo, hi), codegen


@njit(cache=True, inline="always")
def cancelled(cfg):
    """True once the run playing on `cfg` is asked to stop (`CFG_CANCEL`, set by `cancel.py`)."""
    return load_relaxed(cfg, CFG_CANCEL) != 0


@njit(cache=True, inline="always")
def make_state(head, tail, head_i, tail_i, length, apple, nfree, moves, apples, outcome, was=None):
    """A `State` with every field int64, so states from any code path unify.

    `was`: the state a move starts from, whose counters (`STATE_FIELDS` after `ENGINE_FIELDS`) the
    new state carries; None for a game's first state (counters 0).
    """
    rules = (np.int64(head), np.int64(tail), np.int64(head_i), np.int64(tail_i), np.int64(length),
             np.int64(apple), np.int64(nfree), np.int64(moves), np.int64(apples), np.int64(outcome))
    if was is None:
        return State(*(rules + _COUNTERS_AT_START))
    return State(*(rules + was[_ENGINE_SIZE:]))


@njit(cache=True, inline="always")
def write_row(out, k, st):
    """Row `k` of a sweep's rows `out` (one row per game, `record`'s kernel columns) from the game's
    final `st`: each column from the `State` field of its name (`ROW_FIELDS`). Every writer of rows
    calls this (`sweep_chunk`, the user policies' sweeps; `write_rows` for the envs' state rows)."""
    for j in range(len(ROW_FIELDS)):
        out[k, j] = st[ROW_FIELDS[j]]


def write_rows(out, games, states):
    """Rows `games` of `out` from `states`, one `State` a row as an int64 array (the envs' state rows,
    columns in `STATE_FIELDS` order): `write_row` for a batch, in numpy."""
    out[games, : len(ROW_FIELDS)] = states[:, list(ROW_FIELDS)]


def counted(st, name, value):
    """`st` with its counter `name` (a `State` field, a string constant) set to `value`: the kernel
    line that fills a record column the rules do not keep, e.g. ``st = counted(st, "turns", st.turns + 1)``
    in `play_bound` (njit only)."""
    raise TypeError("counted is for njit code only")


@overload(counted, prefer_literal=True, inline="always")
def _counted(st, name, value):
    if not isinstance(name, types.StringLiteral) or name.literal_value not in STATE_FIELDS[_ENGINE_SIZE:]:
        raise TypingError(f"counted: the name must be one of the record's counters {STATE_FIELDS[_ENGINE_SIZE:]}, "
                          f"a string constant, not {name}")
    field = STATE_FIELDS.index(name.literal_value)

    def impl(st, name, value):
        return tuple_setitem(st, field, np.int64(value))

    return impl


@njit(cache=True, inline="always")
def with_apple(st, apple):
    """`st` with the apple at `apple`."""
    return make_state(st.head, st.tail, st.head_i, st.tail_i, st.length, apple, st.nfree, st.moves, st.apples,
                      st.outcome, st)


@njit(cache=True)
def new_game(cfg, nbr):
    """A game's arrays (slots G_CFG .. G_RNG) for the board `cfg`, `nbr`, before any game is set up."""
    n = cfg[CFG_ROWS] * cfg[CFG_COLS]
    return (
        cfg,
        nbr,
        zeros(n, np.int32),  # body ring
        zeros(n, np.uint8),  # occupancy
        zeros(n, np.int32),  # free cells
        zeros(n, np.int32),  # position of each cell in `free`
        zeros(2, np.uint64),  # RNG_STATE, RNG_SEED (`rng.py`)
    )


@njit(cache=True, inline="always")
def n_cells(g):
    """Cells of the game's board."""
    return g[G_BODY].shape[0]


@njit(cache=True, inline="always")
def body_cell(g, st, k):
    """k-th body cell counted from the tail (0 = tail, length-1 = head)."""
    i = st.tail_i + k
    n = n_cells(g)
    if i >= n:
        i -= n
    return g[G_BODY][i]


@njit(cache=True)
def begin_game(g, seed):
    """Clear the board and seed the game's stream; the policy lays the body next."""
    g[G_OCC][:] = 0
    g[G_RNG][RNG_STATE] = seed
    g[G_RNG][RNG_SEED] = seed


@njit(cache=True)
def start_path(rows, cols):
    """Boustrophedon Hamiltonian path (exists on every board): where start bodies lie
    for policies without a cycle of their own."""
    path = np.empty(rows * cols, np.int32)
    k = 0
    for r in range(rows):
        for i in range(cols):
            c = i if r % 2 == 0 else cols - 1 - i
            path[k] = r * cols + c
            k += 1
    return path


@compiled_only
def lay_body(g, path, head_pos, closed):
    """Lay the start body on `path` so the head is path[head_pos], tail behind it."""
    length = g[G_CFG][CFG_START_LENGTH]
    n = path.shape[0]
    for k in range(length):
        p = head_pos - (length - 1) + k
        if closed and p < 0:
            p += n
        g[G_BODY][k] = path[p]
        g[G_OCC][path[p]] = 1


@njit(cache=True)
def lay_body_random(g, path, closed):
    """Lay the start body on a uniformly random stretch of `path` (a cycle when closed)."""
    n = path.shape[0]
    length = g[G_CFG][CFG_START_LENGTH]
    if closed:
        head_pos = below(g[G_RNG], n)
    else:
        head_pos = length - 1 + below(g[G_RNG], n - length + 1)
    lay_body(g, path, head_pos, closed)


@compiled_only
def place_body(g, cells):
    """Lay an explicit start body (tail first, head last), e.g. from a replay."""
    for k in range(cells.shape[0]):
        g[G_BODY][k] = cells[k]
        g[G_OCC][cells[k]] = 1


@compiled_only
def fill_free(g):
    """Rebuild the free-cell list from the occupancy (once per game); returns its size."""
    occ, free, freepos = g[G_OCC], g[G_FREE], g[G_FREEPOS]
    m = 0
    for cell in range(occ.shape[0]):
        if occ[cell] == 0:
            free[m] = cell
            freepos[cell] = m
            m += 1
    return m


@njit(cache=True, inline="always")
def random_free_cell(g, nfree):
    """A uniformly random one of the `nfree` free cells, from the game's stream."""
    return g[G_FREE][below(g[G_RNG], nfree)]


@njit(cache=True)
def start_state(g, length, apple_from_stream):
    """State once a body of `length` cells lies in ring slots 0..length-1.

    Indexes the free cells and, when asked, drops the first apple from the stream.
    """
    nfree = fill_free(g)
    body = g[G_BODY]
    apple = -1
    outcome = WON if nfree == 0 else RUNNING
    if nfree > 0 and apple_from_stream:
        apple = random_free_cell(g, nfree)
    return make_state(body[length - 1], body[0], length - 1, 0, length, apple, nfree, 0, 0, outcome)


# The once-a-game helpers as the kernels call them (`kernel_copy`): Python and tests call the originals.
new_game_k, begin_game_k, lay_body_random_k, start_state_k = (
    kernel_copy(fn) for fn in (new_game, begin_game, lay_body_random, start_state))


@njit(cache=True, inline="always")
def run(g, ws, decide, st, max_steps, rec, listed_apples, user=None):
    """Play from state `st` with policy `decide` for at most `max_steps` moves.

    The game loop of every policy: bursts of `play_until` (the rules) between looks at the
    cancellation slot.

    rec: None, or a record (`new_record`: slots R_MOVE, R_HEAD, R_LENGTH, R_APPLE) of capacity >= max_steps
    indexed by move number, filled as the game goes. listed_apples: None (apples
    from the game's stream) or the apple cells of a replay, in order; an apple
    listed on the snake, or missing, ends the game with outcome BROKEN.

    user: None for our own policies (``decide(ws, g, st)``), or a user policy's
    njit ``decide(state, ws)``, then asked through `user_move` with ``ws`` the
    context tuple of `user_context`; a move outside 0..3 stops with BAD_MOVE.
    The None case is pruned at compile time, so our policies pay nothing for it.

    A run asked to stop (`cancelled`) returns outcome CANCELLED; the slot is read before each burst of
    `CANCEL_POLL_MOVES` moves, so a move costs what it did before: the inner loop's bound is the
    burst's end instead of `stop`. A caller that plays one move at a time (the envs' step) calls
    `play_until` instead: it has no long loop to stop, and a poll a move cost more than the move.
    """
    # The arrays are bound once, outside the bursts: bound per burst (`play_until`'s own unpacking),
    # the bursts cost the cycle follower's sweep 20-25 % (docs/performance.md, "Stopping a running game").
    cfg, nbr, body, occ, free, freepos, rng = g
    stop = st.moves + max_steps
    while st.outcome == RUNNING and st.moves < stop:
        if cancelled(cfg):
            st = make_state(st.head, st.tail, st.head_i, st.tail_i, st.length, st.apple, st.nfree, st.moves,
                            st.apples, CANCELLED, st)
            break
        st = play_bound(g, cfg, nbr, body, occ, free, freepos, rng, ws, decide, st,
                        min(stop, st.moves + CANCEL_POLL_MOVES), rec, listed_apples, user)
    return st


@njit(cache=True, inline="always")
def play_until(g, ws, decide, st, until, rec, listed_apples, user=None):
    """Play from state `st` until move number `until` or the game's end, by the rules; returns the state.

    The one implementation of the rules: `run`'s bursts, and the whole of a one-move step
    (``until = st.moves + 1``: the envs' `step_range`), which has no long loop to stop and so no
    cancellation poll (polling once a move cost the envs' step 4.7x, issue 38). Arguments as `run`'s.

    Arrays are bound once outside the loop and the step is written inline: a call per move that
    passes the arrays costs more than the move itself (argument marshalling, or reference counting
    when numba inlines it; bound inside the loop, numba's reference counts stay in it).
    """
    cfg, nbr, body, occ, free, freepos, rng = g
    return play_bound(g, cfg, nbr, body, occ, free, freepos, rng, ws, decide, st, until, rec, listed_apples, user)


@njit(cache=True, inline="always")
def play_bound(g, cfg, nbr, body, occ, free, freepos, rng, ws, decide, st, until, rec, listed_apples, user=None):
    """`play_until` with the game's arrays already bound from `g` (slots G_CFG .. G_RNG), for a caller
    that plays many bursts of one game (`run`) and so binds them once."""
    n = body.shape[0]
    max_moves = cfg[CFG_MAX_MOVES]
    first = st.moves
    # The move cap is folded into the loop's bound (a move at the cap makes the game STUCK, after the
    # loop), and the tail rule is read where a move enters the body: two registers fewer in the loop.
    last_move = min(until, max(max_moves, first + 1))
    while st.outcome == RUNNING and st.moves < last_move:
        if user is None:
            move = decide(ws, g, st)
        else:
            move = user_move(user, ws, g, st)
            if move < 0 or move > 3:
                st = make_state(st.head, st.tail, st.head_i, st.tail_i, st.length, st.apple, st.nfree, st.moves,
                                st.apples, BAD_MOVE, st)
                break
        moves = st.moves + 1
        target = nbr[ix(st.head * 4 + move)]
        if target < 0:
            st = make_state(st.head, st.tail, st.head_i, st.tail_i, st.length, st.apple, st.nfree, moves, st.apples,
                            DIED, st)
        else:
            hi = st.head_i + 1
            if hi == n:
                hi = 0
            if target == st.apple:
                # Growing: the tail stays, the apple cell leaves the free list.
                occ[ix(target)] = 1
                body[ix(hi)] = target
                last = st.nfree - 1
                pos = freepos[ix(target)]
                moved = free[ix(last)]
                free[ix(pos)] = moved
                freepos[ix(moved)] = pos
                outcome = RUNNING
                if last == 0:
                    outcome, apple = WON, -1
                elif listed_apples is None:
                    apple = free[ix(below(rng, last))]
                elif st.apples + 1 < listed_apples.shape[0] and occ[listed_apples[st.apples + 1]] == 0:
                    apple = listed_apples[st.apples + 1]
                else:
                    outcome, apple = BROKEN, -1
                st = make_state(target, st.tail, hi, st.tail_i, st.length + 1, apple, last, moves, st.apples + 1,
                                outcome, st)
            elif occ[ix(target)] != 0 and not (target == st.tail and cfg[CFG_TAIL_RULE] == TAIL_FOLLOW):
                st = make_state(st.head, st.tail, st.head_i, st.tail_i, st.length, st.apple, st.nfree, moves,
                                st.apples, DIED, st)
            else:
                tail = st.tail
                ti = st.tail_i + 1
                if ti == n:
                    ti = 0
                occ[ix(tail)] = 0
                occ[ix(target)] = 1
                body[ix(hi)] = target
                if target != tail:
                    # The freed tail cell takes the slot of the cell the head entered.
                    pos = freepos[ix(target)]
                    free[ix(pos)] = tail
                    freepos[ix(tail)] = pos
                outcome = RUNNING
                st = make_state(target, body[ix(ti)], hi, ti, st.length, st.apple, st.nfree, moves, st.apples,
                                outcome, st)
        if rec is not None:
            t = moves - 1
            rec[R_MOVE][t] = move
            rec[R_HEAD][t] = st.head
            rec[R_LENGTH][t] = st.length
            rec[R_APPLE][t] = st.apple
    if st.outcome == RUNNING and st.moves >= max_moves and st.moves > first:
        st = make_state(st.head, st.tail, st.head_i, st.tail_i, st.length, st.apple, st.nfree, st.moves, st.apples,
                        STUCK, st)
    return st


@njit(cache=True, inline="always")
def policy_state(g, st, neighbours):
    """What a user policy sees in position `st`."""
    return _policy_state(g, neighbours, st.head, st.tail, st.apple, st.length, st.moves)


@njit(cache=True, inline="always")
def start_policy_state(g, neighbours):
    """What a user policy's start_cycle sees: the rules, before the body is laid."""
    return _policy_state(g, neighbours, -1, -1, -1, 0, 0)


@njit(cache=True, inline="always")
def _policy_state(g, neighbours, head, tail, apple, length, moves):
    """The read-only `PolicyState` a user policy sees, from the game and these scalars."""
    cfg = g[G_CFG]
    return PolicyState(cfg[CFG_ROWS], cfg[CFG_COLS], head, tail, apple, length, moves, g[G_OCC], neighbours,
                       g[G_RNG][RNG_SEED], cfg[CFG_TAIL_RULE] == TAIL_FOLLOW, cfg[CFG_MAX_MOVES],
                       cfg[CFG_START_LENGTH])


@njit(cache=True)
def user_context(ws, nbr):
    """The context `run` asks a user policy through: its workspace, the (cells x 4)
    neighbour view, and an error record (E_KIND, E_VALUE, E_TYPE; a float returned in U_ERROR_REAL)."""
    return ws, nbr.reshape((nbr.shape[0] // 4, 4)), np.zeros(3, np.int64), np.zeros(1, np.float64)


def as_move(value):
    """(value as int64, value as float64, MOVE_* type) of what a numba policy returned (numba only)."""
    raise NotImplementedError("as_move runs only inside numba kernels")


@overload(as_move, inline="always")
def _as_move_typed(value):
    # Chosen by the type numba inferred for the policy's return: a float is never truncated
    # into a move, a bool never counts as 0 or 1 (the plain-Python path refuses both alike).
    if isinstance(value, types.Boolean):
        return lambda value: (np.int64(value), 0.0, MOVE_BOOL)
    if isinstance(value, types.Integer):
        kind = MOVE_INT if value.signed else MOVE_UINT
        return lambda value: (np.int64(value), 0.0, kind)
    if isinstance(value, types.Float):
        return lambda value: (np.int64(-1), np.float64(value), MOVE_FLOAT)
    raise TypingError(f"decide returns {value}, not an integer move 0..3")


@njit(cache=True, inline="always")
def user_move(user, ctx, g, st):
    """Ask a user policy for its move; anything but an integer 0..3 is recorded in the context
    and returned as -1."""
    move, real, kind = as_move(user(policy_state(g, st, ctx[U_NEIGHBOURS]), ctx[U_WS]))
    if (kind != MOVE_INT and kind != MOVE_UINT) or move < 0 or move > 3:
        ctx[U_ERROR][E_KIND] = ERR_MOVE
        ctx[U_ERROR][E_VALUE] = move
        ctx[U_ERROR][E_TYPE] = kind
        ctx[U_ERROR_REAL][E_REAL] = real
        return np.int64(-1)
    return move


@njit(cache=True)
def boxed_move(box, g, st):
    """The `decide` of drivers that choose a move outside a kernel: the move they put in `box[BOX_MOVE]`."""
    return box[BOX_MOVE]


@njit(cache=True)
def apply_move(g, st, box):
    """One move, `box[BOX_MOVE]`, by the rules (`run`): for drivers that decide outside a kernel
    (plain-Python policies, environments). A move outside 0..3 must be refused by the caller."""
    return run(g, box, boxed_move, st, 1, None, None)


@njit(cache=True)
def start_default(g, seed, path):
    """Start a game the way every policy without its own cycle does: the body on a uniformly
    random stretch of the open path `path` (`start_path`), then the first apple."""
    begin_game_k(g, seed)
    lay_body_random_k(g, path, False)
    return start_state_k(g, g[G_CFG][CFG_START_LENGTH], True)


@njit(cache=True, inline="always")
def start_game(g, ws, reset, seed):
    """Set up game `seed`: its stream, the policy's `reset` (start body), then the first apple."""
    begin_game_k(g, seed)
    reset(ws, g)
    return start_state_k(g, g[G_CFG][CFG_START_LENGTH], True)


@njit(cache=True, inline="always")
def sweep_chunk(alloc, reset, decide, cfg, nbr, params, base_seed, first, out, nblocks):
    """Play games first .. first+len(out)-1 of a sweep; one row of `out` per game.

    out columns: the record's kernel columns (`write_row`). Games are split into
    `nblocks` contiguous blocks run in parallel; each block owns its game state
    and policy workspace, and each game's randomness comes from its index only.
    """
    count = out.shape[0]
    for b in prange(nblocks):
        g = new_game_k(cfg, nbr)
        ws = alloc(cfg, nbr, params)
        lo = count * b // nblocks
        hi = count * (b + 1) // nblocks
        for k in range(lo, hi):
            st = start_game(g, ws, reset, game_seed(base_seed, first + k))
            st = run(g, ws, decide, st, cfg[CFG_MAX_MOVES], None, None)
            if st.outcome == CANCELLED:
                break  # the chunk is dropped whole (`cancel.call_kernel`): its rows are not results
            write_row(out, k, st)


@compiled_only
def new_record(capacity):
    """A game record, by move number (slots R_MOVE, R_HEAD, R_LENGTH, R_APPLE)."""
    return (
        np.empty(capacity, np.uint8),  # R_MOVE
        np.empty(capacity, np.int32),  # R_HEAD
        np.empty(capacity, np.int32),  # R_LENGTH
        np.empty(capacity, np.int32),  # R_APPLE
    )


@compiled_only
def _grown(rec, used):
    """A record of twice the capacity holding the first `used` moves of `rec`."""
    # An element loop, not slice assignment: numba's slice assignment compiles its broadcast
    # shape check and error text (seconds of every cold `play`) for copies that cannot mismatch.
    bigger = new_record(2 * rec[R_MOVE].shape[0])
    for i in range(used):
        bigger[R_MOVE][i] = rec[R_MOVE][i]
        bigger[R_HEAD][i] = rec[R_HEAD][i]
        bigger[R_LENGTH][i] = rec[R_LENGTH][i]
        bigger[R_APPLE][i] = rec[R_APPLE][i]
    return bigger


@njit(cache=True, inline="always")
def run_recorded(g, ws, decide, st, listed_apples, capacity, user=None):
    """`run` to the end of the game, recording every move; returns (state, record)."""
    rec = new_record(max(capacity, 16))
    while st.outcome == RUNNING:
        room = rec[R_MOVE].shape[0] - st.moves
        if room == 0:
            rec = _grown(rec, st.moves)
            room = rec[R_MOVE].shape[0] - st.moves
        st = run(g, ws, decide, st, room, rec, listed_apples, user)
    return st, rec


@njit(cache=True, inline="always")
def play_recorded(alloc, reset, decide, cycle_of, cfg, nbr, params, seed):
    """Play one game from `seed`, recording what a replay needs.

    Returns (outcome, start body tail-first, moves uint8, apples int32, cycle order).
    """
    # `record_game` written out here: every level of numba's inline="always" inlining processes all
    # the code inlined below it again (the game loop, `run` and `play_bound`), so each level it saves
    # is compile time saved in every policy's play kernel.
    g = new_game_k(cfg, nbr)
    ws = alloc(cfg, nbr, params)
    st = start_game(g, ws, reset, seed)
    cycle = cycle_of(ws).copy()
    body0 = g[G_BODY][: st.length].copy()
    length0 = st.length
    first_apple = st.apple
    rec = new_record(4 * n_cells(g))
    while st.outcome == RUNNING:
        room = rec[R_MOVE].shape[0] - st.moves
        if room == 0:
            rec = _grown(rec, st.moves)
            room = rec[R_MOVE].shape[0] - st.moves
        st = run(g, ws, decide, st, room, rec, None)
    return st.outcome, body0, rec[R_MOVE][: st.moves].copy(), eaten_apples(first_apple, length0, rec, st.moves), cycle


@njit(cache=True, inline="always")
def record_game(g, ws, decide, st, user):
    """Play from the start state `st` to the end, recording what a replay needs:
    (final state, start body tail first, moves uint8, apples int32)."""
    body0 = g[G_BODY][: st.length].copy()
    length0 = st.length
    first_apple = st.apple
    st, rec = run_recorded(g, ws, decide, st, None, 4 * n_cells(g), user)
    return st, body0, rec[R_MOVE][: st.moves].copy(), eaten_apples(first_apple, length0, rec, st.moves)


@compiled_only
def eaten_apples(first_apple, length0, rec, count):
    """The replay's apple list: the first apple, then the apple dropped after each meal."""
    apples = np.empty(count + 1, np.int32)
    m = 0
    if first_apple >= 0:
        apples[0] = first_apple
        m = 1
    previous = length0
    for t in range(count):
        if rec[R_LENGTH][t] != previous and rec[R_APPLE][t] >= 0:
            apples[m] = rec[R_APPLE][t]
            m += 1
        previous = rec[R_LENGTH][t]
    return apples[:m].copy()


@compiled_only
def _forced_move(moves, g, st):
    """The `decide` of `trace_moves`: the recorded move of this move number."""
    return moves[st.moves]


@njit(cache=True)
def trace_moves(cfg, nbr, body0, moves, apples, seed):
    """Re-play `moves` from `body0`: the rules applied to a fixed move list.

    Apples come from `apples` (a replay) when it is non-empty, else from the
    stream of `seed`. Returns (outcome, moves applied, record) where record holds,
    per move t: the move, the head after it, the length, the apple on the board
    (-1 if none): slots R_MOVE, R_HEAD, R_LENGTH, R_APPLE. Outcome BROKEN: the apple list puts an apple on the snake or
    runs out. Stops after the move that ends the game.
    """
    g = new_game_k(cfg, nbr)
    begin_game_k(g, seed)
    place_body(g, body0)
    rec = new_record(max(moves.shape[0], 1))
    if apples.shape[0] > 0:
        st = start_state_k(g, body0.shape[0], False)
        if st.outcome == RUNNING:
            if g[G_OCC][apples[0]] != 0:
                return BROKEN, 0, rec
            st = with_apple(st, apples[0])
        st = run(g, moves, _forced_move, st, moves.shape[0], rec, apples)
    else:
        st = start_state_k(g, body0.shape[0], True)
        st = run(g, moves, _forced_move, st, moves.shape[0], rec, None)
    return st.outcome, st.moves, rec


@njit(cache=True)
def set_position(cfg, nbr, body, apple):
    """A game in a given position (body tail first, apple cell): for hand-made test positions."""
    g = new_game_k(cfg, nbr)
    begin_game_k(g, np.uint64(0))
    place_body(g, body)
    st = start_state_k(g, body.shape[0], False)
    return g, with_apple(st, apple)
