"""The shipped egocentric agent (examples/rl/ego6x8): one network that plays 6×6 and 8×8, and the
training script's merge of several board sizes into one SB3 VecEnv. No training here."""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import fastsnake  # noqa: E402

REASON = "needs stable-baselines3, sb3-contrib and torch: pip install torch==2.13.0 'fastsnake[rl-train]'"
ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "rl" / "ego6x8" / "policy.pt"
ROW = ("game", "outcome", "moves", "apples", "length")


def sb3():
    for module in ("torch", "stable_baselines3", "sb3_contrib"):
        pytest.importorskip(module, reason=REASON)


def training_script():
    """examples/rl/train_maskable_ppo.py as a module (examples/ is not a package)."""
    sb3()
    spec = importlib.util.spec_from_file_location("train_maskable_ppo", ROOT / "examples/rl/train_maskable_ppo.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def rows(table):
    return [tuple(r[k] for k in ROW) for r in table.to_pylist()]


def test_the_shipped_agent_plays_two_sizes_the_same_games_twice():
    sb3()
    from fastsnake.envs.model_policy import load_agent

    agent = load_agent(str(EXAMPLE))
    assert (agent.obs, agent.view, agent.board) == ("egocentric", 11, None)
    played = {}
    for size in (6, 8):
        first = fastsnake.sweep(f"model:{EXAMPLE}", size, 3, seed=0, threads=1).table
        again = fastsnake.sweep(f"model:{EXAMPLE}", size, 3, seed=0, threads=1).table
        assert rows(first) == rows(again)
        assert len(first) == 3 and set(first.column("outcome").to_pylist()) <= {"won", "died", "stuck"}
        # A game of this board: the snake's length and apples fit it, and it ate (a trained agent).
        assert max(first.column("length").to_pylist()) <= size * size
        assert sum(first.column("apples").to_pylist()) > 0
        played[size] = rows(first)
        # play() re-makes a row of the sweep exactly.
        game = fastsnake.play(f"model:{EXAMPLE}", size, seed=0, game=1)
        assert (game.outcome, len(game.moves), game.apples) == played[size][1][1:4]
    assert played[6] != played[8]


def test_sizes_vec_env_is_its_parts_side_by_side():
    script = training_script()
    from fastsnake.envs.sb3 import SnakeVecEnv

    def parts():
        return [SnakeVecEnv(2, size=6, obs="egocentric", view=5, threads=1),
                SnakeVecEnv(3, size=8, obs="egocentric", view=5, threads=1)]

    merged, alone = script.SizesVecEnv(parts()), parts()
    assert merged.num_envs == 5 and merged.observation_space.shape == (4, 5, 5)
    merged.seed(7)
    alone[0].seed(7)
    alone[1].seed(7 + 2)  # env i of the whole gets seed S + i, as in one SnakeVecEnv
    obs = merged.reset()
    np.testing.assert_array_equal(obs, np.concatenate([a.reset() for a in alone]))
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        masks = merged.action_masks()
        np.testing.assert_array_equal(masks, np.concatenate([a.action_masks() for a in alone]))
        np.testing.assert_array_equal(np.stack(merged.env_method("action_masks")), masks)
        actions = rng.integers(0, 4, 5)  # unmasked: games end, and reset in the same step
        got = merged.step(actions)
        want = [alone[0].step(actions[:2]), alone[1].step(actions[2:])]
        for k in range(3):
            np.testing.assert_array_equal(got[k], np.concatenate([w[k] for w in want]))
        infos = want[0][3] + want[1][3]
        assert [sorted(i) for i in got[3]] == [sorted(i) for i in infos]
        assert [i.get("apples") for i in got[3]] == [i.get("apples") for i in infos]
        ended += int(got[2].sum())
    assert ended > 0  # the run crossed same-step resets
    assert merged.get_attr("rows") == [6, 6, 8, 8, 8]


def test_several_sizes_need_an_observation_of_one_shape():
    script = training_script()
    with pytest.raises(SystemExit):
        script.parse_args(["--size", "6,8", "--obs", "planes", "--out", "x"])
    with pytest.raises(SystemExit):
        script.parse_args(["--size", "6", "--obs", "planes", "--view", "5", "--out", "x"])
    args = script.parse_args(["--size", "6,8", "--obs", "egocentric", "--view", "7", "--out", "x"])
    assert (args.sizes, args.view) == (["6", "8"], 7)
