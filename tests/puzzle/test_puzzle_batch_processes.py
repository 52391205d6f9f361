"""`fastsnake puzzle batch FILE` / `solve_processes`: worker processes (spawn), one set of
tables memory-mapped by every worker, per-instance nodes and CPU-s, Ctrl-C keeps the
finished instances."""

import json

import numpy as np
import pytest
from puzzle_naive import bfs_distances, play

from fastsnake.cli import main
from fastsnake.puzzle import PuzzleInputError, random_solvable, solve_processes

GOAL = np.arange(9, dtype=np.int8)


@pytest.fixture(scope="module")
def dist():
    return bfs_distances(GOAL, 3, 3)


def _starts(count, seed):
    rng = np.random.default_rng(seed)
    return [random_solvable(3, 3, GOAL, rng) for _ in range(count)]


def test_cli_batch_json_lengths_optimal_and_replayed(tmp_path, capsys, dist, monkeypatch):
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    starts = _starts(5, 1)
    path = tmp_path / "eight.txt"
    path.write_text("# five 8-puzzles\n" + "\n".join(" ".join(map(str, s)) for s in starts) + "\n\n")
    code = main(["puzzle", "batch", str(path), "--json", "--quiet", "--heuristic", "pdb",
                 "--algorithm", "idastar", "--workers", "2"])
    assert code == 0
    doc = json.loads(capsys.readouterr().out)
    assert [r["line"] for r in doc["results"]] == [2, 3, 4, 5, 6]
    assert len({r["worker"] for r in doc["results"]}) <= 2
    for r, s in zip(doc["results"], starts, strict=True):
        assert r["length"] == dist[tuple(s.tolist())] and r["optimal"]
        assert play(s, r["moves"], 3, 3) == tuple(GOAL.tolist())
        assert r["cpu_seconds"] >= 0 and r["nodes_generated"] >= r["length"]
    assert doc["summary"]["solved"] == 5 and not doc["summary"]["interrupted"]
    assert doc["tables"]["sizes"] == "6-2"


def test_interrupt_keeps_the_finished_instances(tmp_path, monkeypatch, dist):
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    starts = _starts(6, 2)
    seen = []

    def on_result(res):
        seen.append(res)
        raise KeyboardInterrupt  # as Ctrl-C in the parent while it waits for the next one

    out = solve_processes(starts, rows=3, cols=3, heuristic="manhattan", workers=1, on_result=on_result)
    assert out.interrupted and len(out.results) == 1 == len(seen)
    r = out.results[0]
    assert r["length"] == dist[tuple(starts[r["index"]].tolist())]


def test_bad_batches_are_refused_before_any_worker(tmp_path, capsys):
    with pytest.raises(PuzzleInputError, match="instance 2: not solvable"):
        solve_processes(["1 0 2 3 4 5 6 7 8", "1 0 2 3 4 5 6 8 7"], rows=3, cols=3)
    with pytest.raises(PuzzleInputError, match="one goal"):
        solve_processes(["1 0 2 3 4 5 6 7 8 ; 1 0 2 3 4 5 6 7 8"], rows=3, cols=3)
    path = tmp_path / "bad.txt"
    path.write_text("1 2 3\n")
    assert main(["puzzle", "batch", str(path)]) == 2
    assert "fastsnake: error:" in capsys.readouterr().err


def test_an_interrupt_the_batch_answers_is_not_raised_again_by_the_cli(tmp_path, monkeypatch, dist):
    """The CLI raises again, at the end of a verb, a signal whose exception the code it interrupted
    swallowed (`signals.raise_if_received`, issue 46); the batch answers its Ctrl-C itself (the
    finished instances printed, exit 130), so it marks the signal answered."""
    import signal

    from fastsnake import cli, signals

    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    previous = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    cli._install_signal_handlers()
    try:
        out = solve_processes(_starts(6, 2), rows=3, cols=3, heuristic="manhattan", workers=1,
                              on_result=lambda res: signal.raise_signal(signal.SIGINT))
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    assert out.interrupted and len(out.results) == 1
    assert signals.signal_received() is None


def test_workers_map_the_cached_sparse_set_file(tmp_path, monkeypatch, dist):
    """A set kept as a sparse file in the cache (6-6-6-6 on 5x5 by size; here `mapped=True`) is
    mapped by the workers from that file, checked as the parent checked it (its stamp)."""
    from fastsnake.puzzle import pdb as P

    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    P.pattern_databases(3, 3, GOAL, "1,2,3,4/5,6,7,8")  # the compact files
    starts = _starts(4, 3)
    out = solve_processes(starts, rows=3, cols=3, heuristic="pdb", algorithm="idastar", workers=2,
                          partition="1,2,3,4/5,6,7,8", mapped=True)
    assert out.tables["mapped"]["file"].startswith(str(tmp_path / "pdb"))
    assert [t["source"] for t in out.tables["tables"]] == ["mapped", "mapped"]
    assert len(out.results) == 4
    for r in out.results:
        s = starts[r["index"]]
        assert r["length"] == dist[tuple(s.tolist())]
        assert play(s, r["moves"], 3, 3) == tuple(GOAL.tolist())


def test_a_worker_whose_set_file_changed_expands_the_compact_tables(tmp_path, monkeypatch):
    """The parent checked the set file; if it is damaged before a worker maps it, the worker
    loads the compact tables itself (same layout) instead of failing its start."""
    from fastsnake.puzzle import batch
    from fastsnake.puzzle import pdb as P
    from fastsnake.puzzle import pdb_store as S

    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    P.pattern_databases(3, 3, GOAL, "1,2,3,4/5,6,7,8")
    pset = P.pattern_databases(3, 3, GOAL, "1,2,3,4/5,6,7,8", mapped=True)
    keys = [P.table_key(3, 3, 0, g) for g in pset.groups]
    sizes = [len(t) for t in pset.tables]
    spec = {"rows": 3, "cols": 3, "blank_cell": 0, "groups": pset.groups, "sizes": sizes,
            "pdb_file": pset.mapped["file"],
            "pdb_set": (keys, sizes, [P.recorded_digest(P.table_path(k), k, 3024) for k in keys])}
    good = np.array(pset.data)
    mapped = batch.worker_tables(spec)
    assert not mapped.flags.writeable and np.array_equal(mapped, good)
    with open(pset.mapped["file"], "r+b") as fh:
        fh.truncate(S.SET_HEADER_BYTES + 100)
    expanded = batch.worker_tables(spec)
    assert expanded.flags.writeable and np.array_equal(expanded, good)
