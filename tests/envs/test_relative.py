"""relative=True: turns of the heading, the egocentric window turned to it, against hand-written references."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

gym = pytest.importorskip("gymnasium")

from env_naive import TURN_TABLE, NaiveRelativeEnv, lockstep, same_info, start_heading  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402

import fastsnake  # noqa: E402
import fastsnake.envs as E  # noqa: E402
from fastsnake.envs import kernels as K  # noqa: E402
from fastsnake.snake.engine import DIED  # noqa: E402

REASON = "needs stable-baselines3, sb3-contrib and torch: pip install torch==2.13.0 'fastsnake[rl-train]'"


def pick_turn(rng, mask, risk=0.1):
    """Mostly a turn the mask allows, sometimes any turn (so games also end by death)."""
    legal = np.flatnonzero(mask)
    if len(legal) == 0 or rng.random() < risk:
        return int(rng.integers(3))
    return int(rng.choice(legal))


def naive_heading(rows, cols, body, moved_by):
    """The heading kept by hand: the last move that moved the head, else the start rule."""
    if moved_by is not None:
        return moved_by
    return start_heading(type("G", (), {"body": list(body), "cols": cols})())


# -- the kernels against the table -----------------------------------------------------------------


def test_heading_turns_and_masks_against_the_table():
    """Every heading and turn on a hand-made position: the moves of TURN_TABLE, the masks' entries."""
    rows = cols = 5
    head = 12  # the centre
    step = {0: -cols, 1: 1, 2: cols, 3: -1}  # cell offset of each move
    batch = K.new_batch(4, rows * cols)
    state, body = batch[K.B_STATE], batch[K.B_BODY]
    for h in range(4):
        body[h, 6], body[h, 7] = head - step[h], head  # the head came from the cell behind it by move h
        state[h, K.S_HEAD], state[h, K.S_HEAD_I], state[h, K.S_TAIL_I], state[h, K.S_LENGTH] = head, 7, 6, 2
    assert list(K.headings_of(body, state, cols)) == [0, 1, 2, 3]
    masks = np.array([[1, 0, 0, 1], [0, 1, 1, 0], [1, 1, 0, 0], [0, 0, 1, 1]], np.int8)
    got = K.relative_masks(body, state, cols, masks)
    for h in range(4):
        assert list(got[h]) == [masks[h, TURN_TABLE[h, t]] for t in range(3)]
    for t in range(3):
        turns = np.full(4, t, np.int64)
        assert list(K.absolute_moves(body, state, cols, turns)) == [TURN_TABLE[h, t] for h in range(4)]
    # A one-cell snake: up before it moves (a fatal first move moves nothing), then its last move.
    one = K.new_batch(1, rows * cols)
    s1, b1 = one[K.B_STATE], one[K.B_BODY]
    b1[0, :] = 3  # what the ring holds before the head: not a neighbour's direction to trust
    s1[0, K.S_HEAD], s1[0, K.S_HEAD_I], s1[0, K.S_LENGTH] = head, 0, 1
    assert K.headings_of(b1, s1, cols)[0] == 0
    s1[0, K.S_MOVES], s1[0, K.S_OUTCOME] = 1, DIED  # a fatal first move
    assert K.headings_of(b1, s1, cols)[0] == 0
    b1[0, -1] = head + 1  # moved left once: from head + 1 (ring slot before slot 0 is the last)
    s1[0, K.S_MOVES], s1[0, K.S_OUTCOME] = 1, 0
    assert K.headings_of(b1, s1, cols)[0] == 3


# -- the env against the naive reference -----------------------------------------------------------


@settings(max_examples=30, deadline=None)
@given(rows=st.integers(2, 7), cols=st.integers(2, 7), start_length=st.integers(1, 4),
       tail=st.sampled_from(["follow", "blocked"]), cap=st.sampled_from([None, 40]),
       view=st.sampled_from([3, 5, 7, 9]), seed=st.integers(0, 2**64 - 1),
       risk=st.sampled_from([0.0, 0.05, 0.3]), play=st.integers(0, 2**32))
def test_turned_env_equals_naive_reference(rows, cols, start_length, tail, cap, view, seed, risk, play):
    start_length = min(start_length, rows * cols - 1)
    env = E.SnakeEnv(size=(rows, cols), start_length=start_length, tail=tail, max_moves=cap, obs="egocentric",
                     view=view, relative=True)
    ref = NaiveRelativeEnv(rows, cols, start_length, tail, cap, view=view)
    lockstep(env, ref, seed, np.random.default_rng(play), 2, 150, lambda rng, mask: pick_turn(rng, mask, risk))


