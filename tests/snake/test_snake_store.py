"""Every chunk knows its sweep; one checked reader; verify in bounded memory; a lost manifest
repaired; identity columns (issues 36, 37 and 39: the store's part)."""

import json
import math
import re
import shutil
import tracemalloc

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from faults import edit_manifest

import fastsnake
from fastsnake.cli import main
from fastsnake.errors import InputError
from fastsnake.snake import store
from fastsnake.snake.api import report_sweeps
from fastsnake.snake.store import folder as store_folder
from fastsnake.snake.store import sweepfile
from fastsnake.snake.store.folder import MANIFEST, SweepDataset, SweepSpec
from fastsnake.snake.sweep import compute_chunk

SPEC = SweepSpec("greedy", 6, 6, 3, "follow", 36 * 36, 5, 400, 0, {}, 100)


def _folder(tmp_path, name="d", spec=SPEC, chunks=None):
    """A sweep folder of `spec` holding `chunks` (default: all) of its chunks, as a sweep that
    was interrupted after them leaves it."""
    folder = tmp_path / name
    dataset = SweepDataset.open(folder, spec)
    with dataset.writing():
        for index in range(spec.n_chunks) if chunks is None else chunks:
            dataset.write_chunk(*compute_chunk(spec.to_json(), index))
    return folder


def _one_line(text: str) -> str:
    lines = text.strip().splitlines()
    assert len(lines) == 1, lines
    assert len(lines[0]) < 300, lines[0]
    return lines[0]


# -- every chunk knows its sweep (issue 37 item 1) ---------------------------------------------------

FOREIGN = {
    "policy": dict(policy="cycle", max_moves=36 * 36),
    "rows": dict(rows=7, cols=7, max_moves=49 * 49),
    "tail_rule": dict(tail_rule="blocked"),
    "max_moves": dict(max_moves=500),
    "chunk_size": dict(chunk_size=50, games=400),
}


