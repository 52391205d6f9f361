"""Issue 55: readers that can neither hang nor blow up, and file text that cannot reach the terminal
raw. Every hostile file here is made directly with pyarrow from made-up (possible) rows: no kernel
is compiled, no game is played."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import tracemalloc

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from faults import EVIL_NAME, fifo, repeated_game_file, sweep_file

import fastsnake
from fastsnake import files
from fastsnake.cli import common, main
from fastsnake.errors import InputError
from fastsnake.snake import rng, store

# -- FIFOs, devices: refused before they are opened -------------------------------------------------


@pytest.fixture
def unblock():
    """Opens a FIFO's writing end after a few seconds, so that a reader that opened the FIFO (the
    old code) returns and fails its test instead of hanging the suite."""
    started = []

    def later(path):
        def run():
            import time

            time.sleep(8)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                os.close(fd)
            except OSError:
                pass
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        started.append(thread)
    return later


@pytest.mark.parametrize("verb", ["verify", "report", "replay"])
def test_a_fifo_is_one_line_exit_2_never_opened(tmp_path, capsys, verb, unblock):
    path = fifo(tmp_path / "f.parquet")
    unblock(path)
    argv = {"verify": ["verify", str(path)], "report": ["report", str(path), "--out", str(tmp_path / "r.html")],
            "replay": ["replay", "--from", str(path), "--pick", "0", "--out", str(tmp_path / "g.npz")]}[verb]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("fastsnake: error: ") and "FIFO" in err, err


def test_every_library_reader_refuses_a_fifo(tmp_path, unblock):
    from fastsnake.snake.replay import load_replay
    from fastsnake.viewer.files import open_view

    path = fifo(tmp_path / "f.parquet")
    npz = fifo(tmp_path / "g.npz")
    unblock(path)
    unblock(npz)
    for read in (store.read_sweep, fastsnake.verify_sweep, store.open_sweep):
        with pytest.raises(InputError, match="FIFO"):
            read(path)
    for read in (load_replay, open_view):
        with pytest.raises(InputError, match="FIFO"):
            read(npz)


def test_a_fifo_in_a_folder_is_refused(tmp_path, unblock):
    """A FIFO in a chunk's place (or the manifest's) of a sweep folder: refused, never opened."""
    from fastsnake.snake.store.folder import sha256_file

    path = fifo(tmp_path / "chunk-00000000.parquet")
    unblock(path)
    with pytest.raises(InputError, match="FIFO"):
        sha256_file(path)


def test_a_device_is_refused():
    with pytest.raises(InputError, match="character device"):
        store.read_sweep("/dev/zero")
    with pytest.raises(files.NotRegularFile):
        files.open_regular("/dev/zero")


def test_a_fifo_verify_answers_sigterm_at_once(tmp_path):
    """The CLI on a FIFO ends by itself (exit 2) well before any signal is needed; the old code blocked
    in open() and ignored SIGINT and SIGTERM."""
    path = fifo(tmp_path / "f.parquet")
    proc = subprocess.Popen([sys.executable, "-m", "fastsnake", "verify", str(path)], stderr=subprocess.PIPE,
                            text=True, env=dict(os.environ, PYTHONPATH=os.getcwd()))
    try:
        _, err = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("verify blocked on a FIFO")
    assert proc.returncode == 2 and "FIFO" in err


# -- sizes a file declares ---------------------------------------------------------------------------


def test_one_game_repeated_in_a_huge_row_group_verifies_in_bounded_memory(tmp_path):
    """Issue 55's file, 10x smaller: one game repeated 500,000 times in one 500,000-row group. The report
    says what the file is (one game found, doubled; the other places hold it instead of their own
    games: damaged), and the counting never keeps a record per row (2.7 GB at 10⁷ rows before)."""
    path = repeated_game_file(tmp_path / "rep.parquet", 500_000, 500_000)
    tracemalloc.start()
    try:
        report = fastsnake.verify_sweep(path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (report["rows"], report["doubled_games"], report["damaged_games"], report["missing_games"]) == \
        (500_000, 1, 499_999, 0)
    assert report["doubled"] == [[0, 0]] and report["damaged"] == [[1, 499_999]]
    assert not report["ok"] and "row 1 holds game 0" in report["problems"][0]
    assert peak < 64 << 20, f"{peak >> 20} MiB of Python objects"


@pytest.mark.slow
def test_the_issues_repeated_game_file_peaks_below_600_mb(tmp_path):
    """The issue's own case: 10⁷ rows in 1 M-row groups (612 kB); verify peaked at 2.7 GB."""
    path = repeated_game_file(tmp_path / "rep.parquet", 10**7, 10**6)
    code = f"import fastsnake; r = fastsnake.verify_sweep({str(path)!r}); print(r['damaged_games'], r['doubled_games'])"
    # (measured by a small launcher's wait4: a child started from this process reports this one's peak)
    launcher = ("import os, subprocess, sys\n"
                "child = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, text=True)\n"
                "out = child.stdout.read()\n"
                "_, status, usage = os.wait4(child.pid, 0)\n"
                "print(out.strip(), usage.ru_maxrss)\n")
    out = subprocess.run([sys.executable, "-c", launcher, sys.executable, "-c", code], capture_output=True,
                         text=True, check=True, env=dict(os.environ, PYTHONPATH=os.getcwd())).stdout.split()
    assert out[:2] == [str(10**7 - 1), "1"] and int(out[2]) < 600 << 10, out


