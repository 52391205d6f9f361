"""Signals within a second: a running game is cancelled through the slot the engine polls
(`fastsnake.snake.cancel`), never recorded, and every finished chunk is kept whole.

The games that matter here never end (`policy_endless`): a process can only stop because its
running game was cancelled, so nothing depends on timing.
"""

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from policy_endless import ARGS, ENDLESS_GAME, NEVER, register

import fastsnake
from fastsnake.snake import record
from fastsnake.snake.board import CFG_CANCEL, GameConfig
from fastsnake.snake.cancel import Cancelled, call_kernel, cancel
from fastsnake.snake.dataset import read_dataset
from fastsnake.snake.engine import CANCELLED
from fastsnake.snake.policies import OWN_DISTRIBUTION, all_policies, get_policy
from fastsnake.snake.policies.kernels import compiled_kernels
from fastsnake.snake.sweep import first_chunk_size, prepare, read_parquet

SCRIPT = Path(__file__).with_name("policy_endless.py")
CODES = {signal.SIGINT: 130, signal.SIGTERM: 143}
SIGNALS = pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])


def test_the_endless_game_comes_after_the_first_chunk():
    assert first_chunk_size(64, 1) == ENDLESS_GAME  # so a first chunk finishes, then the game never ends


# A child that has not announced anything for this long is stuck (not slow: a busy machine takes
# seconds, not minutes); the tests never wait on a clock for anything else.
STUCK_SECONDS = 900


def _start(args, until):
    """The CLI with the endless policies (`policy_endless`), once `until(event)` holds for an event it
    announced (`fastsnake.signals.announce`: a point the process has reached, e.g. "kernel": a
    kernel runs and the main thread waits for it with our handlers in place). No clock involved."""
    read_fd, write_fd = os.pipe()
    env = dict(os.environ, FASTSNAKE_READY_FD=f"{write_fd}:{os.fstat(write_fd).st_ino}")
    outputs = (tempfile.TemporaryFile(), tempfile.TemporaryFile())  # files, not pipes: nothing to drain meanwhile
    proc = subprocess.Popen([sys.executable, str(SCRIPT), *args], stdout=outputs[0], stderr=outputs[1],
                            cwd=SCRIPT.parent, env=env, pass_fds=(write_fd,))
    proc.outputs = outputs
    os.close(write_fd)
    proc.events = os.fdopen(read_fd, "r")
    proc.seen = []
    _wait_for(proc, until)
    return proc


def _wait_for(proc, until) -> None:
    """Read the process's events until `until(event)` holds for the last one; fail if it ends first.

    `until` may also look at files the process writes (a partial file), which can appear just after
    the event that announces the stage: so it is asked again, for the last event, while no new event
    comes (every 50 ms), not only when an event arrives."""
    quiet = 0.0
    while True:
        ready, _, _ = select.select([proc.events], [], [], 0.05)
        if not ready:
            quiet += 0.05
            if proc.seen and until(proc.seen[-1]):
                return
            if quiet < STUCK_SECONDS and proc.poll() is None:
                continue
            line = None if proc.poll() is None else ""
        else:
            quiet = 0.0
            line = proc.events.readline()
        if not line:
            proc.kill()
            code, out, err = _finish(proc)
            pytest.fail(f"no event {'in %d s' % STUCK_SECONDS if line is None else 'before exit'} "
                        f"(events {proc.seen}, exit {code}): {err}")
        proc.seen.append(line.strip())
        if until(proc.seen[-1]):
            return


def _finish(proc):
    """(exit code, stdout, stderr) once the process has ended."""
    proc.wait(STUCK_SECONDS)
    proc.events.close()
    texts = []
    for stream in proc.outputs:
        stream.seek(0)
        texts.append(stream.read().decode("utf-8", "replace"))
        stream.close()
    return proc.returncode, texts[0], texts[1]


def _stop(proc, sig, twice=False):
    """Send `sig`; with `twice`, send it again once the process says the first one reached its handler
    (a game whose decide never returns can only be left by a second signal; if the first was enough,
    the second lands on a run that is already stopping, which must not change its end). Then
    (code, stdout, stderr) once it has ended, however long that takes."""
    proc.send_signal(sig)
    if twice:
        _wait_for(proc, lambda event: event == "stop-requested")
        proc.send_signal(sig)
    return _finish(proc)


def _check_kept_file(kept: Path, games: int):
    params, table = read_parquet(kept)
    assert 0 < table.num_rows == games <= ENDLESS_GAME  # the endless game is not among them
    assert table.column("game").to_pylist() == list(range(games))
    assert set(table.column("outcome").to_pylist()) == {"died"}


