"""Single-file sweeps stream their rows: bounded memory, and a signal never loses or corrupts work."""

import json
import signal
import subprocess
import sys
import time

import pyarrow.parquet as pq
import pytest

import fastsnake
from fastsnake.snake.sweep import SweepError


def _rows(table):
    return {c: table.column(c).to_pylist() for c in ("game", "seed", "outcome", "moves", "apples", "length")}


def test_a_streamed_file_holds_the_in_memory_rows(tmp_path):
    path = tmp_path / "s.parquet"
    streamed = fastsnake.sweep("greedy", 6, 3000, 2, out=path)
    memory = fastsnake.sweep("greedy", 6, 3000, 2)
    assert pq.ParquetFile(path).num_row_groups > 1  # written chunk by chunk
    assert _rows(pq.read_table(path)) == _rows(memory.table) == _rows(streamed.table)
    assert fastsnake.snake.timing_free(streamed.summary) == fastsnake.snake.timing_free(memory.summary)
    assert not list(tmp_path.glob(".*partial*"))


def test_summary_only_sweeps_keep_no_rows():
    lean = fastsnake.sweep("cycle", 6, 2000, 1, rows=False)
    full = fastsnake.sweep("cycle", 6, 2000, 1)
    assert lean.table is None
    assert fastsnake.snake.timing_free(lean.summary) == fastsnake.snake.timing_free(full.summary)


def test_rows_beyond_the_memory_budget_are_refused_up_front(monkeypatch):
    with pytest.raises(SweepError, match=r"games=1,000,000,000: .* over the memory budget .* out='sweep.parquet'"):
        fastsnake.sweep("cycle", 10, 10**9)
    monkeypatch.setenv("FASTSNAKE_MEMORY_BUDGET", "10000")
    with pytest.raises(SweepError, match="rows=False"):
        fastsnake.sweep("cycle", 6, 1000)
    assert fastsnake.sweep("cycle", 6, 1000, rows=False).summary["games"] == 1000


def _start_billion_sweep(path):
    cmd = [sys.executable, "-m", "fastsnake", "sweep", "--policy", "cycle", "--size", "6", "--games", "1000000000",
           "--threads", "1", "--out", str(path), "--json"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    # The partial file appears once the first chunk is written; poll for it (no timing is asserted).
    deadline = time.time() + 300
    while time.time() < deadline and not list(path.parent.glob(f".{path.name}.partial-*")):
        if proc.poll() is not None:
            break
        time.sleep(0.05)
    assert proc.poll() is None, proc.stderr.read()
    return proc


@pytest.mark.parametrize("sig,code", [(signal.SIGINT, 130), (signal.SIGTERM, 143)], ids=["SIGINT", "SIGTERM"])
def test_a_signal_keeps_exactly_the_finished_games_in_a_valid_file(tmp_path, sig, code):
    path = tmp_path / "big.parquet"
    proc = _start_billion_sweep(path)
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == code, err
    summary = json.loads(out)
    assert not path.exists()  # the finished part is not the asked file: it has a name of its own
    kept = tmp_path / "big.partial.parquet"
    assert summary["partial_file"] == str(kept) and str(kept) in err
    table = pq.read_table(kept)
    assert summary["interrupted"] is True and 0 < summary["games"] == table.num_rows < 10**9
    assert table.column("game").to_pylist()[-1] == table.num_rows - 1
    k = min(500, table.num_rows)  # the first chunk may hold fewer games
    first = fastsnake.sweep("cycle", 6, k, 0).table
    assert _rows(table.slice(0, k)) == _rows(first)
    assert summary["moves_mean"] == pytest.approx(sum(table.column("moves").to_pylist()) / table.num_rows)
    assert not list(tmp_path.glob(".*partial*"))
    assert err.strip().splitlines()[-1].startswith("fastsnake: error: " + ("interrupted" if code == 130 else
                                                                           "terminated"))


def test_a_killed_sweep_leaves_the_previous_file_whole(tmp_path):
    path = tmp_path / "kept.parquet"
    fastsnake.sweep("cycle", 6, 77, 0, out=path)
    proc = _start_billion_sweep(path)
    proc.kill()
    proc.communicate(timeout=60)
    assert pq.read_table(path).num_rows == 77  # the partial dot-file beside it is not a result
    assert list(tmp_path.glob(".kept.parquet.partial-*"))
    fastsnake.sweep("cycle", 6, 5, 0, out=tmp_path / "kept.parquet")  # the next run clears it away
    assert not list(tmp_path.glob(".kept.parquet.partial-*"))
