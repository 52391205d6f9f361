"""The `fastsnake` command's launcher (the console script and ``python -m fastsnake``).

Its first act is the signal handling: SIGINT and SIGTERM end the command with one line and status
130 or 143 from here on, the CLI's imports (numba, pyarrow: most of a start-up, seconds on a busy
machine) included; a signal there used to print a KeyboardInterrupt traceback (SIGTERM: killed,
-15). Only modules that load no numba are imported before that (`fastsnake._numba_cache`'s
NUMBA_FREE_MODULES). The CLI installs its own handlers as it starts (`fastsnake.cli.run`).
"""

import signal
import sys

from fastsnake.errors import Terminated


def _stop(signum, frame):
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated()


def _quit(message: str, code: int) -> None:
    """Nothing has started: say so in one line (and as JSON on stdout with --json), with the status."""
    import json

    sys.stderr.write(f"fastsnake: error: {message}\n")
    if "--json" in sys.argv[1:]:
        sys.stdout.write(json.dumps({"error": message, "code": code}) + "\n")
    _end_now(code)


def _end_with(code) -> None:
    """The command has ended with `code` and said so: flush what it printed, and let a late SIGINT or
    SIGTERM (during the interpreter's shutdown, when Python has put the default handlers back) no
    longer kill the process, which would report the signal (-2) instead of the status decided."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, signal.SIG_IGN)


def _end_now(code: int) -> None:
    """A signal stopped the command, which has said so and kept (synced) what it finished: end the
    process now. The atexit callbacks run (multiprocessing's, dask's, logging's), the interpreter's
    teardown does not: unloading numba, llvmlite and pyarrow took 1-2 s on a loaded machine, most of
    the answer to a Ctrl-C (issue 46: "answered within a second")."""
    import atexit
    import os

    _end_with(code)
    atexit._run_exitfuncs()
    _end_with(code)
    os._exit(code)


def _left_running() -> bool:
    from fastsnake.signals import abandoned

    return abandoned()


def run() -> None:
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, _stop)
        from fastsnake.cli import run as run_cli

        run_cli()  # replaces these handlers with its own first thing; it ends the process (sys.exit)
    except SystemExit as done:  # the command has ended: a signal during the interpreter's shutdown
        if done.code in (130, 143) and not isinstance(done, Terminated):  # stopped by a signal, said so
            _end_now(done.code)
        if _left_running():  # a call left running (a user's heuristic that never returned): no teardown
            _end_now(done.code if isinstance(done.code, int) else 1)
        _end_with(done.code)  # ends it with the status already decided, not killed by the signal (-2)
        raise
    except KeyboardInterrupt:  # in the CLI's imports, or before its handlers are in place
        _quit("interrupted", 130)
    except Terminated as exc:
        _quit(str(exc), 143)


if __name__ == "__main__":
    run()
