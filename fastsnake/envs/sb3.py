"""Stable-Baselines3 over the numba vector env: `SnakeVecEnv`, one kernel call steps every env.

SB3 trains through its own `VecEnv` API (same-step autoreset, ``terminal_observation`` in
``infos``, ``env_method("action_masks")`` for sb3-contrib's ``MaskablePPO``). `SnakeVecEnv`
speaks it over the same batch arrays as `fastsnake.envs.SnakeVectorEnv`, so env i plays the
games of base seed S + i after ``seed(S)``, and a `DummyVecEnv` over ``SnakeEnv``s plays the same
observations, rewards and dones (tested). `BoardCNN` is a features extractor for small boards
(SB3's default ``NatureCNN`` needs 36×36 images); `policy_kwargs(obs)` gives what a policy needs.

Needs the ``rl-train`` extra (stable-baselines3, sb3-contrib, and a torch: see docs/envs.md).
"""

from __future__ import annotations

try:
    import torch
    from stable_baselines3.common.torch_layers import BaseFeaturesExtractor
    from stable_baselines3.common.vec_env import VecEnv
except ImportError:  # pragma: no cover - depends on the installed extras
    raise ImportError("fastsnake.envs.sb3 needs stable-baselines3 and torch, which are not installed: "
                      "pip install torch==2.13.0 'fastsnake[rl-train]' (docs/envs.md: a CPU torch)") from None

from functools import partial

import numpy as np
from gymnasium import spaces

from fastsnake.envs import kernels as K
from fastsnake.envs.config import EnvError, check_seed, check_threads, env_config
from fastsnake.envs.games import Games, check_action, check_turns
from fastsnake.envs.observations import check_obs, check_relative, check_view, observation_space

# What `get_attr` and `env_method` answer for each env, as a DummyVecEnv over `SnakeEnv`s would.
_ENV_METHODS = ("action_masks", "render", "seed_and_game", "body")
_SHARED_ATTRIBUTES = ("render_mode", "observation_space", "action_space", "obs", "view", "relative", "config", "rows",
                      "cols", "metadata", "spec")


