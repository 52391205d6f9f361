"""Nothing lost, nothing silently wrong: sweep files and folders against signals, bit-rot, two
writers and full disks (the "what survives what" table of docs/sweeps.md names these tests)."""

import json
import os
import shutil
import signal

import numpy as np
import pyarrow.parquet as pq
import pytest
from faults import dead_pid, disk_limit, edit_manifest, flip_bit, live_process, lock_holder, sample_offsets, truncate

import fastsnake
from fastsnake.cli import main
from fastsnake.errors import InputError, Terminated
from fastsnake.snake.dataset import MANIFEST, SweepDataset, SweepSpec, read_dataset, read_sweep, run_dataset_sweep
from fastsnake.snake.sweep import SweepError, read_parquet

SPEC = SweepSpec("greedy", 6, 6, 3, "follow", 36 * 36, 11, 400, 0, {}, 100)


def _folder(tmp_path, name="d", spec=SPEC):
    folder = tmp_path / name
    run_dataset_sweep(SweepDataset.open(folder, spec), threads=1)
    return folder


def _signal_after_first_chunk(sig):
    """A progress callback that sends this process `sig` once the first chunk is done."""
    sent = []

    def progress(done, total):
        if done and not sent:
            sent.append(done)
            os.kill(os.getpid(), sig)

    return progress


# -- single files: an interrupted sweep keeps its games beside, never over, a complete file ---

@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_sweep_never_replaces_a_complete_file(tmp_path, sig):
    path = tmp_path / "big.parquet"
    fastsnake.sweep("cycle", 6, 300, 0, out=path)
    before = path.read_bytes()
    progress = _signal_after_first_chunk(sig)
    if sig == signal.SIGTERM:
        with pytest.raises(Terminated) as stop:
            fastsnake.sweep("cycle", 6, 10**9, 0, out=path, threads=1, progress=progress)
        result = stop.value.result
        assert stop.value.code == 143
    else:
        result = fastsnake.sweep("cycle", 6, 10**9, 0, out=path, threads=1, progress=progress)
    assert path.read_bytes() == before
    kept = tmp_path / "big.partial.parquet"
    assert result.interrupted and result.summary["partial_file"] == str(kept)
    params, table = read_parquet(kept)
    assert 0 < table.num_rows == result.summary["games"] < 10**9
    assert table.column("moves").to_pylist() == fastsnake.sweep("cycle", 6, table.num_rows, 0).table.column(
        "moves").to_pylist()
    assert not list(tmp_path.glob(".*partial*"))


def test_a_second_interruption_keeps_the_first_ones_games(tmp_path):
    path = tmp_path / "big.parquet"
    for _ in range(2):
        fastsnake.sweep("cycle", 6, 10**9, 0, out=path, threads=1, progress=_signal_after_first_chunk(signal.SIGINT))
    assert (tmp_path / "big.partial.parquet").exists() and (tmp_path / "big.partial-2.parquet").exists()
    assert not path.exists()


def test_stale_partial_files_of_dead_processes_are_removed(tmp_path):
    path = tmp_path / "s.parquet"
    stale = tmp_path / f".s.parquet.partial-{dead_pid()}"
    stale.write_bytes(b"x" * 1000)
    with live_process() as pid:
        live = tmp_path / f".s.parquet.partial-{pid}"
        live.write_bytes(b"another sweep's rows")
        fastsnake.sweep("cycle", 4, 20, 0, out=path)
        assert not stale.exists()
        assert live.exists()  # a running writer's file is its own
    assert read_parquet(path)[1].num_rows == 20


def test_sigterm_in_the_library_raises_instead_of_returning(tmp_path):
    with pytest.raises(Terminated) as stop:
        fastsnake.sweep("cycle", 6, 10**7, 0, threads=1, rows=False, progress=_signal_after_first_chunk(signal.SIGTERM))
    assert isinstance(stop.value, SystemExit) and stop.value.code == 143
    assert 0 < stop.value.result.summary["games"] < 10**7
    # Ctrl-C keeps returning the finished part, marked interrupted (as documented).
    result = fastsnake.sweep("cycle", 6, 10**7, 0, threads=1, rows=False,
                             progress=_signal_after_first_chunk(signal.SIGINT))
    assert result.interrupted and 0 < result.summary["games"] < 10**7
    with pytest.raises(Terminated):
        fastsnake.resume_sweep(_unfinished_folder(tmp_path), threads=1,
                               progress=_signal_after_first_chunk(signal.SIGTERM))


