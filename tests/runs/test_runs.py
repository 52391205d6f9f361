"""The runner (`fastsnake.runs`): results in unit order whoever computes them, folders that resume
and refuse another run's, a dead worker's chunk redone, a SIGKILLed run finished by a rerun, the
cores a unit may use (`spare_cores`: the idle workers' shared among the busy ones).

The work functions are plain Python (`runs_workers.py`): no kernel is compiled here."""

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import runs_workers as W

from fastsnake.errors import InputError
from fastsnake.runs import Job, RunFolder, RunFolderError, check_workers, core_share, run, spare_cores
from fastsnake.runs import progress as P
from fastsnake.runs import runner as R
from fastsnake.runs.cluster import parse_cluster, probe

UNITS = list(range(23))


def expected(offset=1):
    return [{"unit": u, "value": u * u + offset} for u in UNITS]


def test_one_and_two_workers_give_the_same_results_in_unit_order():
    job = Job(W.square, {"offset": 1}, W.setup)
    here = run(UNITS, job, workers=1, chunk_size=4)
    pool = run(UNITS, job, workers=2, chunk_size=4, order=list(reversed(range(6))))  # started last first
    assert here.results == pool.results == expected()
    assert (here.computed, pool.computed, pool.interrupted) == (6, 6, False)


@pytest.mark.slow  # two pools of two spawned processes: about 3 CPU-s
def test_a_worker_that_dies_is_said_and_its_chunk_redone(tmp_path):
    lines = []
    out = run(UNITS, Job(W.die_once, {"marker": str(tmp_path / "died")}), workers=2, chunk_size=2, warn=lines.append)
    assert (tmp_path / "died").exists() and out.redone >= 1
    assert [r["value"] for r in out.results] == [u * u for u in UNITS]
    assert any("a worker process died" in line and "run again" in line for line in lines)


def _folder(path, identity=None, run_id="r1", chunk_size=4):
    return RunFolder.create_or_resume(path, identity or {"kind": "test"}, len(UNITS), chunk_size, run_id=run_id)


def test_a_folder_resumes_and_refuses_another_run(tmp_path):
    job = Job(W.square, {"offset": 1}, W.setup)
    first = run(UNITS, job, folder=_folder(tmp_path / "f"))
    assert first.computed == 6 and first.results == expected()
    again = run(UNITS, job, folder=_folder(tmp_path / "f", run_id="other"))
    assert (again.computed, again.resumed) == (0, 6) and again.results == expected()
    assert RunFolder.open(tmp_path / "f").run_id == "r1"  # the folder's run id is kept
    (tmp_path / "f" / "chunk-00000002.json").unlink()  # removed by hand: recomputed, nothing else
    third = run(UNITS, job, folder=_folder(tmp_path / "f"))
    assert (third.computed, third.resumed) == (1, 5) and third.results == expected()
    with pytest.raises(RunFolderError, match=r"holds another run \(kind: \"test\" there, \"other\" asked\)"):
        _folder(tmp_path / "f", {"kind": "other"})
    with pytest.raises(RunFolderError, match="chunk_size: 4 there, 5 asked"):
        _folder(tmp_path / "f", chunk_size=5)
    (tmp_path / "g").mkdir()
    (tmp_path / "g" / "notes.txt").write_text("mine")
    with pytest.raises(RunFolderError, match="not empty and holds no run"):
        _folder(tmp_path / "g")


def test_a_tampered_chunk_is_refused_by_the_rerun_verify_and_the_reader(tmp_path):
    job = Job(W.square, {"offset": 1}, W.setup)
    run(UNITS, job, folder=_folder(tmp_path / "f"))
    chunk = tmp_path / "f" / "chunk-00000001.json"
    chunk.write_text(chunk.read_text().replace('"value":17', '"value":18'))
    folder = RunFolder.open(tmp_path / "f")
    report = folder.verify()
    assert not report["ok"] and "chunk-00000001.json is damaged" in report["damaged"][0]
    with pytest.raises(RunFolderError, match="chunk-00000001.json is damaged"):
        folder.results()
    with pytest.raises(RunFolderError, match="chunk-00000001.json is damaged .* remove it and run the same command"):
        run(UNITS, job, folder=_folder(tmp_path / "f"))