class SnakeVecEnv(VecEnv):
    """`num_envs` Snake games as a Stable-Baselines3 `VecEnv`.

    Keywords as `fastsnake.envs.SnakeEnv`'s (``size``, ``start_length``, ``tail``, ``max_moves``,
    ``max_episode_steps``, ``render_mode``) plus ``obs`` (``"grid"``, ``"planes"``,
    ``"features"``, ``"egocentric"`` with ``view`` and ``relative``) and ``threads`` (default: every
    core; below `games.MIN_ENVS_PER_THREAD` envs a thread, fewer are used). Rewards are float32;
    ``infos[i]`` is empty but for an env whose episode ended this step: ``terminal_observation``,
    ``TimeLimit.truncated``, and the game's ``apples``, ``moves``, ``length``, ``seed`` and ``game``.
    `action_masks()` gives (N, 4) bool.
    ``relative=True``: actions are turns of the heading (``Discrete(3)``: 0 left, 1 ahead, 2 right),
    windows are turned to it, masks are (N, 3) (see `fastsnake.envs.SnakeEnv`).
    """

    metadata = {"render_modes": ["rgb_array"]}

    def __init__(self, num_envs=8, size=10, start_length=3, tail="follow", max_moves=None, render_mode=None,
                 max_episode_steps=None, obs="grid", threads=None, view=None, relative=False):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise EnvError(f"num_envs={num_envs!r} must be a whole number at least 1")
        if render_mode not in (None, "rgb_array"):
            raise EnvError(f"render_mode={render_mode!r} is not one of None, 'rgb_array' (SB3 shows frames itself)")
        self.config = env_config(size, start_length, tail, max_moves, max_episode_steps, render_mode)
        self.rows, self.cols = self.config.rows, self.config.cols
        self.obs = check_obs(obs)
        self.view = check_view(self.obs, view)
        self.relative = check_relative(self.obs, relative)
        self.threads = check_threads(threads)
        self.spec = None
        self._render_mode = render_mode
        self._games = Games(self.config, int(num_envs), self.threads)
        self._actions = np.zeros(int(num_envs), np.int64)
        self.num_envs = int(num_envs)  # get_attr, called by VecEnv.__init__, needs it
        super().__init__(int(num_envs), observation_space(self.obs, self.rows, self.cols, self.view),
                         spaces.Discrete(K.TURNS if self.relative else 4))

    # -- SB3 VecEnv API ----------------------------------------------------------------------------

    def reset(self) -> np.ndarray:
        games = self._games
        which = np.ones(self.num_envs, np.bool_)
        seeds = None
        if any(s is not None for s in self._seeds):
            seeds = [None if s is None else check_seed(s, f"seed[{i}]") for i, s in enumerate(self._seeds)]
        game = self._game_option()
        games.reset(which, seeds, game)
        self._reset_seeds()
        self._reset_options()
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return games.observe(self.obs, view=self.view, turned=self.relative)

    def step_async(self, actions) -> None:
        self._actions = (check_turns if self.relative else check_action)(actions, self.num_envs)

    def step_wait(self):
        games = self._games
        out = games.step(games.absolute_moves(self._actions) if self.relative else self._actions)
        reward, terminated, truncated = out[K.O_REWARD], out[K.O_TERMINATED], out[K.O_TRUNCATED]
        dones = terminated | truncated
        infos = [{} for _ in range(self.num_envs)]
        ended = np.flatnonzero(dones)
        if ended.size:
            # SB3 resets in the same step: keep the last observation and stats of the finished games first.
            last = games.observe(self.obs, which=ended, view=self.view, turned=self.relative)
            state = games.batch[K.B_STATE][ended]
            seeds, numbers = games.batch[K.B_SEED][ended], games.batch[K.B_GAME][ended]
            for k, i in enumerate(ended.tolist()):
                infos[i] = {
                    "terminal_observation": last[k],
                    "TimeLimit.truncated": bool(truncated[i] and not terminated[i]),
                    "apples": int(state[k, K.S_APPLES]),
                    "moves": int(state[k, K.S_MOVES]),
                    "length": int(state[k, K.S_LENGTH]),
                    "seed": int(seeds[k]),
                    "game": int(numbers[k]),
                }
            games.reset(dones, None)
        return games.observe(self.obs, view=self.view, turned=self.relative), reward.astype(np.float32), dones, infos

    def close(self) -> None:
        self._games.close()

    def get_images(self):
        if self._render_mode != "rgb_array":
            raise EnvError("get_images() needs render_mode='rgb_array'")
        return [self._games.frame(i) for i in range(self.num_envs)]

    def get_attr(self, attr_name, indices=None):
        which = list(self._get_indices(indices))
        if attr_name == "render_mode":
            return [self._render_mode] * len(which)
        if attr_name in _ENV_METHODS:  # env i's own method, as a DummyVecEnv's env would give
            return [partial(self._env_call, attr_name, i) for i in which]
        if attr_name in _SHARED_ATTRIBUTES:
            return [getattr(self, attr_name)] * len(which)
        raise AttributeError(f"SnakeVecEnv's envs have no attribute {attr_name!r}")

    def set_attr(self, attr_name, value, indices=None):
        if len(self._get_indices(indices)) != self.num_envs:
            raise EnvError(f"set_attr({attr_name!r}) on some envs only: SnakeVecEnv's envs share their attributes")
        if attr_name not in ("spec",):
            raise AttributeError(f"SnakeVecEnv cannot set {attr_name!r}: make a new env with other keywords")
        setattr(self, attr_name, value)

    def env_method(self, method_name, *method_args, indices=None, **method_kwargs):
        which = list(self._get_indices(indices))
        if method_name not in _ENV_METHODS:
            raise AttributeError(f"SnakeVecEnv's envs have no method {method_name!r}")
        if method_name == "action_masks":  # MaskablePPO asks every step: one array, not N calls
            return list(self.action_masks()[which])
        return [self._env_call(method_name, i, *method_args, **method_kwargs) for i in which]

    def _env_call(self, method_name, i):
        """What env i's `SnakeEnv` method `method_name` would return."""
        games = self._games
        if method_name == "action_masks":
            return self.action_masks()[i]
        if method_name == "render":
            return games.frame(i)
        if method_name == "seed_and_game":
            return games.seed(i), games.game(i)
        return games.body(i)

    def env_is_wrapped(self, wrapper_class, indices=None):
        return [False] * len(self._get_indices(indices))

    # -- extras -----------------------------------------------------------------------------------

    def action_masks(self) -> np.ndarray:
        """(num_envs, 4) bool: True where the move does not kill at once; (num_envs, 3), for the turns
        left, ahead, right, with ``relative=True``."""
        return self._games.action_masks(self.relative).astype(np.bool_)

    def seed_and_game(self) -> list[tuple[int, int]]:
        """(base seed, game index) of each env's current game."""
        return [self._env_call("seed_and_game", i) for i in range(self.num_envs)]

    def body(self, i: int) -> np.ndarray:
        """Env i's snake, tail first, head last."""
        return self._games.body(int(i))

    def _game_option(self):
        games = {o.get("game") for o in self._options}
        unknown = sorted({k for o in self._options for k in o} - {"game"})
        if unknown:
            raise EnvError(f"reset option {unknown[0]!r} is not one of game")
        if len(games) > 1:
            raise EnvError("options['game'] must be the same for every env")
        return games.pop()


