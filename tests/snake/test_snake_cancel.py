"""Signals within a second: a running game is cancelled through the slot the engine polls
(`fastsnake.snake.cancel`), never recorded, and every finished chunk is kept whole.

The games that matter here never end (`policy_endless`): a process can only stop because its
running game was cancelled, so nothing depends on timing.
"""

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from policy_endless import ARGS, ENDLESS_GAME, NEVER, register

import fastsnake
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


def _start(args, ready):
    """The CLI with the endless policies, once it is past compiling and `ready()` holds."""
    proc = subprocess.Popen([sys.executable, str(SCRIPT), *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True, cwd=SCRIPT.parent)
    lines = []
    while proc.poll() is None and (not lines or lines[-1] != "ready"):
        lines.append(proc.stderr.readline().strip())
    assert lines and lines[-1] == "ready", (lines, proc.communicate())
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None and not ready():
        time.sleep(0.05)
    assert proc.poll() is None, proc.communicate()
    return proc


def _stop(proc, sig, times=1):
    """Send `sig`, `times` times at most, until the process ends; (code, stdout, stderr)."""
    for _ in range(times):
        proc.send_signal(sig)
        try:
            out, err = proc.communicate(timeout=2 if times > 1 else 120)
            return proc.returncode, out, err
        except subprocess.TimeoutExpired:
            continue
    proc.kill()
    out, err = proc.communicate()
    pytest.fail(f"{times} signals did not stop the process: {err}")


def _check_kept_file(kept: Path, games: int):
    params, table = read_parquet(kept)
    assert 0 < table.num_rows == games <= ENDLESS_GAME  # the endless game is not among them
    assert table.column("game").to_pylist() == list(range(games))
    assert set(table.column("outcome").to_pylist()) == {"died"}


@SIGNALS
def test_the_first_signal_stops_a_game_that_never_ends(tmp_path, sig):
    out = tmp_path / "s.parquet"
    proc = _start(["sweep", "--policy", "endless", *ARGS, "--games", "1000", "--out", str(out), "--json"],
                  lambda: list(tmp_path.glob(".s.parquet.partial-*")))
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
                  lambda: list(tmp_path.glob(".s.parquet.partial-*")))
    code, stdout, err = _stop(proc, sig, times=20)
    assert code == CODES[sig], err
    summary = json.loads(stdout)
    _check_kept_file(tmp_path / "s.partial.parquet", summary["games"])
    assert not out.exists() and not list(tmp_path.glob(".*"))


def test_a_signal_in_a_chunk_that_never_ends_keeps_the_finished_chunks(tmp_path):
    folder = tmp_path / "d"
    proc = _start(["sweep", "--policy", "endless", *ARGS, "--games", "1000", "--chunk-size", "10", "--out",
                   str(folder), "--json"], lambda: (folder / "chunk-00000005.parquet").exists())
    code, stdout, err = _stop(proc, signal.SIGINT)
    assert code == 130, err
    assert sorted(p.name for p in folder.glob("chunk-*")) == [f"chunk-{k:08d}.parquet" for k in range(6)]
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]
    table = read_dataset(folder)[1]
    assert table.column("game").to_pylist() == list(range(60)) == list(range(json.loads(stdout)["games"]))


def test_ctrl_c_stops_play_inside_a_decide_that_never_returns(tmp_path):
    replay = tmp_path / "g.npz"
    started = time.time()
    proc = _start(["play", "--policy", "hang", *ARGS[:-2], "--game", str(ENDLESS_GAME), "--replay", str(replay)],
                  lambda: time.time() > started + 1)  # most likely in the game by then; stopped either way
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
                        np.zeros((4, 4), np.int64), 1)
        except Cancelled as exc:
            caught.append(exc)

    worker = threading.Thread(target=sweep, daemon=True)
    worker.start()
    worker.join(1.0)  # most likely inside the endless game by now; cancelled either way
    cancel(cfg)
    worker.join(300)
    assert not worker.is_alive() and len(caught) == 1


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
                  lambda: (folder / "chunk-00000005.parquet").exists())
    code, _, err = _stop(proc, signal.SIGTERM, times=20)
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
    code, stdout, err = _stop(proc, signal.SIGINT)
    assert code == 130, err
    kept = sorted(p.name for p in folder.glob("chunk-*"))
    assert 2 <= len(kept) < 200 and not [p for p in folder.iterdir() if p.name.startswith(".")]
    table = read_dataset(folder)[1]
    assert table.num_rows == json.loads(stdout)["games"] == 2 * len(kept)
    reference = fastsnake.sweep("greedy", 48, 4, 0, threads=1).table
    assert table.sort_by("game").slice(0, 4).column("moves").equals(reference.column("moves"))
