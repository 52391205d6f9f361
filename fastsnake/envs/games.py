"""`Games`: N games of one configuration in the kernels' batch arrays, driven from Python.

Both environments sit on it (the single env is a batch of one), so they share
every line that touches a game: the same observation, mask, reward and seeding.
"""

from __future__ import annotations

import numpy as np

from fastsnake.envs import kernels as K
from fastsnake.envs.config import EnvConfig, EnvError, check_seed, random_seed
from fastsnake.envs.crew import Crew
from fastsnake.envs.observations import encode
from fastsnake.envs.render import frame
from fastsnake.snake.engine import DIED, OUTCOME_NAMES, State, start_path

MOVES_MEANING = "0..3 (0 up, 1 right, 2 down, 3 left)"
TURNS_MEANING = "0..2 (0 left, 1 ahead, 2 right of the heading)"


def _integer_actions(action, num_envs: int, meaning: str) -> np.ndarray:
    """`action` as an int64 array of `num_envs` (a bare integer for one env); floats, bools and
    wrong shapes are refused, naming what an action is (`meaning`)."""
    arr = np.asarray(action)
    if arr.dtype.kind not in "iu":
        raise EnvError(f"action {action!r} is not a whole number {meaning}")
    if num_envs == 1 and arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.shape != (num_envs,):
        raise EnvError(f"actions have shape {arr.shape}; expected ({num_envs},), one per environment")
    return arr.astype(np.int64, copy=False)


def check_action(action, num_envs: int) -> np.ndarray:
    """Moves as an int64 array of `num_envs`; floats, bools and wrong shapes are refused (the range
    is checked by the step's kernel, `kernels.check_step`)."""
    return _integer_actions(action, num_envs, MOVES_MEANING)


def action_index(action) -> int:
    """One action as an int 0..3 (Python or numpy integers, 0-d integer arrays)."""
    if isinstance(action, (int, np.integer)) and not isinstance(action, (bool, np.bool_)):
        move = int(action)
    else:
        arr = np.asarray(action)
        if arr.shape != () or arr.dtype.kind not in "iu":
            raise EnvError(f"action {action!r} is not a whole number {MOVES_MEANING}")
        move = int(arr)
    if not 0 <= move <= 3:
        raise EnvError(f"action {move} is not a move: 0 up, 1 right, 2 down, 3 left")
    return move


# A thread steps at least this many envs: below it, handing a slice to a thread (a microsecond or
# two when its worker spins, tens when it sleeps: `crew.py`) costs more than stepping it (about
# 40 ns an env).
MIN_ENVS_PER_THREAD = 512