def test_a_whole_chunk_the_manifest_missed_is_adopted_after_its_check(tmp_path):
    """Killed between a chunk's rename and the manifest's: the chunk is whole, checked and kept."""
    job = Job(W.square, {"offset": 1}, W.setup)
    run(UNITS, job, folder=_folder(tmp_path / "f"))
    manifest = json.loads((tmp_path / "f" / "_manifest.json").read_text())
    folder = RunFolder(tmp_path / "f", manifest)
    del folder.records[3]
    folder.save_manifest()
    assert RunFolder.open(tmp_path / "f").verify()["unrecorded"] == 1
    again = run(UNITS, job, folder=_folder(tmp_path / "f"))
    assert again.computed == 0 and again.results == expected()
    assert "3" in json.loads((tmp_path / "f" / "_manifest.json").read_text())["chunks"]


SCRIPT = """
import sys
sys.path.insert(0, {here!r})
import runs_workers as W
from fastsnake.runs import Job, RunFolder, run
if __name__ == "__main__":
    folder = RunFolder.create_or_resume(sys.argv[1], {{"kind": "test"}}, 23, 1, run_id="r1")
    run(list(range(23)), Job(W.slow_square, {{"offset": 1, "sleep": 0.05}}, W.slow_setup), folder=folder)
"""


def test_a_run_killed_with_sigkill_is_finished_by_a_rerun(tmp_path):
    script = tmp_path / "go.py"
    script.write_text(SCRIPT.format(here=str(Path(W.__file__).parent)))
    folder = tmp_path / "f"
    proc = subprocess.Popen([sys.executable, str(script), str(folder)], stdout=subprocess.PIPE, text=True)
    try:
        while proc.poll() is None and len(list(folder.glob("chunk-*.json"))) < 4:
            time.sleep(0.01)  # the kill lands after four chunks, whatever the machine's speed
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    kept = len(list(folder.glob("chunk-*.json")))
    assert kept >= 4
    folder_again = RunFolder.create_or_resume(folder, {"kind": "test"}, 23, 1, run_id="r2")
    rerun = run(UNITS, Job(W.square, {"offset": 1}, W.setup), folder=folder_again)
    assert rerun.resumed >= kept and rerun.computed + rerun.resumed == 23  # nothing twice, nothing lost
    assert folder_again.run_id == "r1"
    assert RunFolder.open(folder).results(partial=False) == expected()
    assert not [p for p in os.listdir(folder) if p.startswith(".")]  # the killed writer's temporaries: gone


def test_worker_counts_are_checked():
    allowed = len(os.sched_getaffinity(0))
    assert check_workers(None) == allowed and check_workers(1) == 1
    for bad in (0, -1, 1.5, True):
        with pytest.raises(InputError, match=f"workers={bad!r}"):
            check_workers(bad)
    with pytest.raises(InputError, match=f"may use {allowed} core"):
        check_workers(allowed + 1)
    said = []
    assert check_workers(allowed + 5, cap=True, warn=said.append) == allowed and "running" in said[0]


def test_cluster_addresses_are_checked_before_any_work():
    assert parse_cluster("local:3") == ("local", 3) and parse_cluster("tcp://h:1") == ("address", "tcp://h:1")
    with pytest.raises(InputError, match="not local, local:N or a scheduler address"):
        parse_cluster("mars")
    import socket

    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(InputError, match=f"tcp://127.0.0.1:{port}'.*cannot reach the scheduler"):
        probe(f"tcp://127.0.0.1:{port}", timeout=2)


