"""What a process of ours has been asked to do by a signal, and where it says how far it got.

`stop_requested()` is the signal that asked this process to stop (SIGINT or SIGTERM, as
`snake.cancel.stop_requests` received it), or None: the CLI's own handlers leave a run that is
already stopping to keep what it finished, rather than interrupting its saving with a second
exception.

`announce(event)` writes one line, `event`, to the pipe named by the environment variable
``FASTSNAKE_READY_FD`` as ``FD:INODE`` (its descriptor and the pipe's inode number), when set:
how a test learns, without waiting on a clock, that the process has reached a point (``cli``:
the CLI's handlers are installed; ``kernel``: a kernel runs on its worker thread while the main
thread waits for it, interruptibly; ``scanning``: a sweep folder's finished chunks are being
checked; ``stop-requested``: a stop request was received). Nothing is
written without the variable, nor unless that descriptor is still that pipe: a child that
inherited the variable but not the pipe (a background compile), in which the number may name
another file, never writes to it.
"""

from __future__ import annotations

import os
import stat

READY_FD_ENV = "FASTSNAKE_READY_FD"

_state: dict = {"stop": None, "received": None}


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
