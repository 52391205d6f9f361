"""Gymnasium environments: vector-env steps per CPU-second, against the engine and plain Python.

4096 envs on 10x10, one thread, a random legal action per env chosen from the
masks each step (in numpy, counted in the loop: an agent has to pick somehow),
observations and masks included. The engine's own `cycle` follower is measured
in the same run (moves per CPU-second, one thread), and so is a plain-Python
Gymnasium snake env written below, so the numbers come out as ratios too:

    pytest bench/bench_envs.py -s --benchmark-columns=mean,rounds

Each benchmark asserts its result is sane (moves counted, episodes ended,
masks honoured: a random *legal* walk dies only when trapped).

Also: the vector env on 1 and 2 threads (env steps per CPU-second and per wall second), and,
where Stable-Baselines3 is installed, MaskablePPO's training speed through
`fastsnake.envs.sb3.SnakeVecEnv` against SB3's `make_vec_env` over single envs, in one run.
"""

import sys
import time
from collections import deque
from pathlib import Path

import numba
import numpy as np
import pytest

gym = pytest.importorskip("gymnasium")

import fastsnake.envs as E  # noqa: E402
from fastsnake.snake import record  # noqa: E402
from fastsnake.snake.board import GameConfig  # noqa: E402
from fastsnake.snake.sweep import prepare  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent / "speed"))
from legal_sampler import LegalSampler  # noqa: E402

SIZE = 10
NUM_ENVS = 4096
STEPS = 400  # vector steps a round: 1.6 M env steps
RESULTS = {}


def per_cpu_second(run, rounds):
    """(result of the last run, best CPU seconds of a round) for `rounds` rounds."""
    best, result = float("inf"), None
    for _ in range(rounds):
        c0 = time.process_time()
        result = run()
        best = min(best, time.process_time() - c0)
    return result, best


# -- the engine: cycle follower, one thread -----------------------------------------------------


def test_engine_cycle_moves_per_cpu_second(benchmark):
    policy, _, params, cfg, nbr = prepare("cycle", GameConfig(SIZE, SIZE), {})
    numba.set_num_threads(1)
    out = np.zeros((4000, record.width()), np.int64)
    policy.sweep_kernel(cfg, nbr, params, np.uint64(0), np.int64(0), out[:1], 1)  # compile / load

    def run():
        policy.sweep_kernel(cfg, nbr, params, np.uint64(0), np.int64(0), out, 1)
        return int(out[:, 1].sum())

    moves, cpu = per_cpu_second(run, 5)
    benchmark.pedantic(run, rounds=1, iterations=1)
    assert np.all(out[:, 0] == 1) and abs(moves / len(out) - 2425) < 20
    RESULTS["engine"] = moves / cpu
    benchmark.extra_info.update(moves_per_cpu_second=moves / cpu)
    print(f"\nengine cycle follower, 1 thread: {moves / cpu / 1e6:,.1f} M moves per CPU-second")


# -- the vector env ------------------------------------------------------------------------------


