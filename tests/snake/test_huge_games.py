"""A sweep folder of any --games in bounded memory (issue 46, item 3).

`SweepDataset.scan()` built ``set(range(n_chunks))``: 10**15 games took 16.7 GB before the kernel's
OOM killer, and --resume of its manifest a MemoryError. Missing chunks are now runs (`ChunkRuns`),
and a job that cannot fit on the disk even at the least bytes a game takes is refused before any
game is played (a new folder before it is made). The commands run in a subprocess under a memory
limit (``resource.RLIMIT_AS``); nothing here is timed.
"""

import subprocess
import sys
import textwrap
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from fastsnake.snake.store import ChunkRuns, SweepDataset, SweepSpec

ROOT = Path(__file__).parents[2]
LIMIT = 2 << 30  # the old code needed 16.7 GB for 10**15 games, 2.3 GB for 10**12


@settings(max_examples=200, deadline=None)
@given(st.integers(0, 60), st.sets(st.integers(0, 70)), st.lists(st.integers(0, 70), max_size=5))
def test_chunk_runs_are_the_set_they_replace(total, present, removed):
    present = sorted(i for i in present if i < total)
    runs = ChunkRuns.complement(total, present)
    naive = set(range(total)) - set(present)
    for index in removed:
        if index < total:
            runs.add(index)
            naive.add(index)
    assert list(runs) == sorted(naive) and len(runs) == len(naive) and bool(runs) == bool(naive)
    assert all(lo < hi for lo, hi in runs.runs)
    assert all(a[1] < b[0] for a, b in zip(runs.runs, runs.runs[1:], strict=False))  # disjoint, not touching


def test_a_huge_sweep_is_one_run():
    runs = ChunkRuns.complement(2 * 10**10, [0, 5, 10**9])
    assert runs.runs == [(1, 5), (6, 10**9), (10**9 + 1, 2 * 10**10)] and len(runs) == 2 * 10**10 - 3


def run_limited(*argv, cwd):
    code = textwrap.dedent(f"""
        import resource, sys
        resource.setrlimit(resource.RLIMIT_AS, ({LIMIT}, {LIMIT}))
        from fastsnake.cli import main
        sys.exit(main({[str(a) for a in argv]!r}))
    """)
    return subprocess.run([sys.executable, "-c", code], cwd=cwd, capture_output=True, text=True, timeout=600,
                          env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(cwd)})


def test_huge_games_are_refused_up_front_in_bounded_memory(tmp_path):
    for games, extra in ((10**15, ()), (10**12, ()), (10**9, ("--chunk-size", "10"))):
        out = tmp_path / f"s{games}"
        done = run_limited("sweep", "--policy", "cycle", "--size", "4", "--games", games, *extra, "--out", out,
                           cwd=tmp_path)
        assert done.returncode == 2, done.stderr
        assert "need at least" in done.stderr and "free" in done.stderr and "MemoryError" not in done.stderr
        assert not out.exists()  # refused before the folder was made


def test_resume_of_a_huge_manifest_is_refused_in_bounded_memory(tmp_path):
    spec = SweepSpec("cycle", 4, 4, 3, "follow", 256, 0, 10**15, 0, {}, 50_000)
    SweepDataset.open(tmp_path / "huge", spec)  # the manifest a 10**15-game sweep writes first
    done = run_limited("sweep", "--resume", tmp_path / "huge", cwd=tmp_path)
    assert done.returncode == 2, done.stderr
    assert "1,000,000,000,000,000 missing games" in done.stderr and "MemoryError" not in done.stderr
    done = run_limited("verify", tmp_path / "huge", "--json", cwd=tmp_path)
    assert done.returncode == 0 and "MemoryError" not in done.stderr


def test_a_signal_after_the_command_has_ended_keeps_its_status(tmp_path):
    """SIGINT after the refusal was printed, while the interpreter shuts down (Python has put the
    default handlers back by then): the status stays the command's, not killed by the signal (-2:
    seen by the fault injector's huge_games class)."""
    import os
    import signal
    import time

    spec = SweepSpec("cycle", 4, 4, 3, "follow", 256, 0, 10**10, 0, {}, 1000)  # fits 4 bytes a game, not 17
    SweepDataset.open(tmp_path / "h", spec)
    proc = subprocess.Popen([sys.executable, "-m", "fastsnake", "sweep", "--resume", str(tmp_path / "h")],
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    said = ""
    # The refusal: memory ("needs about ..."), or free disk first where the disk holds less than the
    # folder's 60 GB (either is decided and printed before the shutdown this test is about).
    while "fastsnake: error:" not in said:
        line = proc.stderr.readline()
        assert line, said
        said += line
    assert "needs about" in said or "need at least" in said, said
    time.sleep(0.2)  # into the shutdown (it takes longer with numba loaded): not a timing assertion
    proc.send_signal(signal.SIGINT)
    _, rest = proc.communicate(timeout=120)
    # 2: the status the command decided; 130 with one line: the signal came before it returned.
    # Never -2 (killed by the signal, with nothing said), as before.
    assert proc.returncode == 2 or (proc.returncode == 130 and rest == "fastsnake: error: interrupted\n")
