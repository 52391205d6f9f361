"""Reading what a user hands us, bounded: one reader for the input files of every problem.

Puzzle instance and batch files, puzzle solution files, tour and reach files (JSON), study rows
files and baselines (Parquet, through `check_parquet`) are read here, never with a bare
``open().read()``. Every reader

* refuses a FIFO, a device, a socket or any other file that is not a regular file *before* it
  reads a byte (`fastsnake.files.open_regular`: the path is checked, opened non-blocking and
  checked again on its descriptor), so a named pipe or ``/dev/zero`` is one line, at once;
* refuses a file larger than its cap from its size alone (`os.fstat`), and reads the rest in
  pieces of `PIECE_BYTES`, stopping one piece past the cap (a file that grows while it is read,
  or a ``/proc`` file whose size says 0), so it never holds more than the cap and a piece;
* names the cap in its message: ``... is 104,857,600 bytes, more than the 67,108,864 bytes
  (64 MiB) an instances file may hold``;
* refuses a line longer than `LINE_MAX_CHARS` (a 60 MB line would become a 60 MB string in every
  message and split), text that is not UTF-8, JSON nested too deeply for the parser.

Snake's sweep files, folders and replays are read by their own checked readers (`fastsnake.snake.store`,
`fastsnake.snake.replay`) through the same primitives this module builds on (`fastsnake.files`:
`open_regular`, `parquet_footer_problem`, `NpzArchive`), with the same refusals.

Counts given on a command line or to the API (`check_count`) are refused before any work when
they are past what can be held, with the limit in the message. Every refusal is a `ReadRefused`,
an `InputError`: exit 2 on the command line, never 1.
"""

from __future__ import annotations

import os
import sys

from fastsnake.errors import InputError
from fastsnake.files import NotRegularFile, loads_json, open_regular, parquet_footer_problem, printable

# Bytes read at a time.
PIECE_BYTES = 1 << 20
# A text input file (instances, a batch, a solution, a tour or reach JSON file): at most this many
# bytes. Korf's 100 instances are 4 kB; 100,000 instances of a 20x20 board about 120 MB would not
# fit, and need not: a study or a batch of that size is many files (or `puzzle random` per run).
TEXT_MAX_BYTES = 64 << 20
# The longest line of a text input file: a 100x100 board's tiles (10,000 numbers) are under 50 kB.
LINE_MAX_CHARS = 1 << 20
# Instances (lines) of one instances or batch file, and instances a study or `puzzle random` makes.
MAX_INSTANCES = 100_000


class ReadRefused(InputError):
    """An input file (or a count) refused before it was read (or any work began): not a regular
    file, too large, a line too long, not UTF-8 or not JSON we read; the message names the path
    and the limit."""


def _shown(path) -> str:
    return printable(repr(os.fspath(path)) if path != "-" else "'-' (standard input)")


def _mib(n: int) -> str:
    return f"{n:,} bytes ({n / (1 << 20):g} MiB)"


def read_bytes(path, what: str, limit: int = TEXT_MAX_BYTES, *, error=ReadRefused) -> bytes:
    """The bytes of the regular file `path` (``"-"``: standard input, read to its end), at most
    `limit` of them; `error` (default `ReadRefused`; a problem passes its own InputError) naming
    `what` ("instances file") and the limit otherwise. FileNotFoundError and other OSErrors pass
    through for the caller to word."""
    if path == "-":
        return _read_capped(_stdin_bytes(), path, what, limit, error)
    try:
        fh = open_regular(path)
    except NotRegularFile as exc:
        raise error(f"{what} {_shown(path)} {exc.reason}") from None
    with fh:
        size = os.fstat(fh.fileno()).st_size
        if size > limit:
            raise error(f"{what} {_shown(path)} is {size:,} bytes, more than the {_mib(limit)} a {what} may hold")
        return _read_capped(fh, path, what, limit, error)


class _EncodedText:
    """A text stream read as UTF-8 bytes (a standard input replaced by one without a byte buffer:
    a test's or a notebook's `io.StringIO`)."""

    def __init__(self, fh):
        self.fh = fh

    def read(self, n: int) -> bytes:
        return self.fh.read(n).encode("utf-8")


def _stdin_bytes():
    buffer = getattr(sys.stdin, "buffer", None)
    return buffer if buffer is not None else _EncodedText(sys.stdin)


def _read_capped(fh, path, what: str, limit: int, error) -> bytes:
    pieces, held = [], 0
    while True:
        piece = fh.read(min(PIECE_BYTES, limit + 1 - held))
        if not piece:
            return b"".join(pieces)
        pieces.append(piece)
        held += len(piece)
        if held > limit:
            raise error(f"{what} {_shown(path)} holds more than the {_mib(limit)} a {what} may hold")


def read_text(path, what: str, limit: int = TEXT_MAX_BYTES, line_limit: int = LINE_MAX_CHARS, *,
              error=ReadRefused) -> str:
    """`read_bytes` decoded as UTF-8 (a leading byte-order mark dropped), with no line longer than
    `line_limit` characters; `error` otherwise."""
    raw = read_bytes(path, what, limit, error=error)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise error(f"{what} {_shown(path)} is not UTF-8 text (byte {exc.start:,})") from None
    del raw
    check_lines(text, path, what, line_limit, error=error)
    return text


def check_lines(text: str, path, what: str, line_limit: int = LINE_MAX_CHARS, *, error=ReadRefused) -> None:
    """Refuse `text` when one of its lines is longer than `line_limit` characters (naming the line)."""
    if len(text) <= line_limit:
        return
    start, number = 0, 1
    while start < len(text):
        end = text.find("\n", start)
        end = len(text) if end < 0 else end
        if end - start > line_limit:
            raise error(f"{what} {_shown(path)} line {number:,} is {end - start:,} characters, more than the "
                        f"{line_limit:,} a line may hold")
        start, number = end + 1, number + 1


def read_json(path, what: str, limit: int = TEXT_MAX_BYTES, *, error=ReadRefused):
    """The JSON value of the file `path`, read as `read_text` reads (no line limit: a JSON file may
    be one long line); a document that is not JSON, or nested too deeply for the parser (100,000
    brackets), is an `error`."""
    text = read_text(path, what, limit, line_limit=limit, error=error)
    try:
        return loads_json(text)
    except ValueError as exc:
        raise error(f"{what} {_shown(path)} is not JSON: {printable(str(exc), 200)}") from None


def check_parquet(path, what: str, limit: int | None = None, *, error=ReadRefused) -> None:
    """Refuse the Parquet file `path` (`error`) before a Parquet reader opens it: not a regular
    file, or a footer longer than `limit` (`fastsnake.files.PARQUET_FOOTER_MAX`). A missing path
    raises FileNotFoundError."""
    try:
        problem = parquet_footer_problem(path, limit)
    except NotRegularFile as exc:
        raise error(f"{what} {_shown(path)} {exc.reason}") from None
    if problem is not None:
        raise error(f"{what} {_shown(path)}: {problem}")


def check_count(value, limit: int, what: str, *, error=ReadRefused) -> int:
    """`value` (a count: instances, games, nodes) when it is a whole number from 0 to `limit`, else
    `error` (an InputError) naming it and the limit, before any work."""
    if isinstance(value, bool) or not isinstance(value, int) and not hasattr(value, "__index__"):
        raise error(f"{what} {value!r} is not a whole number")
    value = int(value)
    if value < 0 or value > limit:
        raise error(f"{what} {value:,} is past the limit of {limit:,}" if value > limit
                    else f"{what} {value:,} must be at least 0")
    return value
