"""fastsnake.envs.sb3: SB3's own checks, our VecEnv against DummyVecEnv, wrappers, masks, a trained agent."""

import warnings

import numpy as np
import pytest

pytest.importorskip("gymnasium")
REASON = "needs stable-baselines3, sb3-contrib and torch: pip install torch==2.13.0 'fastsnake[rl-train]'"
for _module in ("torch", "stable_baselines3", "sb3_contrib"):
    pytest.importorskip(_module, reason=REASON)

from sb3_contrib import MaskablePPO  # noqa: E402
from sb3_contrib.common.maskable.utils import get_action_masks, is_masking_supported  # noqa: E402
from stable_baselines3.common.env_checker import check_env  # noqa: E402
from stable_baselines3.common.preprocessing import is_image_space  # noqa: E402
from stable_baselines3.common.vec_env import DummyVecEnv, VecFrameStack, VecMonitor, VecNormalize  # noqa: E402

import fastsnake.envs as E  # noqa: E402
from fastsnake.envs.sb3 import SnakeVecEnv, model_agent, policy_kwargs  # noqa: E402
from fastsnake.errors import InputError  # noqa: E402


def warnings_of(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    return [str(w.message) for w in caught]


def test_sb3_check_env_on_each_observation():
    assert warnings_of(lambda: check_env(E.SnakeEnv(size=6, obs="features"))) == []
    for obs in ("planes", "egocentric"):
        planes = warnings_of(lambda: check_env(E.SnakeEnv(size=6, obs=obs)))  # noqa: B023
        # SB3's notes that its default NatureCNN needs 36x36 images of 0..255 (BoardCNN is for small boards
        # of 0/1 planes: a 0/1 space is what keeps SB3 from guessing at, and transposing, the channel axis).
        assert len(planes) == 2 and "36x36" in planes[1] and "[0, 255]" in planes[0]
    grid = warnings_of(lambda: check_env(E.SnakeEnv(size=6)))
    assert any("unconventional shape" in w for w in grid)  # why obs="planes" and "features" exist
    space = SnakeVecEnv(2, size=6, obs="planes").observation_space
    assert not is_image_space(space)  # so SB3 never transposes it (VecTransposeImage) nor divides it by 255


def lockstep(kwargs, n, seed, steps, risk, play):
    """Step SnakeVecEnv and DummyVecEnv over SnakeEnvs with the same actions; compare everything SB3 reads."""
    ours = SnakeVecEnv(n, threads=1, **kwargs)
    theirs = DummyVecEnv([lambda: E.SnakeEnv(**kwargs)] * n)
    ours.seed(seed)
    theirs.seed(seed)
    a, b = ours.reset(), theirs.reset()
    assert a.dtype == b.dtype and np.array_equal(a, b)
    rng = np.random.default_rng(play)
    ended = 0
    for _ in range(steps):
        masks = ours.action_masks()
        assert np.array_equal(masks, get_action_masks(theirs).astype(bool))
        actions = np.array([rng.integers(4) if rng.random() < risk or not m.any() else rng.choice(np.flatnonzero(m))
                            for m in masks])
        oa, ra, da, ia = ours.step(actions)
        ob, rb, db, ib = theirs.step(actions)
        assert np.array_equal(oa, ob) and np.array_equal(ra, rb) and np.array_equal(da, db)
        assert ra.dtype == np.float32 and da.dtype == np.bool_
        for i in np.flatnonzero(da):
            ended += 1
            assert np.array_equal(ia[i]["terminal_observation"], ib[i]["terminal_observation"])
            for key in ("TimeLimit.truncated", "apples", "moves", "length", "seed", "game"):
                assert ia[i][key] == ib[i][key], key
        assert all(ia[i] == {} for i in np.flatnonzero(~da))
    return ended


@pytest.mark.parametrize("kwargs", [dict(size=5, obs="planes"), dict(size=(4, 6), obs="features", tail="blocked"),
                                    dict(size=4, obs="grid", max_episode_steps=30)])
def test_vecenv_equals_dummy_vec_env_across_resets(kwargs):
    assert lockstep(kwargs, n=4, seed=11, steps=300, risk=0.05, play=3) > 4


def test_wrappers_on_top():
    env = VecFrameStack(VecNormalize(VecMonitor(SnakeVecEnv(3, size=5, obs="features", max_episode_steps=20))), 2)
    env.seed(0)
    obs = env.reset()
    assert obs.shape == (3, 2 * len(E.FEATURE_NAMES))
    assert is_masking_supported(env) and get_action_masks(env).shape == (3, 4)
    episodes = 0
    for _ in range(60):
        obs, reward, done, info = env.step(get_action_masks(env).argmax(axis=1))
        for i in np.flatnonzero(done):
            episodes += 1
            assert info[i]["terminal_observation"].shape == obs.shape[1:] and "episode" in info[i]
    assert episodes >= 3 and env.get_attr("render_mode") == [None] * 3
    stacked = VecFrameStack(SnakeVecEnv(2, size=6, obs="planes"), 3, channels_order="first")
    assert stacked.reset().shape == (2, 15, 6, 6)  # channels first: planes are stacked as channels


def test_attributes_methods_and_errors():
    env = SnakeVecEnv(3, size=6, obs="features", render_mode="rgb_array")
    env.seed(5)
    env.reset()
    assert env.env_method("seed_and_game") == [(5, 0), (6, 0), (7, 0)]
    env.seed(5)
    env.set_options({"game": 4})
    env.reset()
    single = E.SnakeEnv(size=6, obs="features")
    assert np.array_equal(env.reset()[2], single.reset(seed=7, options={"game": 5})[0])  # options last one reset
    assert env.env_method("seed_and_game") == [(5, 5), (6, 5), (7, 5)]
    assert env.get_attr("obs", indices=[0, 2]) == ["features", "features"]
    assert [f.shape[2] for f in env.get_images()] == [3, 3, 3]
    assert np.array_equal(np.stack(env.env_method("action_masks", indices=[1])), env.action_masks()[1:2])
    assert env.env_is_wrapped(VecMonitor) == [False] * 3
    mask_of_2 = env.get_attr("action_masks", indices=[2])[0]
    assert np.array_equal(mask_of_2(), env.action_masks()[2])
    assert np.array_equal(env.env_method("body", indices=1)[0], env.body(1))
    with pytest.raises(AttributeError):
        env.get_attr("no_such_thing")
    with pytest.raises(AttributeError):
        env.env_method("no_such_thing")
    with pytest.raises(InputError, match="action 9"):
        env.step(np.array([0, 9, 1]))
    with pytest.raises(InputError, match="obs="):
        SnakeVecEnv(2, size=6, obs="pixels")
    with pytest.raises(InputError, match="threads"):
        SnakeVecEnv(2, size=6, threads=0)


def test_maskable_ppo_trains_and_plays_through_compare():
    import fastsnake

    env = SnakeVecEnv(8, size=6, obs="features", threads=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the bar: no warnings
        model = MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=128, n_epochs=2, seed=0,
                            policy_kwargs=policy_kwargs("features"), device="cpu")
        model.learn(2048)
    assert model.num_timesteps >= 2048
    agent = model_agent(model)
    policy = fastsnake.Policy(E.agent_policy(agent, masked=True, obs="features"), summary="MaskablePPO smoke")
    fastsnake.register_policy("ppo-smoke", policy, replace_existing=True)
    try:  # the registry is process-wide: leave it as it was for the tests after this one
        table = fastsnake.compare(["ppo-smoke", "cycle"], 6, 3, seed=9, max_moves=200)
        # Game k of the compare is the model playing game k of seed 9 in the env, move for move.
        rows = fastsnake.sweep("ppo-smoke", 6, 3, seed=9, max_moves=200).table
    finally:
        fastsnake.unregister_policy("ppo-smoke")
    assert table.column("policy").to_pylist() == ["ppo-smoke", "cycle"]
    assert table.column("games").to_pylist() == [3, 3]
    single = E.SnakeEnv(size=6, obs="features", max_moves=200)
    for k in range(3):
        obs, info = single.reset(seed=9, options={"game": k})
        done = False
        while not done:
            obs, _, terminated, truncated, info = single.step(agent(obs, info["action_mask"]))
            done = terminated or truncated
        assert (info["moves"], info["apples"]) == (rows.column("moves")[k].as_py(), rows.column("apples")[k].as_py())


def test_training_example_writes_log_checkpoint_and_policy(tmp_path, capsys):
    """examples/rl: a tiny training run, then its policy.pt through compare_agent.py."""
    import csv
    import importlib.util
    from pathlib import Path

    import fastsnake

    folder = Path(__file__).resolve().parents[2] / "examples" / "rl"

    def example(name):
        spec = importlib.util.spec_from_file_location(name, folder / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    out = tmp_path / "run"
    train = example("train_maskable_ppo")
    assert train.main(["--size", "6", "--obs", "features", "--envs", "4", "--n-steps", "64", "--batch-size", "64",
                       "--steps", "512", "--checkpoint-every", "256", "--net", "16", "--out", str(out)]) == 0
    with open(out / "log.csv", newline="", encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert [int(r["steps"]) for r in rows] == [256, 512]
    assert (out / "model.zip").stat().st_size > 0 and not list(out.glob("*.partial.*"))
    compare = example("compare_agent")
    png = tmp_path / "curve.png"
    capsys.readouterr()
    try:
        assert compare.main([str(out / "policy.pt"), "--size", "6", "--obs", "features", "--games", "2",
                             "--policies", "greedy", "--plot", str(out / "log.csv"), str(png)]) == 0
    finally:
        fastsnake.unregister_policy(compare.AGENT)
    table = capsys.readouterr().out
    assert "| maskable-ppo | 2 |" in table and "| greedy | 2 |" in table
    assert png.read_bytes().startswith(b"\x89PNG")


@pytest.mark.parametrize("policy,cnn", [("CnnPolicy", True), ("MlpPolicy", False)])
def test_planes_train_without_warnings(policy, cnn):
    env = SnakeVecEnv(4, size=6, obs="planes", threads=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = MaskablePPO(policy, env, n_steps=32, batch_size=64, n_epochs=1, device="cpu",
                            policy_kwargs=policy_kwargs("planes", cnn=cnn))
        model.learn(128)
    assert model.policy.normalize_images is False
    assert type(model.policy.features_extractor).__name__ == ("BoardCNN" if cnn else "FlattenExtractor")


def first_conv(model):
    import torch

    return next(m for m in model.policy.modules() if isinstance(m, torch.nn.Conv2d))


def test_frame_stacks_reach_the_cnn_channels_first():
    """The issue's recipe: 4 stacked frames of planes give the CNN 20 input channels on the 6x6 board,
    through SB3's VecFrameStack over SnakeVecEnv and through Gymnasium's stacking over SnakeEnv, and
    both stacks hold the same observations step for step."""
    from gymnasium.wrappers import FrameStackObservation, ReshapeObservation
    from stable_baselines3.common.vec_env import VecTransposeImage, is_vecenv_wrapped

    ours = VecFrameStack(SnakeVecEnv(3, size=6, obs="planes", threads=1), 4, channels_order="first")

    def stacked_single():
        return ReshapeObservation(FrameStackObservation(E.SnakeEnv(size=6, obs="planes"), 4, padding_type="zero"),
                                  (20, 6, 6))

    theirs = DummyVecEnv([stacked_single] * 3)
    for env in (ours, theirs):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            model = MaskablePPO("CnnPolicy", env, n_steps=16, batch_size=48, n_epochs=1, device="cpu",
                                policy_kwargs=policy_kwargs("planes", cnn=True))
        assert not is_vecenv_wrapped(model.get_env(), VecTransposeImage)
        assert model.observation_space.shape == (20, 6, 6) and first_conv(model).in_channels == 20
    model.learn(48)  # trains on the gymnasium-stacked envs (masks reach it through the wrappers)
    ours.seed(4)
    theirs.seed(4)
    a, b = ours.reset(), theirs.reset()
    rng = np.random.default_rng(0)
    for _ in range(150):
        assert np.array_equal(a, b)
        masks = get_action_masks(theirs)
        actions = np.array([rng.choice(np.flatnonzero(m)) if m.any() and rng.random() > 0.1 else rng.integers(4)
                            for m in masks])
        a, ra, da, _ = ours.step(actions)
        b, rb, db, _ = theirs.step(actions)
        assert np.array_equal(ra, rb) and np.array_equal(da, db)


def test_egocentric_trains_with_board_cnn():
    env = SnakeVecEnv(4, size=6, obs="egocentric", view=7, threads=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = MaskablePPO("CnnPolicy", env, n_steps=16, batch_size=32, n_epochs=1, device="cpu",
                            policy_kwargs=policy_kwargs("egocentric", cnn=True))
        model.learn(64)
    assert model.observation_space.shape == (4, 7, 7) and first_conv(model).in_channels == 4