@pytest.mark.parametrize("field", sorted(FOREIGN))
def test_a_chunk_of_another_sweep_with_the_same_seed_is_refused(tmp_path, field, capsys):
    """The repro of issue 37: a chunk copied in from a sweep of the same seed but another policy,
    board, rule or chunk size is refused by verify, --resume and every reader, naming the field."""
    ours = _folder(tmp_path, "ours", chunks=[0, 1])
    other_spec = SweepSpec(**dict(SPEC.to_json(), **FOREIGN[field]))
    other = _folder(tmp_path, "other", other_spec, chunks=[2])
    shutil.copyfile(other / "chunk-00000002.parquet", ours / "chunk-00000002.parquet")
    report = fastsnake.verify_sweep(ours)
    assert not report["ok"] and report["damaged"] == [[200, 299]]
    named = f"({field} " if field != "chunk_size" else "chunk_size"
    assert named in report["problems"][0] and "chunk-00000002.parquet" in report["problems"][0]
    with pytest.raises(InputError, match=f"chunk-00000002.parquet .*{named.strip('( ')}"):
        fastsnake.resume_sweep(ours, threads=1)
    with pytest.raises(InputError, match="chunk-00000002.parquet"):
        store.read_sweep(ours)
    assert main(["sweep", "--resume", str(ours)]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "chunk-00000002.parquet" in line and "remove" in line
    assert "2" not in json.loads((ours / MANIFEST).read_text())["chunks"]  # never recorded


def test_a_chunk_with_other_options_is_refused(tmp_path):
    spec = SweepSpec("cycle", 4, 4, 3, "follow", 256, 5, 300, 0, {"cycle": "zigzag"}, 100)
    ours = _folder(tmp_path, "ours", spec, chunks=[0])
    other = _folder(tmp_path, "other", SweepSpec(**dict(spec.to_json(), options={"cycle": "random"})), chunks=[1])
    shutil.copyfile(other / "chunk-00000001.parquet", ours / "chunk-00000001.parquet")
    with pytest.raises(InputError, match=r"chunk-00000001.parquet belongs to another sweep \(options"):
        store.read_sweep(ours)


def test_a_recorded_chunk_renumbered_or_swapped_in_is_refused(tmp_path):
    """A chunk copied to a new number carries its own chunk record: refused even where the manifest
    records the copy's hash (what an adoption of the old code left)."""
    folder = _folder(tmp_path)
    shutil.copyfile(folder / "chunk-00000000.parquet", folder / "chunk-00000001.parquet")
    edit_manifest(folder, lambda m: m["chunks"]["1"].update(
        sha256=store_folder.sha256_file(folder / "chunk-00000001.parquet")))
    with pytest.raises(InputError, match=r"chunk-00000001.parquet is chunk 0 of its sweep, not chunk 1"):
        store.read_sweep(folder)
    report = fastsnake.verify_sweep(folder)
    assert report["doubled"] == [[0, 99]] and report["damaged"] == [[100, 199]]


@pytest.mark.parametrize("chunks", [None, [0, 1]], ids=["complete", "interrupted"])
def test_a_chunk_past_the_end_is_refused_by_a_resume(tmp_path, capsys, chunks):
    """A chunk copied to a number past the sweep's end: every reader and `verify` refused the folder, but
    `--resume` called a complete one complete, exit 0 (found by bench/fault_injection.py)."""
    folder = _folder(tmp_path, chunks=chunks)
    shutil.copyfile(folder / "chunk-00000001.parquet", folder / "chunk-00000004.parquet")
    with pytest.raises(InputError, match=r"chunk-00000004.parquet has no place in this sweep of 4 chunks"):
        fastsnake.resume_sweep(folder, threads=1)
    assert main(["sweep", "--resume", str(folder)]) == 2
    assert "chunk-00000004.parquet has no place" in _one_line(capsys.readouterr().err)
    assert sorted(p.name for p in folder.glob("chunk-*")) == [f"chunk-{k:08d}.parquet" for k in (*(chunks or
                                                                                                   range(4)), 4)]


# -- one checked reader (issue 37 item 2) ------------------------------------------------------------

def test_report_reads_a_folder_through_the_checks(tmp_path, capsys):
    folder = _folder(tmp_path)
    shutil.copyfile(folder / "chunk-00000000.parquet", folder / "chunk-00000003.parquet")
    with pytest.raises(InputError, match="chunk-00000003.parquet"):
        report_sweeps([str(folder)], tmp_path / "r.html")
    assert main(["report", str(folder), "--out", str(tmp_path / "r.html")]) == 2
    line = _one_line(capsys.readouterr().err)
    assert "chunk-00000003.parquet" in line and "resume" in line
    assert not (tmp_path / "r.html").exists()


def test_replay_from_a_damaged_folder_is_refused(tmp_path):
    folder = _folder(tmp_path)
    other = _folder(tmp_path, "other", SweepSpec(**dict(SPEC.to_json(), policy="cycle")), chunks=[1])
    shutil.copyfile(other / "chunk-00000001.parquet", folder / "chunk-00000001.parquet")
    with pytest.raises(InputError, match="chunk-00000001.parquet"):
        fastsnake.replay_game(folder, pick=150)


def test_open_sweep_yields_checked_batches_of_a_file_and_a_folder(tmp_path):
    folder = _folder(tmp_path)
    path = tmp_path / "s.parquet"
    fastsnake.sweep("greedy", 6, 400, 5, out=path, threads=1)
    for source in (folder, path):
        reader = store.open_sweep(source)
        assert reader.parameters["policy"] == "greedy" and reader.complete
        rows = pa.concat_tables(list(reader.batches(batch_rows=64)))
        assert rows.column("game").to_pylist() == list(range(400))
    assert store.open_sweep(folder).read().column("moves").equals(store.open_sweep(path).read().column("moves"))


# -- crafted values (issue 37 items 6 and 7) ----------------------------------------------------------

def _rewrite(path, params=None, change_rows=None):
    """`path` rewritten as a writer would: new parameters (with a matching hash) or new rows."""
    table = pq.read_table(path)
    meta = dict(table.schema.metadata)
    if change_rows is not None:
        table = change_rows(table)
    if params is not None:
        raw = json.dumps(params).encode()
        meta[sweepfile.PARQUET_META_KEY] = raw
        meta[sweepfile.PARQUET_META_HASH_KEY] = __import__("hashlib").sha256(raw).hexdigest().encode()
    meta.pop(sweepfile.ROWS_META_KEY, None)
    pq.write_table(table.replace_schema_metadata(meta), path)


CRAFTED = {
    "seed -1": ("seed", -1),
    "seed 2**70": ("seed", 2**70),
    "seed NaN": ("seed", math.nan),
    "options x": ("options", "x"),
    "parameters a list": (None, [1, 2]),
}


@pytest.mark.parametrize("case", sorted(CRAFTED))
def test_crafted_parameters_are_one_line_bad_input(tmp_path, case, capsys):
    path = tmp_path / "s.parquet"
    fastsnake.sweep("greedy", 6, 50, 5, out=path, threads=1)
    params = pq.read_schema(path).metadata[sweepfile.PARQUET_META_KEY]
    key, value = CRAFTED[case]
    params = value if key is None else dict(json.loads(params), **{key: value})
    _rewrite(path, params)
    for argv in (["verify", str(path)], ["replay", "--from", str(path), "--out", str(tmp_path / "g.npz")],
                 ["report", str(path), "--out", str(tmp_path / "r.html")]):
        assert main(argv) == 2, argv
        line = _one_line(capsys.readouterr().err)
        assert "internal error" not in line and "parameter" in line, line
    with pytest.raises(InputError):
        store.read_sweep(path)


@pytest.mark.parametrize("column,value,why", [("moves", -70, "moves outside"),
                                               ("length", 2**31 - 1, "length outside"),
                                               ("apples", 7, "not 3 + its apples")])
def test_verify_refuses_impossible_values(tmp_path, column, value, why):
    path = tmp_path / "s.parquet"
    fastsnake.sweep("greedy", 6, 50, 5, out=path, threads=1)

    def change(table):
        values = table.column(column).to_numpy().copy()
        values[7] = value
        return table.set_column(table.column_names.index(column), column, pa.array(values, table.column(column).type))

    _rewrite(path, change_rows=change)
    report = fastsnake.verify_sweep(path)
    assert not report["ok"] and why in report["problems"][0] and "game 7" in report["problems"][0]
    with pytest.raises(InputError, match=re.escape(why)):
        store.read_sweep(path)
    with pytest.raises(InputError, match=re.escape(why)):
        fastsnake.replay_game(path, pick=7)


# -- bounded memory (issue 37 item 3) -------------------------------------------------------------------

def test_verify_and_read_a_billion_game_folder_in_bounded_memory(tmp_path):
    """One chunk of a declared 10⁹-game sweep: nothing is sized by the declared count (the old
    verify allocated 10⁹ counters and flags, 2 GB, before reading a row)."""
    spec = SweepSpec("greedy", 6, 6, 3, "follow", 36 * 36, 5, 10**9, 0, {}, 5_000)
    folder = _folder(tmp_path, "big", spec, chunks=[0])
    tracemalloc.start()
    try:
        report = fastsnake.verify_sweep(folder)
        games = sum(t.num_rows for t in store.open_sweep(folder).batches())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report["ok"] and not report["complete"] and report["missing"] == [[5_000, 10**9 - 1]]
    assert report["missing_games"] == 10**9 - 5_000 and games == 5_000
    assert peak < 64 * 2**20, peak


def test_a_file_declaring_a_billion_games_verifies_in_bounded_memory(tmp_path):
    path = tmp_path / "s.parquet"
    fastsnake.sweep("greedy", 6, 300, 5, out=path, threads=1)
    params = dict(json.loads(pq.read_schema(path).metadata[sweepfile.PARQUET_META_KEY]), games=10**9)
    _rewrite(path, params)
    tracemalloc.start()
    try:
        report = fastsnake.verify_sweep(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert report["ok"] and report["missing"] == [[300, 10**9 - 1]] and peak < 64 * 2**20


def test_running_out_of_memory_is_never_called_damage(tmp_path, monkeypatch):
    path = tmp_path / "s.parquet"
    fastsnake.sweep("greedy", 6, 50, 5, out=path, threads=1)

    def no_memory(*args, **kwargs):
        raise MemoryError

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", no_memory)  # how rows are read, in slices
    with pytest.raises(MemoryError):
        fastsnake.verify_sweep(path)


# -- a lost manifest (issue 37 item 4) ----------------------------------------------------------------

@pytest.mark.parametrize("loss", ["deleted", "truncated", "zeroed"])
def test_verify_repair_rebuilds_a_lost_manifest_and_resume_finishes(tmp_path, loss, capsys):
    reference = store.read_sweep(_folder(tmp_path, "clean"))[1]
    folder = _folder(tmp_path, chunks=[0, 2])
    manifest = folder / MANIFEST
    if loss == "deleted":
        manifest.unlink()
    elif loss == "truncated":
        manifest.write_bytes(manifest.read_bytes()[:40])
    else:
        manifest.write_bytes(b"\0" * len(manifest.read_bytes()))
    assert main(["sweep", "--resume", str(folder)]) == 2
    capsys.readouterr()
    assert main(["verify", "--repair", str(folder), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["repaired"].startswith("rebuilt _manifest.json from 2 chunk(s) of 4")
    assert report["ok"] and report["missing"] == [[100, 199], [300, 399]]
    assert fastsnake.resume_sweep(folder, threads=1).summary["games"] == 400
    repaired = store.read_sweep(folder)[1]
    assert repaired.drop_columns(["run_id"]).equals(reference.drop_columns(["run_id"]))
    assert len(set(repaired.column("run_id").to_pylist())) == 1  # the chunks' run id, kept by the repair
    assert fastsnake.verify_sweep(folder, repair=True)["repaired"] is None  # intact now: nothing to do


def test_repair_refuses_a_chunk_that_disagrees(tmp_path):
    folder = _folder(tmp_path, chunks=[0, 1])
    other = _folder(tmp_path, "other", SweepSpec(**dict(SPEC.to_json(), policy="cycle")), chunks=[2])
    shutil.copyfile(other / "chunk-00000002.parquet", folder / "chunk-00000002.parquet")
    (folder / MANIFEST).unlink()
    with pytest.raises(InputError, match=r"chunk-00000002.parquet disagrees with chunk-00000000.parquet \(policy"):
        fastsnake.verify_sweep(folder, repair=True)
    assert not (folder / MANIFEST).exists()


@pytest.mark.parametrize("format_", ["fastsnake-sweep-dataset/2", "fastsnake-sweep-dataset/1"])
def test_a_manifest_without_its_checksum_is_refused(tmp_path, format_):
    """Whatever its format says (0.1.0's wrote a checksum too): the key is not optional."""
    folder = _folder(tmp_path, chunks=[0])
    data = json.loads((folder / MANIFEST).read_text())
    del data["checksum"]
    data["format"] = format_
    (folder / MANIFEST).write_text(json.dumps(data))
    with pytest.raises(InputError, match=r"no checksum.*repair=True"):
        fastsnake.verify_sweep(folder)
    with pytest.raises(InputError, match=r"no checksum"):
        store.read_sweep(folder)


# -- smaller (issue 37 item 9) ---------------------------------------------------------------------------

def test_a_sweep_that_will_not_fit_on_the_disk_says_so_first(tmp_path, monkeypatch):
    monkeypatch.setattr(sweepfile.shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(10**6, 10**6, 10**4))
    path = tmp_path / "s.parquet"
    with pytest.raises(InputError, match=r"needs about .*(MB|GB).* has 10.0 kB free"):
        fastsnake.sweep("greedy", 6, 100_000, 5, out=path, threads=1)
    assert list(tmp_path.iterdir()) == []
    # A folder that cannot fit even at 4 bytes a game is refused before it is made (issue 46) ...
    with pytest.raises(InputError, match=r"need at least 441.0 kB .* has 10.0 kB free"):
        fastsnake.sweep("greedy", 6, 100_000, 5, out=tmp_path / "d", threads=1, chunk_size=5_000)
    assert not (tmp_path / "d").exists()
    # ... one that passes that floor is refused after its first chunk, from the bytes it took.
    monkeypatch.setattr(sweepfile.shutil, "disk_usage", lambda path: shutil._ntuple_diskusage(10**7, 10**7, 10**6))
    with pytest.raises(InputError, match=r"needs about .* has 1.0 MB free"):
        fastsnake.sweep("greedy", 6, 100_000, 5, out=tmp_path / "d", threads=1, chunk_size=5_000)
    assert fastsnake.verify_sweep(tmp_path / "d")["missing"] == [[5_000, 99_999]]  # resumable once there is room


def test_a_newline_in_an_output_path_is_not_printed_raw(tmp_path, capsys):
    out = tmp_path / "a\nb.parquet"
    assert main(["sweep", "--policy", "greedy", "--size", "6", "--games", "20", "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert "a\nb" not in captured.out + captured.err and "a\\nb" in captured.err
    assert main(["verify", str(out)]) == 0
    assert "a\nb" not in capsys.readouterr().out


def test_a_newline_in_a_replay_path_is_not_printed_raw(tmp_path, capsys):
    sweep, game, played = tmp_path / "s\n.parquet", tmp_path / "g\x1b[2J\n.npz", tmp_path / "p\n.npz"
    assert main(["sweep", "--policy", "greedy", "--size", "6", "--games", "20", "--out", str(sweep)]) == 0
    assert main(["replay", "--from", str(sweep), "--pick", "3", "--out", str(game)]) == 0
    assert main(["replay", "--check", str(game)]) == 0
    assert main(["play", "--policy", "greedy", "--size", "6", "--replay", str(played)]) == 0
    captured = capsys.readouterr()
    text = captured.out + captured.err
    assert "\x1b" not in text and "s\n.parquet" not in text and "p\n.npz" not in text
    assert "g\\x1b[2J\\n.npz" in captured.out and "p\\n.npz" in captured.err


# -- identity columns (issue 36) --------------------------------------------------------------------------

def test_duckdb_groups_sweep_files_and_a_folder_by_policy(tmp_path):
    duckdb = pytest.importorskip("duckdb")
    fastsnake.sweep("greedy", 6, 200, 5, out=tmp_path / "g.parquet", threads=1)
    fastsnake.sweep("cycle", 4, 100, 5, out=tmp_path / "c.parquet", threads=1)
    _folder(tmp_path, "f", chunks=[0])
    rows = duckdb.sql(f"SELECT policy, rows, cols, tail_rule, start_length, count(*) AS games, avg(moves) AS mean "
                      f"FROM read_parquet(['{tmp_path}/g.parquet', '{tmp_path}/c.parquet', '{tmp_path}/f/*.parquet']) "
                      "GROUP BY ALL ORDER BY policy, rows").fetchall()
    table = store.read_sweep(tmp_path / "g.parquet")[1]
    assert [r[:6] for r in rows] == [("cycle", 4, 4, "follow", 3, 100), ("greedy", 6, 6, "follow", 3, 300)]
    assert rows[1][6] == pytest.approx((table.column("moves").to_numpy().sum()
                                        + store.read_sweep(tmp_path / "f")[1].column("moves").to_numpy().sum()) / 300)


def test_files_of_the_first_format_still_read(tmp_path):
    """A file as the format before the identity columns wrote it: no identity columns, no hash."""
    path = tmp_path / "old.parquet"
    fastsnake.sweep("greedy", 6, 60, 5, out=path, threads=1)
    table = pq.read_table(path).drop_columns(list(store.IDENTITY_COLUMNS))
    params = dict(json.loads(table.schema.metadata[sweepfile.PARQUET_META_KEY]), format="fastsnake-sweep/1")
    meta = {sweepfile.PARQUET_META_KEY: json.dumps(params).encode()}
    pq.write_table(table.replace_schema_metadata(meta), path)
    assert store.read_sweep(path)[1].num_rows == 60 and fastsnake.verify_sweep(path)["complete"]
    assert fastsnake.replay_game(path, pick=3).game == 3
    assert report_sweeps([str(path)], tmp_path / "r.html")["games"] == 60
    # the same file declaring the new format must have its identity columns and hash
    params["format"] = store.SWEEP_FORMAT
    pq.write_table(table.replace_schema_metadata({sweepfile.PARQUET_META_KEY: json.dumps(params).encode()}), path)
    with pytest.raises(InputError, match="no hash"):
        store.read_sweep(path)


def test_identity_columns_hold_the_parameters(tmp_path):
    path = tmp_path / "s.parquet"
    fastsnake.sweep("greedy", 6, 60, 5, out=path, threads=1, tail="blocked", start_length=2)
    table = pq.read_table(path)
    assert set(table.column("policy").to_pylist()) == {"greedy"}
    assert set(table.column("tail_rule").to_pylist()) == {"blocked"}
    assert set(zip(table.column("rows").to_pylist(), table.column("cols").to_pylist(),
                   table.column("start_length").to_pylist(), strict=True)) == {(6, 6, 2)}
    assert np.array_equal(table.column("length").to_numpy(), 2 + table.column("apples").to_numpy())
