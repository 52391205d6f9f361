"""Saved agents as Snake policies: ``model:PATH`` plays a Stable-Baselines3 model like any policy.

``fastsnake.sweep("model:runs/ppo/model.zip", 6, 1000)``, ``fastsnake compare --policies
cycle,model:PATH``, ``play``, ``replay --from`` and ``report`` take it as they take ``cycle``. PATH is
a ``model.save()`` zip (MaskablePPO, PPO, A2C or DQN) or a policy saved alone with
``policy.save()`` (a ``.pt`` as examples/rl/ writes; an actor-critic one is played with the action
mask, as MaskablePPO's, a DQN one without). A model with 3 actions on egocentric observations was
trained with ``relative=True``: it is shown windows turned to each game's heading and given the masks
of its turns, and its turns become moves (`kernels.absolute_moves`) before the engine steps.

How the games are played: the games of a sweep's block sit in the envs' batch arrays
(`fastsnake.envs.kernels`), as many at once as `SLOTS`; each step asks the network for the moves of
every running game in one forward pass, steps them all in one kernel call, records the games that
ended and starts the next ones in their places. A game starts as the engine's `start_default`
starts it from the sweep's seed, so game k is game k of every other policy without its own cycle
(``greedy``, a user's ``decide``), and of ``env.reset(seed=S, options={"game": k})``.

A game's moves do not depend on the batch it was played in: float32 matrix products give results
that vary (in the last bits) with the number of rows multiplied, so every forward pass is on exactly
`FORWARD_ROWS` rows (padded), on one torch thread, and a row's result depends only on that row
(tested: a game played alone, by `play`, equals the same game in a sweep of many). The network is
asked as SB3's ``predict(obs, deterministic=True)`` asks it (the most likely action, masked where
the model takes masks), so the games are those of examples/rl/compare_agent.py, one forward pass a
move, but for a logit tie within float rounding (none in the games measured: docs/envs.md).

The model file's SHA-256 is the policy's option ``sha256`` (its default, so every sweep file
records it): a replay or report of that sweep refuses a file that has changed since, by hashing its
bytes before reading them as a model. Reading one runs no code it holds (`fastsnake.envs.model_file`:
the weights by ``torch.load(weights_only=True)`` or an unpickler that calls nothing the file names,
the network rebuilt from its recorded fields); and a command reading a file someone sent (replay,
report, verify, resume) plays no model that file names unless the user names it (``--model PATH``).
"""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass

import numpy as np
from numba import njit

from fastsnake.envs import kernels as K
from fastsnake.envs.games import observe_batch
from fastsnake.envs.observations import EGO_PLANE_NAMES, FEATURE_NAMES, PLANES
from fastsnake.snake import record
from fastsnake.snake.board import CFG_COLS, CFG_MAX_MOVES, CFG_ROWS
from fastsnake.snake.cancel import is_cancelled
from fastsnake.snake.engine import (
    CANCELLED,
    ROW_OUTCOME,
    RUNNING,
    start_default,
    start_path,
    write_rows,
)
from fastsnake.snake.policies.protocol import EnginePolicy, Option, OptionError, PolicyError, no_params
from fastsnake.snake.rng import game_seeds

PREFIX = "model"
# Every forward pass multiplies exactly this many rows (a block, padded): float matrix products
# round differently for different row counts, and a game must not depend on its batch.
FORWARD_ROWS = 128
# Games in play at once: a step asks the network for all of them (SLOTS / FORWARD_ROWS passes), so
# the per-step Python cost is shared by SLOTS games. A sweep hands the kernel BATCH_GAMES games a call
# at least, so that the slots stay full while the last long games of a call finish.
SLOTS = 1024
BATCH_GAMES = 4 * SLOTS
INSTALL = "pip install torch==2.13.0 'fastsnake[rl-train]' (docs/envs.md: a CPU torch)"


# -- kernels ---------------------------------------------------------------------------------------

@njit(cache=True)
def start_slots(cfg, nbr, path, batch, slots, seeds):
    """Start game seeds[k] in batch row slots[k]: the env's start (`kernels.start_env`) from a game's
    own seed rather than a base seed and index, so `play` (given the game's seed) starts it too."""
    for k in range(slots.shape[0]):
        i = slots[k]
        st = start_default(K.game_of(cfg, nbr, batch, i), seeds[k], path)
        K.store_state(batch, i, st)
        K.write_grid(batch[K.B_OCC][i], st, batch[K.B_GRID][i])
        K.write_mask(cfg, nbr, batch[K.B_OCC][i], st, batch[K.B_MASK][i])
        batch[K.B_PENDING][i] = False