@SIGNALS
def test_the_first_signal_stops_a_game_that_never_ends(tmp_path, sig):
    out = tmp_path / "s.parquet"
    proc = _start(["sweep", "--policy", "endless", *ARGS, "--games", "1000", "--out", str(out), "--json"],
                  lambda event: event == "kernel" and list(tmp_path.glob(".s.parquet.partial-*")))
    code, stdout, err = _stop(proc, sig)
    assert code == CODES[sig], err
    summary = json.loads(stdout)
    assert summary["interrupted"] and not out.exists()
    _check_kept_file(tmp_path / "s.partial.parquet", summary["games"])
    assert not list(tmp_path.glob(".*"))  # no temporary file left


@SIGNALS
def test_a_second_signal_stops_a_decide_that_never_returns(tmp_path, sig):
    out = tmp_path / "s.parquet"
    proc = _start(["sweep", "--policy", "hang", *ARGS, "--games", "1000", "--out", str(out), "--json"],
                  lambda event: event == "kernel" and list(tmp_path.glob(".s.parquet.partial-*")))
    code, stdout, err = _stop(proc, sig, twice=True)
    assert code == CODES[sig], err
    summary = json.loads(stdout)
    _check_kept_file(tmp_path / "s.partial.parquet", summary["games"])
    assert not out.exists() and not list(tmp_path.glob(".*"))


def test_a_signal_in_a_chunk_that_never_ends_keeps_the_finished_chunks(tmp_path):
    folder = tmp_path / "d"
    proc = _start(["sweep", "--policy", "endless", *ARGS, "--games", "1000", "--chunk-size", "10", "--out",
                   str(folder), "--json"],
                  lambda event: event == "kernel" and (folder / "chunk-00000005.parquet").exists())
    code, stdout, err = _stop(proc, signal.SIGINT)
    assert code == 130, err
    assert sorted(p.name for p in folder.glob("chunk-*")) == [f"chunk-{k:08d}.parquet" for k in range(6)]
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]
    table = read_dataset(folder)[1]
    assert table.column("game").to_pylist() == list(range(60)) == list(range(json.loads(stdout)["games"]))


@SIGNALS
def test_a_signal_during_start_up_ends_in_one_line(tmp_path, sig):
    """Signalled as soon as the CLI's handlers are in place, while it still builds its parser and loads the
    verbs (under load that took seconds: a SIGINT there printed a KeyboardInterrupt traceback, exit -2,
    and a SIGTERM killed it, -15). Wherever the signal lands from there on: its status, no traceback."""
    out = tmp_path / "s.parquet"
    proc = _start(["sweep", "--policy", "endless", *ARGS, "--games", "1000", "--out", str(out)],
                  lambda event: event == "cli")
    code, _, err = _stop(proc, sig)
    assert code == CODES[sig], err
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith("fastsnake: "), err
    assert not out.exists() and not list(tmp_path.glob(".*"))


def test_ctrl_c_stops_play_inside_a_decide_that_never_returns(tmp_path):
    replay = tmp_path / "g.npz"
    proc = _start(["play", "--policy", "hang", *ARGS[:-2], "--game", str(ENDLESS_GAME), "--replay", str(replay)],
                  lambda event: event == "kernel")  # the game runs (or is about to): Ctrl-C stops it either way
    code, _, err = _stop(proc, signal.SIGINT)
    assert code == 130 and err.strip().splitlines()[-1] == "fastsnake: error: interrupted", err
    assert not list(tmp_path.iterdir())


# -- in one process: every path polls the same slot -------------------------------------------------

def _builtin_policies():
    return [p for p in all_policies() if p.origin == OWN_DISTRIBUTION]


@pytest.mark.parametrize("policy", [p.name for p in _builtin_policies()])
def test_every_policy_kernel_releases_the_gil(policy):
    """Without nogil the main thread could not run a signal handler while the kernel runs."""
    entry = get_policy(policy)
    kernels = compiled_kernels(entry.sweep_kernel) + compiled_kernels(entry.play_kernel)
    assert len(kernels) >= 2
    assert all(kernel.targetoptions.get("nogil") for kernel in kernels)


@pytest.mark.parametrize("policy", ["cycle", "greedy"])
def test_a_cancelled_run_plays_no_move(policy):
    """The kernels look at the slot before their first move: nothing of a cancelled chunk is written."""
    entry, _, params, cfg, nbr = prepare(policy, GameConfig(8, 8), None)
    cancel(cfg)
    out = np.full((20, 4), -7, np.int64)
    with pytest.raises(Cancelled):
        call_kernel(entry.sweep_kernel, cfg, nbr, params, np.uint64(0), np.int64(0), out, 2)
    assert (out == -7).all()
    outcome, body, moves, apples, cycle = entry.play_kernel(cfg, nbr, params, np.uint64(5))
    assert outcome == CANCELLED and len(moves) == 0


