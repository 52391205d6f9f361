"""A folder started by the previous release (878e551: 6-column chunks, format fastsnake-sweep/1,
manifest fastsnake-sweep-dataset/1 without run id) and finished by this one reads as one dataset
(issue 46, item 2): through `read_sweep`, replay, `sweep(..., out=DIR).table`, DuckDB's and polars'
plain globs, pandas. The old chunks are made here in that format without running old code (its writer:
`git show 878e551:fastsnake/snake/dataset.py`, `write_chunk`).

Each test runs twice: with the game record as declared, and with a scratch column added to the
declaration (`record.declared`), as a column a later release adds would be: the old chunks lack it and
read it as null, the rows played since hold it. Only the old release's columns are compared whole, so
a column declared in `fastsnake/snake/record.py` needs no edit here."""

import hashlib
import json

import pyarrow.parquet as pq
import pytest

import fastsnake
from fastsnake.errors import InputError
from fastsnake.snake import record, store
from fastsnake.snake.store import sweepfile
from fastsnake.snake.store.folder import CHUNK_META_KEY, MANIFEST, chunk_name, manifest_checksum, sha256_file
from fastsnake.snake.store.sweepfile import schema_names

# The previous release's game record (878e551 wrote these and no others): a fact about that release,
# not a copy of the declaration.
OLD_COLUMNS = ["game", "seed", "outcome", "moves", "apples", "length"]
# A column the declaration may gain after 878e551 (next free slot, optional as every added column is).
SCRATCH = record.Column("scratch", "int32", record.width(), "mean", optional=True, title="scratch",
                        doc="a column added after the old release")


def _as_previous_release(folder, keep):
    """Rewrite `folder` as 878e551 left it after finishing chunks `keep` (the others are removed)."""
    manifest = json.loads((folder / MANIFEST).read_bytes())
    spec = manifest["sweep"]
    chunks = {}
    for path in sorted(folder.glob("chunk-*.parquet")):
        index = int(path.stem.split("-")[1])
        if index not in keep:
            path.unlink()
            continue
        table = pq.read_table(path)
        params = {"format": "fastsnake-sweep/1", "policy": spec["policy"], "rows": spec["rows"], "cols": spec["cols"],
                  "start_length": spec["start_length"], "tail_rule": spec["tail_rule"],
                  "max_moves": spec["max_moves"], "seed": spec["seed"], "first_game": spec["first_game"],
                  "options": spec["options"], "games": spec["games"]}
        raw = json.dumps(params).encode()
        meta = {sweepfile.PARQUET_META_KEY: raw,
                sweepfile.PARQUET_META_HASH_KEY: hashlib.sha256(raw).hexdigest().encode(),
                CHUNK_META_KEY: table.schema.metadata[CHUNK_META_KEY]}
        pq.write_table(table.select(OLD_COLUMNS).replace_schema_metadata(meta), path, write_page_checksum=True)
        chunks[str(index)] = dict(manifest["chunks"][str(index)], sha256=sha256_file(path),
                                  bytes=path.stat().st_size)
    old = {"format": "fastsnake-sweep-dataset/1", "sweep": spec, "version": "0.1.0", "code": "old-code",
           "created": manifest["created"], "chunks": chunks}
    old["checksum"] = manifest_checksum(old)
    (folder / MANIFEST).write_text(json.dumps(old, indent=1))


@pytest.fixture(params=["declared", "plus-a-column"])
def declaration(request):
    """The game record as `GAME_RECORD` declares it, or with `SCRATCH` added (no kernel fills it: 0)."""
    if request.param == "declared":
        yield record.columns()
        return
    with record.declared(record.columns() + (SCRATCH,)) as cols:
        yield cols


@pytest.fixture
def mixed(tmp_path, declaration):
    clean = fastsnake.sweep("greedy", 6, 200, seed=9, out=tmp_path / "clean", chunk_size=50, threads=1)
    folder = tmp_path / "A"
    fastsnake.sweep("greedy", 6, 200, seed=9, out=folder, chunk_size=50, threads=1)
    _as_previous_release(folder, keep={0, 1, 2})
    return folder, clean.table


def _added_since_old() -> list[str]:
    """The record's columns 878e551 did not write: optional ones (else its files would be damaged)."""
    added = [c for c in record.columns() if c.name not in OLD_COLUMNS]
    assert all(c.optional for c in added), [c.name for c in added if not c.optional]
    return [c.name for c in added]


