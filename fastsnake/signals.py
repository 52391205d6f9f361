"""What a process of ours has been asked to do by a signal, and where it says how far it got.

`stop_requested()` is the signal that asked this process to stop (SIGINT or SIGTERM, as
`snake.cancel.stop_requests` received it), or None: the CLI's own handlers leave a run that is
already stopping to keep what it finished, rather than interrupting its saving with a second
exception.

`announce(event)` writes one line, `event`, to the pipe named by the environment variable
``FASTSNAKE_READY_FD`` as ``FD:INODE`` (its descriptor and the pipe's inode number), when set:
how a test learns, without waiting on a clock, that the process has reached a point (``cli``:
the CLI's handlers are installed; ``kernel``: a kernel runs on its worker thread while the main
thread waits for it, interruptibly; ``call``: the same for a `stoppable` call; ``scanning``: a sweep
folder's finished chunks are being
checked; ``stop-requested``: a stop request was received). Nothing is
written without the variable, nor unless that descriptor is still that pipe: a child that
inherited the variable but not the pipe (a background compile), in which the number may name
another file, never writes to it.
"""

from __future__ import annotations

import os
import stat
import threading

READY_FD_ENV = "FASTSNAKE_READY_FD"

_state: dict = {"stop": None, "received": None, "abandoned": False}


def note_stop(signum: int) -> None:
    """Record that signal `signum` asked this process to stop (the first one is kept)."""
    if _state["stop"] is None:
        _state["stop"] = signum
    announce("stop-requested")


def stop_requested() -> int | None:
    return _state["stop"]


def forget_stop() -> None:
    """A new run in the same process (a test calling the CLI again) starts with no stop requested."""
    _state["stop"] = None
    _state["received"] = None


def note_received(signum: int) -> None:
    """Record that the CLI's handler received signal `signum` (the first one is kept), whatever
    becomes of the exception it raises: one raised inside a library's C code (an extension module's
    import, pyarrow's lazy import of pandas) may come out as another exception, or none."""
    if _state["received"] is None:
        _state["received"] = signum


def signal_received() -> int | None:
    """The first SIGINT or SIGTERM the CLI's handler received in this run, or None."""
    return _state["received"]


def forget_received() -> None:
    """A new CLI run in the same process (a test calling `main` again) has received no signal."""
    _state["received"] = None


def raise_if_received() -> None:
    """Raise again the exception of a signal the CLI's handler received and the code it interrupted
    swallowed (pyarrow's lazy import of pandas goes on without pandas when a KeyboardInterrupt lands
    in one of pandas' extension modules): KeyboardInterrupt for SIGINT, `Terminated` for SIGTERM.
    A check point of loops that run long outside a sweep's own stop handling (each batch of rows
    read); nothing happens when no signal came, or outside the CLI."""
    signum = _state["received"]
    if signum is None:
        return
    import signal

    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    from fastsnake.errors import Terminated

    raise Terminated()


def announce(event: str) -> None:
    raw = os.environ.get(READY_FD_ENV)
    if not raw:
        return
    try:
        fd, inode = (int(part) for part in raw.split(":"))
        info = os.fstat(fd)
        if stat.S_ISFIFO(info.st_mode) and info.st_ino == inode:
            os.write(fd, f"{event}\n".encode())
    except (OSError, ValueError):  # a closed or foreign descriptor: a test's business, never a run's failure
        pass


# -- calls that a signal or a time limit can leave ----------------------------------------------------
#
# Python runs a signal handler only in the main thread, between bytecodes: never while that thread is
# inside a compiled call. A call that may not return (a user's heuristic that loops for ever) therefore
# runs on a daemon thread while the calling thread waits for it, interruptibly and with a deadline
# (`stoppable`); the compiled code must release the GIL (our search kernels are ``nogil``, and a
# user's function is called through a ``nogil`` copy of it), else no thread could run Python while it
# runs. A call left running (by a signal or a deadline) is *abandoned*: it keeps its daemon thread
# until the process ends, and the launcher then ends the process without the interpreter's teardown.


class Overtime(Exception):
    """A `stoppable` call passed its deadline: it was left running on its daemon thread."""


# Idle daemon threads kept for the next `DaemonCall` of the same name, at most this many a name: starting
# a thread costs 0.1-0.3 ms here, as much as 2-3 % of a search that calls its kernel a few times
# (docs/measurements.md, "A thread per kernel call").
IDLE_DAEMONS = 4
_idle: dict = {}
_idle_lock = threading.Lock()


class _Daemon:
    """A daemon thread that runs the calls handed to it, one at a time, and then waits among the idle
    ones of its name; one that is left running (a call that never returns) is never handed another."""

    def __init__(self, name: str):
        import queue

        self.name = name
        self.jobs = queue.SimpleQueue()
        threading.Thread(target=self._loop, name=name, daemon=True).start()

    def _loop(self) -> None:
        while True:
            call = self.jobs.get()
            call._work(self)
            if call._kept is False:
                return

    def idle(self) -> bool:
        """Back among the idle threads of its name (False: enough are, so this one ends)."""
        with _idle_lock:
            idle = _idle.setdefault(self.name, [])
            if len(idle) >= IDLE_DAEMONS:
                return False
            idle.append(self)
            return True


def _daemon(name: str) -> _Daemon:
    with _idle_lock:
        idle = _idle.get(name)
        if idle:
            return idle.pop()
    return _Daemon(name)


