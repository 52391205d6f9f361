"""The checked reader every consumer uses: a sweep file or a sweep folder, its rows a batch at a time.

``open_sweep(path)`` opens either and returns a `SweepReader`: ``.parameters`` (the sweep's
policy, board, rules, options, seed, games …), ``.kind`` ("file" or "folder"), ``.run`` (timing
and machine where recorded), ``.complete``, ``.notes`` and ``.batches()``, which yields pyarrow
tables of checked rows. A folder's chunks are each checked as `verify` checks them (identity,
record, page checksums, game indices, seeds, possible values) before a row of theirs is handed
out, so no consumer (`report`, `replay --from`, `read_sweep`, `SweepResult.table`) reads data
that ``fastsnake verify`` would call damaged. Errors are one line naming the file or chunk and how
to redo it.
"""

from __future__ import annotations

import os

from fastsnake.snake.store.folder import SweepDataset, chunk_name, redo_hint
from fastsnake.snake.store.sweepfile import BATCH_ROWS, SWEEP_FORMAT, SweepError, SweepFile, SweepFileError


class SweepReader:
    """A sweep file or folder opened for checked reading (see the module's docstring)."""

    def __init__(self, path):
        self.path = str(path)
        self.notes: list[str] = []
        if not os.path.lexists(self.path):
            raise SweepError(f"{self.path!r} does not exist")
        if os.path.isdir(self.path):
            self.kind = "folder"
            self.dataset = SweepDataset.open(self.path)
            spec = self.dataset.spec
            self.parameters = dict(spec.to_json(), format=SWEEP_FORMAT)
            self.chunks, strays = self.dataset.present_chunks()
            if strays:
                raise self.dataset.stray_error(strays[0])
            self.games_present = sum(spec.chunk_range(i)[1] for i in self.chunks)
            self.complete = len(self.chunks) == spec.n_chunks
            self.run = {}
            if not self.complete:
                self.notes.append(f"{self.path!r} holds {len(self.chunks):,} of its {spec.n_chunks:,} chunks "
                                  "(interrupted, or being written); 'fastsnake sweep --resume' completes it")
        else:
            self.kind = "file"
            try:
                self.file = SweepFile(self.path)
            except SweepFileError as exc:
                raise SweepError(_file_message(self.path, exc.reason)) from None
            self.parameters = self.file.parameters
            self.games_present = self.file.num_rows
            self.complete = self.games_present == int(self.parameters.get("games", self.games_present))
            self.run = self.file.run

    def batches(self, batch_rows: int = BATCH_ROWS):
        """Checked pyarrow tables of at most `batch_rows` rows, in game order; SweepError, one line
        naming the file or chunk and how to redo it, at the first damage."""
        if self.kind == "file":
            try:
                yield from self.file.batches(batch_rows=batch_rows)
            except SweepFileError as exc:
                raise SweepError(_file_message(self.path, exc.reason)) from None
            return
        dataset = self.dataset
        identity = dataset.identity()
        for index in self.chunks:
            name = chunk_name(index)
            status, _, detail = dataset.check_chunk(index)
            if status == "missing":
                raise SweepError(f"sweep folder {self.path!r}: {name} vanished while it was read")
            if status == "damaged":
                raise SweepError(f"sweep folder {self.path!r}: {name} {detail}; {redo_hint(self.path, name)}")
            try:
                chunk = SweepFile(dataset.chunk_path(index))
                chunk.identity = identity  # a chunk of an older version lacks columns: the folder's
                yield from chunk.batches(dataset.spec.chunk_range(index)[0], batch_rows=batch_rows)
            except SweepFileError as exc:
                raise SweepError(f"sweep folder {self.path!r}: {name} {exc.reason}; "
                                 f"{redo_hint(self.path, name)}") from None

    def read(self):
        """Every row as one pyarrow table (memory: every row), checked as `batches` does."""
        import pyarrow as pa

        parts = list(self.batches())
        if not parts:
            if self.kind == "folder":
                raise SweepError(f"sweep folder {self.path!r} has no finished chunk yet")
            return self.file.read()
        return pa.concat_tables(parts)


def _file_message(path: str, reason: str) -> str:
    if not reason.startswith("is damaged"):  # not a sweep file at all: nothing to run again
        return f"{path!r} {reason}"
    return f"sweep file {path!r} {reason}; it cannot be trusted: run the sweep again"


def open_sweep(path) -> SweepReader:
    """A sweep file or folder opened for checked reading; SweepError (one line) if it is neither."""
    return SweepReader(path)


def read_dataset(path):
    """(parameters dict, pyarrow table of every finished chunk) of a sweep folder, every chunk
    checked; SweepError naming a damaged chunk and how to redo it."""
    reader = SweepReader(path)
    if reader.kind != "folder":
        raise SweepError(f"{str(path)!r} is a sweep file, not a sweep folder")
    return reader.parameters, reader.read()


def read_sweep(path):
    """(parameters dict, pyarrow table) of a sweep file or a sweep folder, every row checked;
    SweepError if it is neither, or damaged."""
    reader = SweepReader(path)
    return reader.parameters, reader.read()
