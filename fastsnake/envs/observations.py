"""What an agent sees: the ``obs=`` kinds of the environments, computed for a whole batch at once.

- ``"grid"``: (rows, cols) uint8 cell codes (`kernels.CODES`), the env's own buffer.
- ``"planes"``: (5, rows, cols) uint8 one-hot planes, channels first, plane k = code k. Its space
  is declared ``Box(0, 255)`` (values are 0 or 1) so that Stable-Baselines3 takes it as an image:
  a CNN policy then needs ``normalize_images=False``.
- ``"features"``: a float32 vector in [-1, 1] (`FEATURE_NAMES`): the action mask, where the apple
  and the tail are from the head, where the head is, and how full the board is. Small, for an MLP.

Every kind is a function of the position alone (grid, head, tail, apple, length, mask), so a
policy's state gives the same observation the env gives (`fastsnake.envs.bridge`).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from fastsnake.envs.kernels import APPLE, CODE_NAMES

OBS_KINDS = ("grid", "planes", "features")
PLANES = len(CODE_NAMES)
FEATURE_NAMES = (
    "safe_up", "safe_right", "safe_down", "safe_left",  # the action mask
    "apple_rows", "apple_cols",  # (apple - head) / (rows - 1, cols - 1); 0 when there is no apple
    "tail_rows", "tail_cols",  # (tail - head) likewise; 0 for a one-cell snake
    "head_row", "head_col",  # head / (rows - 1, cols - 1), scaled to [-1, 1]
    "fill",  # length / cells
)
_CODES = np.arange(PLANES, dtype=np.uint8).reshape(1, PLANES, 1, 1)


def check_obs(obs) -> str:
    from fastsnake.envs.config import EnvError

    if not isinstance(obs, str) or obs not in OBS_KINDS:
        raise EnvError(f"obs={obs!r} is not one of {', '.join(OBS_KINDS)}")
    return obs


def observation_space(kind: str, rows: int, cols: int) -> spaces.Box:
    if kind == "grid":
        return spaces.Box(0, APPLE, shape=(rows, cols), dtype=np.uint8)
    if kind == "planes":
        return spaces.Box(0, 255, shape=(PLANES, rows, cols), dtype=np.uint8)
    return spaces.Box(-1.0, 1.0, shape=(len(FEATURE_NAMES),), dtype=np.float32)


def planes(grids) -> np.ndarray:
    """(..., R, C) codes -> (..., 5, R, C) uint8 one-hot planes, plane k = code k."""
    grids = np.asarray(grids)
    codes = np.arange(PLANES, dtype=grids.dtype).reshape(-1, 1, 1)
    return (grids[..., None, :, :] == codes).astype(np.uint8)


def features(rows, cols, head, tail, apple, length, masks) -> np.ndarray:
    """(N, len(FEATURE_NAMES)) float32 from per-env arrays of the position (see `FEATURE_NAMES`)."""
    head = np.asarray(head, np.int64)
    tail = np.where(np.asarray(length) >= 2, tail, head)
    apple = np.where(np.asarray(apple) >= 0, apple, head)
    out = np.empty((head.shape[0], len(FEATURE_NAMES)), np.float32)
    out[:, 0:4] = masks
    span_r, span_c = max(rows - 1, 1), max(cols - 1, 1)
    hr, hc = np.divmod(head, cols)
    ar, ac = np.divmod(apple, cols)
    tr, tc = np.divmod(tail, cols)
    out[:, 4] = (ar - hr) / span_r
    out[:, 5] = (ac - hc) / span_c
    out[:, 6] = (tr - hr) / span_r
    out[:, 7] = (tc - hc) / span_c
    out[:, 8] = 2.0 * hr / span_r - 1.0
    out[:, 9] = 2.0 * hc / span_c - 1.0
    out[:, 10] = np.asarray(length) / (rows * cols)
    return out


def encode(kind: str, grids, masks, head, tail, apple, length, copy: bool = True) -> np.ndarray:
    """A batch of observations of kind `kind` from the (N, R, C) grids, (N, 4) masks and the
    per-env head, tail, apple and length. ``copy=False`` lets ``"grid"`` return `grids` itself."""
    if kind == "grid":
        return grids.copy() if copy else grids
    if kind == "planes":
        return (grids[:, None, :, :] == _CODES).view(np.uint8)
    rows, cols = grids.shape[1], grids.shape[2]
    return features(rows, cols, head, tail, apple, length, masks)