@njit(cache=True)
def step_slots(cfg, nbr, path, batch, slots, actions, out):
    """One move of each game in rows `slots` (actions indexed by row; outputs `kernels.new_outputs`):
    the envs' own `step_range`."""
    for k in range(slots.shape[0]):
        i = slots[k]
        K.step_range(cfg, nbr, path, batch, actions, out, i, i + 1)


# -- the model -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Agent:
    """A loaded model: its network, what it sees, and the file it came from."""

    path: str
    sha256: str
    algorithm: str  # MaskablePPO, PPO, A2C, DQN, or the policy class of a .pt
    policy: object  # the SB3 policy (a torch module)
    masked: bool  # predict() is given the action masks
    obs: str  # the observation kind it was trained on
    shape: tuple  # one observation's shape
    board: tuple | None  # (rows, cols) it can play, None for any
    view: int | None  # the egocentric window's side
    relative: bool = False  # trained with relative=True: turns of the heading, windows turned to it

    def describe(self) -> str:
        board = "any board" if self.board is None else f"{self.board[0]}x{self.board[1]} boards"
        seen = self.obs if self.view is None else f"{self.obs} {self.view}x{self.view}"
        if self.relative:
            seen += " turned to the heading"
        return f"{self.algorithm} model {self.path} ({seen} observations, {board}; sha256 {self.sha256[:12]})"

    def moves(self, obs: np.ndarray, masks: np.ndarray) -> np.ndarray:
        """The model's deterministic move for each observation (int64), `FORWARD_ROWS` rows a pass."""
        import torch

        n = obs.shape[0]
        out = np.empty(n, np.int64)
        block = np.zeros((FORWARD_ROWS,) + self.shape, obs.dtype)
        block_masks = np.ones((FORWARD_ROWS, masks.shape[1]), np.bool_)
        with _forward_lock:
            threads = torch.get_num_threads()
            torch.set_num_threads(1)
            try:
                with torch.inference_mode():
                    for lo in range(0, n, FORWARD_ROWS):
                        hi = min(n, lo + FORWARD_ROWS)
                        block[: hi - lo] = obs[lo:hi]
                        block[hi - lo:] = 0
                        block_masks[: hi - lo] = masks[lo:hi] != 0
                        block_masks[hi - lo:] = True
                        out[lo:hi] = most_likely(self.policy, block, block_masks, self.masked)[: hi - lo]
            finally:
                torch.set_num_threads(threads)
        return out


# sb3-contrib's value for a masked-out logit (MaskableCategorical.apply_masking).
MASKED_LOGIT = -1e8


def most_likely(policy, obs: np.ndarray, masks: np.ndarray, masked: bool) -> np.ndarray:
    """What ``policy.predict(obs, deterministic=True[, action_masks=masks])`` answers, with the same
    arithmetic, without building its distribution objects: DQN's argmax of the Q-values; an
    actor-critic's argmax of the probabilities of its Categorical (logits normalised by logsumexp,
    the masked ones set to `MASKED_LOGIT` and normalised again, then softmax: the first action wins a
    tie, as torch's argmax gives it)."""
    import torch
    from stable_baselines3.common.policies import BasePolicy
    from stable_baselines3.dqn.policies import DQNPolicy

    tensor = policy.obs_to_tensor(obs)[0]
    if isinstance(policy, DQNPolicy):
        return policy.q_net(tensor).argmax(dim=1).numpy()
    features = BasePolicy.extract_features(policy, tensor, policy.pi_features_extractor)
    logits = policy.action_net(policy.mlp_extractor.forward_actor(features))
    logits = logits - logits.logsumexp(dim=-1, keepdim=True)
    if masked:
        keep = torch.as_tensor(masks, dtype=torch.bool)
        logits = torch.where(keep, logits, torch.tensor(MASKED_LOGIT, dtype=logits.dtype))
        logits = logits - logits.logsumexp(dim=-1, keepdim=True)
    return torch.argmax(torch.softmax(logits, dim=-1), dim=1).numpy()


_forward_lock = threading.Lock()  # torch's thread count is process-wide: one pass at a time
_loaded: dict = {}  # (absolute path, SHA-256 of its bytes) -> Agent
_loaded_lock = threading.Lock()


def file_sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def obs_kind(shape: tuple) -> tuple[str, tuple | None, int | None]:
    """(kind, board or None, view or None) of a model trained on observations of this shape."""
    if len(shape) == 2:
        return "grid", tuple(shape), None
    if len(shape) == 3 and shape[0] == PLANES:
        return "planes", tuple(shape[1:]), None
    if len(shape) == 3 and shape[0] == len(EGO_PLANE_NAMES) and shape[1] == shape[2] and shape[1] % 2 == 1:
        return "egocentric", None, int(shape[1])
    if shape == (len(FEATURE_NAMES),):
        return "features", None, None
    raise ValueError(f"its observations have shape {shape}, which no fastsnake env gives (grid (R, C), planes "
                     f"(5, R, C), features ({len(FEATURE_NAMES)},), egocentric (4, V, V); frame stacks are not "
                     f"played)")


