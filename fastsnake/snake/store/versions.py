"""Which fastsnake wrote a file, and the warning when that is newer than the one reading it.

A file written by a newer version may hold what this version does not know (a rule, an option, a
column's new meaning), so `verify`, `report` and `replay --from` read it with a warning naming both
versions (`warn_if_newer`, one helper for all three); an older version or one that cannot be read
("unknown", a file written before versions were recorded) is read without a word.
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


def recorded_versions(path) -> list[tuple[str, str]]:
    """(what, version) of each fastsnake version a sweep file, compare file, sweep folder or folder of
    compare files (``compare --out DIR``) records; what cannot be read records none (its readers
    say why)."""
    import os

    from fastsnake.snake.store.folder import MANIFEST, SweepDataset
    from fastsnake.snake.store.sweepfile import SweepFile

    name = str(path)
    try:
        if os.path.isdir(name):
            if not os.path.exists(os.path.join(name, MANIFEST)):
                return [v for f in sorted(os.listdir(name)) if f.startswith("compare-") and f.endswith(".parquet")
                        for v in recorded_versions(os.path.join(name, f))]
            return [(f"sweep folder {name!r}", str(SweepDataset.open(name).manifest.get("version")))]
        sweep = SweepFile(name)
        if sweep.sections is not None:
            return [(f"{name!r} [{s['policy']} {s['rows']}x{s['cols']}]",
                     str(s.get("version") or (s.get("run") or {}).get("fastsnake"))) for s in sweep.sections]
        return [(repr(name), str(sweep.identity["fastsnake_version"]))]
    except (OSError, ValueError, KeyError, TypeError, AttributeError):  # its readers say what is wrong
        return []


def warn_if_newer_files(path) -> list[str]:
    """`warn_if_newer` for each version `path` records (`recorded_versions`): the warning lines, each once."""
    lines = []
    for what, version in recorded_versions(path):
        line = newer_version(what, version)
        if line and line not in lines:
            warnings.warn(line, NewerVersionWarning, stacklevel=2)
            lines.append(line)
    return lines
