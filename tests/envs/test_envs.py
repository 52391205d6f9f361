"""fastsnake/Snake-v0: Gymnasium's checker, the naive reference, single vs vector, play games, errors."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

gym = pytest.importorskip("gymnasium")

from env_naive import NaiveEnv, lockstep, same_info  # noqa: E402
from gymnasium.utils.env_checker import check_env  # noqa: E402
from gymnasium.vector import AutoresetMode  # noqa: E402

import fastsnake.envs as E  # noqa: E402
from fastsnake.envs import kernels as K  # noqa: E402
from fastsnake.errors import InputError  # noqa: E402
from fastsnake.snake.board import GameConfig, neighbour_table  # noqa: E402
from fastsnake.snake.engine import (  # noqa: E402
    BOX_MOVE,
    G_OCC,
    G_RNG,
    PolicyState,
    apply_move,
    new_game,
    start_default,
    start_path,
)
from fastsnake.snake.replay import play_game  # noqa: E402
from fastsnake.snake.rng import RNG_SEED, game_seed  # noqa: E402
from fastsnake.viewer import canvas  # noqa: E402

ID = E.ENV_ID


def pick(rng, mask, risk=0.1):
    """Mostly a move the mask allows, sometimes any move (so games also end by death)."""
    legal = np.flatnonzero(mask)
    if len(legal) == 0 or rng.random() < risk:
        return int(rng.integers(4))
    return int(rng.choice(legal))


# -- Gymnasium's own checks ----------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [dict(size=8), dict(size="5x7", tail="blocked", start_length=1),
                                    dict(size=(3, 4), max_moves=20), dict(size=6, obs="planes"),
                                    dict(size=(2, 5), obs="features", tail="blocked")])
def test_check_env(kwargs):
    env = gym.make(ID, render_mode="rgb_array", **kwargs)
    check_env(env.unwrapped)
    env.close()


def test_registration_and_make_vec():
    env = gym.make(ID, size=6)
    assert isinstance(env.unwrapped, E.SnakeEnv)
    assert env.action_space == gym.spaces.Discrete(4)
    assert env.observation_space.shape == (6, 6) and env.observation_space.dtype == np.uint8
    envs = gym.make_vec(ID, num_envs=5, vectorization_mode="vector_entry_point", size=10)
    assert isinstance(envs, E.SnakeVectorEnv) and envs.num_envs == 5
    assert envs.metadata["autoreset_mode"] == AutoresetMode.NEXT_STEP
    assert envs.single_observation_space == E.SnakeEnv(size=10).observation_space
    obs, info = envs.reset(seed=3)
    assert obs.shape == (5, 10, 10) and obs.dtype == np.uint8 and obs in envs.observation_space
    assert info["action_mask"].shape == (5, 4) and info["action_mask"].dtype == np.int8
    assert list(info["seed"]) == [3, 4, 5, 6, 7] and list(info["game"]) == [0] * 5
    envs.close()
    # The sync fallback (N Python envs) exists too, for comparison.
    sync = gym.make_vec(ID, num_envs=2, vectorization_mode="sync", size=4)
    sync.reset(seed=1)
    sync.close()


def test_max_episode_steps_through_make_vec():
    envs = gym.make_vec(ID, num_envs=3, vectorization_mode="vector_entry_point", size=10, max_episode_steps=4)
    envs.reset(seed=0)
    rng = np.random.default_rng(0)
    for _ in range(4):
        masks = envs.action_masks()
        _, _, terminated, truncated, info = envs.step(np.array([pick(rng, m, 0.0) for m in masks]))
    assert np.all(truncated | terminated) and np.all(info["moves"] == 4)
    _, reward, terminated, truncated, info = envs.step(np.zeros(3, np.int64))  # the autoreset step
    assert np.all(info["game"] == 1) and np.all(info["moves"] == 0)
    assert not reward.any() and not terminated.any() and not truncated.any()
    single = gym.make(ID, size=10, max_episode_steps=4)  # gymnasium's TimeLimit, and the env's own cap
    single.reset(seed=0)
    ends = [single.step(pick(rng, single.unwrapped.action_masks(), 0.0))[2:4] for _ in range(4)]
    assert any(ends[-1]) and not any(any(e) for e in ends[:-1])


# -- the naive reference: observations, masks, rewards, ends -------------------------------------


@settings(max_examples=60, deadline=None)
@given(rows=st.integers(2, 7), cols=st.integers(2, 7), start_length=st.integers(1, 4),
       tail=st.sampled_from(["follow", "blocked"]), cap=st.sampled_from([None, 7, 40]),
       seed=st.integers(0, 2**64 - 1), risk=st.sampled_from([0.0, 0.05, 0.3]), play=st.integers(0, 2**32))
def test_env_equals_naive_reference(rows, cols, start_length, tail, cap, seed, risk, play):
    start_length = min(start_length, rows * cols - 1)
    env = E.SnakeEnv(size=(rows, cols), start_length=start_length, tail=tail, max_moves=cap)
    ref = NaiveEnv(rows, cols, start_length, tail, cap)
    lockstep(env, ref, seed, np.random.default_rng(play), 3, 300, lambda rng, mask: pick(rng, mask, risk))


def move_to(rows, cols, frm, to):
    table = neighbour_table(rows, cols).reshape(-1, 4)
    return int(np.flatnonzero(table[frm] == to)[0])


def test_won_game_and_blocked_tail():
    # 2x2 with a 3-cell snake: the one free cell holds the apple; eating it wins.
    env = E.SnakeEnv(size=2, start_length=3)
    obs, info = env.reset(seed=0)
    flat = obs.reshape(-1)
    head, apple = int(np.flatnonzero(flat == E.HEAD)[0]), int(np.flatnonzero(flat == E.APPLE)[0])
    obs, reward, terminated, truncated, info = env.step(move_to(2, 2, head, apple))
    assert (reward, terminated, truncated) == (1.0, True, False)
    assert info["length"] == 4 and not np.any(obs == E.EMPTY) and not np.any(obs == E.APPLE)
    # Under "blocked", following the tail is fatal; under "follow" it is allowed.
    for tail, alive in (("follow", 1), ("blocked", 0)):
        env = E.SnakeEnv(size=3, start_length=4, tail=tail)
        for _ in range(20):
            env.reset(seed=0) if _ == 0 else env.reset()
            body = env.body()
            if int(body[0]) in neighbour_table(3, 3).reshape(-1, 4)[int(body[-1])]:
                break
        to_tail = move_to(3, 3, int(body[-1]), int(body[0]))
        assert env.action_masks()[to_tail] == alive
        _, reward, terminated, _, _ = env.step(to_tail)
        assert terminated == (not alive) and reward == (-1.0 if not alive else 0.0)


# -- single env vs vector env ---------------------------------------------------------------------


@settings(max_examples=8, deadline=None)
@given(size=st.sampled_from([(4, 4), (3, 6), (6, 5)]), n=st.integers(1, 5), seed=st.integers(0, 2**40),
       tail=st.sampled_from(["follow", "blocked"]), cap=st.sampled_from([None, 25]), play=st.integers(0, 2**32))
def test_vector_equals_singles_with_autoresets(size, n, seed, tail, cap, play):
    vec = E.SnakeVectorEnv(n, size=size, tail=tail, max_episode_steps=cap)
    singles = [E.SnakeEnv(size=size, tail=tail, max_episode_steps=cap) for _ in range(n)]
    rng = np.random.default_rng(play)
    obs, info = vec.reset(seed=seed)
    done = np.zeros(n, np.bool_)
    for i, env in enumerate(singles):
        o, inf = env.reset(seed=seed + i)
        assert np.array_equal(obs[i], o)
        same_info({k: info[k][i] for k in inf}, inf)
    episodes = np.zeros(n, np.int64)
    for _ in range(250):
        actions = np.array([pick(rng, m, 0.05) for m in info["action_mask"]])
        obs, reward, terminated, truncated, info = vec.step(actions)
        for i, env in enumerate(singles):
            if done[i]:  # next-step autoreset: the vector env resets env i now
                o, inf = env.reset()
                r, te, tr = 0.0, False, False
                episodes[i] += 1
            else:
                o, r, te, tr, inf = env.step(actions[i])
            assert np.array_equal(obs[i], o)
            assert (reward[i], terminated[i], truncated[i]) == (r, te, tr)
            same_info({k: info[k][i] for k in inf}, inf)
        done = terminated | truncated
    assert episodes.sum() > 0


def test_vector_reset_mask_options_and_copy():
    vec = E.SnakeVectorEnv(4, size=5, copy=False)
    obs, info = vec.reset(seed=10, options={"game": 2})
    assert list(info["game"]) == [2] * 4
    before = obs.copy()
    mask = np.array([False, True, False, True])
    obs2, info2 = vec.reset(options={"reset_mask": mask})
    assert obs2 is obs  # copy=False: the env's own buffer
    assert list(info2["game"]) == [2, 3, 2, 3] and np.array_equal(info2["_game"], mask)
    assert np.array_equal(obs2[~mask], before[~mask])
    single = E.SnakeEnv(size=5)
    single.reset(seed=11, options={"game": 3})
    assert np.array_equal(obs2[1], single._observation())
    fresh = E.SnakeVectorEnv(2, size=5)
    a, _ = fresh.reset(seed=[7, None])
    b, info = fresh.reset(seed=[7, None])
    assert a is not b and np.array_equal(a[0], b[0]) and list(info["game"]) == [0, 1]


def test_unseeded_resets_are_random_then_sequential():
    env = E.SnakeEnv(size=6)
    _, info = env.reset()
    base = info["seed"]
    _, info = env.reset()
    assert (info["seed"], info["game"]) == (base, 1)
    other = E.SnakeEnv(size=6)
    assert other.reset()[1]["seed"] != base  # 64 random bits
    replay = E.SnakeEnv(size=6)
    assert np.array_equal(replay.reset(seed=base, options={"game": 1})[0], env._observation())


# -- the games of `fastsnake play` ------------------------------------------------------------------


@pytest.mark.parametrize("size,seed,game,tail,cap", [
    ((10, 10), 7, 0, "follow", None),
    ((10, 10), 7, 3, "follow", None),
    ((6, 9), 2**63 + 5, 1, "blocked", None),
    ((8, 8), 123, 2, "follow", 60),
])
def test_play_games_replay_through_env(size, seed, game, tail, cap):
    config = GameConfig(*size, 3, tail, cap)
    replay, _ = play_game("greedy", config, seed, game)
    env = E.SnakeEnv(size=size, tail=tail, max_moves=cap)
    obs, info = env.reset(seed=seed)
    for _ in range(game):
        obs, info = env.reset()
    assert np.array_equal(env.body(), replay.body)
    apples = [int(np.flatnonzero(obs.reshape(-1) == E.APPLE)[0])]
    total = 0.0
    for t, move in enumerate(replay.moves):
        obs, reward, terminated, truncated, info = env.step(int(move))
        total += reward
        if reward > 0 and np.any(obs == E.APPLE):
            apples.append(int(np.flatnonzero(obs.reshape(-1) == E.APPLE)[0]))
        assert (terminated or truncated) == (t == len(replay.moves) - 1)
    assert apples == list(replay.apples)
    summary = replay.summary()
    assert info["moves"] == summary["moves"] and info["apples"] == summary["apples"]
    outcome = {"died": (True, False), "won": (True, False), "stuck": (False, True)}[replay.outcome]
    assert (terminated, truncated) == outcome
    assert total == summary["apples"] - (replay.outcome == "died")


# -- the evaluation bridge --------------------------------------------------------------------------


def python_game(config, seed, index, decide):
    """A game driven from Python the way a plain-Python policy is: start_default, then
    one apply_move per decide; yields (state, move) before each move."""
    cfg, nbr = config.arrays()
    g = new_game(cfg, nbr)
    st = start_default(g, game_seed(np.uint64(seed), np.uint64(index)), start_path(config.rows, config.cols))
    box = np.zeros(1, np.int64)
    neighbours = nbr.reshape(-1, 4)
    states = []
    while st.outcome == 0:
        state = PolicyState(config.rows, config.cols, st.head, st.tail, st.apple, st.length, st.moves,
                            g[G_OCC].copy(), neighbours, int(g[G_RNG][RNG_SEED]), config.tail_rule == "follow",
                            config.move_cap, config.start_length)
        box[BOX_MOVE] = decide(state, ())
        states.append((state, int(box[BOX_MOVE])))
        st = apply_move(g, st, box)
    return states, st


@pytest.mark.parametrize("tail", ["follow", "blocked"])
def test_bridge_observations_masks_and_agent(tail):
    rng = np.random.default_rng(5)

    def agent(obs, mask):
        return pick(rng, mask, 0.02)

    config = GameConfig(7, 6, 2, tail)
    decide = E.agent_policy(agent, masked=True, tail=tail)
    env = E.SnakeEnv(size=(7, 6), start_length=2, tail=tail)
    for index in range(3):
        states, end = python_game(config, 99, index, decide)
        obs, info = env.reset(seed=99, options={"game": index})
        for state, move in states:
            assert np.array_equal(E.observation_of(state), obs)
            assert np.array_equal(E.action_mask_of(state, tail), info["action_mask"])
            assert np.array_equal(E.action_mask_of(state), info["action_mask"])  # the rule the state carries
            obs, reward, terminated, truncated, info = env.step(move)
        assert terminated or truncated
        assert (info["moves"], info["apples"]) == (end.moves, end.apples)


@pytest.mark.parametrize("tail", ["follow", "blocked"])
def test_bridge_through_fastsnake_sweep(tail):
    import fastsnake

    try:
        sweep, Policy = fastsnake.sweep, fastsnake.Policy
    except AttributeError:
        pytest.skip("fastsnake.sweep / fastsnake.Policy not available in this checkout")

    def agent(obs, mask):  # the first move the mask allows (deterministic)
        legal = np.flatnonzero(mask)
        return int(legal[0]) if len(legal) else 0

    # no tail given: the mask follows the rule of the game played (the state's tail_follows)
    result = sweep(Policy(E.agent_policy(agent, masked=True)), 6, 4, seed=21, tail=tail)
    table = result.table
    env = E.SnakeEnv(size=6, tail=tail)
    for index in range(4):
        env.reset(seed=21, options={"game": index})
        while True:
            _, _, terminated, truncated, info = env.step(agent(env._observation(), env.action_masks()))
            if terminated or truncated:
                break
        row = {k: table.column(k)[index].as_py() for k in ("moves", "apples")}
        assert row == {"moves": info["moves"], "apples": info["apples"]}


@pytest.mark.parametrize("obs", ["planes", "features"])
def test_observation_kinds_single_vector_and_bridge(obs):
    """Each kind is the same in the single env, the vector env and a policy's state (agent_observation)."""
    size, seed = (5, 6), 31
    vec = E.SnakeVectorEnv(3, size=size, obs=obs)
    grids = E.SnakeVectorEnv(3, size=size)
    single = E.SnakeEnv(size=size, obs=obs)
    assert vec.single_observation_space == single.observation_space
    vo, info = vec.reset(seed=seed)
    go, _ = grids.reset(seed=seed)
    so, _ = single.reset(seed=seed)
    assert np.array_equal(vo[0], so) and vo in vec.observation_space
    rng = np.random.default_rng(2)
    for _ in range(80):
        check_kind(obs, vo, go, info["action_mask"], size)
        actions = np.array([pick(rng, m, 0.05) for m in info["action_mask"]])
        vo, _, _, _, info = vec.step(actions)
        go, *_ = grids.step(actions)
    config = GameConfig(*size, 3, "follow")
    decide = E.agent_policy(lambda o, m: pick(rng, m, 0.0), masked=True, obs=obs)
    states, _ = python_game(config, seed, 0, decide)
    single.reset(seed=seed)
    for state, move in states:
        assert np.array_equal(E.bridge.agent_observation(state, obs), single._observation())
        single.step(move)


