"""The pattern-database cache: one file per (board, goal blank cell, group cells), compact
entries after a JSON header with a blake2b checksum (building is `pdb_build`'s); and, for
the big sets (6-6-6-6 on 5x5), one file per set holding every group's table expanded to the
sparse layout, memory-mapped read-only on load (`write_sparse_set`, `open_sparse_set`).

A sparse set file starts with a 4096-byte header (magic, one JSON line, zero padding), so
its data is page-aligned for mmap; the header names the set's table keys and sizes, the
blake2b of each compact file it was expanded from (checked, from the compact data, when it
was written) and the blake2b of its own data. Opening it checks, every time, the header, the
file's size and that the compact files in the cache still record those digests (reading
their headers only); the data's own digest is checked once per file per boot: a checked
file gets a stamp beside it (`<file>.checked`: boot id, inode, size, mtime and ctime, the
digest), and a file changed in any way since (a rewrite, a truncation, a byte written in
place: each moves its ctime or inode) or a reboot makes the next opener hash it again.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import mmap
import os
import time
from dataclasses import dataclass
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


def load_table(path: Path, key, into: np.ndarray, header_out: dict | None = None) -> bool:
    """Read a table file into `into` (its compact size); False if missing or bad. When the
    data matches its checksum, the file's header is copied into `header_out` (if given)."""
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
    good = hashlib.blake2b(memoryview(into), digest_size=16).hexdigest() == header.get("blake2b")
    if good and header_out is not None:
        header_out.update(header)
    return good


def read_checked(path: Path, key) -> np.ndarray | None:
    """The data (uint8) of a file `save_table` wrote for `key`, of whatever size its header
    records, when it is whole and matches its checksum (`load_table`); else None."""
    try:
        with open(path, "rb") as fh:
            header = json.loads(fh.readline(1 << 16)) if fh.read(len(MAGIC)) == MAGIC else None
    except (OSError, ValueError):
        return None
    size = header.get("size") if isinstance(header, dict) else None
    if not isinstance(size, int) or size < 0:
        return None
    data = np.empty(size, np.uint8)
    return data if load_table(path, key, data) else None


def recorded_digest(path: Path, key, size: int) -> str | None:
    """The blake2b a compact table file's header records for its data (only the header is
    read: the data is not checked here), or None if the file is missing, not a table file of
    `key`, or not `size` entries."""
    try:
        with open(path, "rb") as fh:
            if fh.read(len(MAGIC)) != MAGIC:
                return None
            header = json.loads(fh.readline(1 << 16))
    except (OSError, ValueError):
        return None
    if not isinstance(header, dict) or header.get("key") != key or header.get("size") != size:
        return None
    digest = header.get("blake2b")
    return digest if isinstance(digest, str) else None


def save_table(path: Path, key, compact: np.ndarray, seconds: float) -> None:
    header = {"key": key, "size": len(compact), "build_seconds": round(seconds, 3),
              "blake2b": hashlib.blake2b(memoryview(compact), digest_size=16).hexdigest()}
    path.parent.mkdir(parents=True, exist_ok=True)
    with written_atomically(path) as tmp, open(tmp, "wb") as fh:  # a full disk leaves no half file
        fh.write(MAGIC)
        fh.write((json.dumps(header) + "\n").encode())
        fh.write(memoryview(compact))



# ---------------------------------------------------------------- what builds took here

BUILDS_FILE = "builds.json"  # beside the tables: the last build of each table size on this machine


def _build_key(rows: int, cols: int, k: int) -> str:
    return f"{rows}x{cols}-k{k}"


def record_build(rows: int, cols: int, k: int, cpu_seconds: float, wall_seconds: float) -> None:
    """Keep what building a table of `k` tiles on `rows` x `cols` took here (CPU and wall seconds),
    as the next announcement's cost; written whole (a read-only cache only forgets it)."""
    path = cache_dir() / BUILDS_FILE
    builds = _read_builds(path)
    builds[_build_key(rows, cols, k)] = {"cpu_seconds": round(cpu_seconds, 6), "wall_seconds": round(wall_seconds, 6)}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        with written_atomically(path) as tmp, open(tmp, "w", encoding="utf-8") as fh:
            json.dump(builds, fh, indent=1, sort_keys=True)
    except OSError:
        pass


