"""`puzzle compare --out DIR` as a resumable run folder, `--workers` and `--cluster` (fastsnake.runs):
3x3 instances with the kernels the suite already compiles (A* with manhattan and linear-conflict);
the runs on worker processes and on a local dask cluster are slow (each process loads the kernels)."""

import json
import os
import signal
import socket
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest

import fastsnake
from fastsnake.cli import main
from fastsnake.puzzle.study import MEASURED_COLUMNS

H2 = "manhattan,linear-conflict"
STUDY = ["--size", "3", "--count", "5", "--seed", "11", "--heuristics", H2]
# What may differ between two runs of one study: the CPU it took, the threads that searched (the tail of
# a run on workers), and the run's id.
MEASURED = MEASURED_COLUMNS


def _compare(capsys, *argv):
    code = main(["puzzle", "compare", *argv, "--quiet", "--json"])
    captured = capsys.readouterr()
    return code, (json.loads(captured.out) if captured.out.strip() else None), captured.err


def _rows(path):
    return [{k: v for k, v in r.items() if k not in MEASURED} for r in pq.read_table(path).to_pylist()]


def test_a_run_folder_resumes_to_the_rows_of_a_plain_run(capsys, tmp_path):
    code, plain, err = _compare(capsys, *STUDY, "--out", str(tmp_path / "plain.parquet"))
    assert code == 0, err
    folder = tmp_path / "study"  # no suffix: a run folder
    code, doc, err = _compare(capsys, *STUDY, "--out", str(folder))
    assert code == 0, err
    assert doc["files"]["folder"] == str(folder) and doc["files"]["rows"] == str(folder / f"{doc['run_id']}.parquet")
    assert doc["run"]["chunks_computed"] == 10 and doc["run"]["workers"] == 1
    assert _rows(doc["files"]["rows"]) == _rows(tmp_path / "plain.parquet")
    (folder / "chunk-00000004.json").unlink()  # lost: the rerun computes it, and only it
    code, again, err = _compare(capsys, *STUDY, "--out", str(folder))
    assert code == 0, err
    assert (again["run"]["chunks_computed"], again["run"]["chunks_resumed"]) == (1, 9)
    assert again["run_id"] == doc["run_id"] and _rows(again["files"]["rows"]) == _rows(tmp_path / "plain.parquet")
    meta, table = fastsnake.read_study(str(folder))
    assert meta["complete"] and meta["kind"] == "puzzle" and table.num_rows == 10
    # the folder reads as a baseline and in the verifier
    code, base, err = _compare(capsys, *STUDY, "--baseline-from", str(folder))
    assert code == 0 and base["baseline"]["worse"] == [], err
    assert main(["verify", str(folder)]) == 0
    assert ": complete: puzzle-study run" in capsys.readouterr().out
    # another study on that folder: refused, nothing changed
    before = sorted(os.listdir(folder))
    code, _, err = _compare(capsys, "--size", "3", "--count", "5", "--seed", "12", "--heuristics", H2,
                            "--out", str(folder))
    assert code == 2 and "holds another run (instances_sha256 differs)" in err
    assert sorted(os.listdir(folder)) == before


def test_a_tampered_chunk_is_exit_2_for_every_reader(capsys, tmp_path):
    folder = tmp_path / "study/"
    assert _compare(capsys, *STUDY, "--out", f"{folder}/")[0] == 0
    chunk = folder / "chunk-00000003.json"
    chunk.write_text(chunk.read_text().replace('"nodes_expanded":', '"nodes_expanded":1'))
    for argv in (["verify", str(folder)], ["report", str(folder), "--out", str(tmp_path / "r.html")],
                 ["puzzle", "compare", *STUDY, "--baseline-from", str(folder), "--quiet"],
                 ["puzzle", "compare", *STUDY, "--out", str(folder), "--quiet"]):
        assert main(argv) == 2, argv
        assert "chunk-00000003.json is damaged" in capsys.readouterr().err
    with pytest.raises(fastsnake.InputError, match="chunk-00000003.json is damaged"):
        fastsnake.read_study(str(folder))


def test_worker_counts_and_clusters_are_checked_before_any_search(capsys):
    allowed = len(os.sched_getaffinity(0))
    for argv, said in ((["--workers", "0"], "--workers 0: give a whole number"),
                       (["--workers", str(allowed + 1)], f"this process may use {allowed} core"),
                       (["--workers", "2", "--cluster", "local:2"], "not both")):
        code, _, err = _compare(capsys, *STUDY, *argv)
        assert code == 2 and said in err and err.count("\n") == 1, err
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    code, _, err = _compare(capsys, *STUDY, "--cluster", f"tcp://127.0.0.1:{port}")
    assert code == 2 and "cannot reach the scheduler" in err and err.count("\n") == 1


@pytest.mark.slow
def test_two_workers_and_a_local_cluster_give_the_rows_of_one(capsys, tmp_path):
    study = ["--instances", "korf100", "--easiest", "3", "--heuristics", H2, "--algorithm", "idastar"]
    outs = {}
    for name, how in (("one", ["--workers", "1"]), ("two", ["--workers", "2"]), ("cluster", ["--cluster", "local:2"]),
                      ("small-one", ["--workers", "1"]), ("small-two", ["--workers", "2"])):
        code, doc, err = _compare(capsys, *(STUDY if name.startswith("small") else study), *how,
                                  "--out", str(tmp_path / f"{name}.parquet"))
        assert code == 0, err
        assert doc["run"]["workers"] == (2 if name in ("two", "small-two", "cluster") else 1)
        outs[name] = _rows(tmp_path / f"{name}.parquet")
    assert outs["one"] == outs["two"] == outs["cluster"] and len(outs["one"]) == 6
    assert outs["small-one"] == outs["small-two"] and len(outs["small-one"]) == 10


@pytest.mark.slow
def test_a_study_killed_with_sigkill_is_finished_by_the_same_command(tmp_path):
    folder = tmp_path / "korf"
    argv = [sys.executable, "-m", "fastsnake", "puzzle", "compare", "--instances", "korf100", "--easiest", "8",
            "--heuristics", H2, "--algorithm", "idastar", "--workers", "2", "--out", str(folder), "--quiet", "--json"]
    env = dict(os.environ, FASTSNAKE_QUIET_COMPILE="1")
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    try:
        while proc.poll() is None and len(list(folder.glob("chunk-*.json"))) < 5:
            time.sleep(0.02)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    kept = len(list(folder.glob("chunk-*.json")))
    done = subprocess.run(argv, capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr
    doc = json.loads(done.stdout)
    assert doc["run"]["chunks_resumed"] >= kept and doc["run"]["chunks_computed"] + doc["run"]["chunks_resumed"] == 16
    plain = tmp_path / "plain.parquet"
    assert main(["puzzle", "compare", "--instances", "korf100", "--easiest", "8", "--heuristics", H2, "--algorithm",
                 "idastar", "--workers", "1", "--out", str(plain), "--quiet"]) == 0
    assert _rows(doc["files"]["rows"]) == _rows(plain)
