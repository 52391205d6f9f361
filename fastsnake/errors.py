"""Exceptions shared by every part of fastsnake.

`InputError` (a `ValueError`) means the caller asked for something invalid; the CLI
maps it to exit code 2. Each problem package subclasses it so a message can always
name the bad input.
"""


class FastsnakeError(Exception):
    """Base class of every error fastsnake raises on purpose."""


class InputError(FastsnakeError, ValueError):
    """Invalid input: bad size, option, file or state. The message quotes the input."""


def in_cli_words(exc: BaseException, text: str) -> BaseException:
    """`exc`, with `text` as what the command line prints instead of its message: the library's
    errors name values and functions, never a command or flag; the CLI's may name the command that
    fixes the problem (``fastsnake verify --repair DIR``, ``--model PATH``)."""
    exc.cli_text = text
    return exc


class Worded(str):
    """A message (a report's problem line) that the command line prints in its own words (`cli_text`)."""

    cli_text: str


def worded(text: str, cli: str) -> str:
    """`text`, carrying `cli` as what the command line prints instead (see `in_cli_words`)."""
    out = Worded(text)
    out.cli_text = cli
    return out


def cli_text(exc: BaseException) -> str:
    """What the command line prints for `exc` (see `in_cli_words`)."""
    return getattr(exc, "cli_text", None) or str(exc)


def counted(messages) -> list[str]:
    """`messages` in order, each once, a repeated one with its count: ``"... (48 times)"``."""
    counts: dict = {}
    for message in messages:
        counts[message] = counts.get(message, 0) + 1
    return [m if n == 1 else f"{m} ({n:,} times)" for m, n in counts.items()]


def read_error_reason(exc: BaseException) -> str:
    """Why a data file could not be read, as one short line without the reading library's
    own advice (numpy suggests `allow_pickle=True`, which fastsnake must never do)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    if "Object arrays cannot be loaded" in text:
        return "it holds pickled Python objects, which fastsnake files never contain"
    if "contains pickled" in text or "allow_pickle" in text:
        return "not a numpy .npz archive"
    return text


class Terminated(SystemExit):
    """SIGTERM stopped a long job after it kept what it had finished. A `SystemExit` (status
    143, as a process killed by SIGTERM reports it), so a script that does not catch it stops
    as the signal asked, instead of carrying on as if the job had ended. ``result`` holds what
    was finished (e.g. a sweep's result with the finished games)."""

    def __init__(self, message: str = "terminated (SIGTERM)", result=None):
        super().__init__(143)
        self.message = message
        self.result = result

    def __str__(self) -> str:
        return self.message


class FastsnakeWarning(UserWarning):
    """Base class of the warnings fastsnake issues on purpose; the CLI prints each as one line,
    ``fastsnake: warning: ...``, on stderr."""


class NewerVersionWarning(FastsnakeWarning):
    """A file was written by a fastsnake newer than the one reading it (both versions named)."""
