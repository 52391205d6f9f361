"""Bad input to a verb the interpreted tier may take is one line and exit 2, and starts no background
compile (issue 55: a wrong tile count started a 45 s compile and printed two lines). In-process: the
background start and the exec are replaced by recorders, so nothing compiles or is replaced."""

import pytest

from fastsnake.cli import main
from fastsnake.warm import tier


@pytest.fixture
def launches(tmp_path, monkeypatch):
    """A cold cache (nothing marked compiled: every small job would be tiered), and what the tier
    started: the background compiles and the interpreted runs."""
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    for name in ("FASTSNAKE_TIER", "NUMBA_DISABLE_JIT", tier.CHILD_ENV, "FASTSNAKE_QUIET_COMPILE"):
        monkeypatch.delenv(name, raising=False)
    started = []

    class Replaced(BaseException):  # as exec would, it leaves main at once
        pass

    def start(parts):
        started.append(("background", list(parts)))
        return True

    def become_interpreted(argv):
        started.append(("interpreted", list(argv)))
        raise Replaced  # the process would be replaced here

    monkeypatch.setattr(tier, "start_background_warm", start)
    monkeypatch.setattr(tier, "exec_interpreted", become_interpreted)
    monkeypatch.setattr(tier, "_writable", lambda root: True)
    return started, Replaced


BAD = [
    # (argv, words the one line names)
    (["puzzle", "solve", "--size", "3", "--start", "1 2 3"], "tiles"),
    (["puzzle", "solve", "--size", "3", "--start", "0 1 2 3 4 5 6 7 7"], "start"),
    (["puzzle", "solve", "--size", "3", "--start", "0 1 2 3 4 5 6 7 8", "--goal", "1 2"], "goal"),
    (["puzzle", "solve", "--size", "3", "--start", "0 1 2 3 4 5 6 7 8", "--memory-budget", "lots"], "lots"),
    (["puzzle", "solve", "--size", "3", "--start", "0 1 2 3 4 5 6 7 8", "--threads", "2", "--algorithm", "astar"],
     "--threads"),
    (["puzzle", "solve", "--size", "3", "--start", "0 1 2 3 4 5 6 7 8", "--save", "/nonexistent-dir/s.json"],
     "--save"),
    (["tour", "--piece", "9,9,9", "--size", "5"], "9,9,9"),
    (["tour", "--piece", "knight", "--size", "5", "--start", "z9"], "z9"),
    (["tour", "--piece", "knight", "--size", "5", "--count", "--save", "t.npz"], "--save"),
    (["tour", "--piece", "knight", "--size", "5", "--save", "t.txt"], "t.txt"),
    (["reach", "--piece", "knight", "--size", "5", "--start", "9,9", "--jumps", "2"], "9"),
    (["play", "--policy", "cycle", "--size", "6", "--start-length", "99"], "start length"),
    (["play", "--policy", "cycle", "--size", "6", "--opt", "nosuch=1"], "nosuch"),
    (["sweep", "--policy", "cycle", "--size", "6", "--games", "3", "--max-moves", "0"], "max moves"),
    (["compare", "--policies", "cycle", "--size", "6,7", "--games", "3", "--start-length", "99"], "start length"),
]


@pytest.mark.parametrize("argv,named", BAD, ids=[" ".join(a[:2]) + f" {i}" for i, (a, _) in enumerate(BAD)])
def test_bad_input_is_one_line_and_starts_no_compile(launches, capsys, argv, named):
    started, _ = launches
    code = main(argv, tiered=True)
    err = capsys.readouterr().err
    assert code == 2
    assert started == []
    assert err.count("\n") == 1 and err.startswith("fastsnake: error: "), err
    assert named in err


def test_good_small_input_still_takes_the_tier(launches, capsys):
    """The checks refuse only bad input: a good small call still compiles in the background and runs
    interpreted (the recorders above see both)."""
    started, replaced = launches
    with pytest.raises(replaced):
        main(["puzzle", "solve", "--size", "3", "--start", "1 0 2 3 4 5 6 7 8"], tiered=True)
    with pytest.raises(replaced):
        main(["tour", "--piece", "knight", "--size", "5"], tiered=True)
    assert [kind for kind, _ in started] == ["background", "interpreted"] * 2
    assert started[0][1] == ["puzzle"] and started[2][1] == ["tour"]