def slices(num_envs: int, threads: int) -> list[tuple[int, int]]:
    """(lo, hi) ranges of envs, one per thread used: as even as can be, none under MIN_ENVS_PER_THREAD."""
    parts = max(1, min(threads, num_envs // MIN_ENVS_PER_THREAD))
    bounds = np.linspace(0, num_envs, parts + 1).round().astype(np.int64)
    return [(int(bounds[k]), int(bounds[k + 1])) for k in range(parts)]


def observe_batch(batch, rows: int, cols: int, kind: str, copy: bool = True, which=None, view=None,
                  grids=None, turned: bool = False) -> np.ndarray:
    """Observations of kind `kind` of the games of a kernels' batch (see `Games.observe`); `grids`:
    the batch's grid rows as (N, rows, cols), when the caller keeps that view; `turned`: egocentric
    windows turned to each game's heading (``relative=True``)."""
    state = batch[K.B_STATE]
    grids = batch[K.B_GRID].reshape(-1, rows, cols) if grids is None else grids
    masks = batch[K.B_MASK]
    heading = K.headings_of(batch[K.B_BODY], state, cols) if turned else None
    if which is not None:
        grids, masks, state = grids[which], masks[which], state[which]
        heading = None if heading is None else heading[which]
    return encode(kind, grids, masks, state[:, K.S_HEAD], state[:, K.S_TAIL], state[:, K.S_APPLE],
                  state[:, K.S_LENGTH], copy, view, heading)


def check_turns(turns, num_envs: int) -> np.ndarray:
    """Heading-relative actions as an int64 array of `num_envs`, each 0 left, 1 ahead, 2 right."""
    arr = _integer_actions(turns, num_envs, TURNS_MEANING)
    bad = np.flatnonzero((arr < 0) | (arr >= K.TURNS))
    if bad.size:
        where = f" (environment {int(bad[0])})" if num_envs > 1 else ""
        raise EnvError(f"action {int(arr[bad[0]])} is not a turn: 0 left, 1 ahead, 2 right of the heading{where}")
    return arr


class Games:
    def __init__(self, config: EnvConfig, num_envs: int, threads: int = 1):
        self.config = config
        self.num_envs = num_envs
        self.threads = threads
        rows, cols = config.rows, config.cols
        self.cfg, self.nbr = config.game.arrays()
        self.path = start_path(rows, cols)
        self.batch = K.new_batch(num_envs, rows * cols)
        # The calling thread steps the first slice; the crew's workers the others (`crew.py`).
        parts = slices(num_envs, threads)
        self._crew = Crew(parts, self.cfg, self.nbr, self.path, self.batch, rows * cols) if len(parts) > 1 else None
        self.grids = self.batch[K.B_GRID].reshape(num_envs, rows, cols)  # a view: (N, R, C)
        self.masks = self.batch[K.B_MASK]
        self.last_action = np.full(num_envs, -1, np.int64)
        # Outputs of a one-env step, reused (the single env returns Python scalars).
        self._one = (np.zeros(1, np.int64), K.new_outputs(1, rows * cols))

    # -- resets and steps -------------------------------------------------------------------------

    def reset(self, which: np.ndarray, seeds, game=None) -> None:
        """Reset the envs with which[i]. `seeds`: None (the next game of each env's base
        seed; a random base seed for an env never seeded) or one base seed per env (then
        game 0). `game`: play that game index instead."""
        n = self.num_envs
        bases = self.batch[K.B_SEED].copy()
        games = self.batch[K.B_GAME] + 1
        started = self.started
        for i in np.flatnonzero(which):
            given = None if seeds is None else seeds[i]
            if given is not None:
                bases[i] = np.uint64(check_seed(given))
                games[i] = 0
            elif not started[i]:
                bases[i] = np.uint64(random_seed())
                games[i] = 0
        if game is not None:
            index = game
            if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < 2**63:
                raise EnvError(f"options['game']={game!r} must be a game index 0, 1, 2, ...")
            games[:] = int(index)
        K.reset_batch(self.cfg, self.nbr, self.path, self.batch, np.asarray(which, np.bool_), bases, games)
        self.last_action[which] = -1
        assert n == len(which)

    @property
    def started(self) -> np.ndarray:
        """Which envs have a game: were reset at least once (a game index of -1 means none yet)."""
        return self.batch[K.B_GAME] >= 0

    def step(self, actions: np.ndarray, grids: bool = False):
        """One step of every env with `actions` (checked by `check_action`): the step's outputs
        (`kernels.new_outputs`: reward, terminated, truncated, the info fields and, with `grids`,
        fresh copies of the grid observations), all fresh arrays. Nothing moves when an env was
        never reset or an action is not a move (`EnvError`)."""
        n = self.num_envs
        out = K.new_outputs(n, self.config.rows * self.config.cols, grids)
        if self._crew is None:
            # The checks and the step in one call.
            verdict = K.step_batch(self.cfg, self.nbr, self.path, self.batch, actions, out)
        else:
            verdict = self._crew.step(actions, out)
        if verdict == K.NOT_STARTED:
            raise EnvError("step() before reset(): call reset() (or reset(seed=S)) first")
        if verdict != K.ALL_VALID:
            raise EnvError(f"action {int(actions[verdict])} is not a move: 0 up, 1 right, 2 down, 3 left"
                           + (f" (environment {verdict})" if n > 1 else ""))
        self.last_action[:] = actions
        self.time_limit(out[K.O_TERMINATED], out[K.O_TRUNCATED])
        return out

    def time_limit(self, terminated: np.ndarray, truncated: np.ndarray) -> None:
        """Gymnasium's `TimeLimit`: truncated whenever the episode's steps reach `max_episode_steps`,
        also on a step that ends it (a death or a win on the last step gives both flags). The engine
        ends such a game DIED or WON; only a game still running there is STUCK (truncated) already.
        A move is counted whether it kills or not, so the game's moves are the episode's steps."""
        limit = self.config.max_episode_steps
        if limit is None:
            return
        ended = np.flatnonzero(terminated)
        if ended.size:
            truncated[ended] |= self.batch[K.B_STATE][ended, K.S_MOVES] == limit

    def step_one(self, move: int):
        """Env 0 of a batch of one moves `move` (checked by `action_index`):
        (reward, terminated, truncated) as Python scalars."""
        action, out = self._one
        action[0] = move
        K.step_batch(self.cfg, self.nbr, self.path, self.batch, action, out)
        self.last_action[0] = move
        reward, terminated, truncated = out[K.O_REWARD], out[K.O_TERMINATED], out[K.O_TRUNCATED]
        self.time_limit(terminated, truncated)
        return float(reward[0]), bool(terminated[0]), bool(truncated[0])

    def close(self) -> None:
        if self._crew is not None:
            self._crew.close()
            self._crew = None

    # -- what the envs report ---------------------------------------------------------------------

    def observe(self, kind: str, copy: bool = True, which=None, view: int | None = None,
                turned: bool = False) -> np.ndarray:
        """Observations of kind `kind` (`observations.OBS_KINDS`; `view` for ``"egocentric"``, `turned`
        to the heading for ``relative=True``) of the envs indexed by `which` (all when None;
        ``copy=False`` then lets ``"grid"`` return the env's own buffer)."""
        return observe_batch(self.batch, self.config.rows, self.config.cols, kind, copy, which, view, self.grids,
                             turned)

    # -- heading-relative play (relative=True): derived from the games' states, never stored ------

    def headings(self) -> np.ndarray:
        """Each env's heading, a move 0..3 (`kernels.heading_at`)."""
        return K.headings_of(self.batch[K.B_BODY], self.batch[K.B_STATE], self.config.cols)

    def absolute_moves(self, turns: np.ndarray) -> np.ndarray:
        """The moves 0..3 of the turns (checked by `check_turns`) from each env's heading."""
        return K.absolute_moves(self.batch[K.B_BODY], self.batch[K.B_STATE], self.config.cols, turns)

    def action_masks(self, relative: bool) -> np.ndarray:
        """A fresh (N, 4) int8 copy of the masks of the moves, or with `relative` the (N, 3) masks of
        the turns (`relative_masks`)."""
        return self.relative_masks() if relative else self.masks.copy()

    def relative_masks(self) -> np.ndarray:
        """(N, 3) int8 masks of the turns left, ahead, right of each env's heading."""
        return K.relative_masks(self.batch[K.B_BODY], self.batch[K.B_STATE], self.config.cols, self.masks)

    def column(self, slot: int) -> np.ndarray:
        return self.batch[K.B_STATE][:, slot].copy()

    def state(self, i: int) -> State:
        return State(*self.batch[K.B_STATE][i].tolist())

    def seed(self, i: int) -> int:
        return int(self.batch[K.B_SEED][i])

    def game(self, i: int) -> int:
        return int(self.batch[K.B_GAME][i])

    def pending(self, i: int) -> bool:
        return bool(self.batch[K.B_PENDING][i])

    def outcome(self, i: int) -> str:
        return OUTCOME_NAMES[self.state(i).outcome]

    def body(self, i: int) -> np.ndarray:
        """Env i's body cells, tail first, head last."""
        st = self.state(i)
        ring = self.batch[K.B_BODY][i]
        return np.roll(ring, -st.tail_i)[: st.length].astype(np.int32)

    def frame(self, i: int) -> np.ndarray:
        st = self.state(i)
        crash = -1
        if st.outcome == DIED and self.last_action[i] >= 0:
            crash = int(self.nbr[st.head * 4 + self.last_action[i]])
            if crash < 0:
                crash = st.head
        return frame(self.config.rows, self.config.cols, self.body(i), st.apple, crash)

    def status(self, i: int) -> str:
        st = self.state(i)
        text = (f"seed {self.seed(i)} game {self.game(i)}   move {st.moves:,}   apples {st.apples:,}   "
                f"length {st.length:,}")
        return text if st.outcome == 0 else f"{text}   {OUTCOME_NAMES[st.outcome]}"
