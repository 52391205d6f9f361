"""model:PATH: saved Stable-Baselines3 agents played as policies, batched, on the sweeps' games.

The models are tiny and untrained, built here with a fixed torch seed (a network's moves are all
that matters: a trained one is no different to play). Without torch the policy's error is tested.
"""

import hashlib
import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("gymnasium")

import fastsnake  # noqa: E402
from fastsnake.snake.policies import PolicyError, get_policy  # noqa: E402

REASON = "needs stable-baselines3, sb3-contrib and torch: pip install torch==2.13.0 'fastsnake[rl-train]'"


def sb3():
    for module in ("torch", "stable_baselines3", "sb3_contrib"):
        pytest.importorskip(module, reason=REASON)
    import torch

    torch.manual_seed(0)
    torch.set_num_threads(1)


def save_model(path, algorithm="MaskablePPO", size=5, obs="planes", view=None, net=(16,)):
    """A tiny untrained model on `size` boards, saved with model.save(); its path."""
    from fastsnake.envs.sb3 import SnakeVecEnv, policy_kwargs

    env = SnakeVecEnv(2, size=size, obs=obs, view=view, threads=1)
    if algorithm == "DQN":
        from stable_baselines3 import DQN

        model = DQN("MlpPolicy", env, policy_kwargs=dict(net_arch=list(net)), seed=0, device="cpu",
                    learning_starts=0, buffer_size=100)
    else:
        if algorithm == "PPO":
            from stable_baselines3 import PPO as Algorithm
        else:
            from sb3_contrib import MaskablePPO as Algorithm
        model = Algorithm("MlpPolicy", env, policy_kwargs=policy_kwargs(obs, net_arch=list(net)), seed=0,
                          device="cpu", n_steps=8, batch_size=16)
    model.save(path)
    return str(path)


def one_pass_a_move(path, size, games, seed=0, obs="planes", view=None):
    """The games as examples/rl/compare_agent.py plays them: a plain-Python policy, predict() a move
    (with the mask where predict takes one: `model_agent`)."""
    from fastsnake.envs import agent_policy
    from fastsnake.envs.model_policy import load_agent
    from fastsnake.envs.sb3 import model_agent

    policy = load_agent(path).policy
    decide = agent_policy(model_agent(policy), masked=True, obs=obs, view=view)
    return fastsnake.sweep(fastsnake.Policy(decide), size, games, seed, threads=1).table


ROW = ("game", "outcome", "moves", "apples", "length")


def rows(table):
    return [tuple(r[k] for k in ROW) for r in table.to_pylist()]


def test_masked_ppo_zip_and_pt_play_the_one_pass_a_move_games(tmp_path):
    sb3()
    path = save_model(tmp_path / "m.zip")
    swept = fastsnake.sweep(f"model:{path}", 5, 40, seed=3, threads=1)
    assert rows(swept.table) == rows(one_pass_a_move(path, 5, 40, seed=3))
    assert swept.summary["policy"] == f"model:{path}"
    assert swept.summary["options"] == {"sha256": hashlib.sha256(open(path, "rb").read()).hexdigest()}
    # The policy saved alone (policy.save, as examples/rl writes policy.pt) plays the same games.
    from sb3_contrib import MaskablePPO

    MaskablePPO.load(path, device="cpu").policy.save(tmp_path / "policy.pt")
    alone = fastsnake.sweep(f"model:{tmp_path / 'policy.pt'}", 5, 40, seed=3, threads=1)
    assert rows(alone.table) == rows(swept.table)


def test_a_game_does_not_depend_on_its_batch(tmp_path, monkeypatch):
    """Game k alone (play, a batch of one), in a sweep of many, and with other slot counts: the same game."""
    sb3()
    from fastsnake.envs import model_policy

    path = save_model(tmp_path / "m.zip", size=6, net=(64, 64))
    # 60 games: one batch of all of them at the default SLOTS, nine of up to 7 (refilled slots) below.
    many = rows(fastsnake.sweep(f"model:{path}", 6, 60, seed=1, threads=1).table)
    monkeypatch.setattr(model_policy, "SLOTS", 7)  # other batches: 7 games at a time, other neighbours
    assert rows(fastsnake.sweep(f"model:{path}", 6, 60, seed=1, threads=1).table) == many
    for k in (0, 5, 59):
        game = fastsnake.play(f"model:{path}", 6, seed=1, game=k)
        assert (k, game.outcome, len(game.moves), game.apples) == (many[k][0], many[k][1], many[k][2], many[k][3])


