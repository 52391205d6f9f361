"""Gymnasium environments over the fastsnake engine: ``fastsnake/Snake-v0``.

``import fastsnake.envs`` registers the id with an entry point (`SnakeEnv`, one game)
and a vector entry point (`SnakeVectorEnv`, N games in one numba kernel):

    env = gymnasium.make("fastsnake/Snake-v0", size=10)
    envs = gymnasium.make_vec("fastsnake/Snake-v0", num_envs=4096,
                              vectorization_mode="vector_entry_point", size=10)

Observation: (rows, cols) uint8 cell codes `CODES` (0 empty, 1 body, 2 head, 3 tail,
4 apple); ``obs="planes"`` (one-hot, channels first), ``obs="features"`` (`FEATURE_NAMES`) or
``obs="egocentric"`` (a ``view`` x ``view`` window around the head, `EGO_PLANE_NAMES`) instead;
``relative=True`` with it turns the window to the heading and makes the actions turns (`TURN_NAMES`).
Seeds are the sweeps': ``reset(seed=S)`` plays game 0 of base seed S, each later reset the next game.
Stable-Baselines3: `fastsnake.envs.sb3.SnakeVecEnv` (the ``rl-train`` extra); a saved SB3 model
plays as the policy ``model:PATH`` (`fastsnake.envs.model_policy`). See docs/envs.md.
"""

try:
    import gymnasium
except ImportError:  # pragma: no cover - depends on the installed extras
    raise ImportError("fastsnake.envs needs gymnasium, which is not installed: pip install 'fastsnake[rl]'") from None

from fastsnake.envs.bridge import action_mask_of, agent_policy, observation_of
from fastsnake.envs.config import EnvError
from fastsnake.envs.kernels import APPLE, BODY, CODE_NAMES, EMPTY, HEAD, TAIL, TURN_NAMES
from fastsnake.envs.observations import EGO_PLANE_NAMES, FEATURE_NAMES, OBS_KINDS, egocentric, planes
from fastsnake.envs.snake_env import SnakeEnv
from fastsnake.envs.vector_env import SnakeVectorEnv

ENV_ID = "fastsnake/Snake-v0"
CODES = dict(zip(CODE_NAMES, (EMPTY, BODY, HEAD, TAIL, APPLE), strict=True))

__all__ = [
    "ENV_ID", "CODES", "EMPTY", "BODY", "HEAD", "TAIL", "APPLE", "EnvError", "SnakeEnv", "SnakeVectorEnv",
    "observation_of", "action_mask_of", "agent_policy", "planes", "egocentric", "OBS_KINDS", "FEATURE_NAMES",
    "EGO_PLANE_NAMES", "TURN_NAMES",
]


if ENV_ID not in gymnasium.registry:
    gymnasium.register(
        id=ENV_ID,
        entry_point="fastsnake.envs.snake_env:SnakeEnv",
        vector_entry_point="fastsnake.envs.vector_env:SnakeVectorEnv",
    )
