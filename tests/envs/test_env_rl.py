"""The RL path of issue 38: Gymnasium's time limits, the same boards in every env, egocentric views."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

gym = pytest.importorskip("gymnasium")

from env_naive import NaiveEnv, egocentric, features, planes  # noqa: E402

import fastsnake.envs as E  # noqa: E402
from fastsnake.errors import InputError  # noqa: E402

ID = E.ENV_ID


def pick(rng, mask, risk):
    legal = np.flatnonzero(mask)
    if len(legal) == 0 or rng.random() < risk:
        return int(rng.integers(4))
    return int(rng.choice(legal))


# -- time limits: Gymnasium's TimeLimit semantics --------------------------------------------------


def lockstep_time_limit(size, limit, n, seed, steps, risk, play, **kwargs):
    """Our vector env with max_episode_steps against SyncVectorEnv over gym.make(..., max_episode_steps),
    i.e. Gymnasium's own TimeLimit over the single env; returns how often both flags were set."""
    ours = E.SnakeVectorEnv(n, size=size, max_episode_steps=limit, threads=1, **kwargs)
    theirs = gym.vector.SyncVectorEnv([lambda: gym.make(ID, size=size, max_episode_steps=limit, **kwargs)] * n)
    a, ia = ours.reset(seed=seed)
    b, ib = theirs.reset(seed=seed)
    assert np.array_equal(a, b)
    rng = np.random.default_rng(play)
    both = 0
    for _ in range(steps):
        actions = np.array([pick(rng, m, risk) for m in ia["action_mask"]])
        a, ra, ta, ua, ia = ours.step(actions)
        b, rb, tb, ub, ib = theirs.step(actions)
        assert np.array_equal(a, b) and np.array_equal(ra, rb)
        assert np.array_equal(ta, tb) and np.array_equal(ua, ub)
        for key in ("action_mask", "apples", "length", "moves", "game"):
            assert np.array_equal(ia[key], ib[key]), key
        both += int((ta & ua).sum())
    ours.close()
    theirs.close()
    return both


@pytest.mark.parametrize("size,limit,risk,seed", [(4, 6, 0.3, 0), (5, 9, 0.2, 7), ((3, 5), 4, 0.5, 123),
                                                  (6, 25, 0.08, 99)])
def test_time_limit_equals_gymnasium_time_limit(size, limit, risk, seed):
    both = lockstep_time_limit(size, limit, n=8, seed=seed, steps=400, risk=risk, play=seed)
    assert both > 0  # deaths (or wins) on exactly the last step happened, and agreed


@settings(max_examples=12, deadline=None)
@given(size=st.sampled_from([2, 3, (2, 4), 4]), limit=st.integers(1, 12), seed=st.integers(0, 2**40),
       risk=st.sampled_from([0.0, 0.3, 1.0]), tail=st.sampled_from(["follow", "blocked"]))
def test_time_limit_lockstep_hypothesis(size, limit, seed, risk, tail):
    lockstep_time_limit(size, limit, n=3, seed=seed, steps=60, risk=risk, play=seed, tail=tail)


def test_death_on_the_last_step_gives_both_flags():
    """The issue's case, pinned: the single env with max_episode_steps and the vector env agree."""
    env = E.SnakeEnv(size=4, max_episode_steps=2)
    obs, info = env.reset(seed=0)
    env.step(int(np.flatnonzero(info["action_mask"])[0]))
    fatal = [m for m in range(4) if env.action_masks()[m] == 0][0]
    _, reward, terminated, truncated, _ = env.step(fatal)
    assert (reward, terminated, truncated) == (-1.0, True, True)
    vec = E.SnakeVectorEnv(1, size=4, max_episode_steps=2)
    _, info = vec.reset(seed=0)
    vec.step(np.array([np.flatnonzero(info["action_mask"][0])[0]]))
    _, _, terminated, truncated, _ = vec.step(np.array([fatal]))
    assert terminated[0] and truncated[0]


