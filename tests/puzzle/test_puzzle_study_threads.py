"""A study's IDA* searches on the cores its idle workers leave (`fastsnake.runs.spare_cores`, issue 62):
the row's ``threads`` says how many searched it, and every other column but the CPU-seconds is the
one-thread search's (issue 61: the rows are the same whatever the workers).

The quick tests search 3x3 boards with Manhattan in this process (the kernels the suite compiles
anyway), the cores handed out by a stand-in for the pool's share and every iteration split; the one
on a real pool solves one easy 15-puzzle (Korf's #16 with Manhattan: 6.8 M nodes, a tenth of a
CPU-second) on one spawned worker of two, which leaves the other core to its search."""

import pyarrow.parquet as pq
import pytest

from fastsnake import puzzle as P
from fastsnake import runs
from fastsnake.cli import main
from fastsnake.puzzle import ida_parallel as IP
from fastsnake.puzzle.study import LATER_COLUMNS, MEASURED_COLUMNS, ROW_COLUMNS
from fastsnake.study.rows import read_rows, write_rows


def _same(rows):
    """The rows but what may differ between two runs of one study (CPU, threads, run id)."""
    return [{k: v for k, v in r.items() if k not in MEASURED_COLUMNS} for r in rows]


@pytest.fixture
def two_cores(monkeypatch):
    """This process's searches handed 2 threads at every iteration (as a pool worker whose neighbour
    is idle), every iteration split however small (a few packets a thread)."""
    asked = []

    def share():
        asked.append(2)
        return 2

    monkeypatch.setattr(runs, "core_share", lambda: share)
    monkeypatch.setattr(IP, "PARALLEL_MIN_NODES", 0)
    monkeypatch.setattr(IP, "PACKETS_PER_THREAD", 4)
    return asked


def test_a_threaded_search_gives_the_rows_of_one_thread_but_cpu_and_threads(two_cores):
    instances = P.load_instances("random", rows=3, cols=3, count=6, seed=62)
    threaded = P.run_study(instances, ["manhattan"], "idastar", admissibility_samples=0)
    assert two_cores, "the search never asked how many cores it may use"
    assert {r["threads"] for r in threaded.rows} == {2}  # every search split (PARALLEL_MIN_NODES = 0)
    assert all(r["cpu_seconds"] > 0 for r in threaded.rows)
    two_cores.clear()
    astar = P.run_study(instances[:2], ["manhattan"], "astar", admissibility_samples=0)
    assert not two_cores and {r["threads"] for r in astar.rows} == {1}  # A* searches on one thread


def test_the_rows_of_one_thread_are_those_of_two(two_cores, monkeypatch):
    instances = P.load_instances("random", rows=3, cols=3, count=6, seed=62)
    threaded = P.run_study(instances, ["manhattan", "linear-conflict"], "idastar", admissibility_samples=0)
    monkeypatch.setattr(runs, "core_share", lambda: None)  # this process: one core
    plain = P.run_study(instances, ["manhattan", "linear-conflict"], "idastar", admissibility_samples=0)
    assert {r["threads"] for r in plain.rows} == {1} and {r["threads"] for r in threaded.rows} == {2}
    assert _same(threaded.rows) == _same(plain.rows) and len(plain.rows) == 12
    assert all(r["status"] == "solved" and r["moves"] for r in plain.rows)


def test_a_threaded_search_stopped_by_a_node_limit_gives_the_serial_row(two_cores, monkeypatch):
    """Threads stopped at the node limit have not searched the serial search's first nodes: the row
    is the serial search's (searched again on one thread), at the study's limit or at a stop."""
    instances = P.load_instances("random", rows=3, cols=3, count=8, seed=9)
    caps = {("linear-conflict", i.id): 120 + 40 * k for k, i in enumerate(instances)}
    kw = dict(max_nodes=600, admissibility_samples=0, node_caps=caps)
    threaded = P.run_study(instances, ["manhattan", "linear-conflict"], "idastar", **kw)
    monkeypatch.setattr(runs, "core_share", lambda: None)
    plain = P.run_study(instances, ["manhattan", "linear-conflict"], "idastar", **kw)
    statuses = {r["status"] for r in plain.rows}
    assert {"node limit reached", P.study.STOP_STATUS} <= statuses  # both kinds of stop are played
    assert _same(threaded.rows) == _same(plain.rows)
    # a stopped search's row is the serial search's (and so is a search the threads' limit stopped,
    # which one thread solves within it)
    assert all(r["threads"] == 1 for r in threaded.rows if r["status"] != "solved")
    assert any(r["threads"] == 2 for r in threaded.rows)


