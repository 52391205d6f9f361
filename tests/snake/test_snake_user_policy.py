"""Users' own policies: numba decide compiled into the engine, plain Python through apply_move,
entry points found by the API, the CLI and dask workers, and one-line errors for misbehaviour."""

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from numba import njit

import fastsnake
from fastsnake.cli import main
from fastsnake.snake.policies import PolicyError, unregister_policy

# -- one numba policy for most tests: its workspace says what to play -----------------------------
# The engine is compiled once per numba policy, and those compiles are most of this file's cold cost:
# one policy, scripted by script = ws[0] (script[0] the behaviour), stands in for six near-copies.
WALL, SEVEN, RAISES, NOTES, SEEK = 0, 1, 2, 3, 4


@njit(cache=True)
def _scripted(state, ws):
    """What script[0] asks: WALL walks up into the wall; SEVEN returns 7 at move 3, else right or down;
    RAISES raises at move 2, else goes down; NOTES writes the rules into script[1:4] and walks up;
    SEEK reads every field of the state: heads for the apple, else takes any safe move."""
    script = ws[0]
    if script[0] == SEVEN:
        return 7 if state.moves == 3 else 1 if state.neighbours[state.head, 1] >= 0 else 2
    if script[0] == RAISES:
        if state.moves == 2:
            raise ValueError("no idea")
        return 2
    if script[0] == NOTES:
        script[1] = state.tail_follows
        script[2] = state.max_moves
        script[3] = state.start_length
    if script[0] != SEEK:
        return 0
    cols = state.cols
    hr, hc = state.head // cols, state.head % cols
    ar, ac = state.apple // cols, state.apple % cols
    # Rank the moves towards the apple first, then the rest, rotated by the game's seed.
    order = script[4:8]
    rot = state.seed % np.uint64(4)
    for k in range(4):
        order[k] = (k + rot) % 4
    best = -1
    for k in range(4):
        move = order[k]
        target = state.neighbours[state.head, move]
        if target < 0 or (state.occupied[target] != 0 and target != state.tail):
            continue
        closer = (move == 0 and ar < hr) or (move == 2 and ar > hr) or (move == 1 and ac > hc) or (
            move == 3 and ac < hc)
        if closer:
            return move
        if best < 0:
            best = move
    return best if best >= 0 else order[0]


def _scripted_policy(what, compiled, name=None, script=None):
    """A Policy playing `what` (WALL, SEVEN, RAISES, NOTES, SEEK); `script`, if given, is its workspace array."""
    if script is None:
        script = np.zeros(8, np.int64)
    script[0] = what
    decide = _scripted if compiled else _scripted.py_func
    return fastsnake.Policy(decide, alloc=lambda rows, cols: (script,), name=name)


@njit(cache=True)
def _seeker_alloc(rows, cols):
    script = np.zeros(8, np.int64)
    script[0] = SEEK
    return (script,)


SEEKER = fastsnake.Policy(_scripted, alloc=_seeker_alloc, summary="test: apple seeker")
SEEKER_PY = fastsnake.Policy(_scripted.py_func, alloc=_seeker_alloc.py_func, summary="test: apple seeker, Python")


def _rows(table):
    return {c: table.column(c).to_pylist() for c in ("game", "seed", "outcome", "moves", "apples", "length")}


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rows=st.integers(2, 7), cols=st.integers(2, 7), seed=st.integers(0, 2**64 - 1),
       start_length=st.integers(1, 3), tail=st.sampled_from(["follow", "blocked"]))
def test_python_and_numba_paths_play_identical_games(rows, cols, seed, start_length, tail):
    if start_length >= rows * cols:
        start_length = 1
    rules = dict(start_length=start_length, tail=tail, max_moves=400)
    compiled = fastsnake.sweep(SEEKER, (rows, cols), 12, seed, threads=2, **rules)
    python = fastsnake.sweep(SEEKER_PY, (rows, cols), 12, seed, **rules)
    assert _rows(compiled.table) == _rows(python.table)


def test_a_numba_policy_spreads_over_threads_with_the_same_rows():
    one = fastsnake.sweep(SEEKER, 8, 300, 4, threads=1)
    two = fastsnake.sweep(SEEKER, 8, 300, 4, threads=2)
    assert _rows(one.table) == _rows(two.table)
    outcomes = set(one.table.column("outcome").to_pylist())
    assert "died" in outcomes  # the seeker is no saint: the comparison covers losses too


