"""A run folder: a run's finished chunks, each a file written whole, recorded in a manifest.

Layout of ``DIR``::

    _manifest.json        the run's identity (kind, what it runs, options, fastsnake version), its
                          unit count and chunk size, its run id, and the SHA-256 of each finished
                          chunk; itself checksummed (`manifest_checksum`)
    _writer.lock          who writes the folder now (pid, host; `FolderLock`)
    chunk-00000000.json   the results of units [0, chunk_size) of the run, in unit order
    ...

A chunk is written under a dot-name, synced and renamed (`atomic_write`), then recorded in the
manifest (written the same way, at most every `MANIFEST_SECONDS` and when the run ends), so after a
SIGKILL every chunk file present is whole; each also carries the run's identity digest and a
checksum of its own content, so a whole chunk the manifest does not record yet is adopted after
that check. A rerun with the same identity computes only the chunks missing; a folder of another
run (other identity, another version) is refused with `RunFolderError` (an `InputError`), never
mixed; a chunk whose bytes differ from its record is damaged (`RunFolderError` naming it).
The problems decide what a unit's result is (a JSON value) and what the identity holds.
"""

from __future__ import annotations

import contextlib
import json
import time
from pathlib import Path

from fastsnake import __version__
from fastsnake.errors import InputError
from fastsnake.files import open_regular, remove_stale_temps
from fastsnake.runs.files import (
    FolderLock,
    atomic_write,
    chunk_file_index,
    chunk_file_name,
    chunk_files,
    make_folder,
    manifest_checksum,
    sha256_bytes,
    write_manifest,
)

FORMAT = "fastsnake-run/1"
CHUNK_FORMAT = "fastsnake-run-chunk/1"
MANIFEST = "_manifest.json"
LOCK = "_writer.lock"
# The manifest is rewritten at most this often while chunks finish (a chunk written meanwhile is
# whole and adopted by a rerun after its own check), and always when the run ends.
MANIFEST_SECONDS = 0.5
# The largest manifest or chunk file a reader takes (a run's records, a chunk's results).
MAX_FILE_BYTES = 256 << 20


class RunFolderError(InputError):
    """A run folder that cannot be used as asked: another run's, damaged, or unwritable; the
    message names the folder and the file."""


CHUNK_SUFFIX = ".json"


def chunk_name(index: int) -> str:
    return chunk_file_name(index, CHUNK_SUFFIX)


def chunk_index(name: str) -> int | None:
    return chunk_file_index(name, CHUNK_SUFFIX)


def canonical(value) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":")).encode()


def identity_digest(identity: dict) -> str:
    return sha256_bytes(canonical(identity))


def is_run_folder(path) -> bool:
    """`path` is a folder holding a run manifest (not a Snake sweep folder's)."""
    manifest = Path(path) / MANIFEST
    if not manifest.is_file():
        return False
    try:
        with open_regular(manifest) as fh:
            head = fh.read(4096)
    except OSError:
        return False
    return b'"fastsnake-run/' in head


def _read_json(path: Path, what: str):
    try:
        if path.stat().st_size > MAX_FILE_BYTES:
            raise RunFolderError(f"{what} is damaged (larger than any run writes)")
        with open_regular(path) as fh:
            raw = fh.read()
    except OSError as exc:
        raise RunFolderError(f"cannot read {what}: {exc.strerror or exc}") from None
    try:
        return raw, json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise RunFolderError(f"{what} is damaged (not JSON)") from None


def _differences(there: dict, asked: dict) -> str:
    keys = [k for k in sorted(set(there) | set(asked)) if there.get(k) != asked.get(k)]
    parts = []
    for k in keys[:4]:
        a, b = json.dumps(there.get(k)), json.dumps(asked.get(k))
        if len(a) + len(b) > 120:
            parts.append(f"{k} differs")
        else:
            parts.append(f"{k}: {a} there, {b} asked")
    return ", ".join(parts) + (f" and {len(keys) - 4} more" if len(keys) > 4 else "")