def measured_build(rows: int, cols: int, k: int) -> dict | None:
    """``{"cpu_seconds", "wall_seconds"}`` of this machine's last build of such a table, else None."""
    entry = _read_builds(cache_dir() / BUILDS_FILE).get(_build_key(rows, cols, k))
    if not isinstance(entry, dict):
        return None
    values = [entry.get("cpu_seconds"), entry.get("wall_seconds")]
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0 for v in values):
        return None
    return {"cpu_seconds": float(values[0]), "wall_seconds": float(values[1])}


def _read_builds(path: Path) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            value = json.loads(fh.read(1 << 16))
    except (OSError, ValueError):
        return {}
    return value if isinstance(value, dict) else {}


# ---------------------------------------------------------------- sparse sets, mapped

SET_MAGIC = b"FSPDBSET1\n"
SET_HEADER_BYTES = 4096  # the data starts page-aligned (mmap offsets are multiples of the page)
STAMP_SUFFIX = ".checked"


class DamagedSetFile(ValueError):
    """A sparse set file that cannot be used; the message says why (missing files raise
    FileNotFoundError instead)."""


def set_path(keys) -> Path:
    """The sparse set file of these table keys (in this order)."""
    first = keys[0]
    sizes = "-".join(str(len(k["cells"])) for k in keys)
    digest = hashlib.blake2b(json.dumps(keys, sort_keys=True).encode(), digest_size=8).hexdigest()
    return cache_dir() / f"pdbset-{first['rows']}x{first['cols']}-{sizes}-{digest}.sparse"


def boot_id() -> str | None:
    """This boot's id (Linux), None where there is none: then every open hashes the data."""
    try:
        with open("/proc/sys/kernel/random/boot_id") as fh:
            return fh.read().strip() or None
    except OSError:
        return None


def _identity(st) -> dict:
    return {"dev": st.st_dev, "ino": st.st_ino, "size": st.st_size, "mtime_ns": st.st_mtime_ns,
            "ctime_ns": st.st_ctime_ns}


def _stamp_ok(path: Path, st, digest: str) -> bool:
    boot = boot_id()
    if boot is None:
        return False
    try:
        with open(str(path) + STAMP_SUFFIX, "rb") as fh:
            stamp = json.loads(fh.read(1 << 12))
    except (OSError, ValueError):
        return False
    return stamp == {"boot_id": boot, "blake2b": digest, **_identity(st)}


def _write_stamp(path: Path, digest: str) -> None:
    """Record that the file at `path` (as it is now) was hashed to `digest` this boot; a
    stamp that cannot be written only costs the next opener a hash."""
    boot = boot_id()
    if boot is None:
        return
    try:
        st = os.stat(path)
        stamp = str(path) + STAMP_SUFFIX
        with written_atomically(stamp) as tmp, open(tmp, "w") as fh:
            json.dump({"boot_id": boot, "blake2b": digest, **_identity(st)}, fh)
    except OSError:
        pass


def _huge_pages(mm: mmap.mmap) -> None:
    """Ask for 2 MB pages where the kernel can map the file with them (Linux THP for files:
    pages read into the page cache through this mapping come in 2 MB folios, mapped by one
    entry each). The search reads the tables at random: with 4 KB pages most lookups also
    miss the TLB. Nothing happens where the kernel cannot."""
    advice = getattr(mmap, "MADV_HUGEPAGE", None)
    if advice is not None:
        with contextlib.suppress(OSError):
            mm.madvise(advice)


@dataclass
class MappedSet:
    path: str
    data: np.ndarray  # read-only view of the mapped data: every table, one after the other
    header: dict
    checked: str  # "blake2b": hashed by this open; "stamp": hashed earlier this boot
    seconds: float

    def describe(self) -> dict:
        return {"file": self.path, "bytes": int(self.header["data_bytes"]), "checked": self.checked,
                "blake2b": self.header["blake2b"], "seconds": round(self.seconds, 4)}


def _read_set_header(fd: int) -> dict:
    head = os.pread(fd, SET_HEADER_BYTES, 0)
    if len(head) < SET_HEADER_BYTES or not head.startswith(SET_MAGIC):
        raise DamagedSetFile("has no sparse-set header")
    line, _, pad = head[len(SET_MAGIC):].partition(b"\n")
    if pad.strip(b"\0"):
        raise DamagedSetFile("has bytes after its header line")
    try:
        header = json.loads(line)
    except ValueError:
        raise DamagedSetFile("has an unreadable header") from None
    if not isinstance(header, dict):
        raise DamagedSetFile("has an unreadable header")
    return header