def _same_games(a, b, old_rows=None):
    """`a` holds `b`'s games: every column but the run's identity and those the old release lacked
    compared whole (values, not dictionaries); the lacked ones null in `a`'s first `old_rows` rows (by
    default all: they were written by the old release) and `b`'s values in the rest."""
    old_rows = a.num_rows if old_rows is None else old_rows
    added = _added_since_old()
    ignore = ["run_id", "fastsnake_version", *added]
    if a.drop_columns(ignore).to_pydict() != b.drop_columns(ignore).to_pydict():
        return False
    for name in added:
        if a.column(name).slice(0, old_rows).null_count != old_rows:
            return False  # an old chunk's absent column must read as null, never as zeros
        if a.column(name).slice(old_rows).to_pylist() != b.column(name).slice(old_rows).to_pylist():
            return False
    return True


def test_the_checked_reader_fills_an_old_folder_into_the_one_schema(mixed):
    folder, clean = mixed
    assert pq.read_schema(folder / chunk_name(0)).names == OLD_COLUMNS
    table = store.read_sweep(folder)[1]
    assert tuple(table.column_names) == schema_names() and table.num_rows == 150
    assert _same_games(table, clean.slice(0, 150))
    assert all(table.column(n).null_count == 0 for n in sweepfile.IDENTITY_COLUMNS)
    assert table.column("fastsnake_version").unique().to_pylist() == ["0.1.0"]
    assert fastsnake.replay_game(folder, pick="longest").game in range(150)


def test_a_resume_upgrades_the_old_chunks_and_every_reader_sees_one_table(mixed):
    duckdb = pytest.importorskip("duckdb")
    pl = pytest.importorskip("polars")
    folder, clean = mixed
    run_id = store.read_sweep(folder)[1].column("run_id").unique().to_pylist()
    result = fastsnake.sweep("greedy", 6, 200, seed=9, out=folder, chunk_size=50, threads=1)  # resumes
    assert result.summary["games"] == 200
    for index in range(4):
        assert tuple(pq.read_schema(folder / chunk_name(index)).names) == schema_names()
    assert fastsnake.verify_sweep(folder)["complete"]
    table = result.table
    assert _same_games(table, clean, old_rows=150)
    assert table.column("run_id").unique().to_pylist() == run_id  # the old identity kept
    assert table.column("fastsnake_version").to_pylist() == ["0.1.0"] * 150 + [fastsnake.__version__] * 50
    glob = str(folder / "*.parquet")
    assert duckdb.sql(f"SELECT count(*), count(DISTINCT run_id), count(policy) FROM '{glob}'").fetchall() == [
        (200, 1, 200)]
    assert pl.scan_parquet(glob).select(pl.len()).collect().item() == 200
    pd = pytest.importorskip("pandas")
    frame = pd.read_parquet(folder)  # as docs/data-tools.md reads a folder (it dropped the newer columns)
    assert tuple(frame.columns) == schema_names() and len(frame) == 200
    assert frame["policy"].notna().all() and frame["run_id"].nunique() == 1
    assert fastsnake.replay_game(folder, pick=170).game == 170
    assert fastsnake.resume_sweep(folder).summary["games"] == 200  # nothing left to upgrade or play


def test_an_upgrade_killed_before_its_rename_leaves_a_good_folder(mixed, monkeypatch):
    folder, clean = mixed
    import os

    from fastsnake.snake.store import folder as folder_module

    real = os.replace

    def replace(src, dst):  # the disk fills at the upgraded chunk's rename
        if str(dst).endswith(chunk_name(0)):
            raise OSError(28, "No space left on device")
        return real(src, dst)

    monkeypatch.setattr(folder_module.os, "replace", replace)
    with pytest.raises(InputError, match="cannot upgrade"):
        fastsnake.resume_sweep(folder, threads=1)
    monkeypatch.undo()
    assert fastsnake.verify_sweep(folder)["ok"]  # the old bytes, recorded as what the upgrade replaces
    assert _same_games(store.read_sweep(folder)[1], clean.slice(0, 150))
    assert fastsnake.resume_sweep(folder, threads=1).summary["games"] == 200
    assert tuple(pq.read_schema(folder / chunk_name(0)).names) == schema_names()