@settings(max_examples=6, deadline=None)
@given(size=st.sampled_from([(4, 4), (3, 6), (6, 5)]), n=st.integers(1, 4), seed=st.integers(0, 2**40),
       view=st.sampled_from([3, 5]), cap=st.sampled_from([None, 25]), play=st.integers(0, 2**32))
def test_vector_turns_play_the_absolute_games(size, n, seed, view, cap, play):
    """The relative vector env, N relative single envs and an absolute vector env given the moves of the
    turns (by the table, from headings kept by hand) play the same games; the turned windows are the
    absolute env's windows turned, the masks its masks' entries."""
    rows, cols = size
    kw = dict(size=size, obs="egocentric", view=view, max_episode_steps=cap)
    rel = E.SnakeVectorEnv(n, relative=True, **kw)
    ab = E.SnakeVectorEnv(n, **kw)
    singles = [E.SnakeEnv(relative=True, **kw) for _ in range(n)]
    ro, rinfo = rel.reset(seed=seed)
    ao, ainfo = ab.reset(seed=seed)
    for i, env in enumerate(singles):
        o, inf = env.reset(seed=seed + i)
        assert np.array_equal(ro[i], o)
        same_info({k: rinfo[k][i] for k in inf}, inf)
    moved_by = [None] * n
    done = np.zeros(n, np.bool_)
    rng = np.random.default_rng(play)
    ended = 0
    for _ in range(200):
        heads = [naive_heading(rows, cols, ab.body(i), moved_by[i]) for i in range(n)]
        for i in range(n):
            assert np.array_equal(ro[i], np.rot90(ao[i], heads[i], axes=(1, 2)))
            assert list(rinfo["action_mask"][i]) == [ainfo["action_mask"][i][TURN_TABLE[heads[i], t]]
                                                     for t in range(3)]
        assert np.array_equal(rel.action_masks(), rinfo["action_mask"])
        turns = np.array([pick_turn(rng, m, 0.05) for m in rinfo["action_mask"]])
        moves = np.array([TURN_TABLE[heads[i], t] for i, t in enumerate(turns)])
        old_heads = [ab.body(i)[-1] for i in range(n)]
        ro, rr, rte, rtr, rinfo = rel.step(turns)
        ao, ar, ate, atr, ainfo = ab.step(moves)
        assert np.array_equal(rr, ar) and np.array_equal(rte, ate) and np.array_equal(rtr, atr)
        for key in ("apples", "length", "moves", "seed", "game"):
            assert np.array_equal(rinfo[key], ainfo[key]), key
        for i, env in enumerate(singles):
            if done[i]:
                o, inf = env.reset()
                r, te, tr = 0.0, False, False
                moved_by[i] = None
            else:
                o, r, te, tr, inf = env.step(turns[i])
                if ab.body(i)[-1] != old_heads[i]:
                    moved_by[i] = int(moves[i])
            assert np.array_equal(ro[i], o)
            assert (rr[i], rte[i], rtr[i]) == (r, te, tr)
            same_info({k: rinfo[k][i] for k in inf}, inf)
        done = rte | rtr
        ended += int(done.sum())
    assert ended > 0


def test_threads_and_batches_play_the_same_turned_games():
    from fastsnake.envs.games import MIN_ENVS_PER_THREAD

    n = 2 * MIN_ENVS_PER_THREAD + 3
    kw = dict(size=6, obs="egocentric", view=5, relative=True)
    one, two = E.SnakeVectorEnv(n, threads=1, **kw), E.SnakeVectorEnv(n, threads=2, **kw)
    small = E.SnakeVectorEnv(3, threads=1, **kw)
    a, _ = one.reset(seed=9)
    b, _ = two.reset(seed=9)
    c, _ = small.reset(seed=9 + n - 3)  # its envs are the big ones' last three
    rng = np.random.default_rng(1)
    for _ in range(30):
        assert np.array_equal(a, b) and np.array_equal(a[-3:], c)
        turns = rng.integers(0, 3, n)
        a, ra, *_ = one.step(turns)
        b, rb, *_ = two.step(turns)
        c, rc, *_ = small.step(turns[-3:])
        assert np.array_equal(ra, rb) and np.array_equal(ra[-3:], rc)
    one.close()
    two.close()


