"""Which fastsnake wrote a Snake sweep file, compare file or sweep folder, and the warning when that is
newer than the one reading it (the helpers, shared by every reader, are in `fastsnake.versions`).

A file written by a newer version may hold what this version does not know (a rule, an option, a
column's new meaning), so `verify`, `report` and `replay --from` read it with a warning naming both
versions (`warn_if_newer`, one helper for all three); an older version or one that cannot be read
("unknown", a file written before versions were recorded) is read without a word.
"""

from __future__ import annotations

import warnings

from fastsnake.errors import NewerVersionWarning
from fastsnake.versions import (  # noqa: F401 - re-exported: the helpers of every reader live there
    SHOWN_VERSION_CHARS,
    newer_version,
    release,
    warn_if_newer,
)


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