def check_kind(obs, got, grids, masks, size):
    """The kind's definition, from the grids, cell by cell (independent of observations.py)."""
    rows, cols = size
    for o, grid, mask in zip(got, grids, masks, strict=True):
        if obs == "planes":
            assert o.shape == (5, rows, cols) and np.array_equal(np.argmax(o, axis=0), grid) and o.sum() == grid.size
            continue
        (hr, hc), = np.argwhere(grid == E.HEAD)
        apple = np.argwhere(grid == E.APPLE)
        tail = np.argwhere(grid == E.TAIL)
        ar, ac = apple[0] if len(apple) else (hr, hc)
        tr, tc = tail[0] if len(tail) else (hr, hc)
        length = np.count_nonzero((grid != E.EMPTY) & (grid != E.APPLE))
        want = [*mask, (ar - hr) / (rows - 1), (ac - hc) / (cols - 1), (tr - hr) / (rows - 1), (tc - hc) / (cols - 1),
                2 * hr / (rows - 1) - 1, 2 * hc / (cols - 1) - 1, length / (rows * cols)]
        assert o.dtype == np.float32 and np.allclose(o, want, atol=1e-6)


def test_threads_step_the_same_games():
    from fastsnake.envs.games import MIN_ENVS_PER_THREAD, slices

    n = 2 * MIN_ENVS_PER_THREAD + 7
    for threads in (1, 2, 3, 8):
        parts = slices(n, threads)
        assert parts[0][0] == 0 and parts[-1][1] == n
        assert all(a[1] == b[0] for a, b in zip(parts[:-1], parts[1:], strict=True))
        assert len(parts) == min(threads, 2) and all(hi - lo >= MIN_ENVS_PER_THREAD for lo, hi in parts)
    assert slices(100, 2) == [(0, 100)]
    one = E.SnakeVectorEnv(n, size=4, threads=1)
    two = E.SnakeVectorEnv(n, size=4, threads=2)
    assert two._games._crew.workers == 1 and two.threads == 2
    a, info = one.reset(seed=4)
    b, _ = two.reset(seed=4)
    rng = np.random.default_rng(0)
    ended = 0
    for _ in range(60):
        assert np.array_equal(a, b)
        actions = np.array([pick(rng, m, 0.05) for m in info["action_mask"]])
        a, ra, ta, ua, info = one.step(actions)
        b, rb, tb, ub, info_b = two.step(actions)
        assert np.array_equal(ra, rb) and np.array_equal(ta, tb) and np.array_equal(ua, ub)
        same_info(info, info_b)
        ended += int(np.count_nonzero(ta | ua))
    assert ended > 100
    two.close()
    with pytest.raises(InputError, match="threads"):
        E.SnakeVectorEnv(2, size=4, threads=0)


