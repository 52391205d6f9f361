"""Sweeps: analytic expectations, determinism, records, and replays of swept games."""

import math

import numba
import numpy as np
import pytest
import snake_naive as naive

from fastsnake.snake.board import GameConfig
from fastsnake.snake.engine import DIED, OUTCOME_NAMES, WON
from fastsnake.snake.replay import (
    ReplayError,
    load_replay,
    play_game,
    replay_from_sweep,
    save_replay,
)
from fastsnake.snake.sweep import SweepError, read_parquet, run_sweep, summarize, write_parquet


def cycle_expectation(cells, start_length):
    """Mean and variance of a cycle follower's moves: the apple is uniform on the
    N-L free cells, all ahead of the head on the cycle, so each apple costs a
    uniform 1..N-L moves."""
    mean = sum((cells - L + 1) / 2 for L in range(start_length, cells))
    var = sum(((cells - L) ** 2 - 1) / 12 for L in range(start_length, cells))
    return mean, var


@pytest.mark.parametrize(
    "rows,cols,kind,tail",
    [(10, 10, "zigzag", "follow"), (10, 10, "random", "blocked"), (6, 9, "zigzag", "blocked"),
     (7, 10, "random", "follow")],
)
def test_cycle_follower_matches_the_analytic_expectation(rows, cols, kind, tail):
    games = 20_000
    config = GameConfig(rows, cols, 3, tail)
    result = run_sweep("cycle", config, games, seed=2024, options={"cycle": kind})
    mean, var = cycle_expectation(rows * cols, 3)
    if (rows, cols) == (10, 10):
        assert mean == 2425
    se = math.sqrt(var / games)
    assert np.all(result.outcome == WON)
    assert np.all(result.length == rows * cols)
    assert abs(result.moves.mean() - mean) < 4 * se
    assert abs(result.moves.std() / math.sqrt(var) - 1) < 0.05


def test_cycle_sweep_equals_a_plain_python_game():
    """End to end: seed derivation, start body, apples and moves, against the reference."""
    rows, cols, length = 4, 6, 3
    config = GameConfig(rows, cols, length)
    result = run_sweep("cycle", config, 30, seed=99)
    cells = [r * cols + c for r in range(rows) for c in (range(1, cols) if r % 2 == 0 else range(cols - 1, 0, -1))]
    cells += [r * cols for r in range(rows - 1, -1, -1)]
    nxt = {cells[k]: cells[(k + 1) % len(cells)] for k in range(len(cells))}
    for i in range(30):
        seed = naive.game_seed(99, i)
        rng = naive.SplitMix(seed)
        head_pos = rng.below(len(cells))
        body = [cells[(head_pos - length + 1 + k) % len(cells)] for k in range(length)]
        game = naive.Game(rows, cols, body, seed=seed)
        game.rng = rng  # the apples continue the same stream
        game.free = [c for c in range(rows * cols) if c not in body]
        game.apple = game.free[rng.below(len(game.free))]
        while game.outcome == "running":
            head = game.body[-1]
            move = next(m for m in range(4) if naive.neighbour(rows, cols, head, m) == nxt[head])
            game.step(move)
        assert OUTCOME_NAMES[result.outcome[i]] == game.outcome
        assert result.moves[i] == game.moves


@pytest.mark.skipif(numba.config.NUMBA_NUM_THREADS < 2, reason="needs 2 threads")
@pytest.mark.parametrize("policy,options", [("greedy", {}), ("cycle", {"cycle": "random"})])
def test_results_do_not_depend_on_threads_or_chunks(policy, options):
    config = GameConfig(8, 8, 3, "follow")
    runs = [
        run_sweep(policy, config, 301, seed=5, threads=1, chunk_size=301, options=options),
        run_sweep(policy, config, 301, seed=5, threads=2, chunk_size=7, options=options),
        run_sweep(policy, config, 301, seed=5, threads=2, chunk_size=64, options=options),
    ]
    for other in runs[1:]:
        for field in ("outcome", "moves", "apples", "length"):
            assert np.array_equal(getattr(runs[0], field), getattr(other, field))
    # A sub-range of games is the same games.
    tail = run_sweep(policy, config, 50, seed=5, first_game=251, threads=1, options=options)
    assert np.array_equal(tail.moves, runs[0].moves[251:])


def test_play_is_the_game_the_sweep_played(tmp_path):
    config = GameConfig(8, 8, 3, "blocked")
    result = run_sweep("greedy", config, 40, seed=17)
    for i in (0, 13, 39):
        replay, _ = play_game("greedy", config, seed=17, game=i)
        summary = replay.summary()
        assert OUTCOME_NAMES[result.outcome[i]] == summary["outcome"]
        assert (result.moves[i], result.apples[i], result.length[i]) == (
            summary["moves"], summary["apples"], summary["length"]
        )


check = naive.check


@pytest.mark.parametrize("policy,tail,length",
                         [("greedy", "follow", 3), ("greedy", "blocked", 1), ("cycle", "blocked", 1)])