def is_relative(kind: str, actions) -> bool:
    """Whether a model with `actions` actions (None: not a ``Discrete``) on observations of `kind`
    plays turns of the heading (``relative=True``: 3 actions, egocentric); ValueError when it plays
    neither those nor the 4 moves."""
    if kind == "egocentric" and actions == K.TURNS:
        return True
    if actions != 4:
        turns = "; or 3 turns with egocentric observations" if kind != "egocentric" else " or 3 turns"
        raise ValueError(f"it has {actions} actions, where fastsnake envs have 4 moves{turns}")
    return False


def load_agent(path: str, sha256: str | None = None) -> Agent:
    """The agent saved at `path` (loaded once per file content in a process); PolicyError when it
    cannot be played, saying why. The file's bytes are read once and hashed first: with `sha256`
    (a sweep's record) a different file is refused before anything reads it as a model; then the
    network is rebuilt without running any code the file holds (`fastsnake.envs.model_file`)."""
    name = f"{PREFIX}:{path}"
    try:
        from fastsnake.envs.model_file import ModelFileError, load_model, read_model_bytes
    except ImportError as exc:
        raise PolicyError(f"policy {name!r} needs torch and stable-baselines3 ({exc.name or exc} is not "
                          f"installed): {INSTALL}") from None
    try:
        data, digest = read_model_bytes(path, sha256)
    except OSError as exc:
        raise PolicyError(f"policy {name!r}: cannot read the model file: {exc.strerror or exc}") from None
    except ModelFileError as exc:
        raise PolicyError(f"policy {name!r}: {exc}") from None
    key = (os.path.abspath(path), digest)
    with _loaded_lock:
        if key in _loaded:
            return _loaded[key]
        try:
            algorithm, policy, masked = load_model(data)
        except ImportError as exc:
            raise PolicyError(f"policy {name!r} needs torch and stable-baselines3 ({exc.name or exc} is not "
                              f"installed): {INSTALL}") from None
        except Exception as exc:
            raise PolicyError(f"policy {name!r}: {path} cannot be played: {exc}") from None
        policy.set_training_mode(False)
        shape = tuple(int(x) for x in policy.observation_space.shape)
        try:
            kind, board, view = obs_kind(shape)
            relative = is_relative(kind, getattr(policy.action_space, "n", None))
        except ValueError as exc:
            raise PolicyError(f"policy {name!r}: {exc}") from None
        agent = Agent(path, digest, algorithm, policy, masked, kind, shape, board, view, relative)
        _loaded[key] = agent
        return agent


# -- games -----------------------------------------------------------------------------------------

def play_games(agent: Agent, cfg, nbr, seeds: np.ndarray, out: np.ndarray | None = None, record: bool = False):
    """Play the games of `seeds` (game seeds), `SLOTS` at a time. Rows (the record's kernel columns,
    `engine.write_rows`) go to `out`; with `record` (one game) returns its (body0, moves, apples). Returns None
    when the run was cancelled (what was played is then incomplete)."""
    rows, cols = int(cfg[CFG_ROWS]), int(cfg[CFG_COLS])
    n = seeds.shape[0]
    slots = min(SLOTS, n)
    batch = K.new_batch(slots, rows * cols)
    path = start_path(rows, cols)
    playing = np.arange(slots, dtype=np.int64)  # game of each row, -1 once the row has no game left
    start_slots(cfg, nbr, path, batch, np.arange(slots, dtype=np.int64), seeds[:slots])
    following = slots
    state = batch[K.B_STATE]
    actions = np.zeros(slots, np.int64)
    step_out = K.new_outputs(slots, rows * cols)  # not `out`: that is the caller's rows
    moves_made, apples_at = [], []
    if record:
        body0 = batch[K.B_BODY][0][: state[0, K.S_LENGTH]].astype(np.int32)
        if state[0, K.S_APPLE] >= 0:
            apples_at.append(int(state[0, K.S_APPLE]))
    live = np.arange(slots, dtype=np.int64)
    while live.size:
        if is_cancelled(cfg):
            return None
        obs = observe_batch(batch, rows, cols, agent.obs, which=live, view=agent.view, turned=agent.relative)
        if agent.relative:  # the model's turns of each heading, as the moves the engine plays
            body, states = batch[K.B_BODY][live], state[live]
            turns = agent.moves(obs, K.relative_masks(body, states, cols, batch[K.B_MASK][live]))
            actions[live] = K.absolute_moves(body, states, cols, turns)
        else:
            actions[live] = agent.moves(obs, batch[K.B_MASK][live])
        length = int(state[0, K.S_LENGTH])
        step_slots(cfg, nbr, path, batch, live, actions, step_out)
        if record:
            moves_made.append(int(actions[0]))
            if state[0, K.S_LENGTH] != length and state[0, K.S_APPLE] >= 0:
                apples_at.append(int(state[0, K.S_APPLE]))
        ended = live[state[live, K.S_OUTCOME] != RUNNING]
        if ended.size:
            if (state[ended, K.S_OUTCOME] == CANCELLED).any():
                return None
            if out is not None:
                write_rows(out, playing[ended], state[ended])
            more = ended[: max(0, n - following)]
            playing[ended] = -1
            if more.size:
                playing[more] = np.arange(following, following + more.size)
                start_slots(cfg, nbr, path, batch, more, seeds[following: following + more.size])
                following += more.size
            live = np.flatnonzero(playing >= 0)
    if record:
        return body0, np.asarray(moves_made, np.uint8), np.asarray(apples_at, np.int32)
    return True