def test_sb3_adapter_without_sb3_says_what_to_install(monkeypatch):
    import importlib
    import sys

    for name in [m for m in sys.modules if m.split(".")[0] == "stable_baselines3"] + ["stable_baselines3"]:
        monkeypatch.setitem(sys.modules, name, None)  # as if not installed
    monkeypatch.delitem(sys.modules, "fastsnake.envs.sb3", raising=False)
    with pytest.raises(ImportError, match=r"stable-baselines3 and torch.*rl-train"):
        importlib.import_module("fastsnake.envs.sb3")


def test_planes():
    env = E.SnakeEnv(size=(3, 5))
    obs, _ = env.reset(seed=1)
    p = E.planes(obs)
    assert p.shape == (5, 3, 5) and p.dtype == np.uint8 and np.all(p.sum(axis=0) == 1)
    assert np.array_equal(np.argmax(p, axis=0), obs)
    assert E.planes(np.stack([obs, obs])).shape == (2, 5, 3, 5)


# -- rendering --------------------------------------------------------------------------------------


def test_rgb_array_frames():
    env = gym.make(ID, size=(6, 8), render_mode="rgb_array")
    obs, _ = env.reset(seed=4)
    rgb = env.render()
    assert rgb.dtype == np.uint8 and rgb.ndim == 3 and rgb.shape[2] == 3
    pitch = rgb.shape[1] // 8
    inner = pitch - canvas.gap_for(pitch)

    def colour(cell):
        r, c = divmod(int(cell), 8)
        y, x = r * pitch + canvas.gap_for(pitch) + inner // 2, c * pitch + canvas.gap_for(pitch) + inner // 2
        return tuple(int(v) for v in rgb[y, x])

    flat = obs.reshape(-1)
    assert colour(np.flatnonzero(flat == E.HEAD)[0]) == canvas.HEAD
    assert colour(np.flatnonzero(flat == E.APPLE)[0]) == canvas.APPLE
    assert colour(np.flatnonzero(flat == E.EMPTY)[0]) == canvas.EMPTY
    vec = E.SnakeVectorEnv(3, size=4, render_mode="rgb_array")
    vec.reset(seed=0)
    frames = vec.render()
    assert len(frames) == 3 and all(f.shape == frames[0].shape for f in frames)