def _unfinished_folder(tmp_path):
    spec = SweepSpec("cycle", 6, 6, 3, "follow", 36 * 36, 1, 4000, 0, {"cycle": "zigzag"}, 100)
    folder = tmp_path / "unfinished"
    SweepDataset.open(folder, spec)
    return folder


def test_the_first_chunk_of_a_big_board_is_a_game_per_thread():
    seen = []
    fastsnake.sweep("greedy", 40, 6, 0, threads=1, rows=False, progress=lambda done, total: seen.append(done))
    assert seen[0] == 1  # a signal is answered after one game, not after 64


# -- bit-rot: page checksums, chunk records, seeds -------------------------------------------------

def test_flipped_bits_in_a_sweep_file_are_refused_or_harmless(tmp_path):
    path = tmp_path / "s.parquet"
    fastsnake.sweep("greedy", 6, 500, 3, out=path)
    good = read_parquet(path)[1]
    silent = []
    for offset, bit in sample_offsets(path.stat().st_size, 300, seed=1):
        copy = tmp_path / "c.parquet"
        shutil.copyfile(path, copy)
        flip_bit(copy, offset, bit)
        try:
            table = read_parquet(copy)[1]
        except SweepError:
            continue
        if not table.equals(good):
            silent.append(offset)
    assert silent == []


@pytest.mark.slow
def test_every_bit_of_a_sweep_files_footer_is_refused_or_harmless(tmp_path):
    """The footer has no page checksum: flipped types, null flags, row counts and names must
    still never read back as other rows or escape as anything but a SweepError (17,000 flips)."""
    path = tmp_path / "s.parquet"
    fastsnake.sweep("cycle", 4, 40, 1, out=path, threads=1)
    good = read_parquet(path)[1]
    data = path.read_bytes()
    footer = int.from_bytes(data[-8:-4], "little")
    copy = tmp_path / "c.parquet"
    silent = []
    for offset in range(len(data) - 8 - footer, len(data)):
        for bit in range(8):
            flipped = bytearray(data)
            flipped[offset] ^= 1 << bit
            copy.write_bytes(bytes(flipped))
            try:
                table = read_parquet(copy)[1]
            except SweepError:
                continue
            if not (table.equals(good) and table.schema.equals(good.schema)):
                silent.append((offset, bit))
    assert silent == []


