"""The cache folder as a whole: which fingerprint folders are current, which are stale, and the
small files we keep beside numba's (compile times, marks of parts compiled ahead of time).

`fastsnake._numba_cache` files each kernel under ``<root>/<module>-<hash of the sources it can
reach>``, with a manifest of those sources. A fingerprint folder whose hash is not that of the
installed sources it names is stale: a source edit, an upgrade or another checkout left it. Stale
folders are pruned on a cold compile (all but the newest `KEEP_STALE` of each module and any written
in the last day, so checkouts sharing the cache do not evict one another) and removed altogether by
``fastsnake warm --clear``.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from pathlib import Path

from fastsnake._numba_cache import FINGERPRINT_FOLDER, cache_root, folder_is_current, part_fingerprint
from fastsnake.files import written_atomically

__all__ = ["cache_root", "current_fingerprints", "stale_folders", "clear_stale", "prune_stale"]

_PACKAGE_DIR = Path(__file__).resolve().parents[1]
TIMES_FILE = "compile-seconds.json"
KEEP_STALE = 3
# A folder written this recently may belong to a running process of another checkout or version
# (numba fails, on Linux, saving into a folder removed under it): never pruned automatically.
_BUSY_SECONDS = 24 * 3600


def parts() -> list[str]:
    """Every part a kernel may live in: the sub-packages and '' (the top-level modules)."""
    return [""] + sorted(p.name for p in _PACKAGE_DIR.iterdir() if p.is_dir() and (p / "__init__.py").exists())


def current_fingerprints() -> set[str]:
    """Each part's `part_fingerprint` (what warm marks are keyed by; not folder names)."""
    return {part_fingerprint(part) for part in parts()}


def _fingerprint_folders(root: Path) -> list[Path]:
    if not root.is_dir():
        return []
    return [p for p in root.iterdir() if p.is_dir() and FINGERPRINT_FOLDER.match(p.name)]


def stale_folders(root: Path | None = None) -> list[Path]:
    root = cache_root() if root is None else root
    return sorted(p for p in _fingerprint_folders(root) if not folder_is_current(p))


def has_current_folder(part: str, root: Path | None = None) -> bool:
    """Whether a current fingerprint folder holds kernels of a module of `part` (a sub-package)."""
    root = cache_root() if root is None else root
    return any(folder_is_current(p) for p in _fingerprint_folders(root)
               if FINGERPRINT_FOLDER.match(p.name)["label"].split(".")[0] == part)


def folder_bytes(path: Path) -> int:
    total = 0
    for base, _, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(base, name)).st_size
            except OSError:
                pass
    return total


def _written(path: Path) -> float:
    """When kernels were last saved in a fingerprint folder (its module folders get the files)."""
    stamps = [path.stat().st_mtime]
    stamps += [p.stat().st_mtime for p in path.iterdir() if p.is_dir()]
    return max(stamps)


def clear_stale(root: Path | None = None) -> dict:
    """Remove every stale fingerprint folder; ``{"removed": [names], "freed_bytes": n, "root": str}``."""
    root = cache_root() if root is None else root
    removed, freed = [], 0
    for path in stale_folders(root):
        size = folder_bytes(path)
        shutil.rmtree(path, ignore_errors=True)
        if not path.exists():
            removed.append(path.name)
            freed += size
    return {"root": str(root), "removed": removed, "freed_bytes": freed}


def prune_stale(root: Path | None = None, keep: int = KEEP_STALE) -> list[str]:
    """Remove stale folders of each module beyond its `keep` newest (and not written lately)."""
    root = cache_root() if root is None else root
    removed = []
    try:
        by_part: dict[str, list[tuple[float, Path]]] = {}
        for path in stale_folders(root):
            by_part.setdefault(FINGERPRINT_FOLDER.match(path.name)["label"], []).append((_written(path), path))
        now = time.time()
        for folders in by_part.values():
            folders.sort(reverse=True)
            for written, path in folders[keep:]:
                if now - written > _BUSY_SECONDS:
                    shutil.rmtree(path, ignore_errors=True)
                    removed.append(path.name)
    except OSError:  # pruning is housekeeping: a folder that vanished or is not ours is no error
        pass
    return removed


def read_json(name: str) -> dict:
    try:
        with open(cache_root() / name, encoding="utf-8") as fh:
            value = json.load(fh)
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


def write_json(name: str, value: dict) -> None:
    path = cache_root() / name
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with written_atomically(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
            json.dump(value, fh, indent=1, sort_keys=True)
    except OSError:  # a read-only cache still runs, it just cannot remember
        pass