def open_sparse_set(path: Path, keys, sizes, compact_digests, *, recheck: bool = False) -> MappedSet:
    """Map a sparse set file read-only after checking it (see the module docstring); the
    data's blake2b is computed unless a stamp of this boot vouches for this very file (or
    `recheck`). Raises FileNotFoundError, or DamagedSetFile naming what is wrong."""
    t0 = time.perf_counter()
    fd = os.open(path, os.O_RDONLY)
    try:
        st = os.fstat(fd)
        header = _read_set_header(fd)
        total = sum(int(s) for s in sizes)
        if header.get("keys") != keys or header.get("sizes") != [int(s) for s in sizes]:
            raise DamagedSetFile("is for other tables")
        if header.get("data_bytes") != total or st.st_size != SET_HEADER_BYTES + total:
            raise DamagedSetFile(f"is truncated or padded ({st.st_size:,} bytes, "
                                 f"expected {SET_HEADER_BYTES + total:,})")
        if header.get("compact_blake2b") != list(compact_digests):
            raise DamagedSetFile("was expanded from other compact tables than those now cached")
        digest = header.get("blake2b")
        if not isinstance(digest, str):
            raise DamagedSetFile("has no checksum")
        mm = mmap.mmap(fd, SET_HEADER_BYTES + total, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ)
        _huge_pages(mm)
    finally:
        os.close(fd)  # the mapping stays valid without the descriptor
    checked = "stamp"
    if recheck or not _stamp_ok(path, st, digest):
        got = hashlib.blake2b(memoryview(mm)[SET_HEADER_BYTES:], digest_size=16).hexdigest()
        if got != digest:
            mm.close()
            raise DamagedSetFile("does not match its checksum (damaged)")
        checked = "blake2b"
        _write_stamp(path, digest)
    data = np.frombuffer(mm, np.uint8, total, SET_HEADER_BYTES)  # read-only: the mapping is
    return MappedSet(str(path), data, header, checked, time.perf_counter() - t0)


class _FillRefused(Exception):
    pass


def write_sparse_set(path: Path, keys, sizes, fill, seconds_before: float = 0.0) -> str | None:
    """Write the sparse set file of `keys` whole or not at all: a temporary file beside
    `path` is allocated (zeros), mapped, `fill(data)` writes every table into `data` (the
    zeroed data array, writable) and returns the blake2b digests of the compact tables it
    expanded (each checked against its own file), or None to give up (nothing is left);
    then the data is hashed, the header written, the file synced and renamed to `path`, and
    stamped as checked; returns the data's digest. OSError passes through (nothing is left
    either). `fill` must keep no reference to `data` (the mapping is closed after it)."""
    total = sum(int(s) for s in sizes)
    path.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    try:
        with written_atomically(path) as tmp:
            fd = os.open(tmp, os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                # Blocks reserved up front: a full disk is an OSError here, not a SIGBUS
                # when a write through the mapping finds no block.
                if hasattr(os, "posix_fallocate"):
                    os.posix_fallocate(fd, 0, SET_HEADER_BYTES + total)
                else:
                    os.ftruncate(fd, SET_HEADER_BYTES + total)
                mm = mmap.mmap(fd, SET_HEADER_BYTES + total, flags=mmap.MAP_SHARED,
                               prot=mmap.PROT_READ | mmap.PROT_WRITE)
                _huge_pages(mm)
                try:
                    digests = fill(np.frombuffer(mm, np.uint8, total, SET_HEADER_BYTES))
                    if digests is None:
                        raise _FillRefused
                    view = memoryview(mm)
                    digest = hashlib.blake2b(view[SET_HEADER_BYTES:], digest_size=16).hexdigest()
                    header = {"keys": keys, "sizes": [int(s) for s in sizes], "data_bytes": total,
                              "layout": "sparse", "compact_blake2b": list(digests), "blake2b": digest,
                              "build_seconds": round(seconds_before + time.perf_counter() - t0, 3)}
                    head = SET_MAGIC + json.dumps(header).encode() + b"\n"
                    if len(head) > SET_HEADER_BYTES:
                        raise ValueError("sparse set header too long")
                    view[:len(head)] = head
                    view.release()
                    mm.flush()
                finally:
                    # An error inside `fill` leaves its view alive in the traceback: the mapping
                    # then closes when that is freed (the file is removed all the same).
                    with contextlib.suppress(BufferError):
                        mm.close()
            finally:
                os.close(fd)
    except _FillRefused:
        return None
    _write_stamp(path, digest)
    return digest
