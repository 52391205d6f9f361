"""Files: outputs that are either whole or absent (written beside their name, renamed when
complete), and `.npz` archives read without pickles and with one-line reasons."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import socket


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


def read_npz(path, keys=None) -> dict:
    """The arrays of an `.npz` archive (only `keys`, where present, if given), read without
    pickles. FileNotFoundError passes through; anything else unreadable (cut short, not a zip,
    a bare `.npy` under an `.npz` name, pickled objects) raises `NotAnArchive` with one short
    reason and none of numpy's advice."""
    import struct
    import zipfile
    import zlib

    import numpy as np

    from fastsnake.errors import read_error_reason

    # A damaged archive fails in many ways: a bad deflate stream (zlib.error), a flipped method
    # field (NotImplementedError), a flipped flag bit ("is encrypted", RuntimeError), bad headers.
    unreadable = (OSError, ValueError, EOFError, zipfile.BadZipFile, zlib.error, NotImplementedError, RuntimeError,
                  struct.error, KeyError, IndexError, OverflowError)
    try:
        loaded = np.load(os.fspath(path), allow_pickle=False)
    except FileNotFoundError:
        raise
    except unreadable as exc:
        raise NotAnArchive(read_error_reason(exc)) from None
    if not isinstance(loaded, np.lib.npyio.NpzFile):
        raise NotAnArchive("a single .npy array")
    try:
        with loaded as data:
            wanted = data.files if keys is None else [k for k in keys if k in data.files]
            return {k: data[k] for k in wanted}
    except unreadable as exc:
        raise NotAnArchive(read_error_reason(exc)) from None
