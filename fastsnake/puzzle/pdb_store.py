"""The pattern-database cache: one file per (board, goal blank cell, group cells), compact
entries after a JSON header with a blake2b checksum (building is `pdb_build`'s)."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import numpy as np

from fastsnake.files import written_atomically

MAGIC = b"FSPDB1\n"


def cache_dir() -> Path:
    root = os.environ.get("FASTSNAKE_CACHE_DIR")
    if root:
        return Path(root) / "pdb"
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "fastsnake" / "pdb"


def table_key(rows, cols, blank_cell, cells):
    return {"rows": rows, "cols": cols, "blank_cell": blank_cell, "cells": [int(c) for c in cells]}


def table_path(key) -> Path:
    digest = hashlib.blake2b(json.dumps(key, sort_keys=True).encode(), digest_size=8).hexdigest()
    return cache_dir() / f"pdb-{key['rows']}x{key['cols']}-k{len(key['cells'])}-{digest}.bin"


def load_table(path: Path, key, into: np.ndarray) -> bool:
    """Read a table file into `into` (its compact size); False if missing or bad."""
    try:
        with open(path, "rb") as fh:
            if fh.read(len(MAGIC)) != MAGIC:
                return False
            header = json.loads(fh.readline())
            if header.get("key") != key or header.get("size") != len(into):
                return False
            if fh.readinto(memoryview(into)) != len(into) or fh.read(1):
                return False
    except (OSError, ValueError):
        return False
    return hashlib.blake2b(memoryview(into), digest_size=16).hexdigest() == header.get("blake2b")


def save_table(path: Path, key, compact: np.ndarray, seconds: float) -> None:
    header = {"key": key, "size": len(compact), "build_seconds": round(seconds, 3),
              "blake2b": hashlib.blake2b(memoryview(compact), digest_size=16).hexdigest()}
    path.parent.mkdir(parents=True, exist_ok=True)
    with written_atomically(path) as tmp, open(tmp, "wb") as fh:  # a full disk leaves no half file
        fh.write(MAGIC)
        fh.write((json.dumps(header) + "\n").encode())
        fh.write(memoryview(compact))


