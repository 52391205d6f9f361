"""A sweep folder: a resumable sweep kept as a Parquet dataset, one file per finished chunk.

Layout of ``DIR``::

    _manifest.json          the sweep's parameters, chunk size, code version, and a record of
                            each finished chunk (rows, first and last game, seed, SHA-256)
    _writer.lock            who writes the folder now (pid, host); locked with flock
    chunk-00000000.parquet  games [first, first + chunk_size) of the sweep
    chunk-00000001.parquet  ...

Each chunk file is written under a temporary name (ignored by readers: it starts
with a dot), synced and renamed when complete, then recorded in the manifest
(written the same way), so after a crash, even SIGKILL or power loss, every
``chunk-*.parquet`` present is whole; resuming computes exactly the chunks that
are missing. A chunk whose bytes differ from its record (bit-rot, a file copied
in from another sweep) is refused, naming it; a whole chunk the manifest does not
record yet (the writer died between the two renames) is adopted only after its
every row is checked. Each chunk carries its own summary statistics in its
metadata, so the sweep's summary is rebuilt without reading rows, and memory stays
bounded by one chunk whatever the number of games. One process writes a folder at
a time (`SweepDataset.writing`).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path

import numpy as np

from fastsnake import __version__
from fastsnake.errors import in_cli_words
from fastsnake.files import (
    file_in_the_way,
    fsync_path,
    open_regular,
    remove_stale_temps,
    shown_value,
)
from fastsnake.runs.files import (  # noqa: F401 - sha256_file re-exported
    FolderLock,
    chunk_file_index,
    chunk_file_name,
    chunk_files,
    make_folder,
    manifest_checksum,
    sha256_file,
    write_manifest,
)
from fastsnake.runs.files import atomic_write as _atomic_write
from fastsnake.signals import announce
from fastsnake.snake.board import GameConfig
from fastsnake.snake.stats import SummaryAccumulator
from fastsnake.snake.store.sweepfile import (
    ROWS_META_KEY,
    SWEEP_FORMAT,
    WRITE_OPTIONS,
    SweepError,
    SweepFile,
    SweepFileError,
    check_disk,
    derived_run_id,
    identity_values,
    new_run_id,
    rows_table,
    schema_names,
    short,
    with_parameters,
)

# /2: each chunk's footer carries its sweep's identity, and the manifest's checksum is required;
# folders of /1 still read (their chunks are checked against the manifest field by field as well).
DATASET_FORMAT = "fastsnake-sweep-dataset/2"
DATASET_FORMATS = ("fastsnake-sweep-dataset/1", DATASET_FORMAT)
# What a chunk's footer must share with its manifest's sweep, field by field.
IDENTITY_FIELDS = ("policy", "rows", "cols", "start_length", "tail_rule", "max_moves", "seed", "first_game", "games",
                   "options", "chunk_size")
OPTIONAL_IDENTITY = ("chunk_size",)
MANIFEST = "_manifest.json"
LOCK = "_writer.lock"
CHUNK_META_KEY = b"fastsnake_chunk"
DEFAULT_CHUNK_SIZE = 50_000

_SPEC_TYPES = {"policy": str, "rows": int, "cols": int, "start_length": int, "tail_rule": str, "max_moves": int,
               "seed": int, "games": int, "first_game": int, "options": dict, "chunk_size": int}



# How to repair a folder, in the library's words (its errors name no command-line flag; the CLI's
# `verify` verb has the repair switch, docs/sweeps.md).
_REPAIR_HOW = "verify_sweep(folder, repair=True), or the verify command's repair switch"


def manifest_problem(path, text: str) -> SweepError:
    """A SweepError about the manifest of folder `path`: the library's words name the repair
    function, the command line's the command (``fastsnake verify --repair DIR``)."""
    return in_cli_words(SweepError(f"{text}; rebuild it from the chunks: verify_sweep(folder, repair=True)"),
                        f"{text}; rebuild it from the chunks: fastsnake verify --repair {shell_word(path)}")

