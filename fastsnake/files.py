"""Output files that are either whole or absent: written beside their name, renamed when complete."""

from __future__ import annotations

import contextlib
import os


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