def test_sb3_adapter_time_limit_truncation_flag():
    """SB3's TimeLimit.truncated is truncated and not terminated: a death on the last step is a real end."""
    sb3 = pytest.importorskip("fastsnake.envs.sb3", reason="needs stable-baselines3 and torch")
    env = sb3.SnakeVecEnv(1, size=4, max_episode_steps=2, threads=1)
    env.seed(0)
    env.reset()
    env.step(np.array([np.flatnonzero(env.action_masks()[0])[0]]))
    fatal = int(np.flatnonzero(~env.action_masks()[0])[0])
    _, reward, done, infos = env.step(np.array([fatal]))
    assert done[0] and reward[0] == -1.0 and infos[0]["TimeLimit.truncated"] is False


# -- the same boards in every env ------------------------------------------------------------------


@pytest.mark.parametrize("obs", ["grid", "planes", "features", "egocentric"])
def test_single_vector_and_sb3_envs_take_the_same_boards(obs):
    try:
        from fastsnake.envs.sb3 import SnakeVecEnv
    except ImportError:
        SnakeVecEnv = None
    for size in [2, 3, (2, 5), 4, (4, 7), 5, 6]:
        single = E.SnakeEnv(size=size, obs=obs)
        vec = E.SnakeVectorEnv(2, size=size, obs=obs, threads=1)
        assert vec.single_observation_space == single.observation_space
        first, _ = single.reset(seed=5)
        got, _ = vec.reset(seed=5)
        assert np.array_equal(got[0], first)
        if SnakeVecEnv is not None:
            sb3 = SnakeVecEnv(2, size=size, obs=obs, threads=1)
            assert sb3.observation_space == single.observation_space
            sb3.seed(5)
            assert np.array_equal(sb3.reset()[0], first)


# -- egocentric views ------------------------------------------------------------------------------


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(2, 7), cols=st.integers(2, 7), view=st.sampled_from([3, 5, 7, 11]),
       tail=st.sampled_from(["follow", "blocked"]), seed=st.integers(0, 2**64 - 1), play=st.integers(0, 2**32))
def test_egocentric_equals_naive_window(rows, cols, view, tail, seed, play):
    env = E.SnakeEnv(size=(rows, cols), tail=tail, obs="egocentric", view=view)
    ref = NaiveEnv(rows, cols, 3 if rows * cols > 3 else 1, tail)
    if rows * cols <= 3:
        env = E.SnakeEnv(size=(rows, cols), tail=tail, obs="egocentric", view=view, start_length=1)
    rng = np.random.default_rng(play)
    obs, info = env.reset(seed=seed)
    ref.reset(seed)
    assert obs.shape == (4, view, view) and obs in env.observation_space
    for _ in range(120):
        assert np.array_equal(obs, egocentric(ref.game, view))
        move = pick(rng, info["action_mask"], 0.1)
        obs, _, terminated, truncated, info = env.step(move)
        ref.step(move)
        if terminated or truncated:
            break


@settings(max_examples=20, deadline=None)
@given(rows=st.integers(2, 7), cols=st.integers(2, 7), obs=st.sampled_from(["planes", "features"]),
       tail=st.sampled_from(["follow", "blocked"]), seed=st.integers(0, 2**63), play=st.integers(0, 2**32))
def test_planes_and_features_of_a_batch_equal_naive_ones(rows, cols, obs, tail, seed, play):
    """The batch kernels behind obs="planes" and "features" (`kernels.planes_of`, `features_of`),
    env by env against the naive game's cell-by-cell planes and feature-by-feature values."""
    n = 3
    start = 3 if rows * cols > 3 else 1
    env = E.SnakeVectorEnv(n, size=(rows, cols), tail=tail, obs=obs, start_length=start, threads=1)
    refs = [NaiveEnv(rows, cols, start, tail) for _ in range(n)]
    rng = np.random.default_rng(play)
    got, info = env.reset(seed=seed)
    for i, ref in enumerate(refs):
        ref.reset(seed + i)
    naive = planes if obs == "planes" else features
    for _ in range(60):
        for i, ref in enumerate(refs):
            assert np.array_equal(got[i], naive(ref.game)), (i, obs)
        actions = np.array([pick(rng, m, 0.1) for m in info["action_mask"]])
        got, _, terminated, truncated, info = env.step(actions)
        for ref, move in zip(refs, actions, strict=True):
            ref.step(int(move))
        if (terminated | truncated).any():
            break