def test_a_study_of_one_instance_on_two_workers_searches_it_on_two_threads():
    if runs.available_cores() < 2:
        pytest.skip("this process may use one core")
    korf16 = [i for i in P.load_instances("korf100") if i.id == "16"]
    here = P.run_study(korf16, ["manhattan"], "idastar", workers=1)
    pool = P.run_study(korf16, ["manhattan"], "idastar", workers=2)
    assert pool.run_outcome.workers == 2 and here.rows[0]["threads"] == 1
    # one chunk: the pool starts one process, and its search takes the idle worker's core too
    assert pool.rows[0]["threads"] == 2
    assert _same(pool.rows) == _same(here.rows)
    assert (pool.rows[0]["length"], pool.rows[0]["nodes_generated"]) == (42, here.rows[0]["nodes_generated"])
    assert pool.rows[0]["moves"] == here.rows[0]["moves"] and pool.rows[0]["status"] == "solved"


def test_rows_say_a_thread_count_that_can_be(two_cores, tmp_path):
    instances = P.load_instances("random", rows=3, cols=3, count=3, seed=5)
    study = P.run_study(instances, ["manhattan"], "idastar", admissibility_samples=0)
    assert P.study.row_problems(study.rows) == []
    for bad, said in ((0, "threads 0 is not a whole number >= 1"), (1.5, "threads 1.5 is not"),
                      (None, "threads None is not")):
        rows = [dict(study.rows[0], threads=bad), *study.rows[1:]]
        assert any(said in p for p in P.study.row_problems(rows)), bad
    astar = [dict(r, algorithm="astar") for r in study.rows]
    assert any("2 threads, but only IDA* searches on several" in p for p in P.study.row_problems(astar))
    # written, read back, verified: the column is kept
    path = write_rows(P.rows_table(study.rows), str(tmp_path / "rows.parquet"), P.study_meta(study, "random"))
    assert pq.read_table(path).column("threads").to_pylist() == [2, 2, 2]
    assert P.verify_study(path)["ok"]


def test_a_rows_file_without_threads_still_reads(capsys, tmp_path):
    """A file of a fastsnake before the column (every search then on one thread): verified, a
    baseline, a report, as before."""
    assert "threads" in ROW_COLUMNS and "threads" in LATER_COLUMNS and "threads" in MEASURED_COLUMNS
    argv = ["--size", "3", "--count", "4", "--seed", "7", "--heuristics", "manhattan,linear-conflict"]
    new = tmp_path / "new.parquet"
    assert main(["puzzle", "compare", *argv, "--out", str(new), "--quiet"]) == 0
    meta, table = read_rows(str(new))
    old = write_rows(table.drop_columns(["threads"]), str(tmp_path / "old.parquet"),
                     {k: v for k, v in meta.items() if k not in ("format", "checksum")})
    assert "threads" not in pq.read_schema(old).names
    assert P.verify_study(old)["ok"]
    assert main(["verify", old]) == 0
    assert main(["puzzle", "compare", *argv, "--baseline-from", old, "--quiet"]) == 0
    assert main(["report", old, "--out", str(tmp_path / "old.html")]) == 0
    capsys.readouterr()


def test_one_and_two_workers_give_the_same_rows_but_cpu_and_threads(tmp_path):
    """Korf's #16 last (no published counts in a file: the chunks start as listed), so the tail of the
    run on two workers is a search big enough to split when the other worker is idle by then."""
    korf = {i.id: i for i in P.load_instances("korf100")}
    listed = tmp_path / "two.txt"
    listed.write_text("".join(" ".join(map(str, korf[k].start)) + "\n" for k in ("79", "16")))
    instances = P.load_instances(str(listed))
    names = ["manhattan", "linear-conflict"]
    one = P.run_study(instances, names, "idastar", workers=1)
    two = P.run_study(instances, names, "idastar", workers=2)
    assert _same(one.rows) == _same(two.rows) and len(one.rows) == 4
    assert [r["length"] for r in one.rows] == [42, 42, 42, 42]
    assert {r["threads"] for r in one.rows} == {1} and {r["threads"] for r in two.rows} <= {1, 2}
