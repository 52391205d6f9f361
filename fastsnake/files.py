"""Files: outputs that are either whole or absent (written beside their name, renamed when
complete), and `.npz` archives read without pickles and with one-line reasons."""

from __future__ import annotations

import contextlib
import os


def file_in_the_way(path) -> str | None:
    """The regular file that stands where a folder on the way to `path` should be (so nothing
    can be written there), or None: the nearest existing ancestor of `path`, if it is no folder,
    spelled as `path` spells it (relative stays relative)."""
    probe = os.path.dirname(os.path.normpath(os.fspath(path)))
    while probe and not os.path.lexists(probe) and os.path.dirname(probe) != probe:
        probe = os.path.dirname(probe)
    return probe if probe and os.path.exists(probe) and not os.path.isdir(probe) else None


@contextlib.contextmanager
def written_atomically(path):
    """Yield a temporary dot-name beside `path` to write to; rename it to `path` when the block
    ends normally, remove it on any error (a full disk, Ctrl-C), so nothing partial is ever left
    under `path`. Errors pass through for the caller to word."""
    final = os.fspath(path)
    folder, name = os.path.split(os.path.abspath(final))
    tmp = os.path.join(folder, f".{name}.partial-{os.getpid()}")
    try:
        yield tmp
        os.replace(tmp, final)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class NotAnArchive(ValueError):
    """A file that is no readable `.npz` archive; the message is the one-line reason."""


def read_npz(path, keys=None) -> dict:
    """The arrays of an `.npz` archive (only `keys`, where present, if given), read without
    pickles. FileNotFoundError passes through; anything else unreadable (cut short, not a zip,
    a bare `.npy` under an `.npz` name, pickled objects) raises `NotAnArchive` with one short
    reason and none of numpy's advice."""
    import zipfile

    import numpy as np

    from fastsnake.errors import read_error_reason

    try:
        loaded = np.load(os.fspath(path), allow_pickle=False)
    except FileNotFoundError:
        raise
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise NotAnArchive(read_error_reason(exc)) from None
    if not isinstance(loaded, np.lib.npyio.NpzFile):
        raise NotAnArchive("a single .npy array")
    try:
        with loaded as data:
            wanted = data.files if keys is None else [k for k in keys if k in data.files]
            return {k: data[k] for k in wanted}
    except (OSError, ValueError, EOFError, zipfile.BadZipFile) as exc:
        raise NotAnArchive(read_error_reason(exc)) from None