def test_the_progress_line_counts_rate_and_eta_from_finished_work():
    text = P.line("puzzle study", 30, 120, 30, 10.0, 2)
    assert text == "puzzle study: 30/120 (25%), 3/s, ETA 30s, 2 workers"
    assert P.line("x", 5, 10, 0, 3.0, 1).endswith("-/s, ETA ?, 1 worker")
    assert P.eta_text(3725) == "ETA 1h02m" and P.eta_text(65) == "ETA 1m05s"
    assert not P.ProgressLine.wanted(open(os.devnull, "w"))  # not on a pipe or a file


# -- the folder primitives both run folders and Snake's sweep folders use (`fastsnake.runs.files`) --------

def test_chunk_files_lists_a_folder_as_a_name_by_name_reference_does(tmp_path):
    import re

    from fastsnake.runs.files import chunk_file_index, chunk_file_name, chunk_files

    names = ["chunk-00000000.json", "chunk-00000003.json", "chunk-00000001.json", "chunk-00000009.json",
             "chunk-1.json", "chunk-00000002.parquet", ".chunk-00000004.json.tmp1", "_manifest.json",
             "chunk-.json", "chunk-00000005.json.bak", "chunk-0000000x.json",
             "chunk-\u00b2.json", "chunk-0000000\u0663.json", "chunk-\u00b23.parquet"]  # not ASCII digits: not ours
    for name in names:
        (tmp_path / name).write_text("")
    for suffix, n_chunks in ((".json", 4), (".json", 10), (".parquet", 3), (".parquet", 2)):
        present, strays = [], []
        for name in names:  # the reference: a regular expression, then the index's one spelling
            match = re.fullmatch(r"chunk-([0-9]+)" + re.escape(suffix), name)
            if not match:
                continue
            index = int(match.group(1))
            if index < n_chunks and name == f"chunk-{index:08d}{suffix}":
                present.append(index)
            else:
                strays.append(name)
        assert chunk_files(tmp_path, n_chunks, suffix) == (sorted(present), sorted(strays))
    assert chunk_file_name(12, ".json") == "chunk-00000012.json"
    assert chunk_file_index("chunk-00000012.json", ".json") == 12
    assert chunk_file_index("chunk-00000012.json", ".parquet") is None


def test_make_folder_removes_only_a_folder_it_made_when_the_first_manifest_fails(tmp_path):
    from fastsnake.runs.files import make_folder

    def fails():
        raise RunFolderError("no manifest")

    new = tmp_path / "a" / "new"
    with pytest.raises(RunFolderError, match="no manifest"):
        make_folder(new, fails, RunFolderError)
    assert not new.exists() and (tmp_path / "a").is_dir()  # the folder it made is gone, not its parent
    there = tmp_path / "there"
    there.mkdir()
    with pytest.raises(OSError):
        make_folder(there, lambda: (_ for _ in ()).throw(OSError(28, "No space left on device")), RunFolderError)
    assert there.is_dir()  # an empty folder that was there is left
    make_folder(new, lambda: (new / "m").write_text("x"), RunFolderError)
    assert (new / "m").read_text() == "x"


def test_write_manifest_records_the_chunks_in_order_under_a_fresh_checksum(tmp_path):
    from fastsnake.runs.files import manifest_checksum, write_manifest

    path = tmp_path / "_manifest.json"
    old = {"format": "f", "chunks": {"7": {"sha256": "old"}}, "checksum": "stale"}
    data = write_manifest(path, old, {10: {"sha256": "b"}, 2: {"sha256": "a"}})
    assert json.loads(path.read_text()) == data and list(data["chunks"]) == ["2", "10"]
    assert data["format"] == "f" and data["checksum"] == manifest_checksum(data) != "stale"
    assert old["chunks"] == {"7": {"sha256": "old"}}  # the manifest given is not changed

    def full(path, data):
        raise OSError(28, "No space left on device")

    with pytest.raises(OSError):
        write_manifest(path, old, {}, write=full)
    assert json.loads(path.read_text()) == data


# -- the cores a unit may use (`spare_cores`) -----------------------------------------------------------

