"""Bad input everywhere (issue 18, item 5): one table, one row per bad input.

Every row is a bad input to a CLI verb or a public function, with the fragment of
the message it must give. A CLI row must end with exactly one line on stderr,
`fastsnake: error: ...` containing the fragment, and exit code 2 (run in-process
through `fastsnake.cli.main`). A library row must raise `fastsnake.InputError`
(a `ValueError`) whose message contains the fragment. Neither may leak a
traceback or a library's own hint (e.g. numpy's "allow_pickle"), and no row may
leave its output file behind looking complete.

File fixtures (`F`): foreign, truncated and garbage versions of every file kind
fastsnake reads (replays .npz, sweep .parquet, puzzle solutions .json, tour and
reach .npz/.json), plus `blocker`, a regular file to put output paths under.
"""

from __future__ import annotations

import errno
import json
import os
import shutil
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest

GOLDEN_REPLAY = Path(__file__).resolve().parent / "viewer" / "golden" / "greedy10.npz"

# Messages of libraries that must never reach the user as-is.
LEAKS = ("allow_pickle", "Traceback", "internal error", "pyarrow.lib", "numpy.", "zipfile", "ValueError")


@pytest.fixture(scope="module")
def F(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    import pyarrow as pa
    import pyarrow.parquet as pq

    f = SimpleNamespace(dir=d)
    f.blocker = d / "blocker"
    f.blocker.write_text("a regular file, not a folder\n")
    f.under_blocker = f.blocker / "out"  # any path under a regular file is unwritable

    f.text = d / "notes.txt"
    f.text.write_text("hello, I am not a fastsnake file\n")
    f.empty = d / "empty.npz"
    f.empty.write_bytes(b"")
    f.missing = d / "missing.npz"

    # .npz files from another program / tampered / cut short
    f.foreign_npz = d / "foreign.npz"
    np.savez(f.foreign_npz, weights=np.arange(10.0))
    f.pickled_npz = d / "pickled.npz"
    np.savez(f.pickled_npz, meta=np.array([{"format": "x"}], dtype=object), path=np.array([{}], dtype=object))
    f.pickle_as_npz = d / "pickle_as.npz"  # a Python pickle under an .npz name
    f.pickle_as_npz.write_bytes(__import__("pickle").dumps({"format": "fastsnake-replay/1"}))
    f.object_meta_npz = d / "object_meta.npz"  # a real .npz whose header is a pickled object
    np.savez(f.object_meta_npz, meta=np.array([{"format": "fastsnake-tour/1"}], dtype=object))
    f.bad_meta_npz = d / "bad_meta.npz"  # a header that is not JSON
    np.savez(f.bad_meta_npz, meta=np.array("{not json"))
    f.garbage_npz = d / "garbage.npz"
    f.garbage_npz.write_bytes(b"PK\x03\x04" + os.urandom(200))
    real = GOLDEN_REPLAY.read_bytes()
    f.truncated_replay = d / "truncated_replay.npz"
    f.truncated_replay.write_bytes(real[: len(real) // 2])

    # Parquet files from another program / cut short / not Parquet at all
    f.foreign_parquet = d / "foreign.parquet"
    pq.write_table(pa.table({"price": [1.5, 2.5], "ticker": ["A", "B"]}), f.foreign_parquet)
    good = d / "good.parquet"
    pq.write_table(pa.table({"game": np.arange(100, dtype=np.int64), "moves": np.arange(100, dtype=np.int64)}), good)
    raw = good.read_bytes()
    f.truncated_parquet = d / "truncated.parquet"
    f.truncated_parquet.write_bytes(raw[: len(raw) // 2])
    f.text_parquet = d / "text.parquet"
    from fastsnake.study.rows import write_rows

    f.study = Path(write_rows(pa.table({"instance_id": ["0"]}), str(d / "study.parquet"),
                              {"kind": "puzzle", "run_id": "0123456789abcdef"}))  # a study file's footer
    f.text_parquet.write_text("game,moves\n1,2\n")

    # puzzle solution files
    f.sol_foreign = d / "sol_foreign.json"
    f.sol_foreign.write_text(json.dumps({"format": "someone-else/3", "rows": 3, "cols": 3}))
    sol = {"format": "fastsnake-puzzle/1", "rows": 2, "cols": 2, "start": [1, 0, 2, 3], "goal": [0, 1, 2, 3],
           "moves": "L", "length": 1}
    f.sol_wrong = d / "sol_wrong.json"
    f.sol_wrong.write_text(json.dumps(dict(sol, moves="U")))  # an illegal move from that start
    f.sol_truncated = d / "sol_truncated.json"
    f.sol_truncated.write_text(json.dumps(sol)[:30])
    f.sol_list = d / "sol_list.json"
    f.sol_list.write_text("[1, 2, 3]\n")

    # tour / reach files
    tour = {"format": "fastsnake-tour/1", "rows": 5, "cols": 5, "start": 0, "closed": False, "found": True,
            "exists": True, "method": "search", "reason": None, "jumps": [[1, 2]], "directed": False,
            "piece": "knight", "path": list(range(25))}  # 0,1,2,... is no knight tour
    f.tour_wrong = d / "tour_wrong.json"
    f.tour_wrong.write_text(json.dumps(tour))
    f.tour_truncated = d / "tour_truncated.json"
    f.tour_truncated.write_text(json.dumps(tour)[:40])
    f.tour_foreign = d / "tour_foreign.json"
    f.tour_foreign.write_text(json.dumps(dict(tour, format="gpx/1.1")))
    f.reach_board = d / "reach_board.json"
    f.reach_board.write_text(json.dumps({"format": "fastsnake-reach/1", "rows": 0, "cols": 5, "start": 0,
                                          "jumps": [[1, 2]], "n": 1, "walk": False, "cells": []}))
    f.npy_as_npz = d / "npy_as.npz"  # a bare .npy array under an .npz name
    with open(f.npy_as_npz, "wb") as out:
        np.save(out, np.arange(5))
    f.tour_npz_foreign = d / "tour_foreign.npz"
    shutil.copy(f.foreign_npz, f.tour_npz_foreign)
    _issue37_files(f, d)
    return f


def _folder_with_bad_chunk(f):
    """A finished two-chunk sweep folder whose second chunk was overwritten by garbage."""
    folder = f.dir / "bad-chunk-sweep"
    if not folder.exists():
        from fastsnake import sweep

        sweep("cycle", 4, 20, out=str(folder), chunk_size=10, threads=1)
        chunk = sorted(folder.glob("chunk-*.parquet"))[-1]
        chunk.write_bytes(b"PAR1" + os.urandom(64))
    return folder


def _enospc(*args, **kwargs):
    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))


_P4 = "1 2 3 0 4 5 6 7 8 9 10 11 12 13 14 15"  # a solvable 4x4 start

# --- the table --------------------------------------------------------------------------------------
# (id, argv or callable(F), expected fragment, output path (a function of F) that must not be left behind)
# A list argv is a CLI row; a callable is a library row. Fragments are matched case-insensitively.

CLI = [
    # sizes, numbers, options
    ("sweep-size-letters", lambda f: ["sweep", "--policy", "cycle", "--size", "ten", "--games", "10"], "ten", None),
    ("sweep-size-zero", lambda f: ["sweep", "--policy", "cycle", "--size", "0", "--games", "10"], "size", None),
    ("sweep-size-huge", lambda f: ["sweep", "--policy", "cycle", "--size", "100000", "--games", "10"], "size", None),
    ("sweep-size-3d", lambda f: ["sweep", "--policy", "cycle", "--size", "4x4x4", "--games", "10"], "4x4x4", None),
    ("sweep-games-zero", lambda f: ["sweep", "--policy", "cycle", "--size", "6", "--games", "0"], "games", None),
    ("sweep-games-negative", lambda f: ["sweep", "--policy", "cycle", "--size", "6", "--games", "-5"], "games", None),
    ("sweep-games-float", lambda f: ["sweep", "--policy", "cycle", "--size", "6", "--games", "1.5e0"], "1.5e0", None),
    ("sweep-unknown-policy", lambda f: ["sweep", "--policy", "nosuch", "--size", "6", "--games", "10"], "nosuch", None),
    ("sweep-unknown-option", lambda f: ["sweep", "--policy", "cycle", "--size", "6", "--games", "10", "--fast"],
     "--fast", None),
    ("sweep-no-size", lambda f: ["sweep", "--policy", "cycle", "--games", "10"], "--size", None),
    ("sweep-start-length-too-long", lambda f: ["sweep", "--policy", "cycle", "--size", "4", "--games", "10",
                                               "--start-length", "99"], "start", None),
    ("sweep-threads-zero", lambda f: ["sweep", "--policy", "cycle", "--size", "6", "--games", "10",
                                      "--threads", "0"], "threads", None),
    ("sweep-bad-opt", lambda f: ["sweep", "--policy", "cycle", "--size", "6", "--games", "10", "--opt", "noequals"],
     "KEY=VALUE", None),
    ("sweep-out-under-file", lambda f: ["sweep", "--policy", "cycle", "--size", "6", "--games", "10",
                                        "--out", str(f.under_blocker) + ".parquet"], "blocker' is a file, not a folder",
     lambda f: Path(str(f.under_blocker) + ".parquet")),
    ("sweep-folder-under-file", lambda f: ["sweep", "--policy", "cycle", "--size", "6", "--games", "10",
                                           "--out", str(f.under_blocker)], "blocker' is a file, not a folder",
     lambda f: f.under_blocker),
    ("sweep-out-deep-under-file", lambda f: ["sweep", "--policy", "cycle", "--size", "6", "--games", "10",
                                             "--out", str(f.under_blocker / "a" / "b.parquet")],
     "blocker' is a file, not a folder", None),
    ("sweep-out-folder-missing", lambda f: ["sweep", "--policy", "cycle", "--size", "6", "--games", "10",
                                            "--out", str(f.dir / "nowhere" / "s.parquet")], "does not exist", None),
    ("sweep-plot-under-file", lambda f: ["sweep", "--policy", "cycle", "--size", "6", "--games", "10",
                                         "--plot", str(f.under_blocker) + ".png"], "is a file, not a folder", None),
    ("sweep-resume-not-a-sweep", lambda f: ["sweep", "--resume", str(f.dir)], "", None),
    ("sweep-resume-a-file", lambda f: ["sweep", "--resume", str(f.text)], "", None),
    ("play-size-negative", lambda f: ["play", "--policy", "cycle", "--size", "-3"], "-3", None),
    ("play-seed-negative", lambda f: ["play", "--policy", "cycle", "--size", "6", "--seed", "-1"], "-1", None),
    ("play-max-moves-zero", lambda f: ["play", "--policy", "cycle", "--size", "6", "--max-moves", "0"],
     "max", None),
    ("play-tail-unknown", lambda f: ["play", "--policy", "cycle", "--size", "6", "--tail", "eat"], "eat", None),
    ("play-replay-under-file", lambda f: ["play", "--policy", "cycle", "--size", "6",
                                          "--replay", str(f.under_blocker) + ".npz"], "is a file, not a folder",
     lambda f: Path(str(f.under_blocker) + ".npz")),
    ("compare-unknown-policy", lambda f: ["compare", "--policies", "cycle,nosuch", "--size", "6", "--games", "5"],
     "nosuch", None),
    ("compare-out-under-file", lambda f: ["compare", "--policies", "cycle", "--size", "6", "--games", "5",
                                          "--out", str(f.under_blocker) + ".parquet"], "is a file, not a folder",
     None),
    ("replay-check-foreign-npz", lambda f: ["replay", "--check", str(f.foreign_npz)], "foreign.npz", None),
    ("replay-check-pickled-npz", lambda f: ["replay", "--check", str(f.pickled_npz)], "pickled.npz", None),
    ("replay-check-truncated", lambda f: ["replay", "--check", str(f.truncated_replay)], "truncated_replay", None),
    ("replay-check-garbage", lambda f: ["replay", "--check", str(f.garbage_npz)], "garbage.npz", None),
    ("replay-check-empty", lambda f: ["replay", "--check", str(f.empty)], "empty.npz", None),
    ("replay-check-missing", lambda f: ["replay", "--check", str(f.missing)], "missing.npz", None),
    ("replay-check-text", lambda f: ["replay", "--check", str(f.text)], "notes.txt", None),
    ("replay-check-npy-as-npz", lambda f: ["replay", "--check", str(f.npy_as_npz)], "npy_as.npz", None),
    ("replay-from-folder-bad-chunk", lambda f: ["replay", "--from", str(_folder_with_bad_chunk(f)),
                                                "--pick", "0", "--out", str(f.dir / "r-chunk.npz")],
     "chunk-", lambda f: f.dir / "r-chunk.npz"),
    ("replay-from-foreign-parquet", lambda f: ["replay", "--from", str(f.foreign_parquet),
                                               "--out", str(f.dir / "r1.npz")], "foreign.parquet",
     lambda f: f.dir / "r1.npz"),
    ("replay-from-truncated-parquet", lambda f: ["replay", "--from", str(f.truncated_parquet),
                                                 "--out", str(f.dir / "r2.npz")], "truncated.parquet",
     lambda f: f.dir / "r2.npz"),
    ("replay-from-text-parquet", lambda f: ["replay", "--from", str(f.text_parquet),
                                            "--out", str(f.dir / "r3.npz")], "text.parquet",
     lambda f: f.dir / "r3.npz"),
    ("replay-from-truncated-parquet-short", lambda f: ["replay", "--from", str(f.truncated_parquet),
                                                       "--out", str(f.dir / "r5.npz")], "not a readable Parquet file",
     lambda f: f.dir / "r5.npz"),
    ("replay-out-under-file", lambda f: ["replay", "--from", str(f.foreign_parquet),
                                         "--out", str(f.under_blocker) + ".npz"], "is a file, not a folder", None),
    ("replay-from-no-out", lambda f: ["replay", "--from", str(f.foreign_parquet)], "--out", None),
    ("replay-bad-pick", lambda f: ["replay", "--from", str(f.foreign_parquet), "--pick", "best",
                                   "--out", str(f.dir / "r4.npz")], "", lambda f: f.dir / "r4.npz"),
    ("policies-unknown-option", lambda f: ["policies", "--all"], "--all", None),
    ("unknown-verb", lambda f: ["solve"], "solve", None),
    ("puzzle-solve-size-1x1", lambda f: ["puzzle", "solve", "--size", "1x1", "--start", "0"], "", None),
    ("puzzle-solve-not-permutation", lambda f: ["puzzle", "solve", "--size", "2x2", "--start", "0 1 1 3"], "", None),
    ("puzzle-solve-wrong-count", lambda f: ["puzzle", "solve", "--size", "3x3", "--start", "0 1 2"], "", None),
    ("puzzle-solve-tile-out-of-range", lambda f: ["puzzle", "solve", "--size", "2x2", "--start", "0 1 2 9"],
     "9", None),
    ("puzzle-solve-too-big-optimal", lambda f: ["puzzle", "solve", "--size", "101x101", "--start", "random"],
     "", None),
    # item 3: a partition that does not cover exactly the board's tiles is refused, never replaced
    ("puzzle-solve-partition-too-few", lambda f: ["puzzle", "solve", "--size", "4x4", "--start", _P4,
                                                  "--heuristic", "pdb", "--partition", "5-5"],
     "does not cover the 15 tiles", None),
    ("puzzle-solve-partition-too-many", lambda f: ["puzzle", "solve", "--size", "4x4", "--start", _P4,
                                                   "--heuristic", "pdb", "--partition", "8-8"],
     "does not cover the 15 tiles", None),
    ("puzzle-solve-partition-overlap", lambda f: ["puzzle", "solve", "--size", "4x4", "--start", _P4,
                                                  "--heuristic", "pdb", "--partition",
                                                  "1,2,3,4,5,6,7,8/8,9,10,11,12,13,14,15"], "exactly once", None),
    ("puzzle-solve-partition-group-too-big", lambda f: ["puzzle", "solve", "--size", "4x4", "--start", _P4,
                                                        "--heuristic", "pdb", "--partition", "12-3"],
     "too large", None),
    ("puzzle-solve-max-nodes-zero", lambda f: ["puzzle", "solve", "--size", "3x3", "--start", "random",
                                               "--max-nodes", "0"], "", None),
    ("puzzle-solve-save-under-file", lambda f: ["puzzle", "solve", "--size", "2x2", "--start", "1 0 2 3",
                                                "--save", str(f.under_blocker) + ".json"], "",
     lambda f: Path(str(f.under_blocker) + ".json")),
    ("puzzle-solve-batch-missing", lambda f: ["puzzle", "solve", "--size", "3x3", "--batch", str(f.missing)],
     "missing", None),
    ("puzzle-solve-threads-zero", lambda f: ["puzzle", "solve", "--start", "806 547 231", "--threads", "0"],
     "threads", None),
    ("puzzle-solve-threads-past-cores", lambda f: ["puzzle", "solve", "--start", "806 547 231", "--threads",
                                                   "100000"], "cores", None),
    ("puzzle-solve-threads-astar", lambda f: ["puzzle", "solve", "--start", "806 547 231", "--threads", "2",
                                              "--algorithm", "astar"], "only IDA*", None),
    ("puzzle-check-foreign", lambda f: ["puzzle", "check", str(f.sol_foreign)], "someone-else", None),
    ("puzzle-check-wrong-moves", lambda f: ["puzzle", "check", str(f.sol_wrong)], "", None),
    ("puzzle-check-truncated", lambda f: ["puzzle", "check", str(f.sol_truncated)], "sol_truncated", None),
    ("puzzle-check-list", lambda f: ["puzzle", "check", str(f.sol_list)], "sol_list", None),
    ("puzzle-check-npz", lambda f: ["puzzle", "check", str(f.foreign_npz)], "foreign.npz", None),
    ("puzzle-random-count-zero", lambda f: ["puzzle", "random", "--size", "3x3", "--count", "0"], "", None),
    ("puzzle-compare-unknown-heuristic", lambda f: ["puzzle", "compare", "--size", "3x3", "--heuristics",
                                                    "magic"], "magic", None),
    ("puzzle-compare-stop-at-alone", lambda f: ["puzzle", "compare", "--size", "3x3", "--stop-at", "5"],
     "--baseline-from", None),
    ("puzzle-compare-stop-at-negative", lambda f: ["puzzle", "compare", "--size", "3x3", "--stop-at", "-1"],
     "-1", None),
    ("puzzle-compare-require-all-alone", lambda f: ["puzzle", "compare", "--size", "3x3", "--require-all"],
     "--baseline-from", None),
    ("tour-compare-require-all-alone", lambda f: ["tour", "compare", "--size", "5", "--require-all"],
     "--baseline-from", None),
    ("compare-require-all-alone", lambda f: ["compare", "--size", "6", "--games", "10", "--policies", "cycle",
                                             "--require-all"], "baseline", None),
    ("verify-study-repair", lambda f: ["verify", str(f.study), "--repair"], "--repair", None),
    ("tour-size-bad", lambda f: ["tour", "--size", "5by5"], "5by5", None),
    ("tour-size-too-big", lambda f: ["tour", "--size", "5000x5000"], "", None),
    ("tour-piece-bad", lambda f: ["tour", "--size", "5", "--piece", "1;2"], "1;2", None),
    ("tour-piece-zero", lambda f: ["tour", "--size", "5", "--piece", "0,0"], "", None),
    ("tour-start-off-board", lambda f: ["tour", "--size", "5", "--piece", "1,2", "--start", "9,9"], "9,9", None),
    ("tour-start-chess-off", lambda f: ["tour", "--size", "5", "--piece", "1,2", "--start", "z9"], "z9", None),
    ("tour-time-limit-negative", lambda f: ["tour", "--size", "5", "--piece", "1,2", "--time-limit", "-1"], "", None),
    ("tour-save-extension", lambda f: ["tour", "--size", "5", "--piece", "1,2", "--save", str(f.dir / "t.csv")], ".npz",
     lambda f: f.dir / "t.csv"),
    ("tour-save-under-file",
     lambda f: ["tour", "--size", "5", "--piece", "1,2", "--save", str(f.under_blocker) + ".json"], "",
     lambda f: Path(str(f.under_blocker) + ".json")),
    ("reach-jumps-negative", lambda f: ["reach", "--size", "5", "--jumps", "-1"], "", None),
    ("reach-no-jumps", lambda f: ["reach", "--size", "5"], "--jumps", None),
    ("reach-moves-bad", lambda f: ["reach", "--size", "5", "--moves", "a,b", "--jumps", "2"], "a,b", None),
    ("view-foreign-npz", lambda f: ["view", str(f.foreign_npz), "--export", str(f.dir / "v1.gif")],
     "foreign.npz", lambda f: f.dir / "v1.gif"),
    ("view-pickled-npz", lambda f: ["view", str(f.pickled_npz), "--export", str(f.dir / "v2.gif")],
     "pickled.npz", lambda f: f.dir / "v2.gif"),
    ("view-pickle-as-npz", lambda f: ["view", str(f.pickle_as_npz), "--export", str(f.dir / "v9.gif")],
     "pickle_as.npz", lambda f: f.dir / "v9.gif"),
    ("view-object-meta-npz", lambda f: ["view", str(f.object_meta_npz), "--export", str(f.dir / "v10.gif")],
     "pickled python objects", lambda f: f.dir / "v10.gif"),
    ("view-bad-meta-npz", lambda f: ["view", str(f.bad_meta_npz), "--export", str(f.dir / "v11.gif")],
     "not valid JSON", lambda f: f.dir / "v11.gif"),
    ("replay-check-pickle-as-npz", lambda f: ["replay", "--check", str(f.pickle_as_npz)], "pickle_as.npz", None),
    ("replay-check-object-meta-npz", lambda f: ["replay", "--check", str(f.object_meta_npz)], "object_meta.npz",
     None),
    ("view-truncated-replay", lambda f: ["view", str(f.truncated_replay), "--export", str(f.dir / "v3.gif")],
     "truncated_replay", lambda f: f.dir / "v3.gif"),
    ("view-text", lambda f: ["view", str(f.text), "--export", str(f.dir / "v4.gif")], "notes.txt",
     lambda f: f.dir / "v4.gif"),
    ("view-wrong-tour", lambda f: ["view", str(f.tour_wrong), "--export", str(f.dir / "v5.gif")], "tour_wrong",
     lambda f: f.dir / "v5.gif"),
    ("view-truncated-tour", lambda f: ["view", str(f.tour_truncated), "--export", str(f.dir / "v6.gif")],
     "tour_truncated", lambda f: f.dir / "v6.gif"),
    ("view-foreign-tour", lambda f: ["view", str(f.tour_foreign), "--export", str(f.dir / "v7.gif")],
     "tour_foreign", lambda f: f.dir / "v7.gif"),
    ("view-reach-bad-board", lambda f: ["view", str(f.reach_board), "--export", str(f.dir / "v8.gif")],
     "reach_board", lambda f: f.dir / "v8.gif"),
    ("view-missing", lambda f: ["view", str(f.missing)], "missing.npz", None),
    ("view-speed-zero", lambda f: ["view", str(GOLDEN_REPLAY), "--speed", "0"], "speed", None),
    ("view-export-under-file", lambda f: ["view", str(GOLDEN_REPLAY), "--export",
                                          str(f.under_blocker) + ".gif"], "is a file, not a folder",
     lambda f: Path(str(f.under_blocker) + ".gif")),
    ("view-export-frames-under-file", lambda f: ["view", str(GOLDEN_REPLAY), "--export",
                                                 str(f.under_blocker / "frames") + "/"], "is a file, not a folder",
     lambda f: f.under_blocker / "frames"),
    ("view-unknown-option", lambda f: ["view", str(GOLDEN_REPLAY), "--fps", "30"], "see 'fastsnake view --help'",
     None),
    ("sweep-unknown-option-names-verb-help", lambda f: ["sweep", "--bogus"],
     "unrecognized arguments: --bogus (see 'fastsnake sweep --help')", None),
    # kernel bundles (more in tests/warm/test_bundle.py: versions, CPUs, sources, tampering)
    ("warm-import-text", lambda f: ["warm", "--import", str(f.text)], "notes.txt' is damaged or no kernel bundle",
     None),
    ("warm-import-npz", lambda f: ["warm", "--import", str(f.foreign_npz)], "has no bundle.json", None),
    ("warm-import-missing", lambda f: ["warm", "--import", str(f.missing)], "does not exist", None),
    ("warm-import-folder", lambda f: ["warm", "--import", str(f.dir)], "is a folder", None),
    ("warm-export-under-file", lambda f: ["warm", "--export", str(f.under_blocker) + ".kernels"],
     "blocker' is a file, not a folder", lambda f: Path(str(f.under_blocker) + ".kernels")),
]


def _lib(name):
    import importlib

    module, _, attr = name.rpartition(".")
    return getattr(importlib.import_module(module), attr)


LIB = [
    ("lib-sweep-size-str", lambda f: _lib("fastsnake.sweep")("cycle", "ten", 10), "ten", None),
    ("lib-sweep-games-zero", lambda f: _lib("fastsnake.sweep")("cycle", 6, 0), "games", None),
    ("lib-sweep-games-float", lambda f: _lib("fastsnake.sweep")("cycle", 6, 2.5), "games", None),
    ("lib-sweep-unknown-policy", lambda f: _lib("fastsnake.sweep")("nosuch", 6, 10), "nosuch", None),
    ("lib-sweep-unknown-option", lambda f: _lib("fastsnake.sweep")("cycle", 6, 10, turbo=True), "turbo", None),
    ("lib-sweep-tail", lambda f: _lib("fastsnake.sweep")("cycle", 6, 10, tail="eat"), "eat", None),
    ("lib-sweep-out-under-file", lambda f: _lib("fastsnake.sweep")("cycle", 6, 10,
                                                                   out=str(f.under_blocker) + ".parquet"),
     "is a file, not a folder", None),
    ("lib-sweep-folder-under-file", lambda f: _lib("fastsnake.sweep")("cycle", 6, 10, out=str(f.under_blocker)),
     "is a file, not a folder", None),
    ("lib-replay-game-truncated-parquet", lambda f: _lib("fastsnake.replay_game")(f.truncated_parquet, "died"),
     "not a readable Parquet file", None),
    ("lib-load-game-npy-as-npz", lambda f: _lib("fastsnake.load_game")(f.npy_as_npz), "npy_as.npz", None),
    ("lib-play-game-negative", lambda f: _lib("fastsnake.play")("cycle", 6, game=-1), "game", None),
    ("lib-play-seed-negative", lambda f: _lib("fastsnake.play")("cycle", 6, seed=-1), "seed", None),
    ("lib-compare-empty", lambda f: _lib("fastsnake.compare")([], 6, 10), "", None),
    ("lib-load-game-foreign", lambda f: _lib("fastsnake.load_game")(f.foreign_npz), "foreign.npz", None),
    ("lib-load-game-pickled", lambda f: _lib("fastsnake.load_game")(f.pickled_npz), "pickled.npz", None),
    ("lib-replay-game-foreign-parquet", lambda f: _lib("fastsnake.replay_game")(f.foreign_parquet, "died"),
     "foreign.parquet", None),
    ("lib-puzzle-parse-tiles", lambda f: _lib("fastsnake.puzzle.parse_tiles")("0 1 x 3", 2, 2), "", None),
    ("lib-puzzle-solve-short-start", lambda f: _lib("fastsnake.puzzle.solve")([0, 1, 2], rows=2, cols=2), "", None),
    ("lib-puzzle-solve-threads-zero", lambda f: _lib("fastsnake.puzzle.solve")("806 547 231", threads=0),
     "threads 0", None),
    ("lib-puzzle-solve-threads-past-cores", lambda f: _lib("fastsnake.puzzle.solve")("806 547 231", threads=100000),
     "cores", None),
    ("lib-puzzle-solve-bad-algorithm", lambda f: _lib("fastsnake.puzzle.solve")(
        [1, 0, 2, 3], rows=2, cols=2, algorithm="magic"), "magic", None),
    ("lib-puzzle-random-size", lambda f: _lib("fastsnake.puzzle.random_solvable")(
        0, 3, [0, 1, 2], np.random.default_rng(0)), "", None),
    ("lib-puzzle-load-foreign", lambda f: _lib("fastsnake.puzzle.load_solution")(f.sol_foreign), "someone-else",
     None),
    ("lib-puzzle-load-truncated", lambda f: _lib("fastsnake.puzzle.load_solution")(f.sol_truncated),
     "sol_truncated", None),
    ("lib-puzzle-save-under-file", lambda f: _lib("fastsnake.puzzle.save_solution")(
        str(f.under_blocker) + ".json", _lib("fastsnake.puzzle.solve")([1, 0, 2, 3], rows=2, cols=2)), "cannot write",
     lambda f: Path(str(f.under_blocker) + ".json")),
    ("lib-tour-parse-piece", lambda f: _lib("fastsnake.tour.parse_piece")("knightish"), "knightish", None),
    ("lib-tour-parse-square", lambda f: _lib("fastsnake.tour.parse_square")("9,9", 5, 5), "9,9", None),
    ("lib-tour-find-size", lambda f: _lib("fastsnake.tour.find_tour")(_lib("fastsnake.tour.parse_piece")("1,2"),
                                                                      0, 5), "", None),
    ("lib-tour-load-wrong", lambda f: _lib("fastsnake.tour.io.load_tour")(f.tour_wrong), "tour_wrong", None),
    ("lib-tour-load-foreign-npz", lambda f: _lib("fastsnake.tour.io.load_tour")(f.tour_npz_foreign),
     "tour_foreign", None),
    ("lib-tour-load-npy-as-npz", lambda f: _lib("fastsnake.tour.io.load_tour")(f.npy_as_npz), "npy_as.npz", None),
    ("lib-tour-load-pickled-npz", lambda f: _lib("fastsnake.tour.io.load_tour")(f.pickled_npz), "pickled", None),
]


# --- issue 37, item 6: bad input that was reported as our failure (exit 1, "internal error") --------
DEEP = 100_000  # brackets: deeper than Python's JSON parser recurses


def _issue37_files(f, d):
    import zipfile

    from numpy.lib import format as npy

    # a replay whose `moves` declares shape (10**12,) (numpy tried to allocate it: MemoryError)
    f.huge_shape_npz = d / "huge_shape.npz"
    with np.load(GOLDEN_REPLAY) as golden, zipfile.ZipFile(f.huge_shape_npz, "w", zipfile.ZIP_DEFLATED) as z:
        for key in golden.files:
            with z.open(f"{key}.npy", "w") as out:
                if key == "moves":
                    npy.write_array_header_1_0(out, {"descr": "|u1", "fortran_order": False, "shape": (10**12,)})
                else:
                    npy.write_array(out, golden[key], allow_pickle=False)
    # JSON nested 100,000 deep (RecursionError)
    f.sol_deep = d / "sol_deep.json"
    f.sol_deep.write_text("[" * DEEP + "]" * DEEP)
    f.tour_deep = d / "tour_deep.json"
    f.tour_deep.write_text('{"format": "fastsnake-tour/1", "jumps": ' + "[" * DEEP + "]" * DEEP + "}")
    f.tour_deep_npz = d / "tour_deep.npz"
    np.savez(f.tour_deep_npz, meta=np.array('{"format": "fastsnake-tour/1", "x": ' + "[" * 30_000 + "]" * 30_000 + "}"))
    # a path that is not UTF-8 (pyarrow's FileSystem.from_uri: UnicodeEncodeError); Python keeps such
    # bytes of a command line as lone surrogates
    f.not_utf8 = d / "s\udcff.parquet"
    f.not_utf8_folder = d / "d\udcff"


_SWEEP = ["sweep", "--policy", "cycle", "--size", "4", "--games", "10", "--threads", "1"]
CLI += [
    ("replay-check-huge-shape", lambda f: ["replay", "--check", str(f.huge_shape_npz)], "huge_shape.npz", None),
    ("view-huge-shape", lambda f: ["view", str(f.huge_shape_npz), "--export", str(f.dir / "v12.gif")],
     "huge_shape.npz", lambda f: f.dir / "v12.gif"),
    ("puzzle-check-deep-json", lambda f: ["puzzle", "check", str(f.sol_deep)], "sol_deep", None),
    ("view-deep-json", lambda f: ["view", str(f.sol_deep), "--export", str(f.dir / "v13.gif")], "sol_deep",
     lambda f: f.dir / "v13.gif"),
    ("view-deep-tour-json", lambda f: ["view", str(f.tour_deep), "--export", str(f.dir / "v14.gif")], "tour_deep",
     lambda f: f.dir / "v14.gif"),
    ("view-deep-tour-npz", lambda f: ["view", str(f.tour_deep_npz), "--export", str(f.dir / "v15.gif")],
     "tour_deep", lambda f: f.dir / "v15.gif"),
    ("sweep-out-not-utf8", lambda f: _SWEEP + ["--out", str(f.not_utf8)], "UTF-8", lambda f: f.not_utf8),
    ("sweep-folder-not-utf8", lambda f: _SWEEP + ["--out", str(f.not_utf8_folder)], "UTF-8",
     lambda f: f.not_utf8_folder),
    ("compare-out-not-utf8", lambda f: ["compare", "--policies", "cycle", "--size", "4", "--games", "5",
                                        "--out", str(f.not_utf8)], "UTF-8", lambda f: f.not_utf8),
    ("replay-from-not-utf8", lambda f: ["replay", "--from", str(f.not_utf8), "--out", str(f.dir / "r6.npz")],
     "UTF-8", lambda f: f.dir / "r6.npz"),
    ("verify-not-utf8", lambda f: ["verify", str(f.not_utf8)], "UTF-8", None),
]
LIB += [
    ("lib-load-game-huge-shape", lambda f: _lib("fastsnake.load_game")(f.huge_shape_npz), "huge_shape.npz", None),
    ("lib-puzzle-load-deep-json", lambda f: _lib("fastsnake.puzzle.load_solution")(f.sol_deep), "sol_deep", None),
    ("lib-tour-load-deep-json", lambda f: _lib("fastsnake.tour.io.load_tour")(f.tour_deep), "tour_deep", None),
    ("lib-tour-load-deep-npz", lambda f: _lib("fastsnake.tour.io.load_tour")(f.tour_deep_npz), "tour_deep", None),
    ("lib-sweep-out-not-utf8", lambda f: _lib("fastsnake.sweep")("cycle", 4, 10, out=str(f.not_utf8)), "UTF-8",
     lambda f: f.not_utf8),
    ("lib-sweep-folder-not-utf8", lambda f: _lib("fastsnake.sweep")("cycle", 4, 10, out=str(f.not_utf8_folder)),
     "UTF-8", lambda f: f.not_utf8_folder),
    ("lib-replay-game-not-utf8", lambda f: _lib("fastsnake.replay_game")(str(f.not_utf8)), "UTF-8", None),
    ("lib-verify-not-utf8", lambda f: _lib("fastsnake.verify_sweep")(str(f.not_utf8)), "UTF-8", None),
]

# A line that says what and why fits a terminal line or two; a library's own essay does not.
MAX_LINE = 240


def _assert_one_line(err: str, fragment: str):
    lines = err.strip().splitlines()
    assert len(lines) == 1, f"expected one error line, got:\n{err}"
    line = lines[0]
    assert len(line) <= MAX_LINE + len(str(fragment)), f"{len(line)} characters: {line!r}"
    assert line.startswith("fastsnake: error: "), line
    assert fragment.lower() in line.lower(), f"{fragment!r} not in {line!r}"
    for leak in LEAKS:
        assert leak not in line, f"{leak!r} leaked into {line!r}"
    return line


@pytest.mark.parametrize("argv, fragment, leftover", [pytest.param(*row[1:], id=row[0]) for row in CLI])
def test_cli_bad_input(F, capsys, argv, fragment, leftover):
    from fastsnake.cli import main

    try:
        code = main([str(a) for a in argv(F)])
    except SystemExit as exc:  # argparse errors exit through Parser.error
        code = exc.code
    captured = capsys.readouterr()
    assert code == 2, captured.err
    _assert_one_line(captured.err, fragment)
    if leftover is not None:
        assert not leftover(F).exists(), f"{leftover(F)} left behind"


@pytest.mark.parametrize("argv, fragment, leftover", [pytest.param(*row[1:], id=row[0]) for row in CLI])
def test_cli_bad_input_with_json(F, capsys, argv, fragment, leftover):
    """The same row with --json: the same line and exit code, and that line as one JSON object on stdout."""
    from fastsnake.cli import main

    try:
        code = main([str(a) for a in argv(F)] + ["--json"])
    except SystemExit as exc:
        code = exc.code
    captured = capsys.readouterr()
    assert code == 2, captured.err
    line = _assert_one_line(captured.err, fragment)
    assert captured.out.count("\n") == 1, captured.out
    assert json.loads(captured.out) == {"error": line.removeprefix("fastsnake: error: "), "code": 2}
    if leftover is not None:
        assert not leftover(F).exists(), f"{leftover(F)} left behind"


@pytest.mark.parametrize("call, fragment, leftover", [pytest.param(*row[1:], id=row[0]) for row in LIB])
def test_library_bad_input(F, call, fragment, leftover):
    from fastsnake import InputError

    with pytest.raises(InputError) as info:
        call(F)
    message = str(info.value)
    assert "\n" not in message.strip(), message
    assert fragment.lower() in message.lower(), f"{fragment!r} not in {message!r}"
    for leak in LEAKS:
        assert leak not in message, f"{leak!r} leaked into {message!r}"
    if leftover is not None:
        assert not leftover(F).exists(), f"{leftover(F)} left behind"


# --- a full disk: the writer raises ENOSPC -----------------------------------------------------------
# (id, argv(out_folder), what to patch ("module:attr.path"), expected fragment)
# After the error the output folder must hold no file under the output's name and no temporary
# file either (`visible` lists what is left; a sweep folder may keep its manifest, never a chunk).

FULL_DISK = [
    ("sweep-file", lambda d: ["sweep", "--policy", "cycle", "--size", "4", "--games", "50", "--threads", "1",
                              "--out", str(d / "s.parquet")], "pyarrow.parquet:ParquetWriter.write_table",
     "no space left"),
    ("sweep-folder", lambda d: ["sweep", "--policy", "cycle", "--size", "4", "--games", "50", "--threads", "1",
                                "--out", str(d / "sweep")], "pyarrow.parquet:write_table", "no space left"),
    ("compare-out", lambda d: ["compare", "--policies", "cycle", "--size", "4", "--games", "20", "--threads", "1",
                               "--out", str(d / "c.parquet")], "pyarrow.parquet:ParquetWriter.write_table",
     "no space left"),
    ("play-replay", lambda d: ["play", "--policy", "cycle", "--size", "4", "--replay", str(d / "g.npz")],
     "numpy:savez_compressed", "no space left"),
    ("puzzle-save", lambda d: ["puzzle", "solve", "--size", "2x2", "--start", "1 0 2 3", "--save",
                               str(d / "p.json")], "json:dump", "no space left"),
    ("tour-save-npz", lambda d: ["tour", "--size", "5", "--piece", "1,2", "--save", str(d / "t.npz")],
     "numpy:savez", "no space left"),
    ("tour-save-json", lambda d: ["tour", "--size", "5", "--piece", "1,2", "--save", str(d / "t.json")],
     "pathlib:Path.write_text", "no space left"),
    ("reach-save-npz", lambda d: ["reach", "--size", "5", "--piece", "1,2", "--jumps", "2", "--save",
                                  str(d / "r.npz")], "numpy:savez", "no space left"),
    ("view-export-gif", lambda d: ["view", str(GOLDEN_REPLAY), "--every", "50", "--export", str(d / "v.gif")],
     "PIL.Image:Image.save", "no space left"),
]


def _visible(folder: Path) -> list[str]:
    """Files left anywhere under `folder`, except a sweep folder's manifest (a resumable start, not a result)."""
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*") if p.is_file() and p.name != "_manifest.json")


@pytest.mark.parametrize("argv, target, fragment", [pytest.param(*row[1:], id=row[0]) for row in FULL_DISK])
def test_cli_full_disk(tmp_path, capsys, monkeypatch, argv, target, fragment):
    import importlib

    from fastsnake.cli import main

    module_name, _, attr_path = target.partition(":")
    owner = importlib.import_module(module_name)
    *parents, attr = attr_path.split(".")
    for name in parents:
        owner = getattr(owner, name)
    monkeypatch.setattr(owner, attr, _enospc)
    out = tmp_path / "out"
    out.mkdir()
    code = main([str(a) for a in argv(out)])
    captured = capsys.readouterr()
    assert code == 2, captured.err
    _assert_one_line(captured.err, fragment)
    assert _visible(out) == [], f"left behind after a write error: {_visible(out)}"


def test_corrupt_cached_pattern_database_is_rebuilt_with_a_warning(tmp_path, monkeypatch):
    """Item 3: a truncated or corrupted cache file fails its checksum and is rebuilt, never used."""
    from fastsnake.puzzle import pdb

    monkeypatch.setenv("FASTSNAKE_CACHE_DIR", str(tmp_path))
    goal = list(range(9))
    first = pdb.pattern_databases(3, 3, goal, partition="4-4")
    files = sorted((tmp_path / "pdb").glob("pdb-*.bin"))
    assert files
    good = [bytes(t) for t in first.tables]
    raw = files[0].read_bytes()
    files[0].write_bytes(raw[: len(raw) - 7])  # truncated
    raw1 = files[-1].read_bytes()
    files[-1].write_bytes(raw1[:-1] + bytes([raw1[-1] ^ 0xFF]))  # one byte flipped, same length
    with pytest.warns(RuntimeWarning, match="corrupt or truncated"):
        again = pdb.pattern_databases(3, 3, goal, partition="4-4")
    assert [bytes(t) for t in again.tables] == good
    # (no size check: a file's header records its build time, so a rebuilt file's length may differ)
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the rebuilt files load cleanly: no second warning
        third = pdb.pattern_databases(3, 3, goal, partition="4-4")
    assert [bytes(t) for t in third.tables] == good