@dataclass(frozen=True)
class SweepSpec:
    """Everything that determines a sweep's rows (chunk size only decides the file split)."""

    policy: str
    rows: int
    cols: int
    start_length: int
    tail_rule: str
    max_moves: int
    seed: int
    games: int
    first_game: int = 0
    options: dict = field(default_factory=dict)
    chunk_size: int = DEFAULT_CHUNK_SIZE

    @property
    def config(self) -> GameConfig:
        return GameConfig(self.rows, self.cols, self.start_length, self.tail_rule, self.max_moves)

    @property
    def n_chunks(self) -> int:
        return -(-self.games // self.chunk_size)

    def chunk_range(self, index: int) -> tuple[int, int]:
        start = self.first_game + index * self.chunk_size
        return start, min(self.chunk_size, self.first_game + self.games - start)

    def to_json(self) -> dict:
        return asdict(self)

    def file_parameters(self) -> dict:
        """The sweep parameters each chunk file carries (a sweep file's, with the sweep's games)."""
        return {"format": SWEEP_FORMAT, "policy": self.policy, "rows": self.rows, "cols": self.cols,
                "start_length": self.start_length, "tail_rule": self.tail_rule, "max_moves": self.max_moves,
                "seed": self.seed, "first_game": self.first_game, "options": self.options, "games": self.games}

    @classmethod
    def from_json(cls, data: dict) -> "SweepSpec":
        """The spec a manifest holds; ValueError naming the first field of the wrong kind."""
        if not isinstance(data, dict):
            raise ValueError("'sweep' is not an object")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"unknown field {unknown[0]!r}")
        for name, kind in _SPEC_TYPES.items():
            if name not in data:
                if name in ("first_game", "options", "chunk_size"):
                    continue
                raise ValueError(f"no field {name!r}")
            value = data[name]
            if isinstance(value, bool) or not isinstance(value, kind):
                wanted = "a whole number" if kind is int else kind.__name__
                raise ValueError(f"field {name!r} is {value!r}, not {wanted}")
        for name, low in (("games", 1), ("chunk_size", 1), ("first_game", 0), ("seed", 0)):
            if name in data and data[name] < low:
                raise ValueError(f"field {name!r} is {data[name]!r}, below {low}")
        return cls(**data)


CHUNK_SUFFIX = ".parquet"


def chunk_name(index: int) -> str:
    return chunk_file_name(index, CHUNK_SUFFIX)


def chunk_index(name: str) -> int | None:
    return chunk_file_index(name, CHUNK_SUFFIX)


def chunk_info(sweep: SweepFile) -> dict | None:
    """The chunk record (index, first, count, stats) a chunk file's footer carries, or None."""
    try:
        info = json.loads(sweep.metadata[CHUNK_META_KEY])
    except (KeyError, ValueError, RecursionError):
        return None
    return info if isinstance(info, dict) else None


def _json_form(value):
    """`value` as it reads back from JSON (tuples become lists), for comparing with a footer."""
    return json.loads(json.dumps(value))


def shell_word(path) -> str:
    """`path` as one shell word, printable on one line (a newline in a name shows as \\n)."""
    import shlex

    return shlex.quote(str(path)).replace("\n", "\\n").replace("\r", "\\r")


def redo_hint(path, name: str) -> str:
    return f"remove {name} and resume the sweep to redo it"


