"""Old home of the sweep folder, kept so that existing imports work: the folder, its reader and
`verify` live in `fastsnake.snake.store`; running a folder's chunks in `fastsnake.snake.sweep`."""

from fastsnake.snake.store.folder import (  # noqa: F401
    CHUNK_META_KEY,
    DATASET_FORMAT,
    DEFAULT_CHUNK_SIZE,
    LOCK,
    MANIFEST,
    SweepDataset,
    SweepSpec,
)
from fastsnake.snake.store.reader import read_dataset, read_sweep  # noqa: F401
from fastsnake.snake.store.verify import verify_sweep_path  # noqa: F401
from fastsnake.snake.sweep import compute_chunk, run_dataset_sweep  # noqa: F401