# -- spaces, checks and errors ---------------------------------------------------------------------


def test_spaces_make_and_check_env():
    env = gym.make(E.ENV_ID, size=6, obs="egocentric", view=5, relative=True)
    assert env.action_space == gym.spaces.Discrete(3) and env.observation_space.shape == (4, 5, 5)
    check_env(env.unwrapped)
    env.close()
    small = gym.make(E.ENV_ID, size=(3, 5), start_length=1, tail="blocked", obs="egocentric", view=3, relative=True)
    check_env(small.unwrapped)
    small.close()
    envs = gym.make_vec(E.ENV_ID, num_envs=3, vectorization_mode="vector_entry_point", size=6, obs="egocentric",
                        view=5, relative=True)
    assert isinstance(envs, E.SnakeVectorEnv) and envs.single_action_space == gym.spaces.Discrete(3)
    obs, info = envs.reset(seed=0)
    assert obs in envs.observation_space and info["action_mask"].shape == (3, 3)
    assert info["action_mask"].dtype == np.int8
    envs.close()
    assert E.SnakeEnv(obs="egocentric").action_space == gym.spaces.Discrete(4)  # absolute unless asked


@pytest.mark.parametrize("kwargs,match", [
    (dict(relative=True), r"relative=True is only for obs='egocentric' \(obs='grid'"),
    (dict(obs="planes", relative=True), r"relative=True is only for obs='egocentric' \(obs='planes'"),
    (dict(obs="egocentric", relative="yes"), r"relative='yes' must be True or False"),
])
def test_relative_needs_egocentric(kwargs, match):
    for make in (lambda: E.SnakeEnv(**kwargs), lambda: E.SnakeVectorEnv(2, **kwargs)):
        with pytest.raises(E.EnvError, match=match) as caught:
            make()
        assert isinstance(caught.value, ValueError) and "--" not in str(caught.value)


def test_bad_turns():
    env = E.SnakeEnv(size=5, obs="egocentric", relative=True)
    env.reset(seed=0)
    for bad in (3, -1):
        with pytest.raises(E.EnvError, match=rf"action {bad} is not a turn: 0 left, 1 ahead, 2 right"):
            env.step(bad)
    with pytest.raises(E.EnvError, match="not a whole number 0..2"):
        env.step(1.0)
    env.step(np.int64(1))  # numpy integers are turns too
    vec = E.SnakeVectorEnv(3, size=5, obs="egocentric", relative=True)
    vec.reset(seed=0)
    with pytest.raises(E.EnvError, match=r"action 3 is not a turn.*\(environment 2\)"):
        vec.step(np.array([0, 1, 3]))
    fresh = E.SnakeVectorEnv(2, size=5, obs="egocentric", relative=True)
    with pytest.raises(E.EnvError, match="before reset"):
        fresh.step(np.array([1, 1]))


# -- Stable-Baselines3 and model:PATH ------------------------------------------------------------


def sb3():
    for module in ("torch", "stable_baselines3", "sb3_contrib"):
        pytest.importorskip(module, reason=REASON)
    import torch

    torch.manual_seed(0)
    torch.set_num_threads(1)


def test_sb3_vecenv_check_env_and_maskable_ppo():
    sb3()
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks
    from stable_baselines3.common.env_checker import check_env as sb3_check_env
    from stable_baselines3.common.vec_env import DummyVecEnv

    from fastsnake.envs.sb3 import SnakeVecEnv, policy_kwargs

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        sb3_check_env(E.SnakeEnv(size=6, obs="egocentric", view=5, relative=True))
    notes = [str(w.message) for w in caught]
    assert len(notes) == 2 and "36x36" in notes[1]  # as unturned egocentric: SB3's NatureCNN notes only
    kw = dict(size=6, obs="egocentric", view=5, relative=True)
    ours = SnakeVecEnv(3, threads=1, **kw)
    theirs = DummyVecEnv([lambda: E.SnakeEnv(**kw)] * 3)
    assert ours.action_space == theirs.action_space == gym.spaces.Discrete(3)
    assert ours.get_attr("relative") == [True] * 3
    ours.seed(5)
    theirs.seed(5)
    a, b = ours.reset(), theirs.reset()
    rng = np.random.default_rng(3)
    ended = 0
    for _ in range(120):
        assert np.array_equal(a, b)
        masks = ours.action_masks()
        assert masks.shape == (3, 3) and np.array_equal(masks, get_action_masks(theirs).astype(bool))
        assert np.array_equal(np.array(ours.env_method("action_masks")), masks)
        turns = np.array([pick_turn(rng, m, 0.1) for m in masks])
        a, ra, da, ia = ours.step(turns)
        b, rb, db, ib = theirs.step(turns)
        assert np.array_equal(ra, rb) and np.array_equal(da, db)
        for i in np.flatnonzero(da):
            assert np.array_equal(ia[i]["terminal_observation"], ib[i]["terminal_observation"])
            ended += 1
    assert ended > 0
    env = SnakeVecEnv(8, threads=1, **kw)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = MaskablePPO("MlpPolicy", env, n_steps=32, batch_size=64, n_epochs=1, device="cpu", seed=0,
                            policy_kwargs=policy_kwargs("egocentric", net_arch=[16]))
        model.learn(256)
    assert model.action_space == gym.spaces.Discrete(3)


