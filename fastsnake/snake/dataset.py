"""Resumable sweeps written as a Parquet dataset: one file per finished chunk.

Layout of ``DIR``::

    _manifest.json          the sweep's parameters, chunk size, code version
    chunk-00000000.parquet  games [first, first + chunk_size) of the sweep
    chunk-00000001.parquet  ...

Each chunk file is written under a temporary name (ignored by readers: it starts
with a dot) and renamed when complete, so after a crash, even SIGKILL, every
``chunk-*.parquet`` present is whole; resuming computes exactly the chunks that
are missing. Each chunk carries its own summary statistics in its metadata, so
the sweep's summary is rebuilt from metadata without reading rows, and memory
stays bounded by one chunk whatever the number of games.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numba
import numpy as np

from fastsnake import __version__
from fastsnake.files import file_in_the_way
from fastsnake.snake.board import GameConfig
from fastsnake.snake.engine import ROW_APPLES, ROW_LENGTH, ROW_MOVES, ROW_OUTCOME
from fastsnake.snake.stats import SummaryAccumulator
from fastsnake.snake.sweep import (
    PARQUET_META_KEY,
    SWEEP_FORMAT,
    SweepError,
    SweepResult,
    prepare,
    read_parquet,
    records_table,
    stop_requests,
)

DATASET_FORMAT = "fastsnake-sweep-dataset/1"
MANIFEST = "_manifest.json"
CHUNK_META_KEY = b"fastsnake_chunk"
DEFAULT_CHUNK_SIZE = 50_000


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

    @classmethod
    def from_json(cls, data: dict) -> "SweepSpec":
        return cls(**data)


def compute_chunk(spec: dict, index: int, threads: int = 1):
    """Play chunk `index` of a sweep; returns (index, rows int64 [count, 4]). Runs on dask workers too."""
    spec = SweepSpec.from_json(spec)
    policy, _, params, cfg, nbr = prepare(spec.policy, spec.config, spec.options)
    numba.set_num_threads(max(1, min(threads, numba.config.NUMBA_NUM_THREADS)))
    first, count = spec.chunk_range(index)
    out = np.zeros((count, 4), dtype=np.int64)
    nblocks = max(1, min(count, 4 * numba.get_num_threads()))
    policy.sweep_kernel(cfg, nbr, params, np.uint64(spec.seed), np.int64(first), out, nblocks)
    return index, out


def _chunk_name(index: int) -> str:
    return f"chunk-{index:08d}.parquet"


class SweepDataset:
    def __init__(self, path, spec: SweepSpec):
        self.path = Path(path)
        self.spec = spec

    # -- opening ---------------------------------------------------------------
    @classmethod
    def open(cls, path, spec: SweepSpec | None = None) -> "SweepDataset":
        """Open DIR for `spec` (created if new). spec None: resume what the manifest says."""
        path = Path(path)
        manifest = path / MANIFEST
        if path.exists() and not path.is_dir():
            raise SweepError(f"{str(path)!r} exists and is not a folder")
        if manifest.exists():
            stored = cls._read_manifest(path)
            if spec is not None:
                differ = {k: (stored.to_json()[k], v) for k, v in spec.to_json().items()
                          if k != "chunk_size" and stored.to_json()[k] != v}
                if differ:
                    detail = ", ".join(f"{k}: {old!r} there, {new!r} asked" for k, (old, new) in differ.items())
                    raise SweepError(f"{str(path)!r} holds a different sweep ({detail}); use a new folder")
            return cls(path, stored)
        if spec is None:
            raise SweepError(f"{str(path)!r} has no sweep to resume (no {MANIFEST})")
        if path.exists() and any(path.iterdir()):
            raise SweepError(f"{str(path)!r} is not empty and holds no sweep; use a new folder")
        try:
            path.mkdir(parents=True, exist_ok=True)
            data = {"format": DATASET_FORMAT, "sweep": spec.to_json(), "version": __version__,
                    "code": _code_fingerprint(), "created": time.strftime("%Y-%m-%dT%H:%M:%S%z")}
            _atomic_write(path / MANIFEST, json.dumps(data, indent=2).encode())
        except OSError as exc:
            blocker = file_in_the_way(path / MANIFEST)
            if blocker is not None:
                raise SweepError(f"cannot create sweep folder {str(path)!r}: {str(blocker)!r} is a file, "
                                 "not a folder") from None
            raise SweepError(f"cannot create sweep folder {str(path)!r}: {exc.strerror or exc}") from None
        return cls(path, spec)

    @staticmethod
    def _read_manifest(path: Path) -> SweepSpec:
        try:
            data = json.loads((path / MANIFEST).read_text())
            if data.get("format") != DATASET_FORMAT:
                raise ValueError(f"format {data.get('format')!r}")
            spec = SweepSpec.from_json(data["sweep"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise SweepError(f"{str(path / MANIFEST)!r} is not a fastsnake sweep manifest ({exc})") from None
        if data.get("code") != _code_fingerprint():
            import sys

            sys.stderr.write(f"fastsnake: warning: {str(path)!r} was started by other code "
                             f"(version {data.get('version')}); resumed chunks use this version\n")
        return spec

    # -- chunks ----------------------------------------------------------------
    def chunk_path(self, index: int) -> Path:
        return self.path / _chunk_name(index)

    def chunk_stats(self, index: int) -> SummaryAccumulator | None:
        """The stored statistics of a finished chunk; None if it is missing or unreadable."""
        import pyarrow.parquet as pq

        try:
            meta = pq.read_schema(self.chunk_path(index)).metadata or {}
            info = json.loads(meta[CHUNK_META_KEY])
            if info["index"] != index:
                return None
            return SummaryAccumulator.from_json(info["stats"])
        except (OSError, KeyError, ValueError):
            return None

    def scan(self) -> tuple[list[int], SummaryAccumulator]:
        """(missing chunk indices, statistics of the finished ones). Leftover temp files are removed."""
        for leftover in self.path.glob(".chunk-*.tmp*"):
            leftover.unlink(missing_ok=True)
        acc = SummaryAccumulator()
        missing = []
        for index in range(self.spec.n_chunks):
            stats = self.chunk_stats(index)
            if stats is None:
                missing.append(index)
            else:
                acc.merge(stats)
        return missing, acc

    def write_chunk(self, index: int, rows: np.ndarray) -> SummaryAccumulator:
        import pyarrow.parquet as pq

        spec = self.spec
        first, count = spec.chunk_range(index)
        result = SweepResult(
            policy=spec.policy, config=spec.config, options=spec.options, base_seed=spec.seed,
            first_game=first, games_requested=count, threads=1,
            outcome=rows[:, ROW_OUTCOME].astype(np.int8), moves=rows[:, ROW_MOVES].copy(),
            apples=rows[:, ROW_APPLES].astype(np.int32), length=rows[:, ROW_LENGTH].astype(np.int32),
            seconds=0.0, cpu_seconds=0.0,
        )
        acc = SummaryAccumulator()
        acc.add(result.outcome, result.moves, result.apples, result.length)
        table = records_table(result)
        meta = dict(table.schema.metadata)
        sweep = json.loads(meta[PARQUET_META_KEY])
        sweep.update(first_game=spec.first_game, games=spec.games)
        meta[PARQUET_META_KEY] = json.dumps(sweep).encode()
        meta[CHUNK_META_KEY] = json.dumps({"index": index, "first": first, "count": count,
                                           "stats": acc.to_json()}).encode()
        table = table.replace_schema_metadata(meta)
        final = self.chunk_path(index)
        tmp = self.path / f".{final.name}.tmp{os.getpid()}"
        try:
            pq.write_table(table, tmp)
            with open(tmp, "rb") as fh:
                os.fsync(fh.fileno())
            os.replace(tmp, final)
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise SweepError(f"cannot write {str(final)!r}: {exc.strerror or exc}") from None
        return acc


def _atomic_write(path: Path, data: bytes) -> None:
    tmp = path.with_name(f".{path.name}.tmp{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _code_fingerprint() -> str:
    from fastsnake._numba_cache import part_fingerprint

    return part_fingerprint("snake")


def run_dataset_sweep(dataset: SweepDataset, *, threads: int, progress=None, chunk_source=None):
    """Compute and write every missing chunk; returns (statistics, seconds, cpu seconds, interrupted).

    chunk_source(indices) yields (index, rows) in any order; default: computed here, in order.
    """
    missing, acc = dataset.scan()
    total = dataset.spec.n_chunks
    done = total - len(missing)
    if progress is not None:
        progress(done, total)
    if chunk_source is None:
        def chunk_source(indices):
            for index in indices:
                yield compute_chunk(dataset.spec.to_json(), index, threads)
    wall0, cpu0 = time.perf_counter(), time.process_time()
    interrupted = False
    with stop_requests() as stop:
        try:
            chunks = chunk_source(missing)
            for index, rows in chunks:
                acc.merge(dataset.write_chunk(index, rows))
                done += 1
                if progress is not None:
                    progress(done, total)
                if stop["stop"]:
                    chunks.close()  # cancels what a cluster still has queued
                    break
        except KeyboardInterrupt:
            interrupted = True
        interrupted = interrupted or stop["stop"]
    return acc, time.perf_counter() - wall0, time.process_time() - cpu0, interrupted


def read_dataset(path):
    """(parameters dict, pyarrow table of every finished chunk) of a sweep folder."""
    import pyarrow.parquet as pq

    dataset = SweepDataset.open(path)
    params = dict(dataset.spec.to_json(), format=SWEEP_FORMAT)
    files = sorted(Path(path).glob("chunk-*.parquet"))
    if not files:
        raise SweepError(f"sweep folder {str(path)!r} has no finished chunk yet")
    parts = []
    for f in files:
        try:
            parts.append(pq.read_table(str(f)))
        except (OSError, ValueError):  # pyarrow.ArrowInvalid is a ValueError
            raise SweepError(f"sweep folder {str(path)!r}: {f.name!r} is not a readable Parquet file; "
                             "resuming the sweep redoes it") from None
    import pyarrow as pa

    return params, pa.concat_tables(parts).sort_by("game")


def read_sweep(path):
    """(parameters dict, pyarrow table) of a sweep file or a sweep folder; SweepError if it is neither."""
    if os.path.isdir(str(path)):
        return read_dataset(path)
    return read_parquet(path)
