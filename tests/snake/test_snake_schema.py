"""One schema, self-describing rows (issue 45): sweep, compare and folder files share one column set,
order and types, and each row says what produced it; files of older formats read into that schema."""

import hashlib
import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import fastsnake
from fastsnake.snake import record, store
from fastsnake.snake.board import GameConfig
from fastsnake.snake.policies import resolved_name
from fastsnake.snake.store import SweepDataset, SweepSpec, sweepfile
from fastsnake.snake.store.sweepfile import IDENTITY_COLUMNS, identity_values, schema_names
from fastsnake.snake.sweep import SweepRun


def _files(tmp_path):
    fastsnake.sweep("cycle", 6, 50, seed=1, out=tmp_path / "s.parquet", threads=1)
    fastsnake.compare(["cycle", "greedy"], 6, 40, seed=3, out=tmp_path / "c.parquet", threads=1)
    fastsnake.sweep("greedy", 6, 50, seed=2, out=tmp_path / "f", chunk_size=20, threads=1)
    return [tmp_path / "s.parquet", tmp_path / "c.parquet", *sorted((tmp_path / "f").glob("chunk-*.parquet"))]


def test_sweep_compare_and_folder_files_share_one_schema(tmp_path):
    paths = _files(tmp_path)
    schemas = [pq.read_schema(p).remove_metadata() for p in paths]
    assert tuple(schemas[0].names) == schema_names()
    assert all(s.equals(schemas[0]) for s in schemas)
    assert schemas[0].field("policy").type == pa.dictionary(pa.int32(), pa.string())
    table = pa.concat_tables([pq.read_table(p) for p in paths])
    assert table.num_rows == 50 + 80 + 50
    assert table.column("policy").null_count == 0 and table.column("run_id").null_count == 0


def test_rows_carry_what_produced_them(tmp_path):
    fastsnake.sweep("cycle", 6, 30, seed=9, out=tmp_path / "a.parquet", max_moves=500, cycle="random")
    fastsnake.sweep("cycle", 6, 30, seed=9, out=tmp_path / "b.parquet", tail="blocked")
    a, b = (store.read_sweep(tmp_path / n)[1] for n in ("a.parquet", "b.parquet"))
    one = {n: a.column(n).unique().to_pylist() for n in IDENTITY_COLUMNS}
    assert one["policy"] == one["policy_asked"] == ["cycle"]
    assert json.loads(one["options"][0])["cycle"] == "random" and one["options"][0] == json.dumps(
        json.loads(one["options"][0]), sort_keys=True, separators=(",", ":"))
    assert one["max_moves"] == [500] and one["base_seed"] == [9] and one["tail_rule"] == ["follow"]
    assert one["fastsnake_version"] == [fastsnake.__version__] and len(one["run_id"]) == 1
    assert b.column("tail_rule").unique().to_pylist() == ["blocked"]
    assert a.column("run_id").unique().to_pylist() != b.column("run_id").unique().to_pylist()


def test_an_alias_records_the_policy_that_played(tmp_path):
    assert resolved_name("strongest") == "grove" and resolved_name("cycle") == "cycle"
    assert resolved_name("model:/nowhere.pt") == "model:/nowhere.pt"  # nothing loaded to answer
    empty = np.zeros((0, record.width()), np.int64)
    run = SweepRun("strongest", GameConfig(10, 10), {"detours": 8}, 0, 0, 0, 1, empty, 0.0, 0.0)
    values = identity_values(run.parameters())
    assert values["policy"] == "grove" and values["policy_asked"] == "strongest"
    assert values["options"] == '{"detours":8}'
    spec = SweepSpec("strongest", 10, 10, 3, "follow", 10_000, 0, 10)
    dataset = SweepDataset.open(tmp_path / "f", spec, policy_resolved="grove")  # what `sweep` records
    assert SweepDataset.open(tmp_path / "f").identity()["policy"] == "grove"
    assert dataset.identity()["policy_asked"] == "strongest"
    old = dict(run.parameters())
    del old["policy_resolved"]  # a file written before: the store loads no policy to find out
    assert identity_values(old)["policy"] == "strongest"


def _as_format_2(path):
    """`path` rewritten as format /2 wrote it: five identity columns, no run id or version."""
    table = pq.read_table(path)
    params = json.loads(table.schema.metadata[sweepfile.PARQUET_META_KEY])
    for key in ("run_id", "version"):
        params.pop(key)
    params["format"] = "fastsnake-sweep/2"
    raw = json.dumps(params).encode()
    keep = [n for n in table.column_names if n not in set(IDENTITY_COLUMNS) - set(sweepfile.IDENTITY_COLUMNS_2)]
    meta = {sweepfile.PARQUET_META_KEY: raw, sweepfile.PARQUET_META_HASH_KEY: hashlib.sha256(raw).hexdigest().encode()}
    pq.write_table(table.select(keep).replace_schema_metadata(meta), path, write_page_checksum=True)


def test_a_file_of_format_2_reads_into_the_one_schema(tmp_path):
    path = tmp_path / "old.parquet"
    fastsnake.sweep("greedy", 6, 60, seed=5, out=path, threads=1)
    new = store.read_sweep(path)[1]
    _as_format_2(path)
    assert "run_id" not in pq.read_schema(path).names
    old = store.read_sweep(path)[1]
    assert tuple(old.column_names) == schema_names()
    assert old.drop_columns(["run_id", "fastsnake_version"]).equals(new.drop_columns(["run_id", "fastsnake_version"]))
    assert old.column("run_id").null_count == 0 and len(old.column("run_id").unique()) == 1
    assert old.column("run_id").equals(store.read_sweep(path)[1].column("run_id"))  # the same at every read
    assert fastsnake.verify_sweep(path)["complete"]


def test_polars_and_duckdb_read_the_files_as_one_table(tmp_path):
    pl = pytest.importorskip("polars")
    duckdb = pytest.importorskip("duckdb")
    paths = [str(p) for p in _files(tmp_path)]
    frame = pl.scan_parquet(paths).collect()
    assert frame.height == 180
    pooled = pl.concat([pl.read_parquet(p) for p in paths], how="vertical_relaxed")
    assert pooled.height == 180
    rows = duckdb.sql(f"SELECT policy, base_seed, count(*) FROM read_parquet({paths!r}) GROUP BY ALL "
                      "ORDER BY ALL").fetchall()
    assert rows == [("cycle", 1, 50), ("cycle", 3, 40), ("greedy", 2, 50), ("greedy", 3, 40)]
    assert np.isclose(frame["moves"].mean(), pooled["moves"].mean())