def played_with_predict(model, size, view, games, seed, max_moves):
    """Game k of `seed` played in SnakeEnv(relative=True), predict() a move with the mask: the rows
    (game, outcome, moves, apples, length) a sweep gives."""
    env = E.SnakeEnv(size=size, obs="egocentric", view=view, relative=True, max_moves=max_moves)
    out = []
    for k in range(games):
        obs, info = env.reset(seed=seed, options={"game": k})
        done = False
        while not done:
            turn, _ = model.predict(obs, deterministic=True, action_masks=info["action_mask"].astype(bool))
            obs, _, terminated, truncated, info = env.step(int(turn))
            done = terminated or truncated
        out.append((k, env._games.outcome(0), info["moves"], info["apples"], info["length"]))
    return out


def save_relative_model(path):
    """A tiny untrained MaskablePPO trained-to-be on SnakeVecEnv(relative=True), saved; its path."""
    from sb3_contrib import MaskablePPO

    from fastsnake.envs.sb3 import SnakeVecEnv, policy_kwargs

    env = SnakeVecEnv(2, size=5, obs="egocentric", view=5, relative=True, threads=1)
    # Seed 2 gives a network whose untrained moves use all three turns (measured), not one turn in circles.
    model = MaskablePPO("MlpPolicy", env, policy_kwargs=policy_kwargs("egocentric", net_arch=[64, 64]), seed=2,
                        device="cpu", n_steps=8, batch_size=16)
    model.save(path)
    return str(path)


def test_a_relative_model_plays_as_a_policy(tmp_path):
    """A MaskablePPO saved with relative=True (3 actions, egocentric) plays model:PATH: the sweep's games
    are those of the env played turn by turn with predict()."""
    sb3()
    from sb3_contrib import MaskablePPO

    from fastsnake.envs.model_policy import load_agent

    path = save_relative_model(tmp_path / "turns.zip")
    agent = load_agent(path)
    assert agent.relative and agent.view == 5 and "turned to the heading" in agent.describe()
    swept = fastsnake.sweep(f"model:{path}", 5, 16, seed=4, threads=1, max_moves=80)  # an untrained net circles
    got = [(r["game"], r["outcome"], r["moves"], r["apples"], r["length"]) for r in swept.table.to_pylist()]
    assert got == played_with_predict(MaskablePPO.load(path, device="cpu"), 5, 5, 16, 4, 80)


@pytest.mark.slow  # the cycle policy's compile and a CLI process: kept out of the quick suite
def test_play_and_cli_compare_with_a_relative_model(tmp_path):
    sb3()
    import json
    import subprocess
    import sys

    path = save_relative_model(tmp_path / "turns.zip")
    swept = fastsnake.sweep(f"model:{path}", 5, 6, seed=4, threads=1).table.to_pylist()
    game = fastsnake.play(f"model:{path}", 5, seed=4, game=3)  # alone, the same game as in the sweep
    assert (game.outcome, len(game.moves), game.apples) == (swept[3]["outcome"], swept[3]["moves"], swept[3]["apples"])
    compared = fastsnake.compare(["cycle", f"model:{path}"], 6, 6, seed=0, threads=1)  # egocentric: any board
    assert compared.column("games").to_pylist() == [6, 6]
    run = subprocess.run([sys.executable, "-m", "fastsnake", "compare", "--size", "6", "--games", "8", "--policies",
                          f"cycle,model:{path}", "--threads", "1", "--json"], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    summaries = json.loads(run.stdout)
    assert [s["policy"] for s in summaries] == ["cycle", f"model:{path}"] and summaries[1]["games"] == 8