def _shares_by_hand(busy, unstarted):
    """The reference: each idle slot's core handed in turn to the next busy slot, in slot order."""
    if unstarted > 0:
        return {k: 1 for k in range(len(busy)) if busy[k]}
    held = [k for k in range(len(busy)) if busy[k]]
    out = {k: 1 for k in held}
    for n in range(len(busy) - len(held)):
        out[held[n % len(held)]] += 1
    return out


def test_idle_workers_cores_are_shared_fairly_among_the_busy_ones():
    import itertools

    for slots in range(1, 7):
        for busy in itertools.product((0, 1), repeat=slots):
            if not any(busy):
                continue
            for unstarted in (0, 1, 3):
                want = _shares_by_hand(busy, unstarted)
                got = {k: R.fair_share(busy, k, unstarted) for k in want}
                assert got == want, (busy, unstarted)
                if unstarted == 0:  # every core of the pool, no more: each busy worker one or one more
                    assert sum(got.values()) == slots and max(got.values()) - min(got.values()) <= 1
    # a worker that asks between two chunks counts itself busy
    assert R.fair_share([0, 1, 0], 0, 0) == 2 and R.fair_share([0, 0, 0, 0], 2, 0) == 4


def test_the_pools_shared_memory_says_who_is_idle(monkeypatch):
    import multiprocessing

    cores = R.PoolCores(multiprocessing.get_context("spawn"), 3, 2)  # 3 workers, 2 chunks
    a, b = cores.join(), cores.join()
    assert (a, b) == (0, 1)
    cores.begin(a)
    assert cores.share(a) == 1  # a chunk is left to start: the third worker takes it soon
    cores.begin(b)
    assert (cores.share(a), cores.share(b)) == (2, 1)  # none left; slot 2 never started: idle
    cores.end(b)
    assert cores.share(a) == 3
    assert cores.join() == 2 and cores.join() == -1 and cores.share(-1) == 1  # past the slots: one core
    monkeypatch.setattr(R, "_CORES", (cores, a))
    monkeypatch.setattr(R, "available_cores", lambda: 2)
    assert spare_cores() == 2 and core_share() is spare_cores  # never past the cores allowed
    monkeypatch.setattr(R, "_CORES", None)
    assert spare_cores() == 1 and core_share() is None


def test_a_unit_alone_on_a_pool_gets_its_idle_cores():
    job = Job(W.cores, None)
    alone = run([0], job, workers=2)  # one chunk: the pool starts one process, the other core is idle
    assert alone.results == [{"unit": 0, "cores": min(2, len(os.sched_getaffinity(0))),
                              "pool": True}]
    here = run([0, 1], job, workers=1)  # this process: one core, whatever is idle
    assert [r["cores"] for r in here.results] == [1, 1] and not any(r["pool"] for r in here.results)
    many = run(list(range(4)), job, workers=2)
    # while a chunk is left to start every worker has one core; the last may get the other's
    assert [r["cores"] for r in many.results[:3]] == [1, 1, 1] and many.results[3]["cores"] in (1, 2)


@pytest.mark.parametrize("workers", [1, 2])
def test_a_jobs_finish_sees_each_whole_chunk_once(workers, tmp_path):
    job = Job(W.square, {"offset": 1}, W.setup, finish=W.mark_chunk)
    out = run(UNITS, job, workers=workers, chunk_size=5)
    want = [dict(e, chunk_first=e["unit"] // 5 * 5, chunk_size=min(5, len(UNITS) - e["unit"] // 5 * 5))
            for e in expected()]
    assert out.results == want
    # A folder keeps the finished chunks as `finish` made them, and a rerun reads them back.
    folder = _folder(tmp_path / "f", chunk_size=5)
    assert run(UNITS, job, workers=workers, folder=folder).results == want
    again = run(UNITS, job, workers=workers, folder=_folder(tmp_path / "f", chunk_size=5))
    assert again.results == want and again.computed == 0
