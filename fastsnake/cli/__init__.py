"""The `fastsnake` command line: one parser, one verb module per problem.

Each verb module exposes `register(subparsers)`; it adds its verbs with
`set_defaults(handler=...)` (and, for the help, `epilog=common.examples(...)`).
A handler returns the object printed by `--json` (or None) and raises
`InputError` for bad input (exit 2). Anything unexpected is a failure of ours
(exit 1). Neither case prints a traceback unless FASTSNAKE_DEBUG is set; with
`--json`, either also prints `{"error": ..., "code": N}` on stdout. The parser
behaviour every verb shares (required-option groups, pointing an unknown option
at the verb's help, the verb list) lives in `common.Parser`.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import os
import signal
import sys

from fastsnake import signals
from fastsnake.cli import common
from fastsnake.errors import FastsnakeError, FastsnakeWarning, InputError, Terminated, cli_text
from fastsnake.warm import NeedsCompiled, compile_notice, compiled_instead, first_call, interpreted_run

# A full disk (or a file size limit, `ulimit -f`): the machine's state, not bad input nor a fault of ours,
# e.g. numba failing to save a kernel it compiled. Said as such, in one line.
DISK_FULL_ERRNOS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG})

# Verb modules, imported lazily so `fastsnake tour` never pays for the puzzle code.
VERB_MODULES = (
    "fastsnake.cli.snake",
    "fastsnake.cli.puzzle",
    "fastsnake.cli.tour",
    "fastsnake.cli.view",
    "fastsnake.cli.warm",
)


def build_parser() -> argparse.ArgumentParser:
    import importlib

    parser = common.Parser(
        prog="fastsnake",
        description="Compiled solvers for Snake AI sweeps, sliding puzzles and leaper tours.",
        epilog="Run 'fastsnake VERB --help' for a verb's options and examples. Every verb takes --json "
               "(one JSON value on stdout). Sizes are RxC or N.",
    )
    parser.add_argument("--version", action="version", version=_version())
    sub = parser.add_subparsers(dest="verb", metavar="VERB", title="verbs", parser_class=common.Parser,
                                help="one of:")
    sub.required = True
    verbs = parser._action_groups.pop()  # the verbs come first in the help, before the options
    parser._action_groups.insert(0, verbs)
    for name in VERB_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def _version() -> str:
    from fastsnake import __version__

    return f"fastsnake {__version__}"


def main(argv: list[str] | None = None, *, tiered: bool = False) -> int:
    """Run one command. `tiered` (the `fastsnake` command, not a test calling main) lets a small
    first call become an interpreted run while its kernels compile in the background
    (`fastsnake.warm.tier`): the process is replaced, so this returns only on the compiled path."""
    argv = sys.argv[1:] if argv is None else list(argv)
    common.start_run(argv)
    signals.forget_received()
    parser = build_parser()
    args = parser.parse_args(argv)
    common.set_json_errors(getattr(args, "json", False))
    try:
        if tiered:
            first_call(_tier_job(args), argv)
        with compile_notice(verb=getattr(args, "verb", None)), _our_warnings(), common.escaped_stdout():
            result = args.handler(args)
        signals.raise_if_received()  # a signal whose exception the code it interrupted swallowed
    except NeedsCompiled as exc:
        if not (tiered and interpreted_run()):
            return common.fail(str(exc), 1)
        compiled_instead(argv, str(exc))
    except InputError as exc:
        return common.fail(cli_text(exc), 2)
    except KeyboardInterrupt:
        return common.fail("interrupted", 130)
    except Terminated as exc:  # SIGTERM: what was finished is kept; the status says who stopped us
        return common.fail(str(exc), 143)
    except BrokenPipeError:
        raise
    except FastsnakeError as exc:
        return common.fail(cli_text(exc), 1)
    except Exception as exc:  # a failure of ours: keep stdout clean, say what broke
        received = signals.signal_received()
        if received is not None:  # the signal's exception, turned into another by the code it interrupted
            return _answer_signal(received)
        if os.environ.get("FASTSNAKE_DEBUG"):
            raise
        if isinstance(exc, OSError) and exc.errno in DISK_FULL_ERRNOS:
            where = f" {exc.filename!r}" if exc.filename else " a file"
            return common.fail(f"cannot write{where}: {exc.strerror} (the disk is full or a file size limit was "
                               "reached); free some space and run the command again", 1)
        return common.fail(f"internal error: {type(exc).__name__}: {exc} (set FASTSNAKE_DEBUG=1 for a traceback)", 1)
    if getattr(args, "json", False) and result is not None:
        common.emit_json(result)
    # A verb that finished but must say so in its status (a precision not reached: 3; a policy
    # worse than its saved baseline: 4) sets `args.exit_status` and says why on stderr.
    return getattr(args, "exit_status", 0) or 0


@contextlib.contextmanager
def _our_warnings():
    """Each warning fastsnake issues on purpose (`FastsnakeWarning`: a file of a newer version, say)
    is one line on stderr, ``fastsnake: warning: ...``, every time; other warnings as Python shows them."""
    import warnings

    shown = warnings.showwarning

    def show(message, category, filename, lineno, file=None, line=None):
        if issubclass(category, FastsnakeWarning):
            common.log(f"fastsnake: warning: {message}")
        else:
            shown(message, category, filename, lineno, file, line)

    with warnings.catch_warnings():
        warnings.simplefilter("always", FastsnakeWarning)
        warnings.showwarning = show
        yield


def _tier_job(args):
    """The verb's `tier_job(args)`: what it needs compiled and how big it is (None: not tiered).
    A tier job checks the verb's input first, with the handler's own checks: bad input is one
    line and exit 2 before any background compile starts (an InputError passes through). Any
    other failure leaves the verb to the compiled path, whose handler reports it."""
    job = getattr(args, "tier_job", None)
    if job is None:
        return None
    try:
        return job(args)
    except InputError:
        raise
    except Exception:  # noqa: BLE001 - the compiled path reports what is wrong with the input
        return None


def _on_signal(signum, frame):
    """The CLI's SIGINT and SIGTERM handler, from the start of `run` on (a sweep installs its own
    while it runs, `snake.cancel.stop_requests`): stop where we are with the signal's status and
    one line, never a traceback. A run that a signal already asked to stop is keeping what it
    finished: a repeated signal does not interrupt that."""
    if signals.stop_requested() is not None:
        return
    signals.note_received(signum)
    if signum == signal.SIGINT:
        raise KeyboardInterrupt
    raise Terminated()


def _answer_signal(signum: int) -> int:
    """The one line and status of a run that signal `signum` stopped (SIGINT 130, SIGTERM 143)."""
    if signum == signal.SIGINT:
        return common.fail("interrupted", 130)
    return common.fail(str(Terminated()), 143)


def _install_signal_handlers() -> None:
    signals.forget_stop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, _on_signal)
    signals.announce("cli")


def run() -> None:
    # Handlers first, so that a signal while the verbs and the kernels load (seconds on a busy
    # machine) ends in one line and the signal's status, as one during the work does.
    try:
        _install_signal_handlers()
        code = main(tiered=True)
        sys.stdout.flush()
    except KeyboardInterrupt:  # before `main` handles it: during start-up or parsing
        code = common.fail("interrupted", 130)
    except Terminated as exc:
        code = common.fail(str(exc), 143)
    except BrokenPipeError:
        # The reader closed the pipe (e.g. `| head`): stop quietly, as a SIGPIPE'd tool would.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        code = 141
    sys.exit(code)