def test_egocentric_vector_sb3_and_bridge_agree():
    size, seed, view = (5, 7), 3, 5
    single = E.SnakeEnv(size=size, obs="egocentric", view=view)
    vec = E.SnakeVectorEnv(3, size=size, obs="egocentric", view=view, threads=1)
    so, _ = single.reset(seed=seed)
    vo, info = vec.reset(seed=seed)
    assert np.array_equal(vo[0], so) and vo.shape == (3, 4, view, view)
    rng = np.random.default_rng(0)
    for _ in range(40):
        move = pick(rng, info["action_mask"][0], 0.0)
        actions = np.array([move] + [pick(rng, m, 0.0) for m in info["action_mask"][1:]])
        vo, _, terminated, truncated, info = vec.step(actions)
        so, *_ = single.step(move)
        assert np.array_equal(vo[0], so)
        if terminated[0] or truncated[0]:
            break
    # A policy's state gives the env's observation (agent_policy with obs="egocentric").
    import fastsnake

    seen = []

    def first_legal(mask):
        return int(np.flatnonzero(mask)[0]) if np.any(mask) else 0

    def agent(obs, mask):
        seen.append(obs)
        return first_legal(mask)

    fastsnake.play(fastsnake.Policy(E.agent_policy(agent, masked=True, obs="egocentric", view=view)), size,
                   seed=seed, game=0, max_moves=12)
    assert len(seen) > 1
    obs, info = single.reset(seed=seed)
    for got in seen:
        assert np.array_equal(got, obs)
        obs, _, _, _, info = single.step(first_legal(info["action_mask"]))


@pytest.mark.parametrize("kwargs", [dict(obs="egocentric", view=4), dict(obs="egocentric", view=1),
                                    dict(obs="egocentric", view=True), dict(obs="planes", view=5)])
def test_bad_views(kwargs):
    with pytest.raises(InputError, match="view"):
        E.SnakeEnv(size=6, **kwargs)
    with pytest.raises(InputError, match="view"):
        E.SnakeVectorEnv(2, size=6, **kwargs)


# -- the batch's cell arrays -----------------------------------------------------------------------


def test_cell_arrays_are_the_narrowest_type_that_holds_every_cell():
    from fastsnake.envs import kernels as K

    assert K.cell_dtype(4) == K.cell_dtype(2**15) == np.int16  # cells 0..32767, ring and list positions too
    assert K.cell_dtype(2**15 + 1) == K.cell_dtype(256 * 256) == np.int32
    assert all(a.dtype == np.int16 for a in (E.SnakeVectorEnv(2, size=181)._games.batch[k]
                                             for k in (K.B_BODY, K.B_FREE, K.B_FREEPOS)))


def test_int16_and_int32_cell_arrays_play_the_same_games(monkeypatch):
    """The engine's rules are generic over the cell arrays' type: the same steps, rewards and
    observations with the int32 arrays the largest boards get."""
    from fastsnake.envs import kernels as K

    def walk():
        env = E.SnakeVectorEnv(4, size=(5, 6), threads=1)
        rng = np.random.default_rng(3)
        obs, info = env.reset(seed=11)
        seen = [obs]
        for _ in range(400):
            actions = np.array([pick(rng, m, 0.05) for m in info["action_mask"]])
            obs, reward, terminated, truncated, info = env.step(actions)
            seen += [obs, reward, terminated, truncated, info["length"]]
        return env._games.batch[K.B_BODY].dtype, seen

    narrow, a = walk()
    monkeypatch.setattr(K, "cell_dtype", lambda cells: np.int32)
    wide, b = walk()
    assert (narrow, wide) == (np.int16, np.int32)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