def test_human_render_runs_headless(monkeypatch):
    pytest.importorskip("pygame")
    monkeypatch.setenv("SDL_VIDEODRIVER", "dummy")
    env = E.SnakeEnv(size=5, render_mode="human")
    env.metadata = dict(env.metadata, render_fps=1000)
    env.reset(seed=0)
    env.step(int(np.flatnonzero(env.action_masks())[0]))
    env.close()


# -- bad arguments ----------------------------------------------------------------------------------


@pytest.mark.parametrize("kwargs", [
    dict(size=1), dict(size="1x1"), dict(size="ten"), dict(size=(3,)), dict(size=2.5), dict(size=(4, 300)),
    dict(size=5, tail="sideways"), dict(size=5, tail=None), dict(size=3, start_length=9), dict(size=5, max_moves=0),
    dict(size=5, max_episode_steps=-3), dict(size=5, render_mode="ascii"), dict(size=5, start_length=True),
    dict(size=5, obs="pixels"), dict(size=5, obs=None),
])
def test_bad_arguments(kwargs):
    for make in (E.SnakeEnv, lambda **kw: E.SnakeVectorEnv(2, **kw)):
        with pytest.raises(InputError) as exc:
            make(**kwargs)
        assert isinstance(exc.value, ValueError) and str(exc.value)


