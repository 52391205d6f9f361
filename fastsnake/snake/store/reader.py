"""The checked reader: a sweep file or folder as (parameters, rows), every chunk checked."""

from __future__ import annotations

import os

from fastsnake.snake.store.folder import SweepDataset, chunk_name, redo_hint
from fastsnake.snake.store.sweepfile import (
    SWEEP_FORMAT,
    SweepError,
    SweepFileError,
    read_parquet,
    read_sweep_table,
    row_problem,
)


def read_dataset(path):
    """(parameters dict, pyarrow table of every finished chunk) of a sweep folder, every chunk
    checked against the manifest's record or, unrecorded, row by row; SweepError naming a
    damaged chunk and how to redo it."""
    dataset = SweepDataset.open(path)
    params = dict(dataset.spec.to_json(), format=SWEEP_FORMAT)
    parts = []
    for index in range(dataset.spec.n_chunks):
        status, _, detail = dataset.check_chunk(index)
        name = chunk_name(index)
        if status == "missing":
            continue
        if status == "damaged":
            raise SweepError(f"sweep folder {str(path)!r}: {name} {detail}; {redo_hint(path, name)}")
        try:
            chunk_params, table = read_sweep_table(dataset.chunk_path(index))
        except SweepFileError as exc:
            raise SweepError(f"sweep folder {str(path)!r}: {name} {exc.reason}; {redo_hint(path, name)}") from None
        problem = row_problem(table, chunk_params, dataset.spec.chunk_range(index)[0])
        if problem:
            raise SweepError(f"sweep folder {str(path)!r}: {name} is damaged ({problem}); "
                             f"{redo_hint(path, name)}")
        parts.append(table)
    if not parts:
        raise SweepError(f"sweep folder {str(path)!r} has no finished chunk yet")
    import pyarrow as pa

    return params, pa.concat_tables(parts)


def read_sweep(path):
    """(parameters dict, pyarrow table) of a sweep file or a sweep folder; SweepError if it is neither."""
    if os.path.isdir(str(path)):
        return read_dataset(path)
    return read_parquet(path)
