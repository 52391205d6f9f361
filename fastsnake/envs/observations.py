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
  wall. The same shape on every board, so one agent can play several board sizes.

Every kind is a function of the position alone (grid, head, tail, apple, length, mask), so a
policy's state gives the same observation the env gives (`fastsnake.envs.bridge`).
"""

from __future__ import annotations

import numpy as np
from gymnasium import spaces

from fastsnake.envs.kernels import APPLE, BODY, CODE_NAMES, TAIL

OBS_KINDS = ("grid", "planes", "features", "egocentric")
PLANES = len(CODE_NAMES)
# The egocentric window's planes; the head is always the centre cell, so it has none.
EGO_PLANE_NAMES = ("wall", "body", "tail", "apple")
DEFAULT_VIEW = 11  # sees all of a board up to 6x6 from any head cell (a side s needs 2s - 1)
MAX_VIEW = 511  # 2 * MAX_SIDE - 1: the whole of the largest board from any head cell
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


def egocentric(grids, head, view: int = DEFAULT_VIEW) -> np.ndarray:
    """(N, R, C) codes and the N heads -> (N, 4, view, view) uint8 planes of the window centred on
    each head (`EGO_PLANE_NAMES`: wall off the board, body, tail, apple)."""
    grids = np.asarray(grids)
    n, rows, cols = grids.shape
    head_row, head_col = np.divmod(np.asarray(head, np.int64), cols)
    offsets = np.arange(view) - view // 2
    r = head_row[:, None] + offsets  # (N, view) board rows of the window's rows
    c = head_col[:, None] + offsets
    inside = ((r >= 0) & (r < rows))[:, :, None] & ((c >= 0) & (c < cols))[:, None, :]
    codes = grids[np.arange(n)[:, None, None], np.clip(r, 0, rows - 1)[:, :, None], np.clip(c, 0, cols - 1)[:, None, :]]
    out = np.empty((n, len(EGO_PLANE_NAMES), view, view), np.uint8)
    out[:, 0] = ~inside
    out[:, 1] = inside & (codes == BODY)
    out[:, 2] = inside & (codes == TAIL)
    out[:, 3] = inside & (codes == APPLE)
    return out


def encode(kind: str, grids, masks, head, tail, apple, length, copy: bool = True,
           view: int | None = None) -> np.ndarray:
    """A batch of observations of kind `kind` from the (N, R, C) grids, (N, 4) masks and the
    per-env head, tail, apple and length (`view`: the egocentric window's side). ``copy=False``
    lets ``"grid"`` return `grids` itself."""
    if kind == "grid":
        return grids.copy() if copy else grids
    if kind == "planes":
        return (grids[:, None, :, :] == _CODES).view(np.uint8)
    if kind == "egocentric":
        return egocentric(grids, head, DEFAULT_VIEW if view is None else view)
    rows, cols = grids.shape[1], grids.shape[2]
    return features(rows, cols, head, tail, apple, length, masks)
