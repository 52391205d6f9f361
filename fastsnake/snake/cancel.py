"""Stopping running games: the cancellation slot the engine polls, and the signals that set it.

Python runs a signal handler only between bytecodes of the main thread, never while that thread
is inside a kernel. So a kernel that may run for long is called through `call_kernel`: it runs on
a worker thread (our kernels and users' numba kernels are compiled ``nogil=True``; a plain-Python
policy yields the GIL as any Python thread does) while the main thread waits, interruptibly, for
it. A signal handler can then set the run's `CFG_CANCEL` slot, which the engine reads every
`engine.CANCEL_POLL_MOVES` moves: the kernel returns within that many moves, and `call_kernel`
raises `Cancelled` instead of handing back what it left unfinished (a cancelled game is never a
result). An exception raised in the waiting main thread (a second signal, or Ctrl-C where no
handler of ours is installed) leaves at once, even when the kernel does not return (a user's
``decide`` that loops for ever): the kernel is cancelled and left to its daemon thread, which the
process's exit ends.

`stop_requests` is how sweeps take SIGINT and SIGTERM: the first asks every running kernel to
stop (its unfinished chunk is dropped, every finished one kept), the second stops at once.
"""

from __future__ import annotations

import signal
import threading
from contextlib import contextmanager

import numba

from fastsnake import signals
from fastsnake.signals import DaemonCall, announce, note_stop, signal_received
from fastsnake.snake.board import CFG_CANCEL

# The config arrays of kernels running now (a signal handler cancels them all), and the stop
# flags of the `stop_requests` blocks open now (a kernel started after a stop request starts
# cancelled). Lists, not sets: numpy arrays hash by content.
_running: list = []
_stops: list = []


class Cancelled(KeyboardInterrupt):
    """A kernel stopped early because its run was asked to stop; what it computed is incomplete
    and dropped. A KeyboardInterrupt, so code that stops on Ctrl-C stops on it too."""


def cancel(cfg) -> None:
    """Ask every game playing on the config array `cfg` to stop (see `engine.cancelled`)."""
    cfg[CFG_CANCEL] = 1


def cancel_running() -> None:
    """Ask every kernel running now in this process to stop."""
    for cfg in list(_running):
        cancel(cfg)


def is_cancelled(cfg) -> bool:
    return bool(cfg[CFG_CANCEL])


def call_kernel(kernel, cfg, *args):
    """``kernel(cfg, *args)`` so that it can be stopped; `Cancelled` when it was.

    From the main thread it runs on a worker thread while the main thread waits: a plain-Python
    policy's game loop too, so that no signal's exception is raised inside a numba call (numba
    building a result tuple with an exception pending crashes the process). Off the main thread
    there are no signals to wait for: a direct call.
    """
    _running.append(cfg)
    try:
        if any(stop["stop"] for stop in _stops):
            cancel(cfg)
        if threading.current_thread() is threading.main_thread():
            result = _on_worker(kernel, cfg, args)
        else:
            result = kernel(cfg, *args)
    finally:
        _forget(cfg)
    if is_cancelled(cfg):
        raise Cancelled("the run was asked to stop")
    return result


def compile_first(entry, cfg, *args) -> float:
    """Compile (or load from the cache) the numba kernel that ``call_kernel(entry, cfg, *args)``
    would run, without running it; returns the seconds that took (0.0 when it was ready, or for a
    plain-Python kernel). So a caller times the run alone and reports the compile apart
    (``compile_seconds``). A kernel entry that picks among variants by the games' parameters (a
    ``ChosenKernel``: ``rule`` and ``kernels``) compiles only the variant these arguments pick. The
    compile runs as `call_kernel` does, on a worker thread while this one waits for Ctrl-C."""
    import time

    while hasattr(entry, "rule") and hasattr(entry, "kernels"):
        entry = entry.kernels[entry.rule(args[1])]
    if not (hasattr(entry, "compile") and hasattr(entry, "signatures")):
        return 0.0
    full = (cfg, *args)
    types = tuple(entry.typeof_pyval(a) for a in full)
    if types in entry.signatures:
        return 0.0
    t0 = time.perf_counter()
    call_kernel(lambda _cfg: entry.compile(types), cfg)
    return time.perf_counter() - t0


def _forget(cfg) -> None:
    for k, running in enumerate(_running):
        if running is cfg:
            del _running[k]
            return


def _with_threads(fn):
    """`fn` as called on another thread with this thread's numba thread count (a per-thread setting)."""
    threads = numba.get_num_threads()

    def call(*args):
        numba.set_num_threads(threads)
        return fn(*args)

    return call


def _on_worker(kernel, cfg, args):
    work = _with_threads(kernel)
    call = None
    try:
        call = DaemonCall(lambda: work(cfg, *args), "fastsnake-kernel")
        announce("kernel")
        call.finished.wait()  # a signal handler runs here, and what it raises leaves at once
    except BaseException:
        cancel(cfg)
        raise
    return call.result()


def on_daemon_threads(fn, items: list, threads: int) -> list:
    """[fn(item) for item in items] on `threads` daemon threads, in order, each with this thread's
    numba thread count; the first error is raised (`fastsnake.signals.on_daemon_threads`).

    Daemon threads, not a thread pool: a pool is joined when the process exits, so a kernel that
    never returns (left behind by a second signal) would keep the process alive.
    """
    return signals.on_daemon_threads(_with_threads(fn), items, threads, name="fastsnake-block")


@contextmanager
def stop_requests():
    """SIGINT and SIGTERM ask the run to stop (``flag["stop"]``, ``flag["signal"]`` the first
    signal): every kernel running is cancelled (its unfinished chunk is dropped, so a chunk is
    never half counted or half written) and the caller stops before the next; a second signal
    raises KeyboardInterrupt at once, even while a kernel that does not return still runs."""
    # A signal the CLI's handler took before this run began, whose exception the code it interrupted
    # swallowed (`signals.raise_if_received`): the run stops before its first chunk.
    flag = {"stop": signal_received() is not None, "signal": signal_received()}
    if threading.current_thread() is not threading.main_thread():
        yield flag
        return

    def request(signum, frame):
        if flag["stop"]:
            raise KeyboardInterrupt
        flag["stop"] = True
        flag["signal"] = signum
        cancel_running()
        note_stop(signum)

    previous = {sig: signal.signal(sig, request) for sig in (signal.SIGINT, signal.SIGTERM)}
    _stops.append(flag)
    try:
        yield flag
    finally:
        _stops[:] = [stop for stop in _stops if stop is not flag]
        for sig, handler in previous.items():
            signal.signal(sig, handler)