def test_the_example_zigzag_plays_exactly_the_builtin_cycle_games(zigzag_installed):
    for size, tail, start_length in ((6, "follow", 3), ((5, 4), "blocked", 1), ((4, 7), "follow", 2), (2, "follow", 3)):
        rules = dict(tail=tail, start_length=start_length)
        ours = fastsnake.sweep("cycle", size, 200, 9, **rules)
        theirs = fastsnake.sweep("zigzag", size, 200, 9, **rules)
        python = fastsnake.sweep("zigzag-py", size, 15, 9, **rules)
        assert _rows(theirs.table) == _rows(ours.table)
        assert _rows(python.table) == _rows(ours.table.slice(0, 15))
        assert theirs.summary["win_rate"] == 1.0


@pytest.mark.parametrize("policy", [SEEKER, SEEKER_PY], ids=["numba", "python"])
def test_play_matches_the_sweep_row_and_its_replay_checks(tmp_path, capsys, policy):
    table = fastsnake.sweep(policy, (5, 6), 8, 21).table
    for k in (0, 5):
        game = fastsnake.play(policy, (5, 6), 21, game=k)
        row = table.slice(k, 1).to_pylist()[0]
        assert (game.outcome, len(game.moves), game.apples, game.length) == (
            row["outcome"], row["moves"], row["apples"], row["length"])
        path = tmp_path / f"g{k}.npz"
        game.save(path)
        assert main(["replay", "--check", str(path), "--json"]) == 0
        assert json.loads(capsys.readouterr().out)["moves"] == row["moves"]


def test_a_cycle_policy_replay_carries_its_cycle(zigzag_installed, tmp_path):
    game = fastsnake.play("zigzag", 6, 2, game=1)
    ours = fastsnake.play("cycle", 6, 2, game=1)
    assert np.array_equal(game.cycle, ours.cycle) and np.array_equal(game.moves, ours.moves)
    game.save(tmp_path / "z.npz")
    assert np.array_equal(fastsnake.load_game(tmp_path / "z.npz").cycle, ours.cycle)


# -- misbehaving policies: one line, naming the policy and what it did ---------------------------------


@njit(cache=True)
def _walks_into_the_wall(state, ws):
    return 0


@njit(cache=True)
def _not_a_cycle(state, ws):
    return np.arange(state.rows * state.cols)


@pytest.mark.parametrize("compiled", [True, False], ids=["numba", "python"])
def test_a_move_outside_0_to_3_stops_the_run_naming_it(compiled):
    with pytest.raises(PolicyError, match=r"returned 7 in game 0 at move 4; a move must be 0 \(up\)"):
        fastsnake.sweep(_scripted_policy(SEVEN, compiled), 6, 5)
    with pytest.raises(PolicyError, match="returned 7"):
        fastsnake.play(_scripted_policy(SEVEN, compiled), 6)


@pytest.mark.parametrize("compiled", [True, False], ids=["numba", "python"])
def test_a_policy_that_raises_stops_the_run_naming_it(compiled):
    with pytest.raises(PolicyError, match="raised ValueError: no idea"):
        fastsnake.sweep(_scripted_policy(RAISES, compiled), 6, 5)


def test_python_policies_returning_non_moves_are_named():
    with pytest.raises(PolicyError, match=r"returned None in game 0 at move 1"):
        fastsnake.sweep(lambda state, ws: None, 6, 3)
    with pytest.raises(PolicyError, match=r"returned 'up'"):
        fastsnake.sweep(lambda state, ws: "up", 6, 3)


@pytest.mark.parametrize("compiled", [True, False], ids=["numba", "python"])
def test_a_move_into_the_wall_is_an_ordinary_loss(compiled):
    result = fastsnake.sweep(_scripted_policy(WALL, compiled), 6, 20)
    assert result.summary["deaths"] == 20 and result.summary["moves_max"] <= 6


@pytest.mark.parametrize("compiled", [True, False], ids=["numba", "python"])
def test_a_start_cycle_that_is_no_cycle_is_refused(compiled):
    fns = (_walks_into_the_wall, _not_a_cycle) if compiled else (_walks_into_the_wall.py_func, _not_a_cycle.py_func)
    with pytest.raises(PolicyError, match="start_cycle returned no Hamiltonian cycle of the 4x4 board"):
        fastsnake.sweep(fastsnake.Policy(fns[0], start_cycle=fns[1]), 4, 3)


def test_a_policy_with_a_cycle_refuses_odd_boards():
    with pytest.raises(fastsnake.InputError, match="5x5 board has no Hamiltonian cycle"):
        fastsnake.sweep(fastsnake.Policy(_walks_into_the_wall, start_cycle=_not_a_cycle), 5, 3)


def test_not_callable_and_untypable_policies_are_refused():
    with pytest.raises(PolicyError, match="not callable"):
        fastsnake.Policy(42)
    with pytest.raises(PolicyError, match="not a fastsnake.Policy or a callable"):
        fastsnake.register_policy("forty-two", 42)

    @njit
    def tuple_move(state, ws):
        return (1, 2)

    with pytest.raises(PolicyError, match="numba cannot compile it into the engine") as info:
        fastsnake.sweep(tuple_move, 6, 2)
    assert "\n" not in str(info.value)


