"""Users' own policies: ``decide(state, ws) -> move``, plain Python or numba ``@njit``.

A numba ``decide`` (and ``start_cycle``) is passed into the kernels below, which
numba specialises on it: the engine's own `run` loop asks it for each move through
`engine.user_move`, with no Python call per move. A plain-Python ``decide`` is
driven from Python, one `engine.apply_move` kernel call per move, so both paths
apply the same rules to the same seeds and play identical games.

Sweeps of a numba policy run one nogil kernel call per block of games on Python
threads, each with its own workspace (``alloc(rows, cols)``, made once per worker
thread and reused); plain-Python policies run on the thread `cancel.call_kernel`
runs kernels on. Both stop when their run is cancelled: the engine's `run` returns
CANCELLED, which no row records.
"""

from __future__ import annotations

import operator
import os
import re
import threading
from dataclasses import dataclass
from typing import Callable, NamedTuple

import numba
import numpy as np
from numba import njit

from fastsnake.snake.board import CFG_COLS, CFG_MAX_MOVES, CFG_ROWS, CFG_START_LENGTH, CFG_TAIL_RULE, TAIL_FOLLOW
from fastsnake.snake.cancel import is_cancelled, on_daemon_threads
from fastsnake.snake.cycles import check_cycle_board
from fastsnake.snake.engine import (
    BAD_MOVE,
    BOX_MOVE,
    CANCELLED,
    E_KIND,
    E_REAL,
    E_TYPE,
    E_VALUE,
    ERR_CYCLE,
    ERR_MOVE,
    ERR_NONE,
    G_BODY,
    G_CFG,
    G_NBR,
    G_OCC,
    G_RNG,
    MOVE_BOOL,
    MOVE_FLOAT,
    MOVE_UINT,
    RUNNING,
    U_ERROR,
    U_ERROR_REAL,
    U_NEIGHBOURS,
    U_WS,
    PolicyState,
    apply_move,
    begin_game,
    begin_game_k,
    lay_body_random,
    lay_body_random_k,
    new_game,
    new_game_k,
    record_game,
    run,
    start_path,
    start_policy_state,
    start_state,
    start_state_k,
    user_context,
    write_row,
)
from fastsnake.snake.policies.protocol import EnginePolicy, PolicyError, check_name, no_params
from fastsnake.snake.rng import RNG_SEED, game_seed

MOVE_RULE = "a move must be 0 (up), 1 (right), 2 (down) or 3 (left)"


class _Record(NamedTuple):
    """What a plain-Python game records for its replay: the moves and the apples, in order."""

    moves: list
    apples: list


class _Failure(NamedTuple):
    """The first game of a sweep block whose policy misbehaved, and the kernel's error record."""

    game: int
    error: np.ndarray