if hasattr(os, "register_at_fork"):  # a forked child has none of its parent's threads
    os.register_at_fork(after_in_child=_idle.clear)


class DaemonCall:
    """``fn()`` run on a daemon thread named `name`: `finished` (a `threading.Event`) is set once it
    has returned or raised, and `result()` then returns what it returned or raises what it raised. The
    starting thread waits on `finished` as it likes (interruptibly, with a timeout) and may leave it.
    The thread is an idle one of that name when there is one (else a new one), and waits for the next
    call once this one has returned."""

    def __init__(self, fn, name: str):
        self.finished = threading.Event()
        self._box: dict = {}
        self._fn = fn
        self._kept = None
        _daemon(name).jobs.put(self)

    def _work(self, daemon: _Daemon) -> None:
        try:
            self._box["result"] = self._fn()
        except BaseException as exc:  # handed to the waiting thread, which raises it
            self._box["error"] = exc
        finally:
            self._fn = None
            self._kept = daemon.idle()  # before `finished`: the next call finds it idle
            self.finished.set()

    def result(self):
        if "error" in self._box:
            raise self._box["error"]
        return self._box["result"]


_local = threading.local()


class Deadline:
    """The moment (``time.perf_counter()``) by which the `stoppable` calls of a block must end, or
    None: `paused()` holds the clock (a compile, building tables) and moves the moment on by as long."""

    def __init__(self, seconds: float | None):
        import time

        self.at = None if seconds is None else time.perf_counter() + float(seconds)
        self._paused = 0

    def left(self) -> float | None:
        import time

        if self.at is None or self._paused:
            return None
        return self.at - time.perf_counter()

    def passed(self) -> bool:
        left = self.left()
        return left is not None and left <= 0

    def paused(self):
        import contextlib
        import time

        @contextlib.contextmanager
        def hold():
            t0 = time.perf_counter()
            self._paused += 1
            try:
                yield
            finally:
                self._paused -= 1
                if self.at is not None:
                    self.at += time.perf_counter() - t0

        return hold()


def current_deadline() -> Deadline | None:
    """The `Deadline` of the innermost `within` block of this thread, or None."""
    stack = getattr(_local, "deadlines", None)
    return stack[-1] if stack else None


def within(deadline: Deadline):
    """Within the block, this thread's `stoppable` calls end by `deadline` (`Overtime` after it)."""
    import contextlib

    @contextlib.contextmanager
    def block():
        stack = getattr(_local, "deadlines", None)
        if stack is None:
            stack = _local.deadlines = []
        stack.append(deadline)
        try:
            yield deadline
        finally:
            stack.pop()

    return block()


# After the deadline a call is given this long to return before it is abandoned.
OVERTIME_GRACE = 0.25


def stoppable(fn, *args):
    """``fn(*args)``, leaving it (on its daemon thread) when a signal's handler raises in the waiting
    main thread (the exception passes through) or when this thread's deadline (`within`) is
    `OVERTIME_GRACE` seconds past (`Overtime`). Off the main thread without a deadline: a direct call."""
    deadline = current_deadline()
    left = None if deadline is None else deadline.left()
    if left is None and threading.current_thread() is not threading.main_thread():
        announce("call")
        return fn(*args)
    call = None
    try:
        call = DaemonCall(lambda: fn(*args), "fastsnake-call")
        announce("call")
        if left is None:
            call.finished.wait()  # a signal handler runs here, and what it raises leaves at once
        elif not call.finished.wait(max(0.0, left) + OVERTIME_GRACE):
            _state["abandoned"] = True
            raise Overtime(f"{getattr(fn, '__name__', 'a call')} passed its deadline")
    except BaseException:
        if call is None or not call.finished.is_set():
            _state["abandoned"] = True
        raise
    return call.result()


def leave_running() -> None:
    """Say that a call of this process was left running on a daemon thread (one that never returns):
    the launcher then ends the process without the interpreter's teardown (`abandoned`)."""
    _state["abandoned"] = True


def abandoned() -> bool:
    """Whether a `stoppable` call of this process was left running (its thread ends with the process)."""
    return bool(_state.get("abandoned"))


def on_daemon_threads(fn, items: list, threads: int, *, name: str = "fastsnake-worker") -> list:
    """[fn(item) for item in items] on `threads` daemon threads (named `name`), in order, the first error
    raised; the calling thread waits interruptibly. Daemon threads, not a pool: a pool is joined when the
    process exits (or its block ends), so a call that never returns would keep the process alive."""
    results: list = [None] * len(items)
    errors: list = []
    lock = threading.Lock()
    queue = list(enumerate(items))
    done = threading.Event()
    running = [threads]

    def work():
        try:
            while True:
                with lock:
                    if not queue or errors:
                        return
                    k, item = queue.pop(0)
                try:
                    results[k] = fn(item)
                except BaseException as exc:
                    with lock:
                        errors.append(exc)
        finally:
            with lock:
                running[0] -= 1
                if running[0] == 0:
                    done.set()

    for _ in range(threads):
        threading.Thread(target=work, name=name, daemon=True).start()
    try:
        done.wait()
    except BaseException:
        with lock:
            queue.clear()
            _state["abandoned"] = True
        raise
    if errors:
        raise errors[0]
    return results