class RunFolder:
    """A run folder (see the module's docstring). `create_or_resume` for a writer, `open` for a reader."""

    def __init__(self, path, manifest: dict):
        self.path = Path(path)
        self.manifest = manifest
        self.records = {int(k): v for k, v in (manifest.get("chunks") or {}).items()}
        self._lock = None
        self._saved = time.monotonic()
        self._dirty = False

    # -- identity ----------------------------------------------------------------
    @property
    def identity(self) -> dict:
        return self.manifest["identity"]

    @property
    def digest(self) -> str:
        return self.manifest["identity_sha256"]

    @property
    def run_id(self) -> str:
        return self.manifest["run_id"]

    @property
    def units(self) -> int:
        return self.manifest["units"]

    @property
    def chunk_size(self) -> int:
        return self.manifest["chunk_size"]

    @property
    def n_chunks(self) -> int:
        return -(-self.units // self.chunk_size)

    @property
    def notes(self) -> dict:
        return self.manifest.get("notes") or {}

    def chunk_range(self, index: int) -> tuple[int, int]:
        first = index * self.chunk_size
        return first, min(self.chunk_size, self.units - first)

    def where(self, name: str = "") -> str:
        return repr(str(self.path / name) if name else str(self.path))

    # -- opening -------------------------------------------------------------------
    @classmethod
    def create_or_resume(cls, path, identity: dict, units: int, chunk_size: int, *, run_id: str,
                         notes: dict | None = None) -> "RunFolder":
        """The folder `path` for the run `identity` of `units` units in chunks of `chunk_size`: a new
        (or empty) folder is made and its manifest written; a folder of this run is resumed (its run
        id kept); any other is `RunFolderError` (another run's: the fields that differ named)."""
        path = Path(path)
        identity = dict(identity, fastsnake_version=__version__)
        if path.exists() and not path.is_dir():
            raise RunFolderError(f"{str(path)!r} exists and is not a folder")
        if (path / MANIFEST).exists():
            folder = cls.open(path)
            asked = {"identity": identity, "units": units, "chunk_size": chunk_size}
            there = {"identity": folder.identity, "units": folder.units, "chunk_size": folder.chunk_size}
            if there != asked:
                flat_there = dict(there["identity"], units=there["units"], chunk_size=there["chunk_size"])
                flat_asked = dict(asked["identity"], units=units, chunk_size=chunk_size)
                raise RunFolderError(f"{str(path)!r} holds another run ({_differences(flat_there, flat_asked)}); "
                                     "use a new folder")
            return folder
        if path.is_dir():
            remove_stale_temps(path, f".{MANIFEST}.tmp")
            if any(e.name != LOCK for e in path.iterdir()):
                raise RunFolderError(f"{str(path)!r} is not empty and holds no run; use a new or empty folder")
        manifest = {"format": FORMAT, "identity": identity, "identity_sha256": identity_digest(identity),
                    "units": int(units), "chunk_size": int(chunk_size), "run_id": run_id,
                    "version": __version__, "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                    "notes": notes or {}, "chunks": {}}
        folder = cls(path, manifest)
        try:
            make_folder(path, folder.save_manifest, RunFolderError)
        except OSError as exc:
            raise RunFolderError(f"cannot create run folder {str(path)!r}: {exc.strerror or exc}") from None
        return folder

    @classmethod
    def open(cls, path) -> "RunFolder":
        """The run folder `path` as its manifest says (checked: format, fields, checksum)."""
        path = Path(path)
        where = repr(str(path / MANIFEST))
        if not (path / MANIFEST).exists():
            raise RunFolderError(f"{str(path)!r} holds no run (no {MANIFEST})")
        _, data = _read_json(path / MANIFEST, where)
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise RunFolderError(f"{where} is not a fastsnake run manifest (format "
                                 f"{data.get('format') if isinstance(data, dict) else None!r})")
        if data.get("checksum") != manifest_checksum(data):
            raise RunFolderError(f"{where} is damaged (its checksum does not match its content)")
        try:
            ok = (isinstance(data["identity"], dict) and data["identity_sha256"] == identity_digest(data["identity"])
                  and all(isinstance(data[k], int) and not isinstance(data[k], bool) for k in ("units", "chunk_size"))
                  and data["units"] >= 0 and data["chunk_size"] >= 1 and isinstance(data["run_id"], str)
                  and isinstance(data.get("chunks"), dict)
                  and all(k.isdigit() and isinstance(v, dict) and isinstance(v.get("sha256"), str)
                          for k, v in data["chunks"].items()))
        except (KeyError, TypeError, AttributeError):
            ok = False
        if not ok:
            raise RunFolderError(f"{where} is damaged (a field is missing or of the wrong kind)")
        return cls(path, data)

    def save_manifest(self) -> None:
        """Write the manifest whole (temporary file, fsync, rename, fsync of the folder)."""
        try:
            data = write_manifest(self.path / MANIFEST, self.manifest, self.records)
        except OSError as exc:
            raise RunFolderError(f"cannot write {self.where(MANIFEST)}: {exc.strerror or exc} (the finished "
                                 "chunks are kept; a rerun checks and records them)") from None
        self.manifest = data
        self._saved = time.monotonic()
        self._dirty = False

    @contextlib.contextmanager
    def writing(self):
        """Hold the folder's writer lock; the manifest is saved on the way out."""
        with FolderLock(self.path / LOCK, f"run folder {str(self.path)!r}", RunFolderError):
            try:
                yield self
            finally:
                if self._dirty:
                    self.save_manifest()

    # -- chunks --------------------------------------------------------------------
    def chunk_path(self, index: int) -> Path:
        return self.path / chunk_name(index)

    def _chunk_body(self, index: int, results: list) -> dict:
        first, count = self.chunk_range(index)
        return {"format": CHUNK_FORMAT, "run": self.digest, "run_id": self.run_id, "index": index,
                "first": first, "count": count, "results": results}

    def write_chunk(self, index: int, results: list) -> None:
        """Write chunk `index` whole and record it (the manifest saved now or within `MANIFEST_SECONDS`)."""
        first, count = self.chunk_range(index)
        if len(results) != count:
            raise RunFolderError(f"chunk {index} came back with {len(results)} results, not {count}")
        body = self._chunk_body(index, results)
        data = canonical(dict(body, checksum=sha256_bytes(canonical(body))))
        final = self.chunk_path(index)
        try:
            atomic_write(final, data)
        except OSError as exc:
            raise RunFolderError(f"cannot write {self.where(final.name)}: {exc.strerror or exc} (the finished "
                                 "chunks are kept)") from None
        except ValueError as exc:  # a result JSON cannot hold
            raise RunFolderError(f"chunk {index}: a result is not JSON ({exc})") from None
        self.records[index] = {"sha256": sha256_bytes(data), "bytes": len(data), "count": count}
        self._dirty = True
        if time.monotonic() - self._saved >= MANIFEST_SECONDS:
            self.save_manifest()

    def read_chunk(self, index: int):
        """('ok' | 'adopt' | 'missing' | 'damaged', results or None, what is wrong or None)."""
        path = self.chunk_path(index)
        if not path.exists():
            return "missing", None, None
        try:
            raw, data = _read_json(path, path.name)
        except RunFolderError as exc:
            return "damaged", None, str(exc).removeprefix(f"{path.name} ")
        record = self.records.get(index)
        if record is not None and sha256_bytes(raw) != record["sha256"]:
            return "damaged", None, "is damaged (its content differs from the manifest's record, SHA-256)"
        if not isinstance(data, dict):
            return "damaged", None, "is damaged (not a chunk)"
        body = {k: v for k, v in data.items() if k != "checksum"}
        if data.get("checksum") != sha256_bytes(canonical(body)):
            return "damaged", None, "is damaged (its checksum does not match its content)"
        if data.get("run") != self.digest:
            return "damaged", None, "belongs to another run"
        if body != self._chunk_body(index, body.get("results")) or not isinstance(body.get("results"), list):
            return "damaged", None, f"is not chunk {index} of this run"
        if record is None:
            return "adopt", data["results"], {"sha256": sha256_bytes(raw), "bytes": len(raw),
                                              "count": len(data["results"])}
        return "ok", data["results"], None

    def present(self) -> tuple[list[int], list[str]]:
        """(indices of the chunk files present, names of chunk files with no place in this run)."""
        return chunk_files(self.path, self.n_chunks, CHUNK_SUFFIX)

    def scan(self) -> dict:
        """{chunk index: its results} of every finished chunk, each checked; `RunFolderError` naming a
        damaged one (or a stray chunk file). Whole chunks the manifest does not record yet are
        recorded; temporary files of dead writers are removed."""
        remove_stale_temps(self.path, ".chunk-")
        remove_stale_temps(self.path, f".{MANIFEST}.tmp")
        present, strays = self.present()
        if strays:
            raise RunFolderError(f"run folder {str(self.path)!r}: {strays[0]} has no place in this run of "
                                 f"{self.n_chunks:,} chunks; remove it")
        done = {}
        for index in present:
            status, results, detail = self.read_chunk(index)
            if status == "damaged":
                raise RunFolderError(f"run folder {str(self.path)!r}: {chunk_name(index)} {detail}; remove it "
                                     "and run the same command again to redo it")
            if status == "missing":
                continue
            if status == "adopt":
                self.records[index] = detail
                self._dirty = True
            done[index] = results
        for index in [i for i in self.records if i not in done]:  # recorded, then removed by hand: redone
            del self.records[index]
            self._dirty = True
        return done

    def verify(self) -> dict:
        """What `fastsnake verify` says of the folder: ``ok`` (every recorded chunk whole and its own,
        no stray file), ``complete``, ``chunks``, ``finished``, ``missing`` (count), ``damaged``
        (one line each), ``unrecorded`` (whole chunks a rerun will record)."""
        present, strays = self.present()
        damaged = [f"{name} has no place in this run of {self.n_chunks:,} chunks" for name in strays]
        finished, unrecorded = 0, 0
        for index in present:
            status, _, detail = self.read_chunk(index)
            if status == "damaged":
                damaged.append(f"{chunk_name(index)} {detail}")
            elif status in ("ok", "adopt"):
                finished += 1
                unrecorded += status == "adopt"
        lost = [i for i in self.records if i not in present]
        damaged += [f"{chunk_name(i)} is recorded in the manifest but missing" for i in sorted(lost)[:5]]
        return {"path": str(self.path), "kind": self.identity.get("kind"), "run_id": self.run_id,
                "ok": not damaged, "complete": not damaged and finished == self.n_chunks, "units": self.units,
                "chunks": self.n_chunks, "finished": finished, "missing": self.n_chunks - finished,
                "unrecorded": unrecorded, "damaged": damaged}

    def results(self, *, partial: bool = True) -> list:
        """Every unit's result in unit order (None where its chunk is missing), every chunk checked:
        `RunFolderError` naming the first damaged one; with `partial` False, one missing too."""
        present, strays = self.present()
        if strays:
            raise RunFolderError(f"run folder {str(self.path)!r}: {strays[0]} has no place in this run; remove it")
        out = [None] * self.units
        have = set()
        for index in present:
            status, results, detail = self.read_chunk(index)
            if status == "damaged":
                raise RunFolderError(f"run folder {str(self.path)!r}: {chunk_name(index)} {detail}")
            if status in ("ok", "adopt"):
                first, _ = self.chunk_range(index)
                out[first:first + len(results)] = results
                have.add(index)
        lost = sorted(i for i in self.records if i not in have)
        if lost:
            raise RunFolderError(f"run folder {str(self.path)!r}: {chunk_name(lost[0])} is recorded in the "
                                 "manifest but missing")
        if not partial and len(have) < self.n_chunks:
            raise RunFolderError(f"run folder {str(self.path)!r} is unfinished ({len(have)} of {self.n_chunks} "
                                 "chunks): run its command again to finish it")
        return out

    def finished(self) -> set[int]:
        return set(self.records)