def test_a_flipped_byte_in_a_chunk_is_refused_naming_the_chunk(tmp_path):
    folder = _folder(tmp_path)
    chunk = folder / "chunk-00000002.parquet"
    flip_bit(chunk, chunk.stat().st_size // 3, 2)
    with pytest.raises(SweepError, match=r"chunk-00000002.parquet is damaged .*; remove chunk-00000002.parquet "
                                         r"and resume the sweep to redo it$"):
        fastsnake.resume_sweep(folder, threads=1)
    with pytest.raises(SweepError, match="chunk-00000002.parquet is damaged"):
        read_sweep(folder)
    report = fastsnake.verify_sweep(folder)
    assert not report["ok"] and report["damaged"] == [[200, 299]] and report["missing"] == []
    chunk.unlink()  # as the message says: remove it, resume, and the sweep is whole again
    result = fastsnake.resume_sweep(folder, threads=1)
    assert result.summary["games"] == 400 and fastsnake.verify_sweep(folder)["complete"]


def test_a_chunk_of_another_sweep_is_refused(tmp_path):
    folder = _folder(tmp_path)
    other = _folder(tmp_path, "other", SweepSpec(**dict(SPEC.to_json(), seed=12)))
    (folder / "chunk-00000001.parquet").unlink()
    shutil.copyfile(other / "chunk-00000001.parquet", folder / "chunk-00000001.parquet")
    with pytest.raises(SweepError, match=r"chunk-00000001.parquet belongs to another sweep \(seed 12 there, 11"):
        fastsnake.resume_sweep(folder, threads=1)
    edit_manifest(folder, lambda manifest: manifest["chunks"].pop("1"))
    with pytest.raises(SweepError, match=r"chunk-00000001.parquet belongs to another sweep \(seed 12 there, 11"):
        fastsnake.resume_sweep(folder, threads=1)
    # A chunk copied into another chunk's place: its games are doubled, its own damaged.
    shutil.copyfile(folder / "chunk-00000000.parquet", folder / "chunk-00000001.parquet")
    report = fastsnake.verify_sweep(folder)
    assert report["doubled"] == [[0, 99]] and report["damaged"] == [[100, 199]] and not report["ok"]


def test_an_unrecorded_whole_chunk_is_adopted_after_a_row_check(tmp_path):
    """The writer died between the chunk's rename and the manifest's: the chunk is checked, then kept."""
    folder = _folder(tmp_path)
    edit_manifest(folder, lambda manifest: manifest["chunks"].pop("3"))
    reference = read_dataset(folder)[1]
    result = fastsnake.resume_sweep(folder, threads=1)
    assert result.summary["games"] == 400 and "3" in json.loads((folder / MANIFEST).read_text())["chunks"]
    assert read_dataset(folder)[1].drop_columns(["run_id"]).equals(reference.drop_columns(["run_id"]))


def test_verify_reports_missing_games_and_the_cli_says_so(tmp_path, capsys):
    folder = _folder(tmp_path)
    (folder / "chunk-00000001.parquet").unlink()
    report = fastsnake.verify_sweep(folder)
    assert report["ok"] and not report["complete"] and report["missing"] == [[100, 199]]
    assert main(["verify", str(folder), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["missing_games"] == 100
    flip_bit(folder / "chunk-00000000.parquet", 200)
    assert main(["verify", str(folder), "--json"]) == 2
    out, err = capsys.readouterr()
    assert json.loads(out)["damaged"] == [[0, 99]]
    assert err.count("\n") == 1 and "chunk-00000000.parquet" in err
    path = tmp_path / "s.parquet"
    fastsnake.sweep("cycle", 4, 30, out=path)
    assert main(["verify", str(path)]) == 0
    assert "complete" in capsys.readouterr().out


def test_a_manifest_field_of_the_wrong_type_is_one_line(tmp_path, capsys):
    folder = _folder(tmp_path)
    manifest = json.loads((folder / MANIFEST).read_text())
    manifest["sweep"]["games"] = "400"
    manifest.pop("checksum")
    (folder / MANIFEST).write_text(json.dumps(manifest))
    assert main(["sweep", "--resume", str(folder)]) == 2
    assert "field 'games' is '400', not a whole number" in capsys.readouterr().err
    manifest["sweep"]["games"] = 400
    manifest["checksum"] = "0" * 64
    (folder / MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(SweepError, match="damaged .*checksum"):
        fastsnake.resume_sweep(folder)


# -- two writers --------------------------------------------------------------------------------

def test_a_second_writer_is_refused_naming_the_owner(tmp_path):
    folder = tmp_path / "d"
    SweepDataset.open(folder, SPEC)
    with lock_holder(folder) as pid:
        with pytest.raises(SweepError, match=f"is being written by process {pid} on "):
            fastsnake.resume_sweep(folder, threads=1)
        with pytest.raises(SweepError, match=f"process {pid}"):
            fastsnake.sweep("greedy", 6, 400, 11, out=folder, chunk_size=100, threads=1)
    assert fastsnake.resume_sweep(folder, threads=1).summary["games"] == 400  # the owner is gone


def test_a_stale_lock_is_taken_over_with_a_warning(tmp_path, capsys):
    folder = tmp_path / "d"
    SweepDataset.open(folder, SPEC)
    pid = dead_pid()
    import socket

    (folder / "_writer.lock").write_text(json.dumps({"pid": pid, "host": socket.gethostname(), "since": "then"}))
    assert fastsnake.resume_sweep(folder, threads=1).summary["games"] == 400
    assert f"taking over the lock of process {pid}" in capsys.readouterr().err


def test_a_folder_rewritten_by_another_writer_meanwhile_is_refused(tmp_path):
    folder = tmp_path / "d"
    first = SweepDataset.open(folder, SPEC)
    SweepDataset(folder, SweepSpec(**dict(SPEC.to_json(), seed=12))).save_manifest()  # a second creator won
    with pytest.raises(SweepError, match="now holds a different sweep"):
        run_dataset_sweep(first, threads=1)
    assert not list(folder.glob("chunk-*"))


def test_scans_never_delete_a_live_writers_temporary_files(tmp_path):
    folder = _folder(tmp_path)
    (folder / "chunk-00000003.parquet").unlink()
    with live_process() as pid:
        live = folder / f".chunk-00000003.parquet.tmp{pid}"
        live.write_bytes(b"being written")
        stale = folder / f".chunk-00000003.parquet.tmp{dead_pid()}"
        stale.write_bytes(b"left by a killed writer")
        with SweepDataset.open(folder).writing() as dataset:
            assert dataset.scan()[0] == [3]
        assert live.exists() and not stale.exists()


# -- full disks and failed writes -----------------------------------------------------------------

def test_a_failed_first_manifest_write_leaves_the_folder_usable(tmp_path, monkeypatch):
    folder = tmp_path / "new"
    real = os.replace

    def full(src, dst):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(SweepError, match="No space left"):
        fastsnake.sweep("greedy", 6, 400, 11, out=folder, chunk_size=100, threads=1)
    monkeypatch.setattr(os, "replace", real)
    assert fastsnake.sweep("greedy", 6, 400, 11, out=folder, chunk_size=100, threads=1).summary["games"] == 400


def test_a_failed_manifest_update_leaves_the_folder_resumable(tmp_path, monkeypatch):
    reference = read_dataset(_folder(tmp_path, "ref"))[1]
    folder = tmp_path / "d"
    dataset = SweepDataset.open(folder, SPEC)
    save = SweepDataset.save_manifest
    calls = []

    def fails_on_the_third_chunk(self):
        calls.append(1)
        if len(calls) == 3:
            raise SweepError("cannot write manifest: No space left on device")
        save(self)

    monkeypatch.setattr(SweepDataset, "save_manifest", fails_on_the_third_chunk)
    with pytest.raises(SweepError):
        run_dataset_sweep(dataset, threads=1)
    monkeypatch.setattr(SweepDataset, "save_manifest", save)
    assert fastsnake.resume_sweep(folder, threads=1).summary["games"] == 400
    assert read_dataset(folder)[1].drop_columns(["run_id"]).equals(reference.drop_columns(["run_id"]))


def test_a_full_disk_never_truncates_an_earlier_plot_or_sweep_file(tmp_path):
    pytest.importorskip("matplotlib")
    result = fastsnake.sweep("greedy", 6, 200, 1)
    plot = tmp_path / "p.png"
    result.plot(plot)
    before = plot.read_bytes()
    sweep_file = tmp_path / "s.parquet"
    fastsnake.sweep("greedy", 6, 2000, 1, out=sweep_file)
    kept = sweep_file.read_bytes()
    with disk_limit(1000):
        with pytest.raises(InputError, match="cannot write"):
            result.plot(plot)
        with pytest.raises(SweepError, match="cannot write"):
            fastsnake.sweep("greedy", 6, 5000, 2, out=sweep_file)
    assert plot.read_bytes() == before and sweep_file.read_bytes() == kept
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]


# -- reading: every damaged file is one line -----------------------------------------------------

def test_corrupt_npz_replays_are_input_errors(tmp_path):
    """A flipped method (NotImplementedError), flag bit ("is encrypted", RuntimeError) or deflate
    byte (zlib.error) of an .npz is a one-line input error, not an internal error."""
    import zipfile

    game = fastsnake.play("greedy", 6, seed=1)
    plain = tmp_path / "g.npz"
    game.save(plain)
    deflated = tmp_path / "z.npz"
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(deflated, "w", zipfile.ZIP_DEFLATED) as dst:
        for item in src.infolist():
            dst.writestr(item.filename, src.read(item.filename))
    assert fastsnake.load_game(deflated).moves.tolist() == game.moves.tolist()
    raw = deflated.read_bytes()
    central = raw.index(b"PK\x01\x02")
    local = raw.index(b"PK\x03\x04")
    data_at = local + 30 + int.from_bytes(raw[local + 26:local + 28], "little") + 2
    for name, offset, mask in (("method", central + 10, 0x04), ("encrypted", central + 8, 0x01),
                               ("deflate", data_at, 0xFF)):
        bad = tmp_path / f"{name}.npz"
        data = bytearray(raw)
        data[offset] ^= mask
        bad.write_bytes(bytes(data))
        with pytest.raises(InputError):
            fastsnake.load_game(bad)


def test_type_and_overflow_gaps_are_input_errors(tmp_path, capsys):
    for call in (lambda: fastsnake.sweep("cycle", 6, 10, threads="2"),
                 lambda: fastsnake.sweep("cycle", 6, 10, out=123),
                 lambda: fastsnake.sweep("cycle", 6, 10, max_moves=2**70),
                 lambda: fastsnake.play("cycle", 6, game=2**64)):
        with pytest.raises(InputError):
            call()
    assert main(["sweep", "--policy", "cycle", "--size", "6", "--games", "5", "--max-moves", "9" * 30]) == 2
    assert "max moves" in capsys.readouterr().err


def test_truncated_chunk_and_file_are_refused(tmp_path):
    folder = _folder(tmp_path)
    truncate(folder / "chunk-00000001.parquet", 100)
    with pytest.raises(SweepError, match="chunk-00000001.parquet is damaged"):
        read_sweep(folder)
    path = tmp_path / "s.parquet"
    fastsnake.sweep("cycle", 4, 30, out=path)
    truncate(path, path.stat().st_size - 10)
    with pytest.raises(SweepError, match="not a readable Parquet file"):
        read_parquet(path)
    assert np.all(pq.read_table(folder / "chunk-00000000.parquet").column("game").to_numpy() < 100)


# -- cluster mode ---------------------------------------------------------------------------------

@pytest.mark.slow
def test_a_cluster_with_no_workers_left_stops_resumably(tmp_path, monkeypatch, capfd):
    pytest.importorskip("distributed")
    import distributed

    from fastsnake.snake import cluster

    monkeypatch.setattr(cluster, "NO_WORKERS_SECONDS", 1.0)
    monkeypatch.setattr(cluster, "POLL_SECONDS", 0.5)
    folder = tmp_path / "c"

    def drop_every_worker(done, total):
        if done:
            distributed.get_client().cluster.scale(0)

    with pytest.raises(SweepError, match="no worker for 1 s; stopped .* resume"):
        fastsnake.sweep("greedy", 6, 4000, 11, out=folder, chunk_size=100, cluster="local:1",
                        progress=drop_every_worker)
    assert "Traceback" not in capfd.readouterr().err
    assert fastsnake.resume_sweep(folder, threads=1).summary["games"] == 4000
    assert fastsnake.verify_sweep(folder)["complete"]


@pytest.mark.slow
def test_a_write_error_in_cluster_mode_is_one_line(tmp_path):
    """A real full disk (RLIMIT_FSIZE) under a cluster sweep: one line, exit 2, no dask traceback."""
    pytest.importorskip("distributed")
    import resource
    import subprocess
    import sys

    def small_files():
        resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, resource.getrlimit(resource.RLIMIT_FSIZE)[1]))

    fastsnake.sweep("cycle", 6, 10)  # the kernel is in the cache (a worker cannot write it under the limit)
    folder = tmp_path / "c"
    cmd = [sys.executable, "-m", "fastsnake", "sweep", "--policy", "cycle", "--size", "6", "--games", "300000",
           "--chunk-size", "100000", "--out", str(folder), "--cluster", "local:1"]
    proc = subprocess.run(cmd, capture_output=True, text=True, preexec_fn=small_files, timeout=600)
    assert proc.returncode == 2, proc.stderr
    assert "Traceback" not in proc.stderr and "Exception ignored" not in proc.stderr, proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith("fastsnake: error: cannot write")
    assert fastsnake.resume_sweep(folder, threads=1).summary["games"] == 300000


@pytest.mark.slow
def test_a_killed_dask_worker_costs_nothing(tmp_path):
    pytest.importorskip("distributed")
    import distributed

    reference = read_dataset(_folder(tmp_path, "ref", SweepSpec(**dict(SPEC.to_json(), games=2000))))[1]
    killed = []

    def kill_a_worker(done, total):
        if done and not killed:
            pids = distributed.get_client().run(os.getpid)
            killed.append(next(iter(pids.values())))
            os.kill(killed[0], signal.SIGKILL)

    folder = tmp_path / "c"
    result = fastsnake.sweep("greedy", 6, 2000, 11, out=folder, chunk_size=100, cluster="local:2",
                             progress=kill_a_worker)
    assert killed and result.summary["games"] == 2000
    assert read_dataset(folder)[1].drop_columns(["run_id"]).equals(reference.drop_columns(["run_id"]))