@pytest.mark.parametrize("policy", ["endless", "endless-py"])
def test_cancelling_stops_a_users_game_that_never_ends(policy):
    """Cancelled from another thread while it runs (numba and plain-Python policies alike)."""
    register()
    entry, _, params, cfg, nbr = prepare(policy, GameConfig(8, 8, 1, "follow", NEVER), None)
    assert cfg[CFG_CANCEL] == 0
    caught = []

    def sweep():  # off the main thread: a direct call, stopped by the slot alone
        try:
            call_kernel(entry.sweep_kernel, cfg, nbr, params, np.uint64(0), np.int64(ENDLESS_GAME - 2),
                        np.zeros((4, record.width()), np.int64), 1)
        except Cancelled as exc:
            caught.append(exc)

    worker = threading.Thread(target=sweep, daemon=True)
    worker.start()
    worker.join(1.0)  # most likely inside the endless game by now; cancelled either way
    cancel(cfg)
    worker.join(300)
    assert not worker.is_alive() and len(caught) == 1


def test_kernels_and_their_blocks_run_with_the_callers_numba_thread_count():
    """numba's thread count is a per-thread setting: the threads `call_kernel` and `on_daemon_threads` run
    on take the calling thread's, not numba's default; errors come back to the caller, results in order."""
    import numba

    from fastsnake.snake.cancel import on_daemon_threads

    if numba.config.NUMBA_NUM_THREADS < 2:
        pytest.skip("numba has one thread here: no count other than its default to hand on")
    before = numba.get_num_threads()
    numba.set_num_threads(1)
    try:
        cfg = np.zeros(CFG_CANCEL + 1, np.int64)
        assert call_kernel(lambda cfg, x: (numba.get_num_threads(), x), cfg, 7) == (1, 7)
        blocks = on_daemon_threads(lambda i: (i, numba.get_num_threads()), list(range(5)), 2)
        assert blocks == [(i, 1) for i in range(5)]
        with pytest.raises(ZeroDivisionError):
            call_kernel(lambda cfg: 1 // 0, cfg)
        with pytest.raises(ZeroDivisionError):
            on_daemon_threads(lambda i: 1 // (i - 3), list(range(5)), 2)
    finally:
        numba.set_num_threads(before)


def test_the_library_keeps_returning_the_finished_part_on_ctrl_c():
    """`fastsnake.sweep` in the main thread: a signal cancels the endless game; Ctrl-C returns the finished
    games marked interrupted, as it did before kernels could be cancelled."""
    register()
    timers = []

    def progress(done, total):  # after the first chunk, a signal while the endless game plays (or is about to)
        if not timers:
            timers.append(threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGINT)))
            timers[0].start()

    result = fastsnake.sweep("endless", 8, 1000, start_length=1, max_moves=NEVER, threads=1, progress=progress)
    timers[0].join()
    assert result.interrupted and 0 < result.summary["games"] <= ENDLESS_GAME
    assert (result.table.column("outcome").to_numpy(zero_copy_only=False) == "died").all()


def test_a_second_signal_keeps_a_folders_finished_chunks(tmp_path):
    folder = tmp_path / "d"
    proc = _start(["sweep", "--policy", "hang", *ARGS, "--games", "1000", "--chunk-size", "10", "--out", str(folder)],
                  lambda event: event == "kernel" and (folder / "chunk-00000005.parquet").exists())
    code, _, err = _stop(proc, signal.SIGTERM, twice=True)
    assert code == 143, err
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]
    assert read_dataset(folder)[1].column("game").to_pylist() == list(range(60))


@pytest.mark.slow
def test_a_signal_stops_a_cluster_sweep_keeping_its_finished_chunks(tmp_path):
    """The client answers at its next look and shuts the local cluster down, the worker's running chunk with it."""
    pytest.importorskip("distributed")
    folder = tmp_path / "c"
    proc = subprocess.Popen([sys.executable, "-m", "fastsnake", "sweep", "--policy", "greedy", "--size", "48",
                             "--games", "400", "--chunk-size", "2", "--cluster", "local:1", "--out", str(folder),
                             "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None and not (folder / "chunk-00000001.parquet").exists():
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, err = proc.communicate(timeout=STUCK_SECONDS)
    code = proc.returncode
    assert code == 130, err
    kept = sorted(p.name for p in folder.glob("chunk-*"))
    assert 2 <= len(kept) < 200 and not [p for p in folder.iterdir() if p.name.startswith(".")]
    table = read_dataset(folder)[1]
    assert table.num_rows == json.loads(stdout)["games"] == 2 * len(kept)
    reference = fastsnake.sweep("greedy", 48, 4, 0, threads=1).table
    assert table.sort_by("game").slice(0, 4).column("moves").equals(reference.column("moves"))
