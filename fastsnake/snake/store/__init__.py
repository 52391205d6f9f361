"""How sweeps are kept: one home for the sweep file, the sweep folder and the checked reader.

- `sweepfile`: the single-file format: `ParquetStream` (writer), `read_sweep_table` /
  `read_parquet` (reader), `row_problem` (are these the games they claim to be).
- `folder`: a resumable sweep folder: `SweepSpec`, `SweepDataset` (manifest, writer lock,
  chunks, scan).
- `reader`: `open_sweep(path)` (a `SweepReader`: ``.parameters``, ``.batches()``) and `read_sweep(path)`,
  a file or a folder read through the checks every consumer shares.
- `verify`: `verify_sweep_path(path)`, the report of ``fastsnake verify``; `repair`:
  `repair_manifest(path)`, a lost manifest rebuilt from the chunks (``verify --repair``).

The runner (`fastsnake.snake.sweep`) plays games and hands chunks to these; nothing here plays.
"""

from fastsnake.snake.store.folder import (
    DEFAULT_CHUNK_SIZE,
    MANIFEST,
    ChunkRuns,
    SweepDataset,
    SweepSpec,
    check_folder_disk,
)
from fastsnake.snake.store.reader import SweepReader, open_sweep, read_dataset, read_sweep
from fastsnake.snake.store.repair import repair_manifest
from fastsnake.snake.store.sweepfile import (
    IDENTITY_COLUMNS,
    SWEEP_FORMAT,
    ParquetStream,
    SweepError,
    SweepFileError,
    read_parquet,
    read_sweep_table,
    row_problem,
    rows_table,
    write_table_atomically,
)
from fastsnake.snake.store.verify import verify_sweep_path

__all__ = [
    "ChunkRuns", "check_folder_disk",
    "DEFAULT_CHUNK_SIZE", "IDENTITY_COLUMNS", "MANIFEST", "SWEEP_FORMAT", "ParquetStream", "SweepDataset",
    "SweepError", "SweepFileError", "SweepReader", "SweepSpec", "open_sweep", "read_dataset", "read_parquet",
    "read_sweep", "read_sweep_table", "repair_manifest", "row_problem", "rows_table", "verify_sweep_path",
    "write_table_atomically",
]