class SweepDataset:
    def __init__(self, path, spec: SweepSpec, records: dict | None = None, manifest: dict | None = None,
                 policy_resolved: str | None = None):
        self.path = Path(path)
        self.spec = spec
        self.records = dict(records or {})  # chunk index -> its record in the manifest
        self.manifest = manifest or {"format": DATASET_FORMAT, "sweep": spec.to_json(), "version": __version__,
                                     "code": code_fingerprint(), "created": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
                                     "run_id": new_run_id()}
        if manifest is None and policy_resolved not in (None, spec.policy):  # an alias: what played
            self.manifest["policy_resolved"] = policy_resolved
        self._lock_fd = None
        self._lock_depth = 0
        self._disk_checked = False

    @property
    def run_id(self) -> str:
        """The folder's run id: its manifest's, or (a folder started before run ids) one derived from
        the manifest's sweep and creation time, the same at every read and for every chunk."""
        return self.manifest.get("run_id") or derived_run_id(
            {"sweep": self.manifest.get("sweep"), "created": self.manifest.get("created")})

    def identity(self) -> dict:
        """The identity columns' values of every row of the folder (`sweepfile.identity_values`):
        what fills them in chunks written before they existed."""
        return identity_values(self.file_parameters(), run_id=self.run_id, version=self.manifest.get("version"))

    def file_parameters(self) -> dict:
        """The sweep parameters its chunks carry, with the policy that played when an alias was asked."""
        resolved = self.manifest.get("policy_resolved")
        return dict(self.spec.file_parameters(), **({"policy_resolved": resolved} if resolved else {}))

    # -- opening ---------------------------------------------------------------
    @classmethod
    def open(cls, path, spec: SweepSpec | None = None, policy_resolved: str | None = None) -> "SweepDataset":
        """Open DIR for `spec` (created if new; `policy_resolved`: the policy an alias names, recorded
        in a new folder's manifest). spec None: resume what the manifest says."""
        path = Path(path)
        manifest = path / MANIFEST
        if path.exists() and not path.is_dir():
            raise SweepError(f"{str(path)!r} exists and is not a folder")
        if manifest.exists():
            stored, records, data = cls._read_manifest(path)
            if spec is not None:
                differ = {k: (stored.to_json()[k], v) for k, v in spec.to_json().items()
                          if k != "chunk_size" and stored.to_json()[k] != v}
                if differ:
                    detail = ", ".join(f"{k}: {old!r} there, {new!r} asked" for k, (old, new) in differ.items())
                    raise SweepError(f"{str(path)!r} holds a different sweep ({detail}); use a new folder")
            return cls(path, stored, records, data)
        if spec is None:
            if path.is_dir() and any(chunk_index(e.name) is not None for e in os.scandir(path)):
                raise manifest_problem(path, f"{str(path)!r} holds chunk files but no {MANIFEST} (lost)")
            raise SweepError(f"{str(path)!r} has no sweep to resume (no {MANIFEST}, no chunk files)")
        if path.is_dir():
            remove_stale_temps(path, f".{MANIFEST}.tmp")  # a killed or failed first write
            if any(e.name != LOCK for e in path.iterdir()):
                raise SweepError(f"{str(path)!r} is not empty and holds no sweep; use a new folder")
        dataset = cls(path, spec, policy_resolved=policy_resolved)
        try:
            make_folder(path, dataset.save_manifest, SweepError)  # on failure, nothing of ours left behind
        except OSError as exc:
            blocker = file_in_the_way(path / MANIFEST)
            if blocker is not None:
                raise SweepError(f"cannot create sweep folder {str(path)!r}: {str(blocker)!r} is a file, "
                                 "not a folder") from None
            raise SweepError(f"cannot create sweep folder {str(path)!r}: {exc.strerror or exc}") from None
        return dataset

    @staticmethod
    def _read_manifest(path: Path, warn: bool = True):
        where = str(path / MANIFEST)
        try:
            with open_regular(path / MANIFEST) as fh:  # a FIFO: refused, never opened
                raw = fh.read()
            try:
                data = json.loads(raw.decode("utf-8"))  # not json's own guess: zeroed bytes read as UTF-32
            except UnicodeDecodeError:
                raise ValueError("not UTF-8 text") from None
            if not isinstance(data, dict):
                raise ValueError("not an object")
            if data.get("format") not in DATASET_FORMATS:
                raise ValueError(f"format {data.get('format')!r}")
            spec = SweepSpec.from_json(data["sweep"])
            records = {}
            for key, record in (data.get("chunks") or {}).items():
                if not (isinstance(record, dict) and key.isdigit() and isinstance(record.get("sha256"), str)
                        and all(isinstance(record.get(k), int) for k in ("rows", "first", "last", "seed"))):
                    raise ValueError(f"chunk record {key!r} is malformed")
                records[int(key)] = record
        except OSError as exc:
            raise manifest_problem(path, f"cannot read {where!r}: {exc.strerror or exc}") from None
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            reason = str(exc) if len(str(exc)) <= 80 else str(exc)[:77] + "..."
            raise manifest_problem(path, f"{where!r} is damaged: not a fastsnake sweep manifest ({reason})") from None
        if "checksum" not in data:  # every released format writes one (0.1.0 on): no manifest is read unchecked
            raise manifest_problem(path, f"{where!r} is damaged (it has no checksum)")
        if "checksum" in data and data["checksum"] != manifest_checksum(data):
            raise manifest_problem(path, f"{where!r} is damaged (its checksum does not match its content)")
        if warn and data.get("code") != code_fingerprint():
            sys.stderr.write(f"fastsnake: warning: {str(path)!r} was started by other code "
                             f"(version {shown_value(data.get('version'))}); resumed chunks use this version\n")
        return spec, records, data

    def save_manifest(self) -> None:
        """Write the manifest whole (temporary file, fsync, rename, fsync of the folder)."""
        try:  # `_atomic_write` looked up here, at each call: tests replace it to make a write fail
            data = write_manifest(self.path / MANIFEST, self.manifest, self.records, write=_atomic_write)
        except OSError as exc:
            raise SweepError(f"cannot write {str(self.path / MANIFEST)!r}: {exc.strerror or exc} (the finished "
                             "chunks are kept; resuming checks and records them)") from None
        self.manifest = data

    # -- one writer at a time ----------------------------------------------------
    @contextlib.contextmanager
    def writing(self, reread: bool = True):
        """Hold the folder's writer lock: a second writer (another process, here or on another
        host sharing the folder) is refused naming the owner; the lock of a process that died
        is taken over with a warning. Re-entrant within one dataset object. `reread` False: the
        manifest on disk is not read again (a repair replaces a damaged one)."""
        if self._lock_depth:
            self._lock_depth += 1
            try:
                yield self
            finally:
                self._lock_depth -= 1
            return
        with FolderLock(self.path / LOCK, f"sweep folder {str(self.path)!r}", SweepError) as lock:
            self._lock_fd, self._lock_depth = lock.fd, 1
            try:
                if reread:
                    self._reread_manifest()
                yield self
            finally:
                self._lock_depth = 0
                self._lock_fd = None

    def _reread_manifest(self) -> None:
        """Under the lock, the manifest as it is now: another writer may have created the folder
        for another sweep, or finished chunks, since this object opened it."""
        if not (self.path / MANIFEST).exists():
            return
        spec, records, data = self._read_manifest(self.path, warn=False)
        if spec != self.spec:
            raise SweepError(f"{str(self.path)!r} now holds a different sweep (another process wrote it "
                             "meanwhile); use a new folder")
        self.records, self.manifest = records, data

    # -- chunks ----------------------------------------------------------------
    def chunk_path(self, index: int) -> Path:
        return self.path / chunk_name(index)

    def chunk_problem(self, index: int, sweep: SweepFile) -> str | None:
        """Why the chunk file opened as `sweep` is not chunk `index` of this folder's sweep, as a clause
        after its name, or None: every field of its identity (policy, board, rules, options, seed,
        games, chunk size) must be the manifest's, and its chunk record this chunk's."""
        params, spec = sweep.parameters, _json_form(self.spec.to_json())
        for name in IDENTITY_FIELDS:
            if name not in params:
                if name in OPTIONAL_IDENTITY:  # chunks written before the chunk size was recorded
                    continue
                return f"is damaged (its sweep identity has no {name!r})"
            if params[name] != spec[name]:
                return (f"belongs to another sweep ({name} {short(params[name])} there, {short(spec[name])} in "
                        "the manifest)")
        first, count = self.spec.chunk_range(index)
        info = chunk_info(sweep)
        if info is None:
            return "is damaged (it has no chunk record in its footer)"
        if (info.get("index"), info.get("first"), info.get("count")) != (index, first, count):
            return f"is chunk {short(info.get('index'))} of its sweep, not chunk {index} (games {first}..)"
        if sweep.num_rows != count:
            return f"is damaged ({sweep.num_rows} rows where chunk {index} has {count})"
        return None

    def check_chunk(self, index: int):
        """('missing' | 'ok' | 'adopt' | 'damaged', statistics or None, record to adopt or, damaged,
        what is wrong as a clause after the chunk's name: "is damaged (...)").

        Every chunk present is checked the same way: its footer's identity against the manifest
        (`chunk_problem`), its bytes against its record's SHA-256 where the manifest has one, and
        every row (page checksums, game indices, seeds, possible values) as it is read. An
        unrecorded chunk that passes is 'adopt': `scan` records it."""
        path = self.chunk_path(index)
        if not path.exists():
            return "missing", None, None
        try:
            sweep = SweepFile(path)
            problem = self.chunk_problem(index, sweep)
            if problem:
                return "damaged", None, problem
            record = self.records.get(index)
            # (an upgrade killed between recording the new bytes and the rename: the old bytes are whole)
            if record is not None and sha256_file(path) not in (record["sha256"], record.get("replaces")):
                return "damaged", None, "is damaged (its content differs from the manifest's record, SHA-256)"
            first, _ = self.spec.chunk_range(index)
            for _ in sweep.batches(first):
                pass
            stats = SummaryAccumulator.from_json(chunk_info(sweep)["stats"])
            if stats.games != sweep.num_rows:
                return "damaged", None, "is damaged (its statistics count other games than its rows)"
        except SweepFileError as exc:  # its own "is damaged (...)", or unreadable: said short, the path is long
            damaged = exc.reason.startswith("is damaged")
            return "damaged", None, exc.reason if damaged else "is damaged (not a readable sweep chunk)"
        except OSError as exc:
            return "damaged", None, f"cannot be read ({exc.strerror or exc})"
        except (KeyError, ValueError, TypeError):
            return "damaged", None, "is damaged (its chunk statistics cannot be read)"
        if record is not None:
            return "ok", stats, None
        return "adopt", stats, self._record(index, path)

    def present_chunks(self) -> tuple[list[int], list[str]]:
        """(indices of the chunk files present, in order; names of chunk files with no place in the
        sweep): from one listing of the folder, not one look per chunk the sweep may have."""
        return chunk_files(self.path, self.spec.n_chunks, CHUNK_SUFFIX)

    def stray_error(self, name: str) -> SweepError:
        """A chunk file with no place in this sweep (a number past its end, a name not ours): the
        folder is damaged for every reader and for a resume alike."""
        return SweepError(f"sweep folder {str(self.path)!r}: {name} has no place in this sweep of "
                          f"{self.spec.n_chunks:,} chunks; remove it")

    def _record(self, index: int, path: Path) -> dict:
        first, count = self.spec.chunk_range(index)
        return {"rows": count, "first": first, "last": first + count - 1, "seed": self.spec.seed,
                "sha256": sha256_file(path), "bytes": path.stat().st_size}

    def scan(self) -> tuple["ChunkRuns", SummaryAccumulator]:
        """(missing chunk indices as runs, statistics of the finished ones), every finished chunk checked;
        SweepError naming a damaged one. Temporary files of dead writers are removed (a live
        writer's never: it holds the lock, and a resume waits for it)."""
        announce("scanning")  # (for tests and benchmarks that signal a scan: `fastsnake.signals`)
        remove_stale_temps(self.path, ".chunk-")
        remove_stale_temps(self.path, f".{MANIFEST}.tmp")
        acc = SummaryAccumulator()
        adopted = {}
        present, strays = self.present_chunks()
        if strays:  # as the reader and `verify` do: a resume does not call such a folder good
            raise self.stray_error(strays[0])
        missing = ChunkRuns.complement(self.spec.n_chunks, present)
        for index in present:
            status, stats, detail = self.check_chunk(index)
            if status == "missing":  # removed since the listing
                missing.add(index)
            elif status == "damaged":
                raise SweepError(f"sweep folder {str(self.path)!r}: {chunk_name(index)} {detail}; "
                                 f"{redo_hint(self.path, chunk_name(index))}")
            else:
                if status == "adopt":
                    adopted[index] = detail
                acc.merge(stats)
        if adopted and self._lock_depth:
            self.records.update(adopted)
            self.save_manifest()
        return missing, acc

    def upgrade_chunks(self) -> list[int]:
        """Rewrite every chunk of an older format (a folder started by an earlier release) in the one
        schema (`sweepfile.schema_names`), so that plain globs (DuckDB, polars) read the folder as one
        table; returns the chunks upgraded. Each is checked as it is read, keeps the folder's
        identity (its run id, the version that started it) and is replaced atomically: the manifest
        first records the new bytes beside the old (``replaces``), then the file is renamed, then
        the manifest drops the old. Call it holding the writer lock (`writing`)."""
        import pyarrow as pa
        import pyarrow.parquet as pq

        present, _ = self.present_chunks()
        names = list(schema_names())
        upgraded = []
        for index in present:
            path = self.chunk_path(index)
            try:
                if pq.read_schema(path).names == names or index not in self.records:
                    continue
                sweep = SweepFile(path)
            except (OSError, SweepFileError, pa.ArrowException):
                continue  # `scan` has said what is wrong with it
            if "run_id" not in self.manifest:  # the identity it is read with from now on, kept
                self.manifest["run_id"] = self.run_id
            sweep.identity = self.identity()
            table = pa.concat_tables(list(sweep.batches(self.spec.chunk_range(index)[0])))
            params = dict(sweep.parameters, format=SWEEP_FORMAT, run_id=self.run_id,
                          version=sweep.identity["fastsnake_version"])
            table = with_parameters(table.replace_schema_metadata(sweep.metadata), params)
            meta = dict(table.schema.metadata)
            meta.pop(ROWS_META_KEY, None)
            meta.pop(b"ARROW:schema", None)  # the old file's own: the writer stores the new one
            table = table.replace_schema_metadata(meta)
            tmp = self.path / f".{path.name}.tmp{os.getpid()}"
            try:
                pq.write_table(table, tmp, **WRITE_OPTIONS)
                fsync_path(tmp)
                record = dict(self._record(index, tmp), replaces=sha256_file(path))
                self.records[index] = record
                self.save_manifest()
                os.replace(tmp, path)
                fsync_path(self.path)
            except OSError as exc:
                tmp.unlink(missing_ok=True)
                raise SweepError(f"cannot upgrade {str(path)!r}: {exc.strerror or exc} (the chunk is kept as it "
                                 "was; resuming again upgrades it)") from None
            record.pop("replaces")
            self.save_manifest()
            upgraded.append(index)
        return upgraded

    def write_chunk(self, index: int, rows: np.ndarray) -> SummaryAccumulator:
        import pyarrow.parquet as pq

        spec = self.spec
        first, count = spec.chunk_range(index)
        if rows.shape[0] != count:
            raise SweepError(f"chunk {index} came back with {rows.shape[0]} games, not {count}")
        acc = SummaryAccumulator()
        acc.add_rows(rows)
        table = rows_table(rows, first, spec.seed, dict(self.file_parameters(), chunk_size=spec.chunk_size,
                                                        code=self.manifest.get("code"), run_id=self.run_id,
                                                        version=__version__))
        meta = dict(table.schema.metadata)
        meta[CHUNK_META_KEY] = json.dumps({"index": index, "first": first, "count": count,
                                           "stats": acc.to_json()}).encode()
        table = table.replace_schema_metadata(meta)
        final = self.chunk_path(index)
        tmp = self.path / f".{final.name}.tmp{os.getpid()}"
        try:
            pq.write_table(table, tmp, **WRITE_OPTIONS)
            fsync_path(tmp)
            record = self._record(index, tmp)
            os.replace(tmp, final)
            fsync_path(self.path)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise SweepError(f"cannot write {str(final)!r}: {exc.strerror or exc}") from None
        self.records[index] = record
        self.save_manifest()
        if not self._disk_checked:  # the first chunk this process wrote: will the rest fit?
            self._disk_checked = True
            missing = spec.n_chunks - len(self.records)
            check_disk(final, record["bytes"], count, count * (missing + 1))
        return acc


