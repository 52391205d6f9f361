"""`SnakeVectorEnv`: N Snake games stepped by one numba kernel call (not N Python envs).

Env i is, observation for observation, a `SnakeEnv` seeded S+i: `reset(seed=S)` starts
game 0 of base seed S+i in env i, and each autoreset or unseeded reset moves env i to
the next game of its base seed. Autoreset is Gymnasium 1.x's next-step mode: the step
after a terminal step resets that env (its action is ignored) and returns the new
game's first observation with reward 0.
"""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from fastsnake.envs import kernels as K
from fastsnake.envs.config import EnvError, check_seed, check_threads, env_config
from fastsnake.envs.games import Games, check_action, check_turns
from fastsnake.envs.observations import check_obs, check_relative, check_view
from fastsnake.envs.render import Window
from fastsnake.envs.snake_env import RENDER_FPS, check_options, observation_space

INFO_KEYS = ("action_mask", "apples", "length", "moves", "seed", "game")
INFO_MASK_KEYS = tuple("_" + key for key in INFO_KEYS)  # Gymnasium's "which envs have this key"


class SnakeVectorEnv(VectorEnv):
    """`num_envs` Snake games in numba arrays; arguments as `SnakeEnv`'s, plus ``copy`` and ``threads``.

    ``copy=True`` (default) returns fresh observation arrays each call; ``copy=False`` (with
    ``obs="grid"``) returns the env's own (num_envs, rows, cols) buffer, overwritten by the next step.
    ``threads`` (default: every core) step slices of the envs in parallel, each thread at least
    `games.MIN_ENVS_PER_THREAD` envs; the results do not depend on it.
    ``info`` holds one array per key (``action_mask`` (N, 4) int8, ``apples``, ``length``,
    ``moves``, ``seed``, ``game``) with Gymnasium's ``_key`` masks. `action_masks()` gives
    the (N, 4) masks. ``reset(options={"reset_mask": m})`` resets only the envs with m[i].
    ``relative=True`` (with ``obs="egocentric"``): actions are turns of each env's heading
    (``Discrete(3)``: 0 left, 1 ahead, 2 right), windows are turned to it, masks are (N, 3); see
    `SnakeEnv`.
    """

    metadata = {
        "render_modes": ["rgb_array", "human"],
        "render_fps": RENDER_FPS,
        "autoreset_mode": AutoresetMode.NEXT_STEP,
    }

    def __init__(self, num_envs=1, size=10, start_length=3, tail="follow", max_moves=None, render_mode=None,
                 max_episode_steps=None, copy=True, obs="grid", threads=None, view=None, relative=False):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise EnvError(f"num_envs={num_envs!r} must be a whole number at least 1")
        self.config = env_config(size, start_length, tail, max_moves, max_episode_steps, render_mode)
        self.num_envs = int(num_envs)
        self.rows, self.cols = self.config.rows, self.config.cols
        self.render_mode = render_mode
        self.copy = bool(copy)
        self.obs = check_obs(obs)
        self.view = check_view(self.obs, view)
        self.relative = check_relative(self.obs, relative)
        self.threads = check_threads(threads)
        self.single_observation_space = observation_space(self.rows, self.cols, self.obs, self.view)
        self.single_action_space = spaces.Discrete(K.TURNS if self.relative else 4)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self._games = Games(self.config, self.num_envs, self.threads)
        self._all = np.ones(self.num_envs, np.bool_)
        self._all.flags.writeable = False
        self._window = None

    # -- Gymnasium API ----------------------------------------------------------------------------

    def reset(self, *, seed=None, options=None):
        options = dict(check_options(options, ("game", "reset_mask")))
        which = self._reset_mask(options.pop("reset_mask", None))
        n = self.num_envs
        if seed is None:
            seeds = None
        elif isinstance(seed, (list, tuple, np.ndarray)):
            if len(seed) != n:
                raise EnvError(f"{len(seed)} seeds given for {n} environments")
            seeds = [None if s is None else check_seed(s, f"seed[{i}]") for i, s in enumerate(seed)]
        else:
            base = check_seed(seed, span=n)
            seeds = [base + i for i in range(n)]
        super().reset(seed=None if seeds is None else seeds[0])
        self._games.reset(which, seeds, options.get("game"))
        if self.render_mode == "human":
            self.render()
        return self._observations(), self._info(which)

    def step(self, actions):
        fresh_grids = self.obs == "grid" and self.copy
        if self.relative:
            moves = self._games.absolute_moves(check_turns(actions, self.num_envs))
        else:
            moves = check_action(actions, self.num_envs)
        out = self._games.step(moves, grids=fresh_grids)
        if self.render_mode == "human":
            self.render()
        obs = out[K.O_GRIDS].reshape(self.num_envs, self.rows, self.cols) if fresh_grids else self._observations()
        return (obs, out[K.O_REWARD], out[K.O_TERMINATED], out[K.O_TRUNCATED],
                self._info(self._all, out[K.O_INFO]))

    def render(self):
        """rgb_array: a tuple of one frame per env; human: env 0 in a window."""
        if self.render_mode is None:
            gym.logger.warn("render() without a render_mode: pass render_mode='rgb_array' or 'human'")
            return None
        if not self._games.started.all():
            raise EnvError("render() before reset(): there is no position to draw yet")
        if self.render_mode == "rgb_array":
            return tuple(self._games.frame(i) for i in range(self.num_envs))
        if self._window is None:
            self._window = Window(f"fastsnake: Snake (env 0 of {self.num_envs})", self.metadata["render_fps"])
        self._window.show(self._games.frame(0), self._games.status(0))
        return None

    def close_extras(self, **kwargs):
        self._games.close()
        if self._window is not None:
            self._window.close()
            self._window = None

    # -- extras -----------------------------------------------------------------------------------

    def action_masks(self) -> np.ndarray:
        """(num_envs, 4) int8: 1 where the move does not kill at once; (num_envs, 3), for the turns left,
        ahead, right, with ``relative=True``."""
        return self._games.action_masks(self.relative)

    def seeds_and_games(self) -> tuple[np.ndarray, np.ndarray]:
        """(base seed, game index) of each env's current game."""
        return self._games.batch[K.B_SEED].copy(), self._games.batch[K.B_GAME].copy()

    def body(self, i: int) -> np.ndarray:
        """Env i's snake, tail first, head last."""
        return self._games.body(int(i))

    def _reset_mask(self, mask) -> np.ndarray:
        if mask is None:
            return self._all.copy()
        mask = np.asarray(mask)
        if mask.dtype != np.bool_ or mask.shape != (self.num_envs,):
            raise EnvError(f"options['reset_mask'] must be a bool array of shape ({self.num_envs},), "
                           f"got {mask.dtype} {mask.shape}")
        if not mask.any():
            raise EnvError("options['reset_mask'] resets no environment")
        return mask.copy()

    def _observations(self) -> np.ndarray:
        return self._games.observe(self.obs, self.copy, view=self.view, turned=self.relative)

    def _info(self, which: np.ndarray, fields=None) -> dict:
        """The info dict; `fields`: the step's `kernels.INFO_FIELDS` rows, when a step wrote them."""
        g = self._games
        if fields is None:
            fields = K.info_columns(g.batch[K.B_STATE])
        info = {"action_mask": g.action_masks(self.relative), **dict(zip(K.INFO_FIELDS, fields, strict=True)),
                "seed": g.batch[K.B_SEED].copy(), "game": g.batch[K.B_GAME].copy()}
        info.update(dict.fromkeys(INFO_MASK_KEYS, which))
        return info