def test_vector_env_steps_per_cpu_second(benchmark):
    envs = gym.make_vec(E.ENV_ID, num_envs=NUM_ENVS, vectorization_mode="vector_entry_point", size=SIZE)
    sample = LegalSampler(NUM_ENVS)
    _, info = envs.reset(seed=0)
    state = {"info": info}
    for _ in range(20):  # compile / load, and leave the start positions
        _, _, _, _, state["info"] = envs.step(sample(state["info"]["action_mask"]))
    inside = [0.0]

    def run():
        ended = 0
        info = state["info"]
        for _ in range(STEPS):
            actions = sample(info["action_mask"])
            c0 = time.process_time()
            _, reward, terminated, truncated, info = envs.step(actions)
            inside[0] += time.process_time() - c0
            ended += int(np.count_nonzero(terminated | truncated))
        state["info"] = info
        return ended

    rounds = 3
    ended, cpu = per_cpu_second(run, rounds)
    step_cpu = inside[0] / rounds
    benchmark.pedantic(run, rounds=1, iterations=1)
    steps = NUM_ENVS * STEPS
    assert 0 < ended < steps / 50  # a random legal walk lives hundreds of moves on 10x10
    rate = steps / cpu
    RESULTS["vector"] = rate
    RESULTS["vector_step_only"] = steps / step_cpu
    engine = RESULTS.get("engine")
    benchmark.extra_info.update(env_steps_per_cpu_second=rate, step_only=steps / step_cpu,
                                vs_engine=rate / engine if engine else None)
    line = (f"\nvector env, {NUM_ENVS} envs {SIZE}x{SIZE}, 1 thread, random legal actions: "
            f"{rate / 1e6:,.2f} M env steps per CPU-second ({steps / step_cpu / 1e6:,.2f} M inside env.step)")
    if engine:
        line += f"; {rate / engine:.3f}x the engine's cycle follower"
    print(line)
    envs.close()


def test_vector_env_threads(benchmark):
    """Env steps per CPU-second and per wall second with 1 and 2 threads (the kernel over slices)."""
    sample = LegalSampler(NUM_ENVS)
    rates = {}
    for threads in (1, 2):
        envs = E.SnakeVectorEnv(NUM_ENVS, size=SIZE, threads=threads, copy=False)
        _, info = envs.reset(seed=0)
        for _ in range(20):
            _, _, _, _, info = envs.step(sample(info["action_mask"]))
        best = None
        for _ in range(3):
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in range(STEPS):
                _, _, _, _, info = envs.step(sample(info["action_mask"]))
            wall, cpu = time.perf_counter() - t0, time.process_time() - c0
            if best is None or wall < best[0]:
                best = (wall, cpu)
        steps = NUM_ENVS * STEPS
        rates[threads] = (steps / best[1], steps / best[0])
        envs.close()
        print(f"\nvector env, {NUM_ENVS} envs {SIZE}x{SIZE}, {threads} thread(s): {steps / best[1] / 1e6:,.2f} M env "
              f"steps per CPU-second, {steps / best[0] / 1e6:,.2f} M per wall second")
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
    benchmark.extra_info.update({f"threads_{t}": {"per_cpu_second": c, "per_wall_second": w}
                                 for t, (c, w) in rates.items()})
    print(f"2 threads / 1 thread, wall: {rates[2][1] / rates[1][1]:.2f}x")


def test_vector_env_threads_heavy_steps(benchmark):
    """1 and 2 threads when steps carry work: 65,536 envs all moving up (most steps end a game and
    reset it), the kernel alone (`Games.step`), wall and CPU milliseconds a step, best of 3."""
    n, steps = 65_536, 20
    actions = np.zeros(n, np.int64)
    times = {}
    for threads in (1, 2):
        envs = E.SnakeVectorEnv(n, size=SIZE, threads=threads, copy=False)
        envs.reset(seed=0)
        games = envs._games
        games.step(actions)
        best = None
        for _ in range(3):
            t0, c0 = time.perf_counter(), time.process_time()
            for _ in range(steps):
                games.step(actions)
            wall, cpu = (time.perf_counter() - t0) / steps, (time.process_time() - c0) / steps
            best = (wall, cpu) if best is None or wall < best[0] else best
        times[threads] = best
        envs.close()
        print(f"\n{n:,} envs {SIZE}x{SIZE}, all moving up, {threads} thread(s): {best[0] * 1e3:.2f} ms wall, "
              f"{best[1] * 1e3:.2f} ms CPU a step")
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
    benchmark.extra_info.update({f"threads_{t}": {"wall_ms": w * 1e3, "cpu_ms": c * 1e3}
                                 for t, (w, c) in times.items()})
    print(f"2 threads / 1 thread, wall: {times[1][0] / times[2][0]:.2f}x faster")


