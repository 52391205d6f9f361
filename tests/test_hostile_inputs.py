"""The hostile round of issue 63: crafted puzzle and tour inputs (FIFOs, devices, 100 MB files, deep
JSON, forged baselines, huge counts, users' heuristics that never return), each ending with exit 2,
3, 4, 130 or 143 in one line, never exit 1 nor a traceback (`tests/hostile_inputs.py` holds the cases).

The quick set runs the cases that read no more than a file in this process (no kernel, no
subprocess: milliseconds each); the slow set runs every case in a subprocess of its own, under a
small launcher that measures its peak resident memory and its time (`hostile_inputs.SECONDS`,
`hostile_inputs.PEAK_BYTES`: CPU-seconds, or wall seconds after a signal), and sends the signal of
a signal case once the process waits on a call it can leave (``FASTSNAKE_READY_FD``'s ``call``).
"""

from __future__ import annotations

import json
import os

import pytest
from hostile_inputs import (
    ALLOWED_CODES,
    CASES,
    PEAK_BYTES,
    QUICK,
    SECONDS,
    run_case,
    time_limit_of,
    warm_heuristics,
)

from fastsnake.cli import main


def test_the_round_has_at_least_60_cases_of_every_kind():
    assert len(CASES) >= 60 and len({c.name for c in CASES}) == len(CASES)
    tags = {t for c in CASES for t in c.tags}
    assert {"file", "baseline", "json", "csv", "heuristic"} <= tags
    assert all(c.codes <= ALLOWED_CODES for c in CASES)


@pytest.mark.parametrize("case", QUICK, ids=[c.name for c in QUICK])
def test_a_hostile_input_is_one_line_and_exit_2(case, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    argv = [str(a) for a in case.make(tmp_path)]
    try:
        code = main(argv)
    except SystemExit as exc:  # argparse refuses it (in a process of its own: the same line and status)
        code = exc.code
    captured = capsys.readouterr()
    assert code in case.codes, (code, captured.err)
    assert captured.err.startswith("fastsnake: error: ") and captured.err.count("\n") == 1, captured.err
    assert "Traceback" not in captured.err and "internal error" not in captured.err


def test_a_quoted_csv_id_keeps_its_comma(tmp_path):
    from fastsnake.puzzle.study import load_instances

    path = tmp_path / "i.csv"
    path.write_text('id,tiles,length\n"a,b","8 6 7 2 5 4 3 0 1",27\nplain,"1 0 2 3 4 5 6 7 8",\n')
    got = load_instances(str(path))
    assert [(i.id, i.optimum) for i in got] == [("a,b", 27), ("plain", None)]
    assert got[0].start == (8, 6, 7, 2, 5, 4, 3, 0, 1)


def test_the_reader_refuses_a_fifo_without_opening_it_for_long(tmp_path):
    from fastsnake.reading import ReadRefused, read_text

    os.mkfifo(tmp_path / "p")
    with pytest.raises(ReadRefused, match="FIFO"):
        read_text(tmp_path / "p", "instances file")
    big = tmp_path / "big.txt"
    with open(big, "wb") as fh:
        fh.truncate(100 << 20)
    with pytest.raises(ReadRefused, match=r"104,857,600 bytes, more than the 67,108,864 bytes \(64 MiB\)"):
        read_text(big, "instances file")


# -- every case in a subprocess: time and memory ------------------------------------------------------

@pytest.fixture(scope="module")
def heuristics_site(tmp_path_factory):
    """The users' heuristics installed, their search kernels compiled once (not part of any case's time)."""
    return warm_heuristics(tmp_path_factory.mktemp("heuristics"))


SUBPROCESS = [c for c in CASES if "search" not in c.tags]


@pytest.mark.slow
@pytest.mark.parametrize("case", SUBPROCESS, ids=[c.name for c in SUBPROCESS])
def test_every_hostile_case_ends_in_time_and_memory(case, tmp_path, request):
    site = request.getfixturevalue("heuristics_site") if case.heuristics else None
    got = run_case(case, tmp_path, site)
    said = json.dumps(got)  # the whole record, stderr included, when an assertion fails
    assert got["code"] in case.codes, said
    assert "Traceback" not in got["err"] and "internal error" not in got["err"], said
    assert got["peak"] <= PEAK_BYTES, said
    if case.signal is not None:
        assert got["after_signal"] <= SECONDS, said
    else:  # CPU-seconds, start-up included; a time limit's seconds added (a user's heuristic spins through it)
        assert got["cpu"] <= SECONDS + time_limit_of(got["argv"]), said


@pytest.mark.slow
def test_a_wrong_published_length_is_bad_input(tmp_path, capsys):
    case = next(c for c in CASES if c.name == "csv:wrong-published-length")
    assert main([str(a) for a in case.make(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "gives length 29" in err and "27 moves" in err and err.count("\n") == 1
