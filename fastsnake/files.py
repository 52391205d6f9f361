"""Files: outputs that are either whole or absent (written beside their name, renamed when
complete), and `.npz` archives read without pickles and with one-line reasons."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket
import stat
import struct
import zipfile
import zlib

from fastsnake.errors import InputError


def file_in_the_way(path) -> str | None:
    """The regular file that stands where a folder on the way to `path` should be (so nothing
    can be written there), or None: the nearest existing ancestor of `path`, if it is no folder,
    spelled as `path` spells it (relative stays relative)."""
    probe = os.path.dirname(os.path.normpath(os.fspath(path)))
    while probe and not os.path.lexists(probe) and os.path.dirname(probe) != probe:
        probe = os.path.dirname(probe)
    return probe if probe and os.path.exists(probe) and not os.path.isdir(probe) else None


def host_name() -> str:
    return socket.gethostname()


def pid_alive(pid: int) -> bool:
    """Whether process `pid` runs on this machine (a process of another user counts as alive)."""
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    except (OverflowError, ValueError, OSError):
        return False
    return True


_TEMP_PID = re.compile(r"(\d+)(?:\.tmp)?$")


def remove_stale_temps(folder, prefix: str) -> list[str]:
    """Remove the temporary files (or folders) in `folder` whose names start with `prefix` and end
    in the id of a process that no longer runs: what a killed writer left. A live writer's are kept."""
    removed = []
    try:
        names = os.listdir(os.fspath(folder) or ".")
    except OSError:
        return removed
    for name in names:
        if not name.startswith(prefix):
            continue
        match = _TEMP_PID.search(name[len(prefix):])
        if match is None or pid_alive(int(match.group(1))):
            continue
        target = os.path.join(os.fspath(folder), name)
        with contextlib.suppress(OSError):
            if os.path.isdir(target) and not os.path.islink(target):
                shutil.rmtree(target)
            else:
                os.unlink(target)
            removed.append(target)
    return removed


def fsync_path(path) -> None:
    """Flush a file, or a folder's entries (a rename is durable only once its folder is synced)."""
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) if os.path.isdir(path) else os.O_RDONLY
    fd = os.open(os.fspath(path), flags)
    try:
        os.fsync(fd)
    except OSError:
        if not os.path.isdir(path):  # some file systems cannot sync folders; files must sync
            raise
    finally:
        os.close(fd)


def temp_name(path, tag: str = "partial") -> str:
    """The dot-name beside `path` a writer of this process uses before renaming to `path`."""
    folder, name = os.path.split(os.path.abspath(os.fspath(path)))
    return os.path.join(folder, f".{name}.{tag}-{os.getpid()}")