def test_step_kernel_releases_the_gil(benchmark):
    """While a worker thread steps 100,000 envs 40 times, how often a Python loop in this thread runs,
    with the nogil kernel (`step_range`) and with the same work under the GIL (`step_batch`)."""
    import threading

    from fastsnake.envs import kernels as K

    n = 100_000
    envs = E.SnakeVectorEnv(n, size=SIZE, threads=1)
    envs.reset(seed=0)
    g = envs._games
    actions, out = np.ones(n, np.int64), K.new_outputs(n, SIZE * SIZE)
    calls = {
        "step_batch (holds the GIL)": lambda: K.step_batch(g.cfg, g.nbr, g.path, g.batch, actions, out),
        "step_range (releases it)": lambda: K.step_range(g.cfg, g.nbr, g.path, g.batch, actions, out, 0, n),
    }
    for call in calls.values():
        call()  # compile / load
    for name, call in calls.items():
        worker = threading.Thread(target=lambda call=call: [call() for _ in range(40)])
        worker.start()
        loops, pause, last = 0, 0.0, time.perf_counter()
        while worker.is_alive():
            now = time.perf_counter()
            pause, last, loops = max(pause, now - last), now, loops + 1
        print(f"\n{name}: this thread's loop ran {loops:,} times, longest pause {pause * 1e3:.0f} ms")
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
    assert K.step_range.targetoptions["nogil"]


def test_sb3_training_speed(benchmark):
    """MaskablePPO steps per wall second through SnakeVecEnv against make_vec_env over SnakeEnvs, same settings."""
    pytest.importorskip("sb3_contrib", reason="needs the rl-train extra and torch (docs/envs.md)")
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.env_util import make_vec_env

    from fastsnake.envs.sb3 import SnakeVecEnv, policy_kwargs

    torch.set_num_threads(1)
    n_envs, steps, obs = 64, 32_768, "planes"
    makers = {
        "SnakeVecEnv": lambda: SnakeVecEnv(n_envs, size=6, obs=obs, threads=1),
        "make_vec_env": lambda: make_vec_env(E.SnakeEnv, n_envs, env_kwargs=dict(size=6, obs=obs)),
    }
    rates = {}
    for name, make in makers.items():
        model = MaskablePPO("MlpPolicy", make(), n_steps=128, batch_size=1024, n_epochs=4, seed=0, device="cpu",
                            policy_kwargs=policy_kwargs(obs))
        model.learn(2048)  # compile / warm up
        t0, c0 = time.perf_counter(), time.process_time()
        model.learn(steps, reset_num_timesteps=False)
        rates[name] = (steps / (time.perf_counter() - t0), steps / (time.process_time() - c0))
        print(f"\nMaskablePPO, {n_envs} envs 6x6 planes, MlpPolicy, through {name}: {rates[name][0]:,.0f} steps/s "
              f"wall, {rates[name][1]:,.0f} per CPU-second")
    benchmark.pedantic(lambda: None, rounds=1, iterations=1)
    ratio = rates["SnakeVecEnv"][1] / rates["make_vec_env"][1]
    benchmark.extra_info.update(rates=rates, ratio_per_cpu_second=ratio)
    print(f"SnakeVecEnv / make_vec_env: {ratio:.2f}x per CPU-second, "
          f"{rates['SnakeVecEnv'][0] / rates['make_vec_env'][0]:.2f}x per wall second")


def test_single_env_steps_per_cpu_second(benchmark):
    env = E.SnakeEnv(size=SIZE)
    rng = np.random.default_rng(0)
    env.reset(seed=0)

    def run(steps=20_000):
        info = {"action_mask": env.action_masks()}
        for _ in range(steps):
            legal = np.flatnonzero(info["action_mask"])
            _, _, terminated, truncated, info = env.step(int(legal[rng.integers(len(legal))]) if len(legal) else 0)
            if terminated or truncated:
                _, info = env.reset()
        return steps

    steps, cpu = per_cpu_second(run, 3)
    benchmark.pedantic(run, rounds=1, iterations=1)
    RESULTS["single"] = steps / cpu
    print(f"\nsingle env (gymnasium.Env, one step a Python call): {steps / cpu / 1e3:,.1f} k steps per CPU-second")


