"""From a trained agent back to a policy: the env's observation of a policy's state.

A plain-Python policy's ``decide(state, ws)`` sees a position as ``state.rows,
cols, head, tail, apple, length, moves, occupied, neighbours, seed`` (the
engine's `PolicyState`). The observation needs nothing else (no body order), so
`observation_of` gives exactly what the env would show in that position, and
`agent_policy` turns any ``agent(obs) -> action`` into such a ``decide``.
"""

from __future__ import annotations

import numpy as np

from fastsnake.envs.config import EnvError
from fastsnake.envs.kernels import APPLE, BODY, EMPTY, HEAD, TAIL
from fastsnake.envs.observations import check_obs, check_view, encode
from fastsnake.snake.board import TAIL_RULES


def observation_of(state) -> np.ndarray:
    """(rows, cols) uint8 observation of a policy's state, equal to the env's in that position."""
    rows, cols = int(state.rows), int(state.cols)
    occupied = np.asarray(state.occupied)
    if occupied.shape != (rows * cols,):
        raise EnvError(f"state.occupied has shape {occupied.shape}; expected ({rows * cols},) for {rows}x{cols}")
    grid = np.where(occupied != 0, BODY, EMPTY).astype(np.uint8)
    if int(state.length) >= 2:
        grid[int(state.tail)] = TAIL
    grid[int(state.head)] = HEAD
    if int(state.apple) >= 0:
        grid[int(state.apple)] = APPLE
    return grid.reshape(rows, cols)


def _rule_of(state, tail):
    """The tail rule to judge `state` by: `tail` when given, else the one the state carries."""
    if tail is None:
        return "follow" if getattr(state, "tail_follows", True) else "blocked"
    return tail


def action_mask_of(state, tail: str | None = None) -> np.ndarray:
    """int8[4] mask of a policy's state under tail rule `tail` (default: the rule the state
    carries, ``state.tail_follows``), equal to the env's ``action_mask``."""
    tail = _rule_of(state, tail)
    if tail not in TAIL_RULES:
        raise EnvError(f"tail={tail!r} is not one of {', '.join(TAIL_RULES)}")
    rows, cols = int(state.rows), int(state.cols)
    head, tail_cell = int(state.head), int(state.tail)
    occupied = np.asarray(state.occupied)
    mask = np.zeros(4, np.int8)
    r, c = divmod(head, cols)
    for move, (dr, dc) in enumerate(((-1, 0), (0, 1), (1, 0), (0, -1))):
        nr, nc = r + dr, c + dc
        if 0 <= nr < rows and 0 <= nc < cols:
            target = nr * cols + nc
            mask[move] = occupied[target] == 0 or (tail == "follow" and target == tail_cell)
    return mask


def agent_observation(state, obs: str = "grid", tail: str | None = None, view: int | None = None) -> np.ndarray:
    """The observation of kind `obs` (``"grid"``, ``"planes"``, ``"features"``, ``"egocentric"`` with
    its `view`) of a policy's state, equal to what an env made with ``obs=obs`` (and ``view=view``)
    shows in that position; the mask inside ``features`` is under `tail` (default: the rule of the
    game played)."""
    grid = observation_of(state)
    view = check_view(check_obs(obs), view)
    if obs == "grid":
        return grid
    mask = action_mask_of(state, tail)
    one = np.array([int(state.head)]), np.array([int(state.tail)]), np.array([int(state.apple)])
    return encode(obs, grid[None], mask[None], *one, np.array([int(state.length)]), view=view)[0]


def agent_policy(agent, *, masked: bool = False, tail: str | None = None, obs: str = "grid",
                 view: int | None = None):
    """A ``decide(state, ws)`` that plays `agent`: ``agent(obs) -> action`` (an integer 0..3,
    refused otherwise as any policy's move is), or ``agent(obs, action_mask)`` with ``masked=True``,
    where ``obs`` is the observation of kind `obs` an env with that ``obs=`` would show and the mask
    is under `tail` (default: the rule of the game played). For `fastsnake.sweep` / `compare`."""
    if not callable(agent):
        raise EnvError(f"agent {agent!r} is not callable")
    if tail is not None and tail not in TAIL_RULES:
        raise EnvError(f"tail={tail!r} is not one of {', '.join(TAIL_RULES)}")
    view = check_view(check_obs(obs), view)

    if masked:
        def decide(state, ws):
            return agent(agent_observation(state, obs, tail, view), action_mask_of(state, tail))
    else:
        def decide(state, ws):
            return agent(agent_observation(state, obs, tail, view))
    return decide
