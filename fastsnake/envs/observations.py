"""What an agent sees: the ``obs=`` kinds of the environments, computed for a whole batch at once.

- ``"grid"``: (rows, cols) uint8 cell codes (`kernels.CODES`), the env's own buffer.
- ``"planes"``: (5, rows, cols) uint8 one-hot planes, channels first, plane k = code k. Its space is
  ``Box(0, 1)``: Stable-Baselines3 then does not take it for an image, so it never guesses the channel
  axis (its guess, the smallest axis, scrambles frame stacks and boards under 5 a side) nor divides by
  255; a CNN policy uses `fastsnake.envs.sb3.BoardCNN` (`policy_kwargs(obs, cnn=True)`).
- ``"features"``: a float32 vector in [-1, 1] (`FEATURE_NAMES`): the action mask, where the apple
  and the tail are from the head, where the head is, and how full the board is. Small, for an MLP.
- ``"egocentric"``: (4, view, view) uint8 0/1 planes (`EGO_PLANE_NAMES`: wall, body, tail, apple) of
  the view x view window centred on the head (view odd, `DEFAULT_VIEW`); cells off the board are
  wall. The same shape on every board, so one agent can play several board sizes. With
  ``relative=True`` the window is turned so the snake's heading points up (row 0 is ahead, the left
  columns are the snake's left), and the actions are turns (`check_relative`).

Every kind is a function of the position alone (grid, head, tail, apple, length, mask), so a
policy's state gives the same observation the env gives (`fastsnake.envs.bridge`).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from fastsnake.envs.kernels import (
    APPLE,
    EGO_PLANE_NAMES,
    FEATURE_NAMES,
    PLANES,
    egocentric_of,
    features_of,
    planes_of,
)

OBS_KINDS = ("grid", "planes", "features", "egocentric")
DEFAULT_VIEW = 11  # sees all of a board up to 6x6 from any head cell (a side s needs 2s - 1)
MAX_VIEW = 511  # 2 * MAX_SIDE - 1: the whole of the largest board from any head cell


def check_obs(obs) -> str:
    from fastsnake.envs.config import EnvError

    if not isinstance(obs, str) or obs not in OBS_KINDS:
        raise EnvError(f"obs={obs!r} is not one of {', '.join(OBS_KINDS)}")
    return obs


def check_view(obs: str, view) -> int | None:
    """The window's side for ``obs="egocentric"`` (`DEFAULT_VIEW` when None); None for other kinds,
    which refuse a view."""
    from fastsnake.envs.config import EnvError

    if obs != "egocentric":
        if view is not None:
            raise EnvError(f"view={view!r} is only for obs='egocentric' (obs={obs!r} shows the whole board)")
        return None
    if view is None:
        return DEFAULT_VIEW
    if isinstance(view, bool) or not isinstance(view, (int, np.integer)) or not 3 <= view <= MAX_VIEW \
            or view % 2 == 0:
        raise EnvError(f"view={view!r} must be an odd whole number 3..{MAX_VIEW} (the head is the centre cell)")
    return int(view)


def check_relative(obs: str, relative) -> bool:
    """Whether the actions are turns relative to the heading (``Discrete(3)``: 0 left, 1 ahead,
    2 right) and the egocentric window is turned to the heading; only with ``obs="egocentric"``."""
    from fastsnake.envs.config import EnvError

    if not isinstance(relative, (bool, np.bool_)):
        raise EnvError(f"relative={relative!r} must be True or False")
    if relative and obs != "egocentric":
        raise EnvError(f"relative={relative!r} is only for obs='egocentric' (obs={obs!r} is not turned to the "
                       f"heading, so its actions stay 0 up, 1 right, 2 down, 3 left)")
    return bool(relative)


def observation_space(kind: str, rows: int, cols: int, view: int | None = None) -> spaces.Box:
    if kind == "grid":
        return spaces.Box(0, APPLE, shape=(rows, cols), dtype=np.uint8)
    if kind == "planes":
        return spaces.Box(0, 1, shape=(PLANES, rows, cols), dtype=np.uint8)
    if kind == "egocentric":
        view = DEFAULT_VIEW if view is None else view
        return spaces.Box(0, 1, shape=(len(EGO_PLANE_NAMES), view, view), dtype=np.uint8)
    return spaces.Box(-1.0, 1.0, shape=(len(FEATURE_NAMES),), dtype=np.float32)


def planes(grids) -> np.ndarray:
    """(..., R, C) codes -> (..., 5, R, C) uint8 one-hot planes, plane k = code k."""
    grids = np.asarray(grids)
    codes = np.arange(PLANES, dtype=grids.dtype).reshape(-1, 1, 1)
    return (grids[..., None, :, :] == codes).astype(np.uint8)


def egocentric(grids, head, view: int = DEFAULT_VIEW, heading=None) -> np.ndarray:
    """(N, R, C) codes and the N heads -> (N, 4, view, view) uint8 planes of the window centred on
    each head (`EGO_PLANE_NAMES`: wall off the board, body, tail, apple); with `heading` (N moves
    0..3, `kernels.headings_of`) each window turned so its heading points up (row 0 ahead)."""
    from fastsnake.envs.config import EnvError

    grids = np.ascontiguousarray(grids, np.uint8)
    if grids.ndim != 3:
        raise EnvError(f"grids of shape {grids.shape}: expected (N, rows, cols) cell codes")
    heading = np.zeros(0, np.int64) if heading is None else np.ascontiguousarray(heading, np.int64)
    if heading.shape not in ((0,), (grids.shape[0],)):
        raise EnvError(f"heading of shape {heading.shape}: expected one per grid ({grids.shape[0]},)")
    return egocentric_of(grids, np.ascontiguousarray(head, np.int64), int(view), heading)


def encode(kind: str, grids, masks, head, tail, apple, length, copy: bool = True,
           view: int | None = None, heading=None) -> np.ndarray:
    """A batch of observations of kind `kind` from the (N, R, C) grids, (N, 4) masks and the
    per-env head, tail, apple and length (`view`: the egocentric window's side; `heading`: the
    per-env headings that turn it, for ``relative=True``). ``copy=False`` lets ``"grid"`` return
    `grids` itself."""
    if kind == "grid":
        return grids.copy() if copy else grids
    if kind == "planes":
        return planes_of(np.ascontiguousarray(grids))
    if kind == "egocentric":
        return egocentric(grids, head, DEFAULT_VIEW if view is None else view, heading)
    rows, cols = grids.shape[1], grids.shape[2]
    return features_of(rows, cols, *(np.ascontiguousarray(x, np.int64) for x in (head, tail, apple, length)),
                       np.ascontiguousarray(masks, np.int8))