def test_bad_calls():
    env = E.SnakeEnv(size=4)
    with pytest.raises(InputError, match="before reset"):
        env.step(0)
    for seed in (-1, 2**64, 1.5, "7"):
        with pytest.raises(InputError, match="seed"):
            env.reset(seed=seed)
    with pytest.raises(InputError, match="option"):
        env.reset(seed=0, options={"gmae": 1})
    with pytest.raises(InputError, match="game"):
        env.reset(seed=0, options={"game": -1})
    env.reset(seed=0)
    for action in (7, -1, 1.0, np.array([1, 2]), True):
        with pytest.raises(InputError, match="action"):
            env.step(action)
    for action in (np.int32(1), np.array(2), 3):  # integers of any kind are fine
        env.reset(seed=0)
        env.step(action)
    env.reset(seed=0)
    while not any(env.step(0)[2:4]):
        pass
    with pytest.raises(InputError, match="ended"):
        env.step(0)

    vec = E.SnakeVectorEnv(3, size=4)
    with pytest.raises(InputError, match="before reset"):
        vec.step(np.zeros(3, np.int64))
    with pytest.raises(InputError, match="num_envs"):
        E.SnakeVectorEnv(0, size=4)
    with pytest.raises(InputError, match="seed"):
        vec.reset(seed=2**64 - 2)  # env 2 would need 2**64
    with pytest.raises(InputError, match="seeds"):
        vec.reset(seed=[1, 2])
    with pytest.raises(InputError, match="reset_mask"):
        vec.reset(seed=0, options={"reset_mask": np.array([1, 0, 1])})
    obs, _ = vec.reset(seed=0)
    with pytest.raises(InputError, match="action 7"):
        vec.step(np.array([0, 7, 1]))
    assert np.array_equal(vec._observations(), obs)  # a refused batch moves nothing
    with pytest.raises(InputError, match="shape"):
        vec.step(np.zeros(2, np.int64))


def test_kernel_state_columns_follow_engine_state():
    from fastsnake.snake.engine import State

    names = ("head", "tail", "head_i", "tail_i", "length", "apple", "nfree", "moves", "apples", "outcome")
    slots = (K.S_HEAD, K.S_TAIL, K.S_HEAD_I, K.S_TAIL_I, K.S_LENGTH, K.S_APPLE, K.S_NFREE, K.S_MOVES,
             K.S_APPLES, K.S_OUTCOME)
    assert all(State._fields[s] == n for s, n in zip(slots, names, strict=True)) and K.S_SIZE == len(State._fields)