class ChunkRuns:
    """Chunk indices kept as sorted half-open runs [lo, hi): a sweep of 10**15 games has 2 * 10**10
    chunks, and its missing ones are one run, not a set of every number (memory bounded by the chunk
    files present, whatever the games asked). Iterating yields the indices lazily, in order."""

    def __init__(self, runs=()):
        self.runs = [(int(lo), int(hi)) for lo, hi in runs if hi > lo]

    @classmethod
    def complement(cls, total: int, present) -> "ChunkRuns":
        """The indices of range(total) not in `present` (sorted, distinct)."""
        runs, start = [], 0
        for index in present:
            if index > start:
                runs.append((start, index))
            start = max(start, index + 1)
        if total > start:
            runs.append((start, total))
        return cls(runs)

    def add(self, index: int) -> None:
        self.runs.append((index, index + 1))
        self.runs.sort()
        merged = []
        for lo, hi in self.runs:
            if merged and lo <= merged[-1][1]:
                merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
            else:
                merged.append((lo, hi))
        self.runs = merged

    def __len__(self) -> int:
        return sum(hi - lo for lo, hi in self.runs)

    def __bool__(self) -> bool:
        return bool(self.runs)

    def __iter__(self):
        for lo, hi in self.runs:
            yield from range(lo, hi)

    def __eq__(self, other) -> bool:
        return list(self) == list(other) if not isinstance(other, ChunkRuns) else self.runs == other.runs

    def __repr__(self) -> str:
        return f"ChunkRuns({self.runs})"