@pytest.mark.slow  # three more models, each checked against the one-pass-a-move path: kept out of the quick suite
@pytest.mark.parametrize("algorithm,obs", [("PPO", "features"), ("DQN", "planes"), ("MaskablePPO", "egocentric")])
def test_ppo_dqn_and_egocentric_models(tmp_path, algorithm, obs):
    sb3()
    path = save_model(tmp_path / "m.zip", algorithm=algorithm, obs=obs, view=5 if obs == "egocentric" else None)
    got = fastsnake.sweep(f"model:{path}", 5, 20, seed=0, threads=1)
    assert rows(got.table) == rows(one_pass_a_move(path, 5, 20, obs=obs, view=5 if obs == "egocentric" else None))
    if obs != "planes":  # features and egocentric views fit any board
        assert fastsnake.sweep(f"model:{path}", 7, 3, threads=1).summary["games"] == 3


def test_errors_name_the_model(tmp_path):
    sb3()
    path = save_model(tmp_path / "m.zip")
    with pytest.raises(PolicyError, match=r"trained on 5x5 boards.*cannot play 6x6"):
        fastsnake.sweep(f"model:{path}", 6, 3)
    with pytest.raises(PolicyError, match="has changed since"):
        fastsnake.play(f"model:{path}", 5, seed=0, game=0, sha256="0" * 64)
    with pytest.raises(PolicyError, match="cannot read the model file"):
        get_policy(f"model:{tmp_path / 'missing.zip'}")
    (tmp_path / "junk.zip").write_bytes(b"not a model")
    with pytest.raises(PolicyError, match="cannot be played"):
        get_policy(f"model:{tmp_path / 'junk.zip'}")
    with pytest.raises(PolicyError, match="no policy family 'nope'"):
        get_policy("nope:x")


def test_replay_checks_the_model_file(tmp_path):
    """A sweep file records the model's SHA-256; replay re-makes its game, and refuses a changed file."""
    sb3()
    path = save_model(tmp_path / "m.zip")
    out = tmp_path / "s.parquet"
    fastsnake.sweep(f"model:{path}", 5, 30, seed=2, threads=1, out=str(out))
    game = fastsnake.replay_game(str(out), pick="longest", models=[path])
    played = fastsnake.play(f"model:{path}", 5, seed=2, game=game.game)
    assert np.array_equal(game.moves, played.moves) and len(game.moves) > 0
    save_model(path, net=(8,))  # another network in the same file
    with pytest.raises(PolicyError, match="no model file given matches it"):
        fastsnake.replay_game(str(out), pick="longest", models=[path])


def test_cli_compare_and_no_torch_error(tmp_path):
    sb3()
    path = save_model(tmp_path / "m.zip")
    run = subprocess.run([sys.executable, "-m", "fastsnake", "compare", "--size", "5", "--games", "30", "--policies",
                          f"greedy,model:{path}", "--threads", "1", "--json"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    import json

    summaries = json.loads(run.stdout)
    assert [s["policy"] for s in summaries] == ["greedy", f"model:{path}"]
    assert summaries[1]["games"] == 30
    # Without torch: one line, exit 2.
    code = ("import sys; sys.modules['torch'] = None; from fastsnake.cli import run; "
            f"sys.argv = ['fastsnake', 'sweep', '--policy', 'model:{path}', '--size', '5', '--games', '3']; run()")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 2
    assert run.stderr.strip().splitlines() == [run.stderr.strip()]
    assert run.stderr.startswith("fastsnake: error: policy 'model:") and "pip install torch==2.13.0" in run.stderr