def test_replays_pass_the_independent_rule_check(tmp_path, policy, tail, length):
    config = GameConfig(6, 6, length, tail)
    for game in range(8):
        options = {"cycle": "random"} if policy == "cycle" else {}
        replay, _ = play_game(policy, config, seed=3, game=game, options=options)
        assert check(replay) is None
        path = tmp_path / f"{policy}-{game}.npz"
        save_replay(replay, path)
        with np.load(path, allow_pickle=False) as raw:
            assert str(raw["format"]) == "fastsnake-replay/1"
        loaded = load_replay(path)
        assert check(loaded) is None
        assert np.array_equal(loaded.moves, replay.moves) and np.array_equal(loaded.apples, replay.apples)
        assert (loaded.cycle is None) == (policy != "cycle")


def test_sweep_records_and_replay_from_them(tmp_path):
    config = GameConfig(7, 7, 3, "follow")
    result = run_sweep("greedy", config, 200, seed=8)
    out = tmp_path / "sweep.parquet"
    write_parquet(result, out)
    params, table = read_parquet(out)
    assert params["policy"] == "greedy" and params["seed"] == 8 and params["rows"] == 7
    assert table.column("moves").to_numpy().tolist() == result.moves.tolist()
    seeds = table.column("seed").to_numpy()
    assert int(seeds[5]) == naive.game_seed(8, 5)
    for pick, index in (("longest", int(np.argmax(result.moves))), ("shortest", int(np.argmin(result.moves))),
                        ("died", int(np.flatnonzero(result.outcome == DIED)[0])), ("123", 123)):
        replay, _ = replay_from_sweep(out, pick)
        assert replay.game == index
        assert replay.summary()["moves"] == result.moves[index]
        assert check(replay) is None


def test_summary_has_the_contract_keys():
    result = run_sweep("cycle", GameConfig(4, 4), 10)
    summary = summarize(result)
    keys = ("policy rows cols games wins deaths stuck win_rate moves_mean moves_std moves_min moves_q25 "
            "moves_median moves_q75 moves_max apples_mean seconds games_per_second moves_per_second").split()
    assert all(k in summary for k in keys)
    assert summary["wins"] == 10 and summary["moves_min"] <= summary["moves_median"] <= summary["moves_max"]


def test_stuck_games_stop_at_the_cap():
    result = run_sweep("cycle", GameConfig(6, 6, max_moves=50), 20)
    assert np.all(result.moves == 50) and np.all(OUTCOME_NAMES[o] == "stuck" for o in result.outcome)


def test_bad_sweeps_are_refused():
    with pytest.raises(SweepError, match="at least 1 game"):
        run_sweep("cycle", GameConfig(4, 4), 0)
    with pytest.raises(SweepError, match="threads=99"):
        run_sweep("cycle", GameConfig(4, 4), 1, threads=99)


def test_broken_replays_are_refused(tmp_path):
    replay, _ = play_game("greedy", GameConfig(5, 5), seed=1)
    good = tmp_path / "good.npz"
    save_replay(replay, good)
    with pytest.raises(ReplayError, match="does not exist"):
        load_replay(tmp_path / "missing.npz")
    junk = tmp_path / "junk.npz"
    junk.write_bytes(b"not a zip")
    with pytest.raises(ReplayError, match="not an .npz archive"):
        load_replay(junk)
    foreign = tmp_path / "foreign.npz"
    np.savez(foreign, x=np.arange(3))
    with pytest.raises(ReplayError, match="'x.npy' is not a field of this file"):  # checked before inflating
        load_replay(foreign)
    with np.load(good, allow_pickle=False) as raw:
        fields = {k: raw[k] for k in raw.files}
    tampered = dict(fields, moves=fields["moves"][:-1])
    bad = tmp_path / "bad.npz"
    np.savez(bad, **tampered)
    with pytest.raises(ReplayError, match="breaks the rules"):
        load_replay(bad)
    np.savez(bad, **dict(fields, outcome=np.array("won")))
    with pytest.raises(ReplayError, match="breaks the rules"):
        load_replay(bad)
    np.savez(bad, **dict(fields, moves=np.array([7], np.uint8)))
    with pytest.raises(ReplayError, match="outside 0..3"):
        load_replay(bad)


def test_results_match_the_golden_file():
    """Sweeps are re-played from seeds, so the same seed must give the same games forever."""
    import json
    from pathlib import Path

    golden = json.loads((Path(__file__).parent / "golden" / "sweeps_seed2026.json").read_text())
    for index, seed in golden["game_seeds"].items():
        assert naive.game_seed(2026, int(index)) == int(seed)
    for run in golden["runs"]:
        config = GameConfig(run["rows"], run["cols"], run["start_length"], run["tail_rule"])
        result = run_sweep(run["policy"], config, len(run["moves"]), seed=run["seed"], options=run["options"])
        assert result.moves.tolist() == run["moves"]
        assert result.outcome.tolist() == run["outcome"]
        assert result.apples.tolist() == run["apples"]


def test_plot_is_written(tmp_path):
    pytest.importorskip("matplotlib")
    from fastsnake.snake.plots import plot_sweeps

    result = run_sweep("greedy", GameConfig(6, 6), 50)
    path = tmp_path / "p.png"
    plot_sweeps([result], path)
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