class BoardCNN(BaseFeaturesExtractor):
    """A features extractor for ``obs="planes"`` or ``"egocentric"`` (channels first, also frame
    stacks of them) on small boards: two 3×3 convolutions that keep the board's size, then a linear
    layer (SB3's ``NatureCNN`` needs at least 36×36)."""

    def __init__(self, observation_space: spaces.Box, features_dim: int = 128, channels: int = 32):
        super().__init__(observation_space, features_dim)
        planes, rows, cols = observation_space.shape
        self.cnn = torch.nn.Sequential(
            torch.nn.Conv2d(planes, channels, 3, padding=1), torch.nn.ReLU(),
            torch.nn.Conv2d(channels, channels, 3, padding=1), torch.nn.ReLU(),
            torch.nn.Flatten(),
        )
        self.linear = torch.nn.Sequential(torch.nn.Linear(channels * rows * cols, features_dim), torch.nn.ReLU())

    def forward(self, observations):
        return self.linear(self.cnn(observations))


def policy_kwargs(obs: str, cnn: bool = False, **extra) -> dict:
    """The ``policy_kwargs`` a policy needs for observations of kind `obs`: with ``"planes"`` and
    ``"egocentric"`` (0/1 planes, channels first, never taken for images: SB3 neither divides them by
    255 nor transposes them) ``cnn=True`` (for ``"CnnPolicy"``) uses `BoardCNN`;
    ``normalize_images=False`` says so to older saved models too."""
    kwargs = {}
    if check_obs(obs) in ("planes", "egocentric"):
        kwargs["normalize_images"] = False
        if cnn:
            kwargs["features_extractor_class"] = BoardCNN
    kwargs.update(extra)
    return kwargs


def model_agent(model, deterministic: bool = True):
    """``agent(obs, mask) -> move`` playing an SB3 model, for ``agent_policy(..., masked=True)``:
    a maskable model is given the mask, any other model is not."""
    import inspect

    takes_mask = "action_masks" in inspect.signature(model.predict).parameters

    def agent(obs, mask):
        if takes_mask:
            action, _ = model.predict(obs, deterministic=deterministic, action_masks=np.asarray(mask, np.bool_))
        else:
            action, _ = model.predict(obs, deterministic=deterministic)
        return int(action)

    return agent
