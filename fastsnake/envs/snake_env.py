"""`SnakeEnv`: one Snake game as a `gymnasium.Env`, on the engine's rules and seeds."""

from __future__ import annotations

import gymnasium as gym
import numpy as np
from gymnasium import spaces

from fastsnake.envs import kernels as K
from fastsnake.envs.config import EnvError, check_seed, env_config
from fastsnake.envs.games import Games, action_index, check_turns
from fastsnake.envs.observations import check_obs, check_relative, check_view
from fastsnake.envs.observations import observation_space as kind_space
from fastsnake.envs.render import Window

RENDER_FPS = 10
_ONE = np.ones(1, np.bool_)


def observation_space(rows: int, cols: int, obs: str = "grid", view: int | None = None) -> spaces.Box:
    """``"grid"``: one uint8 code a cell (0 empty, 1 body, 2 head, 3 tail, 4 apple), shape (rows, cols);
    other kinds: see `fastsnake.envs.observations`."""
    return kind_space(obs, rows, cols, view)


def check_options(options, allowed=("game",)) -> dict:
    if options is None:
        return {}
    if not isinstance(options, dict):
        raise EnvError(f"options={options!r} must be a dict")
    unknown = sorted(set(options) - set(allowed))
    if unknown:
        raise EnvError(f"reset option {unknown[0]!r} is not one of {', '.join(allowed)}")
    return options


class SnakeEnv(gym.Env):
    """Snake on an R×C board, played by the fastsnake engine.

    Actions: ``Discrete(4)``, 0 up, 1 right, 2 down, 3 left. Reward +1 an apple, -1 death,
    else 0; ``terminated`` on death or a won game, ``truncated`` at the move cap
    (``max_moves``, or ``max_episode_steps`` when smaller). Observation: (rows, cols)
    uint8 cell codes, see `fastsnake.envs.CODES`. ``info``: ``action_mask`` (int8[4], 1
    where the move does not kill at once), ``apples``, ``length``, ``moves``, ``seed``
    (the base seed) and ``game`` (the game index). ``obs="planes"`` or ``"features"`` gives
    other observations of the same position, ``obs="egocentric"`` a ``view`` x ``view`` window
    around the head (see `fastsnake.envs.observations`).

    ``relative=True`` (with ``obs="egocentric"`` only) plays relative to the snake's heading:
    actions ``Discrete(3)``, 0 turn left, 1 straight ahead, 2 turn right; the window is turned so
    the heading points up; ``action_mask`` is int8[3], for those three turns. The heading is the
    direction of the last move (at a game's start, from the cell behind the head to the head; up
    for a one-cell snake). The games are those of the absolute moves the turns make.

    Seeding is the sweeps': after ``reset(seed=S)`` the episode is game 0 of base seed S,
    each later ``reset()`` the next game; ``reset(options={"game": k})`` jumps to game k.
    Game k of seed S is the game ``fastsnake play --seed S --game k`` plays, move for move.
    """

    metadata = {"render_modes": ["rgb_array", "human"], "render_fps": RENDER_FPS}

    def __init__(self, size=10, start_length=3, tail="follow", max_moves=None, render_mode=None,
                 max_episode_steps=None, obs="grid", view=None, relative=False):
        self.config = env_config(size, start_length, tail, max_moves, max_episode_steps, render_mode)
        self.rows, self.cols = self.config.rows, self.config.cols
        self.render_mode = render_mode
        self.obs = check_obs(obs)
        self.view = check_view(self.obs, view)
        self.relative = check_relative(self.obs, relative)
        self.observation_space = observation_space(self.rows, self.cols, self.obs, self.view)
        self.action_space = spaces.Discrete(K.TURNS if self.relative else 4)
        self._games = Games(self.config, 1)
        self._state = None  # None before the first reset, then "running" or the outcome
        self._seed_game = (0, 0)
        self._window = None

    # -- Gymnasium API ----------------------------------------------------------------------------

    def reset(self, *, seed=None, options=None):
        options = check_options(options)
        if seed is not None:
            seed = check_seed(seed)
        super().reset(seed=seed)
        self._games.reset(_ONE, None if seed is None else [seed], options.get("game"))
        self._seed_game = (self._games.seed(0), self._games.game(0))
        self._state = "running"
        if self.render_mode == "human":
            self.render()
        return self._observation(), self._info()

    def step(self, action):
        if self._state != "running":
            if self._state is None:
                raise EnvError("step() before reset(): call reset() (or reset(seed=S)) first")
            raise EnvError(f"step() after the episode ended ({self._state}): call reset() first")
        if self.relative:
            move = int(self._games.absolute_moves(check_turns(action, 1))[0])
        else:
            move = action_index(action)
        reward, terminated, truncated = self._games.step_one(move)
        if terminated or truncated:
            self._state = self._games.outcome(0)
        if self.render_mode == "human":
            self.render()
        return self._observation(), reward, terminated, truncated, self._info()

    def render(self):
        if self.render_mode is None:
            gym.logger.warn("render() without a render_mode: pass render_mode='rgb_array' or 'human'")
            return None
        if self._state is None:
            raise EnvError("render() before reset(): there is no position to draw yet")
        rgb = self._games.frame(0)
        if self.render_mode == "rgb_array":
            return rgb
        if self._window is None:
            self._window = Window("fastsnake: Snake", self.metadata["render_fps"])
        self._window.show(rgb, self._games.status(0))
        return None

    def close(self):
        if self._window is not None:
            self._window.close()
            self._window = None
        super().close()

    # -- extras -----------------------------------------------------------------------------------

    def action_masks(self) -> np.ndarray:
        """int8[4]: 1 where the move does not kill at once (what sb3-contrib's MaskablePPO asks for);
        int8[3], for the turns left, ahead, right, with ``relative=True``."""
        return self._mask()

    @property
    def seed_and_game(self) -> tuple[int, int]:
        """(base seed, game index) of the current episode: `fastsnake play --seed S --game k`."""
        return self._seed_game

    def body(self) -> np.ndarray:
        """The snake's cells, tail first, head last."""
        return self._games.body(0)

    def _mask(self) -> np.ndarray:
        return self._games.action_masks(self.relative)[0]

    def _observation(self) -> np.ndarray:
        return self._games.observe(self.obs, which=slice(0, 1), view=self.view, turned=self.relative)[0]

    def _info(self) -> dict:
        row = self._games.batch[K.B_STATE][0]
        seed, game = self._seed_game
        return {
            "action_mask": self._mask(),
            "apples": int(row[K.S_APPLES]),
            "length": int(row[K.S_LENGTH]),
            "moves": int(row[K.S_MOVES]),
            "seed": seed,
            "game": game,
        }
