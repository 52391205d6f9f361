"""Limits of the optimal searches and of pattern databases: node, memory and time limits end
with one line naming the limit (exit 2 on the command line; a time limit exit 3, with what was found),
never an out-of-memory kill."""

import json

import numpy as np
import pytest

from fastsnake.cli import main
from fastsnake.puzzle import PuzzleInputError, solve, solve_many
from fastsnake.puzzle import pdb as P

KORF1 = "14 13 15 7 11 12 9 5 6 0 2 1 4 8 10 3"  # 57 moves


def _error_line(capsys, argv) -> str:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and captured.err.startswith("fastsnake: error: ")
    assert "Traceback" not in captured.err
    return captured.err


def test_cli_node_limit_names_the_limit_and_reduce(capsys):
    err = _error_line(capsys, ["puzzle", "solve", "--size", "4x4", "--start", KORF1, "--algorithm", "idastar",
                               "--heuristic", "manhattan", "--max-nodes", "1000", "--quiet"])
    assert "IDA* + manhattan stopped at its node limit of 1,000 generated nodes" in err
    assert "raise --max-nodes" in err and "--algorithm reduce" in err


def test_cli_memory_budget_stops_astar(capsys):
    err = _error_line(capsys, ["puzzle", "solve", "--start", KORF1, "--algorithm", "astar",
                               "--heuristic", "manhattan", "--memory-budget", "1M", "--quiet"])
    assert "memory budget of 1,048,576 bytes" in err and "--memory-budget" in err


def test_cli_time_limit_exits_3_with_what_was_found(capsys):
    # issue 63: a time limit is not bad input: exit 3, one line, and the search so far on stdout
    assert main(["puzzle", "solve", "--start", KORF1, "--algorithm", "idastar", "--heuristic", "manhattan",
                 "--time-limit", "0.05", "--quiet", "--json"]) == 3
    captured = capsys.readouterr()
    assert captured.err.count("\n") == 1 and "time limit of 0.05 s" in captured.err and "--time-limit" in captured.err
    doc = json.loads(captured.out)
    assert doc["status"] == "time limit reached" and doc["moves"] is None and doc["optimal"] is False
    assert doc["nodes_generated"] > 0 and doc["extra"]["bound"] >= doc["h_start"]


def test_cli_bad_memory_budget(capsys):
    err = _error_line(capsys, ["puzzle", "solve", "--start", "012 345 678", "--memory-budget", "lots"])
    assert "memory budget 'lots' is not a number of bytes" in err


def test_cli_auto_still_falls_back(capsys):
    assert main(["puzzle", "solve", "--start", KORF1, "--heuristic", "manhattan", "--max-nodes", "1000",
                 "--json", "--quiet"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["algorithm"] == "reduce" and "node limit reached" in doc["extra"]["fallback"]
    assert {"seconds", "compile_seconds", "setup_seconds"} <= set(doc)


def test_cli_text_reports_search_time_apart(capsys):
    assert main(["puzzle", "solve", "--start", "012 345 678", "--goal", "806 547 231", "--quiet"]) == 0
    assert "s search" in capsys.readouterr().out


def test_batch_keeps_limit_errors_per_line(capsys, tmp_path):
    batch = tmp_path / "b.txt"
    batch.write_text(f"1 0 2 3 4 5 6 7 8 9 10 11 12 13 14 15\n{KORF1}\n")
    assert main(["puzzle", "solve", "--batch", str(batch), "--algorithm", "idastar", "--heuristic",
                 "manhattan", "--max-nodes", "1000", "--json", "--quiet"]) == 2
    captured = capsys.readouterr()
    docs = json.loads(captured.out)
    assert docs[0]["length"] == 1 and "node limit of 1,000" in docs[1]["error"]
    assert "1 bad line" in captured.err and captured.err.count("\n") == 1
    kept = solve_many(["1 0 2 3 4 5 6 7 8 9 10 11 12 13 14 15", KORF1], algorithm="idastar",
                      heuristic="manhattan", max_nodes=1000, errors="keep")
    assert kept[0].length == 1 and kept[1].limit == "nodes" and str(kept[1]).startswith("instance 2:")


def test_pdb_budget_refused_up_front(tmp_path, monkeypatch):
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))  # nothing cached: every group is built
    groups = P.parse_partition("7-8", 4, 4, np.arange(16))
    # 7-8: the tables are built one at a time, then loaded: the most at once is the 8-tile table
    # (518,918,400 bytes) and its BFS (1,556,755,200), beside what the process holds (fixed here).
    monkeypatch.setattr(P, "resident_bytes", lambda: 50_000_000)
    assert P.check_budget(4, 4, groups, "7-8", budget=3 << 30) == 50_000_000 + 4 * 518_918_400
    with pytest.raises(P.PdbMemoryError, match=r"building them needs 2,125,673,600 bytes \(50,000,000 this process "
                                               r"holds already\), over the memory budget of 2,000,000,000 bytes"):
        P.check_budget(4, 4, groups, "7-8", budget=2_000_000_000)
    # Cached: loading them needs the two compact tables in memory.
    assert P.check_budget(4, 4, groups, "7-8", cached={0, 1}) == 50_000_000 + 576_576_000
    monkeypatch.setenv("FASTSNAKE_MEMORY_BUDGET", "100k")
    with pytest.raises(PuzzleInputError, match="over the memory budget of 102,400 bytes"):
        solve(KORF1, algorithm="idastar", heuristic="pdb", partition="5-5-5")
    assert not list(tmp_path.rglob("pdb-*.bin"))  # refused before any build (a move automaton may be cached)


def test_cli_pdb_budget_error(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    err = _error_line(capsys, ["puzzle", "solve", "--start", KORF1, "--heuristic", "pdb", "--partition", "7-8",
                               "--memory-budget", "1G", "--quiet"])
    assert "pattern databases 7-8 on 4x4" in err and "1,073,741,824 bytes" in err