# -- baseline: a plain-Python Gymnasium snake ---------------------------------------------------


class PythonSnakeEnv(gym.Env):
    """The usual hand-written Gymnasium snake: a deque body, a set for collisions, a
    (rows, cols) uint8 grid observation and an action mask, all in Python."""

    metadata = {"render_modes": []}
    MOVES = ((-1, 0), (0, 1), (1, 0), (0, -1))

    def __init__(self, size=10):
        self.rows = self.cols = size
        self.observation_space = gym.spaces.Box(0, 4, (size, size), np.uint8)
        self.action_space = gym.spaces.Discrete(4)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        r = self.rows // 2
        self.body = deque([(r, 0), (r, 1), (r, 2)])
        self.cells = set(self.body)
        self.apple = self._drop()
        return self._obs(), {"action_mask": self._mask()}

    def _drop(self):
        free = [(r, c) for r in range(self.rows) for c in range(self.cols) if (r, c) not in self.cells]
        return free[self.np_random.integers(len(free))] if free else None

    def _obs(self):
        grid = np.zeros((self.rows, self.cols), np.uint8)
        for cell in self.cells:
            grid[cell] = 1
        grid[self.body[0]] = 3
        grid[self.body[-1]] = 2
        if self.apple is not None:
            grid[self.apple] = 4
        return grid

    def _mask(self):
        hr, hc = self.body[-1]
        mask = np.zeros(4, np.int8)
        for m, (dr, dc) in enumerate(self.MOVES):
            t = (hr + dr, hc + dc)
            if 0 <= t[0] < self.rows and 0 <= t[1] < self.cols and (t not in self.cells or t == self.body[0]):
                mask[m] = 1
        return mask

    def step(self, action):
        hr, hc = self.body[-1]
        dr, dc = self.MOVES[action]
        t = (hr + dr, hc + dc)
        if not (0 <= t[0] < self.rows and 0 <= t[1] < self.cols):
            return self._obs(), -1.0, True, False, {"action_mask": self._mask()}
        if t == self.apple:
            self.body.append(t)
            self.cells.add(t)
            self.apple = self._drop()
            return self._obs(), 1.0, self.apple is None, False, {"action_mask": self._mask()}
        tail = self.body.popleft()
        self.cells.discard(tail)
        if t in self.cells:
            self.body.appendleft(tail)
            self.cells.add(tail)
            return self._obs(), -1.0, True, False, {"action_mask": self._mask()}
        self.body.append(t)
        self.cells.add(t)
        return self._obs(), 0.0, False, False, {"action_mask": self._mask()}


def test_python_env_baseline(benchmark):
    env = PythonSnakeEnv(SIZE)
    rng = np.random.default_rng(0)
    _, info = env.reset(seed=0)
    state = {"info": info}

    def run(steps=20_000):
        info = state["info"]
        for _ in range(steps):
            legal = np.flatnonzero(info["action_mask"])
            _, _, terminated, truncated, info = env.step(int(legal[rng.integers(len(legal))]) if len(legal) else 0)
            if terminated or truncated:
                _, info = env.reset()
        state["info"] = info
        return steps

    steps, cpu = per_cpu_second(run, 3)
    benchmark.pedantic(run, rounds=1, iterations=1)
    RESULTS["python"] = steps / cpu
    line = f"\nplain-Python gymnasium snake env: {steps / cpu / 1e3:,.1f} k steps per CPU-second"
    if "vector" in RESULTS:
        line += f"; the vector env is {RESULTS['vector'] / RESULTS['python']:,.0f}x faster"
    print(line)