@dataclass(frozen=True)
class Policy:
    """A user policy: ``decide(state, ws) -> move`` plus optional helpers.

    Parameters
    ----------
    decide : callable
        ``decide(state, ws)`` returns the next move, 0 up, 1 right, 2 down, 3 left.
        ``state`` has the fields ``rows, cols, head, tail, apple, length, moves,
        occupied`` (flat uint8, 1 = body), ``neighbours`` (cells x 4, -1 off the
        board), ``seed`` (the game's seed) and the rules: ``tail_follows`` (True when
        the head may enter the cell the tail leaves), ``max_moves``, ``start_length``.
        A move is an integer 0..3 of any integer type; floats and bools are refused.
        A numba ``@njit`` function is compiled into the engine loop; a plain function
        is called from Python.
    alloc : callable, optional
        ``alloc(rows, cols)`` returns the workspace ``ws`` (a tuple of arrays), made
        once per worker thread and reused across games. Without it ``ws`` is ``()``.
    start_cycle : callable, optional
        ``start_cycle(state, ws)`` returns the cells of a Hamiltonian cycle in order;
        the start body is then laid along it (as our cycle policies do). Must be
        ``@njit`` when ``decide`` is. Without it the body lies on the row-by-row
        path, as for our other policies.
    summary : str
        One paragraph for ``fastsnake policies``.
    name : str, optional
        The name it registers under when passed to `fastsnake.sweep` etc. as an object
        (default: the ``decide`` function's name, with ``-2``, ``-3`` ... when taken).

    Examples
    --------
    >>> import fastsnake
    >>> def right_then_down(state, ws):
    ...     return 1 if state.neighbours[state.head, 1] >= 0 else 2
    >>> fastsnake.sweep(fastsnake.Policy(right_then_down), 6, 10).summary["deaths"]
    10
    """

    decide: Callable
    alloc: Callable | None = None
    start_cycle: Callable | None = None
    summary: str = ""
    name: str | None = None

    def __post_init__(self):
        for role in ("decide", "alloc", "start_cycle"):
            value = getattr(self, role)
            if (value is not None or role == "decide") and not callable(value):
                raise PolicyError(f"Policy {role}={value!r} is not callable")
        if self.name is not None:
            check_name(self.name)

    @property
    def compiled(self) -> bool:
        """True when ``decide`` is numba-compiled and runs inside the engine loop."""
        return is_njit(self.decide)


def is_njit(fn) -> bool:
    return isinstance(fn, numba.core.dispatcher.Dispatcher)


# -- kernels ------------------------------------------------------------------------------

@njit(cache=True)
def is_cycle_of_board(cells, nbr):
    """True when `cells` visits every cell once, each step (and the last back to the first) to a neighbour."""
    n = nbr.shape[0] // 4
    if cells.shape[0] != n:
        return False
    seen = np.zeros(n, np.uint8)
    for k in range(n):
        c = cells[k]
        if c < 0 or c >= n or seen[c]:
            return False
        seen[c] = 1
    for k in range(n):
        a, b = cells[k], cells[(k + 1) % n]
        if nbr[a * 4] != b and nbr[a * 4 + 1] != b and nbr[a * 4 + 2] != b and nbr[a * 4 + 3] != b:
            return False
    return True


@njit(cache=True)
def _unused_decide(ws, g, st):
    """Stands in for our policies' decide: with a user policy `run` asks `user_move`, but numba
    types both branches, so this one must exist with the (ws, g, st) signature."""
    return 0


@njit(cache=True, inline="always")
def _start(g, ctx, start_cycle, path, seed, order):
    """Lay the start body (on the policy's cycle when it has one) and drop the first apple.
    With a cycle, `order[cell]` is filled with its position along it."""
    begin_game_k(g, seed)
    cfg = g[G_CFG]
    if start_cycle is None:
        lay_body_random_k(g, path, False)
    else:
        state = start_policy_state(g, ctx[U_NEIGHBOURS])
        cells = np.asarray(start_cycle(state, ctx[U_WS])).astype(np.int32)
        if not is_cycle_of_board(cells, g[G_NBR]):
            ctx[U_ERROR][E_KIND] = ERR_CYCLE
            return start_state_k(g, 1, False)
        for k in range(cells.shape[0]):
            order[cells[k]] = k
        lay_body_random_k(g, cells, True)
    return start_state_k(g, cfg[CFG_START_LENGTH], True)


# Never cache=True: a cached kernel taking `decide` as an argument keeps every policy it saw in
# one index, and loading it imports all their modules (see `user_cache`).
@njit(nogil=True)
def user_sweep_games(decide, start_cycle, ws, cfg, nbr, base_seed, first, out):
    """Games of a sweep for a user policy passed in (compiled per process: see `user_cache`)."""
    return sweep_games(decide, start_cycle, ws, cfg, nbr, base_seed, first, out)


