"""Sweep folders: chunked Parquet datasets that resume exactly, locally or on a dask cluster."""

import json
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from fastsnake.cli import main
from fastsnake.snake.board import GameConfig
from fastsnake.snake.dataset import SweepDataset, SweepSpec, read_dataset, run_dataset_sweep
from fastsnake.snake.sweep import SweepError, run_sweep

SPEC = SweepSpec("greedy", 8, 8, 3, "follow", 64 * 64, 11, 1000, 0, {}, 150)


def rows_of(folder):
    table = read_dataset(folder)[1]
    return {c: table.column(c).to_numpy() for c in ("game", "moves", "apples", "length")}


@pytest.fixture(scope="module")
def reference():
    return run_sweep("greedy", GameConfig(8, 8), 1000, seed=11)


def test_folder_rows_equal_the_in_memory_sweep(tmp_path, reference):
    acc, *_ = run_dataset_sweep(SweepDataset.open(tmp_path / "d", SPEC), threads=2)
    rows = rows_of(tmp_path / "d")
    assert rows["game"].tolist() == list(range(1000))
    assert np.array_equal(rows["moves"], reference.moves)
    assert acc.games == 1000 and acc.as_dict()["moves_mean"] == pytest.approx(reference.moves.mean())


def test_resume_computes_only_missing_chunks(tmp_path, reference):
    folder = tmp_path / "d"
    run_dataset_sweep(SweepDataset.open(folder, SPEC), threads=1)
    (folder / "chunk-00000003.parquet").unlink()
    (folder / ".chunk-00000003.parquet.tmp999").write_bytes(b"half a file")
    dataset = SweepDataset.open(folder)  # resume: the manifest's parameters
    assert dataset.scan()[0] == [3]
    assert not list(folder.glob(".chunk-*"))
    acc, *_ = run_dataset_sweep(dataset, threads=1)
    assert acc.games == 1000
    assert np.array_equal(rows_of(folder)["moves"], reference.moves)


def test_other_parameters_on_an_existing_folder_are_refused(tmp_path):
    folder = tmp_path / "d"
    SweepDataset.open(folder, SPEC)
    other = SweepSpec(**dict(SPEC.to_json(), seed=12))
    with pytest.raises(SweepError, match="different sweep .*seed: 11 there, 12 asked"):
        SweepDataset.open(folder, other)
    code = main(["sweep", "--policy", "greedy", "--size", "8", "--games", "1000", "--seed", "13",
                 "--out", str(folder)])
    assert code == 2


def test_sigkill_then_resume_equals_an_uninterrupted_run(tmp_path, reference):
    folder = tmp_path / "killed"
    cmd = [sys.executable, "-m", "fastsnake", "sweep", "--policy", "greedy", "--size", "8", "--games", "1000",
           "--seed", "11", "--chunk-size", "25", "--threads", "1", "--out", str(folder), "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 120
    while time.time() < deadline and len(list(folder.glob("chunk-*.parquet"))) < 3:
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    finished = len(list(folder.glob("chunk-*.parquet")))
    assert 3 <= finished < 40, "the kill must land mid-run"
    result = subprocess.run([sys.executable, "-m", "fastsnake", "sweep", "--resume", str(folder), "--json"],
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["games"] == 1000
    rows = rows_of(folder)
    assert rows["game"].tolist() == list(range(1000))
    assert np.array_equal(rows["moves"], reference.moves)
    assert np.array_equal(rows["apples"], reference.apples)


def test_local_cluster_gives_the_local_rows(tmp_path, reference):
    pytest.importorskip("distributed")
    folder = tmp_path / "c"
    code = main(["sweep", "--policy", "greedy", "--size", "8", "--games", "1000", "--seed", "11",
                 "--chunk-size", "200", "--out", str(folder), "--cluster", "local:2"])
    assert code == 0
    rows = rows_of(folder)
    assert rows["game"].tolist() == list(range(1000))
    assert np.array_equal(rows["moves"], reference.moves)


def test_replay_from_a_folder(tmp_path, reference, capsys):
    folder = tmp_path / "d"
    run_dataset_sweep(SweepDataset.open(folder, SPEC), threads=1)
    code = main(["replay", "--from", str(folder), "--pick", "longest", "--out", str(tmp_path / "r.npz"), "--json"])
    assert code == 0
    assert json.loads(capsys.readouterr().out)["moves"] == int(reference.moves.max())


def test_cluster_argument_is_checked():
    from fastsnake.snake.cluster import parse_cluster

    assert parse_cluster("local") == ("local", None)
    assert parse_cluster("local:3") == ("local", 3)
    assert parse_cluster("tcp://10.0.0.5:8786") == ("address", "tcp://10.0.0.5:8786")
    with pytest.raises(SweepError, match="not local, local:N"):
        parse_cluster("mars")


def test_read_sweep_takes_a_file_or_a_folder(tmp_path, reference):
    from fastsnake.snake.dataset import read_sweep
    from fastsnake.snake.replay import pick_game
    from fastsnake.snake.sweep import read_parquet, write_parquet

    small = SweepSpec("greedy", 8, 8, 3, "follow", 64 * 64, 11, 300, 0, {}, 150)
    run_dataset_sweep(SweepDataset.open(tmp_path / "d", small), threads=1)
    write_parquet(reference, tmp_path / "f.parquet")
    folder_params, folder = read_sweep(tmp_path / "d")
    file_params, file = read_sweep(tmp_path / "f.parquet")
    assert folder_params["seed"] == file_params["seed"] == 11
    assert folder.column("moves").to_pylist() == file.column("moves").to_pylist()[:300]
    longest = int(np.argmax(reference.moves[:300]))
    assert pick_game(tmp_path / "d", "longest")[1] == longest
    with pytest.raises(SweepError, match="is a sweep folder"):
        read_parquet(tmp_path / "d")
