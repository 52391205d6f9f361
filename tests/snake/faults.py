"""Fault injection for tests and bench/fault_injection.py: flipped bits, cut files, a full disk,
a process that holds a folder's writer lock, a process id that is surely gone."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import textwrap
from pathlib import Path


def flip_bit(path, offset: int, bit: int = 0) -> None:
    """Flip one bit of the byte at `offset` of `path`, in place."""
    with open(path, "r+b") as fh:
        fh.seek(offset)
        byte = fh.read(1)[0]
        fh.seek(offset)
        fh.write(bytes([byte ^ (1 << bit)]))


def truncate(path, size: int) -> None:
    with open(path, "r+b") as fh:
        fh.truncate(size)


@contextlib.contextmanager
def disk_limit(size: int):
    """Within the block, no file of this process may grow beyond `size` bytes (RLIMIT_FSIZE):
    writes past it fail with EFBIG, as on a full disk (Python ignores SIGXFSZ)."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))


def dead_pid() -> int:
    """The id of a process that has exited (and was reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


@contextlib.contextmanager
def lock_holder(folder):
    """Another live process holding `folder`'s writer lock the way a sweep does; yields its pid."""
    script = textwrap.dedent(f"""
        import fcntl, json, os, socket, sys, time
        fd = os.open({str(Path(folder) / "_writer.lock")!r}, os.O_RDWR | os.O_CREAT, 0o644)
        fcntl.flock(fd, fcntl.LOCK_EX)
        os.ftruncate(fd, 0)
        os.pwrite(fd, json.dumps({{"pid": os.getpid(), "host": socket.gethostname(), "since": "now"}}).encode(), 0)
        print("locked", flush=True)
        sys.stdin.read()
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "locked"
        yield proc.pid
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)


@contextlib.contextmanager
def live_process():
    """A live process (that does nothing); yields its pid."""
    proc = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        yield proc.pid
    finally:
        proc.stdin.close()
        proc.wait(timeout=60)


def same_bytes(a, b) -> bool:
    return Path(a).read_bytes() == Path(b).read_bytes()


def sample_offsets(size: int, count: int, seed: int = 0) -> list[tuple[int, int]]:
    """`count` (offset, bit) pairs spread over a file of `size` bytes, the same every run."""
    import random

    rng = random.Random(seed)
    return [(rng.randrange(size), rng.randrange(8)) for _ in range(count)]


def edit_manifest(folder, change):
    """Change a sweep folder's manifest as a writer of ours would have written it (checksum and all)."""
    import json

    from fastsnake.snake.store.folder import MANIFEST, manifest_checksum

    data = json.loads((folder / MANIFEST).read_text())
    change(data)
    data.pop("checksum", None)
    data["checksum"] = manifest_checksum(data)
    (folder / MANIFEST).write_text(json.dumps(data))


# -- tampered baselines (issue 55): each must be refused (exit 2) or reported, never pass silently --

def _edit_baseline(path, out, change_table=None, change_meta=None, resign: bool = True):
    """Write to `out` the baseline `path` with its table and/or metadata changed; with `resign`
    the checksum is recomputed as a forger would (else it is left as saved: an accident)."""
    import json

    import pyarrow.parquet as pq

    from fastsnake.snake.benchmark import BASELINE_META_KEY, baseline_checksum

    table = pq.read_table(path)
    meta = json.loads(table.schema.metadata[BASELINE_META_KEY])
    if change_table is not None:
        table = change_table(table)
    if change_meta is not None:
        change_meta(meta)
    if resign:
        meta["checksum"] = baseline_checksum(meta, table)
    pq.write_table(table.replace_schema_metadata({BASELINE_META_KEY: json.dumps(meta).encode()}), out)
    return out


def _column_set(table, name, values):
    import pyarrow as pa

    return table.set_column(table.column_names.index(name), name, pa.array(values, table.schema.field(name).type))


def _all_summaries(change):
    def apply(meta):
        for s in meta["summaries"]:
            change(s)
    return apply


# name -> (table change, metadata change): the forgeries and accidents of issue 55.
BASELINE_TAMPERS = {
    "moves_plus_100": (lambda t: _column_set(t, "moves", t.column("moves").to_numpy() + 100), None),
    "moves_minus_100": (lambda t: _column_set(t, "moves", t.column("moves").to_numpy() - 100), None),
    "outcomes_died": (lambda t: _column_set(t, "outcome", [2] * len(t)), None),
    "outcome_out_of_range": (lambda t: _column_set(t, "outcome", [9] * len(t)), None),
    "policy_null": (lambda t: _column_set(t, "policy", [None] * len(t)), None),
    "renumbered": (lambda t: _column_set(t, "game", t.column("game").to_numpy() + 1_000_000), None),
    "cut_rows": (lambda t: t.slice(0, 5), None),
    "cut_rows_and_counts": (lambda t: t.slice(0, 5), _all_summaries(lambda s: s.update(games=5))),
    "other_seed": (None, _all_summaries(lambda s: s.update(seed=s["seed"] + 1))),
    "other_move_cap": (None, _all_summaries(lambda s: s.update(max_moves=s["max_moves"] + 1))),
    "other_options": (None, _all_summaries(lambda s: s.update(options={"cycle": "random"}))),
    "other_tail_rule": (None, _all_summaries(lambda s: s.update(tail_rule="blocked"))),
}


def tamper_baseline(path, out, kind: str, resign: bool = True):
    """Baseline `path` tampered as `kind` (a key of `BASELINE_TAMPERS`), written to `out`."""
    change_table, change_meta = BASELINE_TAMPERS[kind]
    return _edit_baseline(path, out, change_table, change_meta, resign=resign)


# Rows that contradict their seeds: each kind of `contradict_row`, as a forger would edit a row.
CONTRADICTIONS = ("won", "moves+", "moves-", "apples+", "apples-", "outcome")


def contradict_row(path, game: int, kind: str, k: int = 7) -> str:
    """Rewrite game `game`'s row of sweep file `path` so that it contradicts its seed but passes
    every other check (page checksums, parameters hash, row count, possible values): ``won`` (the
    board filled: length and apples to match), ``moves+``/``moves-`` (k moves more or fewer, within
    0..cap), ``apples+``/``apples-`` (k apples more or fewer, the length with them), ``outcome``
    (died <-> stuck, won -> died). Returns what was changed, in words; ValueError when the row
    cannot be changed so (a won game made to win, moves+ at the cap)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pq.read_table(path)
    meta = table.schema.metadata
    params = __import__("json").loads(meta[b"fastsnake"])
    cells, start, cap = params["rows"] * params["cols"], params["start_length"], params["max_moves"]
    at = table.column("game").to_pylist().index(game)
    row = {name: table.column(name)[at].as_py() for name in ("outcome", "moves", "apples", "length")}
    before = dict(row)
    if kind == "won":
        row.update(outcome="won", apples=cells - start, length=cells)
    elif kind in ("moves+", "moves-"):
        row["moves"] = max(0, min(cap, row["moves"] + (k if kind == "moves+" else -k)))
    elif kind in ("apples+", "apples-"):
        row["apples"] = max(0, min(cells - start - 1, row["apples"] + (k if kind == "apples+" else -k)))
        row["length"] = start + row["apples"]
    elif kind == "outcome":
        row["outcome"] = {"died": "stuck", "stuck": "died", "won": "died"}[row["outcome"]]
    else:
        raise ValueError(f"no contradiction {kind!r}")
    if row == before:
        raise ValueError(f"game {game}'s row {before} cannot be changed by {kind!r}")
    for name, value in row.items():
        column = table.column(name)
        values = column.cast(pa.string()).to_pylist() if name == "outcome" else column.to_pylist()
        values[at] = value
        array = pa.array(values).dictionary_encode() if name == "outcome" else pa.array(values, column.type)
        table = table.set_column(table.schema.get_field_index(name), name, array.cast(column.type))
    pq.write_table(table.replace_schema_metadata(meta), path, write_page_checksum=True)
    return f"game {game}: {kind} ({row})"


# -- issue 55: inputs that could hang or blow up a reader, text that could forge output -------------

# A policy name that sets a terminal's title, clears its screen, starts a forged line and reverses text.
EVIL_NAME = "\x1b]0;PWNED\x07\x1b[2J\nforged line\u202e"


def fifo(path):
    """A FIFO (named pipe) at `path`: opening it for reading blocks until a writer comes."""
    import os

    os.mkfifo(path)
    return Path(path)


def _params(games: int, **change) -> dict:
    from fastsnake.snake.store.sweepfile import SWEEP_FORMAT, with_run

    params = dict(policy="cycle", rows=6, cols=6, tail_rule="follow", start_length=2, max_moves=10_000, seed=1,
                  games=games, first_game=0, options={}, format=SWEEP_FORMAT)
    params.update(change)
    return with_run(params)


def _rows(count: int):
    """Kernel rows of `count` possible games (died after 50 moves, 3 apples, length 5), none played."""
    import numpy as np

    from fastsnake.snake import record
    from fastsnake.snake.engine import DIED

    rows = np.zeros((count, record.width()), np.int64)  # columns declared after length: 0
    rows[:, 0], rows[:, 1], rows[:, 2], rows[:, 3] = DIED, 50, 3, 5
    return rows


def _write(path, tables, rows: int, row_group: int | None = None) -> Path:
    import pyarrow.parquet as pq

    from fastsnake.snake.store.sweepfile import ROWS_META_KEY, WRITE_OPTIONS

    tables = iter(tables)
    first = next(tables)
    with pq.ParquetWriter(path, first.schema, **WRITE_OPTIONS) as writer:
        for table in (first, *tables):
            writer.write_table(table, row_group_size=row_group)
        writer.add_key_value_metadata({ROWS_META_KEY: str(rows).encode()})
    return Path(path)


def sweep_file(path, games: int, *, row_group: int | None = None, column_text: dict | None = None, **params) -> Path:
    """A sweep file of `games` made-up possible games of a 6x6 sweep (seed 1, their own seeds), written
    with pyarrow as the store writes one; `params` change its parameters (a policy name, options),
    `column_text` puts another word in an identity column (its one dictionary entry)."""
    import numpy as np
    import pyarrow as pa

    from fastsnake.snake.store.sweepfile import rows_table

    table = rows_table(_rows(games), 0, 1, _params(games, **params))
    for name, word in (column_text or {}).items():
        column = pa.DictionaryArray.from_arrays(pa.array(np.zeros(games, np.int32)), pa.array([word]))
        table = table.set_column(table.schema.get_field_index(name), name, column)
    return _write(path, [table], games, row_group)


def repeated_game_file(path, rows: int, row_group: int) -> Path:
    """Issue 55's file: game 0 of a sweep of `rows` games, repeated `rows` times in row groups of
    `row_group` rows (10⁷ rows in 1 M-row groups: 612 kB)."""
    import numpy as np

    from fastsnake.snake.store.sweepfile import rows_table

    one = rows_table(_rows(1), 0, 1, _params(rows))
    groups = (one.take(np.zeros(min(row_group, rows - done), np.int64)) for done in range(0, rows, row_group))
    return _write(path, groups, rows, row_group)