@njit(cache=True, inline="always")
def sweep_games(decide, start_cycle, ws, cfg, nbr, base_seed, first, out):
    """Games first .. first+len(out)-1 of a sweep, rows as `engine.sweep_chunk` writes them.

    Returns (games finished, (error record, real value)): play stops at the first game whose
    policy misbehaved (the record says how; that game's row is not written), or that was cancelled
    (the record says nothing).
    """
    g = new_game_k(cfg, nbr)
    ctx = user_context(ws, nbr)
    path = start_path(cfg[CFG_ROWS], cfg[CFG_COLS])
    order = np.empty(nbr.shape[0] // 4, np.int32)
    for k in range(out.shape[0]):
        st = _start(g, ctx, start_cycle, path, game_seed(base_seed, first + k), order)
        if ctx[U_ERROR][E_KIND] != ERR_NONE:
            return k, (ctx[U_ERROR], ctx[U_ERROR_REAL])
        st = run(g, ctx, _unused_decide, st, cfg[CFG_MAX_MOVES], None, None, decide)
        if st.outcome == BAD_MOVE or st.outcome == CANCELLED:
            return k, (ctx[U_ERROR], ctx[U_ERROR_REAL])
        write_row(out, k, st)
    return out.shape[0], (ctx[U_ERROR], ctx[U_ERROR_REAL])


@njit(nogil=True)  # never cache=True: see user_sweep_games
def user_play_game(decide, start_cycle, ws, cfg, nbr, seed):
    """One recorded game of a user policy passed in (compiled per process: see `user_cache`)."""
    return play_recorded_game(decide, start_cycle, ws, cfg, nbr, seed)


@njit(cache=True, inline="always")
def play_recorded_game(decide, start_cycle, ws, cfg, nbr, seed):
    """One recorded game: (outcome, body0, moves, apples, cycle order or empty, (error record, real value))."""
    g = new_game_k(cfg, nbr)
    ctx = user_context(ws, nbr)
    order = np.empty(nbr.shape[0] // 4, np.int32)
    st = _start(g, ctx, start_cycle, start_path(cfg[CFG_ROWS], cfg[CFG_COLS]), seed, order)
    if ctx[U_ERROR][E_KIND] != ERR_NONE:
        return (BAD_MOVE, np.empty(0, np.int32), np.empty(0, np.uint8), np.empty(0, np.int32), order,
                (ctx[U_ERROR], ctx[U_ERROR_REAL]))
    st, body0, moves, apples = record_game(g, ctx, _unused_decide, st, decide)
    if start_cycle is None:
        order = order[:0]
    return st.outcome, body0, moves, apples, order, (ctx[U_ERROR], ctx[U_ERROR_REAL])


# -- the plain-Python driver ---------------------------------------------------------------

class _PythonGame:
    """One game driven from Python: the same kernels (start, `apply_move`) as the engine path."""

    def __init__(self, policy: Policy, name: str, cfg, nbr, ws):
        self.policy, self.name, self.cfg, self.nbr, self.ws = policy, name, cfg, nbr, ws
        self.rows, self.cols = int(cfg[CFG_ROWS]), int(cfg[CFG_COLS])
        self.neighbours = nbr.reshape(-1, 4)
        self.g = new_game(cfg, nbr)
        self.path = start_path(self.rows, self.cols)
        self.box = np.zeros(1, np.int64)
        self.rules = (bool(cfg[CFG_TAIL_RULE] == TAIL_FOLLOW), int(cfg[CFG_MAX_MOVES]), int(cfg[CFG_START_LENGTH]))

    def start(self, seed):
        g = self.g
        seed = np.uint64(seed)
        begin_game(g, seed)
        order = None
        if self.policy.start_cycle is None:
            lay_body_random(g, self.path, False)
        else:
            state = PolicyState(self.rows, self.cols, -1, -1, -1, 0, 0, g[G_OCC], self.neighbours, int(seed),
                                *self.rules)
            cells = _call(self.name, "start_cycle", self.policy.start_cycle, state, self.ws)
            try:
                cells = np.asarray(cells).astype(np.int32).reshape(-1)
            except (TypeError, ValueError):
                cells = np.empty(0, np.int32)
            if not is_cycle_of_board(cells, self.nbr):
                raise _cycle_error(self.name, self.rows, self.cols)
            order = np.empty(len(cells), np.int32)
            order[cells] = np.arange(len(cells), dtype=np.int32)
            lay_body_random(g, cells, True)
        return start_state(g, int(self.cfg[CFG_START_LENGTH]), True), order

    def play(self, st, game, record=None):
        g, box, decide, seed = self.g, self.box, self.policy.decide, int(g_seed(self.g))
        occupied, neighbours, ws, rows, cols = g[G_OCC], self.neighbours, self.ws, self.rows, self.cols
        follows, max_moves, start_length = self.rules
        while st.outcome == RUNNING:
            state = PolicyState(rows, cols, st.head, st.tail, st.apple, st.length, st.moves, occupied, neighbours, seed,
                                follows, max_moves, start_length)
            move = _call(self.name, "decide", decide, state, ws)
            value, move = move, move_of(move)
            if move is None:
                raise _move_error(self.name, shown(value), game, st.moves)
            box[BOX_MOVE] = move
            length = st.length
            st = apply_move(g, st, box)
            if record is not None:
                record.moves.append(move)
                if st.length != length and st.apple >= 0:
                    record.apples.append(st.apple)
        return st


def g_seed(g):
    return g[G_RNG][RNG_SEED]


def _call(name, role, fn, *args):
    try:
        return fn(*args)
    except Exception as exc:
        raise PolicyError(f"policy {name!r}: {role} raised {type(exc).__name__}: {exc}") from None


def move_of(value) -> int | None:
    """The move `value` is (an integer 0..3 of any integer type), or None: floats, bools and
    anything else are refused, as the numba path refuses them (`engine.as_move`)."""
    if isinstance(value, (bool, np.bool_)):
        return None
    try:
        value = operator.index(value)  # ints of every kind; floats and the rest raise
    except TypeError:
        return None
    return value if 0 <= value <= 3 else None


def shown(value) -> str:
    """`value` as a move error shows it, the same whichever path (numba or Python) returned it."""
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        return repr(float(value))
    return repr(value)


def _recorded_value(error) -> str:
    """`shown` of the value a numba policy returned, from the kernel's (error record, real value)."""
    error, real = error
    kind, value = int(error[E_TYPE]), int(error[E_VALUE])
    if kind == MOVE_FLOAT:
        return shown(float(real[E_REAL]))
    if kind == MOVE_BOOL:
        return shown(bool(value))
    if kind == MOVE_UINT:
        return shown(np.array(value, np.int64).view(np.uint64)[()])
    return shown(value)


def _move_error(name, value: str, game, moves) -> PolicyError:
    return PolicyError(f"policy {name!r} returned {value} in game {game} at move {moves + 1}; {MOVE_RULE}")


def _cycle_error(name, rows, cols) -> PolicyError:
    return PolicyError(f"policy {name!r}: start_cycle returned no Hamiltonian cycle of the {rows}x{cols} board "
                       f"(it must list every cell once, each next to the one before, the last next to the first)")


_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_WHERE = re.compile(r'^File "(?P<file>[^"]+)", line (?P<line>\d+)')
_NOT_A_REASON = ("Failed in", "During:", "File ", "No implementation of function", "There are ", "- Of which",
                 "Overload in function", "With argument", "Rejected as", "raised from", "<source elided>", ">>>")


def _compile_error(name, exc, functions) -> PolicyError:
    """One line from a numba compile error: its first real reason and where in the user's code.

    numba's message nests pipeline stages and our kernels' frames around the reason, in ANSI
    colours; the reason is the specific TypingError an overload raised if there is one (e.g.
    `engine.as_move` refusing the returned type), else the first line that is not a frame.
    """
    lines = [line.strip() for line in _ANSI.sub("", str(exc)).splitlines() if line.strip()]
    specific = [line.split("TypingError:", 1)[1].strip() for line in lines if line.startswith("TypingError:")]
    reasons = specific or [line for line in lines if not line.startswith(_NOT_A_REASON)]
    reason = re.sub(r"\bPolicyState\(.*\)", "PolicyState", reasons[0] if reasons else "")
    return PolicyError(f"policy {name!r}: numba cannot compile it into the engine: {reason[:300]}"
                       f"{_user_place(lines, functions)}")


def _user_place(lines, functions) -> str:
    """' (file, line N)' of the first frame numba names in the user's files, else where the function starts."""
    codes = [getattr(getattr(fn, "py_func", fn), "__code__", None) for fn in functions if fn is not None]
    codes = [code for code in codes if code is not None]
    files = {os.path.abspath(code.co_filename) for code in codes}
    for line in lines:
        match = _WHERE.match(line)
        if match and os.path.abspath(match["file"]) in files:
            return f" ({os.path.abspath(match['file'])}, line {match['line']})"
    return f" ({codes[0].co_filename}, line {codes[0].co_firstlineno})" if codes else ""


# -- the adapter: a user Policy as an EnginePolicy ----------------------------------------------

class UserRunner:
    """Kernels with the `EnginePolicy` signatures for one user policy, and its workspaces."""

    def __init__(self, name: str, policy: Policy):
        self.name, self.policy = name, policy
        self.compiled = policy.compiled and (policy.start_cycle is None or is_njit(policy.start_cycle))
        self._spare: dict[tuple, list] = {}
        self._lock = threading.Lock()
        self._cached = False  # not looked up yet; then a module of cached kernels, or None

    # workspaces are reused: one per concurrent block, made by alloc on first need
    def _take_ws(self, rows, cols):
        with self._lock:
            spare = self._spare.setdefault((rows, cols), [])
            if spare:
                return spare.pop()
        if self.policy.alloc is None:
            return ()
        ws = _call(self.name, "alloc", self.policy.alloc, rows, cols)
        if isinstance(ws, list):
            ws = tuple(ws)
        elif not isinstance(ws, tuple):
            ws = (ws,)
        return ws

    def _give_ws(self, rows, cols, ws):
        with self._lock:
            self._spare[(rows, cols)].append(ws)

    def params(self, config, options) -> np.ndarray:
        if self.policy.start_cycle is not None:
            check_cycle_board(config.rows, config.cols)
        return no_params(config, options)

    def sweep(self, cfg, nbr, params, base_seed, first, out, nblocks):
        rows, cols = int(cfg[CFG_ROWS]), int(cfg[CFG_COLS])
        if not self.compiled:
            return self._sweep_python(cfg, nbr, base_seed, int(first), out)
        threads = max(1, numba.get_num_threads())
        count = out.shape[0]
        nblocks = max(1, min(count, nblocks))
        bounds = [(count * b // nblocks, count * (b + 1) // nblocks) for b in range(nblocks)]

        def block(lo, hi):
            ws = self._take_ws(rows, cols)
            try:
                done, error = self._kernel(user_sweep_games, ws, cfg, nbr, base_seed, np.int64(first + lo),
                                           out[lo:hi])
            finally:
                self._give_ws(rows, cols, ws)
            if done < hi - lo and not is_cancelled(cfg):  # a cancelled block is no failure (`cancel.py`)
                return _Failure(first + lo + done, error)
            return None

        if threads == 1 or nblocks == 1:
            failures = [block(lo, hi) for lo, hi in bounds]
        else:
            failures = on_daemon_threads(lambda b: block(*b), bounds, threads)
        failures = [f for f in failures if f is not None]
        if failures:
            game, error = min(failures, key=lambda f: f.game)
            self._raise_recorded(game, error, cfg, nbr, base_seed)

    def _kernel(self, kernel, ws, *args):
        policy = self.policy
        try:
            if self._cached is False:
                from fastsnake.snake.policies.user_cache import cached_kernels

                self._cached = cached_kernels(policy.decide, policy.start_cycle)
            if self._cached is not None:
                return getattr(self._cached, "sweep" if kernel is user_sweep_games else "play")(ws, *args)
            return kernel(policy.decide, policy.start_cycle, ws, *args)
        except numba.core.errors.NumbaError as exc:
            raise _compile_error(self.name, exc, (policy.decide, policy.start_cycle)) from None
        except PolicyError:
            raise
        except Exception as exc:
            raise PolicyError(f"policy {self.name!r} raised {type(exc).__name__}: {exc}") from None

    def _raise_recorded(self, game, error, cfg, nbr, base_seed):
        kind = error[0][E_KIND]
        if kind == ERR_CYCLE:
            raise _cycle_error(self.name, int(cfg[CFG_ROWS]), int(cfg[CFG_COLS]))
        if kind == ERR_MOVE:
            # Find the move number by replaying that one game (cheap, and only on failure).
            seed = game_seed(np.uint64(base_seed), np.uint64(game))
            _, _, moves, _, _, _ = self._play_compiled(cfg, nbr, seed)
            raise _move_error(self.name, _recorded_value(error), game, len(moves))
        raise PolicyError(f"policy {self.name!r} failed in game {game}")

    def _play_compiled(self, cfg, nbr, seed):
        rows, cols = int(cfg[CFG_ROWS]), int(cfg[CFG_COLS])
        ws = self._take_ws(rows, cols)
        try:
            return self._kernel(user_play_game, ws, cfg, nbr, np.uint64(seed))
        finally:
            self._give_ws(rows, cols, ws)

    def _sweep_python(self, cfg, nbr, base_seed, first, out):
        rows, cols = int(cfg[CFG_ROWS]), int(cfg[CFG_COLS])
        ws = self._take_ws(rows, cols)
        try:
            game = _PythonGame(self.policy, self.name, cfg, nbr, ws)
            for k in range(out.shape[0]):
                st, _ = game.start(game_seed(np.uint64(base_seed), np.uint64(first + k)))
                st = game.play(st, first + k)
                if st.outcome == CANCELLED:
                    return  # `cancel.call_kernel` drops the chunk
                write_row.py_func(out, k, st)  # the row `sweep_games` writes, in Python
        finally:
            self._give_ws(rows, cols, ws)

    def play(self, cfg, nbr, params, seed):
        if self.compiled:
            outcome, body0, moves, apples, order, error = self._play_compiled(cfg, nbr, seed)
            if error[0][E_KIND] == ERR_CYCLE:
                raise _cycle_error(self.name, int(cfg[CFG_ROWS]), int(cfg[CFG_COLS]))
            if error[0][E_KIND] == ERR_MOVE:
                raise _move_error(self.name, _recorded_value(error), "played", len(moves))
            return outcome, body0, moves, apples, order
        rows, cols = int(cfg[CFG_ROWS]), int(cfg[CFG_COLS])
        ws = self._take_ws(rows, cols)
        try:
            game = _PythonGame(self.policy, self.name, cfg, nbr, ws)
            st, order = game.start(seed)
            body0 = game.g[G_BODY][: st.length].copy()
            record = _Record([], [st.apple] if st.apple >= 0 else [])
            st = game.play(st, "played", record)
        finally:
            self._give_ws(rows, cols, ws)
        cycle = order if order is not None else np.empty(0, np.int32)
        return (st.outcome, body0, np.asarray(record.moves, np.uint8), np.asarray(record.apples, np.int32), cycle)


def user_engine_policy(name: str, policy: Policy, origin: str) -> EnginePolicy:
    runner = UserRunner(name, policy)
    summary = policy.summary or (policy.decide.__doc__ or "").strip() or "a user policy"
    return EnginePolicy(
        name=name,
        summary=summary,
        sweep_kernel=runner.sweep,
        play_kernel=runner.play,
        make_params=runner.params,
        guaranteed=False,
        options={},
        origin=origin,
        kind="numba" if runner.compiled else "python",
    )