def test_register_policy_names_and_listing():
    fastsnake.register_policy("test-seeker", SEEKER)
    try:
        assert fastsnake.policies()["test-seeker"] == "test: apple seeker"
        info = fastsnake.policies(details=True)["test-seeker"]
        assert info["kind"] == "numba" and info["options"] == {}
        assert info["origin"] == _scripted.__module__.split(".")[0]
        assert fastsnake.policies(details=True)["greedy"]["origin"] == "fastsnake"
        with pytest.raises(PolicyError, match="'test-seeker' is taken"):
            fastsnake.register_policy("test-seeker", SEEKER_PY)
        with pytest.raises(PolicyError, match="'cycle' is taken"):
            fastsnake.register_policy("cycle", SEEKER_PY)
        with pytest.raises(PolicyError, match="takes no option 'speed'"):
            fastsnake.sweep("test-seeker", 6, 2, speed=3)
    finally:
        unregister_policy("test-seeker")


# -- entry points: the CLI, the API and dask workers find an installed package ----------------------


def _cli(*argv):
    return subprocess.run([sys.executable, "-m", "fastsnake", *argv], capture_output=True, text=True, timeout=600)


def test_the_cli_lists_and_runs_an_installed_policy(zigzag_installed):
    listed = _cli("policies", "--json")
    assert listed.returncode == 0, listed.stderr
    info = json.loads(listed.stdout)
    assert info["zigzag"]["origin"] == "fastsnake-zigzag" and info["zigzag"]["kind"] == "numba"
    assert info["zigzag-py"]["kind"] == "python" and "cycle" in info
    text = _cli("policies").stdout
    assert "zigzag" in text and "[fastsnake-zigzag, numba]" in text
    compared = _cli("compare", "--policies", "cycle,zigzag", "--size", "6", "--games", "300", "--json")
    assert compared.returncode == 0, compared.stderr
    cycle, zigzag = json.loads(compared.stdout)
    assert zigzag["policy"] == "zigzag" and zigzag["moves_mean"] == cycle["moves_mean"]


def test_a_bad_policy_from_the_cli_is_one_line_exit_2(tmp_path):
    module = tmp_path / "badpolicy.py"
    module.write_text("def decide(state, ws):\n    return 9\n")
    info = tmp_path / "badpolicy-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: badpolicy\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[fastsnake.policies]\nnine = badpolicy:decide\nbroken = badpolicy:nothing\n")
    env_cmd = [sys.executable, "-c", "import sys; sys.path.insert(0, sys.argv[1]); from fastsnake.cli import run; "
               "sys.argv = ['fastsnake'] + sys.argv[2:]; run()", str(tmp_path)]
    for argv, needle in ((["sweep", "--policy", "nine", "--size", "6", "--games", "3"], "'nine' returned 9"),
                         (["play", "--policy", "broken", "--size", "6"], "cannot be loaded from 'badpolicy:nothing'")):
        done = subprocess.run(env_cmd + argv, capture_output=True, text=True, timeout=300)
        assert done.returncode == 2
        assert done.stdout == ""
        lines = done.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("fastsnake: error: ") and needle in lines[0], lines


def test_a_local_cluster_sweep_of_an_installed_policy_equals_a_local_sweep(zigzag_installed, tmp_path):
    pytest.importorskip("distributed")
    folder = tmp_path / "cluster"
    done = _cli("sweep", "--policy", "zigzag", "--size", "6", "--games", "1200", "--seed", "3",
                "--chunk-size", "300", "--out", str(folder), "--cluster", "local:2", "--json")
    assert done.returncode == 0, done.stderr
    local = fastsnake.sweep("zigzag", 6, 1200, 3)
    import pyarrow.dataset as ds

    cluster_rows = ds.dataset(str(folder), format="parquet").to_table().sort_by("game")
    assert _rows(cluster_rows) == _rows(local.table)
    assert json.loads(done.stdout)["moves_mean"] == local.summary["moves_mean"]


def test_an_importable_numba_policy_is_compiled_once_and_cached(zigzag_installed, tmp_path):
    script = ("import fastsnake, json; from fastsnake.snake.policies import get_policy; "
              "r = fastsnake.sweep('zigzag', 6, 200, 5); "
              "mod = get_policy('zigzag').sweep_kernel.__self__._cached; "
              "print(json.dumps([r.summary['moves_mean'], dict(mod.sweep.stats.cache_hits).__len__()]))")
    env = dict(__import__("os").environ, NUMBA_CACHE_DIR=str(tmp_path / "numba"))
    runs = [subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env, timeout=600)
            for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[0].stderr + runs[1].stderr
    (mean1, hits1), (mean2, hits2) = (json.loads(r.stdout) for r in runs)
    assert mean1 == mean2 == fastsnake.sweep("cycle", 6, 200, 5).summary["moves_mean"]
    assert (hits1, hits2) == (0, 1)  # the second process loads the first one's machine code
    assert list((tmp_path / "numba").glob("user-kernels/fastsnake_user_*.py"))


