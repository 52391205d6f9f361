"""Which fastsnake wrote a file, and the warning line when that is newer than the one reading it.

A file written by a newer version may hold what this version does not know (a rule, an option, a
column's new meaning), so every reader of a file that records its version (sweep files and folders,
compare baselines, study rows files and their baselines) reads it with a warning naming both
versions (`warn_if_newer`), and refuses it only when its format is one this version does not know
(saying then which version wrote it: `newer_note`). An older version, or one that cannot be read
("unknown", a file written before versions were recorded), is read without a word.
"""

from __future__ import annotations

import re
import warnings

from fastsnake import __version__
from fastsnake.errors import NewerVersionWarning

# The longest recorded version shown as it is; a longer (or unprintable) one is shown quoted and cut.
SHOWN_VERSION_CHARS = 40


def release(version) -> tuple[int, ...] | None:
    """The release numbers of a version string (``"0.10.2rc1"`` -> ``(0, 10, 2)``), trailing zeros
    dropped, or None when it does not start with one."""
    found = re.match(r"v?(\d{1,9}(?:\.\d{1,9})*)", str(version)) if isinstance(version, str) else None
    if found is None:
        return None
    numbers = [int(part) for part in found.group(1).split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


def newer_version(label: str, version, ours: str = __version__) -> str | None:
    """The warning line for a file (`label`) written by fastsnake `version` when it is newer than
    `ours`, else None."""
    found, mine = release(version), release(ours)
    if found is None or mine is None or found <= mine:
        return None
    text = str(version)
    shown = text if len(text) <= SHOWN_VERSION_CHARS and text.isprintable() else repr(text[:SHOWN_VERSION_CHARS])
    return (f"{label} was written by fastsnake {shown}, newer than this fastsnake {ours}: it may hold what "
            f"this version does not know; read it with fastsnake {shown} or newer")


def warn_if_newer(label: str, version) -> str | None:
    """`newer_version`, issued as a `NewerVersionWarning` too (the CLI prints it as one line)."""
    line = newer_version(label, version)
    if line:
        warnings.warn(line, NewerVersionWarning, stacklevel=3)
    return line


def newer_note(version, ours: str = __version__) -> str:
    """For a refusal of a file whose format is unknown: ", written by fastsnake X, newer than this
    fastsnake Y" when its recorded `version` is newer, else ""."""
    found, mine = release(version), release(ours)
    if found is None or mine is None or found <= mine:
        return ""
    text = str(version)
    shown = text if len(text) <= SHOWN_VERSION_CHARS and text.isprintable() else repr(text[:SHOWN_VERSION_CHARS])
    return f", written by fastsnake {shown}, newer than this fastsnake {ours}"
