"""A run folder's files: written whole (temporary name, fsync, rename), checksummed, and written by
one process at a time.

`atomic_write` writes bytes under a dot-name beside the file, syncs and renames them, then syncs
the folder: after a crash (SIGKILL, power loss) the file is the old one or the new one, never a
part. `sha256_file` is a file's digest as a manifest records it, `manifest_checksum` the digest of
a manifest's own content (every field but ``checksum``). `FolderLock` is the folder's writer lock
(``flock`` on a lock file holding the owner's pid and host): a second writer is refused naming the
owner, the lock of a process that died is taken over with a warning. `write_manifest` writes a
folder's manifest with its chunk records and checksum, `make_folder` makes a new folder with its first
manifest (removed again if that fails), `chunk_files` lists the ``chunk-NNNNNNNN`` files present.
Snake's sweep folders (`fastsnake.snake.store.folder`) and the runner's folders (`fastsnake.runs.folder`)
both use them.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sys
import time
from pathlib import Path

from fastsnake.errors import InputError
from fastsnake.files import fsync_path, host_name, open_regular, pid_alive


def atomic_write(path, data: bytes) -> None:
    """Write `data` to `path` whole or not at all: a dot-name beside it, fsync, rename, fsync of
    the folder. Errors pass through (the temporary file removed) for the caller to word."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    try:
        with open(tmp, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
        fsync_path(path.parent)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def sha256_file(path) -> str:
    """The SHA-256 of the file at `path` (a FIFO or device in its place is refused, never opened)."""
    digest = hashlib.sha256()
    with open_regular(path) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def manifest_checksum(data: dict) -> str:
    """The SHA-256 of a manifest's content: every field but ``checksum``, as sorted JSON."""
    body = {k: v for k, v in data.items() if k != "checksum"}
    return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()


def write_manifest(path, manifest: dict, records: dict, write=None) -> dict:
    """Write `manifest` to `path` whole, its ``chunks`` being `records` (chunk index -> record, in index
    order) and its ``checksum`` made afresh; return what was written. `write` (default `atomic_write`)
    writes the bytes; an OSError passes through for the caller to word."""
    data = {k: v for k, v in manifest.items() if k not in ("chunks", "checksum")}
    data["chunks"] = {str(i): records[i] for i in sorted(records)}
    data["checksum"] = manifest_checksum(data)
    (write or atomic_write)(path, json.dumps(data, indent=1).encode())
    return data


def make_folder(path, write_manifest, error) -> None:
    """Make the folder `path` (and its parents) and call `write_manifest()` to write its first manifest.
    On an OSError or an `error`, the folder is removed again if this call made it (nothing left behind:
    the same command can run again) and the exception passes through for the caller to word."""
    path = Path(path)
    created = not path.exists()
    try:
        path.mkdir(parents=True, exist_ok=True)
        write_manifest()
    except (OSError, error):
        if created:
            with contextlib.suppress(OSError):
                path.rmdir()
        raise


def chunk_file_name(index: int, suffix: str) -> str:
    """The name of chunk `index`'s file: ``chunk-00000012`` and `suffix` (``.json``, ``.parquet``)."""
    return f"chunk-{index:08d}{suffix}"


def chunk_file_index(name: str, suffix: str) -> int | None:
    """The chunk index a file name `chunk_file_name` gives stands for, or None for any other name (one
    whose number is not ASCII digits: ``str.isdigit`` also passes ``²``, which `int` refuses)."""
    stem = name[len("chunk-"):-len(suffix)]
    ours = name.startswith("chunk-") and name.endswith(suffix) and stem.isascii() and stem.isdigit()
    return int(stem) if ours else None


def chunk_files(folder, n_chunks: int, suffix: str) -> tuple[list[int], list[str]]:
    """(indices of the chunk files present in `folder`, in order; names of chunk files with no place
    among `n_chunks` chunks, in order): from one listing of the folder, not one look per chunk."""
    present, strays = [], []
    with os.scandir(folder) as entries:
        for entry in entries:
            index = chunk_file_index(entry.name, suffix)
            if index is None:
                continue
            if index < n_chunks and entry.name == chunk_file_name(index, suffix):
                present.append(index)
            else:
                strays.append(entry.name)
    return sorted(present), sorted(strays)


def lock_owner(fd) -> dict | None:
    """The owner a lock file names (``pid``, ``host``, ``since``), or None."""
    try:
        raw = os.pread(fd, 4096, 0)
        owner = json.loads(raw) if raw.strip() else None
    except (OSError, ValueError):
        return None
    return owner if isinstance(owner, dict) else None


class FolderLock:
    """The writer lock of a folder: ``with FolderLock(folder / "_writer.lock", "sweep folder 'x'"):``.

    `what` names the folder in messages; `error` is the exception raised (an `InputError` subclass:
    another writer is busy, or the lock cannot be written). On entry the lock file is taken with
    ``flock`` (a killed process never leaves it held) and our pid and host written in it; on exit
    the file is removed while still held."""

    def __init__(self, path, what: str, error=InputError):
        self.path = Path(path)
        self.what = what
        self.error = error
        self.fd = None

    def __enter__(self):
        fd = self._take()
        try:
            owner = lock_owner(fd)
            if owner and not (owner.get("host") == host_name() and owner.get("pid") == os.getpid()):
                if owner.get("host") == host_name() and pid_alive(int(owner.get("pid", 0))):
                    # Alive but not holding the lock: a writer that does not lock (older code).
                    raise self.error(f"{self.what} names live process {owner.get('pid')} as its writer; wait "
                                     "for it to finish, or stop it first")
                sys.stderr.write(f"fastsnake: warning: {self.what}: taking over the lock of process "
                                 f"{owner.get('pid')} on {owner.get('host')}, which is gone\n")
            me = json.dumps({"pid": os.getpid(), "host": host_name(),
                             "since": time.strftime("%Y-%m-%dT%H:%M:%S%z")}).encode()
            os.ftruncate(fd, 0)
            os.pwrite(fd, me, 0)
            os.fsync(fd)
        except BaseException as exc:
            with contextlib.suppress(OSError):
                if os.fstat(fd).st_size == 0:  # emptied by us, not written: no empty lock file left behind
                    os.unlink(self.path)
            os.close(fd)
            if isinstance(exc, OSError):
                raise self.error(f"cannot lock {self.what}: cannot write its lock file ({exc.strerror or exc}); "
                                 "free some space and run the command again") from None
            raise
        self.fd = fd
        return self

    def __exit__(self, *exc):
        fd, self.fd = self.fd, None
        with contextlib.suppress(OSError):
            os.unlink(self.path)  # while still locked: a process that opened it then finds it gone
        os.close(fd)
        return False

    def _take(self) -> int:
        """An open, flock'd descriptor of the lock file that is still the file under that name (a
        writer that ended unlinks the file it held; a locker that opened that one opens again)."""
        for _ in range(10):
            try:
                fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as exc:
                raise self.error(f"cannot lock {self.what}: {exc.strerror or exc}") from None
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                owner = lock_owner(fd) or {}
                os.close(fd)
                raise self.error(f"{self.what} is being written by process {owner.get('pid', '?')} on "
                                 f"{owner.get('host', '?')} (since {owner.get('since', '?')}); wait for it to "
                                 "finish, or stop it first") from None
            try:
                same = os.fstat(fd).st_ino == os.stat(self.path).st_ino
            except OSError:
                same = False
            if same:
                return fd
            os.close(fd)
        raise self.error(f"cannot lock {self.what}: its lock file keeps changing")