# -- the rules in the state, one move type, compile errors that say why --------------------------------


@pytest.mark.parametrize("compiled", [True, False], ids=["numba", "python"])
@pytest.mark.parametrize("tail", ["follow", "blocked"])
def test_a_policy_sees_the_rules_it_plays_under(compiled, tail):
    noted = np.full(8, -1, np.int64)
    policy = _scripted_policy(NOTES, compiled, name=f"notes-{compiled}-{tail}", script=noted)
    fastsnake.sweep(policy, 5, 2, tail=tail, start_length=2, max_moves=77)
    assert noted[1:4].tolist() == [tail == "follow", 77, 2]


@njit(cache=True)
def _returns_what_ws_holds(state, ws):
    return ws[0][0]


# The value types a numba policy can return: every integer width, floats, bools.
MOVE_DTYPES = [np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint64, np.float32, np.float64, np.bool_]


@st.composite
def _returned_values(draw):
    dtype = draw(st.sampled_from(MOVE_DTYPES))
    if dtype is np.bool_:
        value = draw(st.booleans())
    elif np.issubdtype(dtype, np.floating):
        value = draw(st.sampled_from([0.0, 1.0, 1.5, 3.0, -0.5, 4.0, float("nan")]))
    else:
        info = np.iinfo(dtype)
        value = draw(st.integers(0, 3) | st.sampled_from([info.min, info.max, 4, 5]).filter(
            lambda v: info.min <= v <= info.max))
    return dtype, value


def _outcome_of(decide, value, name):
    """The rows of a 3-game sweep of a policy returning `value`, or the message it is refused with."""
    policy = fastsnake.Policy(decide, alloc=lambda rows, cols: (value,), name=name)
    try:
        return _rows(fastsnake.sweep(policy, 4, 3, 5, max_moves=40).table)
    except PolicyError as exc:
        return str(exc).replace(name, "NAME")
    finally:
        unregister_policy(name)


def _same_outcome_on_both_paths(dtype, value, native):
    array = np.array([value], dtype)
    compiled = _outcome_of(_returns_what_ws_holds, array, "move-type-numba")
    # the Python path also gets the value as a plain Python int, float or bool
    returned = array.tolist() if native else array
    python = _outcome_of(_returns_what_ws_holds.py_func, returned, "move-type-python")
    assert compiled == python
    is_move = not np.issubdtype(dtype, np.floating) and dtype is not np.bool_ and 0 <= value <= 3
    assert isinstance(compiled, dict) == is_move
    if not is_move:
        assert "returned " in compiled and "a move must be 0 (up)" in compiled


@pytest.mark.slow  # a kernel per value type: about a minute of compiling on a cold cache
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(typed=_returned_values(), native=st.booleans())
def test_numba_and_python_policies_accept_and_refuse_the_same_moves(typed, native):
    _same_outcome_on_both_paths(*typed, native)


# One value type in the quick suite (each compiles a copy of the engine); the bool, with every other type,
# in the slow hypothesis test above.
@pytest.mark.parametrize("dtype, value", [(np.float64, 1.0), pytest.param(np.bool_, True, marks=pytest.mark.slow)])
def test_floats_and_bools_are_no_moves_on_either_path(dtype, value):
    _same_outcome_on_both_paths(dtype, value, native=True)


def test_a_compile_error_names_the_reason_and_the_users_line():
    @njit
    def untypable(state, ws):
        return state.no_such_field

    line = untypable.py_func.__code__.co_firstlineno + 2
    with pytest.raises(PolicyError) as info:
        fastsnake.sweep(untypable, 5, 2)
    message = str(info.value)
    assert "\x1b" not in message and "\n" not in message
    assert "Unknown attribute 'no_such_field' of type PolicyState" in message
    assert f"{__file__}, line {line})" in message


def test_policy_objects_carry_their_name():
    fastsnake.sweep(_scripted_policy(WALL, True, name="up-up-up"), 5, 2)
    assert "up-up-up" in fastsnake.policies()
    with pytest.raises(PolicyError, match="'cycle' is taken"):
        fastsnake.sweep(fastsnake.Policy(_walks_into_the_wall, name="cycle"), 5, 2)
    with pytest.raises(PolicyError, match="must be 1..64 letters"):
        fastsnake.Policy(_walks_into_the_wall, name="no spaces")