def warm_up(agent: Agent, cfg, nbr) -> None:
    """Compile (or load from the cache) what `play_games` runs, and make torch's first pass, on a
    copy of `cfg` capped at one move (a throwaway game)."""
    one = cfg.copy()
    one[CFG_MAX_MOVES] = 1
    play_games(agent, one, nbr, np.zeros(1, np.uint64))


# -- the policy ------------------------------------------------------------------------------------

class ModelHash(Option):
    """The model file's SHA-256 as an option: it defaults to the file's, so a sweep records it, and a
    value given (a replay's, from the sweep's file) must be the file's."""

    def check(self, policy: str, raw):
        if isinstance(raw, str) and raw in self.words:
            return raw
        raise OptionError(f"policy {policy!r}: the model file's SHA-256 is {self.words[0]}, not {raw!r} as "
                          f"recorded: the file has changed since that sweep (a different model)")


class ModelRunner:
    """The `EnginePolicy` kernels of one model file."""

    def __init__(self, name: str, agent: Agent):
        self.name, self.agent = name, agent

    def params(self, config, options) -> np.ndarray:
        board = self.agent.board
        if board is not None and (config.rows, config.cols) != board:
            raise PolicyError(f"policy {self.name!r} was trained on {board[0]}x{board[1]} boards ({self.agent.obs} "
                              f"observations of shape {self.agent.shape}): it cannot play {config.rows}x{config.cols}")
        return no_params(config, options)

    def sweep(self, cfg, nbr, params, base_seed, first, out, nblocks):
        if out.shape[0] == 0:  # the sweep's call before its clock starts: compile (or load) the kernels
            warm_up(self.agent, cfg, nbr)
            return
        seeds = game_seeds(np.uint64(base_seed), np.int64(first), out.shape[0])
        play_games(self.agent, cfg, nbr, seeds, out)

    def play(self, cfg, nbr, params, seed):
        out = np.zeros((1, record.width()), np.int64)
        recorded = play_games(self.agent, cfg, nbr, np.array([seed], np.uint64), out, record=True)
        if recorded is None:
            return CANCELLED, np.empty(0, np.int32), np.empty(0, np.uint8), np.empty(0, np.int32), np.empty(0, np.int32)
        body0, moves, apples = recorded
        return int(out[0, ROW_OUTCOME]), body0.astype(np.int32), moves, apples, np.empty(0, np.int32)


def model_policy(path: str, name: str, sha256: str | None = None) -> EnginePolicy:
    """The policy ``model:PATH`` (the registry's ``fastsnake.policy_families`` entry ``model``); with
    `sha256` (what a file recorded) a model file with other bytes is refused before it is read."""
    if not path:
        raise PolicyError(f"policy {name!r}: give the model's file after 'model:', e.g. model:runs/ppo/model.zip")
    agent = load_agent(path, sha256)
    runner = ModelRunner(name, agent)
    digest = ModelHash("sha256", str, agent.sha256, "the model file's SHA-256 (a replay checks it is the same file)",
                       words=(agent.sha256,))
    return EnginePolicy(
        name=name,
        summary=agent.describe(),
        sweep_kernel=runner.sweep,
        play_kernel=runner.play,
        make_params=runner.params,
        guaranteed=False,
        options=(digest,),
        origin="fastsnake.envs",  # not our compiled kernels: nothing of it to warm up or to run interpreted
        kind="model",
        batch_games=BATCH_GAMES,
    )
