"""The snake verbs of the command line: JSON contracts, files, one-line errors."""

import json
import os
import subprocess
import sys

import pytest

from fastsnake.cli import main

SWEEP_KEYS = ("policy rows cols games wins deaths stuck win_rate moves_mean moves_std moves_min moves_q25 "
              "moves_median moves_q75 moves_max apples_mean seconds games_per_second moves_per_second").split()
PLAY_KEYS = "policy rows cols seed game outcome moves apples length seconds".split()


def run_cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_sweep_json_is_one_object_with_the_contract_keys(capsys, tmp_path):
    out_file = tmp_path / "r.parquet"
    code, out, err = run_cli(capsys, "sweep", "--policy", "cycle", "--size", "6x8", "--games", "300",
                             "--seed", "4", "--out", str(out_file), "--json")
    assert code == 0
    summary = json.loads(out)
    assert all(k in summary for k in SWEEP_KEYS)
    assert summary["games"] == 300 and summary["wins"] == 300 and summary["rows"] == 6 and summary["cols"] == 8
    assert out_file.exists()


def test_play_json_and_replay_file(capsys, tmp_path):
    replay = tmp_path / "g.npz"
    code, out, _ = run_cli(capsys, "play", "--policy", "greedy", "--size", "8", "--seed", "3", "--game", "2",
                           "--replay", str(replay), "--json")
    assert code == 0
    result = json.loads(out)
    assert all(k in result for k in PLAY_KEYS)
    assert (result["seed"], result["game"], result["rows"]) == (3, 2, 8)
    code, out, _ = run_cli(capsys, "replay", "--check", str(replay), "--json")
    assert code == 0 and json.loads(out)["moves"] == result["moves"]


def test_replay_from_a_sweep_matches_the_sweep_row(capsys, tmp_path):
    records = tmp_path / "s.parquet"
    run_cli(capsys, "sweep", "--policy", "greedy", "--size", "7", "--games", "50", "--out", str(records), "--json")
    import pyarrow.parquet as pq

    table = pq.read_table(records)
    moves = table.column("moves").to_numpy()
    code, out, _ = run_cli(capsys, "replay", "--from", str(records), "--pick", "longest",
                           "--out", str(tmp_path / "l.npz"), "--json")
    assert code == 0
    assert json.loads(out)["moves"] == int(moves.max())


def test_compare_json_is_a_list_of_summaries(capsys):
    code, out, _ = run_cli(capsys, "compare", "--size", "6", "--games", "40", "--policies", "cycle,greedy", "--json")
    assert code == 0
    summaries = json.loads(out)
    assert [s["policy"] for s in summaries] == ["cycle", "greedy"]
    assert all(all(k in s for k in SWEEP_KEYS) for s in summaries)


def test_human_table(capsys):
    code, out, _ = run_cli(capsys, "sweep", "--policy", "cycle", "--size", "4", "--games", "20")
    assert code == 0
    assert "win %" in out and "cycle" in out


@pytest.mark.parametrize(
    "argv,needle",
    [
        (["sweep", "--policy", "cycle", "--size", "1x5", "--games", "3"], "1x5"),
        (["sweep", "--policy", "cycle", "--size", "6", "--games", "0"], "games=0"),
        (["sweep", "--policy", "cycle", "--size", "5x5", "--games", "3"], "5x5 board has no Hamiltonian cycle"),
        (["sweep", "--policy", "nope", "--size", "6", "--games", "3"], "unknown policy 'nope'"),
        (["sweep", "--policy", "cycle", "--size", "6", "--games", "3", "--start-length", "36"], "start length 36"),
        (["sweep", "--policy", "cycle", "--size", "6", "--games", "3", "--tail", "sideways"], "invalid choice"),
        (["replay", "--check", "/nonexistent/x.npz"], "does not exist"),
        (["replay", "--from", "/nonexistent/r.parquet", "--out", "x.npz"], "does not exist"),
        (["play", "--policy", "greedy", "--size", "6", "--opt", "speed"], "KEY=VALUE"),
        (["play", "--policy", "greedy", "--size", "6", "--opt", "speed=3"], "takes no option 'speed'"),
        (["play", "--policy", "cell", "--size", "6", "--opt", "detours=-1"], "detours='-1' is not a count in 0..64"),
        (["play", "--policy", "cell", "--size", "6", "--opt", "research_every=x"], "research_every='x'"),
        (["play", "--policy", "cell", "--size", "5x6"], "board 5x6 has an odd side"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(capsys, argv, needle):
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse's own checks (choices) exit from inside the parser
        code = exc.code
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("fastsnake: error: ") and needle in lines[0]


def test_unreadable_replay_is_one_line(capsys, tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"garbage")
    code, out, err = run_cli(capsys, "replay", "--check", str(bad))
    assert code == 2 and out == "" and err.count("\n") == 1 and "not an .npz archive" in err


def test_the_console_entry_point_keeps_stdout_pure(tmp_path):
    env = dict(os.environ)
    cmd = [sys.executable, "-m", "fastsnake", "play", "--policy", "cycle", "--size", "6", "--json"]
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["outcome"] == "won"
    proc = subprocess.run([sys.executable, "-m", "fastsnake", "sweep", "--policy", "cycle", "--size", "3",
                           "--games", "1"], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 2 and proc.stdout == "" and "Traceback" not in proc.stderr
    assert proc.stderr.startswith("fastsnake: error: ")


def test_ctrl_c_keeps_the_finished_games(tmp_path):
    import signal
    import time

    import pyarrow.parquet as pq

    from fastsnake.snake.board import GameConfig
    from fastsnake.snake.sweep import run_sweep

    reference = run_sweep("greedy", GameConfig(12, 12), 40, seed=1)  # also warms the kernel cache
    out = tmp_path / "part.parquet"
    cmd = [sys.executable, "-m", "fastsnake", "sweep", "--policy", "greedy", "--size", "12", "--seed", "1",
           "--games", "100000000", "--out", str(out), "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    # Signal once the first chunk is in the (partial) file; polling, no timing is asserted.
    deadline = time.time() + 300
    while time.time() < deadline and proc.poll() is None and not list(tmp_path.glob(".part.parquet.partial-*")):
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 130
    assert stderr.strip().splitlines()[-1] == "fastsnake: error: interrupted"
    summary = json.loads(stdout)
    assert summary["interrupted"] is True
    assert not out.exists()  # the finished part has a name of its own
    table = pq.read_table(tmp_path / "part.partial.parquet")
    assert table.num_rows == summary["games"] > 0
    games = table.column("game").to_numpy()
    assert (games == range(len(games))).all()
    k = min(len(games), 40)
    assert (table.column("moves").to_numpy()[:k] == reference.moves[:k]).all()