def test_verify_counts_stay_whole_where_the_rows_are_fine(tmp_path):
    path = sweep_file(tmp_path / "s.parquet", 1000, row_group=300)
    report = fastsnake.verify_sweep(path)
    assert report["complete"] and (report["rows"], report["damaged_games"], report["missing_games"]) == (1000, 0, 0)


def test_swapped_rows_are_damaged_where_they_stand(tmp_path):
    path = sweep_file(tmp_path / "s.parquet", 600)
    table = pq.read_table(path)
    order = np.arange(600)
    order[[10, 11]] = [11, 10]
    pq.write_table(table.take(order), path, write_page_checksum=True)
    report = fastsnake.verify_sweep(path)
    assert report["damaged"] == [[10, 11]] and report["doubled_games"] == 0 and report["missing_games"] == 0


def test_a_footer_longer_than_the_cap_is_refused_before_it_is_parsed(tmp_path, capsys, monkeypatch):
    path = sweep_file(tmp_path / "s.parquet", 10, options={"x": "a" * 200_000})
    monkeypatch.setattr(files, "PARQUET_FOOTER_MAX", 100_000)
    for argv in (["verify", str(path)], ["report", str(path), "--out", str(tmp_path / "r.html")]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "footer declares" in err and len(err) < 400, err[:500]


def test_options_longer_than_a_sweep_holds_are_one_short_line(tmp_path, capsys):
    """Options of 200,000 characters in the footer (under its cap): refused in one short line, not
    quoted whole (the old line was as long as the options)."""
    path = sweep_file(tmp_path / "s.parquet", 10, options={"x": "a" * 200_000})
    for argv in (["verify", str(path)], ["replay", "--from", str(path), "--pick", "0",
                                         "--out", str(tmp_path / "g.npz")]):
        assert main(argv) == 2
        captured = capsys.readouterr()
        assert captured.err.count("\n") == 1 and len(captured.err) < 400, captured.err[:500]
        assert len(captured.out) < 400


@pytest.mark.parametrize("rows, chars", [(3000, 100_000), (2000, 50_000_000)], ids=["100k", "50M"])
def test_a_long_options_column_is_refused_unread(tmp_path, capsys, rows, chars):
    """The options column's one dictionary entry, long, over many rows: the old code cast it to a
    string a row (300 MB; 100 GB for the issue's 50 MB options, an ArrowMemoryError, exit 1)."""
    path = sweep_file(tmp_path / "s.parquet", rows, column_text={"options": '{"x":"' + "a" * chars + '"}'})
    for argv in (["verify", str(path)], ["report", str(path), "--out", str(tmp_path / "r.html")],
                 ["replay", "--from", str(path), "--pick", "0", "--out", str(tmp_path / "g.npz")]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and len(err) < 400 and "options" in err, err[:500]


def test_a_row_group_declaring_more_than_its_columns_hold_is_refused(tmp_path):
    """A column chunk of 25 MB of options text for 10 rows (plain-encoded, so no dictionary bounds it)."""
    path = tmp_path / "s.parquet"
    sweep_file(path, 10)
    table = pq.read_table(path)
    big = pa.array(['{"x":"' + "a" * 2_500_000 + '"}'] * 10)
    table = table.set_column(table.schema.get_field_index("options"), "options", big)
    pq.write_table(table, path, use_dictionary=False, write_page_checksum=True)
    with pytest.raises(InputError, match="declares .* bytes for 10 rows"):
        store.read_sweep(path)


# -- counts the engine can index -----------------------------------------------------------------------


def test_games_past_what_the_engine_indexes_is_refused(tmp_path, capsys):
    with pytest.raises(ValueError, match="99999999999999999999999999.*int64") as caught:
        fastsnake.sweep("cycle", 6, 99999999999999999999999999)
    assert isinstance(caught.value, InputError)
    with pytest.raises(InputError, match=str(rng.MAX_GAMES + 1)):
        fastsnake.sweep("cycle", 6, rng.MAX_GAMES + 1)
    for verb in ("sweep --policy cycle", "compare --policies cycle,greedy"):
        argv = verb.split() + ["--size", "6", "--games", "99999999999999999999999999"]
        assert main(argv + (["--out", str(tmp_path / "s.parquet")] if verb.startswith("sweep") else [])) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "int64" in err, err


def test_a_game_index_past_int64_is_bad_input():
    from fastsnake.snake.board import GameConfig
    from fastsnake.snake.replay import compile_and_play

    with pytest.raises(InputError, match="2\\*\\*63"):
        compile_and_play("cycle", GameConfig(6, 6, 3, "follow", 1000), 0, 2**64)


# -- text from a file, printed -------------------------------------------------------------------------


def test_printable_escapes_control_characters_and_clips():
    assert files.printable(EVIL_NAME) == "\\x1b]0;PWNED\\x07\\x1b[2J\\nforged line\\u202e"
    assert files.printable("naïve 5×5 ok\t") == "naïve 5×5 ok\t"
    long = files.clipped("a" * 10_000)
    assert len(long) < 240 and long.endswith("(10,000 characters)")


def test_a_policy_name_with_escapes_is_printed_escaped(tmp_path, capsys):
    """The report's "wrote ..." line and its error quoted a policy name a file held raw: a terminal
    got its title set and its screen cleared."""
    path = sweep_file(tmp_path / "s.parquet", 100, policy=EVIL_NAME)
    main(["report", str(path), "--out", str(tmp_path / "r.html"), "--sample", "0"])
    captured = capsys.readouterr()
    for text in (captured.out, captured.err):
        assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
    assert "\\x1b]0;PWNED\\x07" in captured.out
    assert "forged line" not in captured.out.replace("\\nforged line", "")


def test_errors_and_notes_are_escaped_and_cut(capsys):
    common.fail("bad \x1b[2J" + "x" * 10_000, 2)
    common.log("note \x1b]0;t\x07")
    err = capsys.readouterr().err
    assert "\x1b" not in err and "\x07" not in err and err.count("\n") == 2 and len(err) < 2200


def test_the_cli_stdout_escapes_what_any_printer_writes(capsys):
    with common.escaped_stdout():
        print(f"policy {EVIL_NAME}\nnext")
    out = capsys.readouterr().out
    assert out == "policy \\x1b]0;PWNED\\x07\\x1b[2J\nforged line\\u202e\nnext\n"


def test_a_chunk_size_past_the_games_a_sweep_holds_is_refused(tmp_path):
    """A chunk size of 10²³ was accepted and written into a folder's manifest, which every reader then
    called damaged (its chunk_size past 2**62)."""
    with pytest.raises(InputError, match="chunk_size=100000000000000000000000"):
        fastsnake.sweep("cycle", 6, 100, out=tmp_path / "d", chunk_size=10**23)
    assert not (tmp_path / "d").exists()