# The least a game and a chunk file take on disk (measured: 17 bytes a game and 5 kB a chunk file for
# cycle 4x4, the most compressible sweep; `bench/bench_huge_games.py`): a folder sweep whose missing
# games need more than the disk holds even at these sizes is refused before any chunk is played.
MIN_BYTES_PER_GAME = 4
MIN_BYTES_PER_CHUNK = 2048


def check_folder_disk(path, spec: SweepSpec, missing: ChunkRuns | None = None) -> None:
    """SweepError, before any game is played (and, for a new folder, before it is made), when the
    `missing` chunks (default: all) cannot fit on the disk of `path` (or of its nearest existing
    parent) even at the least bytes a game and a chunk file ever take."""
    import shutil

    if missing is None:
        missing = ChunkRuns([(0, spec.n_chunks)])
    where = Path(path).absolute()
    while not where.exists() and where != where.parent:
        where = where.parent
    chunks = len(missing)
    if not chunks:
        return
    games = chunks * spec.chunk_size
    last = spec.n_chunks - 1
    if missing.runs[-1][1] == spec.n_chunks:  # the last chunk may be short
        games -= spec.chunk_size - spec.chunk_range(last)[1]
    need = games * MIN_BYTES_PER_GAME + chunks * MIN_BYTES_PER_CHUNK
    free = shutil.disk_usage(where).free
    if need > free:
        from fastsnake.snake.store.sweepfile import human_bytes

        raise SweepError(f"the sweep's {games:,} missing games in {chunks:,} chunk files need at least "
                         f"{human_bytes(need)} (at {MIN_BYTES_PER_GAME} bytes a game, {MIN_BYTES_PER_CHUNK:,} a "
                         f"file), and {str(path)!r} has {human_bytes(free)} free: sweep fewer games, in "
                         f"bigger chunks, or write elsewhere")


def code_fingerprint() -> str:
    from fastsnake._numba_cache import part_fingerprint

    return part_fingerprint("snake")