@contextlib.contextmanager
def written_atomically(path):
    """Yield a temporary dot-name beside `path` to write to; rename it to `path` when the block
    ends normally, remove it on any error (a full disk, Ctrl-C), so nothing partial is ever left
    under `path`. The file and its folder are synced before and after the rename (power loss).
    Temporary files of the same name left by killed processes are removed first. Errors pass
    through for the caller to word."""
    final = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(final))
    remove_stale_temps(folder, f".{name}.partial-")
    tmp = temp_name(final)
    try:
        yield tmp
        fsync_path(tmp)
        os.replace(tmp, final)
        fsync_path(folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def folder_written_atomically(path):
    """Like `written_atomically` for a folder of files: yield a temporary folder beside `path`;
    when the block ends normally it takes the place of `path` (an earlier folder there is
    removed only then), on any error it is removed, so `path` is never left half written."""
    final = os.path.abspath(os.fspath(path))
    parent, name = os.path.split(final)
    remove_stale_temps(parent, f".{name}.partial-")
    remove_stale_temps(parent, f".{name}.old-")
    tmp = temp_name(final)
    old = temp_name(final, "old")
    os.mkdir(tmp)
    try:
        yield tmp
        for entry in os.listdir(tmp):
            fsync_path(os.path.join(tmp, entry))
        fsync_path(tmp)
        if os.path.isdir(final):
            os.replace(final, old)
        os.replace(tmp, final)
        fsync_path(parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        if os.path.isdir(old) and not os.path.exists(final):
            os.replace(old, final)
        raise
    shutil.rmtree(old, ignore_errors=True)


class NotAnArchive(ValueError):
    """A file that is no readable `.npz` archive; the message is the one-line reason."""


class RefusedMember(NotAnArchive):
    """An `.npz` archive holding a member its format does not have, or one larger than the format
    allows: refused before that member is inflated."""


# An `.npy` member's header is a short Python-literal dict; numpy's own reader refuses longer ones.
NPY_HEADER_MAX = 10_000
# The preamble before that header: magic (6 bytes), version (2), header length (2 or 4).
_NPY_PREAMBLE = 12
# A text field (format tag, policy name, JSON options or header) holds at most this many characters.
MAX_TEXT_CHARS = 1 << 16
# Deflate's largest ratio (258-byte matches of one bit each): a member declaring more bytes than
# this times its compressed size lies about its size.
_DEFLATE_MAX_RATIO = 1032
# Bytes inflated per read: what a member costs beyond its own array while it is read.
_READ_PIECE = 1 << 20


class NpzArchive:
    """An `.npz` archive read in bounded memory, member by member.

    Opening reads only the zip directory: names and declared sizes, nothing is inflated. With
    `known`, a member that is not one of those fields is refused (a foreign file, or data hidden
    beside ours). `read` checks a member's declared size and its `.npy` header (shape, dtype)
    against what the caller allows *before* inflating its data, then inflates it piece by piece
    into an array of the declared size, so a member that inflates to more than it declares (a
    zip bomb) stops at the caller's cap. Every refusal is a `NotAnArchive` with a one-line reason.
    """

    def __init__(self, path, known=None):
        self.path = os.fspath(path)
        try:
            with open_regular(self.path) as fh:  # a FIFO or device: refused, never opened
                magic = fh.read(6)
                self._size = os.fstat(fh.fileno()).st_size
        except (FileNotFoundError, NotRegularFile):
            raise
        except OSError as exc:
            raise NotAnArchive(_reason(exc)) from None
        if magic.startswith(b"\x93NUMPY"):
            raise NotAnArchive("a single .npy array")
        try:
            self._zip = zipfile.ZipFile(self.path)
        except _UNREADABLE as exc:
            raise NotAnArchive(_reason(exc)) from None
        self._members = {}
        try:
            for info in self._zip.infolist():
                key = info.filename[:-4] if info.filename.endswith(".npy") else None
                if key is None or (known is not None and key not in known):
                    raise RefusedMember(f"member {info.filename!r} is not a field of this file")
                if key in self._members:
                    raise RefusedMember(f"member {info.filename!r} appears twice")
                if info.compress_type not in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
                    # numpy writes only these; others (bzip2, lzma) inflate without a bound per read
                    raise NotAnArchive(f"member {info.filename!r} is compressed with a method numpy never writes")
                self._members[key] = info
        except BaseException:
            self._zip.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        self._zip.close()

    def __contains__(self, key) -> bool:
        return key in self._members

    @property
    def files(self) -> list[str]:
        return list(self._members)

    def read(self, key: str, kinds: str, *, ndim: int | None = None, max_items: int = 1, holder: str = "such a file"):
        """Member `key` as an array whose dtype kind is one of `kinds` ("iu" integers, "U" text),
        with `ndim` dimensions (any if None) and at most `max_items` items (text at most
        `MAX_TEXT_CHARS` characters an item): refused (`RefusedMember`, naming the field and what
        `holder` can hold) before its data is inflated if its header says otherwise, or as soon as
        it inflates to more."""
        import numpy as np

        info = self._members[key]
        itemsize_cap = 4 * MAX_TEXT_CHARS if "U" in kinds else 8
        cap = _NPY_PREAMBLE + NPY_HEADER_MAX + max(0, int(max_items)) * itemsize_cap
        if info.file_size > cap:
            raise RefusedMember(f"field {key!r} declares {info.file_size} bytes, more than {holder} holds")
        if info.compress_size > self._size:
            raise NotAnArchive(f"field {key!r} declares {info.compress_size} compressed bytes, more than the "
                               f"file's {self._size}")
        deflated = info.compress_type == zipfile.ZIP_DEFLATED
        if deflated and info.file_size > _DEFLATE_MAX_RATIO * info.compress_size + 1024:
            raise NotAnArchive(f"field {key!r} declares {info.file_size} bytes, more than its "
                               f"{info.compress_size} compressed bytes can hold")
        try:
            with self._zip.open(info) as stream:
                shape, fortran, dtype = _npy_header(stream)
                header_bytes = stream.tell()
                if dtype.hasobject:
                    raise NotAnArchive(f"field {key!r} holds pickled Python objects, which fastsnake files "
                                       f"never contain")
                if dtype.kind not in kinds or dtype.fields is not None:
                    raise NotAnArchive(f"field {key!r} has type {dtype.str}, not the format's")
                if ndim is not None and len(shape) != ndim:
                    raise NotAnArchive(f"field {key!r} has shape {shape}, not {ndim}-dimensional")
                count = 1
                for side in shape:
                    count *= int(side)
                if count > max_items or dtype.itemsize > itemsize_cap:
                    raise RefusedMember(f"field {key!r} declares shape {shape} of {dtype.str}, "
                                        f"more than {holder} holds")
                if header_bytes + count * dtype.itemsize != info.file_size:
                    raise NotAnArchive(f"field {key!r} declares shape {shape} of {dtype.str} but holds "
                                       f"{info.file_size - header_bytes} bytes")
                array = np.empty(count, dtype=dtype)
                _fill(stream, array.view(np.uint8), key)
        except NotAnArchive:
            raise
        except MemoryError:
            raise NotAnArchive(f"field {key!r} does not fit in memory") from None
        except _UNREADABLE as exc:
            raise NotAnArchive(_reason(exc)) from None
        return array.reshape(shape, order="F" if fortran else "C")


def _npy_header(stream):
    """(shape, fortran_order, dtype) of the `.npy` data that `stream` starts with, read without the data."""
    from numpy.lib import format as npy

    version = npy.read_magic(stream)
    if version == (1, 0):
        return npy.read_array_header_1_0(stream, max_header_size=NPY_HEADER_MAX)
    if version == (2, 0):
        return npy.read_array_header_2_0(stream, max_header_size=NPY_HEADER_MAX)
    raise NotAnArchive(f"an .npy version {version[0]}.{version[1]} member, which fastsnake never writes")


def _fill(stream, target, key: str) -> None:
    """Inflate exactly len(target) bytes of `stream` into `target`, in pieces; refuse a member that
    ends early or holds more than that (nothing past one more piece is ever inflated)."""
    done, size = 0, len(target)
    while done < size:
        piece = stream.read(min(_READ_PIECE, size - done))
        if not piece:
            raise NotAnArchive(f"field {key!r} is cut short")
        target[done:done + len(piece)] = memoryview(piece)
        done += len(piece)
    if stream.read(1):
        raise NotAnArchive(f"field {key!r} holds more data than its header declares")


def _reason(exc: BaseException) -> str:
    from fastsnake.errors import read_error_reason

    return read_error_reason(exc)


# A damaged archive fails in many ways: a bad deflate stream (zlib.error), a flipped method field
# (NotImplementedError), a flipped flag bit ("is encrypted", RuntimeError), bad headers, a header
# that is no Python literal (SyntaxError), a bad CRC (BadZipFile).
_UNREADABLE = (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError,
               struct.error, KeyError, IndexError, OverflowError, SyntaxError, TypeError)


def read_npz(path, keys, *, known=None) -> dict:
    """The text fields `keys` (0-d string arrays, e.g. a format tag or a JSON header) of an `.npz`
    archive, where present, read in bounded memory (`NpzArchive`); fields of other types or
    longer than `MAX_TEXT_CHARS` are refused, and with `known`, members not in it.
    FileNotFoundError passes through; anything else unreadable raises `NotAnArchive` with one
    short reason and none of numpy's advice."""
    with NpzArchive(path, known) as archive:
        return {k: archive.read(k, "U", ndim=0) for k in keys if k in archive}


def loads_json(text):
    """`json.loads`, with a document nested too deeply for the parser (e.g. 100,000 brackets)
    refused as a ValueError, like any other text that is no JSON we read."""
    import json

    try:
        return json.loads(text)
    except RecursionError:
        raise ValueError("not valid JSON (nested too deeply)") from None


def not_utf8(path) -> bool:
    """Whether `path` holds bytes that are no UTF-8 (Python keeps them as lone surrogates, as
    `os.fsdecode` does): pyarrow, which takes paths as UTF-8 text, can neither open nor name it."""
    try:
        os.fsdecode(path).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


# -- reading only what a reader can take: regular files, bounded footers --------------------------

# A Parquet file's footer (its schema and key-value metadata, which hold a sweep's parameters, run
# record and a compare file's runs) is at most this many bytes: ours are a few kB (a compare of 1,000
# runs about 2 MB); a larger one is refused before pyarrow parses it.
PARQUET_FOOTER_MAX = 16 << 20
_PARQUET_MAGIC = b"PAR1"


class NotRegularFile(InputError):
    """A path that names a FIFO, a device or a socket: reading it could block forever or never end.
    `reason` is the message's clause after the path ("is a FIFO (named pipe), not a regular file ...")."""

    def __init__(self, path, kind: str):
        self.reason = f"is {kind}, not a regular file: fastsnake reads only regular files"
        super().__init__(f"{printable(repr(os.fspath(path)))} {self.reason}")


_KINDS = ((stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def special_kind(mode: int) -> str | None:
    """What a file of `st_mode` `mode` is when it is neither a regular file nor a folder, else None."""
    for test, kind in _KINDS:
        if test(mode):
            return kind
    return None


def check_regular(path) -> None:
    """Refuse (`NotRegularFile`, one line naming the path) a FIFO, device or socket *before* it is
    opened: opening a FIFO blocks until a writer comes, a device may never end. Folders pass (their
    callers say what they want), a missing path raises FileNotFoundError. Only `os.stat`, never open."""
    mode = os.stat(os.fspath(path)).st_mode
    kind = special_kind(mode)
    if kind is not None:
        raise NotRegularFile(path, kind)


def open_regular(path, mode: str = "rb"):
    """`open(path, mode)` for reading, which never blocks: the path is checked (`check_regular`),
    opened non-blocking and checked again on its descriptor (a FIFO swapped in between is refused)."""
    check_regular(path)
    fd = os.open(os.fspath(path), os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        kind = special_kind(os.fstat(fd).st_mode)
        if kind is not None:
            raise NotRegularFile(path, kind)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, mode)
    except BaseException:
        os.close(fd)
        raise


def parquet_footer_problem(path, limit: int | None = None) -> str | None:
    """Why the Parquet file `path` must not be handed to pyarrow, or None: it is no regular file
    (`NotRegularFile` is raised), too short or without Parquet's trailing magic, or its footer (whose
    length is the 4 bytes before that magic) is longer than `limit` bytes (`PARQUET_FOOTER_MAX`).
    Reads 8 bytes."""
    limit = PARQUET_FOOTER_MAX if limit is None else limit
    with open_regular(path) as fh:
        size = os.fstat(fh.fileno()).st_size
        if size < 12:
            return None  # pyarrow words a file too short to be Parquet
        fh.seek(size - 8)
        tail = fh.read(8)
    if tail[4:] != _PARQUET_MAGIC:
        return None
    length = struct.unpack("<I", tail[:4])[0]
    if length > limit:
        return f"its footer declares {length:,} bytes, more than the {limit:,} a fastsnake file's footer holds"
    return None


# -- text taken from a file, printed -----------------------------------------------------------------

# A message shows at most this many characters of a value it quotes (`clipped`).
SHOWN_CHARS = 200
# A whole line printed to the terminal (an error, a note): at most this many characters.
LINE_CHARS = 2000
# Control characters (C0 but tab, DEL, C1) and the invisible ones that reorder or hide text (bidi
# overrides, zero-width marks, line and paragraph separators): escaped wherever text is printed.
_UNPRINTABLE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff]")


def printable(text, limit: int | None = None) -> str:
    """`text` as it may go to a terminal: every control character (ESC, BEL, CR, newline, C1, the
    bidi overrides …) written as its escape (``\\x1b``, ``\\u202e``), so text taken from a file can
    neither move the cursor, set the window's title, clear the screen nor forge another line; with
    `limit`, cut to about that many characters (`clipped`)."""
    text = str(text)
    if limit is not None:
        text = clipped(text, limit)
    if not _UNPRINTABLE.search(text):
        return text
    return _UNPRINTABLE.sub(lambda m: repr(m.group())[1:-1], text)


def clipped(text, limit: int = SHOWN_CHARS) -> str:
    """`text` cut to its first `limit` characters and how long it was, if it is longer: a message about
    a value never carries a 50 MB value."""
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


def shown_value(value, limit: int = SHOWN_CHARS) -> str:
    """`value` as a message quotes it: its repr, escaped and cut to about `limit` characters."""
    return printable(clipped(repr(value), limit))
